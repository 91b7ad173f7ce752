"""KeyedVectors: lookups, validation and similarity queries (checked against gensim)."""
import numpy as np
import pytest

from w2v.errors import ParameterError, UnknownWordError, W2VError
from w2v.vectors import KeyedVectors


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
    from pathlib import Path

    from gensim.utils import simple_preprocess

    corpus = Path(__file__).resolve().parent.parent / "data" / "corpus-small.txt.xz"
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
    assert "10 words x 4 dims" in repr(kv)


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
