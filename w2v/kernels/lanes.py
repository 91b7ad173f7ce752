"""Kernels of the deterministic mode: the rows a lane changes, its changes, and the round's merge.

In ``deterministic`` mode (:mod:`w2v.training.lanes`) every lane trains a round on a
private copy of the weights with :func:`w2v.kernels.cpu.train_tokens`, whose
semantics stay those of every other run.  These kernels do the rest without
scanning whole matrices:

* :func:`lane_pushes` replays the random draws ``train_tokens`` makes over
  the same tokens from the same state (subsampling, window shrinks, noise
  words) and lists every row the kernel can change, with its *pushes*: the
  gradient steps it takes part in (a context row once per target of each
  window it is in; an output row once per context row of each example it is
  a target of).  It returns the state the kernel ends in, which the caller
  compares with the kernel's own: a kernel that drew otherwise is caught at once.
* :func:`fetch_rows` brings those rows of the private copy up to the round's
  weights before the kernel runs (the kernel reads no other row, so the rest
  of the copy may hold anything), and :func:`take_lane` copies the lane's
  changes (``work - base``) into the lane's own buffers, kept until the
  round's end.
* At the round's end the threads split the rows between them
  (:func:`part_of`); in each part :func:`order_changes` lists each changed
  row's changes in lane order, and :func:`merge_rows` sums them per row in
  float64 in that order and applies the merge rule (:func:`saturation_factor`)
  in one pass over the row.  A row's sum never depends on which thread
  computes it or when a lane finished, so the result is the same at any
  thread count.

No ``fastmath`` here: the merge gives the same floats wherever it runs.
"""
import numpy as np
from numba import njit

from .draws import draw_noise, splitmix64
from .prefetch import prefetch_row

_U32 = np.uint64(32)
#: a round's merged change of one weight at or beyond this (or not finite) means training diverged
MAX_CHANGE = 2.0 ** 12
_MAX_CHANGE32 = np.float32(MAX_CHANGE)

OPTIONS = dict(cache=True, nogil=True, boundscheck=False)
#: rows ahead whose lines take_lane prefetches (one round of the 17M slice, cold cache: 1.3x faster)
TAKE_AHEAD = 4
#: rows ahead whose lines merge_rows prefetches (one round of the 17M slice, cold cache: 2x faster)
MERGE_AHEAD = 2


@njit(**OPTIONS)
def _push(pushes, rows, nrows, m, w, k):
    # row w of matrix m takes k more pushes; listed the first time
    if pushes[m, w] == 0:
        rows[m, nrows[m]] = w
        nrows[m] += 1
    pushes[m, w] += k


@njit(**OPTIONS)
def _example(pushes, rows, nrows, centre, noise, first, negative, hs, hs_points, hs_lengths, k):
    # the output rows of one example (targets of k input rows); returns the targets per input row
    nt = 0
    if hs:
        for j in range(hs_lengths[centre]):
            _push(pushes, rows, nrows, 2, hs_points[centre, j], k)
        nt += hs_lengths[centre]
    if negative > 0:
        _push(pushes, rows, nrows, 1, centre, k)
        nt += 1
        for j in range(first, first + negative):
            if noise[j] != centre:   # skipped by the kernel (_negative_targets)
                _push(pushes, rows, nrows, 1, noise[j], k)
                nt += 1
    return nt


@njit(**OPTIONS)
def _sentence(sent, n, noise_table, hs_points, hs_lengths, sg, pairs, window, negative, hs, s, noise,
              shrink, pushes, rows, nrows):
    # one sentence: the kernel's draws (train_sentence's order) and the pushes they give
    uwindow = np.uint64(window)
    if not pairs:   # _draw_sentence: per word a window shrink, then its noise words
        for i in range(n):
            r, s = splitmix64(s)
            shrink[i] = np.int64(r % uwindow)
            if n > 1:
                for j in range(i * negative, (i + 1) * negative):
                    r, s = splitmix64(s)
                    noise[j] = draw_noise(r, noise_table)
    for i in range(n):
        if pairs:
            r, s = splitmix64(s)
            shrink[i] = np.int64(r % uwindow)
        lo = max(0, i - window + shrink[i])
        hi = min(n, i + window + 1 - shrink[i])
        nc = hi - lo - 1
        if nc == 0:
            continue
        if pairs:   # each (context, centre) pair with its own noise words (_train_pairs)
            for j in range(lo, hi):
                if j == i:
                    continue
                for q in range(negative):
                    r, s = splitmix64(s)
                    noise[q] = draw_noise(r, noise_table)
                nt = _example(pushes, rows, nrows, sent[i], noise, 0, negative, hs, hs_points, hs_lengths, 1)
                _push(pushes, rows, nrows, 0, sent[j], nt)
            continue
        per = nc if sg else 1   # skip-gram: nc input rows share the targets; CBOW: their mean
        nt = _example(pushes, rows, nrows, sent[i], noise, i * negative, negative, hs, hs_points, hs_lengths,
                      per)
        for j in range(lo, hi):
            if j != i:
                _push(pushes, rows, nrows, 0, sent[j], nt)
    return s


