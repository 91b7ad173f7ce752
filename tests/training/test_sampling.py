import heapq
import itertools

import numpy as np
import pytest

from w2v.errors import ParameterError
from w2v.training.sampling import (HuffmanTree, alias_table, build_tables, huffman_tree, keep_probabilities,
                                   keep_thresholds, pack_alias_table)


def test_keep_probability_formula():
    counts = np.array([100000, 5000, 300, 20, 1], np.int64)
    t = 1e-3
    n = counts.sum()
    p = keep_probabilities(counts, t)
    for c, got in zip(counts, p):
        want = min(1.0, (np.sqrt(c / (t * n)) + 1) * (t * n) / c)
        assert got == pytest.approx(want, rel=1e-12)
    assert p[0] < 1 and p[-1] == 1
    assert np.all(keep_probabilities(counts, 0) == 1)
    thr = keep_thresholds(counts, t)
    assert thr[-1] == 1 << 32
    assert thr[0] == round(p[0] * 2 ** 32)


def implied_probabilities(thr, alias):
    """The probability of each word that an alias table draws with."""
    n = thr.size
    implied = np.zeros(n)
    for i in range(n):
        a = min(thr[i], 2 ** 32) / 2 ** 32
        implied[i] += a / n
        implied[alias[i]] += (1 - a) / n
    return implied


@pytest.mark.parametrize("power", [0.75, 1.0, 0.0, -0.5, -1.0])
def test_alias_table_reproduces_distribution_exactly(power):
    # a negative power (allowed by gensim's ns_exponent) favours rare words
    counts = np.array([1000, 333, 120, 120, 55, 9, 2, 1], np.int64)
    implied = implied_probabilities(*alias_table(counts, power))
    want = counts ** power / np.sum(counts ** power)
    np.testing.assert_allclose(implied, want, atol=1e-9)


@pytest.mark.parametrize("power", [40.0, 200.0, 1e308])
def test_alias_table_for_a_huge_exponent_puts_the_mass_on_the_top_words(power):
    # counts ** power overflowed to inf: nan probabilities, which the alias table read as uniform
    counts = np.array([1000, 1000, 999, 9, 1], np.int64)
    implied = implied_probabilities(*alias_table(counts, power))
    with np.errstate(over="ignore"):   # -inf for the rare words at 1e308: exp gives 0
        want = np.exp(power * (np.log(counts) - np.log(1000)))   # exact, in log space
    np.testing.assert_allclose(implied, want / want.sum(), atol=1e-9)
    assert implied[0] == pytest.approx(implied[1], rel=1e-8) and implied[3] == 0 and implied[4] == 0


@pytest.mark.parametrize("power", [-600.0, -1e308])
def test_alias_table_for_a_huge_negative_exponent_puts_the_mass_on_the_rarest_words(power):
    counts = np.array([1000, 999, 9, 1, 1], np.int64)
    implied = implied_probabilities(*alias_table(counts, power))
    with np.errstate(over="ignore"):
        want = np.exp(power * (np.log(counts) - np.log(1)))
    np.testing.assert_allclose(implied, want / want.sum(), atol=1e-9)
    assert implied[3] == pytest.approx(0.5) and implied[4] == pytest.approx(0.5) and implied[0] == 0


def test_negative_exponent_matches_gensim_noise_table():
    gensim_w2v = pytest.importorskip("gensim.models.word2vec")
    words = [f"w{i}" for i in range(12)]
    counts = np.array([900, 500, 300, 300, 120, 60, 30, 12, 9, 5, 5, 5], np.int64)
    sentences = [[w] * int(c) for w, c in zip(words, counts)]
    g = gensim_w2v.Word2Vec(vector_size=4, min_count=1, ns_exponent=-0.75, sample=0, workers=1)
    g.build_vocab(sentences)
    g_prob = np.diff(np.concatenate([[0], g.cum_table])) / g.cum_table[-1]
    g_order = [g.wv.key_to_index[w] for w in words]
    implied = implied_probabilities(*alias_table(counts, -0.75))
    np.testing.assert_allclose(implied, g_prob[g_order], rtol=1e-4)   # gensim's table rounds to 2**31


@pytest.mark.parametrize("power", [0.75, 0.0])
def test_packed_alias_table_decides_every_draw_like_the_two_arrays(power):
    """The CPU kernels' packed table picks the same word for every low-32-bit value."""
    counts = np.array([1000, 333, 120, 120, 55, 9, 2, 1], np.int64)
    thr, alias = alias_table(counts, power)
    assert np.any(thr == 1 << 32)          # a column that always accepts: the edge case of packing
    assert_packed_draws_like(thr, alias)


