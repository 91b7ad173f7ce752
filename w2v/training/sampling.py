"""Sampling tables: subsampling thresholds, the noise distribution, the Huffman tree.

All tables are small plain arrays that the kernels read; nothing here runs per
token.  :func:`build_tables` makes the :class:`Tables` of a vocabulary's counts.
"""
import numpy as np

from ..errors import ParameterError
from ..kernels.sampling import build_alias, huffman_codes

KEEP_ALWAYS = np.int64(1) << np.int64(32)


def keep_probabilities(counts, sample):
    """word2vec.c's probability of keeping each occurrence of a word.

    ``p = (sqrt(f / (t N)) + 1) * (t N) / f`` clipped to 1, where ``f`` is
    the word's count, ``N`` the total count of the vocabulary and ``t`` the
    ``sample`` threshold (gensim uses the same formula).  ``sample=0``
    disables subsampling, and so does any ``sample >= 1`` in effect (as in
    word2vec.c, ``t`` is always a fraction of ``N``; gensim reads
    ``sample >= 1`` as an absolute count instead).

    Parameters
    ----------
    counts : numpy.ndarray of int64
    sample : float

    Returns
    -------
    numpy.ndarray of float64
    """
    if sample < 0:
        raise ParameterError("sample must be >= 0")
    counts = np.asarray(counts, dtype=np.float64)
    if sample == 0:
        return np.ones_like(counts)
    tn = sample * counts.sum()
    with np.errstate(divide="ignore"):
        p = (np.sqrt(counts / tn) + 1.0) * tn / counts
    return np.minimum(p, 1.0)


def keep_thresholds(counts, sample):
    """Integer thresholds for the kernels: keep a token when ``rand32 < threshold``.

    Returns int64 values in ``[0, 2**32]``; ``2**32`` means "always keep".
    """
    p = keep_probabilities(counts, sample)
    return np.minimum(np.round(p * 2.0 ** 32), 2.0 ** 32).astype(np.int64)


def noise_distribution(counts, power=0.75):
    """Unigram distribution raised to ``power`` and normalized (word2vec's noise).

    ``power`` 1 samples in proportion to the counts, 0 uniformly, and a
    negative power favours rare words (gensim's ``ns_exponent`` allows it too).
    The counts are scaled first by the largest (``power >= 0``) or the smallest
    positive one (``power < 0``), so every scaled weight is at most 1 and
    ``counts ** power`` cannot overflow for any finite power (a huge power puts
    all the mass on the most or least frequent words instead of turning it into
    nan). With a negative power a zero count gets weight 0.
    """
    c = np.asarray(counts, dtype=np.float64)
    if power >= 0:
        ref = c.max() if c.size else 0.0
        w = (c / ref) ** power if ref > 0 else c ** power
    else:   # scaled by the rarest word; a zero count is never drawn (unless every count is)
        pos = c > 0
        w = np.ones_like(c)
        if pos.any():
            w[~pos] = 0.0
            w[pos] = (c[pos] / c[pos].min()) ** power
    return w / w.sum()


def alias_table(counts, power=0.75):
    """Alias table of the noise distribution, for O(1) draws with one 64-bit random number.

    word2vec.c samples from a 100M-entry table and gensim bisects a cumulative
    table; an alias table draws from exactly the same distribution with two
    small arrays (V entries each) that stay in cache.

    Returns
    -------
    threshold : numpy.ndarray of int64
        Accept the drawn column ``i`` when the low 32 random bits are below
        ``threshold[i]`` (``2**32`` = always).
    alias : numpy.ndarray of int32
        The other word of column ``i``.
    """
    prob = noise_distribution(counts, power)
    accept, alias = build_alias(prob)
    thr = np.minimum(np.round(accept * 2.0 ** 32), 2.0 ** 32).astype(np.int64)
    if alias.size and (alias.min() < 0 or alias.max() >= alias.size):
        raise AssertionError("alias table out of range")
    return thr, alias


def pack_alias_table(threshold, alias):
    """One ``uint64`` per column: ``alias << 32 | threshold``, for the CPU kernels.

    A draw then reads one 8-byte entry (one cache line) instead of two arrays.
    A column that always accepts (``threshold == 2**32``, which does not fit
    in 32 bits) is stored as ``2**32 - 1`` with itself as alias, so the draw's
    distribution is unchanged.
    """
    threshold = np.asarray(threshold, np.int64)
    full = threshold >= (1 << 32)
    alias = np.where(full, np.arange(threshold.size), np.asarray(alias, np.int64)).astype(np.uint64)
    return (alias << np.uint64(32)) | np.minimum(threshold, (1 << 32) - 1).astype(np.uint64)


