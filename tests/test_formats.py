"""Loading and saving word vectors: word2vec binary/text, compressed, native; corrupt files."""
import bz2
import builtins
import errno
import gzip
import json
import lzma
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import w2v.formats as formats
import w2v.formats.files as format_files
import w2v.formats.native as native
import w2v.formats.word2vec_read as word2vec_read
import w2v.opener as opener
from w2v.atomic import atomic_write, atomic_write_text
from cli.main import main
from w2v.errors import FormatError, OutputError, ParameterError
from w2v.formats import inspect
from w2v.vectors import (KeyedVectors, load, load_native, load_word2vec_format, save, save_native,
                         save_word2vec_format)

WORDS = ["the", "naïve", "日本語", "ünïcödé", "a"]


def make_kv(n=5, dim=4, seed=0, words=None, counts=True):
    rng = np.random.default_rng(seed)
    words = list(words) if words is not None else (WORDS + [f"w{i}" for i in range(n)])[:n]
    vecs = rng.standard_normal((n, dim)).astype(np.float32)
    return KeyedVectors(words, vecs, counts=np.arange(n, 0, -1) * 10 if counts else None,
                        settings={"dim": dim, "sg": 1, "alpha": 0.025})


def same(kv1, kv2, exact=True):
    assert kv1.index_to_key == kv2.index_to_key
    assert kv1.vectors.dtype == np.float32 and kv2.vectors.dtype == np.float32
    if exact:
        assert np.array_equal(kv1.vectors, kv2.vectors)
    else:
        np.testing.assert_allclose(kv1.vectors, kv2.vectors, rtol=1e-6, atol=1e-7)


def raw_binary(words, vecs, newline=True, header=None):
    out = (header if header is not None else f"{len(words)} {vecs.shape[1]}\n").encode()
    for w, v in zip(words, vecs):
        out += w.encode("utf-8") + b" " + np.asarray(v, "<f4").tobytes() + (b"\n" if newline else b"")
    return out


