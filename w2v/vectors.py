"""Trained word vectors: lookup, similarity queries and evaluation.

:class:`KeyedVectors` holds a vocabulary (``index_to_key``) and a float32
matrix with one row per word.  Its query methods follow gensim's
``KeyedVectors`` semantics (cosine similarity, the mean of unit vectors with
weights +1/-1, input words excluded from the answers), so results can be
compared one to one.

Using the vectors in PyTorch::

    import torch
    emb = torch.nn.Embedding.from_pretrained(torch.from_numpy(kv.vectors))
    ids = torch.from_numpy(kv.encode(["king", "queen"]))
    emb(ids)

(``torch.from_numpy`` shares memory; for a read-only memory map, pass
``np.array(kv.vectors)`` to get a writable copy first.)
"""
from __future__ import annotations

import logging
from numbers import Integral

import numpy as np

from .errors import ParameterError, UnknownWordError

logger = logging.getLogger(__name__)

__all__ = ["KeyedVectors"]

_KEY_TYPES = (str, int, np.integer)

try:  # gensim normalises with double-precision BLAS; mirror it when scipy is there
    from scipy.linalg.blas import dnrm2 as _dnrm2
except Exception:  # pragma: no cover - scipy is optional
    _dnrm2 = None

# Largest similarity block (queries x vocabulary) computed at once, in elements.
_BLOCK_ELEMENTS = 1 << 23

# A vocabulary loaded without its word index (native format) answers the first few
# distinct word lookups with a linear scan (C speed, ~15 ms per million words) instead of
# building the whole dict (~0.3-1 s per million words): a one-off query pays no index.
_SCAN_LOOKUPS = 8
_SCAN_MIN_WORDS = 50_000
_NORM_BLOCK = 1 << 18     # elements per block when computing the norms (a 1 MiB temporary)
_FILTER_MIN = 1 << 16     # top-k over at least this many scores: filter candidates first
_FILTER_RATIO = 64        # sample size / k for the filter threshold
_BATCH_QUERIES = 256      # queries per pass over a large vocabulary in most_similar_batch


def _unitvec(vec):
    """Scale a 1-D vector to unit length exactly as gensim's ``matutils.unitvec`` does.

    The length is computed in double precision, the vector is multiplied by
    its reciprocal in double precision and the result cast back to the input
    dtype.  A zero vector is returned unchanged.
    """
    vec = np.asarray(vec)
    if vec.size == 0:
        return vec
    v64 = np.asarray(vec, dtype=np.float64)
    veclen = float(_dnrm2(v64)) if _dnrm2 is not None else float(np.sqrt(np.dot(v64, v64)))
    if veclen > 0.0:
        out_dtype = np.float64 if np.issubdtype(vec.dtype, np.integer) else vec.dtype
        return (v64 * (1.0 / veclen)).astype(out_dtype)
    return vec


def _unitrows(mat):
    """Row-wise :func:`_unitvec` of a 2-D float64 array, returned as float32."""
    mat = np.asarray(mat, dtype=np.float64)
    if _dnrm2 is not None:
        lens = np.array([_dnrm2(row) for row in mat], dtype=np.float64)
    else:
        lens = np.sqrt(np.einsum("ij,ij->i", mat, mat))
    scale = np.ones_like(lens)
    nz = lens > 0
    scale[nz] = 1.0 / lens[nz]
    return (mat * scale[:, None]).astype(np.float32)


def _check_vector(vector, dim, what="vector"):
    """``vector`` as an array of shape ``(dim,)``, or :class:`ParameterError`."""
    arr = np.asarray(vector)
    if arr.shape != (dim,) or not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise ParameterError(f"{what} must be a numeric vector of shape ({dim},), got {arr.dtype} {arr.shape}")
    return arr


def _check_topn(topn):
    """``topn`` must be an integer or None (gensim: None returns every score)."""
    if topn is not None and (isinstance(topn, bool) or not isinstance(topn, Integral)):
        raise ParameterError(f"topn must be an integer or None, got {topn!r}")


