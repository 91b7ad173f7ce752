"""What a save killed midway leaves, and how every reader recovers from it; signals during the swap."""
import logging
import os
import shutil
import signal
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import w2v
from w2v.formats.members import FolderWriter
from w2v import KeyedVectors, Word2Vec
from w2v.formats import inspect
from w2v_cli.main import main

from ..conftest import ROOT
from ..support.formats_cases import make_kv

TEXT = "the quick brown fox jumps over the lazy dog\nthe dog barks at the fox and the fox runs away\n" * 3
FAST = dict(dim=8, min_count=1, epochs=1, threads=1)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "c.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def models(corpus):
    """Three small full models of the same corpus, told apart by their seed."""
    return [Word2Vec(**FAST, seed=seed).train(str(corpus)) for seed in (1, 2, 3)]


def run(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def set_mtime(folder, seconds):
    for name in os.listdir(folder):
        os.utime(folder / name, (seconds, seconds))


def warnings_of(res):
    return [line for line in res.stderr.splitlines() if line.startswith("warning:")]


def library_readers(path):
    """What each library entry point reads at ``path``: the input vectors, as a float32 array."""
    return {
        "Word2Vec.load": Word2Vec.load(str(path)).syn0,
        "w2v.load": np.asarray(w2v.load(str(path)).vectors),
        "KeyedVectors.load": np.asarray(KeyedVectors.load(str(path)).vectors),
        "load_native": np.asarray(w2v.vectors.keyed.load_native(str(path)).vectors),
    }


def check_every_reader_reads(path, model, copy, corpus, tmp_path, caplog):
    """Every library entry point and every command reads ``model`` from ``copy`` when ``path`` is missing,
    and says so in one warning naming the copy."""
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        for name, vectors in library_readers(path).items():
            assert np.array_equal(vectors, model.syn0), name
        assert inspect(path)["count"] == len(model.vocab)
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(said) == 5 and all(str(copy) in line and "left aside" in line for line in said), said
    words = model.vocab.words
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(f"{words[0]}\t{words[1]}\t1.0\n{words[2]}\t{words[3]}\t2.0\n{words[0]}\t{words[3]}\t3.0\n")
    commands = [["similar", path, words[0]], ["analogy", path, *words[:3]], ["eval", path, "--pairs", pairs],
                ["convert", path, tmp_path / "out.txt"], ["info", path],
                ["train", "--resume", path, "-o", tmp_path / "v.bin", "--epochs", "2", "--quiet"]]
    for args in commands:
        res = run(args)
        assert res.exit_code == 0, (args, res.output)
        said = warnings_of(res)
        assert len(said) == 1 and str(copy) in said[0], (args, res.stderr)
    assert np.array_equal(w2v.load(str(tmp_path / "out.txt")).vectors, model.syn0)
    assert run(["info", path]).stdout.startswith(f"path:        {copy}\n")


def test_every_reader_recovers_the_model_a_save_left_aside(models, corpus, tmp_path, caplog):
    # killed between its two renames, a checkpoint save leaves only .NAME.XXXX.old: Word2Vec.load
    # read it, but `w2v train --resume`, w2v.load and the commands said there was no such directory
    m = models[0]
    path = tmp_path / "ck"
    m.save(str(path))
    aside = tmp_path / ".ck.k1ll3d.old"
    os.rename(path, aside)
    check_every_reader_reads(path, m, aside, corpus, tmp_path, caplog)
    assert sorted(n for n in os.listdir(tmp_path) if n.startswith(".ck")) == [".ck.k1ll3d.old"]   # none moved


def test_every_reader_reads_the_newest_complete_copy(models, corpus, tmp_path, caplog):
    # a save killed after moving the old model aside and before renaming the new one in leaves
    # both: the new one, complete, is the one to read
    old, new, other = models
    path = tmp_path / "ck"
    old.save(str(tmp_path / ".ck.0ld.old"))
    new.save(str(tmp_path / ".ck.n3w.tmp"))
    set_mtime(tmp_path / ".ck.0ld.old", 1e9)
    set_mtime(tmp_path / ".ck.n3w.tmp", 2e9)
    # newer still, but incomplete: a save killed while writing (meta.json, written last, missing),
    # and an old copy whose deletion was cut short
    other.save(str(tmp_path / ".ck.h4lf.tmp"))
    os.remove(tmp_path / ".ck.h4lf.tmp" / "meta.json")
    other.save(str(tmp_path / ".ck.p4rt.old"))
    os.remove(tmp_path / ".ck.p4rt.old" / "syn1neg.npy")
    for folder in (".ck.h4lf.tmp", ".ck.p4rt.old"):
        set_mtime(tmp_path / folder, 3e9)
    check_every_reader_reads(path, new, tmp_path / ".ck.n3w.tmp", corpus, tmp_path, caplog)
    # the next save of ck deletes what the killed saves left, except a copy that may be a save
    # under way (an incomplete temporary directory)
    new.save(str(path))
    assert sorted(n for n in os.listdir(tmp_path) if n.startswith(".ck")) == [".ck.h4lf.tmp"]


def test_the_newest_complete_copy_of_vectors_only(tmp_path, caplog):
    old, new = make_kv(seed=1), make_kv(seed=2)
    w2v.save(old, tmp_path / ".v.a1.old")
    w2v.save(new, tmp_path / ".v.b2.tmp")
    set_mtime(tmp_path / ".v.a1.old", 1e9)
    with caplog.at_level(logging.WARNING):
        assert np.array_equal(w2v.load(str(tmp_path / "v")).vectors, new.vectors)
    assert str(tmp_path / ".v.b2.tmp") in caplog.text
    with pytest.raises(FileNotFoundError):           # vectors are no full model
        Word2Vec.load(str(tmp_path / "v"))
    res = run(["train", "--resume", tmp_path / "v", "-o", tmp_path / "o.bin"])
    assert res.exit_code == 1 and "no such file or directory" in res.output, res.output
    set_mtime(tmp_path / ".v.a1.old", 3e9)
    assert np.array_equal(w2v.load(str(tmp_path / "v")).vectors, old.vectors)


def test_a_save_killed_before_its_header_leaves_no_copy_to_read(models, tmp_path, monkeypatch):
    # meta.json is written last: a full model killed while writing its arrays is no copy of any
    # kind, for w2v.load as for Word2Vec.load
    class Killed(BaseException):
        pass

    real = FolderWriter.add_array

    def add_array(self, name, a):
        real(self, name, a)
        if name == "syn1.npy":
            raise Killed

    monkeypatch.setattr(FolderWriter, "add_array", add_array)
    monkeypatch.setattr(shutil, "rmtree", lambda *a, **k: None)     # a killed process removes nothing
    with pytest.raises(Killed):
        models[0].save(str(tmp_path / "ck"))
    monkeypatch.undo()
    (left,) = os.listdir(tmp_path)
    assert left.startswith(".ck.") and left.endswith(".tmp") and "meta.json" not in os.listdir(tmp_path / left)
    for load in (w2v.load, Word2Vec.load, inspect):
        with pytest.raises(FileNotFoundError):
            load(str(tmp_path / "ck"))
    res = run(["similar", tmp_path / "ck", "fox"])
    assert res.exit_code == 1 and "no such file or directory" in res.output


def test_a_missing_model_without_copies_is_still_file_not_found(tmp_path):
    for load in (w2v.load, Word2Vec.load, inspect):
        with pytest.raises(FileNotFoundError):
            load(str(tmp_path / "nothing"))
    for args in (["info", tmp_path / "nothing"], ["train", "--resume", tmp_path / "nothing", "-o", tmp_path / "o"]):
        res = run(args)
        assert res.exit_code == 1 and "nothing: no such file or directory" in res.output, res.output


# --------------------------------------------------------------------------- signals during the swap
HOOK = """
import os, shutil, signal, sys
stage, name, folder = sys.argv[1], sys.argv[2], os.path.dirname(os.path.abspath(sys.argv[3]))
real_rename, real_rmtree = os.rename, shutil.rmtree
seen = []

def kill():
    if not seen:
        seen.append(1)
        os.kill(os.getpid(), signal.SIGTERM)

def rename(src, dst, *a, **k):
    real_rename(src, dst, *a, **k)
    src, dst = os.path.basename(str(src)), os.path.basename(str(dst))
    if stage == "first" and dst.endswith(".old") or stage == "second" and dst == name and src.endswith(".tmp"):
        if any(n.endswith(".old") for n in os.listdir(folder)):
            kill()

def rmtree(path, *a, **k):
    if stage == "cleanup" and str(path).endswith(".old"):
        kill()
    return real_rmtree(path, *a, **k)

os.rename, shutil.rmtree = rename, rmtree
sys.argv = sys.argv[:1] + sys.argv[4:]
"""


@pytest.mark.parametrize("stage", ["first", "second", "cleanup"])
def test_sigterm_during_a_checkpoint_swap_leaves_no_copy_behind(corpus, tmp_path, stage):
    # SIGTERM as the second checkpoint moved the first aside, renamed itself in, or deleted the
    # first: the run stops (exit 130) with the new checkpoint in place and nothing left aside
    ck = tmp_path / "ck"
    cmd = [sys.executable, "-c", HOOK + "from w2v_cli.main import main; main()", stage, "ck", str(ck),
           "train", str(corpus), "-o", str(tmp_path / "v.bin"), "--checkpoint", str(ck), "--epochs", "3",
           "--dim", "8", "--min-count", "1", "--threads", "1", "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=str(ROOT), timeout=300)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "interrupted", proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["ck"], proc.stderr
    assert Word2Vec.load(str(ck)).run_state["epochs_done"] == 2


SAVE_TWICE = """
import numpy as np
from w2v.vectors.keyed import KeyedVectors, save_native
for seed in (1, 2):
    save_native(KeyedVectors(["a", "b"], np.full((2, 3), seed, np.float32)), sys.argv[1])
"""


@pytest.mark.parametrize("stage", ["first", "second", "cleanup"])
def test_a_signal_with_its_default_action_waits_for_the_swap(tmp_path, stage):
    # a library save under SIGTERM's default action (no handler): the process still ends by the
    # signal, once the new model is in place and the old one deleted
    cmd = [sys.executable, "-c", HOOK + SAVE_TWICE, stage, "m", str(tmp_path / "m"), str(tmp_path / "m")]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=str(ROOT), timeout=120)
    assert proc.returncode == -signal.SIGTERM, proc.stderr
    assert os.listdir(tmp_path) == ["m"]
    assert w2v.load(str(tmp_path / "m")).vectors[0, 0] == 2
