"""word2vec.c's binary and text files: round trips, gensim interop, corrupt and truncated files, long words."""
import bz2
import gzip
import lzma
import os
import time

import numpy as np
import pytest

import w2v.formats.word2vec_binary as word2vec_binary
import w2v.formats.word2vec_stream as word2vec_stream
from w2v.errors import FormatError, ParameterError
from w2v.formats import inspect
from w2v.vectors.keyed import KeyedVectors, load, load_word2vec_format, save, save_native, save_word2vec_format

from ..support.formats_cases import WORDS, deny_open, expect_format_error, make_kv, raw_binary, run_cli, same


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
    res = run_cli(["convert", theirs, tmp_path / "ours.bin"])
    assert res.exit_code == 0, res.output
    back = gensim_kv.KeyedVectors.load_word2vec_format(str(tmp_path / "ours.bin"), binary=True)
    assert list(back.index_to_key) == words and np.array_equal(back.vectors, vecs)


# --------------------------------------------------------------------------- writing errors
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


# --------------------------------------------------------------------------- unreadable files
def test_an_unreadable_word2vec_file_is_a_format_error(tmp_path, monkeypatch):
    save_word2vec_format(make_kv(), tmp_path / "v.bin")
    deny_open(monkeypatch, "v.bin")
    expect_format_error(tmp_path / "v.bin", match="cannot read: Permission denied")
    with pytest.raises(FormatError, match="cannot read"):
        inspect(tmp_path / "v.bin")
    with pytest.raises(FileNotFoundError):       # a missing file stays FileNotFoundError
        load(tmp_path / "nope.bin")


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
    from w2v.text.scanning import DEFAULT_CHUNK_CHARS

    # the tokenizer cuts a run of non-space after 64 chunks: its longest token (4 bytes a character)
    assert word2vec_stream.MAX_WORD >= 65 * DEFAULT_CHUNK_CHARS * 4
    monkeypatch.setattr(word2vec_stream, "MAX_WORD", 4096)
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


# --------------------------------------------------------------------------- more readers and writers
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


def test_gzip_output_does_not_depend_on_the_time(tmp_path):
    # the gzip header's MTIME field (bytes 4-7, RFC 1952) is 0: the same vectors give the same file
    save_word2vec_format(make_kv(), tmp_path / "v.bin.gz")
    data = (tmp_path / "v.bin.gz").read_bytes()
    assert data[:2] == b"\x1f\x8b" and data[4:8] == b"\0\0\0\0"


@pytest.mark.parametrize("block", [1, 5, 64])
def test_reading_in_small_blocks_and_growing_the_matrix(tmp_path, monkeypatch, block):
    """Records and lines cut across read blocks, and a matrix that must grow, read the same;
    byte offsets in error messages stay absolute (counted from the start of the file)."""
    monkeypatch.setattr(word2vec_stream, "_BLOCK", block)
    monkeypatch.setattr(word2vec_binary, "_binary_capacity", lambda path, count, dim: 1)
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


# --------------------------------------------------------------------------- bounded memory
def test_a_small_compressed_text_file_declaring_a_huge_dim_fails_fast_in_bounded_memory(tmp_path):
    # a 306 KB .txt.gz whose header declared dim 268,435,455 (vectors of just under 1 GiB) read its
    # 300 MB first line whole and peaked at 2.2 GB before its FormatError; here 160 MiB in 200 KB
    # (gzip members one after the other read as one stream)
    from ..support.model_loads import load_in_child

    path = tmp_path / "v.txt.gz"
    zeros = gzip.compress(b" 0" * (1 << 20), compresslevel=9)
    path.write_bytes(gzip.compress(b"1 268435455\nw") + zeros * 80 + gzip.compress(b"\n"))
    assert path.stat().st_size < 300_000
    report = load_in_child([("bomb", path, "load"), ("bomb", path, "inspect")])
    for r in report["results"]:
        assert r["outcome"] == "FormatError" and "dim 268,435,455" in r["message"], r
        # what the format sniffer reads (a block of 8 MiB and a window of 4 MiB), not the line
        assert r["peak_mb"] - report["baseline_mb"] < 100, (r, report["baseline_mb"])


def test_text_files_have_at_most_max_text_dim_dimensions(tmp_path):
    top = word2vec_stream.MAX_TEXT_DIM
    assert top == 1 << 20
    p = tmp_path / "v.txt"
    p.write_bytes(f"0 {top}\n".encode())
    assert load(p).vectors.shape == (0, top)
    p.write_bytes(f"0 {top + 1}\n".encode())
    assert "more than the 1,048,576 the text format allows" in expect_format_error(p)
    with pytest.raises(FormatError, match="text format allows"):
        inspect(p)
    # the writer refuses what the reader would: text of more dimensions; binary takes them
    kv = KeyedVectors(["a"], np.ones((1, top + 1), np.float32))
    with pytest.raises(FormatError, match="save them as binary"):
        save_word2vec_format(kv, tmp_path / "w.txt", binary=False)
    assert not (tmp_path / "w.txt").exists()
    save_word2vec_format(kv, tmp_path / "w.bin")
    assert load(tmp_path / "w.bin").vectors.shape == (1, top + 1)


def test_lines_longer_than_a_read_block_are_read_whole(tmp_path):
    # a line spanning several 8 MiB blocks is gathered block by block; offsets stay exact after it
    kv = make_kv(3, 2, words=["a", "y" * (20 << 20), "b"])
    path = tmp_path / "v.txt"
    save_word2vec_format(kv, path, binary=False)
    same(kv, load(path))
    size = path.stat().st_size
    with open(path, "ab") as f:
        f.write(b"\n  junk\n")
    msg = expect_format_error(path)
    assert f"byte offset {size + 3}: data after the 3 vectors" in msg, msg
