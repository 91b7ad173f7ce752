"""The files of a model directory as a reader meets them: nested JSON, special files, links, sizes, counts."""
import json
import os
import shutil

import numpy as np
import pytest

import w2v
from w2v import Word2Vec
from w2v.errors import FormatError, OutputError
from w2v.formats import MAX_JSON_BYTES, MAX_JSON_DEPTH, inspect, is_native_dir
from w2v.vectors.keyed import KeyedVectors, load, save_native

from ..support.formats_cases import expect_format_error, make_kv, same
from ..support.model_loads import load_in_child

NATIVE_FILES = ("meta.json", "vectors.npy", "vocab.tsv")
TEXT = "the quick brown fox jumps over the lazy dog\nthe dog barks at the fox and the fox runs away\n" * 3


@pytest.fixture(scope="module")
def full_model(tmp_path_factory):
    """A small full model (hierarchical softmax and negative sampling), saved; the path of the saved copy."""
    folder = tmp_path_factory.mktemp("full")
    (folder / "corpus.txt").write_text(TEXT, encoding="utf-8")
    m = Word2Vec(dim=8, min_count=1, epochs=1, hs=True, negative=2, threads=1, seed=1)
    m.train(str(folder / "corpus.txt"))
    m.save(str(folder / "model"))
    return folder / "model"


def fresh_copy(src, tmp_path, name="m"):
    dst = tmp_path / name
    shutil.copytree(src, dst)
    return dst


def nested(depth, inner="0"):
    return "[" * depth + inner + "]" * depth


# --------------------------------------------------------------------------- nested JSON
@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 1000, 100_000])
def test_deeply_nested_json_in_a_header_is_a_format_error(full_model, tmp_path, depth):
    # about 1,000 levels of "[" in meta.json or model.json ended in a RecursionError traceback
    path = fresh_copy(full_model, tmp_path)
    meta = (path / "meta.json").read_text(encoding="utf-8")
    header = (path / "model.json").read_text(encoding="utf-8")
    for name, text in (("meta.json", meta), ("model.json", header)):
        for damaged in ('{"settings": {"x": ' + nested(depth) + "}}", "[" * depth,
                        text.replace('"settings": {', '"settings": {"x": ' + nested(depth) + ", ", 1)):
            (path / name).write_text(damaged, encoding="utf-8")
            with pytest.raises(FormatError, match=name):
                Word2Vec.load(str(path))
            if name == "meta.json":
                msg = expect_format_error(path, match="meta.json")
                assert "nested" in msg or "not a w2v" in msg, msg
                with pytest.raises(FormatError, match="meta.json"):
                    inspect(path)
                assert not is_native_dir(path)
        (path / name).write_text(text, encoding="utf-8")
    Word2Vec.load(str(path))


def test_json_nested_as_deep_as_allowed_loads(tmp_path):
    kv = make_kv()
    kv.settings = {"x": json.loads(nested(MAX_JSON_DEPTH - 2))}    # the header and settings are 2 levels
    save_native(kv, tmp_path / "m")
    assert load(tmp_path / "m").settings == kv.settings


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH, 2000])
def test_a_writer_refuses_settings_its_reader_would_refuse(tmp_path, depth):
    deep = []
    for _ in range(depth - 1):
        deep = [deep]
    kv = make_kv()
    kv.settings = {"x": deep}
    with pytest.raises(FormatError, match="settings"):
        save_native(kv, tmp_path / "m")
    assert os.listdir(tmp_path) == []


def test_json_strings_holding_brackets_do_not_count_as_nesting(tmp_path):
    kv = make_kv()
    kv.settings = {"x": "[" * 5000, "y": '\\"[[' * 100, "z": "{" * 300 + '"'}
    save_native(kv, tmp_path / "m")
    assert load(tmp_path / "m").settings == kv.settings


# --------------------------------------------------------------------------- what the files are
#: what a reader says of each kind of file that is not what it should be
SPECIAL = {"fifo": "not a regular file", "dev-zero": "outside the model directory", "directory": "Is a directory",
           "outside-copy": "outside the model directory", "loop": "Too many levels of symbolic links"}