# --------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2", ".xz"])
@pytest.mark.parametrize("binary", [True, False])
def test_word2vec_round_trip(tmp_path, binary, suffix):
    kv = make_kv(7, 5)
    path = tmp_path / (("v.bin" if binary else "v.txt") + suffix)
    save_word2vec_format(kv, path, binary=binary)
    for b in (binary, None):  # explicit and auto-detected
        back = load_word2vec_format(path, binary=b)
        same(kv, back)  # text uses %.9g: float32 round-trips exactly
        assert back.source_format == ("word2vec-binary" if binary else "word2vec-text")
    back = load(path)
    same(kv, back)
    opener = {"": open, ".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}[suffix]
    with opener(path, "rb") as f:
        data = f.read()
    assert data.startswith(b"7 5\n")
    if binary:
        assert data.endswith(b"\n") and len(data) == len(raw_binary(kv.index_to_key, kv.vectors))
    else:
        assert data.decode("utf-8").splitlines()[1].startswith("the ")


def test_binary_layout_matches_word2vec_c(tmp_path):
    kv = make_kv(3, 2)
    path = tmp_path / "v.bin"
    save_word2vec_format(kv, path)
    assert path.read_bytes() == raw_binary(kv.index_to_key, kv.vectors, newline=True)
    text = tmp_path / "v.txt"
    save_word2vec_format(kv, text, binary=False)
    lines = text.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "3 2"
    assert lines[1] == "the " + " ".join("%.9g" % x for x in kv.vectors[0].tolist())


def test_binary_without_newlines_and_with_extra_newlines(tmp_path):
    kv = make_kv(5, 3)
    p = tmp_path / "nonl.bin"
    p.write_bytes(raw_binary(kv.index_to_key, kv.vectors, newline=False))
    same(kv, load(p, binary=True))
    same(kv, load(p))
    # blank lines before a record's word are skipped, as word2vec.c's ReadWord and gensim do
    extra = tmp_path / "extra.bin"
    body = b"".join(b"\n\n" + w.encode("utf-8") + b" " + np.asarray(v, "<f4").tobytes() + b"\n"
                    for w, v in zip(kv.index_to_key, kv.vectors))
    extra.write_bytes(f"{len(kv)} {kv.vector_size}\n".encode() + body)
    same(kv, load(extra, binary=True))
    same(kv, load(extra))


def test_text_variants_trailing_space_crlf_vec(tmp_path):
    kv = make_kv(4, 3)
    rows = ["%s %s" % (w, " ".join("%.9g" % x for x in v.tolist())) for w, v in zip(kv.index_to_key, kv.vectors)]
    p = tmp_path / "crlf.txt"
    p.write_bytes(("4 3\r\n" + "".join(r + " \r\n" for r in rows)).encode("utf-8"))
    same(kv, load(p))
    vec = tmp_path / "wiki.en.vec"  # fastText: trailing space on every line
    vec.write_bytes(("4 3 \n" + "".join(r + " \n" for r in rows)).encode("utf-8"))
    same(kv, load(vec))
    assert load(vec).source_format == "word2vec-text"


def test_limit(tmp_path):
    kv = make_kv(5, 4)
    for binary in (True, False):
        p = tmp_path / f"v{binary}.bin"
        save_word2vec_format(kv, p, binary=binary)
        back = load(p, limit=2)
        assert back.index_to_key == kv.index_to_key[:2]
        assert np.array_equal(back.vectors, kv.vectors[:2])
        assert len(load(p, limit=100)) == 5
    with pytest.raises(ParameterError):
        load(p, limit=0)
    save_native(kv, tmp_path / "nat")
    back = load(tmp_path / "nat", limit=3)
    assert back.index_to_key == kv.index_to_key[:3] and list(back.counts) == list(kv.counts[:3])


def test_inspect_reports_truncated_files(tmp_path):
    # one-letter words without newlines: exactly the smallest binary file the header allows
    vecs = np.arange(12, dtype=np.float32).reshape(3, 4)
    tight = tmp_path / "tight.bin"
    tight.write_bytes(raw_binary(["a", "b", "c"], vecs, newline=False))
    assert inspect(tight)["count"] == 3 and load(tight).vector_size == 4
    cut = tmp_path / "cut.bin"
    cut.write_bytes(tight.read_bytes()[:-1])
    with pytest.raises(FormatError, match="truncated"):
        inspect(cut)
    text = tmp_path / "v.txt"
    text.write_text("3 2\na 0 1\nb 2 3\nc 4 5\n")
    assert inspect(text)["format"] == "word2vec-text"
    short = tmp_path / "short.txt"
    short.write_text("3 2\na 0 1\nb 2 3\n")
    with pytest.raises(FormatError, match="truncated"):
        inspect(short)
    # the smallest text file the header allows (no final newline), and one byte less
    text.write_text("3 2\na 0 1\nb 2 3\nc 4 5")
    assert inspect(text)["count"] == 3 and load(text).vector_size == 2
    text.write_text("3 2\na 0 1\nb 2 3\nc 4 ")
    with pytest.raises(FormatError, match="truncated"):
        inspect(text)


def test_header_smaller_than_data_is_an_error_unless_a_limit_asks_for_a_prefix(tmp_path):
    # gensim reads the declared count and ignores the rest; a header of "0 4" on a full
    # file then loads nothing (and `w2v convert` wrote an empty file), so it is an error here
    kv = make_kv(5, 4)
    for binary in (True, False):
        p = tmp_path / ("v.bin" if binary else "v.txt")
        save_word2vec_format(kv, p, binary=binary)
        data = p.read_bytes()
        body = data[data.index(b"\n"):]
        for header in (b"3 4", b"0 4"):
            p.write_bytes(header + body)
            with pytest.raises(FormatError, match="data after the"):
                load_word2vec_format(p, binary=binary)
        p.write_bytes(b"3 4" + body)
        assert load_word2vec_format(p, binary=binary, limit=3).index_to_key == kv.index_to_key[:3]
        p.write_bytes(data + b"\n \n")          # trailing whitespace is not data
        assert load_word2vec_format(p, binary=binary).index_to_key == kv.index_to_key


def test_duplicate_words_keep_first_like_gensim(tmp_path):
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    rng = np.random.default_rng(3)
    words = ["a", "b", "a", "c"]
    vecs = rng.standard_normal((4, 3)).astype(np.float32)
    p = tmp_path / "dup.bin"
    p.write_bytes(raw_binary(words, vecs))
    ours = load(p)
    theirs = gensim_kv.KeyedVectors.load_word2vec_format(str(p), binary=True)
    # (gensim 4.4 leaves a None placeholder at the end of its index_to_key)
    assert ours.index_to_key == list(theirs.index_to_key)[:3] == ["a", "b", "c"]
    assert np.array_equal(ours.vectors, theirs.vectors[:3])
    assert np.array_equal(ours.vectors, vecs[[0, 1, 3]])


def test_unicode_words_every_format(tmp_path):
    kv = make_kv(5, 3, words=["日本語", "naïve", "😀", "ß", "z"])
    for name, fmt in [("u.bin", "bin"), ("u.txt", "text"), ("u.bin.xz", "bin"), ("u.txt.gz", "text"),
                      ("nat", "native")]:
        save(kv, tmp_path / name, format=fmt)
        same(kv, load(tmp_path / name))


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


def test_save_dispatch_by_suffix(tmp_path):
    kv = make_kv()
    save(kv, tmp_path / "a.bin")
    save(kv, tmp_path / "a.vec")
    save(kv, tmp_path / "a.txt.bz2")
    save(kv, tmp_path / "nat")
    assert load(tmp_path / "a.bin").source_format == "word2vec-binary"
    assert load(tmp_path / "a.vec").source_format == "word2vec-text"
    assert load(tmp_path / "a.txt.bz2").source_format == "word2vec-text"
    assert load(tmp_path / "nat").source_format == "native"
    with pytest.raises(ParameterError):
        save(kv, tmp_path / "x", format="hdf5")
    assert inspect(tmp_path / "a.txt.bz2")["compression"] == "bz2"
    assert inspect(tmp_path / "nat")["settings"]["alpha"] == 0.025


# --------------------------------------------------------------------------- gensim interop
@pytest.mark.parametrize("name,binary", [("v.bin", True), ("v.txt", False), ("v.bin.gz", True),
                                         ("v.txt.gz", False)])
def test_gensim_interop_both_directions(tmp_path, name, binary):
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    kv = make_kv(20, 8, words=WORDS + [f"w{i}" for i in range(15)])
    ours = tmp_path / ("ours_" + name)
    save_word2vec_format(kv, ours, binary=binary)
    g = gensim_kv.KeyedVectors.load_word2vec_format(str(ours), binary=binary)
    assert list(g.index_to_key) == kv.index_to_key
    if binary:
        assert np.array_equal(g.vectors, kv.vectors)
    else:
        np.testing.assert_allclose(g.vectors, kv.vectors, rtol=1e-6)
    theirs = tmp_path / ("theirs_" + name)
    g.save_word2vec_format(str(theirs), binary=binary)
    back = load(theirs)
    assert back.index_to_key == kv.index_to_key
    if binary:
        assert np.array_equal(back.vectors, kv.vectors)
    else:
        np.testing.assert_allclose(back.vectors, kv.vectors, rtol=1e-6)
    again = tmp_path / ("again_" + name)
    save_word2vec_format(back, again, binary=binary)
    g2 = gensim_kv.KeyedVectors.load_word2vec_format(str(again), binary=binary)
    assert list(g2.index_to_key) == kv.index_to_key
    np.testing.assert_allclose(g2.vectors, kv.vectors, rtol=1e-6)


# words with whitespace other than ASCII's: gensim, word2vec.c and fastText keep it inside a word
_UNICODE_SPACE_WORDS = ["10\u00a0000", "a\u2009b", "ideo\u3000sp", "ls\u2028x", "nel\x85x", "fs\x1cx", "\u00a0"]


@pytest.mark.parametrize("name", ["v.bin", "v.txt", "v.vec.gz"])
def test_words_with_unicode_whitespace_round_trip(tmp_path, name):
    kv = make_kv(len(_UNICODE_SPACE_WORDS) + 1, 3, words=["the"] + _UNICODE_SPACE_WORDS)
    path = tmp_path / name
    save(kv, path)                                   # used to refuse them ("whitespace")
    same(load(path), kv)
    # ASCII whitespace still ends a word in every reader: refused before anything is written
    for word in ("a b", "a\tb", "a\rb", "a\x0bb", "a\x0cb", "a\nb"):
        bad = KeyedVectors(["x", word], np.ones((2, 3), np.float32))
        with pytest.raises(FormatError, match="whitespace"):
            save(bad, tmp_path / ("bad_" + name))
        assert not (tmp_path / ("bad_" + name)).exists()


@pytest.mark.parametrize("binary", [True, False])
def test_gensim_file_with_unicode_whitespace_converts(tmp_path, binary):
    """A gensim (or fastText) file whose words hold NO-BREAK SPACE loads and converts."""
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    words = ["the"] + _UNICODE_SPACE_WORDS
    vecs = np.arange(3 * len(words), dtype=np.float32).reshape(len(words), 3) + 1
    g = gensim_kv.KeyedVectors(3)
    g.add_vectors(words, vecs)
    theirs = tmp_path / ("theirs.bin" if binary else "theirs.vec")
    g.save_word2vec_format(str(theirs), binary=binary)
    res = _cli(["convert", theirs, tmp_path / "ours.bin"])
    assert res.exit_code == 0, res.output
    back = gensim_kv.KeyedVectors.load_word2vec_format(str(tmp_path / "ours.bin"), binary=True)
    assert list(back.index_to_key) == words and np.array_equal(back.vectors, vecs)


def test_torch_embedding(tmp_path):
    torch = pytest.importorskip("torch")
    kv = make_kv(5, 4)
    emb = torch.nn.Embedding.from_pretrained(torch.from_numpy(kv.vectors))
    ids = torch.from_numpy(kv.encode(["the", "a"]))
    assert np.array_equal(emb(ids).numpy(), kv[["the", "a"]])


# --------------------------------------------------------------------------- writing errors
def test_unwritable_path_raises_output_error(tmp_path):
    kv = make_kv()
    bad = tmp_path / "no" / "such" / "dir" / "v.bin"
    for fn in (lambda: save_word2vec_format(kv, bad), lambda: save_native(kv, bad)):
        with pytest.raises(OutputError, match="v.bin"):
            fn()
    with pytest.raises(OutputError):
        save_word2vec_format(kv, tmp_path)  # a directory


def test_failed_write_leaves_old_file_and_no_temp(tmp_path, monkeypatch):
    kv = make_kv()
    path = tmp_path / "v.bin"
    save_word2vec_format(kv, path)
    before = path.read_bytes()

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OutputError, match="v.bin"):
        save_word2vec_format(make_kv(seed=5), path)
    with pytest.raises(OutputError):
        save_native(make_kv(seed=5), tmp_path / "nat")
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["v.bin"]


