"""The fast paths of KeyedVectors on large vocabularies give the exact answers.

Filtered top-k, chunked batch queries, scan lookups before the word index
exists, blocked norms: each is checked against the plain computation (and
gensim where it applies) on vocabularies above the thresholds that enable them.
"""
import numpy as np
import pytest

import w2v.util.arrays as arrays
import w2v.vectors.lookup as lookup
import w2v.vectors.neighbours as neighbours
import w2v.vectors.topk as topk
from w2v.errors import FormatError, ParameterError
from w2v.vectors.keyed import KeyedVectors, load, save_native


def exact_bottom(neg, k):
    part = np.argpartition(neg, k)[:k]
    return part.take(np.argsort(neg.take(part)))


@pytest.fixture(scope="module")
def big():
    rng = np.random.default_rng(7)
    n, dim = 120_000, 16
    vecs = rng.standard_normal((n, dim), dtype=np.float32)
    vecs *= rng.uniform(0.5, 2.0, (n, 1)).astype(np.float32)
    return KeyedVectors([f"w{i}" for i in range(n)], vecs)


@pytest.mark.parametrize("k", [1, 11, 60, 500])
def test_filtered_bottom_k_equals_exact_selection(k):
    rng = np.random.default_rng(k)
    neg = rng.standard_normal(200_000).astype(np.float32)
    assert neg.size >= topk._FILTER_MIN
    got = topk.bottom_indices(neg, k)
    assert np.array_equal(got, exact_bottom(neg, k))


def test_filtered_bottom_k_with_nans_ties_and_infinities():
    rng = np.random.default_rng(1)
    neg = rng.standard_normal(100_000).astype(np.float32)
    neg[::3] = np.nan                          # zero vectors give NaN scores: never selected first
    neg[5] = -np.inf
    got = topk.bottom_indices(neg, 20)
    ref = exact_bottom(neg, 20)
    assert got[0] == 5 and np.array_equal(neg[got], neg[ref])
    ties = np.round(rng.standard_normal(100_000), 1).astype(np.float32)   # many exact ties
    got, ref = topk.bottom_indices(ties, 15), exact_bottom(ties, 15)
    assert np.array_equal(ties[got], ties[ref])                          # same values, ties in any order
    nan_mostly = np.full(100_000, np.nan, np.float32)
    nan_mostly[[3, 9]] = [0.5, -0.5]
    got = topk.bottom_indices(nan_mostly, 5)                               # fewer finite values than k
    assert got[:2].tolist() == [9, 3] and len(got) == 5


def test_most_similar_on_a_large_vocabulary_matches_gensim(big):
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    g = gensim_kv.KeyedVectors(big.vector_size)
    g.add_vectors(big.index_to_key, big.vectors)
    for query in [dict(positive=["w1"]), dict(positive=["w10", "w20"], negative=["w30"], topn=25),
                  dict(positive=["w7"], restrict_vocab=90_000)]:
        ours, theirs = big.most_similar(**query), g.most_similar(**query)
        assert [w for w, _ in ours] == [w for w, _ in theirs]
        np.testing.assert_array_equal([s for _, s in ours], [np.float32(s) for _, s in theirs])


def test_chunked_batch_equals_single_queries(big, monkeypatch):
    monkeypatch.setattr(neighbours, "_BATCH_QUERIES", 16)        # several query blocks and vocabulary chunks
    monkeypatch.setattr(arrays, "BLOCK_ELEMENTS", 1 << 19)
    words = [f"w{i}" for i in range(0, 4000, 97)] + [big["w3"] * 0.5]
    assert arrays.BLOCK_ELEMENTS // len(big) < neighbours._BATCH_QUERIES < len(words)
    batch = big.most_similar_batch(words, topn=7)
    assert len(batch) == len(words)
    for w, res in zip(words, batch):
        single = big.most_similar(w if isinstance(w, str) else [w], topn=7)
        assert [x for x, _ in res] == [x for x, _ in single]
        np.testing.assert_allclose([s for _, s in res], [s for _, s in single], atol=1e-6)
    assert batch[-1][0][0] == "w3"                        # a vector query excludes nothing
    restricted = big.most_similar_batch(words[:20], topn=4, restrict_vocab=70_000)
    for w, res in zip(words[:20], restricted):
        assert [x for x, _ in res] == [x for x, _ in big.most_similar(w, topn=4, restrict_vocab=70_000)]


