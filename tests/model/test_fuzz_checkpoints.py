"""Fuzzing checkpoints and full models as ``Word2Vec.load``, ``w2v info`` and ``w2v train --resume`` read them.

Checkpoints saved within an epoch (Hogwild as a folder and as one ``.w2v`` file, deterministic as a
folder) and a finished full model are damaged the ways a crafted file can be: any field of
``model.json`` replaced by a huge number, a float, a bool, a string, a list, an object or deep
nesting; the run state's fields set past their ranges or at odds with one another; the recorded
corpus pointed at a secret file, a named pipe, a device, a folder or a link out; ``model.json`` and
other members replaced by pipes, devices, folders and links out of the model; the model itself a
pipe.  Each damaged model is read by each reader in a child process
(:mod:`tests.support.untrusted_runs`): every case must end within a second, in a success or a
``W2VError`` or ``FileNotFoundError`` (behind the CLI's one-line error too), in bounded memory, and
open no file but the model's own, the output and the corpus the run was trained on.
"""
import json
import os
import random

import pytest

from w2v import Word2Vec

from ..support.json_cases import leaves, with_value
from ..support.model_files import copy_model, put_member, read_member, stopped_within_epoch, write_corpus
from ..support.untrusted_runs import READERS, run_in_child

SEED = 52_052
#: JSON texts put in place of a value of model.json
ODD = ["18446744073709551616", "9223372036854775808", "-9223372036854775809", "1" + "0" * 400, "1e400", "-1e400",
       "NaN", "0.5", "2.0", "-1", "0", "1", "true", "false", "null", '"x"', '"\\u0000"', "[]", "{}", "[[[1]]]",
       '{"a": 1}', "[" * 200 + "]" * 200, '"' + "9" * 60 + '"', "[0, 0, 0, 0]", "[1e308, 1e308, 1e308, 1e308]"]
#: random (field, value) replacements per model
RANDOM_CASES = 36


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The models, the corpus they were trained on, and an ``outside`` folder no case may read."""
    root = tmp_path_factory.mktemp("fuzz")
    corpus = write_corpus(root / "corpus.txt")
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("root nologin sbin w1 w2 w3\n" * 100, encoding="utf-8")
    (outside / "model.json").write_bytes(read_member(stopped_within_epoch(corpus, root / "warm"), "model.json"))
    os.mkfifo(outside / "fifo")
    (outside / "folder").mkdir()
    (outside / "link").symlink_to(outside / "secret.txt")
    full = root / "full"
    Word2Vec(**{**dict(dim=8, epochs=1, min_count=1, seed=3, threads=1)}).train(str(corpus)).save(str(full))
    bases = {"ck": stopped_within_epoch(corpus, root / "ck"), "ck.w2v": stopped_within_epoch(corpus, root / "ck.w2v"),
             "lanes": stopped_within_epoch(corpus, root / "lanes", deterministic=True, lanes=2), "full": full}
    return {"root": root, "corpus": corpus, "outside": outside, "bases": bases, "warm": root / "warm"}




def edited(header, **training):
    """The JSON text of ``header`` with its run state's fields set (None: removed)."""
    header = json.loads(json.dumps(header))
    for key, value in training.items():
        if value is None:
            header["training"].pop(key, None)
        else:
            header["training"][key] = value
    return json.dumps(header)


def header_damage(header, outside, rng):
    """(name, JSON text) of damaged versions of a model's header."""
    state = header["training"]
    length = state["corpus_length"]
    for k, target in enumerate([outside / "secret.txt", outside / "fifo", "/dev/zero", outside / "folder",
                                outside / "link", "/etc/passwd", "secret.txt", "-", outside / "gone"]):
        yield f"corpus-{k}", edited(header, corpus_files=[str(target)])
        yield f"corpus-{k}-unstamped", edited(header, corpus_files=[str(target)], corpus_file_stamps=None)
        yield f"corpus-{k}-stamp-0", edited(header, corpus_files=[str(target)], corpus_file_stamps=[[0, 0]])
    yield "corpus-two", edited(header, corpus_files=[str(outside / "secret.txt")] * 2)
    for k, position in enumerate([1, length - 1, length, length + 1, 2**62, 2**63, -1, 10**9]):
        yield f"position-{k}", edited(header, position=position, mode=state.get("mode", "jobs"),
                                      epoch_stats=state.get("epoch_stats", [0, 0, 0, 0]))
    for k, extra in enumerate([{"mode": "lanes"}, {"mode": "jobs"}, {"epochs_done": state["epochs"]},
                               {"epochs": 0}, {"round": 10**6}, {"lanes": 0}, {"round_words": 2**40},
                               {"epoch_stats": [0, 10**6, 10**6, 10**6]}, {"sharded": True},
                               {"progress": [[0] * 7] * 2}, {"corpus_length": 1}, {"corpus_words": length + 1}]):
        yield f"state-{k}", edited(header, **extra)
    yield "training-5", with_value(header, ("training",), "5")
    for depth in (101, 50_000):
        yield f"nested-{depth}", "[" * depth + "]" * depth
        yield f"nested-training-{depth}", with_value(header, ("training",), "[" * depth + "]" * depth)
    paths = list(leaves(header))
    for k in range(RANDOM_CASES):
        path, value = rng.choice(paths), rng.choice(ODD)
        yield f"value-{k}-{'.'.join(map(str, path))}={value[:12]}", with_value(header, path, value)


