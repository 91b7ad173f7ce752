"""The ``k`` best scores of an array or of a matrix product, as gensim orders them.

:func:`top_indices` is gensim's ``matutils.argsort(..., reverse=True)``
with a cheaper selection on large arrays; :func:`chunked_bottom_k` answers
many queries with one pass over the vocabulary, chunk by chunk.
"""
import numpy as np

from ..util import arrays

__all__ = ["bottom_indices", "chunked_bottom_k", "top_indices"]

_FILTER_MIN = 1 << 16     # top-k over at least this many scores: filter candidates first
_FILTER_RATIO = 64        # sample size / k for the filter threshold


def top_indices(scores, k):
    """Indices of the ``k`` largest ``scores``, largest first.

    Uses ``np.argpartition`` and sorts only the selected ``k`` (the same steps
    as gensim's ``matutils.argsort(..., reverse=True)``, so ties are ordered
    identically).

    Parameters
    ----------
    scores : numpy.ndarray
        1-D.
    k : int

    Returns
    -------
    numpy.ndarray
        ``min(k, scores.size)`` indices (intp).
    """
    return bottom_indices(-scores, k)


def bottom_indices(neg, k):
    """:func:`top_indices` of ``-neg``, given the negated scores (saves a negated copy).

    On large arrays (``_FILTER_MIN`` elements or more) the candidates are
    first cut down with one comparison against a threshold: the ``k``-th
    smallest value of a strided sample is at least the ``k``-th smallest of
    the whole array, so every element of the answer passes the filter, and
    the exact selection then runs on ~``64 k`` candidates instead of the
    whole vocabulary (a full ``argpartition`` of a million scores costs more
    than a quarter of a query).  Only the order among exactly tied scores
    can differ from gensim's, whose order among ties is arbitrary too.

    Parameters
    ----------
    neg : numpy.ndarray
        1-D negated scores (NaN never comes first).
    k : int

    Returns
    -------
    numpy.ndarray
        The indices of the ``k`` smallest values, smallest first.
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


def chunked_bottom_k(neg_q, vecs, norms, k):
    """Per query row of ``neg_q``: the ``k`` smallest ``(neg_q @ vecs.T) / norms`` (ids, values).

    ``norms`` are the divisors (see :func:`w2v.util.arrays.row_norms`).

    The vocabulary is processed in chunks of ``arrays.BLOCK_ELEMENTS / len(neg_q)``
    rows.  Each row keeps a pool of candidates and a threshold, the ``k``-th
    smallest value of the pool once it holds ``k`` values: a later value
    above it cannot be in the answer, so only values at or below it join
    the pool (one vectorised comparison per chunk).  The answer is then
    selected exactly from the pool.  A row with fewer than ``k`` finite
    candidates (NaN scores) is redone on the whole row.

    Parameters
    ----------
    neg_q : numpy.ndarray
        Negated unit query rows, shape ``(m, dim)``.
    vecs : numpy.ndarray
        The vocabulary's vectors, shape ``(n, dim)``.
    norms : numpy.ndarray
        Their divisors, shape ``(n,)``.
    k : int

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        Per query, the ids and values of its ``k`` smallest negated scores,
        smallest first.
    """
    m, n = len(neg_q), len(vecs)
    chunk = max(1024, arrays.BLOCK_ELEMENTS // max(1, m))
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
            idx = bottom_indices(row, k)
            out.append((idx, row.take(idx)))
        else:
            out.append(_select(idx, vals, k))
    return out

