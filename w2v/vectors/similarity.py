"""Comparing given words and vectors: means, cosine similarities and distances.

These methods of :class:`w2v.vectors.keyed.KeyedVectors` follow gensim's
``KeyedVectors`` (cosine similarity of unit vectors computed in double
precision, means of unit vectors with weights); a zero vector has cosine 0
with everything.  They are plain functions bound in the class body (their
first parameter is ``self``, see :mod:`w2v.vectors.keyed`); the helpers that
are not methods take the vectors as ``kv``.
"""
import logging
import reprlib

import numpy as np

from ..util.arrays import row_norms, unitvec
from ..errors import ParameterError, UnknownWordError
from .terms import KEY_TYPES, bad_key, check_vector, is_key

logger = logging.getLogger(__name__)

__all__ = ["cosine_similarities", "distance", "distances", "doesnt_match", "get_mean_vector", "n_similarity",
           "rank_by_centrality", "similarity"]


def _quiet():
    """Silence float overflow: a float32 sum of huge (finite) vectors, redone in float64."""
    return np.errstate(over="ignore", invalid="ignore")


class _EmptyListError(ParameterError, ZeroDivisionError):
    """An empty word list given to :meth:`KeyedVectors.n_similarity`.

    A :class:`ParameterError` that is also the ``ZeroDivisionError`` gensim
    raises there, so code written for gensim catches it unchanged.
    """


def _mean_in_float64(terms, total_weight, dim, dtype, post_normalize):
    """The weighted mean of ``terms`` (``(weight, vector)`` pairs) computed in float64.

    For a float32 sum of huge (finite) values that overflowed: the weighted
    mean of finite float32 vectors is within the float32 range again.
    """
    acc = np.zeros(dim, np.float64)
    for w, vec in terms:
        acc += float(w) * np.asarray(vec, np.float64)
    acc /= float(total_weight)
    with _quiet():
        mean = unitvec(acc).astype(np.float32) if post_normalize else acc.astype(dtype)
    if not np.isfinite(mean).all():   # raw vectors beyond the float32 range
        raise ParameterError("the mean of the query vectors is not finite in float32")
    return mean


def get_mean_vector(self, keys, weights=None, pre_normalize=True, post_normalize=False, ignore_missing=True):
    """Weighted mean of the vectors of ``keys`` (gensim semantics).

    Parameters
    ----------
    keys : list of (str or int or numpy.ndarray)
        Words, row indices or raw vectors.
    weights : array_like of float, optional
        One weight per key (default 1.0); the mean divides by the sum of
        the absolute weights.
    pre_normalize : bool, optional
        Use unit vectors of the words (raw vectors are never normalised).
    post_normalize : bool, optional
        Scale the mean to unit length.
    ignore_missing : bool, optional
        Skip unknown words instead of raising UnknownWordError.

    Returns
    -------
    numpy.ndarray
        The mean vector.

    Raises
    ------
    ParameterError
        No keys, a key that is neither a word, a row index nor a vector,
        a vector of the wrong length, or a weight or vector value that is
        not a finite number.
    UnknownWordError
        A word is unknown and not ``ignore_missing``.
    """
    if len(keys) == 0:
        raise ParameterError("cannot compute mean with no input")
    dtype = self.store.vectors.dtype
    weights = _mean_weights(keys, weights, dtype)
    mean = np.zeros(self.vector_size, dtype)
    total_weight = 0
    terms = []
    for idx, key in enumerate(keys):
        vec = _mean_term(self, key, "query vector" if len(keys) == 1 else f"query vector {idx}",
                              pre_normalize, ignore_missing)
        if vec is None:
            continue
        with _quiet():   # an overflow of huge values is redone in float64 below
            mean += weights[idx] * vec
        total_weight += abs(weights[idx])
        terms.append((weights[idx], vec))
    if total_weight > 0:
        mean = mean / total_weight
    if not np.isfinite(mean).all():
        return _mean_in_float64(terms, total_weight, self.vector_size, dtype, post_normalize)
    if post_normalize:
        mean = unitvec(mean).astype(np.float32)
    return mean


def _mean_weights(keys, weights, dtype):
    """The weights of :meth:`get_mean_vector` as a checked 1-D array (ones of ``dtype`` when None)."""
    if weights is None:
        weights = np.ones(len(keys), dtype=dtype)
    else:
        try:
            weights = np.asarray(weights, dtype=dtype if isinstance(weights, list) else None)
            ok = weights.ndim == 1 and weights.dtype.kind in "fiu"
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ParameterError(f"weights must be a 1-D array of numbers, got {reprlib.repr(weights)}")
        if not np.isfinite(weights).all():
            raise ParameterError("the query weights are not finite: they hold NaN or infinity")
    if len(keys) != weights.shape[0]:
        raise ParameterError("keys and weights array must have same number of elements")
    return weights


def _mean_term(kv, key, what, pre_normalize, ignore_missing):
    """The vector of one term of :meth:`get_mean_vector`; None for an unknown word ignored."""
    if isinstance(key, np.ndarray):
        return check_vector(key, kv.vector_size, what)
    if not is_key(key):
        raise bad_key(key)
    if kv.has_index_for(key):
        return kv.get_vector(key, norm=pre_normalize)
    if not ignore_missing:
        raise UnknownWordError.for_word(key)
    return None


