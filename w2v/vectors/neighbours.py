"""Nearest-neighbour queries: the words closest to a weighted mean of words and vectors.

These methods of :class:`w2v.vectors.keyed.KeyedVectors` follow gensim's
``most_similar``, ``most_similar_cosmul`` and ``similar_by_*`` (same scores,
same tie order, input words excluded from the answers); ``most_similar_batch``
answers many queries with matrix products.  They are plain functions bound in
the class body (their first parameter is ``self``, see :mod:`w2v.vectors.keyed`);
the helpers that are not methods take the vectors as ``kv``.
"""
import reprlib
from numbers import Integral

import numpy as np

from ..util.checks import is_integer, is_real
from ..util import arrays
from ..util.aliases import renamed
from ..util.arrays import unitrows, unitvec
from ..errors import ParameterError
from .terms import KEY_TYPES, bad_key, check_vector, ensure_list, is_key
from .topk import bottom_indices, chunked_bottom_k, top_indices

__all__ = ["most_similar", "most_similar_batch", "most_similar_cosmul", "similar_by_key", "similar_by_vector",
           "similar_by_word"]

_BATCH_QUERIES = 256      # queries per pass over a large vocabulary in most_similar_batch


def _check_topn(topn):
    """``topn`` must be an integer or None (gensim: None returns every score)."""
    if topn is not None and not is_integer(topn):
        raise ParameterError(f"topn must be an integer or None, got {topn!r}")


def _parse_terms(positive, negative):
    """The query terms of :meth:`most_similar` and their weights (+1, -1, or as given in pairs)."""
    positive = ensure_list(positive)
    negative = ensure_list(negative)
    keys = []
    weight = np.concatenate((np.ones(len(positive)), -1.0 * np.ones(len(negative))))
    for idx, item in enumerate(positive + negative):
        if isinstance(item, (str, int, np.integer, np.ndarray)):
            keys.append(item)
        elif isinstance(item, (tuple, list)) and len(item) == 2:
            key, w = item
            if not is_real(w):
                raise ParameterError(f"the weight of {reprlib.repr(key)} must be a number, got {w!r}")
            if not np.isfinite(w):
                raise ParameterError(f"the weight of {reprlib.repr(key)} is not finite: {w!r}")
            keys.append(key)
            weight[idx] = w
        else:
            raise ParameterError(
                "a query term must be a word, a row index, a vector or a (term, weight) pair, "
                f"got {type(item).__name__} {reprlib.repr(item)}"
            )
    return keys, weight


def _no_direction(kv, keys, weight):
    """The ParameterError for a query whose weighted mean is the zero vector.

    It names the words with a zero vector when every term of non-zero
    weight is one (nothing to rank by); otherwise the terms cancel out.
    """
    live = [key for key, w in zip(keys, weight) if w != 0]
    if not live:
        return ParameterError("every query term has weight 0: no direction to compare")
    zero_words = []
    for key in live:
        if isinstance(key, np.ndarray):
            if np.any(key):
                break
        else:
            i = kv.get_index(key)
            if kv.store.norms[i] != 0:
                break
            zero_words.append(kv.index_to_key[i])
    else:
        if not zero_words:
            return ParameterError("the query vector is the zero vector: no direction to compare")
        names = ", ".join(repr(w) for w in dict.fromkeys(zero_words))
        has = "has a zero vector" if len(dict.fromkeys(zero_words)) == 1 else "have zero vectors"
        return ParameterError(f"{names} {has}: no direction to compare")
    return ParameterError("the query terms cancel out: their weighted mean is the zero vector")


