"""The native directory format: round trips, replacing models, corrupt files, strict vocab.tsv, .npy headers."""
import json
import os
import shutil
import stat
import subprocess
import sys

import numpy as np
import pytest

import w2v.formats as formats
import w2v.formats.native as native
from w2v.errors import FormatError, OutputError
from w2v.formats import inspect
from w2v.vectors.keyed import KeyedVectors, load, load_native, save_native, save_word2vec_format

from ..conftest import ROOT
from ..support.formats_cases import deny_open, expect_format_error, make_kv, same


# --------------------------------------------------------------------------- round trips and replacing a model
def test_native_round_trip_memmap(tmp_path):
    kv = make_kv(6, 4)
    path = tmp_path / "model"
    save_native(kv, path)
    assert sorted(os.listdir(path)) == ["meta.json", "vectors.npy", "vocab.tsv"]
    meta = json.loads((path / "meta.json").read_text())
    assert meta["format"] == "w2v-native" and meta["version"] == 1
    assert meta["count"] == 6 and meta["dim"] == 4 and meta["settings"]["sg"] == 1
    lines = (path / "vocab.tsv").read_text(encoding="utf-8").split("\n")
    assert lines[0] == "the\t60" and lines[-1] == ""
    arr = np.load(path / "vectors.npy", mmap_mode="r", allow_pickle=False)
    assert isinstance(arr, np.memmap)
    back = load_native(path)
    assert isinstance(back.vectors, np.memmap) and not back.vectors.flags.writeable
    same(kv, back)
    assert list(back.counts) == list(kv.counts) and back.settings == kv.settings
    assert back.source_format == "native"
    inmem = load(path, mmap=False)
    assert not isinstance(inmem.vectors, np.memmap)
    same(kv, inmem)
    # queries work on a read-only memmap
    assert back.most_similar("the", topn=2) == kv.most_similar("the", topn=2)


def test_native_without_counts_and_overwrite(tmp_path):
    kv = make_kv(4, 3, counts=False)
    path = tmp_path / "m"
    save_native(kv, path)
    assert load(path).counts is None
    kv2 = make_kv(5, 2, seed=9)
    back = load(path)  # memmap of the old file stays valid while the model is replaced
    save_native(kv2, path)
    same(kv2, load(path))
    same(kv, back)
    save_native(load(path), path)  # saving a memmapped model over its own directory
    same(kv2, load(path))
    assert sorted(os.listdir(tmp_path)) == ["m"]  # no temporary directories left


