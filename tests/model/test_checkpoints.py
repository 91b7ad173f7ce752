"""Checkpoints within epochs (w2v.model.checkpoints): kill -9 and resume to the uninterrupted run's file."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from click.testing import CliRunner

from w2v import Word2Vec
from w2v.model.checkpoints import Checkpointer, parse_interval
from w2v.errors import FormatError, ParameterError, ResumeWarning
from w2v_cli.main import main

from ..conftest import ROOT

FAST = ["--dim", "24", "--min-count", "3", "--seed", "4", "--epochs", "3", "-q"]


def cli(*args):
    return [sys.executable, "-c", "from w2v_cli.main import main; main()", *args]


def saved_fraction(path):
    """How far the checkpoint at ``path`` is into the run (-1: none yet, or being replaced)."""
    try:
        with open(os.path.join(path, "model.json"), encoding="utf-8") as f:
            t = json.load(f)["training"]
        return t["epochs_done"] / t["epochs"] + t.get("position", 0) / t["corpus_length"] / t["epochs"]
    except (OSError, ValueError, KeyError, TypeError):
        return -1.0


@pytest.mark.parametrize("mode", [["--threads", "1"], ["--threads", "2", "--deterministic"]],
                         ids=["threads1", "deterministic2"])
def test_kill_9_and_resume_gives_the_uninterrupted_file(small_corpus, tmp_path, mode):
    ref = tmp_path / "ref.bin"
    subprocess.run(cli("train", str(small_corpus), "-o", str(ref), *FAST, *mode), check=True, cwd=ROOT,
                   timeout=300)
    for k, target in enumerate((0.2, 0.45, 0.75)):   # killed in epoch 1, 2 and 3, mid-epoch
        ckpt, out = tmp_path / f"ckpt{k}", tmp_path / f"out{k}.bin"
        proc = subprocess.Popen(cli("train", str(small_corpus), "-o", str(out), "--checkpoint", str(ckpt),
                                    "--checkpoint-words", "15000", *FAST, *mode), cwd=ROOT)
        deadline = time.monotonic() + 300
        while saved_fraction(ckpt) < target and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL, "the run ended before it was killed"
        assert not out.exists()
        at = saved_fraction(ckpt)
        assert at >= target - 0.1, at   # at most one interval (15,000 of 3 x 147,153 ids) lost
        subprocess.run(cli("train", "--resume", str(ckpt), "-o", str(out), "-q", *mode[:2]), check=True,
                       cwd=ROOT, timeout=300)
        assert out.read_bytes() == ref.read_bytes(), f"resumed at {at:.3f} of the run"


@pytest.mark.parametrize("det, threads", [(False, 1), (True, 2)])
def test_api_resume_mid_epoch_is_exact(small_corpus, tmp_path, det, threads):
    kw = dict(dim=16, epochs=2, min_count=3, seed=9, threads=threads, deterministic=det)
    ref = Word2Vec(**kw).train(str(small_corpus))
    saved = []
    m = Word2Vec(**kw)

    ended = []

    orig = Checkpointer._write

    def write(self, snapshot, where):
        orig(self, snapshot, where)
        if not where["at_epoch_end"] and len(saved) < 2:
            dst = tmp_path / f"copy{len(saved)}"
            shutil.copytree(self.path, dst)
            saved.append(dst)

    Checkpointer._write = write
    try:
        m.train(str(small_corpus), checkpoint=str(tmp_path / "ck"), checkpoint_words=40000,
                on_epoch_end=ended.append)
    finally:
        Checkpointer._write = orig
    assert np.array_equal(m.syn0, ref.syn0) and ended == [0, 1]   # checkpoints do not change the run
    assert m.last_train.details["checkpoint"]["at_epoch_end"]
    assert len(saved) == 2
    for path in saved:
        r = Word2Vec.load(str(path))
        assert r.run_state["position"] > 0 and r.run_state["mode"] == ("lanes" if det else "jobs")
        r.train(str(small_corpus))
        assert np.array_equal(r.syn0, ref.syn0) and np.array_equal(r.syn1neg, ref.syn1neg)


def stopped_within_epoch(corpus, path, **kw):
    m = Word2Vec(dim=16, epochs=2, min_count=3, seed=9, **kw)
    orig = Checkpointer.epoch_end

    def stop(self, epoch):
        raise KeyboardInterrupt

    Checkpointer.epoch_end = stop
    try:
        with pytest.raises(KeyboardInterrupt):
            m.train(str(corpus), checkpoint=str(path), checkpoint_words=40000)
    finally:
        Checkpointer.epoch_end = orig
    state = Word2Vec.load(str(path)).run_state
    assert state["epochs_done"] == 0 and state["position"] > 0
    return path


def test_another_corpus_of_the_same_size_warns_and_starts_anew(small_corpus, tmp_path):
    ck = stopped_within_epoch(small_corpus, tmp_path / "ck")
    lines = small_corpus.read_text(encoding="utf-8").splitlines(True)
    other = tmp_path / "other.txt"
    other.write_text("".join(lines[1:] + lines[:1]), encoding="utf-8")   # the same words, in another order
    m = Word2Vec.load(str(ck))
    with pytest.warns(ResumeWarning, match="as this one, but hash"):
        m.train(str(other))
    assert m.last_train.first_epoch == 0 and "position" not in m.run_state


def test_checkpoint_of_another_version_warns(small_corpus, tmp_path):
    ck = stopped_within_epoch(small_corpus, tmp_path / "ck")
    meta = ck / "model.json"
    header = json.loads(meta.read_text(encoding="utf-8"))
    header["w2v_version"] = "0.0.1"
    meta.write_text(json.dumps(header), encoding="utf-8")
    with pytest.warns(ResumeWarning, match="a checkpoint of w2v 0.0.1"):
        Word2Vec.load(str(ck))
    res = CliRunner().invoke(main, ["train", "--resume", str(ck), "-o", str(tmp_path / "v.bin"), "-q"])
    assert res.exit_code == 0, res.output
    assert [x for x in res.output.splitlines() if "0.0.1" in x][0].startswith("warning: ")


def test_truncated_or_tampered_checkpoint_is_a_one_line_error(small_corpus, tmp_path):
    ck = stopped_within_epoch(small_corpus, tmp_path / "ck")
    bad = tmp_path / "bad"
    shutil.copytree(ck, bad)
    with open(bad / "syn1neg.npy", "r+b") as f:
        f.truncate(os.path.getsize(bad / "syn1neg.npy") // 2)
    with pytest.raises(FormatError):
        Word2Vec.load(str(bad))
    res = CliRunner().invoke(main, ["train", "--resume", str(bad), "-o", str(tmp_path / "v.bin"), "-q"])
    assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output
    header = json.loads((ck / "model.json").read_text(encoding="utf-8"))
    header["training"]["mode"] = "other"
    (ck / "model.json").write_text(json.dumps(header), encoding="utf-8")
    with pytest.raises(FormatError, match="training.mode"):
        Word2Vec.load(str(ck))


def test_mid_epoch_checkpoint_resumes_only_in_its_mode(small_corpus, tmp_path):
    ck = stopped_within_epoch(small_corpus, tmp_path / "ck", deterministic=True, threads=2)
    m = Word2Vec.load(str(ck))
    m.update_settings(deterministic=False)
    with pytest.raises(ParameterError, match="with deterministic=True"):
        m.train(str(small_corpus))
    m = Word2Vec.load(str(ck))
    m.update_settings(lanes=3)
    with pytest.raises(ParameterError, match="same --lanes"):
        m.train(str(small_corpus))


def test_intervals():
    assert parse_interval("10m") == 600 and parse_interval("1.5h") == 5400 and parse_interval(90) == 90
    for bad in ("", "10x", "-1", "0"):
        with pytest.raises(ParameterError):
            parse_interval(bad)
    with pytest.raises(ParameterError, match="need checkpoint"):
        Word2Vec(dim=8, min_count=1).train([["a", "b", "c"]], checkpoint_words=10)


@pytest.mark.parametrize("args, text", [(["--checkpoint-words", "100"], "need --checkpoint DIR"),
                                        (["--checkpoint", "CK", "--checkpoint-every", "soon"], "interval"),
                                        (["--checkpoint", "CK", "--checkpoint-words", "0"],
                                         "--checkpoint-words must be")])
def test_cli_checkpoint_options(small_corpus, tmp_path, args, text):
    args = [str(tmp_path / "ck") if a == "CK" else a for a in args]
    res = CliRunner().invoke(main, ["train", str(small_corpus), "-o", str(tmp_path / "v.bin"), "-q", *args])
    assert res.exit_code != 0 and text in res.output and "Traceback" not in res.output, res.output


def test_hogwild_threads_checkpoint_within_epochs_and_resume(small_corpus, tmp_path):
    """At 2 Hogwild threads a checkpoint waits for the jobs handed out; the resumed run finishes the epoch."""
    kw = dict(dim=16, epochs=2, min_count=3, seed=9, threads=2)
    ref = Word2Vec(**kw).train(str(small_corpus))
    ck = stopped_within_epoch(small_corpus, tmp_path / "ck", threads=2)
    state = Word2Vec.load(str(ck)).run_state
    assert state["mode"] == "jobs" and 0 < state["position"] < state["corpus_length"]
    r = Word2Vec.load(str(ck)).train(str(small_corpus))
    assert r.run_state["epochs_done"] == 2 and "position" not in r.run_state
    assert r.last_train.words == ref.last_train.words   # each word of each epoch seen once, before or after
    assert abs(r.last_train.epoch_loss[-1] - ref.last_train.epoch_loss[-1]) < 0.1


def test_resumed_progress_counts_from_the_checkpoint(small_corpus, tmp_path):
    import io

    ck = stopped_within_epoch(small_corpus, tmp_path / "ck")
    shown = io.StringIO()
    Word2Vec.load(str(ck)).train(str(small_corpus), quiet=False, progress_stream=shown, report_delay=0.0)
    lines = [x for x in shown.getvalue().splitlines() if "words/s" in x]
    assert lines and "100.0%" in lines[-1], lines
    assert all("-" not in x.split("words/s")[0].split("%")[1] for x in lines), lines   # no negative rate