def _clip_range(clip_start, clip_end, restrict_vocab, n):
    """The rows ``[start, end)`` that :meth:`most_similar` searches (gensim's clip rules)."""
    if restrict_vocab:
        return 0, _clip(restrict_vocab, n)
    for name, value in (("clip_start", clip_start), ("clip_end", clip_end)):
        if value is not None and (not is_integer(value) or value < 0):
            raise ParameterError(f"{name} must be a non-negative integer, got {value!r}")
    end = min(int(clip_end), n) if clip_end else n     # gensim: clip_end 0 or None is the end
    return min(int(clip_start or 0), end), end


def _clip(restrict_vocab, n):
    """The number of rows searched: ``restrict_vocab`` (checked) if given, else ``n``."""
    if restrict_vocab:
        if not is_integer(restrict_vocab) or restrict_vocab < 0:
            raise ParameterError(f"restrict_vocab must be a positive integer, got {restrict_vocab!r}")
        return min(int(restrict_vocab), n)
    return n


def most_similar(self, positive=None, negative=None, topn=10, clip_start=0, clip_end=None, restrict_vocab=None,
                 indexer=None):
    """Words closest by cosine to the mean of ``positive`` minus ``negative``.

    Parameters
    ----------
    positive : list of (str or ndarray or (str, float)), optional
        Words (or vectors) that count positively (weight +1 unless given).
    negative : list of (str or ndarray or (str, float)), optional
        Words (or vectors) that count negatively (weight -1 unless given).
    topn : int or None, optional
        Number of results; None returns the similarity to every word of
        the searched rows as an array.
    clip_start, clip_end : int, optional
        Search only the rows ``clip_start`` to ``clip_end`` (excluded;
        None or 0 for the last row).
    restrict_vocab : int, optional
        Search only the first ``restrict_vocab`` words (overrides the clips).
    indexer : object, optional
        An approximate nearest-neighbour index: when ``topn`` is an
        integer, the answer is ``indexer.most_similar(mean, topn)``, with
        ``mean`` the unit query vector (gensim's ``AnnoyIndexer`` protocol).

    Returns
    -------
    list of (str, float) or numpy.ndarray
        ``(word, cosine)`` pairs, most similar first; the input words are
        never returned.

    Raises
    ------
    UnknownWordError
        An input word is not in the vocabulary.
    ParameterError
        ``topn`` is not an integer or None; a clip is not a non-negative
        integer; an input vector is not of length ``dim`` or not finite; a
        weight is not a finite number; or the query has no direction: its
        terms cancel out, or it is made of zero vectors (``"'a' has a
        zero vector: no direction to compare"``).
    """
    _check_topn(topn)
    if isinstance(topn, Integral) and topn < 1:
        return []
    keys, weight = _parse_terms(positive, negative)
    self.fill_norms()
    store = self.store
    clip_start, clip_end = _clip_range(clip_start, clip_end, restrict_vocab, len(self))
    raw = self.get_mean_vector(keys, weight, pre_normalize=True, post_normalize=False, ignore_missing=False)
    # terms that cancel (positive=["a"], negative=["a"]; or ["a", "b"] against ["b", "a"],
    # which leaves float32 rounding, ~1e-8 of the terms' size) have no direction: their
    # scores would be 0 or rank the vocabulary by rounding noise
    size = sum(abs(w) * (float(np.linalg.norm(k)) if isinstance(k, np.ndarray)
                         else float(store.norms[self.get_index(k)] > 0)) for k, w in zip(keys, weight))
    if not float(np.linalg.norm(raw)) * float(np.abs(weight).sum()) > 1e-5 * size:
        raise _no_direction(self, keys, weight)
    mean = unitvec(raw).astype(np.float32)
    if indexer is not None and isinstance(topn, Integral):
        return indexer.most_similar(mean, topn)
    all_keys = [
        self.get_index(key) for key in keys if isinstance(key, KEY_TYPES) and self.has_index_for(key)
    ]
    vecs, div = store.vectors[clip_start:clip_end], store.divisors[clip_start:clip_end]
    if not topn:
        return np.dot(vecs, mean) / div
    # the negated cosines, computed in place: vecs @ -mean is -(vecs @ mean) bit for bit
    # and (-a) / b is -(a / b), so the scores (and gensim's tie order) are unchanged
    neg = np.dot(vecs, -mean)
    np.divide(neg, div, out=neg)
    best = bottom_indices(neg, topn + len(all_keys))
    excluded = set(all_keys)
    # 0.0 - x rather than -x: a zero vector's score is 0.0, not -0.0
    result = [(self.index_to_key[i + clip_start], 0.0 - float(neg[i]))
              for i in best.tolist() if i + clip_start not in excluded]
    return result[:topn]