@pytest.mark.parametrize("word", ["two words", "tab\there", "new\nline", "car\rriage", "", " lead"])
def test_unrepresentable_words_rejected(tmp_path, word):
    kv = KeyedVectors(["ok", word], np.ones((2, 2), np.float32))
    for binary in (True, False):
        with pytest.raises(FormatError):
            save_word2vec_format(kv, tmp_path / "v.bin", binary=binary)
    assert not os.listdir(tmp_path)
    if "\t" in word or "\n" in word or "\r" in word or not word:
        # vocab.tsv cannot hold it, or its reader refuses it (a carriage return): a model
        # that saved would not load; the first word is checked as well as the others
        for words, row in ((["ok", word], 1), ([word, "ok"], 0)):
            kv = KeyedVectors(words, np.ones((2, 2), np.float32))
            with pytest.raises(FormatError, match=rf"cannot save word .* \(row {row}\)"):
                save_native(kv, tmp_path / "nat")
            assert not os.listdir(tmp_path)
    else:
        save_native(kv, tmp_path / "nat")  # spaces are fine in vocab.tsv
        assert load(tmp_path / "nat").index_to_key == ["ok", word]


def test_nan_vectors_rejected_on_save(tmp_path):
    kv = KeyedVectors(["a", "b"], np.ones((2, 2), np.float32))
    kv.vectors[1, 0] = np.nan          # changed in place, after any check the constructor makes
    with pytest.raises(FormatError, match="NaN"):
        save_word2vec_format(kv, tmp_path / "v.bin")
    assert not os.listdir(tmp_path)


# --------------------------------------------------------------------------- corrupt files
def expect_format_error(path, match=None, **kw):
    with pytest.raises(FormatError) as info:
        load(path, **kw)
    assert str(path) in str(info.value)
    if match:
        assert match in str(info.value), str(info.value)
    return str(info.value)


def test_truncated_binary_at_every_offset(tmp_path):
    kv = make_kv(5, 4)
    full = raw_binary(kv.index_to_key, kv.vectors)
    p = tmp_path / "t.bin"
    t0 = time.perf_counter()
    for cut in range(len(full)):
        p.write_bytes(full[:cut])
        if cut == len(full) - 1:  # only the final newline is missing: still complete
            same(kv, load(p))
            continue
        for binary in (True, None):
            msg = expect_format_error(p, binary=binary)
            assert "line" in msg or "offset" in msg or "empty" in msg
    assert time.perf_counter() - t0 < 30


def test_truncated_text_never_crashes(tmp_path):
    kv = make_kv(5, 4)
    p = tmp_path / "t.txt"
    save_word2vec_format(kv, p, binary=False)
    full = p.read_bytes()
    line_ends = {i + 1 for i, b in enumerate(full) if b == 0x0A}
    for cut in range(len(full)):
        p.write_bytes(full[:cut])
        try:
            back = load(p, binary=False)
        except FormatError as exc:
            assert str(p) in str(exc)
            continue
        # only a cut inside the last number of the last line can still parse
        assert cut > max(line_ends - {len(full)}) and back.index_to_key == kv.index_to_key
    for cut in sorted(line_ends - {len(full)}):
        p.write_bytes(full[:cut])
        assert "line" in expect_format_error(p, binary=False)
        msg = expect_format_error(p)  # header only: nothing to tell text from binary
        assert "line" in msg or "offset" in msg


