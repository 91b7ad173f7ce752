"""KeyedVectors built and loaded as gensim 4.4 builds and loads them, checked against gensim on the same input:
the constructor ``KeyedVectors(vector_size, count=0, dtype=np.float32, mapfile_path=None)`` and its reserved
rows, other dtypes, the per-word counts ``load_word2vec_format`` gives, its ``datatype``, and ``repr``.  Where
w2v differs on purpose (gensim bugs), the test says so."""
import inspect
import warnings

import numpy as np
import pytest

import w2v
from w2v.errors import FormatError, ParameterError
from w2v.vectors.keyed import KeyedVectors, load, load_word2vec_format, save_native, save_word2vec_format

gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
GKV = gensim_kv.KeyedVectors

WORDS = [f"w{i}" for i in range(30)]


def vectors(n=30, dim=6, seed=0):
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


def assert_same(ours, theirs):
    assert list(ours.index_to_key) == list(theirs.index_to_key)
    assert ours.key_to_index == theirs.key_to_index
    assert ours.vectors.dtype == theirs.vectors.dtype
    np.testing.assert_array_equal(ours.vectors, theirs.vectors)


def quietly(call, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # gensim warns that growing one vector at a time is slow
        return call(*args)


# --------------------------------------------------------------------------- the constructor
@pytest.mark.parametrize("args,kwargs", [((6,), {}), ((), {"vector_size": 6}), ((6, 0), {}),
                                         ((6,), {"count": 0, "dtype": np.float32, "mapfile_path": None}),
                                         ((6, 0, np.float32, None), {})])
def test_gensims_constructor_gives_empty_vectors_that_add_vectors_fills(args, kwargs):
    ours, theirs = KeyedVectors(*args, **kwargs), GKV(*args, **kwargs)
    assert len(ours) == len(theirs) == 0 and ours.vector_size == theirs.vector_size == 6
    assert ours.vectors.shape == theirs.vectors.shape == (0, 6) and ours.mapfile_path is None
    for kv in (ours, theirs):
        kv.add_vectors(WORDS, vectors())
    assert_same(ours, theirs)
    assert [w for w, _ in ours.most_similar("w3")] == [w for w, _ in theirs.most_similar("w3")]


def test_reserved_rows_are_filled_by_add_vector_as_gensim_fills_them():
    ours, theirs = KeyedVectors(6, count=3), GKV(6, count=3)
    for kv in (ours, theirs):
        assert len(kv) == 3 and kv.index_to_key == [None] * 3 and kv.key_to_index == {} and kv.next_index == 0
        np.testing.assert_array_equal(kv.vectors, np.zeros((3, 6), np.float32))
        assert "w0" not in kv
    rows = vectors()
    for i, word in enumerate(WORDS[:5]):       # three into the reserved rows, then two appended
        assert quietly(ours.add_vector, word, rows[i]) == quietly(theirs.add_vector, word, rows[i]) == i
        assert ours.next_index == theirs.next_index == i + 1
    assert_same(ours, theirs)
    assert ours.add_vector("w1", rows[9]) == 1                 # already there: kept (gensim returns 5, past the end)
    np.testing.assert_array_equal(ours["w1"], rows[1])


def test_add_vectors_fills_the_reserved_rows_where_gensim_leaves_them_empty():
    ours, theirs = KeyedVectors(6, count=3), GKV(6, count=3)
    ours.add_vectors(WORDS[:2], vectors()[:2])
    theirs.add_vectors(WORDS[:2], vectors()[:2])
    assert theirs.index_to_key == [None, None, None, "w0", "w1"]            # gensim: appended after them
    assert ours.index_to_key == ["w0", "w1", None] and ours.next_index == 2  # w2v: they take the reserved rows
    ours.add_vectors(WORDS[2:5], vectors()[2:5])
    assert ours.index_to_key == WORDS[:5] and ours.key_to_index == {w: i for i, w in enumerate(WORDS[:5])}
    np.testing.assert_array_equal(ours.vectors, vectors()[:5])


def test_rows_reserved_and_still_empty_are_not_saved_where_gensim_writes_the_word_none(tmp_path):
    kv = KeyedVectors(6, count=2)
    kv.add_vector("w0", vectors()[0])
    for save in (lambda p: kv.save_word2vec_format(p), lambda p: kv.save(p),
                 lambda p: save_word2vec_format(kv, p, binary=True), lambda p: save_native(kv, p)):
        with pytest.raises(ParameterError, match="row 1 is reserved"):
            save(tmp_path / "v")
        assert not (tmp_path / "v").exists()
    kv.add_vector("w1", vectors()[1])
    kv.save_word2vec_format(tmp_path / "v.txt")
    assert KeyedVectors.load_word2vec_format(tmp_path / "v.txt").index_to_key == ["w0", "w1"]


def test_w2vs_own_form_still_parses_and_the_signature_is_gensims():
    rows = vectors(3)
    kv = KeyedVectors(WORDS[:3], rows, counts=[5, 3, 1], settings={"dim": 6})
    assert kv.index_to_key == WORDS[:3] and kv.counts.tolist() == [5, 3, 1] and kv.settings == {"dim": 6}
    np.testing.assert_array_equal(kv.vectors, rows)
    assert KeyedVectors(WORDS[:3], rows.astype(np.float64)).vectors.dtype == np.float32     # cast, as before
    assert KeyedVectors(WORDS[:3], rows, dtype=np.float64).vectors.dtype == np.float64
    params = inspect.signature(KeyedVectors).parameters
    assert list(params)[:4] == ["vector_size", "count", "dtype", "mapfile_path"]
    assert params["dtype"].default is np.float32 and params["counts"].kind is inspect.Parameter.KEYWORD_ONLY
    for args, kwargs, match in [((WORDS[:3],), {}, "vectors must be given"),
                                ((6,), {"counts": [1]}, "counts go with the words"),
                                ((2.5,), {}, "vector_size must be a positive integer"),
                                ((0,), {}, "vector_size must be a positive integer"),
                                ((6,), {"count": -1}, "count must be a non-negative integer"),
                                ((6, rows), {}, "count must be a non-negative integer"),
                                ((WORDS[:3], rows, [5, 3, 1]), {}, "counts are keyword-only"),
                                (("abc", rows), {}, "not a str"),
                                ((object(), rows), {}, "a vector size .* or the words")]:
        with pytest.raises(ParameterError, match=match):
            KeyedVectors(*args, **kwargs)


# --------------------------------------------------------------------------- dtype
@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_another_dtype_is_kept_as_gensim_keeps_it(dtype):
    ours, theirs = KeyedVectors(6, dtype=dtype), GKV(6, dtype=dtype)
    for kv in (ours, theirs):
        kv.add_vectors(WORDS, vectors())
    assert_same(ours, theirs)
    for kv in (ours, theirs):
        kv.add_vectors(["extra"], vectors(1, seed=9))
        kv["w2"] = vectors(1, seed=8)[0]
    assert_same(ours, theirs)
    assert ours.get_normed_vectors().dtype == ours.get_vector("w1", norm=True).dtype == dtype
    assert ours.lookup([]).dtype == dtype
    theirs_answers = theirs.most_similar("w3", topn=5)
    ours_answers = ours.most_similar("w3", topn=5)
    assert [w for w, _ in ours_answers] == [w for w, _ in theirs_answers]
    np.testing.assert_allclose([s for _, s in ours_answers], [s for _, s in theirs_answers],
                               rtol=2e-3 if dtype == np.float16 else 1e-12)
    ours.vectors = vectors(len(ours), seed=4)          # assigned values are cast to the vectors' type
    assert ours.vectors.dtype == dtype
    for kv in (ours, KeyedVectors(3, count=2, dtype=dtype)):
        kv.add_vector("more", np.ones(kv.vector_size))
        assert kv.vectors.dtype == dtype


def test_a_dtype_w2v_cannot_query_is_refused_where_gensim_takes_it():
    assert GKV(3, dtype=np.int32).vectors.dtype == np.int32
    for dtype in (np.int32, np.complex64, None, "nonsense"):
        with pytest.raises(ParameterError, match="dtype must be float32 .*float16 or float64"):
            KeyedVectors(3, dtype=dtype)


def test_a_value_beyond_float16_is_refused_where_gensim_makes_it_infinite():
    theirs, ours = GKV(2, dtype=np.float16), KeyedVectors(2, dtype=np.float16)
    with np.errstate(over="ignore"):
        theirs.add_vectors(["a"], np.array([[1e5, 1]]))
    assert np.isinf(theirs["a"][0])
    with pytest.raises(ParameterError, match="beyond the range of float16"):
        ours.add_vectors(["a"], np.array([[1e5, 1]]))
    assert len(ours) == 0


def test_float64_vectors_round_trip_through_text_and_are_rounded_where_the_format_holds_float32(tmp_path):
    kv = KeyedVectors(WORDS[:3], vectors(3).astype(np.float64) / 3, dtype=np.float64)
    kv.save_word2vec_format(tmp_path / "v.txt")
    back = KeyedVectors.load_word2vec_format(tmp_path / "v.txt", datatype=np.float64)
    np.testing.assert_array_equal(back.vectors, kv.vectors)
    np.testing.assert_array_equal(GKV.load_word2vec_format(str(tmp_path / "v.txt"), datatype=np.float64).vectors,
                                  kv.vectors)
    kv.save_word2vec_format(tmp_path / "v.bin", binary=True)
    kv.save(tmp_path / "native")
    for path in ("v.bin", "native"):
        back = w2v.load(tmp_path / path)
        assert back.vectors.dtype == np.float32
        np.testing.assert_array_equal(back.vectors, kv.vectors.astype(np.float32))
    huge = KeyedVectors(["a"], [[1e300, 0]], dtype=np.float64)
    for save in (lambda p: huge.save(p), lambda p: huge.save_word2vec_format(p, binary=True)):
        with pytest.raises(FormatError, match="cannot save.*'a'"):
            save(tmp_path / "huge")


# --------------------------------------------------------------------------- what load_word2vec_format gives
@pytest.fixture
def word2vec_files(tmp_path):
    g = GKV(6)
    g.add_vectors(WORDS, vectors())
    g.save_word2vec_format(str(tmp_path / "v.bin"), binary=True)
    g.save_word2vec_format(str(tmp_path / "v.txt"))
    rows = "".join(f"{w} 1 2 3 4 5 {i}\n" for i, w in enumerate(["a", "b", "a", "c", "b", "d"]))
    (tmp_path / "dup.txt").write_text(f"6 6\n{rows}")
    return tmp_path


@pytest.mark.parametrize("name,options", [("v.bin", {"binary": True}), ("v.txt", {}), ("v.txt", {"limit": 7}),
                                          ("dup.txt", {}), ("dup.txt", {"limit": 4})])
def test_every_loaded_word_has_gensims_count(word2vec_files, name, options):
    path = word2vec_files / name
    theirs = GKV.load_word2vec_format(str(path), **options)
    ours = KeyedVectors.load_word2vec_format(path, **options)
    n = len(ours)
    # gensim leaves None under the rows of duplicates it dropped (a bug): w2v has no such rows
    assert ours.index_to_key == theirs.index_to_key[:n] and set(theirs.index_to_key[n:]) <= {None}
    assert ours.counts.tolist() == theirs.expandos["count"][:n].tolist()
    for word in ours.index_to_key:
        assert ours.get_vecattr(word, "count") == theirs.get_vecattr(word, "count")
    keys = ours.index_to_key[::-2] + ["nope"]
    copied, theirs_copied = (kv.vectors_for_all(keys, copy_vecattrs=True) for kv in (ours, theirs))
    assert copied.index_to_key == theirs_copied.index_to_key
    assert copied.counts.tolist() == theirs_copied.expandos["count"].tolist()


def test_loaded_counts_write_the_vocabulary_file_gensim_writes(word2vec_files):
    ours = KeyedVectors.load_word2vec_format(word2vec_files / "v.txt")
    theirs = GKV.load_word2vec_format(str(word2vec_files / "v.txt"))
    ours.save_word2vec_format(word2vec_files / "o.txt", fvocab=word2vec_files / "o.vocab")
    theirs.save_word2vec_format(str(word2vec_files / "t.txt"), fvocab=str(word2vec_files / "t.vocab"))
    assert (word2vec_files / "o.vocab").read_bytes() == (word2vec_files / "t.vocab").read_bytes()
    ours.sort_by_descending_frequency()
    assert ours.index_to_key == WORDS


def test_w2v_load_gives_the_counts_the_file_holds_none(word2vec_files):
    """``w2v.load`` is w2v's loader: a word2vec file holds no counts, and it makes none up."""
    for kv in (w2v.load(word2vec_files / "v.bin"), load(word2vec_files / "v.txt"),
               KeyedVectors.load(word2vec_files / "v.txt")):
        assert kv.counts is None and kv.expandos == {} and kv.index_to_key == WORDS
    assert load_word2vec_format(word2vec_files / "v.txt").counts.tolist() == list(range(30, 0, -1))  # gensim's


@pytest.mark.parametrize("datatype", [np.float16, np.float64])
@pytest.mark.parametrize("name", ["v.bin", "v.txt"])
def test_datatype_gives_gensims_vectors_and_answers(word2vec_files, name, datatype):
    path = word2vec_files / name
    theirs = GKV.load_word2vec_format(str(path), binary=name.endswith(".bin"), datatype=datatype)
    ours = KeyedVectors.load_word2vec_format(path, datatype=datatype)
    assert_same(ours, theirs)
    assert [w for w, _ in ours.most_similar("w0")] == [w for w, _ in theirs.most_similar("w0")]
    assert ours.counts.tolist() == theirs.expandos["count"].tolist()
    assert ours.vectors_for_all(["w1", "w2"]).vectors.dtype == datatype


def test_a_word_that_does_not_decode_is_caught_as_gensims_unicode_decode_error(tmp_path):
    (tmp_path / "v.txt").write_bytes(b"2 2\na 1 2\nb\xff 3 4\n")
    for loader in (GKV.load_word2vec_format, KeyedVectors.load_word2vec_format):
        try:
            loader(str(tmp_path / "v.txt"))
        except UnicodeDecodeError as exc:
            assert exc.object[exc.start:exc.end] == b"\xff"
        else:
            raise AssertionError(f"{loader} read a word that is not UTF-8")


# --------------------------------------------------------------------------- repr
def test_repr_is_gensims_str(word2vec_files):
    ours = KeyedVectors.load_word2vec_format(word2vec_files / "v.txt")
    theirs = GKV.load_word2vec_format(str(word2vec_files / "v.txt"))
    assert repr(ours) == str(ours) == str(theirs) == "KeyedVectors<vector_size=6, 30 keys>"
    assert repr(KeyedVectors(100, count=3)) == str(GKV(100, count=3)) == "KeyedVectors<vector_size=100, 3 keys>"

    class Sub(KeyedVectors):
        pass

    assert repr(Sub(4)) == "Sub<vector_size=4, 0 keys>"
