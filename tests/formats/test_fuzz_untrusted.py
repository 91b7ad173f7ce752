"""Fuzzing the readers of the files w2v gets from elsewhere: phrase models, ``fvocab`` files, training reports.

Each base file is damaged in every way a reader can meet (JSON nested past any limit, huge numbers
and wrong types at every place of a header, pipes, devices, folders and links in place of a file,
links out of the folder, truncated files, flipped bytes, missing files), then read in a child
process (:mod:`tests.support.untrusted_loads`): phrase models by ``load_phrases``,
``FrozenPhrases.load`` and by a save over the damaged folder; vocabulary files by
``load_word2vec_format(fvocab=...)``; reports as ``w2v plot-run`` reads and checks them.  Every case
must end within a second as a success or a :class:`w2v.W2VError` (or ``FileNotFoundError``), in
bounded memory, and open no file outside the folder or the paths it was given.  The damage is
seeded (:data:`SEED`): a failure names its case, and rerunning it gives the same cases.
"""
import json
import os
import random
import shutil

import pytest

from w2v.phrases.model import Phrases
from w2v.vectors.keyed import save_word2vec_format

from ..support.json_cases import leaves, make_special, with_value
from ..support.formats_cases import make_kv
from ..support.untrusted_loads import load_in_child

SEED = 20_261_208
#: JSON texts put in place of a value of a header or report
ODD_VALUES = ["9" * 5000, "9" * 30, "18446744073709551616", "-1", "0", "1e400", "-1e400", "NaN", "0.5", '"x"',
              "null", "[]", "{}", '{"a": [1]}', "true", "[" * 200 + "]" * 200, '"' + "\\u0000" * 3 + '"']
#: text put in place of a count of a vocabulary file
ODD_COUNTS = ["9" * 5000, "18446744073709551616", "9223372036854775808", "-1", "1e3", "\u0663", "+3", "0x10",
              "0" * 5000 + "1", ""]
#: what a file is replaced by; a file a user names may be a link anywhere, or a pipe (process substitution)
SPECIAL = ("fifo", "dev-zero", "dev-urandom", "directory", "loop", "dangling", "outside")
SPECIAL_NAMED = ("dev-zero", "dev-urandom", "directory", "loop", "dangling")
CORPUS = [["new", "york", "is", "big"], ["new", "york", "city"], ["the", "city", "of", "new", "york"]] * 6




def json_damage(text, rng, n):
    """(name, new text) of damaged versions of a JSON file: deep nesting, then ``n`` odd values."""
    for depth in (101, 50_000):
        yield f"bare-nesting-{depth}", "[" * depth
        yield f"inner-nesting-{depth}", text.replace("{", '{"x": ' + "[" * depth + "0" + "]" * depth + ", ", 1)
    obj = json.loads(text)
    paths = list(leaves(obj))
    for k in range(n):
        path, value = rng.choice(paths), rng.choice(ODD_VALUES)
        yield f"value-{k}-{'.'.join(map(str, path))[:40]}={value[:12]}", with_value(obj, path, value, indent=1)


def byte_damage(data, rng):
    """(name, new bytes): empty, truncations and flipped bytes."""
    yield "empty", b""
    for k in range(2):
        yield f"cut-{k}", data[:rng.randrange(max(1, len(data)))]
    for k in range(3):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        yield f"flip-{k}", bytes(damaged)


def vocab_damage(text, rng):
    """(name, new bytes) of damaged versions of a word2vec.c vocabulary file (``word count`` lines)."""
    lines = text.split("\n")[:-1]
    for k, count in enumerate(ODD_COUNTS):
        damaged = list(lines)
        row = rng.randrange(len(lines))
        damaged[row] = damaged[row].split(" ")[0] + " " + count
        yield f"count-{k}={count[:12]}", ("\n".join(damaged) + "\n").encode("utf-8")
    for k, line in enumerate(["a b c", "\udcff 3", "x" * 100_000 + " 3", " 3", "a\t3"]):
        damaged = list(lines)
        damaged[rng.randrange(len(lines))] = line
        yield f"line-{k}", ("\n".join(damaged) + "\n").encode("utf-8", "surrogateescape")



@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    """Good files of each kind, and the files a link out of a case points to (in ``elsewhere``)."""
    folder = tmp_path_factory.mktemp("bases")
    model = Phrases(CORPUS, min_count=1, threshold=0.1)
    model.save(folder / "counts")
    model.freeze().save(folder / "frozen")
    vocab = folder / "vocab"
    vocab.mkdir()
    kv = make_kv(8, 4)
    save_word2vec_format(kv, vocab / "vec.txt", binary=False)
    (vocab / "fvocab.txt").write_text("".join(f"{w} {10 * (i + 1)}\n" for i, w in enumerate(kv.index_to_key)))
    report = folder / "report"
    report.mkdir()
    ticks = [[0, 0.5 * k, k / 10, 1 + (k > 5), 1e6, 0.025 * (1 - k / 10), 3.0 - 0.1 * k] for k in range(1, 11)]
    rounds = [[1, k + 1, 1, 0.6, 0.05, 0.5] for k in range(3)]
    (report / "r.json").write_text(json.dumps({
        "progress": {"columns": ["segment", "seconds", "fraction", "epoch", "words_per_sec", "learning_rate",
                                 "loss"], "ticks": ticks},
        "rounds": {"columns": ["epoch", "round", "rounds", "seconds", "merge_seconds", "train_seconds"],
                   "rows": rounds},
        "settings": {"epochs": 2, "model": "sg", "dim": 8}, "corpus": ["c.txt"], "train_seconds": 5.0,
        "words_per_sec": 1e6}, indent=1))
    elsewhere = folder / "elsewhere"
    shutil.copytree(folder / "counts", elsewhere)
    (elsewhere / "secret.txt").write_text("root:x:0:0\n")
    return {"counts": folder / "counts", "frozen": folder / "frozen", "vocab": vocab, "report": report,
            "elsewhere": elsewhere}