def test_truncated_compressed_file(tmp_path):
    kv = make_kv(50, 16)
    p = tmp_path / "v.bin.gz"
    save_word2vec_format(kv, p)
    data = p.read_bytes()
    for cut in (10, len(data) // 2, len(data) - 5):
        q = tmp_path / f"cut{cut}.bin.gz"
        q.write_bytes(data[:cut])
        expect_format_error(q)
    q = tmp_path / "garbage.bin.xz"
    q.write_bytes(b"not xz at all")
    expect_format_error(q)


def test_random_bytes(tmp_path):
    rng = np.random.default_rng(42)
    p = tmp_path / "rand.bin"
    for size in (0, 1, 7, 100, 5000):
        for _ in range(5):
            p.write_bytes(rng.integers(0, 256, size, dtype=np.uint8).tobytes())
            expect_format_error(p)
    # a valid header followed by random bytes: an error or 5 vectors, nothing else, no hang
    for seed in range(40):
        body = np.random.default_rng(seed).integers(0, 256, 200, dtype=np.uint8).tobytes()
        p.write_bytes(b"5 4\n" + body)
        try:
            kv = load(p)
        except FormatError:
            continue
        assert len(kv) == 5 and kv.vector_size == 4


@pytest.mark.parametrize("content,match", [
    (b"", "empty"),
    (b"\n", "header"),
    (b"hello world\n", "header"),
    (b"5\n", "header"),
    (b"5 4 3\n", "header"),
    (b"-1 4\n", "header"),
    (b"5 0\n", "bad header"),
    (b"0 0\n", "bad header"),
    (b"3 2\na 1 2\nb 3 4\n", "line 4"),                 # header count larger than the data
    (b"2 3\na 1 2 3\nb 1 2\n", "line 3"),               # too few numbers
    (b"2 3\na 1 2 3\nb 1 2 3 4\n", "line 3"),           # too many numbers
    (b"2 2\na 1 2\nb 1 x\n", "line 3"),                 # unparsable float
    (b"2 2\na 1 2\nb 1 nan\n", "line 3"),               # NaN
    (b"2 2\na 1 2\nb inf 1\n", "line 3"),               # infinity
    (b"2 2\na 1 2\nb 1e39 1\n", "line 3"),              # overflows float32
    (b"2 2\na 1 2\n\n", "line 3"),                      # empty line
    (b"1 2\n\xff\xfe 1 2\n", "line 2"),                 # undecodable word (text)
    (b"2 2\na 1 2\nb 1_0 1\n", "'1_0'"),               # float() reads 10.0, strtof 1: neither
    (b"2 2\na 1 2\nb \xd9\xa3 1\n", "line 3"),          # an Arabic-Indic digit: float() takes it
    (b"2 2\na 1 2\nb 0x1p3 1\n", "line 3"),             # a hex float (strtof's, not float()'s)
    (b"2 2\na 1\t2\nb 3\t4\n", "single spaces"),        # tab-separated: detected as text, with a hint
])
def test_corrupt_word2vec_files(tmp_path, content, match):
    p = tmp_path / "bad.txt"
    p.write_bytes(content)
    expect_format_error(p, match=match)


def test_header_only_and_empty_model(tmp_path):
    p = tmp_path / "h.bin"
    p.write_bytes(b"3 4\n")
    expect_format_error(p, match="end of file")
    p.write_bytes(b"0 4\n")
    kv = load(p)
    assert len(kv) == 0 and kv.vector_size == 4


def test_binary_nan_and_bad_utf8(tmp_path):
    vecs = np.ones((3, 2), np.float32)
    vecs[2, 1] = np.inf
    p = tmp_path / "nan.bin"
    data = raw_binary(["a", "b", "c"], vecs)
    p.write_bytes(data)
    c_offset = data.index(b"c ")
    expect_format_error(p, match=f"offset {c_offset}")
    vecs[2, 1] = 0
    data = raw_binary(["a", "b", "c"], vecs).replace(b"\nc ", b"\n\xff\xfe ")
    p.write_bytes(data)
    bad_offset = data.index(b"\xff")
    expect_format_error(p, match=f"offset {bad_offset}")
    kv = load_word2vec_format(p, unicode_errors="replace")
    assert kv.index_to_key[2] == "\ufffd\ufffd"


@pytest.mark.parametrize("sep", [b"\n", b"", b"\n\n\n"], ids=["newline", "none", "blank-lines"])
def test_a_binary_error_names_the_byte_offset_of_its_record_at_every_row(tmp_path, sep):
    # the reader keeps no offsets: the record of a NaN or of a word that is not UTF-8 is found by
    # walking the file again (after the header, over the newlines between records, up to a last
    # record that ends the file); the offsets are counted here while the file is built
    words = ["a", "bb", "c", "dd"]
    vecs = np.arange(8, dtype=np.float32).reshape(4, 2) + 1
    p = tmp_path / "v.bin"
    for bad in range(len(words)):
        for kind in ("nan", "utf8"):
            data, starts = b"4 2\n", []
            for i, (w, v) in enumerate(zip(words, vecs)):
                data += sep if i else b""
                starts.append(len(data))
                word, v = w.encode(), v.copy()
                if i == bad and kind == "nan":
                    v[1] = np.nan
                if i == bad and kind == "utf8":
                    word = b"\xff" + word
                data += word + b" " + v.astype("<f4").tobytes()
            p.write_bytes(data)
            expect_format_error(p, binary=True, match=f"v.bin: byte offset {starts[bad]}: ")


def test_binary_header_dim_larger_than_data(tmp_path):
    p = tmp_path / "big.bin"
    p.write_bytes(raw_binary(["a", "b"], np.ones((2, 3), np.float32), header="2 1000000\n"))
    expect_format_error(p, match="end of file")
    p.write_bytes(raw_binary(["a", "b"], np.ones((2, 3), np.float32), header="1000000000000 3\n"))
    expect_format_error(p, match="end of file")
    # a compressed file's size says nothing of its records: the first allocation is bounded anyway
    gz = tmp_path / "big.bin.gz"
    gz.write_bytes(gzip.compress(raw_binary(["a", "b"], np.ones((2, 3), np.float32), header="1000000000000 3\n")))
    expect_format_error(gz, match="end of file")


def test_missing_and_directory_paths(tmp_path):
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "nope.bin")
    (tmp_path / "d").mkdir()
    expect_format_error(tmp_path / "d", match="meta.json")
    with pytest.raises(FormatError):
        load_word2vec_format(tmp_path / "d")


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
        "the" in kv2  # the word index is built on first use


def test_large_binary_loads_fast(tmp_path):
    n, dim = 100_000, 50
    rng = np.random.default_rng(0)
    kv = KeyedVectors([f"word{i}" for i in range(n)], rng.standard_normal((n, dim), dtype=np.float32))
    p = tmp_path / "big.bin"
    save_word2vec_format(kv, p)
    t0 = time.perf_counter()
    back = load(p)
    elapsed = time.perf_counter() - t0
    same(kv, back)
    assert elapsed < 5, elapsed  # ~0.3 s on a laptop; generous for shared CI machines


def test_a_header_with_an_impossible_dim_fails_before_allocating(tmp_path):
    # "3 99999999999" once asked numpy for 373 GiB and failed with a MemoryError naming no file
    kv = make_kv(3, 20)
    body = raw_binary(kv.index_to_key, kv.vectors)
    body = body[body.index(b"\n"):]
    p = tmp_path / "v.bin"
    p.write_bytes(b"3 99999999999" + body)
    assert "implausible header" in expect_format_error(p, binary=True)
    p.write_bytes(b"3 9999999" + body)                # fits in memory, not in the file
    assert "cannot hold one" in expect_format_error(p, binary=True)
    x = tmp_path / "v.bin.xz"
    x.write_bytes(lzma.compress(b"3 99999999999" + body))
    assert "implausible header" in expect_format_error(x, binary=True)