@pytest.mark.filterwarnings("error")          # no 'invalid value encountered in divide'
def test_chunked_batch_with_zero_vectors():
    rng = np.random.default_rng(3)
    vecs = rng.standard_normal((100_000, 8), dtype=np.float32)
    vecs[::2] = 0.0                                        # half the rows: cosine 0.0 with everything
    kv = KeyedVectors([f"w{i}" for i in range(len(vecs))], vecs)
    words = [f"w{i}" for i in range(1, 200, 2)]
    batch = kv.most_similar_batch(words, topn=5)
    for w, res in zip(words[:10], batch):
        assert [x for x, _ in res] == [x for x, _ in kv.most_similar(w, topn=5)]
    scores = kv.most_similar("w1", topn=None)
    assert not np.isnan(scores).any() and np.all(scores[::2] == 0.0)
    # every zero row scores exactly 0.0, ranked between the positive and the negative scores
    ranked = kv.most_similar(positive=[kv["w1"]], topn=len(kv))
    zero_scored = {w for w, s in ranked if s == 0.0}
    assert {f"w{i}" for i in range(0, len(kv), 2)} <= zero_scored
    scores = [s for _, s in ranked]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.filterwarnings("error")          # no 'overflow encountered' warning
def test_chunked_and_filtered_paths_with_extreme_rows(monkeypatch):
    """Rows whose float32 squares overflow or vanish keep their exact cosines on every path."""
    monkeypatch.setattr(neighbours, "_BATCH_QUERIES", 8)
    monkeypatch.setattr(arrays, "BLOCK_ELEMENTS", 1 << 18)
    rng = np.random.default_rng(11)
    n, dim = 100_000, 8
    vecs = rng.standard_normal((n, dim), dtype=np.float32)
    src = rng.choice(n, 300, replace=False)
    dst = rng.choice(np.setdiff1d(np.arange(n), src), 300, replace=False)
    # exact power-of-two scalings: the same directions, with values whose float32 squares
    # overflow (~1e30) or vanish (~1e-30)
    vecs[dst[:150]] = vecs[src[:150]] * np.float32(2.0 ** 100)
    vecs[dst[150:]] = vecs[src[150:]] * np.float32(2.0 ** -100)
    kv = KeyedVectors([f"w{i}" for i in range(n)], vecs)
    plain = KeyedVectors([f"w{i}" for i in range(n)], np.where(np.isin(np.arange(n), dst)[:, None], 0, vecs))
    kv.fill_norms()
    with np.errstate(over="ignore", under="ignore"):
        assert not np.isfinite(np.linalg.norm(vecs[dst[:150]], axis=1)).any()   # the float32 way fails
        assert not np.linalg.norm(vecs[dst[150:]], axis=1).any()
    exact = np.linalg.norm(vecs[dst].astype(np.float64), axis=1)
    np.testing.assert_allclose(kv.norms[dst], exact.astype(np.float32), rtol=1e-6)
    for s, d in zip(src[::30], dst[::30]):
        # a scaled copy of a row is that row's nearest neighbour, at cosine 1
        best = kv.most_similar(f"w{s}", topn=1)[0]
        assert best[0] == f"w{d}" and best[1] == pytest.approx(1.0, abs=1e-5)
        assert kv.most_similar(f"w{d}", topn=1)[0] == (f"w{s}", pytest.approx(1.0, abs=1e-5))
    queries = [f"w{i}" for i in src[:40]] + [f"w{i}" for i in dst[:40]]
    assert arrays.BLOCK_ELEMENTS // n < neighbours._BATCH_QUERIES < len(queries)    # the chunked path
    batch = kv.most_similar_batch(queries, topn=4)
    for q, res in zip(queries, batch):
        single = kv.most_similar(q, topn=4)
        np.testing.assert_allclose([s for _, s in res], [s for _, s in single], atol=1e-6)
        # the same words, but for near ties (the batch renormalises its queries: last-bit differences)
        assert all(a == b or abs(sa - sb) < 1e-6 for (a, sa), (b, sb) in zip(res, single)), (res, single)
        assert res[0][0] == single[0][0]
    # the other rows' scores are those of the same vectors without the extreme rows
    q = f"w{src[0]}"
    ours, ref = kv.most_similar(q, topn=None), plain.most_similar(q, topn=None)
    keep = ~np.isin(np.arange(n), dst)
    assert np.array_equal(ours[keep], ref[keep])