def most_similar_cosmul(self, positive=None, negative=None, topn=10, restrict_vocab=None):
    """Most similar words by the multiplicative objective (3CosMul, Levy & Goldberg).

    Parameters
    ----------
    positive : list of (str or ndarray), optional
        Words (unit vectors used) or raw vectors in the numerator.
    negative : list of (str or ndarray), optional
        Words or raw vectors in the denominator.
    topn : int or None, optional
        Number of results; None returns all scores.
    restrict_vocab : int, optional
        Search only the first ``restrict_vocab`` words.

    Returns
    -------
    list of (str, float) or numpy.ndarray

    Raises
    ------
    UnknownWordError
        An input word is not in the vocabulary.
    ParameterError
        No positive term, a term that is neither a word, a row index nor
        a finite vector of length ``dim``, or every term is a zero vector.
    """
    _check_topn(topn)
    if isinstance(topn, Integral) and topn < 1:
        return []
    positive = ensure_list(positive)
    negative = ensure_list(negative)
    self.fill_norms()
    terms = positive + negative
    for i, w in enumerate(terms):
        if isinstance(w, np.ndarray):
            terms[i] = check_vector(w, self.vector_size, "query vector")
        elif not is_key(w):
            raise bad_key(w)
    all_words = {self.get_index(w) for w in terms if not isinstance(w, np.ndarray)}
    terms = [w if isinstance(w, np.ndarray) else self.get_vector(w, norm=True) for w in terms]
    if not positive:
        raise ParameterError("cannot compute similarity with no input")
    if not any(np.any(t) for t in terms):   # a zero vector's cosine is 0 with every word
        raise _no_direction(self, positive + negative, np.ones(len(terms)))
    clip_end = _clip(restrict_vocab, len(self))
    vecs, div = self.store.vectors[:clip_end], self.store.divisors[:clip_end]

    def shifted(term):
        return (1 + np.dot(vecs, term) / div) / 2

    pos_dists = [shifted(term) for term in terms[:len(positive)]]
    neg_dists = [shifted(term) for term in terms[len(positive):]]
    dists = np.prod(pos_dists, axis=0) / (np.prod(neg_dists, axis=0) + 0.000001)
    if not topn:
        return dists
    best = top_indices(dists, topn + len(all_words))
    result = [(self.index_to_key[i], float(dists[i])) for i in best if i not in all_words]
    return result[:topn]


def similar_by_word(self, word, topn=10, restrict_vocab=None):
    """Most similar words to one word (see :meth:`most_similar`)."""
    return self.most_similar(positive=[word], topn=topn, restrict_vocab=restrict_vocab)


@renamed(word="key")
def similar_by_key(self, key, topn=10, restrict_vocab=None):
    """Most similar words to one word or row index (see :meth:`most_similar`; ``word`` is an alias of ``key``)."""
    return self.most_similar(positive=[key], topn=topn, restrict_vocab=restrict_vocab)


def similar_by_vector(self, vector, topn=10, restrict_vocab=None):
    """Most similar words to a vector (see :meth:`most_similar`).

    Parameters
    ----------
    vector : numpy.ndarray
        A 1-D vector of length ``dim``.
    topn : int or None, optional
    restrict_vocab : int, optional

    Returns
    -------
    list of (str, float)
    """
    vector = check_vector(vector, self.vector_size, "query vector")
    return self.most_similar(positive=[vector], topn=topn, restrict_vocab=restrict_vocab)