@pytest.mark.parametrize("header", [b"0 999999999999999999999", b"3 999999999999999999999999999"])
def test_a_header_with_a_dim_beyond_numpy_is_a_format_error(tmp_path, header):
    # "0 <dim past int64>" asked numpy for an empty (0, dim) matrix: ValueError "Maximum allowed
    # dimension exceeded"; with a count, the message's GiB overflowed a float (OverflowError)
    for name, write in (("v.bin", lambda p, d: p.write_bytes(d)),
                        ("v.txt.gz", lambda p, d: p.write_bytes(gzip.compress(d)))):
        p = tmp_path / name
        write(p, header + b"\na 1 2\n")
        for binary in (None, True, False):
            assert "implausible header" in expect_format_error(p, binary=binary)
        with pytest.raises(FormatError, match="implausible header"):
            inspect(p)


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
def _deny(monkeypatch, name):
    """Make ``open`` in w2v.formats.files and w2v.opener (which open every model file) fail on files named ``name``."""
    real = builtins.open

    def fake(file, *args, **kwargs):
        if os.path.basename(os.fspath(file)) == name:
            raise PermissionError(13, "Permission denied", os.fspath(file))
        return real(file, *args, **kwargs)

    monkeypatch.setattr(format_files, "open", fake, raising=False)
    monkeypatch.setattr(opener, "open", fake, raising=False)


@pytest.mark.parametrize("name", ["meta.json", "vocab.tsv", "vectors.npy"])
def test_unreadable_files_of_a_native_model_are_format_errors(tmp_path, monkeypatch, name):
    # (permissions do not bind root, so open() is made to fail as it would for another user)
    save_native(make_kv(), tmp_path / "m")
    _deny(monkeypatch, name)
    for mmap in (True, False):
        msg = expect_format_error(tmp_path / "m", match=f"{name}: cannot read: Permission denied", mmap=mmap)
        assert "corrupt" not in msg
    with pytest.raises(FormatError, match="cannot read"):
        inspect(tmp_path / "m")


def test_an_unreadable_word2vec_file_is_a_format_error(tmp_path, monkeypatch):
    save_word2vec_format(make_kv(), tmp_path / "v.bin")
    _deny(monkeypatch, "v.bin")
    expect_format_error(tmp_path / "v.bin", match="cannot read: Permission denied")
    with pytest.raises(FormatError, match="cannot read"):
        inspect(tmp_path / "v.bin")
    with pytest.raises(FileNotFoundError):       # a missing file stays FileNotFoundError
        load(tmp_path / "nope.bin")


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


# --------------------------------------------------------------------------- long words
@pytest.mark.parametrize("binary", [True, False])
@pytest.mark.parametrize("char", ["x", "é"])
def test_long_words_round_trip(tmp_path, binary, char):
    # a word over 64 KiB was written to binary files and could not be read back
    long = char * 70_000
    kv = make_kv(4, 3, words=[long, "a", char * 100_000 + "b", "c"])
    path = tmp_path / ("v.bin" if binary else "v.txt")
    save_word2vec_format(kv, path, binary=binary)
    for b in (binary, None):                    # explicit and detected
        back = load_word2vec_format(path, binary=b)
        same(kv, back)
        assert back.source_format == ("word2vec-binary" if binary else "word2vec-text")
    assert inspect(path)["format"] == ("word2vec-binary" if binary else "word2vec-text")


@pytest.mark.parametrize("binary", [True, False])
def test_gensim_reads_the_long_words_w2v_writes(tmp_path, binary):
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    kv = make_kv(3, 4, words=["a", "é" * 70_000, "b"])
    path = tmp_path / "v.bin"
    save_word2vec_format(kv, path, binary=binary)
    g = gensim_kv.KeyedVectors.load_word2vec_format(str(path), binary=binary)
    assert list(g.index_to_key) == kv.index_to_key
    np.testing.assert_allclose(g.vectors, kv.vectors, rtol=1e-6)


@pytest.mark.parametrize("binary", [True, False])
def test_a_multi_megabyte_first_word_is_detected_as_text_or_binary(tmp_path, binary):
    # the format sniffer looked at 4 MiB: a text file whose first word was longer read as binary
    kv = make_kv(2, 3, words=["y" * (5 << 20), "b"])
    path = tmp_path / "v.vec"
    save_word2vec_format(kv, path, binary=binary)
    back = load(path)
    assert back.source_format == ("word2vec-binary" if binary else "word2vec-text")
    same(kv, back)


def test_what_the_writers_write_the_readers_read(tmp_path, monkeypatch):
    # one limit for both sides: a word of _MAX_WORD bytes round-trips, a longer one is refused
    # before anything is written (with the real limit, 128 MiB; shrunk here to keep the test fast)
    from w2v.corpus import DEFAULT_CHUNK_CHARS

    # the tokenizer cuts a run of non-space after 64 chunks: its longest token (4 bytes a character)
    assert word2vec_read.MAX_WORD >= 65 * DEFAULT_CHUNK_CHARS * 4
    monkeypatch.setattr(word2vec_read, "MAX_WORD", 4096)
    fits = make_kv(3, 2, words=["a", "é" * 2048, "b"])          # 4096 bytes
    for binary in (True, False):
        path = tmp_path / f"v{binary}.bin"
        save_word2vec_format(fits, path, binary=binary)
        same(fits, load(path))
    over = make_kv(3, 2, words=["a", "é" * 2048 + "x", "b"])     # 4097 bytes
    for binary in (True, False):
        path = tmp_path / f"over{binary}.bin"
        with pytest.raises(FormatError, match="longer than 4,096 bytes"):
            save_word2vec_format(over, path, binary=binary)
        assert not path.exists()
    # and the reader refuses the longer word rather than reading without end
    p = tmp_path / "long.bin"
    p.write_bytes(raw_binary(["a", "z" * 5000], np.ones((2, 2), np.float32)))
    assert "no space within 4096 bytes" in expect_format_error(p, binary=True)


def test_words_without_utf8_encoding_are_refused_before_writing(tmp_path):
    kv = make_kv(2, 2, words=["a", "b\ud800"])
    for fn in (lambda: save_word2vec_format(kv, tmp_path / "v.bin"),
               lambda: save_word2vec_format(kv, tmp_path / "v.txt", binary=False),
               lambda: save_native(kv, tmp_path / "nat")):
        with pytest.raises(FormatError, match="UTF-8"):
            fn()
    assert not os.listdir(tmp_path)


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