def special(target, kind, outside):
    """Put the special file ``kind`` at ``target`` (a member of a folder, or a model that is one file)."""
    if os.path.isdir(target) and not os.path.islink(target):
        raise AssertionError(target)
    os.remove(target)
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "dev-zero":
        target.symlink_to("/dev/zero")
    elif kind == "folder":
        target.mkdir()
    elif kind == "link-out":
        target.symlink_to(outside / ("model.json" if target.name == "model.json" else "secret.txt"))
    elif kind == "passwd":
        target.symlink_to("/etc/passwd")
    else:
        target.symlink_to(target.parent / "gone")


def damaged_models(world, rng):
    """(case name, path) of damaged copies of each model."""
    scratch = world["root"] / "cases"
    scratch.mkdir()
    for base_name, base in world["bases"].items():
        header = json.loads(read_member(base, "model.json"))
        variants = [(name, text.encode("utf-8")) for name, text in header_damage(header, world["outside"], rng)]
        members = ["model.json", "rng_state.npy", "syn1neg.npy"] if base.is_dir() else []
        variants += [(f"{member}/{kind}", (member, kind)) for member in members
                     for kind in ("fifo", "dev-zero", "folder", "link-out", "passwd", "dangling")]
        if not base.is_dir():
            variants += [(f"model/{kind}", (None, kind)) for kind in ("fifo", "dev-zero", "link-out")]
        for label, change in variants:
            case = scratch / f"{len(os.listdir(scratch))}-{base.name}"
            copy_model(base, case)
            if isinstance(change, bytes):
                put_member(case, "model.json", change)
            else:
                member, kind = change
                special(case if member is None else case / member, kind, world["outside"])
            yield f"{base_name}/{label}", case


def read_out(opened, case, world):
    """What of ``opened`` (pairs of paths, as given and resolved) a case may not open: any file in the folder
    of the test or the system's, but the model as named, its own files, the outputs and the corpus."""
    named = os.path.abspath(case)
    own = os.path.realpath(case)
    root = os.path.realpath(world["root"])
    corpus, outputs = os.path.realpath(world["corpus"]), os.path.realpath(world["root"] / "outputs")
    bad = []
    for given, real in opened:
        if given == named or real in (corpus, outputs) or real.startswith((own + os.sep, outputs + os.sep)):
            continue
        if real == own or real.startswith(root + os.sep) or real in ("/etc/passwd", "/dev/zero"):
            bad.append(real)
    return bad


def test_damaged_checkpoints_and_full_models_are_read_safely(world, tmp_path):
    rng = random.Random(SEED)
    cases = []
    outputs = world["root"] / "outputs"
    outputs.mkdir()
    for name, case in damaged_models(world, rng):
        # w2v info reads vectors of any format, word2vec's from a pipe the user names too, waiting for its writer
        for reader in READERS if name != "ck.w2v/model/fifo" else ("model", "resume"):
            cases.append((name, reader, case, outputs / f"{len(cases)}.bin"))
    assert len(cases) > 1000
    report = run_in_child(cases, warmup=(world["warm"], outputs / "warm.bin"), timeout=400)
    results = report["results"]
    assert len(results) == len(cases)
    escaped = [r for r in results if not r["accepted"]]
    assert not escaped, escaped[:10]
    slow = [r for r in results if r["seconds"] >= 1]
    assert not slow, slow[:10]
    grown = max(r["peak_mb"] for r in results) - report["baseline_mb"]
    assert grown < 200, grown
    outside = [(r["name"], r["reader"], bad) for r, (_, _, case, _) in zip(results, cases)
               for bad in [read_out(r["opened"], case, world)] if bad]
    assert not outside, outside[:10]
    # the damage reached the readers: each refuses a third of the cases at least (w2v info reads no
    # corpus and no weights), and some runs still train
    for reader in READERS:
        mine = [r for r in results if r["reader"] == reader]
        assert sum(r["outcome"] != "ok" for r in mine) > len(mine) // 3, reader
    assert any(r["outcome"] == "ok" for r in results if r["reader"] == "resume")
    # the recorded corpus was read back where it is the run's own, and never where it was another file
    corpus = os.path.realpath(world["corpus"])
    assert any(corpus in {real for _, real in r["opened"]} for r in results if r["reader"] == "resume")