def _ensure_list(value):
    """Wrap a single key or vector in a list (gensim's convention)."""
    if value is None:
        return []
    if isinstance(value, _KEY_TYPES) or (isinstance(value, np.ndarray) and value.ndim == 1):
        return [value]
    if isinstance(value, np.ndarray) and value.ndim == 2:
        return list(value)
    return list(value)


def _top_indices(scores, k):
    """Indices of the ``k`` largest ``scores``, largest first.

    Uses ``np.argpartition`` and sorts only the selected ``k`` (the same steps
    as gensim's ``matutils.argsort(..., reverse=True)``, so ties are ordered
    identically).
    """
    return _bottom_indices(-scores, k)


def _bottom_indices(neg, k):
    """:func:`_top_indices` of ``-neg``, given the negated scores (saves a negated copy).

    On large arrays (``_FILTER_MIN`` elements or more) the candidates are
    first cut down with one comparison against a threshold: the ``k``-th
    smallest value of a strided sample is at least the ``k``-th smallest of
    the whole array, so every element of the answer passes the filter, and
    the exact selection then runs on ~``64 k`` candidates instead of the
    whole vocabulary (a full ``argpartition`` of a million scores costs more
    than a quarter of a query).  Only the order among exactly tied scores
    can differ from gensim's, whose order among ties is arbitrary too.
    """
    n = neg.size
    if k <= 0:
        return np.empty(0, dtype=np.intp)
    if k >= n:
        return np.argsort(neg)[:k]
    if n >= _FILTER_MIN and k * _FILTER_RATIO <= n:
        step = max(1, n // (k * _FILTER_RATIO))
        sample = neg[::step].copy()
        if sample.size > k:
            threshold = np.partition(sample, k - 1)[k - 1]
            cand = np.flatnonzero(neg <= threshold)       # NaN threshold: no candidate, exact path
            if k <= cand.size < n // 4:
                sub = neg.take(cand)
                part = np.argpartition(sub, k)[:k] if cand.size > k else np.arange(cand.size)
                return cand.take(part.take(np.argsort(sub.take(part))))
    part = np.argpartition(neg, k)[:k]
    return part.take(np.argsort(neg.take(part)))


def _select(idx, vals, k):
    """The ``k`` smallest ``vals`` (ascending) with their ``idx``."""
    if vals.size > k:
        part = np.argpartition(vals, k)[:k]
        idx, vals = idx.take(part), vals.take(part)
    order = np.argsort(vals)
    return idx.take(order), vals.take(order)


def _chunked_bottom_k(neg_q, vecs, norms, k):
    """Per query row of ``neg_q``: the ``k`` smallest ``(neg_q @ vecs.T) / norms`` (ids, values).

    The vocabulary is processed in chunks of ``_BLOCK_ELEMENTS / len(neg_q)``
    rows.  Each row keeps a pool of candidates and a threshold, the ``k``-th
    smallest value of the pool once it holds ``k`` values: a later value
    above it cannot be in the answer, so only values at or below it join
    the pool (one vectorised comparison per chunk).  The answer is then
    selected exactly from the pool.  A row with fewer than ``k`` finite
    candidates (NaN scores of zero vectors) is redone on the whole row.
    """
    m, n = len(neg_q), len(vecs)
    chunk = max(1024, _BLOCK_ELEMENTS // max(1, m))
    thr = np.full(m, np.inf, dtype=np.float32)
    pool_i = [[] for _ in range(m)]
    pool_v = [[] for _ in range(m)]
    sizes = np.zeros(m, dtype=np.int64)
    for c0 in range(0, n, chunk):
        block = np.dot(neg_q, vecs[c0:c0 + chunk].T)
        np.divide(block, norms[None, c0:c0 + chunk], out=block)
        if c0 == 0 and block.shape[1] > k:
            # first thresholds: the k-th smallest of the first chunk (NaN rows: keep inf)
            first = np.partition(block, k - 1, axis=1)[:, k - 1]
            thr = np.where(np.isnan(first), np.float32(np.inf), first).astype(np.float32)
        width = block.shape[1]
        flat = np.flatnonzero(block <= thr[:, None])     # 1-D: much faster than a 2-D nonzero
        rows = flat // width
        cols = flat - rows * width
        vals = block.ravel().take(flat)
        bounds = np.searchsorted(rows, np.arange(m + 1))
        for r in np.flatnonzero(np.diff(bounds)).tolist():
            a, b = bounds[r], bounds[r + 1]
            pool_i[r].append(cols[a:b] + c0)
            pool_v[r].append(vals[a:b])
            sizes[r] += b - a
            if sizes[r] >= max(4 * k, 1024):
                i, v = _select(np.concatenate(pool_i[r]), np.concatenate(pool_v[r]), k)
                pool_i[r], pool_v[r], sizes[r] = [i], [v], v.size
                if v.size == k:
                    thr[r] = v[-1]
    out = []
    for r in range(m):
        idx = np.concatenate(pool_i[r]) if pool_i[r] else np.empty(0, np.intp)
        vals = np.concatenate(pool_v[r]) if pool_v[r] else np.empty(0, np.float32)
        if vals.size < k:
            row = np.dot(vecs, neg_q[r])
            np.divide(row, norms, out=row)
            idx = _bottom_indices(row, k)
            out.append((idx, row.take(idx)))
        else:
            out.append(_select(idx, vals, k))
    return out


class KeyedVectors:
    """A vocabulary and one float32 vector per word.

    Parameters
    ----------
    index_to_key : list of str
        The words, in row order (usually by descending frequency).
    vectors : array_like, shape (len(index_to_key), dim)
        The vectors.  Stored as C-contiguous float32; an array that already
        is float32 and C-contiguous (a read-only ``np.memmap`` included) is
        kept as is, without a copy.
    counts : array_like of int, optional
        Corpus frequency of each word (stored as int64).
    settings : dict, optional
        The training settings that produced the vectors (informational).

    Attributes
    ----------
    index_to_key : list of str
    key_to_index : dict of str to int
    vectors : numpy.ndarray
    counts : numpy.ndarray or None
    settings : dict
    vector_size, dim : int

    Notes
    -----
    The query methods (:meth:`most_similar`, :meth:`similarity`, ...) follow
    gensim's ``KeyedVectors``.  Unit-normalised vectors are computed once and
    cached; assigning a new array to :attr:`vectors` drops the cache (after
    modifying the array in place, call :meth:`fill_norms` with
    ``force=True``).

    To feed the vectors to PyTorch::

        torch.nn.Embedding.from_pretrained(torch.from_numpy(kv.vectors))
    """

    def __init__(self, index_to_key, vectors, counts=None, settings=None):
        if isinstance(index_to_key, str):
            raise ParameterError("index_to_key must be a list of str, not a str")
        keys = list(index_to_key)
        key_to_index = dict(zip(keys, range(len(keys))))
        if len(key_to_index) != len(keys) or not all(issubclass(t, str) for t in set(map(type, keys))):
            seen = {}
            for i, key in enumerate(keys):
                if not isinstance(key, str):
                    raise ParameterError(f"index_to_key[{i}] is {type(key).__name__}, expected str")
                if key in seen:
                    raise ParameterError(f"duplicate word {key!r} at rows {seen[key]} and {i}")
                seen[key] = i
        self.index_to_key = keys
        self._key_to_index = key_to_index
        self._vectors = None
        self._norms = None
        self._normed = None
        self.vectors = vectors
        if counts is not None:
            counts = np.asarray(counts)
            if counts.ndim != 1 or counts.shape[0] != len(keys):
                raise ParameterError(
                    f"counts has shape {counts.shape}, expected ({len(keys)},)"
                )
            if counts.size and not np.issubdtype(counts.dtype, np.integer):
                if not np.all(np.isfinite(counts)) or np.any(counts != np.round(counts)):
                    raise ParameterError("counts must be integers")
            counts = np.ascontiguousarray(counts, dtype=np.int64)
        self.counts = counts
        self.settings = dict(settings) if settings else {}
        #: where the vectors were loaded from and in which format (set by the loaders)
        self.source_format = None
        self.source_path = None

    @classmethod
    def _trusted(cls, index_to_key, vectors, counts=None, settings=None, key_to_index=None, source=None):
        """Build without re-validating the vocabulary (for the loaders).

        ``index_to_key`` must be a list of distinct str; ``key_to_index`` is
        built on first use when not given (duplicates then raise FormatError
        naming ``source``).
        """
        self = cls.__new__(cls)
        self.index_to_key = index_to_key
        self._key_to_index = key_to_index
        self._source_for_errors = source
        self._vectors = None
        self._norms = None
        self._normed = None
        self.vectors = vectors
        self.counts = None if counts is None else np.ascontiguousarray(counts, dtype=np.int64)
        self.settings = dict(settings) if settings else {}
        self.source_format = None
        self.source_path = None
        return self

    @property
    def key_to_index(self):
        """Dict mapping each word to its row index."""
        k2i = self._key_to_index
        if k2i is None:
            keys = self.index_to_key
            k2i = dict(zip(keys, range(len(keys))))
            if len(k2i) != len(keys):
                seen = set()
                dup = next(k for k in keys if k in seen or seen.add(k))
                from .errors import FormatError
                src = getattr(self, "_source_for_errors", None) or "vocabulary"
                raise FormatError(f"{src}: duplicate word {dup!r}")
            self._key_to_index = k2i
        return k2i

    @key_to_index.setter
    def key_to_index(self, value):
        self._key_to_index = value
        self._scanned = None

    def _find(self, key):
        """Row of the word ``key`` (a str), or -1; see ``_SCAN_LOOKUPS``."""
        k2i = self._key_to_index
        if k2i is not None:
            return k2i.get(key, -1)
        scanned = getattr(self, "_scanned", None)
        if scanned is None:
            scanned = self._scanned = {}
        found = scanned.get(key)
        if found is not None:
            return found
        if len(scanned) >= _SCAN_LOOKUPS or len(self.index_to_key) < _SCAN_MIN_WORDS:
            return self.key_to_index.get(key, -1)
        try:
            found = self.index_to_key.index(key)
        except ValueError:
            found = -1
        scanned[key] = found
        return found

    # ------------------------------------------------------------------ storage
    @property
    def vectors(self):
        """The (vocabulary size, dim) float32 matrix, C-contiguous."""
        return self._vectors

    @vectors.setter
    def vectors(self, value):
        arr = value
        if not (isinstance(arr, np.ndarray) and arr.dtype == np.float32 and arr.flags.c_contiguous):
            arr = np.ascontiguousarray(arr, dtype=np.float32)
        if arr.ndim != 2:
            raise ParameterError(f"vectors must be 2-D, got shape {arr.shape}")
        if arr.shape[0] != len(self.index_to_key):
            raise ParameterError(
                f"vectors has {arr.shape[0]} rows but the vocabulary has {len(self.index_to_key)} words"
            )
        self._vectors = arr
        self._norms = None
        self._normed = None

    @property
    def vector_size(self):
        """Dimensionality of the vectors."""
        return int(self._vectors.shape[1])

    dim = vector_size

    @property
    def norms(self):
        """L2 norm of every vector (float32, cached)."""
        self.fill_norms()
        return self._norms

    def fill_norms(self, force=False):
        """Compute and cache the vector norms and unit vectors.

        Parameters
        ----------
        force : bool, optional
            Recompute even if cached (needed after modifying :attr:`vectors`
            in place).
        """
        if self._norms is None or force:
            # np.linalg.norm(vectors, axis=1) (gensim's norms, bit for bit), block by block in a
            # cache-sized temporary instead of a full-size one: about 2x faster on large models
            vecs = self._vectors
            rows = max(1, _NORM_BLOCK // max(1, vecs.shape[1]))
            norms = np.empty(len(vecs), dtype=vecs.dtype)
            tmp = np.empty((min(rows, len(vecs)), vecs.shape[1]), dtype=vecs.dtype)
            for start in range(0, len(vecs), rows):
                block = vecs[start:start + rows]
                sq = np.multiply(block, block, out=tmp[:len(block)])
                np.sqrt(np.add.reduce(sq, axis=1), out=norms[start:start + rows])
            self._norms = norms
            self._normed = None

    def get_normed_vectors(self):
        """All vectors scaled to unit length (computed once and cached; do not modify).

        Zero vectors stay zero.

        Returns
        -------
        numpy.ndarray
            float32 array of shape ``(len(self), dim)``.
        """
        self.fill_norms()
        if self._normed is None:
            norms = self._norms
            with np.errstate(divide="ignore", invalid="ignore"):
                normed = self._vectors / norms[:, None]
            bad = norms == 0
            if bad.any():
                normed[bad] = 0.0
            self._normed = np.ascontiguousarray(normed, dtype=np.float32)
        return self._normed

    def __len__(self):
        return len(self.index_to_key)

    def __contains__(self, key):
        return key in self.key_to_index

    def has_index_for(self, key):
        """Whether ``key`` is a word of the vocabulary."""
        return self.get_index(key, -1) >= 0

    def __repr__(self):
        return f"<KeyedVectors: {len(self)} words x {self.vector_size} dims>"

    def get_index(self, key, default=None):
        """Row index of ``key``.

        Parameters
        ----------
        key : str or int
            A word, or an integer row index (returned unchanged if in range).
        default : int, optional
            Returned when ``key`` is unknown; if None, raise.

        Returns
        -------
        int

        Raises
        ------
        UnknownWordError
            ``key`` is not in the vocabulary and no ``default`` was given.
        """
        val = self._find(key) if isinstance(key, str) else -1
        if val >= 0:
            return val
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool) and 0 <= key < len(self.index_to_key):
            return int(key)
        if default is not None:
            return default
        raise UnknownWordError.for_word(key)

    def get_vector(self, key, norm=False):
        """Vector of one word.

        Parameters
        ----------
        key : str or int
            The word (or its row index).
        norm : bool, optional
            Return the unit-length vector.

        Returns
        -------
        numpy.ndarray
            Read-only 1-D float32 array.

        Raises
        ------
        UnknownWordError
            The word is not in the vocabulary.
        """
        index = self.get_index(key)
        if norm:
            if self._normed is not None:
                result = self._normed[index]
            else:
                norm_value = self.norms[index]
                result = self._vectors[index] / norm_value if norm_value != 0 else self._vectors[index] * 0
        else:
            result = self._vectors[index]
        result = result.view()
        result.setflags(write=False)
        return result

    def __getitem__(self, key_or_keys):
        if isinstance(key_or_keys, _KEY_TYPES):
            return self.get_vector(key_or_keys)
        keys = list(key_or_keys)
        idx = np.array([self.get_index(k) for k in keys], dtype=np.intp)
        return self._vectors[idx].reshape(len(idx), self.vector_size)

    def lookup(self, ids):
        """Gather the vectors of integer ids of any shape.

        Parameters
        ----------
        ids : array_like of int
            Row indices, any shape.

        Returns
        -------
        numpy.ndarray
            Float32 array of shape ``ids.shape + (dim,)``.

        Raises
        ------
        ParameterError
            ``ids`` are not integers, or one is negative or ``>= len(self)``.
        """
        arr = np.asarray(ids)
        if arr.size == 0:
            return np.empty(arr.shape + (self.vector_size,), dtype=np.float32)
        if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
            raise ParameterError(f"ids must be integers, got dtype {arr.dtype}")
        lo, hi = int(arr.min()), int(arr.max())
        n = len(self)
        if lo < 0 or hi >= n:
            bad = lo if lo < 0 else hi
            raise ParameterError(f"id {bad} out of range: the vocabulary has {n} words (valid ids 0..{n - 1})")
        return np.take(self._vectors, arr.astype(np.intp, copy=False), axis=0)

    def encode(self, tokens, unknown="error"):
        """Map words to row ids.

        Parameters
        ----------
        tokens : iterable of str
            The words.
        unknown : {'error'} or int, optional
            ``'error'`` raises UnknownWordError (a KeyError) on the first unknown word; an integer
            (e.g. -1) is used as the id of unknown words.

        Returns
        -------
        numpy.ndarray
            int64 array with one id per token.

        Raises
        ------
        UnknownWordError
            A word is unknown and ``unknown='error'``.
        """
        if isinstance(tokens, str):
            raise ParameterError("tokens must be a sequence of str, not a single str")
        if isinstance(unknown, str):
            if unknown != "error":
                raise ParameterError(f"unknown must be 'error' or an integer, got {unknown!r}")
            k2i = self.key_to_index
            out = []
            for tok in tokens:
                i = k2i.get(tok)
                if i is None:
                    raise UnknownWordError.for_word(tok)
                out.append(i)
            return np.array(out, dtype=np.int64)
        if isinstance(unknown, bool) or not isinstance(unknown, Integral):
            raise ParameterError(f"unknown must be 'error' or an integer, got {unknown!r}")
        get = self.key_to_index.get
        unk = int(unknown)
        return np.array([get(tok, unk) for tok in tokens], dtype=np.int64)

    # ------------------------------------------------------------- similarity
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
        """
        if len(keys) == 0:
            raise ParameterError("cannot compute mean with no input")
        if isinstance(weights, list):
            weights = np.array(weights, dtype=self._vectors.dtype)
        if weights is None:
            weights = np.ones(len(keys), dtype=self._vectors.dtype)
        if len(keys) != weights.shape[0]:
            raise ParameterError("keys and weights array must have same number of elements")
        mean = np.zeros(self.vector_size, self._vectors.dtype)
        total_weight = 0
        for idx, key in enumerate(keys):
            if isinstance(key, np.ndarray):
                mean += weights[idx] * _check_vector(key, self.vector_size, f"vector {idx}")
                total_weight += abs(weights[idx])
            elif self.has_index_for(key):
                mean += weights[idx] * self.get_vector(key, norm=pre_normalize)
                total_weight += abs(weights[idx])
            elif not ignore_missing:
                raise UnknownWordError.for_word(key)
        if total_weight > 0:
            mean = mean / total_weight
        if post_normalize:
            mean = _unitvec(mean).astype(np.float32)
        return mean

    def _parse_terms(self, positive, negative):
        positive = _ensure_list(positive)
        negative = _ensure_list(negative)
        keys = []
        weight = np.concatenate((np.ones(len(positive)), -1.0 * np.ones(len(negative))))
        for idx, item in enumerate(positive + negative):
            if isinstance(item, (str, int, np.integer, np.ndarray)):
                keys.append(item)
            else:
                keys.append(item[0])
                weight[idx] = item[1]
        return keys, weight

    @staticmethod
    def _clip(restrict_vocab, n):
        if restrict_vocab:
            if isinstance(restrict_vocab, bool) or not isinstance(restrict_vocab, Integral) or restrict_vocab < 0:
                raise ParameterError(f"restrict_vocab must be a positive integer, got {restrict_vocab!r}")
            return min(int(restrict_vocab), n)
        return n

    def most_similar(self, positive=None, negative=None, topn=10, restrict_vocab=None):
        """Words closest by cosine to the mean of ``positive`` minus ``negative``.

        Parameters
        ----------
        positive : list of (str or ndarray or (str, float)), optional
            Words (or vectors) that count positively (weight +1 unless given).
        negative : list of (str or ndarray or (str, float)), optional
            Words (or vectors) that count negatively (weight -1 unless given).
        topn : int or None, optional
            Number of results; None returns the similarity to every word of
            the (restricted) vocabulary as an array.
        restrict_vocab : int, optional
            Search only the first ``restrict_vocab`` words.

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
            ``topn`` is not an integer or None, or an input vector is not of length ``dim``.
        """
        _check_topn(topn)
        if isinstance(topn, Integral) and topn < 1:
            return []
        keys, weight = self._parse_terms(positive, negative)
        self.fill_norms()
        clip_end = self._clip(restrict_vocab, len(self))
        mean = self.get_mean_vector(keys, weight, pre_normalize=True, post_normalize=True, ignore_missing=False)
        if not np.any(mean):   # e.g. positive=["a"], negative=["a"]: every score would be 0
            raise ParameterError("the query terms cancel out: their weighted mean is the zero vector")
        all_keys = [
            self.get_index(key) for key in keys if isinstance(key, _KEY_TYPES) and self.has_index_for(key)
        ]
        vecs, norms = self._vectors[:clip_end], self._norms[:clip_end]
        if not topn:
            return np.dot(vecs, mean) / norms
        # the negated cosines, computed in place: vecs @ -mean is -(vecs @ mean) bit for bit
        # and (-a) / b is -(a / b), so the scores (and gensim's tie order) are unchanged
        neg = np.dot(vecs, -mean)
        np.divide(neg, norms, out=neg)
        best = _bottom_indices(neg, topn + len(all_keys))
        excluded = set(all_keys)
        result = [(self.index_to_key[i], -float(neg[i])) for i in best if i not in excluded]
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
        """
        _check_topn(topn)
        if isinstance(topn, Integral) and topn < 1:
            return []
        positive = _ensure_list(positive)
        negative = _ensure_list(negative)
        self.fill_norms()
        all_words = {
            self.get_index(w) for w in positive + negative
            if not isinstance(w, np.ndarray) and w in self.key_to_index
        }
        positive = [self.get_vector(w, norm=True) if isinstance(w, str) else _check_vector(w, self.vector_size)
                    for w in positive]
        negative = [self.get_vector(w, norm=True) if isinstance(w, str) else _check_vector(w, self.vector_size)
                    for w in negative]
        if not positive:
            raise ParameterError("cannot compute similarity with no input")
        clip_end = self._clip(restrict_vocab, len(self))
        vecs, norms = self._vectors[:clip_end], self._norms[:clip_end]
        pos_dists = [((1 + np.dot(vecs, term) / norms) / 2) for term in positive]
        neg_dists = [((1 + np.dot(vecs, term) / norms) / 2) for term in negative]
        dists = np.prod(pos_dists, axis=0) / (np.prod(neg_dists, axis=0) + 0.000001)
        if not topn:
            return dists
        best = _top_indices(dists, topn + len(all_words))
        result = [(self.index_to_key[i], float(dists[i])) for i in best if i not in all_words]
        return result[:topn]

    def similar_by_word(self, word, topn=10, restrict_vocab=None):
        """Most similar words to one word (see :meth:`most_similar`)."""
        return self.most_similar(positive=[word], topn=topn, restrict_vocab=restrict_vocab)

    similar_by_key = similar_by_word

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
        vector = _check_vector(vector, self.vector_size)
        return self.most_similar(positive=[vector], topn=topn, restrict_vocab=restrict_vocab)

    def most_similar_batch(self, words, topn=10, restrict_vocab=None):
        """Answer many single-word :meth:`most_similar` queries with matrix products.

        Parameters
        ----------
        words : list of (str or numpy.ndarray)
            Query words (excluded from their own answers) or query vectors.
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
        """
        words = list(words) if not isinstance(words, (str, np.ndarray)) else _ensure_list(words)
        if not words:
            return []
        if isinstance(topn, bool) or not isinstance(topn, Integral):
            raise ParameterError(f"topn must be an integer, got {topn!r}")
        if topn < 1:
            return [[] for _ in words]
        self.fill_norms()
        clip_end = self._clip(restrict_vocab, len(self))
        dim = self.vector_size
        queries = np.empty((len(words), dim), dtype=np.float64)
        exclude = np.full(len(words), -1, dtype=np.int64)
        for j, w in enumerate(words):
            if isinstance(w, np.ndarray):
                queries[j] = _check_vector(w, dim, f"query vector {j}")
            else:
                i = self.get_index(w)
                queries[j] = self.get_vector(i, norm=True)
                exclude[j] = i
        queries = _unitrows(queries)
        vecs, norms = self._vectors[:clip_end], self._norms[:clip_end]
        k = min(topn + 1, clip_end)
        out = []
        block = max(1, _BLOCK_ELEMENTS // max(clip_end, 1))
        if block < _BATCH_QUERIES and len(words) > block:
            # a large vocabulary: blocks of _BATCH_QUERIES queries against chunks of the
            # vocabulary, so that each pass over the vectors serves many queries
            for start in range(0, len(words), _BATCH_QUERIES):
                neg_q = -queries[start:start + _BATCH_QUERIES]
                for r, (idx, vals) in enumerate(_chunked_bottom_k(neg_q, vecs, norms, k)):
                    ex = exclude[start + r]
                    res = [(self.index_to_key[i], -float(v)) for i, v in zip(idx.tolist(), vals.tolist())
                           if i != ex]
                    out.append(res[:topn])
            return out
        for start in range(0, len(words), block):
            # negated cosines, divided in place (see most_similar): one block-sized array
            neg = np.dot(-queries[start:start + block], vecs.T)
            np.divide(neg, norms[None, :], out=neg)
            for r in range(len(neg)):
                ex = exclude[start + r]
                row = neg[r]
                res = [(self.index_to_key[i], -float(row[i])) for i in _bottom_indices(row, k) if i != ex]
                out.append(res[:topn])
        return out

    @staticmethod
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
            Shape (n,).
        """
        norm = np.linalg.norm(vector_1)
        all_norms = np.linalg.norm(vectors_all, axis=1)
        return np.dot(vectors_all, vector_1) / (norm * all_norms)

    def similarity(self, w1, w2):
        """Cosine similarity of two words.

        Parameters
        ----------
        w1, w2 : str

        Returns
        -------
        float
        """
        return float(np.dot(_unitvec(self[w1]), _unitvec(self[w2])))

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
        """
        if isinstance(word_or_vector, _KEY_TYPES):
            input_vector = self.get_vector(word_or_vector)
        else:
            input_vector = _check_vector(word_or_vector, self.vector_size)
        other_words = list(other_words) if other_words is not None else []
        if not other_words:
            other_vectors = self._vectors
        else:
            other_vectors = self._vectors[[self.get_index(w) for w in other_words]]
        return 1 - self.cosine_similarities(input_vector, other_vectors)

    def n_similarity(self, ws1, ws2):
        """Cosine similarity between the means of two sets of words.

        Parameters
        ----------
        ws1, ws2 : list of str

        Returns
        -------
        float
        """
        if not (len(ws1) and len(ws2)):
            raise ZeroDivisionError("At least one of the passed list is empty.")
        mean1 = self.get_mean_vector(ws1, pre_normalize=False)
        mean2 = self.get_mean_vector(ws2, pre_normalize=False)
        return float(np.dot(_unitvec(mean1), _unitvec(mean2)))

    def rank_by_centrality(self, words, use_norm=True):
        """Rank words by cosine to the centroid of all of them.

        Parameters
        ----------
        words : list of str
            Unknown words are ignored (with a warning).
        use_norm : bool, optional
            Average unit vectors.

        Returns
        -------
        list of (float, str)
            Most central first.
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
        """
        return self.rank_by_centrality(words)[-1][1]

    # ------------------------------------------------------- saving, evaluation
    def save(self, path):
        """Save in the native format (a directory); see :func:`w2v.formats.save_native`."""
        from .formats import save_native
        save_native(self, path)

    def save_word2vec_format(self, path, binary=True):
        """Save in word2vec.c's format; see :func:`w2v.formats.save_word2vec_format`."""
        from .formats import save_word2vec_format
        save_word2vec_format(self, path, binary=binary)

    @classmethod
    def load(cls, path, binary=None, limit=None, mmap=True):
        """Load any supported format; see :func:`w2v.formats.load`."""
        from .formats import load
        return load(path, binary=binary, limit=limit, mmap=mmap)

    def evaluate_word_analogies(self, path, restrict_vocab=300000, case_insensitive=True,
                                dummy4unknown=False, method="3cosadd"):
        """Analogy accuracy; see :func:`w2v.evaluate.evaluate_word_analogies`."""
        from .evaluate import evaluate_word_analogies
        return evaluate_word_analogies(self, path, restrict_vocab=restrict_vocab,
                                       case_insensitive=case_insensitive,
                                       dummy4unknown=dummy4unknown, method=method)

    def evaluate_word_pairs(self, path, restrict_vocab=300000, case_insensitive=True, dummy4unknown=False):
        """Correlation with human similarity judgements; see :func:`w2v.evaluate.evaluate_word_pairs`."""
        from .evaluate import evaluate_word_pairs
        return evaluate_word_pairs(self, path, restrict_vocab=restrict_vocab,
                                   case_insensitive=case_insensitive, dummy4unknown=dummy4unknown)