def test_native_refuses_to_replace_other_directories(tmp_path):
    other = tmp_path / "mine"
    other.mkdir()
    (other / "precious.txt").write_text("keep me")
    with pytest.raises(OutputError, match="refusing"):
        save_native(make_kv(), other)
    assert (other / "precious.txt").read_text() == "keep me"
    afile = tmp_path / "file"
    afile.write_text("x")
    with pytest.raises(OutputError):
        save_native(make_kv(), afile)
    # a meta.json of another program does not make a directory a w2v model
    (other / "meta.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(OutputError, match="refusing"):
        save_native(make_kv(), other)
    assert sorted(os.listdir(other)) == ["meta.json", "precious.txt"]
    # a link to a model is not replaced by a directory (nor is the model it points to touched)
    save_native(make_kv(seed=1), tmp_path / "real")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(OutputError, match="not a model directory"):
        save_native(make_kv(), tmp_path / "link")
    assert (tmp_path / "link").is_symlink()
    same(make_kv(seed=1), load(tmp_path / "real"))
    empty = tmp_path / "empty"
    empty.mkdir()
    save_native(make_kv(), empty)
    same(make_kv(), load(empty))


# --------------------------------------------------------------------------- corrupt files
def test_corrupt_native(tmp_path):
    kv = make_kv(5, 4)

    def fresh(name):
        path = tmp_path / name
        save_native(kv, path)
        return path

    p = fresh("no_vectors")
    os.remove(p / "vectors.npy")
    expect_format_error(p, match="vectors.npy")
    p = fresh("no_vocab")
    os.remove(p / "vocab.tsv")
    expect_format_error(p, match="vocab.tsv")
    p = fresh("bad_meta")
    (p / "meta.json").write_text("{not json")
    expect_format_error(p, match="meta.json")
    p = fresh("wrong_format")
    (p / "meta.json").write_text(json.dumps({"format": "other", "version": 1, "count": 5, "dim": 4}))
    expect_format_error(p, match="meta.json")
    p = fresh("short_vocab")
    lines = (p / "vocab.tsv").read_text(encoding="utf-8").splitlines(True)
    (p / "vocab.tsv").write_text("".join(lines[:-1]), encoding="utf-8")
    expect_format_error(p, match="vocab.tsv")
    p = fresh("bad_count")
    (p / "vocab.tsv").write_text("".join(lines[:-1]) + "a\tlots\n", encoding="utf-8")
    expect_format_error(p, match="line 5")
    p = fresh("no_tab")
    (p / "vocab.tsv").write_text("".join(lines[:-1]) + "a 1\n", encoding="utf-8")
    expect_format_error(p, match="line 5")
    p = fresh("version")
    (p / "meta.json").write_text(json.dumps({**json.loads((p / "meta.json").read_text()), "version": 2}))
    expect_format_error(p, match="unsupported native format version 2")
    p = fresh("settings")
    (p / "meta.json").write_text(json.dumps({**json.loads((p / "meta.json").read_text()), "settings": [1]}))
    expect_format_error(p, match="settings must be an object")
    p = fresh("shape")
    np.save(p / "vectors.npy", np.ones((4, 4), np.float32))
    expect_format_error(p, match="shape")
    p = fresh("integers")
    np.save(p / "vectors.npy", np.ones((5, 4), np.int32))
    expect_format_error(p, match="not floating point")
    p = fresh("truncated_npy")
    data = (p / "vectors.npy").read_bytes()
    (p / "vectors.npy").write_bytes(data[:-7])
    for mmap in (True, False):
        expect_format_error(p, match="vectors.npy", mmap=mmap)
    p = fresh("pickled")
    np.save(p / "vectors.npy", np.array([[object()] * 4] * 5, dtype=object), allow_pickle=True)
    expect_format_error(p, match="vectors.npy")
    p = fresh("dups")
    (p / "vocab.tsv").write_text("".join(lines[:-1]) + lines[0], encoding="utf-8")
    with pytest.raises(FormatError, match="duplicate"):
        kv2 = load(p)
        _ = "the" in kv2  # the word index is built on first use


# --------------------------------------------------------------------------- damaged .npy headers
def test_every_damaged_npy_header_is_a_format_error(tmp_path):
    # numpy's header parser raised tokenize.TokenError, SyntaxError and OverflowError ("memory
    # mapped length must be positive", a "-" for a space: a negative shape) through load and info
    kv = make_kv(5, 8)
    path = tmp_path / "m"
    save_native(kv, path)
    npy = path / "vectors.npy"
    good = npy.read_bytes()
    header_len = 10 + int.from_bytes(good[8:10], "little")
    assert header_len == 128
    outcomes = {"loaded": 0, "error": 0}
    for i in range(header_len):
        for mask in (0x01, 0x02, 0x0D, 0x20, 0x41, 0x80, 0xFF):
            data = bytearray(good)
            data[i] ^= mask
            npy.write_bytes(bytes(data))
            for mmap in (True, False):
                try:
                    back = load(path, mmap=mmap)
                except FormatError as exc:
                    assert "vectors.npy" in str(exc), (i, mask, str(exc))
                    outcomes["error"] += 1
                    continue
                assert back.vectors.shape == (5, 8) and back.vectors.dtype == np.float32, (i, mask)
                assert np.isfinite(back.vectors).all()
                outcomes["loaded"] += 1
            try:
                assert inspect(path)["dim"] == 8
            except FormatError as exc:
                assert "vectors.npy" in str(exc)
    # most damage is refused; a flip in the padding or the byte order still loads a (5, 8) array
    assert outcomes["error"] > 10 * outcomes["loaded"] > 0, outcomes


def test_npy_data_of_another_size_than_the_header_declares(tmp_path):
    kv = make_kv(5, 4)
    path = tmp_path / "m"
    save_native(kv, path)
    npy = path / "vectors.npy"
    good = npy.read_bytes()
    npy.write_bytes(good + b"\0" * 16)        # trailing bytes: not what np.save writes
    for mmap in (True, False):
        assert "the file has" in expect_format_error(path, match="vectors.npy", mmap=mmap)
    npy.write_bytes(good[:-1])
    for mmap in (True, False):
        assert "truncated" in expect_format_error(path, match="vectors.npy", mmap=mmap)
    # a header declaring a huge or negative shape fails before numpy allocates or maps anything
    data = good[128:]
    for shape in ("(5, 4444444444444)", "(10**20, 4)", "(99999999999999999999999, 4)", "(-5, -4)"):
        header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}".encode()
        header = header.ljust(128 - 10 - 1) + b"\n"
        npy.write_bytes(good[:8] + len(header).to_bytes(2, "little") + header + data)
        for mmap in (True, False):
            expect_format_error(path, match="vectors.npy", mmap=mmap)