def phrase_cases(base, elsewhere, scratch, rng, loaders):
    """(name, folder, loader, allowed) of damaged copies of the phrase model folder ``base``."""
    for name in sorted(os.listdir(base)):
        data = (base / name).read_bytes()
        variants = list(byte_damage(data, rng))
        if name == "meta.json":
            variants += [(n, t.encode("utf-8")) for n, t in json_damage(data.decode("utf-8"), rng, 40)]
        variants += [(kind, None) for kind in SPECIAL + ("missing",)]
        for label, content in variants:
            case = scratch / f"{base.name}-{len(os.listdir(scratch))}"
            shutil.copytree(base, case)
            if content is not None:
                (case / name).write_bytes(content)
            elif label == "missing":
                os.remove(case / name)
            else:
                outside = elsewhere / name if (elsewhere / name).exists() else elsewhere / "secret.txt"
                make_special(case / name, label, outside)
            for loader in loaders:
                if loader != "phrases-save" or name == "meta.json":   # a save reads meta.json only
                    yield f"{base.name}/{name}/{label}/{loader}", case, loader, [case]
    for kind in SPECIAL:   # the folder itself
        case = scratch / f"{base.name}-{len(os.listdir(scratch))}"
        make_special(case, kind, elsewhere)
        allowed = [] if kind == "outside" else [case]   # a model named through a link is the user's own
        for loader in ("phrases", "frozen", "phrases-save"):
            yield f"{base.name}/folder/{kind}/{loader}", case, loader, allowed or [elsewhere]


def file_cases(base, name, damage, elsewhere, scratch, loader):
    """(name, file, loader, allowed) of damaged copies of the file ``name`` of the folder ``base``."""
    data = (base / name).read_bytes()
    variants = list(damage(data)) + [(kind, None) for kind in SPECIAL_NAMED + ("outside", "missing")]
    for label, content in variants:
        case = scratch / f"{base.name}-{len(os.listdir(scratch))}"
        shutil.copytree(base, case)
        if content is not None:
            (case / name).write_bytes(content)
        elif label == "missing":
            os.remove(case / name)
        else:
            make_special(case / name, label, elsewhere / "secret.txt")
        # the user named this path: a link out is theirs to follow, and nothing else may be read
        allowed = [case] + ([elsewhere / "secret.txt"] if label == "outside" else [])
        yield f"{base.name}/{name}/{label}", case / name, loader, allowed


def all_cases(bases, scratch):
    rng = random.Random(SEED)
    cases = []
    cases += phrase_cases(bases["counts"], bases["elsewhere"], scratch, rng, ("phrases", "frozen", "phrases-save"))
    cases += phrase_cases(bases["frozen"], bases["elsewhere"], scratch, rng, ("phrases", "phrases-save"))
    cases += file_cases(bases["vocab"], "fvocab.txt",
                        lambda d: [*byte_damage(d, rng), *vocab_damage(d.decode("utf-8"), rng)],
                        bases["elsewhere"], scratch, "fvocab")
    cases += file_cases(bases["report"], "r.json",
                        lambda d: [*byte_damage(d, rng), *((n, t.encode("utf-8"))
                                                           for n, t in json_damage(d.decode("utf-8"), rng, 60))],
                        bases["elsewhere"], scratch, "report")
    return cases


def test_damaged_phrase_models_vocab_files_and_reports_fail_cleanly_fast_in_bounded_memory(bases, tmp_path):
    scratch = tmp_path / "cases"
    scratch.mkdir()
    cases = all_cases(bases, scratch)
    assert len(cases) > 500
    warmup = [(bases["counts"], "phrases", [bases["counts"]]), (bases["frozen"], "frozen", [bases["frozen"]]),
              (bases["vocab"] / "fvocab.txt", "fvocab", [bases["vocab"]]),
              (bases["report"] / "r.json", "report", [bases["report"]]),
              (tmp_path / "warm-save", "phrases-save", [tmp_path])]
    report = load_in_child(cases, watched=bases["counts"].parent.parent, warmup=warmup, timeout=240)
    results = report["results"]
    assert len(results) == len(cases)
    bad = [r for r in results if not (r["outcome"] in ("ok", "FileNotFoundError") or r["w2v_error"])]
    assert not bad, bad[:10]
    slow = [r for r in results if r["seconds"] >= 1]
    assert not slow, slow[:10]
    grown = max(r["peak_mb"] for r in results) - report["baseline_mb"]
    assert grown < 200, grown
    escaped = [r for r in results if r["escaped"]]
    assert not escaped, escaped[:10]
    # the damage reached the readers: many cases are refused, by every loader
    for loader in ("phrases", "frozen", "phrases-save", "fvocab", "report"):
        mine = [r for r in results if r["loader"] == loader]
        refused = [r for r in mine if r["w2v_error"]]
        assert len(refused) > len(mine) // 3, (loader, len(refused), len(mine))
