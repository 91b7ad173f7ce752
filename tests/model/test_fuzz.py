"""Fuzzing the readers of model directories: every damaged directory loads or fails cleanly, fast, in bounded memory.

Vectors-only and full model directories are damaged in every way a reader can meet (JSON nested
past any limit, huge or absurd numbers in the headers and counts, pipes, devices and links in
place of files, truncated files, flipped bytes, missing files) and loaded in a child process with
each of the readers (``w2v.load``, ``w2v.formats.inspect``, ``Word2Vec.load``, ``is_native_dir``).
Each load must end within a second, as a success or a :class:`w2v.W2VError` (or
``FileNotFoundError``), never another exception, a hang, or memory beyond a bound.
"""
import json
import os
import random
import shutil

import pytest

from w2v import Word2Vec
from w2v.vectors.keyed import save_native

from ..support.json_cases import leaves, make_special, with_value
from ..support.formats_cases import make_kv
from ..support.model_loads import load_in_child

SEED = 20_000_417
TEXT = "the quick brown fox jumps over the lazy dog\nthe dog barks at the fox and the fox runs away\n" * 3
#: JSON texts put in place of a value of a header
ODD_VALUES = ["9" * 5000, "9" * 30, "-1", "0", "1e400", "-1e400", "0.5", '"x"', "null", "[]", "{}", "true",
              "[" * 200 + "]" * 200, '"' + "\\u0000" * 3 + '"']
#: text put in place of a count of vocab.tsv
ODD_COUNTS = ["9" * 5000, "9" * 20, "-1", "", "1e3", "\u0663", " 3", "3 ", "0" * 30 + "1", "18446744073709551616"]
#: what a file of the model is replaced by
SPECIAL = ("fifo", "dev-zero", "dev-urandom", "directory", "loop", "dangling", "outside")
#: readers run on each kind of directory
READERS = {"vectors": ("load", "inspect", "is_native"), "full": ("model", "load", "is_native")}


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    """A vectors-only and a full model directory (hierarchical softmax, negative sampling, random states)."""
    folder = tmp_path_factory.mktemp("bases")
    save_native(make_kv(30, 8), folder / "vectors")
    (folder / "corpus.txt").write_text(TEXT, encoding="utf-8")
    m = Word2Vec(dim=8, min_count=1, epochs=1, hs=True, negative=2, threads=1, seed=1)
    m.train(str(folder / "corpus.txt"))
    m.save(str(folder / "full"))
    return {"vectors": folder / "vectors", "full": folder / "full"}




def json_damage(text, rng):
    """(name, new text) of damaged versions of a JSON header."""
    for depth in (101, 1000, 50_000):
        yield f"bare-nesting-{depth}", "[" * depth
        yield f"nested-settings-{depth}", text.replace('"settings": {', '"settings": {"x": ' + "[" * depth + "0"
                                                      + "]" * depth + ", ", 1)
    obj = json.loads(text)
    paths = list(leaves(obj))
    for k in range(24):
        path, value = rng.choice(paths), rng.choice(ODD_VALUES)
        yield f"value-{k}-{'.'.join(map(str, path))}={value[:12]}", with_value(obj, path, value, indent=1)


def vocab_damage(text, rng):
    """(name, new bytes) of damaged versions of vocab.tsv."""
    lines = text.split("\n")[:-1]
    for k, count in enumerate(ODD_COUNTS):
        row = rng.randrange(len(lines))
        damaged = list(lines)
        damaged[row] = damaged[row].split("\t")[0] + "\t" + count
        yield f"count-{k}", ("\n".join(damaged) + "\n").encode("utf-8")
    row = rng.randrange(len(lines))
    count = lines[row].split("\t")[1]
    for k, word in enumerate(["", "a\rb", "\udcff", lines[0].split("\t")[0], "x" * 100_000]):
        damaged = list(lines)
        damaged[row] = word + "\t" + count
        yield f"word-{k}", ("\n".join(damaged) + "\n").encode("utf-8", "surrogateescape")
    yield "line-dropped", ("\n".join(lines[1:]) + "\n").encode()
    yield "line-repeated", ("\n".join(lines + lines[-1:]) + "\n").encode()
    yield "no-final-newline", "\n".join(lines).encode()
    yield "two-tabs", ("\n".join(lines[:-1] + [lines[-1] + "\t1"]) + "\n").encode()


def byte_damage(data, rng):
    """(name, new bytes): truncations and flipped bytes."""
    yield "empty", b""
    for k in range(3):
        yield f"cut-{k}", data[:rng.randrange(len(data))]
    for k in range(6):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        yield f"flip-{k}", bytes(damaged)



def damaged_copies(base, other, scratch, rng):
    """(case name, directory) of damaged copies of the model directory ``base``."""
    for name in sorted(os.listdir(base)):
        data = (base / name).read_bytes()
        variants = list(byte_damage(data, rng))
        if name.endswith(".json"):
            variants += [(n, t.encode("utf-8")) for n, t in json_damage(data.decode("utf-8"), rng)]
        elif name == "vocab.tsv":
            variants += list(vocab_damage(data.decode("utf-8"), rng))
        for kind in SPECIAL + ("missing",):
            variants.append((kind, None))
        for label, content in variants:
            case = scratch / f"{base.name}-{len(os.listdir(scratch))}"
            shutil.copytree(base, case)
            if content is not None:
                (case / name).write_bytes(content)
            elif label == "missing":
                os.remove(case / name)
            else:
                outside = other / name if (other / name).exists() else other / "vectors.npy"
                make_special(case / name, label, outside)
            yield f"{base.name}/{name}/{label}", case


def test_damaged_model_directories_load_or_fail_cleanly_fast_and_in_bounded_memory(bases, tmp_path):
    rng = random.Random(SEED)
    cases = []
    for kind, base in bases.items():
        other = bases["full" if kind == "vectors" else "vectors"]
        for name, case in damaged_copies(base, other, tmp_path, rng):
            cases += [(name, case, reader) for reader in READERS[kind]]
    assert len(cases) > 1000
    report = load_in_child(cases, warmup=(bases["full"], ["model", "load", "inspect", "is_native"]), timeout=240)
    results = report["results"]
    assert len(results) == len(cases)
    bad = [r for r in results if not (r["outcome"] == "ok" or r["w2v_error"] or r["outcome"] == "FileNotFoundError")
           or (r["loader"] == "is_native" and r["outcome"] != "ok")]
    assert not bad, bad[:10]
    slow = [r for r in results if r["seconds"] >= 1]
    assert not slow, slow[:10]
    grown = max(r["peak_mb"] for r in results) - report["baseline_mb"]
    assert grown < 200, grown
    # the damage reached the readers: most cases are refused, and each kind of damage was met
    readers = [r for r in results if r["loader"] != "is_native"]
    failed = [r for r in readers if r["w2v_error"]]
    assert len(failed) > len(readers) // 2
    assert {r["message"].split(": ")[0].rsplit("/", 1)[-1] for r in failed} >= {"meta.json", "vocab.tsv", "model.json"}
