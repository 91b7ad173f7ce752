"""The word2vec codecs read what gensim's load_word2vec_format reads, as gensim reads it: a word that does not
decode is a UnicodeDecodeError (and a FormatError), trailing whitespace on text lines is stripped (binary
detection included), and ``datatype`` gives the matrix gensim gives."""
import pickle

import numpy as np
import pytest

from w2v.errors import FormatError, ParameterError, W2VError, WordDecodeError
from w2v.formats import read_vocab_counts, read_word2vec

from ..support.formats_cases import raw_binary

gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
GKV = gensim_kv.KeyedVectors

ROWS = np.array([[0.25, -1.5, 3.0], [1e-3, 2.0, -0.125], [7.0, 0.5, -2.75]], dtype=np.float32)


def text_file(path, lines, header=True):
    body = (f"{len(lines)} 3\n" if header else "").encode() + b"".join(lines)
    path.write_bytes(body)
    return path


# --------------------------------------------------------------------------- unicode_errors='strict'
def bad_files(tmp_path):
    """(path, gensim's binary, w2v's read arguments): a word that is not UTF-8 in each kind of file."""
    text = text_file(tmp_path / "bad.txt", [b"a 1 2 3\n", b"b\xff\xfeq 4 5 6\n"])
    binary = tmp_path / "bad.bin"
    binary.write_bytes(raw_binary(["a", "b"], ROWS[:2]).replace(b"\nb ", b"\nb\xe6\x97 "))
    headless = text_file(tmp_path / "bad.glove", [b"a\xc3 1 2 3\n", b"b 4 5 6\n"], header=False)
    return [(text, False, {}), (binary, True, {}), (headless, False, {"no_header": True})]


def test_a_word_that_does_not_decode_is_a_unicode_decode_error_as_in_gensim(tmp_path):
    for path, binary, options in bad_files(tmp_path):
        with pytest.raises(UnicodeDecodeError) as theirs:
            GKV.load_word2vec_format(str(path), binary=binary, **options)
        with pytest.raises(UnicodeDecodeError) as ours:
            read_word2vec(path, **options)
        err = ours.value
        assert isinstance(err, FormatError) and isinstance(err, W2VError) and isinstance(err, WordDecodeError)
        assert err.encoding == "utf-8" and err.reason == theirs.value.reason
        # the five arguments describe the failed decoding: the bytes of the word (or line) and where it fails
        with pytest.raises(UnicodeDecodeError) as again:
            err.object.decode("utf-8")
        assert (err.start, err.end) == (again.value.start, again.value.end)
        assert err.args == (err.encoding, err.object, err.start, err.end, err.reason)
        assert str(err).startswith(f"{path}: ") and "not valid UTF-8" in str(err)
        copy = pickle.loads(pickle.dumps(err))
        assert type(copy) is WordDecodeError and str(copy) == str(err) and copy.start == err.start


def test_a_vocabulary_line_that_does_not_decode_is_a_unicode_decode_error_as_in_gensim(tmp_path):
    (tmp_path / "v.txt").write_bytes(b"2 3\na 1 2 3\nb 4 5 6\n")
    (tmp_path / "vocab").write_bytes(b"a 5\nb\xff 3\n")
    with pytest.raises(UnicodeDecodeError):
        GKV.load_word2vec_format(str(tmp_path / "v.txt"), fvocab=str(tmp_path / "vocab"))
    with pytest.raises(WordDecodeError, match="line 2") as ours:
        read_vocab_counts(tmp_path / "vocab")
    assert isinstance(ours.value, UnicodeDecodeError) and ours.value.object == b"b\xff 3\n"


def test_the_error_handlers_still_decode_what_strict_refuses(tmp_path):
    for path, binary, options in bad_files(tmp_path):
        for handler in ("replace", "ignore"):
            theirs = GKV.load_word2vec_format(str(path), binary=binary, unicode_errors=handler, **options)
            ours = read_word2vec(path, unicode_errors=handler, **options)
            assert ours.words == theirs.index_to_key


# --------------------------------------------------------------------------- trailing whitespace
TRAILING = {"space": b"  ", "tab": b"\t", "cr": b"\r", "vt": b"\x0b", "ff": b"\x0c", "mixed": b" \t\x0c ",
            "no-break space": "\u00a0".encode(), "ideographic space": "\u3000".encode(),
            "line separator": "\u2028".encode(), "next line": "\u0085".encode()}


