"""`w2v train` on input that used to succeed or fail too late: binary files, a corpus too small to
train, files named twice, outputs that take no file, a full disk; each a one-line error before
anything is lost."""
import errno
import os
import sys

import pytest
from click.testing import CliRunner

from w2v_cli.main import main

TRAIN = ["--epochs", "1", "--threads", "1", "--dim", "8"]


def run(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_one_line_error(res, text):
    assert res.exit_code == 1, res.output
    out = res.output.strip()
    assert "Traceback" not in out and len(out.splitlines()) == 1, out
    assert out.startswith("Error: ") and text in out, out


@pytest.fixture
def not_read(monkeypatch):
    """A list that stays empty as long as no corpus is read."""
    import w2v.model.word2vec
    read = []
    real_build_vocab = w2v.model.word2vec.Word2Vec.build_vocab
    monkeypatch.setattr(w2v.model.word2vec.Word2Vec, "build_vocab",
                        lambda self, *a, **k: read.append(1) or real_build_vocab(self, *a, **k))
    return read


def test_a_binary_corpus_is_refused_in_one_line_and_read_with_allow_binary(tmp_path):
    exe = tmp_path / "program"
    with open(sys.executable, "rb") as f:
        exe.write_bytes(f.read(300_000))
    out = tmp_path / "v.bin"
    out.write_bytes(b"old")
    res = run(["train", exe, "-o", out, "-q", "--min-count", "1", *TRAIN])
    assert_one_line_error(res, f"corpus {exe} does not look like text: it holds NUL bytes")
    assert "--allow-binary" in res.output and out.read_bytes() == b"old"
    res = run(["train", exe, "-o", out, "-q", "--min-count", "1", "--allow-binary", *TRAIN])
    assert res.exit_code == 0, res.output
    assert out.read_bytes() != b"old"


@pytest.mark.parametrize("case", ["no-sentence-of-two-words", "subsampled-away"])
def test_a_corpus_too_small_to_train_is_an_error_and_the_output_is_left_as_it_was(tmp_path, case):
    corpus = tmp_path / "tiny.txt"
    if case == "no-sentence-of-two-words":   # found before any epoch: no checkpoint is written either
        corpus.write_text("a\nb\n" * 50)
        extra, text = ["--sample", "0"], "nothing to train: no sentence of the corpus holds two words"
    else:   # four words of frequency 1/4: with this seed, subsampling keeps no pair in 3 epochs
        corpus.write_text("alpha beta gamma delta\n")
        extra, text = ["--epochs", "3", "--seed", "1"], "nothing was trained: no training example in 3 epochs"
    out = tmp_path / "v.bin"
    out.write_bytes(b"old")
    res = run(["train", corpus, "-o", out, "-q", "--min-count", "1", *TRAIN, *extra,
               "--save-model", tmp_path / "m", "--report-json", tmp_path / "r.json"])
    assert_one_line_error(res, text)
    assert out.read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["tiny.txt", "v.bin"]
    if case == "no-sentence-of-two-words":
        res = run(["train", corpus, "-o", out, "-q", "--min-count", "1", *TRAIN, *extra, "--checkpoint",
                   tmp_path / "ckpt"])
        assert_one_line_error(res, text)
        assert sorted(os.listdir(tmp_path)) == ["tiny.txt", "v.bin"]


def test_the_same_file_twice_is_refused_before_training(tmp_path, not_read):
    d = tmp_path / "texts"
    d.mkdir()
    a = d / "a.txt"
    a.write_text("one two three\n" * 10)
    (tmp_path / "link.txt").symlink_to(a)
    for corpus, text in (([a, a], f"corpus file {a} is given twice"),
                         ([d, a], f"corpus file {a} is given twice"),
                         ([a, tmp_path / "link.txt"], f"corpus file {tmp_path / 'link.txt'} is also given as {a}")):
        res = run(["train", *corpus, "-o", tmp_path / "v.bin", "-q", *TRAIN])
        assert_one_line_error(res, text + ": it would be read twice; name each file once")
    assert not not_read and not (tmp_path / "v.bin").exists()


def test_a_link_to_a_folder_in_a_corpus_folder_is_read_and_a_broken_link_is_an_error(tmp_path):
    d = tmp_path / "texts"
    d.mkdir()
    (d / "a.txt").write_text("alpha beta\n" * 20)
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "b.txt").write_text("gamma delta\n" * 20)
    (d / "more").symlink_to(tmp_path / "more")
    res = run(["train", d, "-o", tmp_path / "v.txt", "--text", "-q", "--min-count", "1", "--sample", "0", *TRAIN])
    assert res.exit_code == 0, res.output
    words = {line.split()[0] for line in (tmp_path / "v.txt").read_text().splitlines()[1:]}
    assert words == {"alpha", "beta", "gamma", "delta"}
    (d / "gone.txt").symlink_to(tmp_path / "deleted.txt")
    res = run(["train", d, "-o", tmp_path / "w.bin", "-q", *TRAIN])
    assert_one_line_error(res, f"broken link in corpus folder: {d / 'gone.txt'} -> {tmp_path / 'deleted.txt'}")


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
@pytest.mark.parametrize("option", ["-o", "--report-json", "--save-model", "--checkpoint"])
def test_an_output_folder_that_takes_no_new_file_is_refused_before_training(small_corpus, tmp_path, monkeypatch,
                                                                             not_read, option):
    # root passes every os.access check, /proc included: only creating a file tells
    monkeypatch.setattr(os, "access", lambda path, mode: True)
    args = ["train", small_corpus, "-q", *TRAIN, option, "/proc/w2v-test-output"]
    if option != "-o":
        args += ["-o", tmp_path / "v.bin"]
    res = run(args)
    where = "output directory is not writable: /proc" if option in ("-o", "--report-json") else \
        f"{option} /proc/w2v-test-output: directory /proc is not writable"
    assert_one_line_error(res, where + " (creating a file there failed: ")
    assert not not_read, "refused before the corpus is read"
    assert os.listdir(tmp_path) == []