def test_packed_alias_table_never_draws_the_alias_of_a_column_that_always_accepts():
    # a column whose accept probability rounded up to 2**32 may still name another word as its
    # alias: the packed threshold (2**32 - 1) must not let the draw 2**32 - 1 pick that word
    thr = np.array([1 << 32, 1 << 31, 1 << 32], np.int64)
    alias = np.array([1, 0, 1], np.int32)
    assert_packed_draws_like(thr, alias)


def assert_packed_draws_like(thr, alias):
    """Every low-32-bit draw picks the same word from the packed table as from (thr, alias)."""
    packed = pack_alias_table(thr, alias)
    assert packed.dtype == np.uint64
    low = np.array([0, 1, 2 ** 31, 2 ** 32 - 2, 2 ** 32 - 1] + list(thr[thr < 2 ** 32]) +
                   list(np.maximum(thr[thr < 2 ** 32] - 1, 0)), np.uint64)
    for i in range(thr.size):
        want = np.where(low.astype(np.int64) < thr[i], i, alias[i])
        got = np.where(low < (packed[i] & np.uint64(0xFFFFFFFF)), i, (packed[i] >> np.uint64(32)).astype(np.int64))
        assert np.array_equal(got, want), i


def huffman_cost(counts):
    heap = list(counts.astype(float))
    heapq.heapify(heap)
    cost = 0.0
    while len(heap) > 1:
        a, b = heapq.heappop(heap), heapq.heappop(heap)
        cost += a + b
        heapq.heappush(heap, a + b)
    return cost


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_huffman_codes_prefix_free_and_optimal(seed):
    rng = np.random.default_rng(seed)
    counts = np.sort(rng.zipf(1.3, 200).astype(np.int64))[::-1]
    tree = HuffmanTree.from_counts(counts)
    codes = ["".join(map(str, tree.codes[w, :tree.lengths[w]])) for w in range(counts.size)]
    assert len(set(codes)) == counts.size
    for a, b in itertools.permutations(codes, 2):
        assert not b.startswith(a)
    assert sum(2.0 ** -len(c) for c in codes) == pytest.approx(1.0)   # full binary tree
    assert float(np.dot(counts, tree.lengths)) == pytest.approx(huffman_cost(counts))
    assert np.all(np.diff(tree.lengths) >= 0)          # rarer words never get shorter codes
    assert tree.points.max() <= counts.size - 2 and tree.points.min() >= 0
    # every path starts at the root (the last inner node)
    assert np.all(tree.points[:, 0] == counts.size - 2)


def word2vec_c_tree(counts):
    """The tree word2vec.c's CreateBinaryTree builds, re-derived here as a test oracle: (codes, points) per word."""
    v = len(counts)
    count = list(counts) + [10 ** 15] * v
    binary = [0] * (2 * v)
    parent = [0] * (2 * v)
    pos1, pos2 = v - 1, v
    for a in range(v - 1):
        mins = []
        for _ in range(2):
            if pos1 >= 0 and count[pos1] < count[pos2]:
                mins.append(pos1)
                pos1 -= 1
            else:
                mins.append(pos2)
                pos2 += 1
        count[v + a] = count[mins[0]] + count[mins[1]]
        parent[mins[0]] = parent[mins[1]] = v + a
        binary[mins[1]] = 1
    codes, points = [], []
    for a in range(v):
        code, point = [], []
        b = a
        while b != 2 * v - 2:
            code.append(binary[b])
            point.append(b)
            b = parent[b]
        # vocab[a].point[0] = vocab_size - 2; code[i - b - 1] = code[b]; point[i - b] = point[b] - vocab_size
        codes.append(code[::-1])
        points.append([v - 2] + [p - v for p in point[::-1][:-1]])
    return codes, points


@pytest.mark.parametrize("counts", [
    [9, 7, 7, 7, 4, 4, 2, 1, 1, 1],                 # ties everywhere: word2vec.c's order decides
    [5, 5, 5, 5, 5, 5, 5, 5],
    [100, 50, 20, 20, 10, 3, 3, 2, 2, 1, 1, 1, 1],
    [3, 2],
])
def test_huffman_tree_is_word2vec_c_tree(counts):
    # an optimal prefix code is not unique: which branch is 1 and how ties are broken are
    # word2vec.c's (and gensim's) choices, which the codes and syn1 rows follow
    tree = HuffmanTree.from_counts(np.array(counts, np.int64))
    codes, points = word2vec_c_tree(counts)
    for w in range(len(counts)):
        n = tree.lengths[w]
        assert tree.codes[w, :n].tolist() == codes[w], w
        assert tree.points[w, :n].tolist() == points[w], w