@pytest.mark.parametrize("field", ["1_0", "+10", "\u0661\u0660"])
@pytest.mark.parametrize("where", ["count", "dim"])
def test_header_numbers_must_be_ascii_digits(tmp_path, field, where):
    # int() reads "1_0" and "+10" as 10 (and non-ASCII digits): the header "1_0 2" loaded 10
    # vectors; the readers take only what the writers write, as for vocab.tsv counts
    kv = make_kv(10, 2)
    body = b"".join(w.encode() + b" " + " ".join("%.9g" % x for x in v).encode() + b"\n"
                    for w, v in zip(kv.index_to_key, kv.vectors.tolist()))
    header = f"{field} 2" if where == "count" else f"10 {field}"
    p = tmp_path / "h.txt"
    p.write_bytes(header.encode() + b"\n" + body)
    expect_format_error(p, match="bad header")
    with pytest.raises(FormatError, match="bad header"):
        inspect(p)
    p.write_bytes(b"10 2\n" + body)
    same(kv, load(p))


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


# --------------------------------------------------------------------------- in-place conversion
def _cli(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _one_line_error(res, *fragments):
    assert res.exit_code == 1, res.output
    out = res.output.strip()
    assert "Traceback" not in out and len(out.splitlines()) == 1 and out.startswith("Error:"), out
    for frag in fragments:
        assert frag in out, out


@pytest.mark.parametrize("name,to", [("v.bin", None), ("v.txt", None), ("v.bin", "text"), ("nat", None)])
def test_convert_refuses_to_write_over_its_input(tmp_path, name, to):
    # `w2v convert a.bin a.bin --to text` replaced the binary file by text; --limit truncated it
    kv = make_kv(6, 3)
    path = tmp_path / name
    save(kv, path)
    snapshot = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    link = tmp_path / "link"
    link.symlink_to(path)
    for out in (path, str(path) + os.sep if path.is_dir() else path, link, tmp_path / "." / name):
        args = ["convert", path, out, "--limit", "2"] + (["--to", to] if to else [])
        _one_line_error(_cli(args), "is the input")
    if not path.is_dir():
        hard = tmp_path / "hard"
        os.link(path, hard)
        _one_line_error(_cli(["convert", path, hard]), "is the input")
        os.unlink(hard)
    os.unlink(link)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == snapshot
    same(kv, load(path))
    res = _cli(["convert", path, tmp_path / "copy.bin"])        # another path is fine
    assert res.exit_code == 0, res.output


def test_load_passes_unicode_errors(tmp_path):
    """w2v.load / KeyedVectors.load take the unicode_errors their error message tells users to pass."""
    p = tmp_path / "bad.bin"
    p.write_bytes(raw_binary(["a", "b"], np.ones((2, 2), np.float32)).replace(b"\nb ", b"\nb\xe6\x97 "))
    with pytest.raises(FormatError, match="unicode_errors='replace'"):
        load(p)
    assert load(p, unicode_errors="replace").index_to_key == ["a", "b\ufffd"]
    assert KeyedVectors.load(p, unicode_errors="ignore").index_to_key == ["a", "b"]
    text = tmp_path / "bad.txt"
    text.write_bytes(b"2 2\na 1 2\nb\xe6\x97 3 4\n")
    assert load(text, unicode_errors="replace").index_to_key == ["a", "b\ufffd"]
    for bad in ("nonsense", None, 3):
        with pytest.raises(ParameterError, match="unicode_errors"):
            load(p, unicode_errors=bad)


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
    code = ("import sys, numpy as np; from w2v.vectors import KeyedVectors, save_native; "
            "save_native(KeyedVectors(['x'], np.ones((1, 2), np.float32)), sys.argv[1])")
    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run(prefix + [sys.executable, "-c", code, str(path)], check=True, cwd=root, env=env, timeout=120)
    assert os.listdir(tmp_path) == ["m"]
    assert load(path).index_to_key == ["x"]


def test_duplicate_words_in_a_text_file_keep_first_like_gensim(tmp_path):
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    rng = np.random.default_rng(4)
    words = ["a", "b", "a", "c", "b"]
    vecs = rng.standard_normal((5, 3)).astype(np.float32)
    p = tmp_path / "dup.txt"
    p.write_text("5 3\n" + "".join(w + " " + " ".join("%.9g" % x for x in v) + "\n" for w, v in zip(words, vecs)))
    ours = load(p)
    theirs = gensim_kv.KeyedVectors.load_word2vec_format(str(p), binary=False)
    assert ours.index_to_key == [w for w in theirs.index_to_key if w is not None] == ["a", "b", "c"]
    assert np.array_equal(ours.vectors, vecs[[0, 1, 3]])
    assert np.array_equal(ours.vectors, theirs.vectors[:3])
    assert [ours.get_index(w) for w in "abc"] == [0, 1, 2]


def test_an_empty_word_in_a_binary_file_is_a_format_error(tmp_path):
    # w2v never writes one (the writers refuse empty words); a record starting with its
    # space is a corrupt or foreign file
    vecs = np.arange(4, dtype=np.float32).reshape(2, 2)
    p = tmp_path / "empty-word.bin"
    p.write_bytes(b"2 2\na " + vecs[0].astype("<f4").tobytes() + b"\n " + vecs[1].astype("<f4").tobytes() + b"\n")
    with pytest.raises(FormatError, match="empty word in record 2"):
        load(p, binary=True)


def test_native_limit_keeps_exactly_that_many_words(tmp_path):
    kv = make_kv(5, 3)
    save_native(kv, tmp_path / "nat")
    for limit in range(1, 7):
        back = load(tmp_path / "nat", limit=limit)
        n = min(limit, len(kv))
        assert back.index_to_key == kv.index_to_key[:n] and np.array_equal(back.vectors, kv.vectors[:n])
        assert back.counts.tolist() == kv.counts[:n].tolist()


# --------------------------------------------------------------------------- more readers and writers
@pytest.mark.parametrize("limit", [0, -1, True, 1.5, "2"])
def test_limit_must_be_a_positive_integer(tmp_path, limit):
    # True is an int to Python: it read one vector instead of being refused
    save_word2vec_format(make_kv(), tmp_path / "v.bin")
    save_native(make_kv(), tmp_path / "nat")
    for path in (tmp_path / "v.bin", tmp_path / "nat"):
        with pytest.raises(ParameterError, match="limit"):
            load(path, limit=limit)
    with pytest.raises(ParameterError, match="limit"):
        load_word2vec_format(tmp_path / "v.bin", limit=limit)
    assert len(load(tmp_path / "v.bin", limit=np.int64(2))) == 2    # any Integral is fine


@pytest.mark.parametrize("name,source_format,opener", [
    ("V.BIN.GZ", "word2vec-binary", gzip.open), ("V.Txt.Xz", "word2vec-text", lzma.open),
    ("V.VEC", "word2vec-text", open),
])
def test_suffixes_are_case_insensitive(tmp_path, name, source_format, opener):
    """The format and the compression are chosen by suffix in any case, saving and loading."""
    kv = make_kv()
    path = tmp_path / name
    save(kv, path)
    assert path.is_file()
    with opener(path, "rb") as f:
        assert f.read().startswith(b"5 4\n")
    back = load(path)
    same(kv, back)
    assert back.source_format == source_format


@pytest.mark.parametrize("fmt,source_format", [("bin", "word2vec-binary"), ("binary", "word2vec-binary"),
                                               ("text", "word2vec-text"), ("txt", "word2vec-text"),
                                               ("vec", "word2vec-text"), ("native", "native")])
def test_save_format_names(tmp_path, fmt, source_format):
    # the format given overrides the suffix
    kv = make_kv()
    save(kv, tmp_path / "out", format=fmt)
    back = load(tmp_path / "out")
    same(kv, back)
    assert back.source_format == source_format


def test_gzip_output_does_not_depend_on_the_time(tmp_path):
    # the gzip header's MTIME field (bytes 4-7, RFC 1952) is 0: the same vectors give the same file
    save_word2vec_format(make_kv(), tmp_path / "v.bin.gz")
    data = (tmp_path / "v.bin.gz").read_bytes()
    assert data[:2] == b"\x1f\x8b" and data[4:8] == b"\0\0\0\0"


@pytest.mark.parametrize("block", [1, 5, 64])
def test_reading_in_small_blocks_and_growing_the_matrix(tmp_path, monkeypatch, block):
    """Records and lines cut across read blocks, and a matrix that must grow, read the same;
    byte offsets in error messages stay absolute (counted from the start of the file)."""
    monkeypatch.setattr(word2vec_read, "_BLOCK", block)
    monkeypatch.setattr(word2vec_read, "_binary_capacity", lambda path, count, dim: 1)
    kv = make_kv(7, 3)
    for name, binary in (("v.bin", True), ("v.txt", False), ("v.bin.gz", True)):
        save_word2vec_format(kv, tmp_path / name, binary=binary)
        for b in (binary, None):
            same(kv, load_word2vec_format(tmp_path / name, binary=b))
    vecs = np.ones((4, 2), np.float32)
    vecs[3, 1] = np.nan
    data = raw_binary(["a", "b", "c", "d"], vecs)
    (tmp_path / "nan.bin").write_bytes(data)
    expect_format_error(tmp_path / "nan.bin", match=f"byte offset {data.index(b'd ')}:")
    empty = data.replace(b"\nc ", b"\n ")
    at = empty.index(b"\n ") + 1
    (tmp_path / "empty.bin").write_bytes(empty)
    expect_format_error(tmp_path / "empty.bin", binary=True, match=f"byte offset {at}: empty word in record 3")
    text = b"2 2\na 1 2\nb 3 4\n\n  c 5 6\n"
    (tmp_path / "after.txt").write_bytes(text)
    expect_format_error(tmp_path / "after.txt", match=f"byte offset {text.index(b'c')}: data after")


def test_a_binary_file_whose_first_vector_is_zero_is_detected_as_binary(tmp_path):
    # zero bytes are valid UTF-8: the sniffer must not take a padding vector for text
    vecs = np.zeros((3, 4), np.float32)
    vecs[1:] = np.arange(8).reshape(2, 4) + 1
    p = tmp_path / "pad.bin"
    p.write_bytes(raw_binary(["<pad>", "a", "b"], vecs))
    back = load(p)
    assert back.source_format == "word2vec-binary" and back.index_to_key == ["<pad>", "a", "b"]
    assert np.array_equal(back.vectors, vecs)
    assert inspect(p)["format"] == "word2vec-binary"


@pytest.mark.parametrize("unicode_errors", ["strict", "replace"])
def test_a_binary_word_holding_a_newline_loads_as_gensim_loads_it(tmp_path, unicode_errors):
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    vecs = np.arange(6, dtype=np.float32).reshape(3, 2)
    p = tmp_path / "nl.bin"
    p.write_bytes(raw_binary(["x\ny", "z", "é"], vecs))
    back = load(p, binary=True, unicode_errors=unicode_errors)
    theirs = gensim_kv.KeyedVectors.load_word2vec_format(str(p), binary=True)
    assert back.index_to_key == list(theirs.index_to_key) == ["x\ny", "z", "é"]
    assert np.array_equal(back.vectors, vecs)


def test_text_errors_past_the_first_batch_name_the_right_line(tmp_path):
    # lines are parsed 4096 at a time: the line numbers of later batches must not drift
    n = 5000
    lines = [f"w{i} {i} 1" for i in range(n)]
    lines[4500] = "w4500 1 x"
    p = tmp_path / "long.txt"
    p.write_text(f"{n} 2\n" + "\n".join(lines) + "\n")
    expect_format_error(p, binary=False, match="line 4502: cannot parse 'x'")
    lines[4500] = "w4500 1 2 3"
    p.write_text(f"{n} 2\n" + "\n".join(lines) + "\n")
    expect_format_error(p, binary=False, match="line 4502: expected a word and 2 values")


@pytest.mark.parametrize("name", ["nat", "v.bin", "v.txt"])
def test_an_empty_model_round_trips(tmp_path, name):
    # numpy cannot memory-map no bytes: an empty native model is read instead
    kv = KeyedVectors([], np.empty((0, 3), np.float32))
    save(kv, tmp_path / name)
    for mmap in (True, False):
        back = load(tmp_path / name, mmap=mmap)
        assert len(back) == 0 and back.vectors.shape == (0, 3)


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


@pytest.mark.parametrize("save, mode", [(save_native, 0o750), (save_word2vec_format, 0o640)])
def test_a_saved_model_gets_the_mode_mkdir_or_open_would_give(tmp_path, save, mode):
    # made by mkdtemp (0700) or mkstemp (0600): once renamed in, a native directory gets
    # 0777 and a vectors file 0666, less the umask
    old = os.umask(0o027)
    try:
        save(make_kv(), tmp_path / "m")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "m").st_mode) == mode