@njit(**OPTIONS)
def lane_pushes(tokens, keep_threshold, noise_table, hs_points, hs_lengths, sg, pairs, window, negative, hs,
                max_sentence_length, state, pushes, rows, nrows):
    """List the rows :func:`~w2v.kernels.cpu.train_tokens` changes over ``tokens`` from ``state``, with pushes.

    Parameters
    ----------
    tokens : int32[:]
        The lane's ids for the round (``-1`` between sentences).
    keep_threshold, noise_table, hs_points, hs_lengths :
        The run's tables, as the kernel takes them.
    sg, pairs, hs : bool
        Skip-gram; the kernel's per-pair mode (skip-gram with ``exact``); hierarchical softmax.
    window, negative, max_sentence_length : int
    state : uint64
        The random state the kernel starts from (not advanced here).
    pushes : int32[3, V]
        Zero on entry except for rows listed before and not yet taken (:func:`take_lane` clears
        them); per matrix (``syn0``, ``syn1neg``, ``syn1``), the pushes of each row.
    rows : int32[3, V]
        Out: the rows listed, ``nrows[m]`` of matrix ``m``.
    nrows : int64[3]
        Out (reset here).

    Returns
    -------
    uint64
        The random state the kernel ends in.
    """
    # blocking: the kernel's loop over tokens and sentences, replayed in the kernel's order of draws
    nrows[:] = 0
    sent = np.empty(max_sentence_length, np.int32)
    shrink = np.empty(max_sentence_length, np.int64)
    noise = np.empty(max(max_sentence_length * negative, negative, 1), np.int64)
    s = state
    n = 0
    ntok = tokens.size
    for p in range(ntok + 1):
        w = tokens[p] if p < ntok else -1
        if w >= 0:
            r, s = splitmix64(s)
            if np.int64(r >> _U32) < keep_threshold[w]:
                sent[n] = w
                n += 1
        if w < 0 or n == max_sentence_length or p == ntok:
            if n > 0:
                s = _sentence(sent, n, noise_table, hs_points, hs_lengths, sg, pairs, window, negative, hs, s,
                              noise, shrink, pushes, rows, nrows)
            n = 0
    return s


@njit(**OPTIONS)
def fetch_rows(work, base, rows, n):
    """``work[rows[:n]] = base[rows[:n]]``: a private copy takes the round's weights of the rows a lane uses."""
    dim = work.shape[1]
    for k in range(n):
        if k + TAKE_AHEAD < n:   # the rows are spread over the matrix: latency bound without it
            prefetch_row(base, rows[k + TAKE_AHEAD], dim)
        i = rows[k]
        for d in range(dim):
            work[i, d] = base[i, d]


@njit(**OPTIONS)
def take_lane(work, base, rows, n, pushes, idx, deltas, counts):
    """Copy the changes of ``rows[:n]`` out of ``work``: ``deltas = work - base``.

    The rows that changed go to ``idx[:m]``, ``deltas[:m]`` and their pushes to
    ``counts[:m]``; ``pushes`` (the matrix's row of :func:`lane_pushes`' array)
    is cleared for every listed row.  Returns ``m``.
    """
    dim = work.shape[1]
    m = 0
    for k in range(n):
        if k + TAKE_AHEAD < n:   # base's rows are spread over the matrix (work's are in cache)
            prefetch_row(base, rows[k + TAKE_AHEAD], dim)
        i = rows[k]
        c = pushes[i]
        pushes[i] = 0
        changed = False
        for d in range(dim):
            v = work[i, d] - base[i, d]
            deltas[m, d] = v
            if v != 0:
                changed = True
        if changed:
            idx[m] = i
            counts[m] = c
            m += 1
    return m