# --------------------------------------------------------------------------- unreadable files
@pytest.mark.parametrize("name", ["meta.json", "vocab.tsv", "vectors.npy"])
def test_unreadable_files_of_a_native_model_are_format_errors(tmp_path, monkeypatch, name):
    # (permissions do not bind root, so open() is made to fail as it would for another user)
    save_native(make_kv(), tmp_path / "m")
    deny_open(monkeypatch, name)
    for mmap in (True, False):
        msg = expect_format_error(tmp_path / "m", match=f"{name}: cannot read: Permission denied", mmap=mmap)
        assert "corrupt" not in msg
    with pytest.raises(FormatError, match="cannot read"):
        inspect(tmp_path / "m")


# --------------------------------------------------------------------------- non-finite values
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_native_vectors_with_nan_or_infinity_do_not_load(tmp_path, bad):
    kv = make_kv(6, 4)
    path = tmp_path / "m"
    save_native(kv, path)
    vecs = np.load(path / "vectors.npy")
    vecs[4, 2] = bad
    np.save(path / "vectors.npy", vecs)
    for mmap in (True, False):
        msg = expect_format_error(path, match="vectors.npy", mmap=mmap)
        assert "row 4" in msg and repr(kv.index_to_key[4]) in msg and "NaN or infinity" in msg
    assert inspect(path)["count"] == 6       # info reads headers only, as for word2vec files


def test_the_finite_check_of_a_memmap_goes_block_by_block(tmp_path):
    n, dim = 45_000, 100                     # 4.5M values: more than one 4 Mi-value block
    rng = np.random.default_rng(1)
    kv = KeyedVectors([f"w{i}" for i in range(n)], rng.standard_normal((n, dim), dtype=np.float32))
    path = tmp_path / "m"
    save_native(kv, path)
    back = load(path)
    assert isinstance(back.vectors, np.memmap)
    vecs = np.load(path / "vectors.npy")
    vecs[n - 1, dim - 1] = np.nan           # in the last block
    np.save(path / "vectors.npy", vecs)
    assert "row 44999" in expect_format_error(path, match="vectors.npy")
    # finite values whose sum overflows float32 still load (the block sum is only a fast path)
    vecs[:] = 3e38
    np.save(path / "vectors.npy", vecs)
    assert np.array_equal(load(path).vectors, vecs)


