"""Kernels of the deterministic mode: the rows a lane changes, its changes, and the round's merge.

In ``deterministic`` mode (:mod:`w2v.lanes`) every lane trains a round on a
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
* :func:`take_lane` copies the changes of those rows out of the private copy
  (``work - base``) and restores them, so the copy serves the next lane.
* :func:`accumulate` adds a lane's changes to the round's sums in fixed
  point (int64 multiples of 2**-40): integer sums do not depend on the order
  of the lanes, so threads (or Dask workers) add them as they finish.
* :func:`apply_round` adds each row's merged change to the weights by the
  merge rule (:func:`saturation_factor`) and clears the sums;
  :func:`copy_rows` brings a private copy up to date.

No ``fastmath`` here: the merge gives the same floats wherever it runs.
"""
import numpy as np
from numba import njit

from .draws import draw_noise, splitmix64

_U32 = np.uint64(32)
#: fixed point of the round's sums: a change is added as round(change * 2**FIXED_BITS)
FIXED_BITS = 40
_FIXED = np.float64(2.0 ** FIXED_BITS)
_UNFIXED = np.float64(2.0 ** -FIXED_BITS)
#: a lane's change of one weight at or beyond this (or not finite) means training diverged; with at
#: most 1024 lanes (w2v.settings.MAX_LANES) the sums stay below 2**63
MAX_CHANGE = np.float64(2.0 ** 12)

OPTIONS = dict(cache=True, nogil=True, boundscheck=False)


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
def take_lane(work, base, rows, n, pushes, idx, deltas, counts):
    """Move the changes of ``rows[:n]`` out of ``work``: ``deltas = work - base``, then ``work = base``.

    The rows that changed go to ``idx[:m]``, ``deltas[:m]`` and their pushes to
    ``counts[:m]``; ``pushes`` (the matrix's row of :func:`lane_pushes`' array)
    is cleared for every listed row.  Returns ``m``.
    """
    dim = work.shape[1]
    m = 0
    for k in range(n):
        i = rows[k]
        c = pushes[i]
        pushes[i] = 0
        changed = False
        for d in range(dim):
            v = work[i, d] - base[i, d]
            deltas[m, d] = v
            if v != 0:
                changed = True
            work[i, d] = base[i, d]
        if changed:
            idx[m] = i
            counts[m] = c
            m += 1
    return m


@njit(**OPTIONS)
def accumulate(acc, pushes, union, nu, idx, deltas, counts, m):
    """Add one lane's changes to the round's fixed-point sums; return the new ``nu``, or -1 if one is not finite.

    ``acc`` (int64, V x dim) and ``pushes`` (int64, V) hold the sums of the
    lanes added so far; a row met for the first time in the round is
    appended to ``union[nu:]``.  Integer sums: the lanes may come in any order.
    """
    dim = acc.shape[1]
    for k in range(m):
        for d in range(dim):
            v = np.float64(deltas[k, d])
            if not abs(v) < MAX_CHANGE:
                return -1
    for k in range(m):
        i = idx[k]
        if pushes[i] == 0:
            union[nu] = i
            nu += 1
        pushes[i] += max(1, counts[k])
        for d in range(dim):
            acc[i, d] += np.int64(np.round(np.float64(deltas[k, d]) * _FIXED))
    return nu


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


@njit(**OPTIONS)
def apply_round(weights, acc, pushes, union, nu, gamma, scale):
    """Add the round's merged rows to ``weights``: the sum of the lanes' changes times :func:`saturation_factor`
    and ``scale``.

    Clears ``acc`` and ``pushes`` on the rows of ``union[:nu]``.
    """
    dim = weights.shape[1]
    for k in range(nu):
        i = union[k]
        f = saturation_factor(gamma, pushes[i]) * scale * _UNFIXED
        for d in range(dim):
            weights[i, d] += np.float32(np.float64(acc[i, d]) * f)
            acc[i, d] = 0
        pushes[i] = 0


@njit(**OPTIONS)
def copy_rows(dst, src, rows, n):
    """``dst[rows[:n]] = src[rows[:n]]``."""
    dim = dst.shape[1]
    for k in range(n):
        i = rows[k]
        for d in range(dim):
            dst[i, d] = src[i, d]