def special_cases(path, names, outside):
    """(case name, path) of model directories whose file ``name`` is not what it should be."""
    for name in names:
        for kind in SPECIAL:
            case = path.parent / f"{path.name}-{name}-{kind}"
            shutil.copytree(path, case)
            target = case / name
            os.remove(target)
            if kind == "fifo":
                os.mkfifo(target)
            elif kind == "dev-zero":
                target.symlink_to("/dev/zero")
            elif kind == "directory":
                target.mkdir()
            elif kind == "outside-copy":     # a link to a good copy of the file, outside the directory
                target.symlink_to(outside / name)
            else:
                target.symlink_to(target)
            yield f"{name}|{kind}", case


@pytest.mark.parametrize("what", ["vectors", "full"])
def test_special_files_and_links_out_of_a_model_are_refused_at_once(full_model, tmp_path, what):
    # a named pipe hung the reader; a link to /dev/zero grew its memory until the kernel killed it;
    # a link out of the directory was followed
    if what == "vectors":
        path = tmp_path / "m"
        save_native(make_kv(50, 8), path)
        loaders = ["load", "inspect", "is_native"]
    else:
        path = fresh_copy(full_model, tmp_path)
        loaders = ["model", "load"]
    names = sorted(os.listdir(path))
    outside = fresh_copy(path, tmp_path, "elsewhere")
    cases = [(name, case, loader) for name, case in special_cases(path, names, outside) for loader in loaders]
    report = load_in_child(cases, warmup=(path, loaders))
    assert len(report["results"]) == len(cases)
    for r, (_, case, _) in zip(report["results"], cases):
        where = (r["name"], r["loader"], r["message"])
        assert r["seconds"] < 1, where
        assert r["peak_mb"] - report["baseline_mb"] < 64, where
        name, kind = r["name"].split("|")
        if r["loader"] == "is_native" or (r["loader"] != "model" and name not in NATIVE_FILES):
            assert r["outcome"] == "ok", where       # is_native_dir says False; w2v.load reads no syn1.npy
            continue
        assert r["w2v_error"] and r["outcome"] == "FormatError", where
        assert str(case / name) in r["message"] and SPECIAL[kind] in r["message"], where


def test_links_inside_the_model_directory_are_followed(tmp_path):
    # a model kept under another name behind a link, and a file linked within its directory
    kv = make_kv(20, 4)
    save_native(kv, tmp_path / "real")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    same(kv, load(tmp_path / "link"))
    os.rename(tmp_path / "real" / "vectors.npy", tmp_path / "real" / "vectors-v1.npy")
    (tmp_path / "real" / "vectors.npy").symlink_to("vectors-v1.npy")
    same(kv, load(tmp_path / "link"))
    same(kv, load(tmp_path / "real"))
    # a link that leaves the directory and comes back into it is still inside
    (tmp_path / "real" / "vocab.tsv").rename(tmp_path / "real" / "vocab-v1.tsv")
    (tmp_path / "real" / "vocab.tsv").symlink_to(tmp_path / "link" / "vocab-v1.tsv")
    same(kv, load(tmp_path / "real"))


def test_a_link_out_of_the_model_directory_is_refused(full_model, tmp_path):
    path = fresh_copy(full_model, tmp_path)
    outside = fresh_copy(full_model, tmp_path, "elsewhere")
    for name in sorted(os.listdir(path)):
        os.remove(path / name)
        (path / name).symlink_to(outside / name)
        with pytest.raises(FormatError, match="outside the model directory") as info:
            Word2Vec.load(str(path))
        assert str(path / name) in str(info.value)
        os.remove(path / name)
        shutil.copy(outside / name, path / name)
    Word2Vec.load(str(path))


# --------------------------------------------------------------------------- sizes
def sparse(path, size):
    """Make ``path`` a file of ``size`` zero bytes that takes no disk space."""
    if os.path.lexists(path):
        os.remove(path)
    with open(path, "wb") as f:
        f.truncate(size)