def most_similar_batch(self, words, topn=10, restrict_vocab=None):
    """Answer many single-word :meth:`most_similar` queries with matrix products.

    Parameters
    ----------
    words : list of (str or int or numpy.ndarray)
        Query words or row indices (excluded from their own answers) or
        query vectors; a single one is taken as a list of one.
    topn : int, optional
        Number of results per query.
    restrict_vocab : int, optional
        Search only the first ``restrict_vocab`` words.

    Returns
    -------
    list of list of (str, float)
        One list per query, most similar first.

    Raises
    ------
    UnknownWordError
        A query word is not in the vocabulary.
    ParameterError
        ``topn`` is not an integer, ``words`` is bytes or neither a query
        nor a list of them, a query is neither a word, a row index nor a
        finite vector of length ``dim``, or it is a zero vector (no
        direction to compare).
    """
    words = ensure_list(words)
    if not words:
        return []
    if not is_integer(topn):
        raise ParameterError(f"topn must be an integer, got {topn!r}")
    if topn < 1:
        return [[] for _ in words]
    self.fill_norms()
    clip_end = _clip(restrict_vocab, len(self))
    queries, exclude = _batch_queries(self, words)
    vecs, norms = self.store.vectors[:clip_end], self.store.divisors[:clip_end]
    k = min(topn + 1, clip_end)
    block = max(1, arrays.BLOCK_ELEMENTS // max(clip_end, 1))
    if block < _BATCH_QUERIES and len(words) > block:
        # a large vocabulary: blocks of _BATCH_QUERIES queries against chunks of the
        # vocabulary, so that each pass over the vectors serves many queries
        return _batch_by_chunks(self.index_to_key, queries, exclude, vecs, norms, k, topn)
    out = []
    for start in range(0, len(words), block):
        # negated cosines, divided in place (see most_similar): one block-sized array
        neg = np.dot(-queries[start:start + block], vecs.T)
        np.divide(neg, norms[None, :], out=neg)
        for r in range(len(neg)):
            ex = exclude[start + r]
            row = neg[r]
            res = [(self.index_to_key[i], 0.0 - float(row[i])) for i in bottom_indices(row, k) if i != ex]
            out.append(res[:topn])
    return out


def _batch_queries(kv, words):
    """The unit query rows of :meth:`most_similar_batch` and the row each excludes (-1: none)."""
    dim = kv.vector_size
    queries = np.empty((len(words), dim), dtype=np.float64)
    exclude = np.full(len(words), -1, dtype=np.int64)
    for j, w in enumerate(words):
        if isinstance(w, np.ndarray):
            queries[j] = check_vector(w, dim, f"query vector {j}")
            if not queries[j].any():
                raise ParameterError(f"query vector {j} is the zero vector: no direction to compare")
        else:
            i = kv.get_index(w)
            if kv.store.norms[i] == 0:
                raise ParameterError(f"{kv.index_to_key[i]!r} has a zero vector: no direction to compare")
            queries[j] = kv.get_vector(i, norm=True)
            exclude[j] = i
    return unitrows(queries), exclude


def _batch_by_chunks(index_to_key, queries, exclude, vecs, norms, k, topn):
    """:meth:`most_similar_batch` over a large vocabulary, ``_BATCH_QUERIES`` queries a pass."""
    out = []
    for start in range(0, len(queries), _BATCH_QUERIES):
        neg_q = -queries[start:start + _BATCH_QUERIES]
        for r, (idx, vals) in enumerate(chunked_bottom_k(neg_q, vecs, norms, k)):
            ex = exclude[start + r]
            res = [(index_to_key[i], 0.0 - v) for i, v in zip(idx.tolist(), vals.tolist()) if i != ex]
            out.append(res[:topn])
    return out
