import json
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from click.testing import CliRunner

from w2v_cli.main import main
from w2v import __version__

from ..conftest import ROOT


def run(args):
    return CliRunner().invoke(main, args)


def assert_one_line_error(res, pattern=None):
    assert res.exit_code != 0, res.output
    out = res.output.strip()
    assert "Traceback" not in out and len(out.splitlines()) == 1, out
    assert out.startswith("Error:")
    if pattern:
        assert pattern in out


def test_version_and_help():
    res = run(["--version"])
    assert res.exit_code == 0 and __version__ in res.output
    res = run(["train", "--help"])
    assert res.exit_code == 0 and "--negative" in res.output and "--tokenizer" in res.output


def test_train_writes_binary_and_text(small_corpus, tmp_path):
    gensim = pytest.importorskip("gensim")
    out = tmp_path / "v.bin"
    rep = tmp_path / "r.json"
    res = run(["train", str(small_corpus), "-o", str(out), "--dim", "16", "--epochs", "1", "--quiet",
               "--threads", "1", "--report-json", str(rep)])
    assert res.exit_code == 0, res.output
    kv = gensim.models.KeyedVectors.load_word2vec_format(str(out), binary=True)
    assert kv.vector_size == 16 and len(kv) > 1000
    import json
    report = json.loads(rep.read_text())
    assert report["vocab_size"] == len(kv) and report["words_per_sec"] > 0
    txt = tmp_path / "v.txt"
    res = run(["train", str(small_corpus), "-o", str(txt), "--dim", "16", "--epochs", "1", "--quiet",
               "--threads", "1", "--text"])
    assert res.exit_code == 0, res.output
    kv2 = gensim.models.KeyedVectors.load_word2vec_format(str(txt), binary=False)
    np.testing.assert_allclose(kv2.vectors, kv.vectors, rtol=1e-6)   # same seed, same vectors


@pytest.mark.parametrize("args,pattern", [
    (["--dim", "0"], "--dim"), (["--window", "0"], "--window"), (["--epochs", "0"], "--epochs"),
    (["--negative", "-1"], "--negative"), (["--negative", "0"], "--negative"), (["--alpha", "0"], "--alpha"),
    (["--min-count", "100000"], "vocabulary is empty"), (["--epochs", "1000000000000"], "--epochs must be <="),
    (["--epochs", "99999999999999999999"], "--epochs must be <="), (["--ns-exponent", "nan"], "--ns-exponent"),
    (["--max-sentence-length", "1"], "--max-sentence-length must be an integer >= 2"),
])
def test_bad_parameters_one_line(small_corpus, tmp_path, args, pattern):
    res = run(["train", str(small_corpus), "-o", str(tmp_path / "v.bin"), "--quiet"] + args)
    assert_one_line_error(res, pattern)
    assert not (tmp_path / "v.bin").exists()


def test_epoch_without_examples_says_why(tmp_path):
    # four words of frequency 1/4 each: subsampling at 1e-3 keeps each with
    # probability ~7%, so with this seed nothing is trained (an error: the vectors
    # would be the random ones it started from); with sample 0 it is
    corpus = tmp_path / "tiny.txt"
    corpus.write_text("alpha beta gamma delta\n")
    base = ["train", str(corpus), "--min-count", "1", "--epochs", "1", "--threads", "1", "--seed", "1"]
    res = run(base + ["-o", str(tmp_path / "a.bin")])
    assert res.exit_code == 1, res.output
    assert "epoch 1: no training examples" in res.output and "nan" not in res.output
    assert res.output.splitlines()[-1] == ("Error: nothing was trained: no training example in 1 epoch (subsampling "
                                           "dropped every word that had a context; on a tiny corpus set sample to 0)")
    assert not (tmp_path / "a.bin").exists()
    res = run(base + ["-o", str(tmp_path / "b.bin"), "--sample", "0"])
    assert res.exit_code == 0, res.output
    assert re.search(r"epoch 1: mean loss \d+\.\d+ over [1-9]\d* examples", res.output), res.output


