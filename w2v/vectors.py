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
import reprlib
from numbers import Integral, Real

import numpy as np

from .arrays import first_nonfinite_row
from .errors import FormatError, ParameterError, UnknownWordError

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

# A float32 norm computed from float32 squares is exact to rounding only in a middle range:
# above ~1.8e19 the squares overflow to inf, below ~1e-19 they go subnormal (and vanish below
# ~4e-23).  Rows whose fast norm falls outside [_TINY_NORM, float32 max] are recomputed in
# float64 from the row scaled by its largest |value|, which is exact for any finite row.
_TINY_NORM = 1e-15
_F32_MAX = float(np.finfo(np.float32).max)
# A score is ``row . q / norm`` with a unit query ``q``: |row . q| <= norm, so no float32 dot
# product overflows while every norm stays below half the float32 range (room for rounding).
# A row with a larger norm (values near the float32 maximum) is refused, as NaN and inf are.
_HUGE_NORM = _F32_MAX / 2


def _quiet():
    """Silence float overflow: a float32 sum of huge (finite) vectors, redone in float64."""
    return np.errstate(over="ignore", invalid="ignore")


class _EmptyListError(ParameterError, ZeroDivisionError):
    """An empty word list given to :meth:`KeyedVectors.n_similarity`.

    A :class:`ParameterError` that is also the ``ZeroDivisionError`` gensim
    raises there, so code written for gensim catches it unchanged.
    """


def _is_key(key):
    """Whether ``key`` is a word (str) or a row index (an integer, not a bool)."""
    return isinstance(key, _KEY_TYPES) and not isinstance(key, bool)


def _bad_key(key):
    """The :class:`ParameterError` for a key that is neither a word nor a row index."""
    return ParameterError(
        f"a key must be a word (str) or a row index (int), got {type(key).__name__} {reprlib.repr(key)}"
    )