# --------------------------------------------------------------------------- atomic writes
@pytest.mark.parametrize("exc", [KeyboardInterrupt, RuntimeError])
def test_an_interrupted_atomic_write_leaves_the_old_file_and_no_temporary(tmp_path, exc):
    path = tmp_path / "v.bin"
    path.write_bytes(b"old")
    with pytest.raises(exc):
        with atomic_write(path) as fh:
            fh.write(b"new, half written")
            # the data go to a hidden file next to the target (same file system: the rename is atomic)
            (tmp,) = set(os.listdir(tmp_path)) - {"v.bin"}
            assert tmp.startswith(".v.bin.") and tmp.endswith(".tmp")
            raise exc
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["v.bin"]


def _record_syncs(monkeypatch):
    """Record every fsync (the path of the descriptor, and a file's size then) and rename."""
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc/self/fd to name the descriptors fsynced")
    events = []
    real = {name: getattr(os, name) for name in ("fsync", "rename", "replace")}

    def fsync(fd):
        st = os.fstat(fd)
        size = st.st_size if stat.S_ISREG(st.st_mode) else None
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}"), size))
        return real["fsync"](fd)

    def renamer(name):
        def rename(src, dst, **kw):
            events.append((name, os.fspath(src), os.fspath(dst)))
            return real[name](src, dst, **kw)
        return rename

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "rename", renamer("rename"))
    monkeypatch.setattr(os, "replace", renamer("replace"))
    return events