def test_undecodable_bytes_are_one_warning_line(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_bytes(b"the cat sat on caf\xe9 mat \xff\xfe the cat sat\n" * 40)
    res = run(["train", str(p), "-o", str(tmp_path / "v.bin"), "--min-count", "1", "--dim", "8", "--epochs", "1",
               "--threads", "1", "--quiet"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines() == [f"warning: {p}: bytes that are not UTF-8 were read as U+FFFD: "
                                       f"80 tokens (2 distinct words) hold it"], res.output


def test_bad_paths_one_line(tmp_path, small_corpus, monkeypatch):
    assert_one_line_error(run(["train", str(tmp_path / "missing.txt"), "-o", str(tmp_path / "v.bin")]), "not found")
    d = tmp_path / "emptydir"
    d.mkdir()
    assert_one_line_error(run(["train", str(d), "-o", str(tmp_path / "v.bin")]), "no readable files")
    e = tmp_path / "empty.txt"
    e.write_text("\n\n")
    assert_one_line_error(run(["train", str(e), "-o", str(tmp_path / "v.bin")]), "empty")
    assert_one_line_error(run(["train", str(small_corpus), "-o", str(tmp_path / "nodir" / "v.bin")]),
                          "does not exist")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    if os.geteuid() == 0:   # permissions do not bind root (CI runs as root): os.access stands in
        import w2v_cli.train as cli_train
        real_access = os.access
        monkeypatch.setattr(cli_train.os, "access", lambda p, mode: p != str(ro) and real_access(p, mode))
    assert_one_line_error(run(["train", str(small_corpus), "-o", str(ro / "v.bin")]), "not writable")


@pytest.mark.parametrize("case", ["output-is-dir", "report-in-missing-dir", "read-only-output",
                                  "save-model-in-missing-dir", "checkpoint-is-a-link"])
def test_outputs_that_cannot_be_written_are_refused_before_training(small_corpus, tmp_path, monkeypatch, case):
    # each is refused before the corpus is read: found only when writing, it would cost the whole run
    import w2v_cli.train as cli_train
    out = tmp_path / "v.bin"
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_bytes(b"old")
    (tmp_path / "link").symlink_to(tmp_path / "dir")   # a model directory is replaced, not followed
    extra, pattern = {
        "output-is-dir": (["-o", tmp_path / "dir"], "output path is a directory"),
        "report-in-missing-dir": (["--report-json", tmp_path / "nodir" / "r.json"], "output directory does not exist"),
        "read-only-output": (["-o", tmp_path / "file"], "output file is not writable"),
        "save-model-in-missing-dir": (["--save-model", tmp_path / "nodir" / "m"],
                                      f"--save-model {tmp_path / 'nodir' / 'm'}: directory {tmp_path / 'nodir'} "
                                      "does not exist"),
        "checkpoint-is-a-link": (["--checkpoint", tmp_path / "link"], "exists and is not a model directory"),
    }[case]
    if case == "read-only-output":   # permissions do not bind root: os.access stands in for them
        real_access = os.access
        monkeypatch.setattr(cli_train.os, "access",
                            lambda p, mode: p != str(tmp_path / "file") and real_access(p, mode))
    import w2v.model.word2vec
    read = []
    real_build_vocab = w2v.model.word2vec.Word2Vec.build_vocab
    monkeypatch.setattr(w2v.model.word2vec.Word2Vec, "build_vocab", lambda self, *a, **k: read.append(1) or
                        real_build_vocab(self, *a, **k))
    args = ["train", str(small_corpus), "--epochs", "1", "--threads", "1", "--dim", "8", "-q"]
    if "-o" not in extra:
        args += ["-o", str(out)]
    res = run(args + [str(a) for a in extra])
    assert_one_line_error(res, pattern)
    assert not read, "the checks come before the corpus is read"
    assert not out.exists() and (tmp_path / "file").read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["dir", "file", "link"] and os.listdir(tmp_path / "dir") == []


def test_save_model_may_fill_an_empty_directory(small_corpus, tmp_path):
    # `mkdir m && w2v train ... --save-model m`: an empty directory is no model, but nothing is lost in it
    from w2v import Word2Vec

    (tmp_path / "m").mkdir()
    res = run(["train", str(small_corpus), "--epochs", "1", "--threads", "1", "--dim", "8", "-q",
               "-o", str(tmp_path / "v.bin"), "--save-model", str(tmp_path / "m")])
    assert res.exit_code == 0, res.output
    assert Word2Vec.load(str(tmp_path / "m")).settings.dim == 8


def test_interrupted_run_leaves_old_file(small_corpus, tmp_path):
    """SIGTERM during training: the previous output stays intact, no temp file is left."""
    out = tmp_path / "v.bin"
    out.write_bytes(b"old")
    cmd = [sys.executable, "-c", "from w2v_cli.main import main; main()", "train", str(small_corpus), "-o", str(out),
           "--epochs", "200", "--threads", "1", "--dim", "16"]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, cwd=ROOT)
    # wait until training has started (first progress line or vocabulary line)
    line = proc.stderr.readline()
    assert b"vocabulary" in line or b"reading" in line, line
    proc.terminate()
    proc.wait(timeout=60)
    assert proc.returncode != 0
    assert out.read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["v.bin"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_killed_convert_leaves_old_file_and_no_temporary_file(tmp_path, sig):
    """kill or a closed terminal while `convert` writes: as Ctrl-C, the old output stays, no temp file."""
    from w2v.vectors.keyed import KeyedVectors

    src = tmp_path / "big.bin"
    rng = np.random.default_rng(0)
    KeyedVectors([f"w{i}" for i in range(60_000)],
                 rng.standard_normal((60_000, 100)).astype(np.float32)).save_word2vec_format(str(src))
    out = tmp_path / "o.txt.xz"
    out.write_bytes(b"old")
    # SIGHUP as from a terminal, even when the tests run under nohup (the CLI keeps an ignored SIGHUP)
    cmd = [sys.executable, "-c", "import signal; signal.signal(signal.SIGHUP, signal.SIG_DFL); "
           "from w2v_cli.main import main; main()", "convert", str(src), str(out)]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, cwd=ROOT)
    deadline = time.monotonic() + 60
    while not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]:   # writing has started
        assert proc.poll() is None and time.monotonic() < deadline, "convert ended before it was signalled"
        time.sleep(0.01)
    proc.send_signal(sig)
    proc.wait(timeout=60)
    assert proc.returncode == 130, proc.stderr.read()
    assert out.read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["big.bin", "o.txt.xz"]


@pytest.mark.parametrize("clash", [("-o", "--save-model"), ("-o", "--report-json"), ("-o", "--checkpoint"),
                                   ("--report-json", "--save-model")])
def test_outputs_naming_the_same_path_are_refused_before_training(small_corpus, tmp_path, clash):
    # -o and --report-json on one path once lost the vectors; -o and --save-model failed after writing -o
    same = tmp_path / "same"
    args = ["train", str(small_corpus), "--epochs", "1", "--threads", "1", "--dim", "8", "-q"]
    if "-o" not in clash:
        args += ["-o", str(tmp_path / "v.bin")]
    for flag in clash:
        args += [flag, str(same)]
    res = run(args)
    assert_one_line_error(res, "name the same path")
    # the message names both options as the user typed them (-o is -o/--output)
    flags = [{"-o": "-o/--output"}.get(flag, flag) for flag in clash]
    assert f"{flags[0]} and {flags[1]} name the same path" in res.output, res.output
    assert not same.exists() and not (tmp_path / "v.bin").exists()


def test_save_model_and_checkpoint_may_share_a_directory(small_corpus, tmp_path):
    # both hold a full model: the last epoch's checkpoint is replaced by the final model
    from w2v import Word2Vec

    model = tmp_path / "m"
    res = run(["train", str(small_corpus), "--epochs", "2", "--threads", "1", "--dim", "8", "-q",
               "-o", str(tmp_path / "v.bin"), "--save-model", str(model), "--checkpoint", str(model)])
    assert res.exit_code == 0, res.output
    state = Word2Vec.load(str(model)).run_state
    assert state["epochs_done"] == state["epochs"] == 2
    assert sorted(os.listdir(tmp_path)) == ["m", "v.bin"]


@pytest.mark.parametrize("case", ["same", "link", "hardlink", "dotted", "report", "in-folder", "new-in-folder",
                                  "xz"])
def test_an_output_that_is_part_of_the_corpus_is_refused_before_training(small_corpus, tmp_path, case):
    # `w2v train c.txt -o c.txt` once replaced the corpus by the vectors
    corpus = tmp_path / "c.txt"
    corpus.write_bytes(small_corpus.read_bytes()[:50_000])
    folder = tmp_path / "books"
    folder.mkdir()
    (folder / "a.txt").write_bytes(corpus.read_bytes())
    (tmp_path / "link.txt").symlink_to(corpus)
    os.link(corpus, tmp_path / "hard.txt")
    xz = tmp_path / "c.txt.xz"
    import lzma
    xz.write_bytes(lzma.compress(corpus.read_bytes()))
    args, pattern = {
        "same": ([corpus, "-o", corpus], "is a corpus file"),
        "link": ([tmp_path / "link.txt", "-o", corpus], "is a corpus file"),
        "hardlink": ([corpus, "-o", tmp_path / "hard.txt"], "is a corpus file"),
        "dotted": ([corpus, "-o", f"{tmp_path}/../{tmp_path.name}/c.txt"], "is a corpus file"),
        "report": ([corpus, "-o", tmp_path / "v.bin", "--report-json", corpus], "is a corpus file"),
        "in-folder": ([folder, "-o", folder / "a.txt"], "is a corpus file"),
        "new-in-folder": ([folder, "-o", folder / "v.bin"], "is inside the corpus folder"),
        "xz": ([xz, "-o", xz], "is a corpus file"),
    }[case]
    before = {p: p.read_bytes() for p in (corpus, folder / "a.txt", xz)}
    res = run(["train"] + [str(a) for a in args] + ["--epochs", "1", "--threads", "1", "--dim", "8",
                                                   "--min-count", "1", "-q"])
    assert_one_line_error(res, pattern)
    assert {p: p.read_bytes() for p in before} == before
    assert not (tmp_path / "v.bin").exists() and not (folder / "v.bin").exists()


def test_save_model_holding_the_corpus_is_refused(small_corpus, tmp_path):
    from w2v_cli.train import check_outputs_not_corpus
    from w2v.errors import OutputError

    model_dir = tmp_path / "m"
    model_dir.mkdir()
    (model_dir / "c.txt").write_text("a b c\n")
    with pytest.raises(OutputError, match="holds the corpus file"):
        check_outputs_not_corpus([str(model_dir / "c.txt")], save_model=str(model_dir))
    check_outputs_not_corpus([str(model_dir / "c.txt")], save_model=str(tmp_path / "other"))   # no error
    check_outputs_not_corpus(["-"], output=str(tmp_path / "v.bin"))


def test_report_json_is_strict_json(small_corpus, tmp_path):
    # an epoch without examples has loss NaN: json.dumps wrote a bare NaN, which JSON has not
    # (four words of frequency 1/4: with this seed subsampling leaves examples in the first epoch only;
    # a run without any example is an error, see test_epoch_without_examples_says_why)
    import json
    rep = tmp_path / "r.json"
    tiny = tmp_path / "tiny.txt"
    tiny.write_text("alpha beta gamma delta\n")
    res = run(["train", str(tiny), "-o", str(tmp_path / "v.bin"), "--epochs", "2", "--dim", "8", "--seed", "35",
               "--threads", "1", "-q", "--min-count", "1", "--report-json", str(rep)])
    assert res.exit_code == 0, res.output

    def refuse(name):
        raise AssertionError(f"{name} in the report")
    report = json.loads(rep.read_text(), parse_constant=refuse)
    assert report["epoch_loss"][0] > 0 and report["epoch_loss"][1] is None and report["examples"] > 0


def test_standard_input_twice_is_refused(tmp_path):
    assert_one_line_error(run(["train", "-", "-", "-o", str(tmp_path / "v.bin")]), "more than once")


def test_corrupt_gzip_corpus_one_line(small_corpus, tmp_path):
    import gzip
    raw = bytearray(gzip.compress(small_corpus.read_bytes()[:200_000]))
    raw[len(raw) // 2] ^= 0xFF
    bad = tmp_path / "bad.txt.gz"
    bad.write_bytes(bytes(raw))
    res = run(["train", str(bad), "-o", str(tmp_path / "v.bin"), "--epochs", "1", "--dim", "8", "-q"])
    assert_one_line_error(res, "cannot read corpus")
    assert not (tmp_path / "v.bin").exists()


def test_memory_budget_error_speaks_mib(small_corpus, tmp_path):
    res = run(["train", str(small_corpus), "-o", str(tmp_path / "v.bin"), "--memory-budget", "-1"])
    assert_one_line_error(res, "--memory-budget must be an integer >= 0 MiB (got -1)")


def test_malformed_scheduler_address_fails_at_once_in_one_line(small_corpus, tmp_path):
    pytest.importorskip("distributed")
    cmd = [sys.executable, "-c", "from w2v_cli.main import main; main()", "train", str(small_corpus),
           "-o", str(tmp_path / "v.bin"), "-q", "--scheduler", "garbage"]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    # a Client whose constructor failed used to wait 20 s in its finalizer and print a traceback
    assert time.monotonic() - t0 < 15
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "Error: cannot reach the Dask scheduler at garbage: missing port number in address 'garbage'"], proc.stderr


def test_a_failed_save_model_leaves_the_vectors_file_as_it_was(small_corpus, tmp_path, monkeypatch):
    import w2v.model.persist
    from w2v.errors import OutputError

    def full_disk(model, path):
        raise OutputError(f"cannot write {path}: No space left on device")

    monkeypatch.setattr(w2v.model.persist, "save_model", full_disk)
    out = tmp_path / "v.bin"
    out.write_bytes(b"old")
    res = run(["train", str(small_corpus), "--epochs", "1", "--threads", "1", "--dim", "8", "-q",
               "-o", str(out), "--save-model", str(tmp_path / "model")])
    assert_one_line_error(res, "No space left")
    assert out.read_bytes() == b"old" and sorted(os.listdir(tmp_path)) == ["v.bin"]


@pytest.mark.parametrize("flag", ["-o", "--report-json"])
def test_an_output_that_is_a_pipe_or_device_is_written_through(small_corpus, tmp_path, flag):
    # outputs are renamed over their path: `-o /dev/null` run as root replaced the device
    # with a plain file; a named pipe stands for it here, read as a shell's `>` would feed it
    import stat
    import threading
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    args = ["train", str(small_corpus), "--dim", "8", "--epochs", "1", "--quiet", "--threads", "1"]
    args += ["-o", str(fifo)] if flag == "-o" else ["-o", str(tmp_path / "v.bin"), "--report-json", str(fifo)]
    res = run(args)
    reader.join(timeout=60)
    assert res.exit_code == 0, res.output
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    if flag == "-o":
        assert got and got[0].split(b"\n", 1)[0].endswith(b" 8")    # the word2vec header "<count> 8"
    else:
        assert got and json.loads(got[0])["words_per_sec"] > 0
    assert sorted(os.listdir(tmp_path)) == sorted(["fifo"] + (["v.bin"] if flag != "-o" else []))


CLI = [sys.executable, "-c", "from w2v_cli.main import main; main()"]


def test_sighup_ignored_as_under_nohup_does_not_stop_training(small_corpus, tmp_path):
    # `nohup w2v train ... &` then logging out: the CLI's SIGHUP handler replaced nohup's
    # SIG_IGN, so the closed terminal stopped the run ("interrupted") and no vectors were written
    out = tmp_path / "v.bin"
    cmd = CLI + ["train", str(small_corpus), "-o", str(out), "--epochs", "2", "--threads", "1", "--dim", "8"]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, cwd=ROOT,
                            preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    try:
        first = proc.stderr.readline()          # the command runs (its handlers are set by now)
        proc.send_signal(signal.SIGHUP)
        rest = proc.stderr.read()
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, first + rest
    assert b"interrupted" not in rest and out.exists()


def test_a_second_ctrl_c_does_not_cut_the_cleanup_short(tmp_path):
    # Ctrl-C twice: the second KeyboardInterrupt broke off what the first one had started
    # (waiting for the worker threads, removing a temporary file or folder), or, once
    # "interrupted" was printed, came out of the interpreter's shutdown as a traceback
    script = (
        "import atexit, os, signal, sys, time\n"
        "from w2v_cli.common import one_line_errors\n"
        "def again():\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    time.sleep(0.2)\n"
        "@one_line_errors\n"
        "def command():\n"
        "    try:\n"
        "        again()\n"
        "        time.sleep(30)\n"
        "    finally:\n"
        "        again()\n"
        "        again()\n"
        "        print('cleaned up', flush=True)\n"
        "atexit.register(again)\n"
        "command()\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 130, (proc.stdout, proc.stderr)
    assert proc.stdout == "cleaned up\n" and proc.stderr == "interrupted\n", (proc.stdout, proc.stderr)


def test_interrupted_on_a_terminal_ends_the_progress_line_first(small_corpus, tmp_path):
    # on a terminal the progress line is redrawn in place, without a newline: "interrupted"
    # (or an error) was written right after its ETA, on the same line
    import pty
    import select

    out = tmp_path / "v.bin"
    cmd = CLI + ["train", str(small_corpus), "-o", str(out), "--epochs", "1000", "--threads", "1", "--dim", "8"]
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, cwd=ROOT)
    os.close(slave)
    got = b""

    def read(timeout):
        if not select.select([master], [], [], timeout)[0]:
            return False
        try:
            chunk = os.read(master, 65536)
        except OSError:   # EIO: every process holding the terminal has closed it
            return False
        nonlocal got
        got += chunk
        return bool(chunk)

    deadline = time.monotonic() + 120
    try:
        while b"\repoch " not in got:   # a progress line drawn in place
            assert proc.poll() is None and time.monotonic() < deadline, got
            read(0.1)
        proc.send_signal(signal.SIGINT)
        while read(30):
            pass
        proc.wait(timeout=60)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, got
    text = got.decode(errors="replace")
    assert "interrupted" in text and "Traceback" not in text, text
    assert text[text.index("interrupted") - 1] == "\n", text[-300:]
    assert not out.exists() and os.listdir(tmp_path) == []


def test_saving_says_what_it_writes(small_corpus, tmp_path):
    # a save of a large model (e.g. --dim 300 --text) ran for seconds without a word
    res = run(["train", str(small_corpus), "--epochs", "1", "--threads", "1", "--dim", "8", "--text",
               "-o", str(tmp_path / "v.txt"), "--save-model", str(tmp_path / "m")])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    saving = [i for i, line in enumerate(lines) if line.startswith("saving the model to ")]
    writing = [i for i, line in enumerate(lines) if line.startswith("writing ") and "v.txt (text)" in line]
    wrote = [i for i, line in enumerate(lines) if line.startswith("wrote ")]
    assert len(saving) == len(writing) == len(wrote) == 1 and saving[0] < writing[0] < wrote[0], lines


def test_a_run_outlives_its_stderr(small_corpus, tmp_path):
    # a run whose terminal went away without a SIGHUP (`setsid`, a disowned job: every write then
    # fails with EIO), or whose stderr pipe lost its reader, stopped at its next progress line:
    # hours of training lost to a line nobody could read
    out = tmp_path / "v.bin"
    cmd = CLI + ["train", str(small_corpus), "-o", str(out), "--epochs", "2", "--threads", "1", "--dim", "8",
                 "--save-model", str(tmp_path / "m")]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    proc.stderr.close()                    # nobody reads stderr: each write fails (EPIPE)
    assert proc.wait(timeout=120) == 0
    assert out.exists() and (tmp_path / "m" / "model.json").exists()


def test_report_json_describes_the_run(small_corpus, tmp_path):
    # every count of the report is the run's own (a one-thread run is reproducible: the library
    # trains the same); words/s counts the corpus once per epoch
    from w2v import Word2Vec

    rep, out = tmp_path / "r.json", tmp_path / "v.bin"
    res = run(["train", str(small_corpus), "-o", str(out), "--dim", "8", "--epochs", "2", "--threads", "1", "-q",
               "--report-json", str(rep)])
    assert res.exit_code == 0, res.output
    report = json.loads(rep.read_text())
    m = Word2Vec(dim=8, epochs=2, threads=1).train(str(small_corpus))
    tr = m.last_train
    assert report["corpus"] == [str(small_corpus)] and report["output"] == str(out)
    assert (report["vocab_size"], report["corpus_words"]) == (len(m.vocab), m.corpus_tokens)
    assert (report["trained_words"], report["kept_words"], report["examples"]) == (tr.words, tr.kept,
                                                                                  tr.examples)
    assert 0 < report["kept_words"] < report["trained_words"]      # subsampling 1e-3 drops frequent words
    assert report["epoch_loss"] == pytest.approx(tr.epoch_loss) and len(report["epoch_loss"]) == 2
    assert report["words_per_sec"] == pytest.approx(2 * m.corpus_tokens / report["train_seconds"])
    assert report["settings"] == m.settings.to_dict()


@pytest.mark.parametrize("args,expected", [([], {"threads": None, "tokenizer": "whitespace", "memory_budget": None}),
                                           (["--threads", "0"], {"threads": None}),
                                           (["--memory-budget", "0"], {"memory_budget": 0}),
                                           (["--memory-budget", "3"], {"memory_budget": 3 << 20})],
                         ids=["defaults", "threads-0", "memory-budget-0", "memory-budget-3"])
def test_train_option_defaults_reach_the_settings(small_corpus, tmp_path, args, expected):
    # threads default (and 0) to the cores available; --memory-budget is in MiB (0: on disk)
    from w2v.text.scanning import DEFAULT_MEMORY_BUDGET
    from w2v.settings import available_cores

    defaults = {"threads": available_cores(), "memory_budget": DEFAULT_MEMORY_BUDGET}
    rep = tmp_path / "r.json"
    res = run(["train", str(small_corpus), "-o", str(tmp_path / "v.bin"), "--dim", "8", "--epochs", "1", "-q",
               "--report-json", str(rep)] + args)
    assert res.exit_code == 0, res.output
    settings = json.loads(rep.read_text())["settings"]
    assert {k: settings[k] for k in expected} == {k: defaults[k] if v is None else v for k, v in expected.items()}


def test_a_run_on_a_corpus_prints_nothing_on_stdout(small_corpus, tmp_path):
    # the nearest neighbours of the demo words are for the demo run only
    res = run(["train", str(small_corpus), "-o", str(tmp_path / "v.bin"), "--dim", "8", "--epochs", "1",
               "--threads", "1", "-q"])
    assert res.exit_code == 0, res.output
    assert res.stdout == "" and res.stderr == ""


def test_demo_run_trains_the_bundled_corpus_and_prints_neighbours(small_corpus, tmp_path, monkeypatch):
    # without CORPUS: the bundled corpus (here a small stand-in), the simple tokenizer (lower case)
    import w2v_cli.train as cli_train
    import w2v
    from w2v_cli.train import DEMO_WORDS

    monkeypatch.setattr(cli_train, "BUNDLED_CORPUS", small_corpus)
    rep = tmp_path / "r.json"
    res = run(["train", "-o", str(tmp_path / "v.bin"), "--dim", "8", "--epochs", "1", "--threads", "1", "-q",
               "--report-json", str(rep)])
    assert res.exit_code == 0, res.output
    report = json.loads(rep.read_text())
    assert report["corpus"] == [str(small_corpus)] and report["settings"]["tokenizer"] == "simple"
    kv = w2v.load(str(tmp_path / "v.bin"))
    assert all(w == w.lower() for w in kv.index_to_key)
    lines = res.stdout.splitlines()
    assert [line.split(":")[0].strip() for line in lines] == [w for w in DEMO_WORDS if w in kv]
    assert len(lines) >= 4 and all(len(line.split(": ", 1)[1].split(", ")) == 6 for line in lines), lines
    monkeypatch.setattr(cli_train, "BUNDLED_CORPUS", tmp_path / "missing.txt.xz")
    assert_one_line_error(run(["train", "-o", str(tmp_path / "v2.bin")]), "bundled corpus not found")


def test_errors_and_warnings_of_several_lines_print_as_one_line():
    import warnings

    import click

    from w2v_cli.common import one_line_errors
    from w2v.errors import FormatError

    @click.command()
    @click.option("--warn", is_flag=True)
    @one_line_errors
    def command(warn):
        if warn:
            warnings.warn("first\nsecond", stacklevel=2)
        else:
            raise FormatError("first\nsecond")

    res = CliRunner().invoke(command, [])
    assert res.exit_code == 1 and res.output == "Error: first second\n", res.output
    res = CliRunner().invoke(command, ["--warn"])
    assert res.exit_code == 0 and res.output == "warning: first second\n", res.output


def test_json_safe_turns_non_finite_floats_and_numpy_scalars_into_json():
    from w2v_cli.common import json_safe

    value = {"a": [float("nan"), float("inf"), -float("inf"), np.float32("nan"), np.float32(1.5), np.int64(3)],
             "b": (np.float64("inf"), "x", None)}
    out = json_safe(value)
    assert out == {"a": [None, None, None, None, 1.5, 3], "b": [None, "x", None]}
    assert [type(v) for v in out["a"][4:]] == [float, int]
    json.dumps(out, allow_nan=False)   # strict JSON


def test_options_that_need_another_option_are_usage_errors(small_corpus, tmp_path):
    # --round-words without Dask was once ignored without a word; nothing is written either way
    out = tmp_path / "v.bin"
    needs = "--round-words needs --scheduler, --dask-workers or --deterministic"
    for extra, message in ((["--round-words", "1000"], needs),
                           (["--lanes", "4"], "--lanes needs --deterministic"),
                           (["--update-vocab"], "--update-vocab needs --resume")):
        res = run(["train", str(small_corpus), "-o", str(out), "--epochs", "1", "--dim", "8", "-q"] + extra)
        assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output, res.output
        assert not out.exists()