@pytest.mark.parametrize("name", sorted(TRAILING))
def test_trailing_whitespace_on_text_lines_is_stripped_as_gensim_strips_it(tmp_path, name):
    tail = TRAILING[name]
    # short lines: the whitespace lies within the first vector's worth of bytes, where binary detection looks
    lines = [b"%s %s%s\n" % (w, b" ".join(b"%g" % x for x in row), tail)
             for w, row in zip((b"a", b"b", b"c"), np.arange(9).reshape(3, 3) - 4)]
    path = text_file(tmp_path / "v.txt", lines)
    theirs = GKV.load_word2vec_format(str(path))                  # gensim's default: text
    for binary in (None, False):                                  # w2v's default detects the format
        ours = read_word2vec(path, binary=binary)
        assert ours.binary is False and ours.words == theirs.index_to_key == ["a", "b", "c"]
        np.testing.assert_array_equal(ours.vectors, theirs.vectors)
    headless = text_file(tmp_path / "v.glove", lines, header=False)
    ours = read_word2vec(headless, no_header=True)
    np.testing.assert_array_equal(ours.vectors, GKV.load_word2vec_format(str(headless), no_header=True).vectors)


# --------------------------------------------------------------------------- datatype
@pytest.mark.parametrize("datatype", [np.float16, np.float64, np.float32])
def test_datatype_gives_the_matrix_gensim_gives(tmp_path, datatype):
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(50)]
    vectors = (rng.standard_normal((50, 7)) * 10).astype(np.float32)
    g = GKV(7)
    g.add_vectors(words, vectors)
    g.save_word2vec_format(str(tmp_path / "v.bin"), binary=True)
    # text numbers with more digits than float32 holds: float64 keeps them, float16 rounds them once
    lines = "".join(f"{w} " + " ".join(repr(float(x) + 1e-9 * (i + 1)) for x in row) + "\n"
                    for i, (w, row) in enumerate(zip(words, vectors)))
    (tmp_path / "v.txt").write_text(f"50 7\n{lines}", encoding="utf-8")
    for name, binary in (("v.bin", True), ("v.txt", False)):
        theirs = GKV.load_word2vec_format(str(tmp_path / name), binary=binary, datatype=datatype)
        ours = read_word2vec(tmp_path / name, datatype=datatype)
        assert ours.vectors.dtype == theirs.vectors.dtype == datatype
        np.testing.assert_array_equal(ours.vectors, theirs.vectors)
        assert ours.vectors.flags.c_contiguous


def test_a_value_beyond_the_datatypes_range_is_refused_where_gensim_makes_it_infinite(tmp_path):
    text_file(tmp_path / "v.txt", [b"a 1 2 3\n", b"b 1 70000 3\n"])
    with np.errstate(over="ignore"):
        assert np.isinf(GKV.load_word2vec_format(str(tmp_path / "v.txt"), datatype=np.float16)["b"][1])
    with pytest.raises(FormatError, match=r"line 3: row 1 \(word 'b'\) has a value beyond the range of float16"):
        read_word2vec(tmp_path / "v.txt", datatype=np.float16)
    assert read_word2vec(tmp_path / "v.txt", datatype=np.float64).vectors[1, 1] == 70000
    (tmp_path / "v.bin").write_bytes(raw_binary(["a", "b"], np.array([[1, 2, 3], [1, 7e4, 3]], np.float32)))
    with pytest.raises(FormatError, match="byte offset .*'b'.* beyond the range of float16"):
        read_word2vec(tmp_path / "v.bin", datatype=np.float16)


@pytest.mark.parametrize("datatype", [np.int32, np.complex64, None, "nonsense", ">f4", bool])
def test_a_datatype_w2v_cannot_hold_is_a_parameter_error_naming_the_types_it_can(tmp_path, datatype):
    text_file(tmp_path / "v.txt", [b"a 1 2 3\n"])
    with pytest.raises(ParameterError, match="float32 .*float16 or float64"):
        read_word2vec(tmp_path / "v.txt", datatype=datatype)