def test_norms_are_numpy_norms_bit_for_bit(big):
    big.fill_norms(force=True)
    assert np.array_equal(big.norms, np.linalg.norm(big.vectors, axis=1))
    assert big._div is big._norms       # no zero row: the norms are the divisors, no copy
    small = KeyedVectors(["a", "b", "c"], np.array([[3, 4], [0, 0], [1, 1]], np.float32))
    assert np.array_equal(small.norms, np.linalg.norm(small.vectors, axis=1))


def test_native_load_answers_queries_before_building_the_index(big, tmp_path):
    save_native(big, tmp_path / "m")
    kv = load(tmp_path / "m")
    assert kv._key_to_index is None
    assert kv.get_index("w99") == 99 and kv.most_similar("w5", topn=3) == big.most_similar("w5", topn=3)
    assert kv._key_to_index is None                      # one-off queries scan, no index built
    with pytest.raises(KeyError):
        kv.get_index("nope")
    for i in range(lookup._SCAN_LOOKUPS + 1):
        assert kv.get_index(f"w{1000 + i}") == 1000 + i
    assert kv._key_to_index is not None and kv.get_index("w7") == 7

    # duplicates in a corrupt vocab.tsv are still reported once the index is built
    lines = (tmp_path / "m" / "vocab.tsv").read_text().splitlines(True)
    (tmp_path / "m" / "vocab.tsv").write_text("".join(lines[:-1] + lines[:1]))
    dup = load(tmp_path / "m")
    with pytest.raises(FormatError, match="duplicate"):
        _ = "w1" in dup


def test_native_vocab_counts_parse_fast_path_and_errors(tmp_path):
    kv = KeyedVectors(["a", "b", "c"], np.ones((3, 2), np.float32), counts=[7, 2**62, 0])
    save_native(kv, tmp_path / "m")
    assert load(tmp_path / "m").counts.tolist() == [7, 2**62, 0]
    vocab = tmp_path / "m" / "vocab.tsv"
    for bad in ("a\t7\nb\t99999999999999999999\nc\t0\n", "a\t7\nb\t1.5\nc\t0\n", "a\t7\nb\t\nc\t0\n"):
        vocab.write_text(bad)
        with pytest.raises(FormatError, match="vocab.tsv"):
            load(tmp_path / "m")


# --------------------------------------------------------------------------- block and pool boundaries
@pytest.mark.parametrize("row", [0, 3, 4, 9, 10])
def test_non_finite_check_names_the_row_in_any_block(monkeypatch, row):
    monkeypatch.setattr(arrays, "FINITE_BLOCK", 12)          # blocks of 4 rows of 3 values
    vecs = np.ones((11, 3), np.float32)
    vecs[row, 1] = np.nan
    assert arrays.first_nonfinite_row(vecs) == row
    with pytest.raises(ParameterError, match=rf"row {row} \(word 'w{row}'\) contains NaN"):
        KeyedVectors([f"w{i}" for i in range(11)], vecs)


@pytest.mark.parametrize("k", [1, 40, 300])
def test_chunked_bottom_k_when_the_candidate_pools_are_cut_back(monkeypatch, k):
    # small chunks over many words: a k of 40 or more lets a row's candidates outgrow
    # max(4 k, 1024), so its pool is cut back to k under a tighter threshold, later chunks included
    monkeypatch.setattr(arrays, "BLOCK_ELEMENTS", 1024)     # chunks of 1024 words
    rng = np.random.default_rng(k)
    n = 60_000
    vecs = rng.standard_normal((n, 1), dtype=np.float32)
    norms = rng.uniform(0.5, 2.0, n).astype(np.float32)
    neg_q = np.array([[-1.0], [1.0], [-0.5]], np.float32)
    for q, (idx, vals) in zip(neg_q, topk.chunked_bottom_k(neg_q, vecs, norms, k)):
        row = (vecs[:, 0] * q[0]) / norms               # one product per score: exact in both
        assert np.array_equal(idx, exact_bottom(row, k))
        assert np.array_equal(vals, row[idx])
