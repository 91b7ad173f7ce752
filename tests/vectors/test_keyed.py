"""KeyedVectors: lookups, validation and similarity queries (checked against gensim)."""
import math

import numpy as np
import pytest

from w2v.errors import FormatError, ParameterError, UnknownWordError, W2VError
from w2v.vectors.keyed import KeyedVectors

from ..conftest import BUNDLED


def random_kv(n=200, dim=16, seed=0):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(n)]
    return KeyedVectors(words, rng.standard_normal((n, dim)).astype(np.float32))


def gensim_copy(kv):
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    g = gensim_kv.KeyedVectors(kv.vector_size)
    g.add_vectors(list(kv.index_to_key), np.array(kv.vectors))
    return g


@pytest.fixture(scope="module")
def trained():
    """gensim vectors trained for one epoch on the start of the bundled corpus, and our copy."""
    gensim = pytest.importorskip("gensim")
    import itertools
    import lzma

    from gensim.utils import simple_preprocess

    corpus = BUNDLED
    with lzma.open(corpus, "rt", encoding="utf-8") as f:
        sentences = [simple_preprocess(line) for line in itertools.islice(f, 3000)]
    model = gensim.models.Word2Vec(sentences, vector_size=32, min_count=3, workers=1, seed=1, epochs=1)
    g = model.wv
    return g, KeyedVectors(list(g.index_to_key), g.vectors)


# --------------------------------------------------------------------------- container
def test_basic_access():
    kv = random_kv(10, 4)
    assert len(kv) == 10 and kv.vector_size == kv.dim == 4
    assert "w3" in kv and "nope" not in kv
    assert kv.key_to_index["w3"] == 3 and kv.index_to_key[3] == "w3"
    assert np.array_equal(kv["w3"], kv.vectors[3])
    both = kv[["w1", "w2"]]
    assert both.shape == (2, 4) and np.array_equal(both, kv.vectors[1:3])
    assert kv[[]].shape == (0, 4)
    assert kv.get_index("w5") == 5 and kv.get_index("zz", -1) == -1
    v = kv.get_vector("w2", norm=True)
    np.testing.assert_allclose(np.linalg.norm(v), 1.0, rtol=1e-6)
    np.testing.assert_allclose(v, kv.vectors[2] / np.linalg.norm(kv.vectors[2]), rtol=1e-6)
    assert not kv.get_vector("w2").flags.writeable
    assert kv.vectors.flags.c_contiguous and kv.vectors.dtype == np.float32
    assert repr(kv) == str(kv) == "KeyedVectors<vector_size=4, 10 keys>"   # gensim's str()


def test_missing_word_key_error_names_word():
    kv = random_kv(5, 3)
    for call in (lambda: kv["foo"], lambda: kv.get_vector("foo"), lambda: kv.get_index("foo"),
                 lambda: kv.most_similar("foo"), lambda: kv.similarity("w1", "foo"),
                 lambda: kv[["w1", "foo"]], lambda: kv.encode(["w1", "foo"]),
                 lambda: kv.most_similar_batch(["w1", "foo"]), lambda: kv.distances("foo"),
                 lambda: kv.most_similar_cosmul("foo"), lambda: kv.distance("foo", "w1")):
        with pytest.raises(KeyError) as info:   # gensim's exception type
            call()
        assert isinstance(info.value, UnknownWordError) and isinstance(info.value, W2VError)
        assert info.value.args[0] == "Key 'foo' not present in vocabulary"
        assert str(info.value) == "Key 'foo' not present in vocabulary"


def test_constructor_storage_and_validation(tmp_path):
    vecs = np.ones((3, 2), np.float32)
    kv = KeyedVectors(["a", "b", "c"], vecs, counts=[3, 2, 1], settings={"sg": 1})
    assert kv.vectors is vecs  # float32 C-contiguous: no copy
    assert kv.counts.dtype == np.int64 and list(kv.counts) == [3, 2, 1] and kv.settings == {"sg": 1}
    f64 = KeyedVectors(["a", "b"], np.ones((2, 3)))
    assert f64.vectors.dtype == np.float32
    fortran = KeyedVectors(["a", "b"], np.asfortranarray(np.ones((2, 3), np.float32)))
    assert fortran.vectors.flags.c_contiguous
    path = tmp_path / "m.npy"
    np.save(path, np.ones((2, 3), np.float32))
    mm = np.load(path, mmap_mode="r")
    kvm = KeyedVectors(["a", "b"], mm)
    assert kvm.vectors is mm and isinstance(kvm.vectors, np.memmap)
    assert kvm.most_similar("a", topn=1)[0][0] == "b"
    for bad in [
        lambda: KeyedVectors(["a", "a"], np.ones((2, 2))),
        lambda: KeyedVectors(["a", "b"], np.ones((3, 2))),
        lambda: KeyedVectors(["a", "b"], np.ones(2)),
        lambda: KeyedVectors(["a", 1], np.ones((2, 2))),
        lambda: KeyedVectors("ab", np.ones((2, 2))),
        lambda: KeyedVectors(["a", "b"], np.ones((2, 2)), counts=[1]),
        lambda: KeyedVectors(["a", "b"], np.ones((2, 2)), counts=[1.5, 2]),
    ]:
        with pytest.raises(ParameterError):
            bad()