def cosine_similarities(vector_1, vectors_all):
    """Cosine similarity between one vector and each row of a matrix.

    Parameters
    ----------
    vector_1 : numpy.ndarray
        Shape (dim,).
    vectors_all : numpy.ndarray
        Shape (n, dim).

    Returns
    -------
    numpy.ndarray
        Shape (n,).  A zero vector (``vector_1`` or a row) has cosine 0.0
        with everything.

    Raises
    ------
    ParameterError
        The shapes do not match (``vector_1`` must have as many values as
        ``vectors_all`` has columns) or a value is NaN or infinite.
    """
    mat = np.asarray(vectors_all)
    if mat.ndim != 2 or mat.dtype.kind not in "fiu":
        raise ParameterError(f"vectors_all must be a numeric 2-D array, got {mat.dtype} {mat.shape}")
    vec = check_vector(vector_1, mat.shape[1], "vector_1")
    if mat.dtype.kind != "f":
        mat = mat.astype(np.float64)
    _, div, bad = row_norms(mat)
    if bad >= 0:
        raise ParameterError(f"vectors_all row {bad} holds NaN or infinity, or its norm passes "
                             "half the float32 range")
    # the unit query (float64 length) keeps every |row . q| below the row's norm: no overflow
    return np.dot(mat, unitvec(vec.astype(mat.dtype))) / div


def similarity(self, w1, w2):
    """Cosine similarity of two words.

    Parameters
    ----------
    w1, w2 : str
        Words (or row indices).

    Returns
    -------
    float

    Raises
    ------
    UnknownWordError
        A word is not in the vocabulary.
    ParameterError
        A key is neither a word nor a row index (e.g. a list of words,
        which ``kv[...]`` would turn into a matrix).
    """
    return float(np.dot(unitvec(self.get_vector(w1)), unitvec(self.get_vector(w2))))


def distance(self, w1, w2):
    """Cosine distance (1 - similarity) of two words."""
    return 1 - self.similarity(w1, w2)


def distances(self, word_or_vector, other_words=()):
    """Cosine distances from a word or vector to other words.

    Parameters
    ----------
    word_or_vector : str or numpy.ndarray
    other_words : iterable of str, optional
        If empty, the distance to every word of the vocabulary.

    Returns
    -------
    numpy.ndarray
        ``1 - cosine``; a zero vector is at distance 1 from everything.

    Raises
    ------
    ParameterError
        ``other_words`` is a single str (or bytes), not a list of words.
    """
    if isinstance(other_words, (str, bytes, bytearray)):
        # list("queen") would be the letters, each a word of a large vocabulary
        raise ParameterError("other_words must be a list of words, not a single str")
    if isinstance(word_or_vector, KEY_TYPES):
        unit = self.get_vector(word_or_vector, norm=True)
    else:
        unit = unitvec(check_vector(word_or_vector, self.vector_size, "query vector").astype(np.float32))
    other_words = list(other_words) if other_words is not None else []
    if other_words:
        return 1 - self.cosine_similarities(unit, self.store.vectors[[self.get_index(w) for w in other_words]])
    # every word: the cached norms, no pass to compute them again
    self.fill_norms()
    return 1 - np.dot(self.store.vectors, unit) / self.store.divisors


def n_similarity(self, ws1, ws2):
    """Cosine similarity between the means of two sets of words.

    Parameters
    ----------
    ws1, ws2 : list of str

    Returns
    -------
    float
        0.0 when a mean is the zero vector.

    Raises
    ------
    ParameterError
        A list is empty (also a ``ZeroDivisionError``, as gensim raises).
    UnknownWordError
        A word is not in the vocabulary (gensim silently skips it).
    """
    if isinstance(ws1, str) or isinstance(ws2, str):
        raise ParameterError("n_similarity takes two lists of words, not a str")
    if not (len(ws1) and len(ws2)):
        raise _EmptyListError("empty word list: n_similarity needs at least one word in each list")
    mean1 = self.get_mean_vector(ws1, pre_normalize=False, ignore_missing=False)
    mean2 = self.get_mean_vector(ws2, pre_normalize=False, ignore_missing=False)
    return float(np.dot(unitvec(mean1), unitvec(mean2)))


def rank_by_centrality(self, words, use_norm=True):
    """Rank words by cosine to the centroid of all of them.

    Parameters
    ----------
    words : list of str
        Unknown words are ignored (with a logged warning, as gensim).
    use_norm : bool, optional
        Average unit vectors.

    Returns
    -------
    list of (float, str)
        Most central first.

    Raises
    ------
    ParameterError
        No word of ``words`` is in the vocabulary.
    """
    self.fill_norms()
    used = [w for w in words if w in self]
    if len(used) != len(words):
        logger.warning("vectors for words %s are not present in the model, ignoring these words",
                       set(words) - set(used))
    if not used:
        raise ParameterError("cannot select a word from an empty list")
    vectors = np.vstack([self.get_vector(w, norm=use_norm) for w in used]).astype(np.float32)
    mean = self.get_mean_vector(vectors, post_normalize=True)
    dists = np.dot(vectors, mean)
    return sorted(zip(dists, used), reverse=True)


def doesnt_match(self, words):
    """The word furthest from the mean of the words.

    Parameters
    ----------
    words : list of str

    Returns
    -------
    str

    Raises
    ------
    ParameterError
        No word of ``words`` is in the vocabulary (unknown words are
        ignored).
    """
    return self.rank_by_centrality(words)[-1][1]