MAX_HUFFMAN_TOTAL = 2 ** 60   # total count a Huffman tree accepts (far above any corpus)


class HuffmanTree:
    """Huffman coding of the vocabulary for hierarchical softmax.

    Attributes
    ----------
    codes : numpy.ndarray of int8, shape (V, L)
        Branch taken at each inner node from the root (0/1), padded.
    points : numpy.ndarray of int32, shape (V, L)
        Inner-node indices (rows of the ``syn1`` matrix, ``0 .. V-2``) on the
        path from the root, padded.
    lengths : numpy.ndarray of int32, shape (V,)
        Code length of each word.
    """

    def __init__(self, codes, points, lengths):
        self.codes = codes
        self.points = points
        self.lengths = lengths

    @classmethod
    def from_counts(cls, counts):
        """Build the tree from counts sorted in descending order (a Vocab's order)."""
        counts = np.asarray(counts, dtype=np.int64)
        if counts.size < 2:
            # one word: a single inner node, code 0 (word2vec.c would loop forever)
            return cls(np.zeros((counts.size, 1), np.int8), np.zeros((counts.size, 1), np.int32),
                       np.ones(counts.size, np.int32))
        if np.any(np.diff(counts) > 0):
            raise ParameterError("Huffman tree needs counts sorted in descending order")
        # inner nodes hold sums of counts and unbuilt ones the sentinel int64 max // 4 (about 2**61):
        # a larger total would overtake it and the construction would run off the array
        if counts[-1] < 0 or float(counts.sum(dtype=np.float64)) > MAX_HUFFMAN_TOTAL:
            raise ParameterError(f"Huffman tree needs counts >= 0 summing to at most {MAX_HUFFMAN_TOTAL:.3g}")
        codes, points, lengths = huffman_codes(counts)
        return cls(codes, points, lengths)


def huffman_tree(counts):
    """Huffman tree of counts in any order (after an online update the vocabulary is not sorted).

    Words are ranked by descending count (ties by id) and coded with
    word2vec.c's construction; each word keeps its id.  For counts already
    in descending order this is exactly :meth:`HuffmanTree.from_counts`.

    Parameters
    ----------
    counts : array_like of int

    Returns
    -------
    HuffmanTree
    """
    counts = np.asarray(counts, dtype=np.int64)
    if counts.size < 2 or not np.any(np.diff(counts) > 0):
        return HuffmanTree.from_counts(counts)
    order = np.argsort(-counts, kind="stable")
    tree = HuffmanTree.from_counts(counts[order])
    codes = np.empty_like(tree.codes)
    points = np.empty_like(tree.points)
    lengths = np.empty_like(tree.lengths)
    codes[order] = tree.codes
    points[order] = tree.points
    lengths[order] = tree.lengths
    return HuffmanTree(codes, points, lengths)


class Tables:
    """The read-only arrays every kernel call needs (sampling tables, Huffman tree)."""

    def __init__(self, keep_threshold, noise_threshold, noise_alias, hs_codes, hs_points, hs_lengths):
        self.keep_threshold = keep_threshold
        self.noise_threshold = noise_threshold
        self.noise_alias = noise_alias
        self.noise_table = pack_alias_table(noise_threshold, noise_alias)   # what the CPU kernels read
        self.hs_codes = hs_codes
        self.hs_points = hs_points
        self.hs_lengths = hs_lengths


def build_tables(counts, settings, huffman=None):
    """The sampling tables of a vocabulary's counts under ``settings``.

    Parameters
    ----------
    counts : numpy.ndarray of int64
        The vocabulary's counts, in id order (sorted or not).
    settings : w2v.settings.Settings
        ``sample``, ``negative``, ``ns_exponent`` and ``hs`` apply.
    huffman : HuffmanTree, optional
        With ``hs``: the tree to use (a loaded model's) instead of one built
        from ``counts`` (:func:`huffman_tree`).

    Returns
    -------
    tables : Tables
    tree : HuffmanTree or None
        The Huffman tree (``None`` without ``hs``).
    """
    s = settings
    keep = keep_thresholds(counts, s.sample)
    if s.negative > 0:
        nthr, nalias = alias_table(counts, s.ns_exponent)
    else:
        nthr, nalias = np.full(1, 1 << 32, np.int64), np.zeros(1, np.int32)
    if s.hs:
        tree = huffman if huffman is not None else huffman_tree(counts)
        codes, points, lengths = tree.codes, tree.points, tree.lengths
    else:
        tree = None
        codes, points, lengths = np.zeros((1, 1), np.int8), np.zeros((1, 1), np.int32), np.zeros(1, np.int32)
    return Tables(keep, nthr, nalias, codes, points, lengths), tree