def test_lookup_and_encode():
    kv = random_kv(6, 3)
    ids = np.array([[0, 5], [2, 2], [1, 4]])
    out = kv.lookup(ids)
    assert out.shape == (3, 2, 3) and np.array_equal(out[2, 1], kv.vectors[4])
    assert kv.lookup(np.int64(3)).shape == (3,)
    assert kv.lookup(np.array([], dtype=np.int64)).shape == (0, 3)
    assert kv.lookup(np.zeros((2, 0), dtype=np.int32)).shape == (2, 0, 3)
    for bad, match in [([0, 6], "6"), ([-1, 0], "-1"), ([0.0, 1.0], "integer"), ([True, False], "integer"),
                       (["w1"], "integer")]:
        with pytest.raises(ParameterError, match=match):
            kv.lookup(np.array(bad))
    assert kv.encode(["w1", "w5"]).tolist() == [1, 5]
    assert kv.encode(["w1", "zz"], unknown=-1).tolist() == [1, -1]
    assert kv.encode([]).dtype == np.int64
    with pytest.raises(KeyError, match="zz"):
        kv.encode(["zz"])
    with pytest.raises(ParameterError):
        kv.encode(["w1"], unknown="skip")
    with pytest.raises(ParameterError):
        kv.encode("w1")
    np.testing.assert_array_equal(kv.lookup(kv.encode(["w2", "w0"])), kv[["w2", "w0"]])


def test_norm_cache_invalidated_when_vectors_replaced():
    kv = random_kv(20, 4)
    first = kv.most_similar("w0", topn=3)
    normed = kv.get_normed_vectors()
    assert kv.get_normed_vectors() is normed  # cached
    kv.vectors = -kv.vectors[::-1].copy()
    assert kv.get_normed_vectors() is not normed
    expected = random_kv(20, 4)
    expected.vectors = -expected.vectors[::-1].copy()
    assert kv.most_similar("w0", topn=3) == expected.most_similar("w0", topn=3)
    assert first != kv.most_similar("w0", topn=3)
    with pytest.raises(ParameterError):
        kv.vectors = np.ones((3, 4), np.float32)


def test_zero_vector_does_not_produce_nan():
    kv = KeyedVectors(["a", "b", "c"], np.array([[1, 0], [0, 0], [1, 1]], np.float32))
    assert np.all(np.isfinite(kv.get_normed_vectors()))


# --------------------------------------------------------------------------- gensim parity
def assert_same_results(ours, theirs, rtol=1e-6):
    assert [w for w, _ in ours] == [w for w, _ in theirs]
    np.testing.assert_allclose([s for _, s in ours], [s for _, s in theirs], rtol=rtol, atol=1e-6)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_most_similar_matches_gensim_random():
    kv = random_kv(300, 16)
    g = gensim_copy(kv)
    for query in [dict(positive=["w1"]), dict(positive=["w1", "w2"], negative=["w3"]),
                  dict(positive="w7", topn=25), dict(positive=["w4"], restrict_vocab=50),
                  dict(positive=[("w5", 0.5), "w9"], negative=[("w8", -2.0)]),
                  dict(positive=[kv["w10"]], negative=["w11"]), dict(positive=["w0"], topn=1000)]:
        assert_same_results(kv.most_similar(**query), g.most_similar(**query))
    np.testing.assert_allclose(kv.most_similar("w3", topn=None), g.most_similar("w3", topn=None), rtol=1e-6)
    assert kv.most_similar("w3", topn=0) == []
    with pytest.raises(ValueError):
        kv.most_similar(positive=[])
    assert_same_results(kv.similar_by_vector(kv["w12"], topn=5), g.similar_by_vector(g["w12"], topn=5))
    assert_same_results(kv.similar_by_word("w12", topn=5), g.similar_by_word("w12", topn=5))
    for pos, neg in [(["w1", "w2"], ["w3"]), (["w4"], []), (["w5", "w6"], ["w7", "w8"])]:
        assert_same_results(kv.most_similar_cosmul(pos, neg, topn=7), g.most_similar_cosmul(pos, neg, topn=7))
    assert kv.similarity("w1", "w2") == pytest.approx(float(g.similarity("w1", "w2")), abs=1e-7)
    assert kv.n_similarity(["w1", "w2"], ["w3"]) == pytest.approx(float(g.n_similarity(["w1", "w2"], ["w3"])),
                                                                  abs=1e-7)
    np.testing.assert_allclose(kv.distances("w1", ["w2", "w3"]), g.distances("w1", ["w2", "w3"]), atol=1e-6)
    np.testing.assert_allclose(kv.distances("w1"), g.distances("w1"), atol=1e-6)
    words = ["w1", "w2", "w3", "w4", "w5", "w6"]
    assert kv.doesnt_match(words) == g.doesnt_match(words)
    assert kv.distance("w1", "w1") == pytest.approx(0.0, abs=1e-6)