def test_a_header_larger_than_any_header_is_refused_before_it_is_read(full_model, tmp_path):
    path = fresh_copy(full_model, tmp_path)
    meta = path / "meta.json"
    text = meta.read_bytes()
    sparse(meta, MAX_JSON_BYTES + 1)
    report = load_in_child([("meta", path, "load"), ("meta", path, "model")], warmup=(full_model, ["load", "model"]))
    meta.write_bytes(text)
    sparse(path / "model.json", 1 << 34)
    report2 = load_in_child([("model", path, "model")], warmup=(full_model, ["model"]))
    for r in report["results"] + report2["results"]:
        assert r["outcome"] == "FormatError" and "bytes, more than the" in r["message"], r
        assert r["seconds"] < 1 and r["peak_mb"] - report["baseline_mb"] < 64, r


def test_a_vocabulary_larger_than_its_header_allows_is_refused_before_it_is_read(tmp_path):
    # meta.json says 2 words: vocab.tsv may hold 2 lines of at most 128 MiB each
    save_native(make_kv(2, 4), tmp_path / "m")
    sparse(tmp_path / "m" / "vocab.tsv", 1 << 32)
    report = load_in_child([("vocab", tmp_path / "m", "load")])
    (r,) = report["results"]
    assert r["outcome"] == "FormatError" and "vocab.tsv" in r["message"] and "more than the" in r["message"], r
    assert r["seconds"] < 1 and r["peak_mb"] - report["baseline_mb"] < 64, r
    save_native(make_kv(0, 4), tmp_path / "empty")
    (tmp_path / "empty" / "vocab.tsv").write_text("a\t1\n")
    expect_format_error(tmp_path / "empty", match="vocab.tsv")


def test_a_writer_refuses_a_word_longer_than_the_reader_accepts(tmp_path):
    long_word = "x" * ((128 << 20) + 1)
    with pytest.raises(FormatError, match="longer than"):
        save_native(KeyedVectors(["a", long_word], np.ones((2, 2), np.float32)), tmp_path / "m")
    assert os.listdir(tmp_path) == []


# --------------------------------------------------------------------------- counts
@pytest.mark.parametrize("digits", [20, 4300, 5000, 100_000])
def test_a_count_of_thousands_of_digits_is_a_format_error(tmp_path, digits):
    # int() refuses more than 4,300 digits with a ValueError, which escaped as such
    save_native(make_kv(3, 2), tmp_path / "m")
    vocab = tmp_path / "m" / "vocab.tsv"
    lines = vocab.read_text(encoding="utf-8").splitlines()
    for row in range(3):
        damaged = list(lines)
        damaged[row] = damaged[row].split("\t")[0] + "\t" + "9" * digits
        vocab.write_text("\n".join(damaged) + "\n", encoding="utf-8")
        msg = expect_format_error(tmp_path / "m", match=f"line {row + 1}: count 9999")
        assert "too large" in msg and len(msg) < 300
    # leading zeros are digits too: the count is what they make
    lines[1] = lines[1].split("\t")[0] + "\t" + "0" * digits + "7"
    vocab.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert load(tmp_path / "m").counts[1] == 7


def test_huge_numbers_in_the_headers_are_format_errors(full_model, tmp_path):
    path = fresh_copy(full_model, tmp_path)
    for name, key in (("meta.json", "count"), ("meta.json", "dim"), ("model.json", "vocab_size"),
                      ("model.json", "dim")):
        text = (path / name).read_text(encoding="utf-8")
        for number in ("9" * 5000, "9" * 30, "1e400", "-1"):
            damaged = json.loads(text)
            damaged[key] = "@"
            (path / name).write_text(json.dumps(damaged).replace('"@"', number), encoding="utf-8")
            with pytest.raises(FormatError, match=name):
                Word2Vec.load(str(path))
            if name == "meta.json":
                with pytest.raises(FormatError, match=name):
                    w2v.load(str(path))
        (path / name).write_text(text, encoding="utf-8")


def test_save_refuses_to_replace_a_directory_whose_header_is_a_pipe(tmp_path):
    # is_native_dir read meta.json whole: a named pipe there hung the save
    path = tmp_path / "m"
    save_native(make_kv(), path)
    os.remove(path / "meta.json")
    os.mkfifo(path / "meta.json")
    assert not is_native_dir(path)
    with pytest.raises(OutputError, match="not a w2v native model"):
        save_native(make_kv(), path)