def _fsynced(events, path, after=-1, before=None):
    """Index of the first fsync of ``path`` between the events ``after`` and ``before``, and the size then."""
    for i, event in enumerate(events[:before]):
        if i > after and event[0] == "fsync" and event[1] == str(path):
            return i, event[2]
    raise AssertionError(f"{path} was not fsynced between events {after} and {before}: {events}")


def test_a_native_save_is_on_disk_before_and_after_its_rename(tmp_path, monkeypatch):
    # each file whole (flushed, then fsynced), then the temporary directory (its entries), all
    # before the rename into place; the parent directory (the rename) after it. A crash after
    # the save returned must not find a model with empty or missing files, or the old one
    tmp_path = Path(os.path.realpath(tmp_path))
    path = tmp_path / "m"
    save_native(make_kv(seed=1), path)                  # one to replace
    fds = len(os.listdir("/proc/self/fd"))
    events = _record_syncs(monkeypatch)
    save_native(make_kv(50, 8, seed=2), path)
    monkeypatch.undo()
    (into,) = [i for i, e in enumerate(events) if e[0] != "fsync" and e[2] == str(path)]
    tmp = events[into][1]
    synced_dir, _ = _fsynced(events, tmp, before=into)
    for name in ("vectors.npy", "vocab.tsv", "meta.json"):
        _, size = _fsynced(events, os.path.join(tmp, name), before=synced_dir)
        assert size == os.path.getsize(path / name), name
    _fsynced(events, tmp_path, after=into)
    assert len(os.listdir("/proc/self/fd")) == fds        # the directories' descriptors are closed


def test_an_atomic_write_is_on_disk_before_and_after_its_rename(tmp_path, monkeypatch):
    # the temporary file whole before it is renamed over the path, the directory after (a new
    # file was not there after a crash, though the save had returned); write_array (the arrays
    # of a full model) fsyncs its whole file too
    tmp_path = Path(os.path.realpath(tmp_path))
    events = _record_syncs(monkeypatch)
    for name in ("v.bin", "v.txt.gz"):
        save(make_kv(50, 8), tmp_path / name)
        (into,) = [i for i, e in enumerate(events) if e[0] != "fsync" and e[2] == str(tmp_path / name)]
        _, size = _fsynced(events, events[into][1], before=into)
        assert size == os.path.getsize(tmp_path / name)
        _fsynced(events, tmp_path, after=into)
    formats.write_array(str(tmp_path / "a.npy"), np.arange(100.0))
    _, size = _fsynced(events, tmp_path / "a.npy")
    monkeypatch.undo()
    assert size == os.path.getsize(tmp_path / "a.npy")
    assert np.array_equal(np.load(tmp_path / "a.npy"), np.arange(100.0))


def test_a_directory_that_cannot_be_fsynced_does_not_fail_a_save(tmp_path, monkeypatch):
    # some file systems refuse to fsync a directory (EINVAL), and a parent this process may not
    # read (chmod 333) cannot be opened for it: the files are still fsynced and the save goes on
    real_fsync, real_open = os.fsync, os.open

    def fsync(fd):
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "Invalid argument")
        return real_fsync(fd)

    def open_but_the_parent(p, flags, *args, **kw):
        if os.path.realpath(p) == os.path.realpath(tmp_path / "open"):
            raise PermissionError(errno.EACCES, "Permission denied", p)
        return real_open(p, flags, *args, **kw)

    for name, fake in (("fsync", fsync), ("open", open_but_the_parent)):
        parent = tmp_path / name
        parent.mkdir()
        monkeypatch.setattr(os, name, fake)
        for seed in (1, 2):                              # a new file or model, then one replaced
            save_native(make_kv(seed=seed), parent / "m")
            save_word2vec_format(make_kv(seed=seed), parent / "v.bin")
            same(make_kv(seed=seed), load(parent / "m"))
            same(make_kv(seed=seed), load(parent / "v.bin"))
        monkeypatch.undo()
        assert sorted(os.listdir(parent)) == ["m", "v.bin"]


def test_atomic_write_text_encodes(tmp_path):
    atomic_write_text(tmp_path / "a.txt", "naïve 日本語\n")
    assert (tmp_path / "a.txt").read_bytes() == "naïve 日本語\n".encode("utf-8")
    atomic_write_text(tmp_path / "b.txt", "naïve", encoding="utf-16")
    assert (tmp_path / "b.txt").read_bytes() == "naïve".encode("utf-16")


def _open_fifo(path):
    """A named pipe at ``path`` with a read end (returned) and a write end kept open (so reads wait)."""
    os.mkfifo(path)
    r = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    w = os.open(path, os.O_WRONLY)
    os.set_blocking(r, True)
    return r, w


def test_a_named_pipe_is_written_through_not_replaced(tmp_path):
    # renaming over a pipe (or a device) would replace it with a plain file that nobody reads
    kv = make_kv()
    fifo = tmp_path / "pipe.bin"
    r, w = _open_fifo(fifo)
    try:
        save_word2vec_format(kv, fifo)            # small enough for the pipe's buffer
        os.close(w)
        data = b""
        while chunk := os.read(r, 1 << 16):
            data += chunk
    finally:
        os.close(r)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert data == raw_binary(kv.index_to_key, kv.vectors)
    assert os.listdir(tmp_path) == ["pipe.bin"]


def test_a_pipe_closed_by_its_reader_is_an_output_error(tmp_path):
    # `w2v convert ... -o pipe` with a reader that quits (head): a typed error, not a traceback
    kv = make_kv(2000, 50)                        # 400 KB: more than a pipe holds
    fifo = tmp_path / "pipe.bin"
    r, w = _open_fifo(fifo)

    def read_a_little_and_quit():
        os.read(r, 1)
        os.close(r)

    reader = threading.Thread(target=read_a_little_and_quit, daemon=True)
    reader.start()
    try:
        with pytest.raises(OutputError, match="pipe.bin"):
            save_word2vec_format(kv, fifo)
    finally:
        reader.join(10)
        os.close(w)