def test_most_similar_matches_gensim_trained(trained):
    g, kv = trained
    for word in ["man", "house", "said", "time", "good", "little", "eyes"]:
        ours, theirs = kv.most_similar(word), g.most_similar(word)
        assert [w for w, _ in ours] == [w for w, _ in theirs]
        np.testing.assert_allclose([s for _, s in ours], [s for _, s in theirs], rtol=0, atol=1e-7)
    q = dict(positive=["woman", "king"], negative=["man"], topn=10, restrict_vocab=2000)
    assert [w for w, _ in kv.most_similar(**q)] == [w for w, _ in g.most_similar(**q)]


def test_most_similar_batch_equals_single_queries(trained):
    g, kv = trained
    words = ["man", "house", "said", "time", "good"]
    batch = kv.most_similar_batch(words, topn=10)
    for word, res in zip(words, batch):
        single = kv.most_similar(word, topn=10)
        assert [w for w, _ in res] == [w for w, _ in single]
        np.testing.assert_allclose([s for _, s in res], [s for _, s in single], atol=1e-6)
    res = kv.most_similar_batch([kv["man"]], topn=3)[0]
    assert res[0][0] == "man"  # a raw vector query excludes nothing
    assert kv.most_similar_batch([], topn=3) == []
    restricted = kv.most_similar_batch(["man", "house"], topn=5, restrict_vocab=100)
    for word, res in zip(["man", "house"], restricted):
        assert [w for w, _ in res] == [w for w, _ in kv.most_similar(word, topn=5, restrict_vocab=100)]


def test_top_k_does_not_sort_whole_vocabulary(monkeypatch):
    kv = random_kv(5000, 8)
    sizes = []
    real_argsort = np.argsort

    def spy(a, *args, **kwargs):
        sizes.append(np.size(a))
        return real_argsort(a, *args, **kwargs)

    monkeypatch.setattr(np, "argsort", spy)
    kv.most_similar("w1", topn=10)
    kv.most_similar_batch(["w1", "w2"], topn=10)
    monkeypatch.undo()
    assert sizes and max(sizes) <= 2 * 11


def test_restrict_vocab_and_input_exclusion():
    kv = random_kv(100, 8)
    res = kv.most_similar("w50", topn=200, restrict_vocab=10)
    assert len(res) == 10 and all(int(w[1:]) < 10 for w, _ in res)
    res = kv.most_similar(["w1", "w2"], topn=200)
    assert {w for w, _ in res} == set(kv.index_to_key) - {"w1", "w2"}
    with pytest.raises(ParameterError):
        kv.most_similar("w1", restrict_vocab=-3)


def test_query_vectors_of_the_wrong_length_and_bad_topn_raise_parameter_error():
    kv = random_kv()
    short = np.ones(7, np.float32)
    for call in (lambda: kv.most_similar(positive=[short]),
                 lambda: kv.most_similar(positive=["w1"], negative=[short]),
                 lambda: kv.most_similar_cosmul(positive=[short]),
                 lambda: kv.similar_by_vector(short),
                 lambda: kv.distances(np.ones(3)),
                 lambda: kv.most_similar("w1", topn=2.5),
                 lambda: kv.most_similar_cosmul("w1", topn="3"),
                 lambda: kv.most_similar(positive=["w1"], negative=["w1"])):   # a zero query
        with pytest.raises(ParameterError):
            call()
    # the right length and topn=None still work
    assert len(kv.most_similar(positive=[np.ones(16, np.float32)], topn=3)) == 3
    assert kv.most_similar("w1", topn=None).shape == (200,)
    assert kv.distances(np.ones(16)).shape == (200,)


# --------------------------------------------------------------------------- extreme values
def reference_cosines(vecs, query):
    """Cosines in float64 from rows scaled by their largest |value| (exact for any finite row)."""
    v = np.asarray(vecs, np.float64)
    m = np.abs(v).max(axis=1, keepdims=True)
    m[m == 0] = 1
    u = v / m
    n = np.linalg.norm(u, axis=1, keepdims=True)
    n[n == 0] = 1
    q = np.asarray(query, np.float64)
    q = q / np.abs(q).max()
    return (u / n) @ (q / np.linalg.norm(q))


@pytest.fixture
def extreme():
    """Rows whose float32 squares overflow or vanish, and ordinary ones."""
    rng = np.random.default_rng(5)
    vecs = rng.standard_normal((40, 6)).astype(np.float32)
    vecs[0, 2] = 1e38                      # a norm just inside half the float32 range
    vecs[1, :] = [3e37, -3e37, 1, 2, 3e37, 0]
    vecs[2] = vecs[7] * np.float32(2.0 ** 120)  # same direction as w7, norm ~1e36 (squares overflow)
    vecs[3] = vecs[8] * np.float32(2.0 ** -100)  # same direction as w8, values ~1e-30 (squares vanish)
    vecs[4, :] = [1e-30, 0, 0, 0, 0, 2e-30]
    return KeyedVectors([f"w{i}" for i in range(len(vecs))], vecs)


