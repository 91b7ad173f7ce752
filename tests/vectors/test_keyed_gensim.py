"""The KeyedVectors methods w2v takes from gensim 4.4, each checked against gensim on the same vectors:
ranks, per-word attributes, adding and changing vectors, clipped and indexed most_similar, and Word
Mover's Distance.  Where w2v differs on purpose (gensim bugs), the test says so."""
import sys
import warnings

import numpy as np
import pytest

from w2v.errors import ParameterError, UnknownWordError, W2VError
from w2v.vectors.keyed import KeyedVectors

gensim_kv = pytest.importorskip("gensim.models.keyedvectors")


def make_pair(n=300, dim=16, seed=0, counts=None):
    """Our KeyedVectors and gensim's, holding the same words, vectors and counts."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(n)]
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    kv = KeyedVectors(words, vectors, counts=counts)
    g = gensim_kv.KeyedVectors(dim)
    g.add_vectors(words, vectors.copy())
    if counts is not None:
        for w, c in zip(words, counts):
            g.set_vecattr(w, "count", int(c))
    return kv, g


def assert_same_answers(ours, theirs, rtol=1e-5):
    assert [w for w, _ in ours] == [w for w, _ in theirs]
    np.testing.assert_allclose([s for _, s in ours], [s for _, s in theirs], rtol=rtol)


@pytest.fixture(scope="module")
def pair():
    return make_pair()


# --------------------------------------------------------------------------- ranks
def test_closer_than_rank_and_words_closer_than_match_gensim(pair):
    kv, g = pair
    for a, b in [("w0", "w1"), ("w5", "w17"), ("w42", "w299"), (3, 7)]:
        assert kv.closer_than(a, b) == g.closer_than(a, b)
        assert kv.words_closer_than(a, b) == kv.closer_than(a, b)
        assert kv.rank(a, b) == g.rank(a, b)
    nearest = kv.most_similar("w5", topn=1)[0][0]
    assert kv.rank("w5", nearest) == 1 and kv.closer_than("w5", nearest) == []


def test_most_similar_to_given_and_relative_cosine_similarity_match_gensim(pair):
    kv, g = pair
    given = ["w3", "w9", "w27", "w81", "w243"]
    for key in ("w0", "w1", "w100"):
        assert kv.most_similar_to_given(key, given) == g.most_similar_to_given(key, given)
        for other in ("w2", "w200"):
            for topn in (1, 10):
                assert kv.relative_cosine_similarity(key, other, topn) == pytest.approx(
                    g.relative_cosine_similarity(key, other, topn), rel=1e-5)
    with pytest.raises(ParameterError, match="keys_list is empty"):
        kv.most_similar_to_given("w0", [])
    with pytest.raises(ParameterError, match="without any similar word"):
        kv.relative_cosine_similarity("w0", "w1", topn=0)
    with pytest.raises(UnknownWordError):
        kv.most_similar_to_given("w0", ["nope"])


def test_most_similar_clips_rows_as_gensim(pair):
    kv, g = pair
    for kwargs in (dict(clip_start=10, clip_end=100), dict(clip_start=50), dict(clip_end=80),
                   dict(clip_start=5, clip_end=200, restrict_vocab=30), dict(clip_start=0, clip_end=0)):
        for query in (dict(positive=["w60"]), dict(positive=["w1", "w70"], negative=["w2"])):
            assert_same_answers(kv.most_similar(**query, topn=7, **kwargs), g.most_similar(**query, topn=7, **kwargs))
        np.testing.assert_allclose(kv.most_similar("w60", topn=None, **kwargs),
                                   g.most_similar("w60", topn=None, **kwargs), rtol=1e-5, atol=1e-6)
    assert kv.most_similar("w1", clip_start=10, clip_end=5) == []
    for bad in (dict(clip_start=-1), dict(clip_end=-5), dict(clip_start=1.5)):
        with pytest.raises(ParameterError, match="clip_"):
            kv.most_similar("w1", **bad)


def test_most_similar_asks_the_indexer_with_the_unit_query(pair):
    kv, g = pair

    class Recorder:
        def __init__(self):
            self.calls = []

        def most_similar(self, vector, num_neighbors):
            self.calls.append((np.array(vector), num_neighbors))
            return [("answer", 1.0)]

    ours, theirs = Recorder(), Recorder()
    assert kv.most_similar(["w1", "w2"], ["w3"], topn=4, indexer=ours) == [("answer", 1.0)]
    g.most_similar(["w1", "w2"], ["w3"], topn=4, indexer=theirs)
    assert ours.calls[0][1] == theirs.calls[0][1] == 4
    np.testing.assert_allclose(ours.calls[0][0], theirs.calls[0][0], rtol=1e-6)
    assert isinstance(kv.most_similar("w1", topn=None, indexer=ours), np.ndarray)   # all scores: no index
    assert len(ours.calls) == 1


def test_similar_by_key_takes_gensims_name(pair):
    kv, g = pair
    assert [w for w, _ in kv.similar_by_key(key="w8", topn=5)] == [w for w, _ in g.similar_by_key(key="w8", topn=5)]
    assert kv.similar_by_key("w8", 3, 100) == kv.similar_by_word("w8", 3, 100)


# --------------------------------------------------------------------------- attributes
def test_vecattrs_match_gensim():
    counts = np.arange(300, 0, -1)
    kv, g = make_pair(counts=counts)
    assert kv.get_vecattr("w4", "count") == g.get_vecattr("w4", "count") == 296
    for which in (kv, g):
        which.set_vecattr("w4", "count", 7)
        which.set_vecattr("w5", "tag", "x")
        which.set_vecattr("w6", "weight", 0.5)
    for attr, key in [("count", "w4"), ("tag", "w5"), ("tag", "w0"), ("weight", "w6"), ("weight", "w7")]:
        assert kv.get_vecattr(key, attr) == g.get_vecattr(key, attr)
        assert kv.expandos[attr].dtype == g.expandos[attr].dtype
    assert kv.counts[4] == 7 and kv.counts is kv.expandos["count"]
    with pytest.raises(TypeError):
        g.set_vecattr("w1", "count", 1.5)
    with pytest.raises(TypeError) as err:
        kv.set_vecattr("w1", "count", 1.5)
    assert isinstance(err.value, ParameterError)
    with pytest.raises(KeyError):
        kv.get_vecattr("w1", "nothing")
    with pytest.raises(UnknownWordError):
        kv.set_vecattr("nope", "count", 1)
    kv.allocate_vecattrs(["flag"], [bool])
    assert kv.expandos["flag"].dtype == bool and len(kv.expandos["flag"]) == len(kv)
    with pytest.raises(ParameterError, match="one type per attribute"):
        kv.allocate_vecattrs(["a", "b"], [int])
    with pytest.raises(ParameterError, match="'count' attribute holds integers"):
        KeyedVectors(["a"], np.ones((1, 2))).allocate_vecattrs(["count"], [float])


def test_sort_by_descending_frequency_matches_gensim():
    rng = np.random.default_rng(3)
    counts = rng.permutation(300) + 1          # distinct counts: one order
    kv, g = make_pair(counts=counts)
    kv.set_vecattr("w0", "tag", "first")
    g.set_vecattr("w0", "tag", "first")
    kv.most_similar("w1")                      # norms cached before the sort
    kv.sort_by_descending_frequency()
    g.sort_by_descending_frequency()
    assert kv.index_to_key == g.index_to_key
    assert kv.key_to_index == g.key_to_index
    np.testing.assert_array_equal(kv.vectors, g.vectors)
    np.testing.assert_array_equal(kv.counts, g.expandos["count"])
    assert list(kv.expandos["tag"]) == list(g.expandos["tag"])
    assert [w for w, _ in kv.most_similar("w1")] == [w for w, _ in g.most_similar("w1")]


def test_sort_keeps_the_row_order_of_equal_counts_where_gensim_reverses_it():
    kv, g = make_pair(n=5, counts=[1, 3, 1, 3, 2])
    kv.sort_by_descending_frequency()
    g.sort_by_descending_frequency()
    assert kv.index_to_key == ["w1", "w3", "w4", "w0", "w2"]
    assert g.index_to_key == ["w3", "w1", "w4", "w2", "w0"]
    with pytest.raises(KeyError, match="no word counts"):
        KeyedVectors(["a"], np.ones((1, 2))).sort_by_descending_frequency()
    KeyedVectors(2).sort_by_descending_frequency()     # nothing to sort


def test_vectors_for_all_matches_gensim():
    kv, g = make_pair(counts=np.arange(300, 0, -1))
    keys = ["w9", "nope", "w2", "w9", "w250"]
    for copy in (False, True):
        ours, theirs = kv.vectors_for_all(keys, copy_vecattrs=copy), g.vectors_for_all(keys, copy_vecattrs=copy)
        assert ours.index_to_key == theirs.index_to_key == ["w9", "w2", "w250"]
        np.testing.assert_array_equal(ours.vectors, theirs.vectors)
        assert ours.vectors is not kv.vectors and ours.vectors.base is not kv.vectors
    np.testing.assert_array_equal(kv.vectors_for_all(keys, copy_vecattrs=True).counts, [291, 298, 50])
    made_up = g.vectors_for_all(keys).expandos["count"]
    assert made_up.tolist() == kv.vectors_for_all(keys).counts.tolist() == [3, 2, 1]   # gensim's made-up counts
    assert kv.vectors_for_all(keys, allow_inference=False).index_to_key == ["w9", "w2", "w250"]
    with pytest.raises(ParameterError):
        kv.vectors_for_all(["w1", 3])


# --------------------------------------------------------------------------- adding and changing
def test_add_vectors_and_add_vector_match_gensim():
    kv, g = make_pair(n=20, dim=4)
    rng = np.random.default_rng(1)
    new = rng.standard_normal((3, 4)).astype(np.float32)
    for replace in (False, True):
        kv2, g2 = make_pair(n=20, dim=4)
        kv2.add_vectors(["w1", "x1", "x2"], new, replace=replace)
        g2.add_vectors(["w1", "x1", "x2"], new, replace=replace)
        assert kv2.index_to_key == g2.index_to_key
        assert kv2.key_to_index == g2.key_to_index
        np.testing.assert_array_equal(kv2.vectors, g2.vectors)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # gensim warns that growing one by one is slow
        assert kv.add_vector("y", new[0]) == g.add_vector("y", new[0]) == 20
    np.testing.assert_array_equal(kv.vectors, g.vectors)
    assert kv.add_vector("w3", new[1]) == 3                  # gensim returns len(kv), past the last row
    np.testing.assert_array_equal(kv["w3"], g["w3"])
    kv["w3"] = new[2]
    g["w3"] = new[2]
    kv[["w4", "z"]] = new[:2]
    g[["w4", "z"]] = new[:2]
    assert kv.index_to_key == g.index_to_key
    np.testing.assert_array_equal(kv.vectors, g.vectors)
    assert_same_answers(kv.most_similar("z", topn=3), g.most_similar("z", topn=3))


def test_add_vectors_keeps_attributes_in_step_and_checks_its_input():
    kv = KeyedVectors(["a", "b"], np.eye(2, dtype=np.float32), counts=[5, 3])
    kv.set_vecattr("a", "tag", "x")
    kv.add_vectors(["c", "a"], [[1, 1], [2, 2]], extras={"count": np.array([9, 8]), "score": np.array([0.5, 0.25])},
                   replace=True)
    assert kv.index_to_key == ["a", "b", "c"]
    assert list(kv.counts) == [8, 3, 9] and list(kv.expandos["score"]) == [0.25, 0.0, 0.5]
    assert list(kv.expandos["tag"]) == ["x", 0, 0]
    np.testing.assert_array_equal(kv["a"], [2, 2])
    kv.add_vectors("d", [3, 3])
    assert kv.index_to_key[-1] == "d" and kv.get_vecattr("d", "count") == 0
    for keys, weights, match in [(["e", "e"], np.ones((2, 2)), "given twice"), ([7], np.ones((1, 2)), "str"),
                                 (["e"], np.ones((1, 3)), "shape"), (["e"], [[np.nan, 1]], "NaN"),
                                 (["e", "f"], np.ones((1, 2)), "shape")]:
        with pytest.raises(ParameterError, match=match):
            kv.add_vectors(keys, weights)
    with pytest.raises(ParameterError, match="one value per key"):
        kv.add_vectors(["e"], np.ones((1, 2)), extras={"count": np.array([1, 2])})
    assert kv.index_to_key == ["a", "b", "c", "d"] and len(kv.vectors) == 4


def test_an_empty_keyedvectors_of_a_given_size_fills_as_gensims_does():
    kv = KeyedVectors(3)
    assert len(kv) == 0 and kv.vector_size == 3
    kv.add_vectors(["a", "b"], np.array([[1, 0, 0], [0, 1, 0]], dtype=np.float32))
    assert kv.most_similar("a", topn=1)[0][0] == "b"
    with pytest.raises(ParameterError):
        KeyedVectors(0)


def test_adding_to_memory_mapped_vectors_copies_them(tmp_path):
    KeyedVectors(["a", "b"], np.eye(2, dtype=np.float32)).save(tmp_path / "m")
    kv = KeyedVectors.load(tmp_path / "m")
    assert not kv.vectors.flags.writeable
    kv["a"] = [3, 4]
    kv.add_vectors(["c"], [[1, 1]])
    np.testing.assert_array_equal(kv.vectors, [[3, 4], [0, 1], [1, 1]])
    assert KeyedVectors.load(tmp_path / "m")["a"].tolist() == [1, 0]


def test_resize_vectors_draws_gensims_values():
    kv, g = make_pair(n=10, dim=8)
    for which in (kv, g):
        which.index_to_key.extend(["new1", "new2"])
    g.key_to_index.update(new1=10, new2=11)
    kv.resize_vectors(seed=7)
    g.resize_vectors(seed=7)
    np.testing.assert_array_equal(kv.vectors, g.vectors)
    assert kv.key_to_index["new2"] == 11 and kv.most_similar("new1", topn=1)
    del kv.index_to_key[5:]
    kv.resize_vectors()
    assert kv.vectors.shape == (5, 8) and "new1" not in kv


def test_unit_normalize_all_and_init_sims_match_gensim():
    for replace in (True, False):
        kv, g = make_pair(n=50)
        before = kv.vectors.copy()
        kv.init_sims(replace=replace)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            g.init_sims(replace=replace)
        np.testing.assert_allclose(kv.vectors, g.vectors, rtol=1e-6)
        assert replace or np.array_equal(kv.vectors, before)
        assert_same_answers(kv.most_similar("w3"), g.most_similar("w3"))
    zero = KeyedVectors(["a", "b"], np.array([[0, 0], [3, 4]], dtype=np.float32))
    zero.unit_normalize_all()                                # gensim: a row of NaN
    np.testing.assert_array_equal(zero.vectors, np.array([[0, 0], [0.6, 0.8]], dtype=np.float32))
    np.testing.assert_array_equal(zero.norms, [0, 1])


# --------------------------------------------------------------------------- Word Mover's Distance
DOCS = [(["w1", "w2", "w3"], ["w4", "w5"]), (["w1", "w1", "w2"], ["w2", "w9", "w9", "w9"]),
        (["w1", "nope"], ["w7", "w1", "w250"]), (["w8"], ["w8", "w8"]), (["w8"], ["w9"]),
        (["nope"], ["w1"]), ([], ["w1"])]


@pytest.mark.parametrize("norm", [True, False])
def test_wmdistance_matches_gensim(pair, norm):
    pytest.importorskip("ot")
    kv, g = pair
    for d1, d2 in DOCS:
        ours, theirs = kv.wmdistance(d1, d2, norm=norm), g.wmdistance(d1, d2, norm=norm)
        assert ours == pytest.approx(theirs, rel=1e-6, abs=1e-9), (d1, d2)
        assert kv.wmdistance(d2, d1, norm=norm) == pytest.approx(ours, rel=1e-9)
    assert kv.wmdistance(["w1"], ["nope"]) == float("inf")


def test_wmdistance_is_zero_between_words_of_the_same_direction():
    pytest.importorskip("ot")
    kv = KeyedVectors(["a", "b", "c"], np.array([[1, 0], [2, 0], [0, 1]], dtype=np.float32))
    assert kv.wmdistance(["a"], ["b"]) == 0.0            # gensim: inf
    assert kv.wmdistance(["a"], ["b"], norm=False) == pytest.approx(1.0)
    assert kv.wmdistance(["a", "c"], ["b"]) > 0
    with pytest.raises(ParameterError, match="list of words"):
        kv.wmdistance("a c", ["b"])


def test_wmdistance_without_pot_says_how_to_install_it(pair, monkeypatch):
    kv, g = pair
    monkeypatch.setitem(sys.modules, "ot", None)
    with pytest.raises(ImportError, match=r"POT.*pip install 'w2v\[wmd\]'") as err:
        kv.wmdistance(["w1"], ["w2"])
    assert isinstance(err.value, W2VError)
    with pytest.raises(ImportError):
        g.wmdistance(["w1"], ["w2"])