def _row_norms(vecs):
    """Norms of the rows of a 2-D float array, robust to any finite value.

    Parameters
    ----------
    vecs : numpy.ndarray
        Shape ``(n, dim)``, float32 (or float64).

    Returns
    -------
    norms : numpy.ndarray
        ``np.linalg.norm(vecs, axis=1)`` bit for bit (gensim's norms) on every
        row whose squares neither overflow nor go subnormal; the other rows
        are recomputed in float64.
    div : numpy.ndarray
        The divisor of the scores ``vecs @ q / div``: ``norms`` with 1 for zero
        rows (whose dot product is exactly 0, so their cosine is 0, not NaN);
        ``norms`` itself when there are none.
    bad : int
        The first row holding NaN or infinity or whose norm passes
        ``_HUGE_NORM``, or -1.
    """
    n, dim = vecs.shape
    # np.linalg.norm(vecs, axis=1) (gensim's norms, bit for bit), block by block in a
    # cache-sized temporary instead of a full-size one: about 2x faster on large models
    rows = max(1, _NORM_BLOCK // max(1, dim))
    norms = np.empty(n, dtype=vecs.dtype)
    tmp = np.empty((min(rows, n), dim), dtype=vecs.dtype)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for start in range(0, n, rows):
            block = vecs[start:start + rows]
            sq = np.multiply(block, block, out=tmp[:len(block)])
            np.sqrt(np.add.reduce(sq, axis=1), out=norms[start:start + rows])
    # NaN compares False: rows with NaN are suspects too; so are zero rows (cheap to redo)
    suspects = np.flatnonzero(~((norms >= _TINY_NORM) & (norms <= _F32_MAX)))
    if suspects.size == 0:
        return norms, norms, -1
    for start in range(0, suspects.size, rows):
        idx = suspects[start:start + rows]
        sub = vecs[idx].astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            # ||v|| = m ||v / m|| with m = max |v_i|: no square overflows or underflows
            m = np.abs(sub).max(axis=1)
            m[m == 0] = 1.0
            sub /= m[:, None]
            scaled = np.sqrt(np.einsum("ij,ij->i", sub, sub))
            exact = m * scaled
            # NaN or inf values (a finite row has a finite norm), or a norm too large to score
            refused = ~(exact <= _HUGE_NORM)
            if refused.any():
                return norms, norms, int(idx[np.argmax(refused)])
            norms[idx] = exact
    div = norms.copy()
    div[norms == 0] = 1.0
    return norms, div, -1


def _as_matrix(value):
    """``value`` as a C-contiguous float32 2-D array (no copy when it already is one).

    Raises
    ------
    ParameterError
        ``value`` is not numeric, not 2-D or has no columns.
    """
    arr = value
    if not (isinstance(arr, np.ndarray) and arr.dtype == np.float32 and arr.flags.c_contiguous):
        try:
            arr = np.asarray(arr)
            if arr.dtype.kind not in "fiuO":    # bool, complex, str, bytes, dates ...
                raise TypeError(f"dtype {arr.dtype}")
            with np.errstate(over="ignore"):  # a float64 beyond the float32 range: inf, reported below
                arr = np.ascontiguousarray(arr, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise ParameterError(f"vectors must be a numeric 2-D array: {exc}") from None
    if arr.ndim != 2:
        raise ParameterError(f"vectors must be 2-D, got shape {arr.shape}")
    if arr.shape[1] == 0:
        raise ParameterError(f"vectors must have at least one dimension, got shape {arr.shape}")
    return arr


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
    """``vector`` as an array of shape ``(dim,)`` with finite values, or :class:`ParameterError`."""
    arr = np.asarray(vector)
    if arr.shape != (dim,) or not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise ParameterError(f"{what} must be a numeric vector of shape ({dim},), got {arr.dtype} {arr.shape}")
    if not np.isfinite(arr).all():
        raise ParameterError(f"{what} is not finite: it holds NaN or infinity")
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
    if isinstance(value, (bytes, bytearray)):
        raise _bad_key(value)
    try:
        return list(value)
    except TypeError:
        raise ParameterError(
            f"expected a word, a vector or a list of them, got {type(value).__name__} {reprlib.repr(value)}"
        ) from None


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

    ``norms`` are the divisors (see :func:`_row_norms`).

    The vocabulary is processed in chunks of ``_BLOCK_ELEMENTS / len(neg_q)``
    rows.  Each row keeps a pool of candidates and a threshold, the ``k``-th
    smallest value of the pool once it holds ``k`` values: a later value
    above it cannot be in the answer, so only values at or below it join
    the pool (one vectorised comparison per chunk).  The answer is then
    selected exactly from the pool.  A row with fewer than ``k`` finite
    candidates (NaN scores) is redone on the whole row.
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

    Raises
    ------
    ParameterError
        ``index_to_key`` is not a list of distinct str, or ``vectors`` is not
        a numeric 2-D array with one row per word and at least one column, or
        holds NaN or infinity (checked once, here and when :attr:`vectors`
        is assigned; the loaders, which check what they read, skip it).

    Notes
    -----
    The query methods (:meth:`most_similar`, :meth:`similarity`, ...) follow
    gensim's ``KeyedVectors``.  Unit-normalised vectors are computed once and
    cached; assigning a new array to :attr:`vectors` drops the cache (after
    modifying the array in place, call :meth:`fill_norms` with
    ``force=True``).

    Norms and unit vectors are right for any finite float32 row whose norm
    stays below half the float32 range (about 1.7e38); a larger row is refused
    (see :meth:`fill_norms`).

    **Zero vectors.**  The unit vector of a zero row is the zero vector, so
    its cosine with anything is 0.0 (never NaN, and no numpy warning): it
    scores 0.0 in :meth:`most_similar` and friends, and :meth:`similarity`,
    :meth:`distances` and :meth:`n_similarity` give cosine 0 (distance 1)
    for it.  A ranking query whose direction is a zero vector (e.g.
    ``most_similar('a')`` where ``'a'`` has a zero vector) has nothing to rank
    by and raises :class:`ParameterError` naming the word (gensim returns NaN
    scores).

    **Keys.**  A key is a word (str) or a row index (int).  ``kv[key]``,
    :meth:`get_index` and :meth:`get_vector` raise :class:`ParameterError` for
    any other type (float, None, bytes, ...); ``key in kv`` and
    :meth:`has_index_for` answer False for it instead (a membership test does
    not raise), e.g. ``['a'] in kv`` is False.

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
        naming ``source``).  The values of ``vectors`` are not checked for
        NaN/inf (no pass over a memory-mapped file at load time); a row
        holding one raises FormatError when the norms are computed.
        """
        self = cls.__new__(cls)
        self.index_to_key = index_to_key
        self._key_to_index = key_to_index
        self._source_for_errors = source
        self._set_vectors(vectors, check_finite=False)   # the loaders checked the values
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
        self._set_vectors(value, check_finite=True)

    def _set_vectors(self, value, check_finite):
        arr = _as_matrix(value)
        if arr.shape[0] != len(self.index_to_key):
            raise ParameterError(
                f"vectors has {arr.shape[0]} rows but the vocabulary has {len(self.index_to_key)} words"
            )
        if check_finite:
            bad = first_nonfinite_row(arr)
            if bad >= 0:
                raise ParameterError(
                    f"the vector of {self.index_to_key[bad]!r} (row {bad}) holds NaN or infinity "
                    "(or a value too large for float32)"
                )
        self._vectors = arr
        self._forget_norms()

    def _forget_norms(self):
        """Drop the cached norms and unit vectors (the vectors changed in place)."""
        self._norms = None
        self._div = None     # the norms as divisors of the scores (see _row_norms)
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
        """Compute and cache the vector norms.

        The norms are ``np.linalg.norm(vectors, axis=1)`` (gensim's, bit for
        bit) for ordinary rows.  A row whose float32 squares would overflow
        (a value above ~1.8e19) or go subnormal (a norm below 1e-15) is
        recomputed in float64 from the row scaled by its largest absolute
        value.  A row whose norm passes half the float32 range (values near
        the float32 maximum) is refused, as NaN and infinity are: its float32
        dot products could overflow.

        Parameters
        ----------
        force : bool, optional
            Recompute even if cached (needed after modifying :attr:`vectors`
            in place).

        Raises
        ------
        FormatError
            A row of vectors loaded from a file has a norm beyond half the
            float32 range (or NaN or infinity written into it after loading).
        ParameterError
            The same for vectors not loaded from a file.
        """
        if self._norms is None or force:
            norms, div, bad = _row_norms(self._vectors)
            if bad >= 0:
                what = (f"the vector of {self.index_to_key[bad]!r} (row {bad}) holds NaN or infinity, "
                        "or its norm passes half the float32 range")
                if self.source_path:
                    raise FormatError(f"{self.source_path}: {what}")
                raise ParameterError(what)
            self._norms, self._div = norms, div
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
            # zero rows are divided by 1 (see _row_norms): they stay zero, without a warning
            self._normed = np.ascontiguousarray(self._vectors / self._div[:, None], dtype=np.float32)
        return self._normed

    def __len__(self):
        return len(self.index_to_key)

    def __contains__(self, key):
        """Whether ``key`` is a word; False for anything not a str (``['a'] in kv`` included)."""
        return isinstance(key, str) and key in self.key_to_index

    def has_index_for(self, key):
        """Whether ``key`` is a word of the vocabulary or a valid row index (False for other types)."""
        return _is_key(key) and self.get_index(key, -1) >= 0

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
        ParameterError
            ``key`` is neither a str nor an integer (a bool, float, None, ...).
        """
        if isinstance(key, str):
            val = self._find(key)
            if val >= 0:
                return val
        elif not _is_key(key):
            raise _bad_key(key)
        elif 0 <= key < len(self.index_to_key):
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
        ParameterError
            ``key`` is neither a str nor an integer.
        """
        index = self.get_index(key)
        if norm:
            if self._normed is not None:
                result = self._normed[index]
            else:
                self.fill_norms()   # a zero row is divided by 1: the zero vector
                result = self._vectors[index] / self._div[index]
        else:
            result = self._vectors[index]
        result = result.view()
        result.setflags(write=False)
        return result

    def __getitem__(self, key_or_keys):
        """The vector of a word or row index, or the matrix of a list of them.

        Raises
        ------
        UnknownWordError
            A word is not in the vocabulary.
        ParameterError
            A key is neither a str nor an integer (e.g. ``kv[1.5]``, ``kv[None]``).
        """
        if isinstance(key_or_keys, _KEY_TYPES):
            return self.get_vector(key_or_keys)
        if isinstance(key_or_keys, (bytes, bytearray)):
            raise _bad_key(key_or_keys)
        try:
            keys = list(key_or_keys)
        except TypeError:
            raise _bad_key(key_or_keys) from None
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
        ParameterError
            ``tokens`` is a single str, or ``unknown`` is neither ``'error'``
            nor an integer.
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
        if weights is None:
            weights = np.ones(len(keys), dtype=self._vectors.dtype)
        else:
            try:
                weights = np.asarray(weights, dtype=self._vectors.dtype if isinstance(weights, list) else None)
                ok = weights.ndim == 1 and weights.dtype.kind in "fiu"
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise ParameterError(f"weights must be a 1-D array of numbers, got {reprlib.repr(weights)}")
            if not np.isfinite(weights).all():
                raise ParameterError("the query weights are not finite: they hold NaN or infinity")
        if len(keys) != weights.shape[0]:
            raise ParameterError("keys and weights array must have same number of elements")
        mean = np.zeros(self.vector_size, self._vectors.dtype)
        total_weight = 0
        terms = []
        for idx, key in enumerate(keys):
            if isinstance(key, np.ndarray):
                what = "query vector" if len(keys) == 1 else f"query vector {idx}"
                vec = _check_vector(key, self.vector_size, what)
            elif not _is_key(key):
                raise _bad_key(key)
            elif self.has_index_for(key):
                vec = self.get_vector(key, norm=pre_normalize)
            elif not ignore_missing:
                raise UnknownWordError.for_word(key)
            else:
                continue
            with _quiet():   # an overflow of huge values is redone in float64 below
                mean += weights[idx] * vec
            total_weight += abs(weights[idx])
            terms.append((weights[idx], vec))
        if total_weight > 0:
            mean = mean / total_weight
        if not np.isfinite(mean).all():
            # float32 overflow of a sum of huge (finite) values: redo it in float64, where the
            # weighted mean of finite float32 vectors is within the float32 range again
            acc = np.zeros(self.vector_size, np.float64)
            for w, vec in terms:
                acc += float(w) * np.asarray(vec, np.float64)
            acc /= float(total_weight)
            with _quiet():
                mean = _unitvec(acc).astype(np.float32) if post_normalize else acc.astype(self._vectors.dtype)
            if not np.isfinite(mean).all():   # raw vectors beyond the float32 range
                raise ParameterError("the mean of the query vectors is not finite in float32")
            return mean
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
            elif isinstance(item, (tuple, list)) and len(item) == 2:
                key, w = item
                if isinstance(w, bool) or not isinstance(w, Real):
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

    def _no_direction(self, keys, weight):
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
                i = self.get_index(key)
                if self._norms[i] != 0:
                    break
                zero_words.append(self.index_to_key[i])
        else:
            if not zero_words:
                return ParameterError("the query vector is the zero vector: no direction to compare")
            names = ", ".join(repr(w) for w in dict.fromkeys(zero_words))
            has = "has a zero vector" if len(dict.fromkeys(zero_words)) == 1 else "have zero vectors"
            return ParameterError(f"{names} {has}: no direction to compare")
        return ParameterError("the query terms cancel out: their weighted mean is the zero vector")

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
            ``topn`` is not an integer or None; an input vector is not of
            length ``dim`` or not finite; a weight is not a finite number; or
            the query has no direction: its terms cancel out, or it is made of
            zero vectors (``"'a' has a zero vector: no direction to compare"``).
        """
        _check_topn(topn)
        if isinstance(topn, Integral) and topn < 1:
            return []
        keys, weight = self._parse_terms(positive, negative)
        self.fill_norms()
        clip_end = self._clip(restrict_vocab, len(self))
        raw = self.get_mean_vector(keys, weight, pre_normalize=True, post_normalize=False, ignore_missing=False)
        # terms that cancel (positive=["a"], negative=["a"]; or ["a", "b"] against ["b", "a"],
        # which leaves float32 rounding, ~1e-8 of the terms' size) have no direction: their
        # scores would be 0 or rank the vocabulary by rounding noise
        size = sum(abs(w) * (float(np.linalg.norm(k)) if isinstance(k, np.ndarray)
                             else float(self._norms[self.get_index(k)] > 0)) for k, w in zip(keys, weight))
        if not float(np.linalg.norm(raw)) * float(np.abs(weight).sum()) > 1e-5 * size:
            raise self._no_direction(keys, weight)
        mean = _unitvec(raw).astype(np.float32)
        all_keys = [
            self.get_index(key) for key in keys if isinstance(key, _KEY_TYPES) and self.has_index_for(key)
        ]
        vecs, div = self._vectors[:clip_end], self._div[:clip_end]
        if not topn:
            return np.dot(vecs, mean) / div
        # the negated cosines, computed in place: vecs @ -mean is -(vecs @ mean) bit for bit
        # and (-a) / b is -(a / b), so the scores (and gensim's tie order) are unchanged
        neg = np.dot(vecs, -mean)
        np.divide(neg, div, out=neg)
        best = _bottom_indices(neg, topn + len(all_keys))
        excluded = set(all_keys)
        # 0.0 - x rather than -x: a zero vector's score is 0.0, not -0.0
        result = [(self.index_to_key[i], 0.0 - float(neg[i])) for i in best if i not in excluded]
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
        positive = _ensure_list(positive)
        negative = _ensure_list(negative)
        self.fill_norms()
        terms = positive + negative
        for i, w in enumerate(terms):
            if isinstance(w, np.ndarray):
                terms[i] = _check_vector(w, self.vector_size, "query vector")
            elif not _is_key(w):
                raise _bad_key(w)
        all_words = {self.get_index(w) for w in terms if not isinstance(w, np.ndarray)}
        terms = [w if isinstance(w, np.ndarray) else self.get_vector(w, norm=True) for w in terms]
        if not positive:
            raise ParameterError("cannot compute similarity with no input")
        if not any(np.any(t) for t in terms):   # a zero vector's cosine is 0 with every word
            raise self._no_direction(positive + negative, np.ones(len(terms)))
        clip_end = self._clip(restrict_vocab, len(self))
        vecs, div = self._vectors[:clip_end], self._div[:clip_end]

        def shifted(term):
            return (1 + np.dot(vecs, term) / div) / 2

        pos_dists = [shifted(term) for term in terms[:len(positive)]]
        neg_dists = [shifted(term) for term in terms[len(positive):]]
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
        vector = _check_vector(vector, self.vector_size, "query vector")
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
        words = _ensure_list(words)
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
                if not queries[j].any():
                    raise ParameterError(f"query vector {j} is the zero vector: no direction to compare")
            else:
                i = self.get_index(w)
                if self._norms[i] == 0:
                    raise ParameterError(f"{self.index_to_key[i]!r} has a zero vector: no direction to compare")
                queries[j] = self.get_vector(i, norm=True)
                exclude[j] = i
        queries = _unitrows(queries)
        vecs, norms = self._vectors[:clip_end], self._div[:clip_end]
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
                    res = [(self.index_to_key[i], 0.0 - v) for i, v in zip(idx.tolist(), vals.tolist())
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
                res = [(self.index_to_key[i], 0.0 - float(row[i])) for i in _bottom_indices(row, k) if i != ex]
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
        vec = _check_vector(vector_1, mat.shape[1], "vector_1")
        if mat.dtype.kind != "f":
            mat = mat.astype(np.float64)
        _, div, bad = _row_norms(mat)
        if bad >= 0:
            raise ParameterError(f"vectors_all row {bad} holds NaN or infinity, or its norm passes "
                                 "half the float32 range")
        # the unit query (float64 length) keeps every |row . q| below the row's norm: no overflow
        return np.dot(mat, _unitvec(vec.astype(mat.dtype))) / div

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
        return float(np.dot(_unitvec(self.get_vector(w1)), _unitvec(self.get_vector(w2))))

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
        if isinstance(word_or_vector, _KEY_TYPES):
            unit = self.get_vector(word_or_vector, norm=True)
        else:
            unit = _unitvec(_check_vector(word_or_vector, self.vector_size, "query vector").astype(np.float32))
        other_words = list(other_words) if other_words is not None else []
        if other_words:
            return 1 - self.cosine_similarities(unit, self._vectors[[self.get_index(w) for w in other_words]])
        # every word: the cached norms, no pass to compute them again
        self.fill_norms()
        return 1 - np.dot(self._vectors, unit) / self._div

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
        return float(np.dot(_unitvec(mean1), _unitvec(mean2)))

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
    def load(cls, path, binary=None, limit=None, mmap=True, unicode_errors="strict"):
        """Load any supported format; see :func:`w2v.formats.load`."""
        from .formats import load
        return load(path, binary=binary, limit=limit, mmap=mmap, unicode_errors=unicode_errors)

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