@pytest.mark.filterwarnings("error")       # no 'overflow encountered' warning either
def test_norms_and_unit_vectors_right_for_any_finite_row(extreme):
    kv = extreme
    v64 = kv.vectors.astype(np.float64)
    m = np.abs(v64).max(axis=1, keepdims=True)
    exact = m[:, 0] * np.linalg.norm(v64 / m, axis=1)
    # the float32 rounding of the exact norm
    np.testing.assert_allclose(kv.norms, exact.astype(np.float32), rtol=1e-6)
    normed = kv.get_normed_vectors()
    np.testing.assert_allclose(np.linalg.norm(normed.astype(np.float64), axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(normed, v64 / exact[:, None], rtol=1e-5, atol=1e-7)
    fresh = KeyedVectors(kv.index_to_key, kv.vectors)     # get_vector before get_normed_vectors
    for i in range(6):
        np.testing.assert_allclose(fresh.get_vector(i, norm=True), normed[i], rtol=1e-6, atol=1e-7)
    # ordinary rows keep numpy's (and gensim's) norms bit for bit
    assert np.array_equal(kv.norms[5:], np.linalg.norm(kv.vectors[5:], axis=1))


@pytest.mark.filterwarnings("error")
def test_queries_right_with_extreme_rows(extreme):
    kv = extreme
    for word in ["w0", "w1", "w2", "w3", "w4", "w9"]:
        ref = reference_cosines(kv.vectors, kv[word])
        scores = kv.most_similar(word, topn=None)
        np.testing.assert_allclose(scores, ref, atol=2e-6)
        res = kv.most_similar(word, topn=5)
        # w3 and w8 (w2 and w7) point the same way: compare scores, ties in any order
        others = np.array([i for i in range(len(kv)) if f"w{i}" != word])
        best = np.sort(ref[others])[::-1][:5]
        np.testing.assert_allclose([s for _, s in res], best, atol=2e-6)
        np.testing.assert_allclose([ref[int(w[1:])] for w, _ in res], best, atol=2e-6)
        batch = kv.most_similar_batch([word], topn=5)[0]
        np.testing.assert_allclose([ref[int(w[1:])] for w, _ in batch], best, atol=2e-6)
        np.testing.assert_allclose(kv.distances(word), 1 - ref, atol=2e-6)
    # a scaled copy of a row is the same direction: cosine 1
    assert kv.similarity("w2", "w7") == pytest.approx(1.0, abs=1e-6)
    assert kv.similarity("w3", "w8") == pytest.approx(1.0, abs=1e-6)
    assert kv.most_similar("w7", topn=1)[0] == ("w2", pytest.approx(1.0, abs=1e-6))
    assert kv.n_similarity(["w0", "w2"], ["w2", "w0"]) == pytest.approx(1.0, abs=1e-6)
    cos = kv.most_similar_cosmul("w1", topn=None)
    np.testing.assert_allclose(cos, (1 + reference_cosines(kv.vectors, kv["w1"])) / 2, atol=2e-6)
    np.testing.assert_allclose(kv.cosine_similarities(kv["w9"], kv.vectors), reference_cosines(kv.vectors, kv["w9"]),
                               atol=2e-6)


@pytest.mark.parametrize("row", [[3e38, 0.1, 0.2], [3e38, -3e38, 1.0], [1.3e38, 1.3e38, 0.0]])
def test_a_norm_beyond_half_the_float32_range_is_refused(row):
    # a score is row . q / norm in float32: such a row's dot products could overflow
    kv = KeyedVectors(["a", "b"], np.array([[1, 2, 3], row], np.float32))
    with pytest.raises(ParameterError, match=r"'b' \(row 1\) .*half the float32 range"):
        kv.most_similar("a")
    fine = KeyedVectors(["a", "b"], np.array([[1, 2, 3], [1e38, 1e37, 0]], np.float32))
    cosine = float(np.dot([1, 2, 3], [1, .1, 0]) / np.linalg.norm([1, 2, 3]) / np.linalg.norm([1, .1, 0]))
    assert fine.most_similar("a")[0] == ("b", pytest.approx(cosine, abs=1e-6))


# gensim: a (word, weight) pair keeps its sign
@pytest.mark.parametrize("positive,negative", [(["w1", "w2"], ["w1", "w2"]), (["w1", "w2", "w3"], ["w3", "w1", "w2"]),
                                               ([("w1", 0.3), "w2"], [("w1", -0.3), "w2"])])
def test_terms_that_cancel_up_to_rounding_are_refused(positive, negative):
    # the float32 sum left a residue of ~1e-8 that most_similar ranked the vocabulary by
    rng = np.random.default_rng(8)
    kv = KeyedVectors([f"w{i}" for i in range(50)], rng.standard_normal((50, 20)).astype(np.float32))
    with pytest.raises(ParameterError, match="cancel out"):
        kv.most_similar(positive=positive, negative=negative)
    with pytest.raises(ParameterError, match="cancel out"):
        kv.most_similar(positive=[kv["w1"]], negative=[kv["w1"] * np.float32(1 + 1e-7)])
    assert len(kv.most_similar(positive=["w1", "w2"], negative=["w3"])) == 10
    assert len(kv.most_similar(positive=[kv["w1"] * np.float32(1e-30)])) == 10   # small, not cancelled


# --------------------------------------------------------------------------- zero vectors
@pytest.fixture
def zero_kv():
    return KeyedVectors(["a", "b", "c"], np.array([[0, 0, 0], [1, 2, 3], [3, 2, 1]], np.float32))


@pytest.mark.filterwarnings("error")   # no 'invalid value encountered in divide'
def test_zero_vector_has_cosine_zero(zero_kv):
    kv = zero_kv
    res = kv.most_similar("b")
    assert res[0][0] == "c" and res[1] == ("a", 0.0) and math.copysign(1, res[1][1]) == 1  # not -0.0
    assert kv.most_similar("b", topn=None)[0] == 0.0
    assert kv.most_similar_batch(["b"])[0][1] == ("a", 0.0)
    np.testing.assert_array_equal(kv.distances("a"), [1.0, 1.0, 1.0])
    assert kv.distances("b")[0] == 1.0 and kv.distances("b", ["a"]).tolist() == [1.0]
    assert kv.similarity("a", "b") == 0.0 and kv.distance("a", "c") == 1.0
    assert kv.n_similarity(["a"], ["b"]) == 0.0
    assert kv.cosine_similarities(np.zeros(3), kv.vectors).tolist() == [0.0, 0.0, 0.0]
    assert kv.cosine_similarities(np.ones(3), kv.vectors)[0] == 0.0
    assert np.array_equal(kv.get_vector("a", norm=True), np.zeros(3))
    assert np.array_equal(kv.get_normed_vectors()[0], np.zeros(3))
    assert kv.rank_by_centrality(["a", "b", "c"])[-1][1] == "a"
    cosmul = kv.most_similar_cosmul("b", topn=None)
    assert cosmul[0] == pytest.approx(0.5 / 1.000001) and np.all(np.isfinite(cosmul))


def test_querying_a_zero_vector_names_the_word(zero_kv):
    kv = zero_kv
    for call in (lambda: kv.most_similar("a"), lambda: kv.similar_by_word("a"),
                 lambda: kv.most_similar_cosmul("a"), lambda: kv.most_similar_batch(["b", "a"]),
                 lambda: kv.most_similar(["a"], negative=["a"])):
        with pytest.raises(ParameterError, match="^'a' has a zero vector: no direction to compare$"):
            call()
    for call in (lambda: kv.similar_by_vector(np.zeros(3)), lambda: kv.most_similar([np.zeros(3)])):
        with pytest.raises(ParameterError, match="the query vector is the zero vector"):
            call()
    with pytest.raises(ParameterError, match="query vector 1 is the zero vector"):
        kv.most_similar_batch(["b", np.zeros(3)])
    with pytest.raises(ParameterError, match="cancel out"):      # a real cancellation is still told so
        kv.most_similar(["b"], negative=["b"])
    with pytest.raises(ParameterError, match="weight 0"):
        kv.most_similar([("b", 0)])
    # a zero vector among other terms contributes nothing, as in gensim
    assert [w for w, _ in kv.most_similar(["a", "b"])] == ["c"]


# --------------------------------------------------------------------------- typed errors
def test_n_similarity_errors():
    kv = random_kv(10, 4)
    for ws1, ws2 in (([], ["w1"]), (["w1"], [])):
        with pytest.raises(ParameterError, match="empty word list") as info:
            kv.n_similarity(ws1, ws2)
        assert isinstance(info.value, ZeroDivisionError)      # what gensim raises
    with pytest.raises(UnknownWordError, match="'unknown'"):   # was a silent 0.0
        kv.n_similarity(["w1"], ["unknown"])
    with pytest.raises(UnknownWordError, match="'unknown'"):
        kv.n_similarity(["w1", "unknown"], ["w2"])
    with pytest.raises(ParameterError, match="not a str"):
        kv.n_similarity("w1", ["w2"])


def test_similarity_takes_two_words_not_lists():
    # kv[["w1"]] is a (1, dim) matrix: similarity(["w1"], ["w2"]) and similarity([], []) raised
    # numpy's ValueError "shapes (1,4) and (1,4) not aligned"
    kv = random_kv(10, 4)
    for w1, w2 in ((["w1"], ["w2"]), ([], []), ((), ()), (np.array(["w1"]), "w2"), ("w1", None)):
        with pytest.raises(ParameterError, match="must be a word"):
            kv.similarity(w1, w2)
        with pytest.raises(ParameterError, match="must be a word"):
            kv.distance(w1, w2)
    assert kv.similarity("w1", 2) == pytest.approx(kv.similarity("w1", "w2"))
    with pytest.raises(UnknownWordError):
        kv.similarity("w1", "nope")


def test_bad_query_terms_and_weights():
    kv = random_kv(10, 4)
    for positive in ([("w1", "x")], [("w1", None)], [("w1", True)], [("w1", 1.0, 2.0)], [1.5], [None],
                     [("w1", float("nan"))], [("w1", float("inf"))], 1.5):
        with pytest.raises(ParameterError):
            kv.most_similar(positive)
    with pytest.raises(ParameterError, match="weight of 'w1' must be a number"):
        kv.most_similar([("w1", "x")])
    with pytest.raises(ParameterError, match="weight of 'w1' is not finite"):
        kv.most_similar(["w2"], negative=[("w1", float("nan"))])
    with pytest.raises(ParameterError, match="float"):
        kv.most_similar_cosmul([1.5])
    for weights in ([1.0, float("nan")], ["x", "y"], np.ones((2, 1))):
        with pytest.raises(ParameterError):
            kv.get_mean_vector(["w1", "w2"], weights)
    # numpy weights and (word, weight) pairs still work
    assert kv.most_similar([("w1", np.float32(0.5)), ("w2", 2)], topn=2)


def test_constructor_rejects_non_numeric_non_finite_and_empty_vectors():
    for vecs, match in [(np.array([["x"]]), "numeric"), ([["1", "2"]], "numeric"), ([[1, 2], [3]], "numeric"),
                        (np.array([[1 + 2j]]), "numeric"), (np.array([[True]]), "numeric"),
                        (np.array([[np.nan]]), "NaN"), (np.array([[np.inf]], np.float32), "NaN"),
                        (np.array([[1e39]]), "too large for float32"), (np.zeros((1, 0)), "at least one dimension")]:
        with pytest.raises(ParameterError, match=match):
            KeyedVectors(["a"] if len(vecs) == 1 else ["a", "b"], vecs)
    big = np.ones((70_000, 8), np.float32)
    big[65_432, 5] = np.nan
    with pytest.raises(ParameterError, match=r"row 65432 \(word 'w65432'\) contains NaN"):
        KeyedVectors([f"w{i}" for i in range(len(big))], big)
    # finite values whose sum overflows float32 are fine (the fast check falls back to the exact one)
    kv = KeyedVectors(["a", "b"], np.full((2, 4), 3e38, np.float32))
    assert kv.similarity("a", "b") == pytest.approx(1.0)
    kv.vectors = np.ones((2, 4))
    with pytest.raises(ParameterError, match="NaN"):
        kv.vectors = np.array([[1, 2, 3, 4], [1, np.nan, 2, 3]])
    assert np.array_equal(kv.vectors, np.ones((2, 4)))          # unchanged after the refusal
    assert KeyedVectors([], np.zeros((0, 3))).vector_size == 3   # an empty vocabulary is fine


def test_nan_set_in_place_is_reported_when_norms_are_computed():
    kv = random_kv(5, 3)
    kv.vectors[2, 1] = np.nan
    with pytest.raises(ParameterError, match=r"'w2' \(row 2\) holds NaN"):
        kv.most_similar("w1")
    loaded = KeyedVectors._trusted(["a", "b"], np.array([[1, 2], [np.inf, 0]], np.float32))
    loaded.source_path = "model_dir"
    with pytest.raises(FormatError, match=r"model_dir: the vector of 'b' \(row 1\) holds NaN"):
        _ = loaded.norms


def test_cosine_similarities_checks_shapes_and_values():
    kv = random_kv(10, 3)
    for v, m in [(np.ones(3), kv.vectors[:3, :2]), (np.ones(4), kv.vectors), (np.ones((1, 3)), kv.vectors),
                 (np.ones(3), kv.vectors[0]), (np.array([1, np.nan, 1]), kv.vectors),
                 (np.ones(3), np.array([[1, 2, np.inf]]))]:
        with pytest.raises(ParameterError):
            kv.cosine_similarities(v, m)
    got = kv.cosine_similarities(kv["w1"], kv.vectors[:4])
    expected = kv.vectors[:4] @ kv["w1"] / (np.linalg.norm(kv.vectors[:4], axis=1) * np.linalg.norm(kv["w1"]))
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    np.testing.assert_allclose(kv.cosine_similarities([1, 0, 0], np.eye(3, dtype=int)), [1, 0, 0])


def test_keys_of_the_wrong_type():
    kv = random_kv(5, 3)
    for key in (1.5, None, b"w1", True, np.float64(2.0), object()):
        with pytest.raises(ParameterError, match="must be a word"):
            kv[key]
        with pytest.raises(ParameterError, match="must be a word"):
            kv.get_index(key, -1)
        assert not kv.has_index_for(key)
    with pytest.raises(ParameterError, match=type(1.5).__name__):
        kv[["w1", 1.5]]
    with pytest.raises(ParameterError, match="must be a word"):
        kv.most_similar(["w1", None])
    assert (["w1"] in kv) is False and (1.5 in kv) is False and (None in kv) is False
    assert "w1" in kv and 1 not in kv                  # `in` tests words
    assert np.array_equal(kv[np.int64(2)], kv["w2"]) and kv[np.array([0, 2])].shape == (2, 3)
    assert kv.has_index_for(4) and not kv.has_index_for(5)


def test_non_finite_query_vectors():
    kv = random_kv(10, 4)
    nan, inf = np.full(4, np.nan), np.array([1, np.inf, 0, 0])
    for call in (lambda: kv.most_similar([nan]), lambda: kv.most_similar(["w1"], negative=[inf]),
                 lambda: kv.similar_by_vector(nan), lambda: kv.most_similar_cosmul([nan]),
                 lambda: kv.most_similar_batch([nan]), lambda: kv.distances(inf),
                 lambda: kv.get_mean_vector([nan]), lambda: kv.cosine_similarities(nan, kv.vectors)):
        with pytest.raises(ParameterError, match="not finite"):
            call()


@pytest.mark.parametrize("pre_normalize", [True, False])
@pytest.mark.parametrize("post_normalize", [True, False])
def test_get_mean_vector_matches_gensim(pre_normalize, post_normalize):
    # the weighted mean divides by the sum of the absolute weights, as gensim's
    kv = random_kv(20, 6, seed=3)
    g = gensim_copy(kv)
    for keys, weights in [(["w1", "w2", "w3"], None), (["w1", "w2"], [1.0, -0.5]),
                          (["w4", "w5", "w6"], [0.5, 1.0, -2.0]), (["w7", kv["w8"] * 3], [2.0, 1.0])]:
        ours = kv.get_mean_vector(keys, weights, pre_normalize=pre_normalize, post_normalize=post_normalize)
        theirs = g.get_mean_vector(keys, weights, pre_normalize=pre_normalize, post_normalize=post_normalize)
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)


# --------------------------------------------------------------------------- boundaries and misuse
@pytest.mark.parametrize("before", [[0, 0, 0], [1e-30, 0, 2e-30]])
def test_the_refused_row_is_named_among_rows_recomputed_in_float64(before):
    # zero and tiny rows are recomputed in float64 too: the error names the huge row, not them
    kv = KeyedVectors(["a", "b", "c"], np.array([[1, 2, 3], before, [3e38, 0.1, 0.2]], np.float32))
    with pytest.raises(ParameterError, match=r"'c' \(row 2\)"):
        kv.fill_norms()


MISUSE = {
    "topn=True": lambda kv: kv.most_similar("w1", topn=True),
    "cosmul topn=False": lambda kv: kv.most_similar_cosmul("w1", topn=False),
    "batch topn=True": lambda kv: kv.most_similar_batch(["w1"], topn=True),
    "restrict_vocab=True": lambda kv: kv.most_similar("w1", restrict_vocab=True),
    "cosmul restrict_vocab=True": lambda kv: kv.most_similar_cosmul("w1", restrict_vocab=True),
    "batch restrict_vocab=True": lambda kv: kv.most_similar_batch(["w1"], restrict_vocab=True),
    "bytes": lambda kv: kv.most_similar(b"w1"),          # list(b"w1") is the row indices [119, 49]
    "bytearray": lambda kv: kv.most_similar("w1", negative=bytearray(b"w2")),
    "batch bytes": lambda kv: kv.most_similar_batch(b"w1"),
    "batch float": lambda kv: kv.most_similar_batch(1.5),
    "cosmul no positive": lambda kv: kv.most_similar_cosmul(negative=["w1"]),   # as gensim
    "more weights than keys": lambda kv: kv.get_mean_vector(["w1", "w2"], [1.0, 2.0, 3.0]),
    "unknown=True": lambda kv: kv.encode(["w1"], unknown=True),
    "no known word": lambda kv: kv.doesnt_match(["nope", "zilch"]),
    "distances to a str": lambda kv: kv.distances("w1", "w2"),   # its letters were the words
}


@pytest.mark.parametrize("call", MISUSE.values(), ids=MISUSE.keys())
def test_bools_bytes_and_other_misuse_raise_parameter_error(call):
    """A bool is not an integer here, bytes are not words: no silent answer, no traceback."""
    with pytest.raises(ParameterError):
        call(random_kv())


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_row_index_queries_are_excluded_like_words():
    # gensim excludes every int / numpy integer key of the query from the answers
    kv = random_kv(50, 8)
    g = gensim_copy(kv)
    for key in (3, np.int64(3), np.int32(3)):
        assert kv.most_similar(key, topn=5) == kv.most_similar("w3", topn=5)
        query = dict(positive=[key, "w4"], negative=[np.int64(7)], topn=49)
        ours = kv.most_similar(**query)
        assert not {"w3", "w4", "w7"} & {w for w, _ in ours}
        assert_same_results(ours, g.most_similar(**query))
        assert kv.most_similar_batch([key], topn=5) == kv.most_similar_batch(["w3"], topn=5)


def test_single_queries_to_most_similar_batch_are_wrapped():
    # a single word, row index or vector is a batch of one (an int raised TypeError)
    kv = random_kv(30, 6)
    assert kv.most_similar_batch("w2", topn=4) == kv.most_similar_batch(["w2"], topn=4)
    assert kv.most_similar_batch(2, topn=4) == kv.most_similar_batch(["w2"], topn=4)
    assert kv.most_similar_batch(kv["w2"], topn=4) == kv.most_similar_batch([kv["w2"]], topn=4)


def test_negative_row_indices_are_unknown_keys():
    # gensim: only 0 <= i < len(kv) is a row index; -1 is not the last row
    kv = random_kv(5, 3)
    assert not kv.has_index_for(-1) and kv.get_index(-1, 99) == 99
    for call in (lambda: kv[-1], lambda: kv.get_vector(-2), lambda: kv.most_similar(-1),
                 lambda: kv.similarity("w1", -5)):
        with pytest.raises(UnknownWordError, match="'-"):
            call()


def test_cosmul_topn_below_one_returns_no_answers():
    # as gensim (and most_similar): topn < 1 is an empty list, not the array topn=None gives
    kv = random_kv(20, 4)
    for topn in (0, -3):
        assert kv.most_similar_cosmul("w1", topn=topn) == []
        assert kv.most_similar("w1", topn=topn) == []
        assert kv.most_similar_batch(["w1", "w2"], topn=topn) == [[], []]


def test_scaling_every_weight_does_not_change_the_answer():
    # the mean divides by the sum of |weights|: weights 1e6 times larger are the same query,
    # not a cancelled one (the cancellation test compares the mean with the terms' own size)
    kv = random_kv(60, 8)
    base = kv.most_similar(positive=[("w1", 1.0), ("w2", 0.5)], negative=[("w3", -1.0)], topn=8)
    for scale in (1e-6, 1e6):
        scaled = kv.most_similar(positive=[("w1", scale), ("w2", 0.5 * scale)], negative=[("w3", -scale)], topn=8)
        assert [w for w, _ in scaled] == [w for w, _ in base]
        np.testing.assert_allclose([s for _, s in scaled], [s for _, s in base], atol=1e-6)


def test_rank_by_centrality_scores_match_gensim():
    # the cosines with the unit mean, not just their order
    kv = random_kv(20, 6, seed=2)
    g = gensim_copy(kv)
    words = ["w1", "w5", "w7", "w9", "w12"]
    for use_norm in (True, False):
        ours, theirs = kv.rank_by_centrality(words, use_norm), g.rank_by_centrality(words, use_norm)
        assert [w for _, w in ours] == [w for _, w in theirs]
        np.testing.assert_allclose([s for s, _ in ours], [s for s, _ in theirs], rtol=1e-6)


def test_fill_norms_force_after_an_in_place_change():
    # the documented way to refresh the cache after modifying kv.vectors in place
    kv = random_kv(30, 5)
    kv.most_similar("w0")
    kv.get_normed_vectors()
    kv.vectors[:] = kv.vectors[::-1] * np.float32(3.0)
    kv.fill_norms(force=True)
    fresh = KeyedVectors(kv.index_to_key, np.array(kv.vectors))
    np.testing.assert_array_equal(kv.norms, fresh.norms)
    np.testing.assert_array_equal(kv.get_normed_vectors(), fresh.get_normed_vectors())
    np.testing.assert_array_equal(kv.get_vector("w4", norm=True), fresh.get_vector("w4", norm=True))
    assert kv.most_similar("w0") == fresh.most_similar("w0")


def test_non_finite_weights_are_named():
    kv = random_kv(10, 4)
    with pytest.raises(ParameterError, match="weights are not finite"):
        kv.get_mean_vector(["w1", "w2"], [1.0, float("nan")])
    with pytest.raises(ParameterError, match="weights are not finite"):
        kv.get_mean_vector(["w1", "w2"], np.array([np.inf, 1.0]))


def test_mean_of_vectors_whose_float32_sum_overflows():
    # three rows of ~1.2e38: their float32 sum passes the float32 maximum, the mean does not
    vecs = np.array([[1.2e38, 1e37, 0], [1.1e38, -1e37, 1], [1.3e38, 0, -1]], np.float32)
    kv = KeyedVectors(["a", "b", "c"], vecs)
    mean = vecs.astype(np.float64).mean(axis=0)
    with np.errstate(over="ignore"):
        assert not np.isfinite(vecs.sum(axis=0)).all()
    np.testing.assert_allclose(kv.get_mean_vector(["a", "b", "c"], pre_normalize=False), mean, rtol=1e-6)
    unit = kv.get_mean_vector(["a", "b", "c"], pre_normalize=False, post_normalize=True)
    np.testing.assert_allclose(unit, mean / np.linalg.norm(mean), rtol=1e-6, atol=1e-7)
    assert kv.n_similarity(["a", "b", "c"], ["c", "a", "b"]) == pytest.approx(1.0)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_similar_by_word_and_vector_pass_restrict_vocab_on():
    kv = random_kv(100, 8)
    g = gensim_copy(kv)
    assert_same_results(kv.similar_by_word("w60", topn=5, restrict_vocab=30),
                        g.similar_by_word("w60", topn=5, restrict_vocab=30))
    assert_same_results(kv.similar_by_vector(kv["w60"], topn=5, restrict_vocab=30),
                        g.similar_by_vector(g["w60"], topn=5, restrict_vocab=30))
    assert all(int(w[1:]) < 30 for w, _ in kv.similar_by_vector(kv["w60"], topn=50, restrict_vocab=30))