def test_an_output_that_is_a_device_is_not_probed(small_corpus, tmp_path, monkeypatch):
    # -o /dev/null is written through: nothing is created in /dev
    import w2v.util.atomic
    monkeypatch.setattr(w2v.util.atomic.tempfile, "mkstemp", None)   # any probe of a folder would fail
    import w2v_cli.train as cli_train
    cli_train.check_writable("/dev/null")


@pytest.mark.parametrize("threads", ["-2", "-1", "4097"])
def test_a_bad_thread_count_says_what_is_allowed(small_corpus, tmp_path, not_read, threads):
    res = run(["train", small_corpus, "-o", tmp_path / "v.bin", "--threads", threads])
    assert_one_line_error(res, f"--threads must be 0 (the cores available) or from 1 to 4096 (got {threads})")
    assert not not_read


@pytest.mark.parametrize("args, message", [
    (["--dim", "-5"], "--dim must be an integer >= 1 (got -5)"),
    (["--window", "10001"], "--window must be <= 10000 (got 10001)"),
    (["--max-vocab", "0"], "--max-vocab must be an integer >= 1 (got 0)"),
    (["--max-sentence-length", "1"], "--max-sentence-length must be an integer >= 2 (got 1)"),
    (["--sample", "-0.5"], "--sample must be >= 0 (got -0.5)"),
    (["--ns-exponent", "inf"], "--ns-exponent must be a finite number (got inf)"),
    (["--memory-budget", "-1"], "--memory-budget must be an integer >= 0 MiB (got -1)"),
    (["--deterministic", "--lanes", "1025"], "--lanes must be <= 1024 (got 1025)"),
    (["--deterministic", "--round-words", "0"], "--round-words must be an integer >= 1 (got 0)"),
    (["--min-alpha", "0.5"], "--min-alpha must be in [0, --alpha] (got 0.5)"),
    (["--negative", "0"], "need --negative > 0 or --hs (or both): nothing to train"),
])
def test_a_bad_setting_names_its_option(small_corpus, tmp_path, not_read, args, message):
    res = run(["train", small_corpus, "-o", tmp_path / "v.bin", *args])
    assert res.exit_code == 1 and res.output == f"Error: {message}\n", res.output
    assert not not_read


def test_the_library_names_the_field_where_the_cli_names_the_option():
    from w2v import ParameterError, Word2Vec

    with pytest.raises(ParameterError, match=r"^dim must be an integer >= 1 \(got -5\)$"):
        Word2Vec(dim=-5)
    with pytest.raises(ParameterError, match=r"^min_alpha must be in \[0, alpha\] \(got 0.5\)$"):
        Word2Vec(min_alpha=0.5)