@njit(**OPTIONS)
def part_of(i, parts):
    """The part of the merge (of ``parts``) that row ``i`` belongs to: a multiplicative hash, no division."""
    return np.int64(((np.uint64(i) * np.uint64(0x9E3779B1) & np.uint64(0xFFFFFFFF)) * np.uint64(parts)) >> _U32)


@njit(**OPTIONS)
def order_changes(idx, counts, n, pushes, pos, start, refs, union, part, parts):
    """List the round's changes of each row ``i`` of part ``part`` (:func:`part_of`) in lane order; return their
    number ``nu``.

    ``idx[l, :n[l]]``, ``counts[l]``: lane ``l``'s rows and pushes (:func:`take_lane`).
    Afterwards ``union[:nu]`` holds those of the rows that changed, ``pos[i]`` row ``i``'s
    place there (-1 on entry and for other rows), ``pushes[i]`` (0 on entry) its
    pushes over all lanes, and ``refs[start[u]:start[u + 1]]`` the changes of
    ``union[u]`` (``l * cap + k``: lane ``l``'s ``k``-th, ``cap = idx.shape[1]``) in
    ascending lane order.  The parts touch disjoint rows: threads list them at once.
    """
    cap = idx.shape[1]
    nu = 0
    for lane in range(n.size):
        for k in range(n[lane]):
            i = idx[lane, k]
            if part_of(i, parts) != part:
                continue
            if pos[i] < 0:
                pos[i] = nu
                union[nu] = i
                start[nu + 1] = 0
                nu += 1
            pushes[i] += max(1, counts[lane, k])
            start[pos[i] + 1] += 1
    start[0] = 0
    for u in range(nu):
        start[u + 1] += start[u]
    for lane in range(n.size):   # start[u] runs up to start[u + 1] as the refs are filled, then back
        for k in range(n[lane]):
            i = idx[lane, k]
            if part_of(i, parts) == part:
                u = pos[i]
                refs[start[u]] = lane * cap + k
                start[u] += 1
    for u in range(nu - 1, 0, -1):
        start[u] = start[u - 1]
    start[0] = 0
    return nu


@njit(**OPTIONS)
def merge_rows(weights, union, nu, start, refs, deltas, pushes, pos, gamma, scale):
    """Merge rows ``union[:nu]`` into ``weights``.

    Each row gets the sum of its lanes' changes (``deltas[refs[...]]`` as
    :func:`order_changes` listed them, float64, in lane order) times
    :func:`saturation_factor` and ``scale``.  A row's result depends on
    nothing but its own changes, so any split of the rows between threads
    gives the same weights.  Clears ``pushes`` and ``pos`` on these rows.
    Returns False if a merged change is not finite or reaches
    :data:`MAX_CHANGE` (training diverged), else True.
    """
    dim = weights.shape[1]
    acc = np.empty(dim, np.float64)
    bad = 0
    for u in range(nu):
        if u + MERGE_AHEAD < nu:   # the rows are spread over the matrices: latency bound without it
            prefetch_row(weights, union[u + MERGE_AHEAD], dim)
            for p in range(start[u + MERGE_AHEAD], start[u + MERGE_AHEAD + 1]):
                prefetch_row(deltas, refs[p], dim)
        i = union[u]
        acc[:] = 0.0
        for p in range(start[u], start[u + 1]):
            e = refs[p]
            for d in range(dim):
                acc[d] += np.float64(deltas[e, d])
        f = saturation_factor(gamma, pushes[i]) * scale
        for d in range(dim):
            y = np.float32(acc[d] * f)
            bad |= not abs(y) < _MAX_CHANGE32
            weights[i, d] += y
        pushes[i] = 0
        pos[i] = -1
    return bad == 0


@njit(**OPTIONS)
def saturation_factor(gamma, n):
    """The merge's factor of a row that took ``n`` pushes in the round: ``(1 - exp(-gamma n)) / (gamma n)``.

    1 for a row few pushes moved (the lanes' changes add up), about
    ``1 / (gamma n)`` for one that many pushes drove to where its examples hold it.
    """
    x = gamma * np.float64(n)
    if x < 1e-9:
        return np.float64(1.0)
    return -np.expm1(-x) / x
