"""Kernels of the Dask merge: rows as block floating point (int16 multiples of one float32 scale per
row), the rows a worker changed, their merge and the one way every replica adds them
(:mod:`w2v.distributed.merge` explains the scheme)."""
import numpy as np
from numba import njit

Q_MAX = np.float32(32767.0)


@njit(cache=True, nogil=True)
def quantize_rows(rows):
    """``rows`` (float32, n x dim) as ``(q int16, scale float32)`` with ``rows ~= q * scale[:, None]``."""
    n, dim = rows.shape
    q = np.empty((n, dim), np.int16)
    scale = np.empty(n, np.float32)
    for k in range(n):
        m = np.float32(0.0)
        for d in range(dim):
            m = max(m, abs(rows[k, d]))
        s = m / Q_MAX
        scale[k] = s
        inv = np.float32(1.0) / s if s > 0 else np.float32(0.0)
        for d in range(dim):
            q[k, d] = np.int16(round(rows[k, d] * inv))
    return q, scale


@njit(cache=True, nogil=True)
def add_quantized_rows(w, idx, q, scale):
    """``w[idx[k]] += q[k] * scale[k]`` (indices distinct); the one way replicas and driver apply updates."""
    dim = w.shape[1]
    for k in range(idx.size):
        i = idx[k]
        s = scale[k]
        for d in range(dim):
            w[i, d] += np.float32(q[k, d]) * s


@njit(cache=True, nogil=True)
def changed_rows(work, base):
    """Rows where ``work`` differs from ``base``: ``(indices int32, q, scale)`` of ``work - base`` on them."""
    v, dim = work.shape
    idx = np.empty(v, np.int32)
    n = 0
    for i in range(v):
        for d in range(dim):
            if work[i, d] != base[i, d]:
                idx[n] = i
                n += 1
                break
    deltas = np.empty((n, dim), np.float32)
    for k in range(n):
        i = idx[k]
        for d in range(dim):
            deltas[k, d] = work[i, d] - base[i, d]
    q, scale = quantize_rows(deltas)
    return idx[:n].copy(), q, scale


@njit(cache=True, nogil=True)
def merge_matrix(v, dim, idx, q, scale, floor):
    """Merge the parts' rows of one ``v x dim`` matrix: ``(indices, q, scale)`` of the merged delta.

    ``idx``/``q``/``scale``: every part's rows one after the other (a row at
    most once per part).  A row's deltas are summed and divided by the
    number of parts that changed it, or by ``floor`` where that is larger;
    the merged rows come back quantized, as they are applied.
    """
    count = np.zeros(v, np.int32)
    for k in range(idx.size):
        count[idx[k]] += 1
    slot = np.full(v, -1, np.int64)
    nu = 0
    for i in range(v):
        if count[i] > 0:
            slot[i] = nu
            nu += 1
    union = np.empty(nu, np.int32)
    for i in range(v):
        if slot[i] >= 0:
            union[slot[i]] = i
    acc = np.zeros((nu, dim), np.float32)
    for k in range(idx.size):
        u = slot[idx[k]]
        s = scale[k]
        for d in range(dim):
            acc[u, d] += np.float32(q[k, d]) * s
    for u in range(nu):
        inv = np.float32(1.0) / np.float32(max(floor, np.float64(count[union[u]])))
        for d in range(dim):
            acc[u, d] *= inv
    mq, ms = quantize_rows(acc)
    return union, mq, ms


@njit(cache=True, nogil=True)
def merge_matrix_weighted(v, dim, idx, q, scale, updates, floor, lam_local, lam_global):
    """Merge the parts' rows of one ``v x dim`` matrix, each row's sum weighted by the updates behind it.

    ``updates[k]``: the number of updates (expected) behind part row ``k``;
    the parts trained at ``floor`` times the learning rate.  A row that at
    most ``floor`` parts changed gets its summed deltas divided by ``floor``
    (the sum at the unscaled rate).  A row that ``c > floor`` parts changed,
    with ``n_1 .. n_c`` updates (``N`` in all), gets them times
    ``(1 - exp(-lam_global N)) / sum(1 - exp(-lam_local n_j))``, kept between
    ``1 / c`` and ``1 / floor``: about ``1 / floor`` where the updates add up
    linearly, about ``1 / c`` (the mean) where every part drove the row to
    the same place.  The merged rows come back quantized, as they are applied.
    """
    count = np.zeros(v, np.int32)
    for k in range(idx.size):
        count[idx[k]] += 1
    slot = np.full(v, -1, np.int64)
    nu = 0
    for i in range(v):
        if count[i] > 0:
            slot[i] = nu
            nu += 1
    union = np.empty(nu, np.int32)
    for i in range(v):
        if slot[i] >= 0:
            union[slot[i]] = i
    acc = np.zeros((nu, dim), np.float32)
    total = np.zeros(nu, np.float64)
    local = np.zeros(nu, np.float64)
    for k in range(idx.size):
        u = slot[idx[k]]
        s = scale[k]
        for d in range(dim):
            acc[u, d] += np.float32(q[k, d]) * s
        total[u] += updates[k]
        local[u] += -np.expm1(-lam_local * updates[k])
    high = 1.0 / max(floor, 1.0)
    for u in range(nu):
        low = 1.0 / max(floor, 1.0, np.float64(count[union[u]]))
        f = low
        if local[u] > 0.0 and low < high:
            f = min(max(-np.expm1(-lam_global * total[u]) / local[u], low), high)
        w = np.float32(f)
        for d in range(dim):
            acc[u, d] *= w
    mq, ms = quantize_rows(acc)
    return union, mq, ms