def test_a_resumed_model_names_the_option_that_breaks_its_settings(small_corpus, tmp_path):
    assert run(["train", small_corpus, "-q", *TRAIN, "-o", tmp_path / "v.bin", "--save-model", tmp_path / "m"]
               ).exit_code == 0
    res = run(["train", "--resume", tmp_path / "m", "-q", "-o", tmp_path / "w.bin", "--negative", "0"])
    assert res.exit_code == 1 and res.output == (f"Error: --resume {tmp_path / 'm'}: need --negative > 0 or --hs "
                                                 "(or both): nothing to train\n"), res.output
    res = run(["train", "--resume", tmp_path / "m", "-q", "-o", tmp_path / "w.bin", "--epochs", "0"])
    assert res.exit_code == 1 and res.output == "Error: --epochs must be an integer >= 1 (got 0)\n", res.output
    assert not (tmp_path / "w.bin").exists()


MEMORY_BUDGET_0_WARNING = ("warning: --memory-budget 0 keeps none of the encoded corpus in RAM: all of it goes to "
                           "a temporary file")


@pytest.mark.parametrize("threads, cores, warned", [(3, 2, True), (64, 1, True), (2, 2, False), (0, 1, False)])
def test_more_threads_than_cores_trains_with_one_warning_line(small_corpus, tmp_path, monkeypatch, threads, cores,
                                                               warned):
    import w2v_cli.train

    monkeypatch.setattr(w2v_cli.train, "available_cores", lambda: cores)
    res = run(["train", small_corpus, "-q", "--epochs", "1", "--dim", "8", "-o", tmp_path / "v.bin",
               "--threads", threads])
    assert res.exit_code == 0 and (tmp_path / "v.bin").exists(), res.output
    warning = (f"warning: --threads {threads} is more than the {cores} core{'s' if cores > 1 else ''} available: "
               "more threads than cores slow training down\n")
    assert res.output == (warning if warned else ""), res.output


def test_a_memory_budget_of_0_trains_with_one_warning_line(small_corpus, tmp_path):
    res = run(["train", small_corpus, "-q", *TRAIN, "-o", tmp_path / "v.bin", "--memory-budget", "0"])
    assert res.exit_code == 0 and (tmp_path / "v.bin").exists(), res.output
    assert res.output == MEMORY_BUDGET_0_WARNING + "\n"
    res = run(["train", small_corpus, "-q", *TRAIN, "-o", tmp_path / "v.bin", "--memory-budget", "1"])
    assert res.exit_code == 0 and res.output == "", res.output


def test_a_model_cut_short_by_a_full_disk_says_so(small_corpus, tmp_path, monkeypatch):
    import w2v.formats.members

    def short_write(path, array):   # what numpy's tofile raises on a full disk: no errno
        raise OSError("1233800 requested and 254944 written")

    monkeypatch.setattr(w2v.formats.members, "write_array", short_write)
    res = run(["train", small_corpus, "-q", *TRAIN, "-o", tmp_path / "v.bin", "--save-model", tmp_path / "m"])
    assert_one_line_error(res, f"cannot write {tmp_path / 'm'}: No space left on device "
                               "(1233800 requested and 254944 written)")
    assert os.listdir(tmp_path) == []


def test_a_full_temporary_folder_while_the_corpus_spills_names_the_folder(small_corpus, tmp_path, monkeypatch):
    import tempfile

    full = tmp_path / "full-tmp"
    full.mkdir()
    real = tempfile.TemporaryFile

    class FullDisk:
        def __init__(self, file):
            self.file = file

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name):
            return getattr(self.file, name)

    monkeypatch.setattr(tempfile, "TemporaryFile", lambda *a, **k: FullDisk(real(*a, **k)))
    monkeypatch.setattr(tempfile, "tempdir", str(full))   # what TMPDIR sets
    res = run(["train", small_corpus, "-q", *TRAIN, "-o", tmp_path / "v.bin", "--memory-budget", "0"])
    assert res.exit_code == 1, res.output
    warning, error = res.output.strip().splitlines()   # --memory-budget 0 warns that all of it spills
    assert warning == MEMORY_BUDGET_0_WARNING
    assert error.startswith("Error: ") and (f"cannot keep the encoded corpus in a temporary file in {full}: "
                                            "No space left on device; free space there, point TMPDIR at a "
                                            "larger folder") in error, error