def test_huffman_tree_refuses_unsorted_counts():
    with pytest.raises(ParameterError, match="descending"):
        HuffmanTree.from_counts(np.array([3, 5, 1], np.int64))


def test_huffman_tree_of_counts_far_above_word2vec_c_sentinel():
    # word2vec.c marks unbuilt inner nodes with 1e15; counts are accepted up to MAX_HUFFMAN_TOTAL,
    # so a word counted more often than that must still pair with the built nodes, not the sentinel
    for counts in ([2 * 10 ** 15, 1, 1], [10 ** 17, 3 * 10 ** 16, 10 ** 16, 5, 2, 1]):
        counts = np.array(counts, np.int64)
        tree = HuffmanTree.from_counts(counts)
        assert float(np.dot(counts, tree.lengths)) == huffman_cost(counts)
        assert tree.lengths[0] == 1 and tree.points.max() <= counts.size - 2


def test_huffman_tree_refuses_negative_counts():
    # sorted, so only the last count can be negative; the kernel would build a tree from it
    with pytest.raises(ParameterError, match="counts >= 0"):
        HuffmanTree.from_counts(np.array([5, 3, -1], np.int64))


def test_a_negative_subsampling_threshold_is_refused():
    with pytest.raises(ParameterError):
        keep_probabilities(np.array([10, 5], np.int64), -1e-3)


@pytest.mark.parametrize("power", [-0.5, -1.0])
def test_a_zero_count_is_never_drawn_with_a_negative_exponent(power):
    # c ** power is infinite at c = 0: such a word gets weight 0, the others c ** power
    counts = np.array([50, 20, 0, 7, 0, 1], np.int64)
    implied = implied_probabilities(*alias_table(counts, power))
    pos = counts > 0
    want = np.zeros(counts.size)
    want[pos] = counts[pos] ** power / np.sum(counts[pos] ** power)
    np.testing.assert_allclose(implied, want, atol=1e-9)


@pytest.mark.parametrize("power", [0.0, 0.75, 1.0])
def test_a_zero_count_with_a_non_negative_exponent_weighs_zero_to_the_power(power):
    # plain counts ** power (word2vec.c's pow, gensim's ns_exponent): power 0 is uniform over
    # every word, a zero count included (0 ** 0 = 1); a positive power never draws it
    counts = np.array([50, 20, 0, 7, 0, 1], np.int64)
    implied = implied_probabilities(*alias_table(counts, power))
    want = counts.astype(float) ** power
    np.testing.assert_allclose(implied, want / want.sum(), atol=1e-9)


def test_huffman_tree_of_unsorted_counts_matches_the_sorted_tree():
    rng = np.random.default_rng(0)
    counts = rng.integers(1, 1000, 300)
    order = np.argsort(-counts, kind="stable")
    ref = HuffmanTree.from_counts(counts[order])
    tree = huffman_tree(counts)
    for name in ("codes", "points", "lengths"):
        assert np.array_equal(getattr(tree, name)[order], getattr(ref, name))
    sorted_counts = np.sort(counts)[::-1]
    assert np.array_equal(huffman_tree(sorted_counts).codes, HuffmanTree.from_counts(sorted_counts).codes)


def test_build_tables_follow_the_settings_and_keep_a_given_tree():
    from w2v.settings import Settings

    counts = np.array([50, 20, 20, 5, 1], np.int64)
    tables, tree = build_tables(counts, Settings(negative=5, hs=False, sample=1e-3, threads=1))
    assert tree is None and tables.hs_codes.shape == (1, 1)
    assert np.array_equal(tables.keep_threshold, keep_thresholds(counts, 1e-3))
    thr, alias = alias_table(counts, 0.75)
    assert np.array_equal(tables.noise_table, pack_alias_table(thr, alias))
    tables, tree = build_tables(counts, Settings(negative=0, hs=True, threads=1))
    assert tables.noise_table.shape == (1,) and np.array_equal(tables.hs_codes, huffman_tree(counts).codes)
    given = huffman_tree(counts[::-1].copy())
    tables, tree = build_tables(counts, Settings(negative=0, hs=True, threads=1), huffman=given)
    assert tree is given and tables.hs_points is given.points