# --------------------------------------------------------------------------- strict vocab.tsv
@pytest.mark.parametrize("count", ["1_0", "+3", " 3", "3 ", "\u0663", "-1", "", "0x3", "3\r", "3.0", "1e3"])
def test_vocab_counts_must_be_ascii_digits(tmp_path, count):
    kv = make_kv(3, 2)
    path = tmp_path / "m"
    save_native(kv, path)
    lines = (path / "vocab.tsv").read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].split("\t")[0] + "\t" + count
    (path / "vocab.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    expect_format_error(path, match="vocab.tsv: line 2: bad count")


def test_vocab_counts_up_to_int64(tmp_path):
    kv = make_kv(2, 2)
    path = tmp_path / "m"
    save_native(kv, path)
    for count, ok in ((2 ** 63 - 1, True), (2 ** 63, False), (10 ** 30, False)):
        (path / "vocab.tsv").write_text(f"the\t{count}\nnaïve\t007\n", encoding="utf-8")
        if ok:
            assert load(path).counts.tolist() == [count, 7]
        else:
            expect_format_error(path, match="line 1: count")
    # the largest int64 is a good count: the bad one after it is the one named
    (path / "vocab.tsv").write_text(f"the\t{2 ** 63 - 1}\nnaïve\tx\n", encoding="utf-8")
    expect_format_error(path, match="line 2: bad count 'x'")


def test_vocab_words_must_not_be_empty(tmp_path):
    path = tmp_path / "m"
    save_native(make_kv(3, 2), path)
    (path / "vocab.tsv").write_text("the\t3\n\t2\na\t1\n", encoding="utf-8")
    expect_format_error(path, match="line 2: empty word")
    (path / "vocab.tsv").write_text("the\t3\nx\ry\t2\na\t1\n", encoding="utf-8")
    expect_format_error(path, match="line 2")
    # a space is a word's character in vocab.tsv (the word2vec writers refuse such words)
    (path / "vocab.tsv").write_text("the\t3\nnew york\t2\na\t1\n", encoding="utf-8")
    back = load(path)
    assert back.index_to_key == ["the", "new york", "a"]
    with pytest.raises(FormatError, match="whitespace"):
        save_word2vec_format(back, tmp_path / "v.bin")
    assert not (tmp_path / "v.bin").exists()


def test_every_vocab_line_is_one_word_a_tab_and_a_count(tmp_path):
    # what save_native writes and nothing else: a line with two tabs is refused (not read as
    # another word's count), and so is a blank line at the end
    path = tmp_path / "m"
    save_native(make_kv(3, 2), path)
    for body, line in (("the\t3\nx\t2\tjunk\na\t1\n", 2),
                       ("the\t3\nx\t2\na\t1\t\n", 3),
                       # as many tabs as lines, but line 1 holds two and line 2 none: the words
                       # would have been "the", "a" and the counts 3, 2
                       ("the\t3\ta\n2\nb\t1\n", 1)):
        (path / "vocab.tsv").write_text(body, encoding="utf-8")
        expect_format_error(path, match=f"vocab.tsv: line {line}: expected 'word<TAB>count'")
    (path / "vocab.tsv").write_text("the\t3\nx\t2\na\t1\n\n", encoding="utf-8")
    expect_format_error(path, match="vocab.tsv: 4 lines, but meta.json declares 3 words")
    (path / "vocab.tsv").write_text("the\t3\nx\t2\na\t1", encoding="utf-8")     # no last newline
    assert load(path).index_to_key == ["the", "x", "a"]


def test_native_writer_refuses_negative_counts_before_writing(tmp_path):
    kv = KeyedVectors(["a", "b"], np.ones((2, 2), np.float32), counts=[3, -1])
    with pytest.raises(FormatError, match=r"count -1 of 'b' \(row 1\): word counts must be >= 0"):
        save_native(kv, tmp_path / "m")
    assert not os.listdir(tmp_path)
    # no words, no counts to check (the least of none is not -1, nor an error)
    save_native(KeyedVectors([], np.zeros((0, 2), np.float32), counts=[]), tmp_path / "empty")
    assert len(load(tmp_path / "empty")) == 0
    kv = KeyedVectors(["a", "b"], np.ones((2, 2), np.float32), counts=[3, 0])     # 0 is a count
    save_native(kv, tmp_path / "m")
    assert load(tmp_path / "m").counts.tolist() == [3, 0]


# --------------------------------------------------------------------------- renaming into place
def test_a_failed_rename_into_place_puts_the_old_model_back(tmp_path, monkeypatch):
    # save_native moves the old model aside, then renames the new one in: when that second
    # rename fails the old model must be back at the path, not left aside as .NAME.*.old
    path = tmp_path / "nat"
    old = make_kv(4, 3, seed=1)
    save_native(old, path)
    real_rename = os.rename

    def failing_rename(src, dst):
        if str(src).endswith(".tmp"):
            raise OSError(5, "Input/output error")
        return real_rename(src, dst)

    monkeypatch.setattr(native.os, "rename", failing_rename)
    with pytest.raises(OutputError, match="Input/output error"):
        save_native(make_kv(5, 2, seed=2), path)
    monkeypatch.undo()
    same(old, load(path))
    assert os.listdir(tmp_path) == ["nat"]


def test_a_save_deletes_the_models_left_aside_for_its_path_and_no_others(tmp_path):
    # a save killed between its two renames leaves the model it replaced at .NAME.<random>.old
    # (Word2Vec.load(NAME) recovers it); the next save of NAME deletes every such directory, and
    # only those: not the ones of m.bak (".m.bak.x.old" used to be taken for m's: a save of m
    # deleted it, and Word2Vec.load of a missing m loaded it), nor m1's ("[1]" is no pattern)
    kv = make_kv(4, 3, seed=1)
    names = ["m", "m[1]", "m.bak", "m1"]
    for name in names:
        save_native(kv, tmp_path / name)
        for tag in ("k1ll3d", "p4rt"):
            save_native(kv, tmp_path / f".{name}.{tag}.old")

    def own(name):
        return [str(tmp_path / f".{name}.{tag}.old") for tag in ("k1ll3d", "p4rt")]

    # a path with a trailing slash (Word2Vec.load("m/") of a missing m) names the same ones
    assert sorted(formats.aside_dirs(str(tmp_path / "m") + os.sep)) == own("m")
    left = {os.path.basename(d) for name in names for d in own(name)}
    for name in names[:3]:
        assert sorted(formats.aside_dirs(tmp_path / name)) == own(name)
        save_native(make_kv(seed=2), tmp_path / name)         # moves the one there aside too
        left -= {os.path.basename(d) for d in own(name)}
        assert set(os.listdir(tmp_path)) == set(names) | left
        same(make_kv(seed=2), load(tmp_path / name))
    assert left == {".m1.k1ll3d.old", ".m1.p4rt.old"}
    same(kv, load(tmp_path / "m1"))


def test_a_save_does_not_follow_a_link_left_where_an_aside_would_be(tmp_path):
    # a symbolic link is no directory a save moved aside: neither it nor what it points to is
    # touched (deleting through it would first make the folders there writable)
    kv = make_kv()
    save_native(kv, tmp_path / "elsewhere")
    os.chmod(tmp_path / "elsewhere", 0o755)
    (tmp_path / ".m.l1nk.old").symlink_to(tmp_path / "elsewhere")
    assert formats.aside_dirs(tmp_path / "m") == []
    save_native(kv, tmp_path / "m")
    save_native(kv, tmp_path / "m")
    assert (tmp_path / ".m.l1nk.old").is_symlink()
    assert stat.S_IMODE(os.stat(tmp_path / "elsewhere").st_mode) == 0o755
    same(kv, load(tmp_path / "elsewhere"))


def test_a_read_only_model_is_replaced_and_its_old_copy_deleted(tmp_path):
    # a model kept chmod 555, a read-only folder inside: its files cannot be deleted until the
    # folders are made writable, else the old copy stayed as .m.*.old. Permissions do not bind
    # root: as root the save runs in a process without its capabilities (setpriv)
    prefix = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: folder permissions cannot be tested")
        prefix = [setpriv, "--inh-caps=-all", "--bounding-set=-all", "--"]
    path = tmp_path / "m"
    save_native(make_kv(seed=1), path)
    (path / "sub").mkdir()
    (path / "sub" / "f").write_bytes(b"x")
    for folder in (path / "sub", path):
        os.chmod(folder, 0o555)
    code = ("import sys, numpy as np; from w2v.vectors.keyed import KeyedVectors, save_native; "
            "save_native(KeyedVectors(['x'], np.ones((1, 2), np.float32)), sys.argv[1])")
    root = str(ROOT)
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run(prefix + [sys.executable, "-c", code, str(path)], check=True, cwd=root, env=env, timeout=120)
    assert os.listdir(tmp_path) == ["m"]
    assert load(path).index_to_key == ["x"]


# --------------------------------------------------------------------------- more readers and writers
def test_native_limit_keeps_exactly_that_many_words(tmp_path):
    kv = make_kv(5, 3)
    save_native(kv, tmp_path / "nat")
    for limit in range(1, 7):
        back = load(tmp_path / "nat", limit=limit)
        n = min(limit, len(kv))
        assert back.index_to_key == kv.index_to_key[:n] and np.array_equal(back.vectors, kv.vectors[:n])
        assert back.counts.tolist() == kv.counts[:n].tolist()


@pytest.mark.parametrize("stored", [np.float64, np.float16, "fortran"])
def test_native_vectors_of_another_dtype_or_order_load_as_c_ordered_float32(tmp_path, stored):
    kv = make_kv(5, 4)
    path = tmp_path / "m"
    save_native(kv, path)
    arr = np.asfortranarray(kv.vectors) if stored == "fortran" else kv.vectors.astype(stored)
    np.save(path / "vectors.npy", arr)
    for mmap in (True, False):
        back = load(path, mmap=mmap)
        assert back.vectors.dtype == np.float32 and back.vectors.flags.c_contiguous
        assert np.array_equal(back.vectors, np.asarray(arr, dtype=np.float32))


def test_native_settings_with_numpy_values_and_paths_are_saved_as_json(tmp_path):
    kv = make_kv()
    kv.settings = {"corpus": tmp_path / "c.txt", "window": np.int64(5), "alpha": np.float32(0.5),
                   "sizes": np.arange(3)}
    save_native(kv, tmp_path / "m")
    assert load(tmp_path / "m").settings == {"corpus": str(tmp_path / "c.txt"), "window": 5, "alpha": 0.5,
                                             "sizes": [0, 1, 2]}
