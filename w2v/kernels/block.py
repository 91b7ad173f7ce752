"""Skip-gram's shared-negatives SGD step, register-blocked: input rows against blocks of six output rows.

One step trains ``nx`` input rows ``x_c`` against ``nt`` output rows ``o_t``:

* scores    ``f[c, t] = x_c . o_t``
* gradients ``g[c, t] = alpha * (label_t - sigmoid(f[c, t]))``, 0 at or beyond ``MAX_SCORE``
* updates   ``x_c += sum_t g[c, t] o_t`` and ``o_t += sum_c g[c, t] x_c``, both from the old rows

which is :func:`w2v.kernels.cpu.sgd_block`'s step computed in another order.  The output
rows are taken :data:`TB` at a time; a last, partial block is filled up with a row of
zeros whose gradient is 0.  Scores: two input rows are loaded once per vector of
:data:`~w2v.kernels.simd.LANES` floats and multiplied with the block's six output rows
(twelve accumulators).  Updates: the block's output rows stay in registers, old and new,
while the input rows stream past, so each input row is read and written once per block and
each output row once.  With one block and rows updated in place (skip-gram with negative
sampling alone) the input rows' update goes straight into the weights: nothing is copied.

Rows updated in registers must be distinct, so repeated ids (a word twice in a window, a
noise word drawn twice) are merged first: one row with a multiplicity that scales its
gradients and loss, which is the sum of the occurrences' updates up to rounding.
"""
import numpy as np
from numba import njit

from .fastmath import exp32, log32
from .options import INNER_OPTIONS, MAX_SCORE, SIGMOID_CLIP
from .simd import LANES, vadd, vfma, vload, vmul, vsplat, vstore, vsum, vzero

TB = 6   # output rows per block: the centre word and five noise words, word2vec's default


@njit(**INNER_OPTIONS)
def padded_targets(kmax):
    """Length of the target buffers for up to ``kmax`` targets: whole blocks of :data:`TB`."""
    return TB * max(1, (kmax + TB - 1) // TB)


@njit(inline="always", **INNER_OPTIONS)
def weight_row(rows, hot, nhot, r):
    """Row ``r`` of a weight matrix: the thread's private copy when ``r < nhot``.

    ``hot`` holds the thread's copies of ``rows[:nhot]`` (see
    :func:`w2v.kernels.cpu.merge_hot_rows`); ids are read as unsigned, so the
    compiled code does not test them for Python's negative indexing.
    """
    if r < nhot:
        return hot[np.uint64(r)]
    return rows[np.uint64(r)]


@njit(**INNER_OPTIONS)
def unique_context(sent, n, i, b, window, ctx, mult):
    """The distinct ids around position ``i`` (window shrunk by ``b``) into ``ctx``, their counts into ``mult``.

    Returns ``(distinct, contexts)``: how many distinct ids and how many context positions.
    """
    lo = max(0, i - window + b)
    hi = min(n, i + window + 1 - b)
    nu = 0
    for j in range(lo, hi):
        if j == i:
            continue
        w = sent[j]
        k = 0
        while k < nu and ctx[k] != w:
            k += 1
        if k == nu:
            ctx[nu] = w
            mult[nu] = np.float32(1.0)
            nu += 1
        else:
            mult[k] += np.float32(1.0)
    return nu, hi - lo - 1


@njit(inline="always", **INNER_OPTIONS)
def _pad_targets(nt, labels, mult):
    # labels and multiplicities 0 up to the end of the last block
    for t in range(nt, padded_targets(nt)):
        labels[t] = np.float32(0.0)
        mult[t] = np.float32(0.0)
    return nt


@njit(**INNER_OPTIONS)
def negative_targets(centre, noise, first, negative, targets, labels, mult):
    """The centre word (label 1), then the distinct noise words of ``noise[first:first + negative]``.

    A noise word equal to the centre is skipped, as in word2vec.c and gensim; one
    drawn again raises its count in ``mult``.  Returns the number of targets.
    """
    targets[0] = centre
    labels[0] = np.float32(1.0)
    mult[0] = np.float32(1.0)
    nt = 1
    for k in range(negative):
        w = noise[first + k]
        if w == centre:
            continue
        j = 1
        while j < nt and targets[j] != w:
            j += 1
        if j == nt:
            targets[nt] = w
            labels[nt] = np.float32(0.0)
            mult[nt] = np.float32(1.0)
            nt += 1
        else:
            mult[j] += np.float32(1.0)
    return _pad_targets(nt, labels, mult)


@njit(**INNER_OPTIONS)
def hs_targets(centre, hs_codes, hs_points, hs_lengths, targets, labels, mult):
    """The inner nodes of the centre word's Huffman path, label ``1 - code``; returns their number."""
    n = hs_lengths[centre]
    for k in range(n):
        targets[k] = hs_points[centre, k]
        labels[k] = np.float32(1.0) - np.float32(hs_codes[centre, k])
        mult[k] = np.float32(1.0)
    return _pad_targets(n, labels, mult)


@njit(inline="always", **INNER_OPTIONS)
def _out_row(out, hot, nhot, targets, t, nt, pad):
    if t < nt:
        return weight_row(out, hot, nhot, targets[t])
    return pad[0]


@njit(inline="always", **INNER_OPTIONS)
def _block_scores(rows, hot, nhot, ids, nx, o0, o1, o2, o3, o4, o5, G, base, dim):
    # blocking: two input rows against six output rows, twelve accumulators
    # G[base + c * TB + t] = x_c . o_t
    c = 0
    while c + 2 <= nx:
        xa = weight_row(rows, hot, nhot, ids[c])
        xb = weight_row(rows, hot, nhot, ids[c + 1])
        a0 = vzero()
        a1 = vzero()
        a2 = vzero()
        a3 = vzero()
        a4 = vzero()
        a5 = vzero()
        b0 = vzero()
        b1 = vzero()
        b2 = vzero()
        b3 = vzero()
        b4 = vzero()
        b5 = vzero()
        for k in range(0, dim, LANES):
            n = dim - k
            va = vload(xa, k, n)
            vb = vload(xb, k, n)
            v = vload(o0, k, n)
            a0 = vfma(va, v, a0)
            b0 = vfma(vb, v, b0)
            v = vload(o1, k, n)
            a1 = vfma(va, v, a1)
            b1 = vfma(vb, v, b1)
            v = vload(o2, k, n)
            a2 = vfma(va, v, a2)
            b2 = vfma(vb, v, b2)
            v = vload(o3, k, n)
            a3 = vfma(va, v, a3)
            b3 = vfma(vb, v, b3)
            v = vload(o4, k, n)
            a4 = vfma(va, v, a4)
            b4 = vfma(vb, v, b4)
            v = vload(o5, k, n)
            a5 = vfma(va, v, a5)
            b5 = vfma(vb, v, b5)
        s = base + c * TB
        G[s] = vsum(a0)
        G[s + 1] = vsum(a1)
        G[s + 2] = vsum(a2)
        G[s + 3] = vsum(a3)
        G[s + 4] = vsum(a4)
        G[s + 5] = vsum(a5)
        G[s + 6] = vsum(b0)
        G[s + 7] = vsum(b1)
        G[s + 8] = vsum(b2)
        G[s + 9] = vsum(b3)
        G[s + 10] = vsum(b4)
        G[s + 11] = vsum(b5)
        c += 2
    if c < nx:
        xa = weight_row(rows, hot, nhot, ids[c])
        a0 = vzero()
        a1 = vzero()
        a2 = vzero()
        a3 = vzero()
        a4 = vzero()
        a5 = vzero()
        for k in range(0, dim, LANES):
            n = dim - k
            va = vload(xa, k, n)
            a0 = vfma(va, vload(o0, k, n), a0)
            a1 = vfma(va, vload(o1, k, n), a1)
            a2 = vfma(va, vload(o2, k, n), a2)
            a3 = vfma(va, vload(o3, k, n), a3)
            a4 = vfma(va, vload(o4, k, n), a4)
            a5 = vfma(va, vload(o5, k, n), a5)
        s = base + c * TB
        G[s] = vsum(a0)
        G[s + 1] = vsum(a1)
        G[s + 2] = vsum(a2)
        G[s + 3] = vsum(a3)
        G[s + 4] = vsum(a4)
        G[s + 5] = vsum(a5)


@njit(inline="always", **INNER_OPTIONS)
def _block_update(rows, hot, nhot, ids, nx, direct, o0, o1, o2, o3, o4, o5, G, base, dX, dim):
    # blocking: the six output rows held in registers, old (p) and new (q), while the input rows stream past
    for k in range(0, dim, LANES):
        n = dim - k
        p0 = vload(o0, k, n)
        p1 = vload(o1, k, n)
        p2 = vload(o2, k, n)
        p3 = vload(o3, k, n)
        p4 = vload(o4, k, n)
        p5 = vload(o5, k, n)
        q0 = p0
        q1 = p1
        q2 = p2
        q3 = p3
        q4 = p4
        q5 = p5
        for c in range(nx):
            xr = weight_row(rows, hot, nhot, ids[c])
            x = vload(xr, k, n)
            s = base + c * TB
            g0 = vsplat(G[s])
            g1 = vsplat(G[s + 1])
            g2 = vsplat(G[s + 2])
            g3 = vsplat(G[s + 3])
            g4 = vsplat(G[s + 4])
            g5 = vsplat(G[s + 5])
            even = vfma(g4, p4, vfma(g2, p2, vmul(g0, p0)))    # two chains: shorter latency
            odd = vfma(g5, p5, vfma(g3, p3, vmul(g1, p1)))
            dx = vadd(even, odd)
            if direct:
                vstore(xr, k, n, vadd(x, dx))
            else:
                dr = dX[c]
                vstore(dr, k, n, vadd(vload(dr, k, n), dx))
            q0 = vfma(g0, x, q0)
            q1 = vfma(g1, x, q1)
            q2 = vfma(g2, x, q2)
            q3 = vfma(g3, x, q3)
            q4 = vfma(g4, x, q4)
            q5 = vfma(g5, x, q5)
        vstore(o0, k, n, q0)
        vstore(o1, k, n, q1)
        vstore(o2, k, n, q2)
        vstore(o3, k, n, q3)
        vstore(o4, k, n, q4)
        vstore(o5, k, n, q5)


@njit(inline="always", **INNER_OPTIONS)
def _gradients(G, ng, nx, cmult, labels, tmult, alpha):
    # G[k] = multiplicity * alpha * (label - sigmoid(score)), 0 at or beyond MAX_SCORE; returns the loss.
    # Labels and multiplicities are spread out to G[m:3m] first so that one flat loop over the scores vectorizes
    # (looping over the blocks' six targets instead took 40% of skip-gram's time: 609 ticks per id, against 34)
    m = ng * nx * TB
    for grp in range(ng):
        for c in range(nx):
            wc = cmult[c]
            base = (grp * nx + c) * TB
            for t in range(TB):
                G[m + base + t] = labels[grp * TB + t]
                G[2 * m + base + t] = wc * tmult[grp * TB + t]
    one = np.float32(1.0)
    loss = np.float32(0.0)
    um = np.uint64(m)
    for k in range(um):       # unsigned: no wrap-around test for negative indices, which kept the loop scalar
        score = G[k]
        lab = G[um + k]
        w = G[um + um + k]
        f = min(max(score, -SIGMOID_CLIP), SIGMOID_CLIP)
        e = exp32(-f)                                   # sigmoid(f) = 1 / (1 + e)
        one_e = one + e
        g = (lab - one / one_e) * alpha * w
        G[k] = g if abs(score) < MAX_SCORE else np.float32(0.0)
        # -log sigmoid(f) = log(1 + e);  -log sigmoid(-f) = f + log(1 + e)
        loss += w * (log32(one_e) + (one - lab) * f)
    return loss


@njit(inline="always", **INNER_OPTIONS)
def flat_gradients(G, m, alpha):
    """Gradients and loss of ``m`` pairs: their scores in ``G[:m]``, their labels in ``G[m:2 * m]``.

    ``G[k] = alpha * (label - sigmoid(score))``, 0 at or beyond ``MAX_SCORE``; returns the summed
    loss ``sum(-log sigmoid(+-score))`` (float32).  A branch-free loop LLVM vectorizes; the step of
    :func:`w2v.kernels.cpu.sgd_block` and CBOW's (:mod:`w2v.kernels.cbow`).
    """
    one = np.float32(1.0)
    loss = np.float32(0.0)
    for k in range(m):
        score = G[k]
        f = min(max(score, -SIGMOID_CLIP), SIGMOID_CLIP)
        lab = G[m + k]
        e = exp32(-f)                                   # sigmoid(f) = 1 / (1 + e)
        one_e = one + e
        g = (lab - one / one_e) * alpha
        G[k] = g if abs(score) < MAX_SCORE else np.float32(0.0)   # see MAX_SCORE
        # -log sigmoid(f) = log(1 + e);  -log sigmoid(-f) = f + log(1 + e)
        loss += log32(one_e) + (one - lab) * f
    return loss


@njit(**INNER_OPTIONS)
def block_step(rows, hot, nhot, ids, cmult, nx, direct, out, ohot, onhot, targets, labels,
               tmult, nt, alpha, dX, G, pad, dim_const):
    """One SGD step of ``nx`` distinct input rows against ``nt`` distinct output rows; returns the loss.

    Input row ``c`` is row ``ids[c]`` of ``rows`` (``hot`` below ``nhot``, see
    :func:`weight_row`); output row ``t`` is row ``targets[t]`` of ``out``
    (``ohot`` below ``onhot``).  ``cmult`` and ``tmult`` are the rows'
    multiplicities, ``labels`` the targets' labels (both padded by
    :func:`negative_targets` and :func:`hs_targets`).  The output rows are
    updated in place; the input rows' updates go into the rows themselves
    when ``direct`` (only with ``nt <= TB``), else they are added to ``dX[:nx]``.  ``G`` is
    scratch of at least ``3 * nx * padded_targets(nt)`` float32, ``pad`` a
    ``(1, dim)`` array of zeros, ``dim_const`` the row length as a
    compile-time constant or 0.
    """
    # blocking: scores of every block before any update, so every update starts from the old rows
    dim = dim_const if dim_const > 0 else pad.shape[1]
    ng = (nt + TB - 1) // TB
    m = nx * TB
    for grp in range(ng):
        t0 = grp * TB
        _block_scores(rows, hot, nhot, ids, nx,
                      _out_row(out, ohot, onhot, targets, t0, nt, pad),
                      _out_row(out, ohot, onhot, targets, t0 + 1, nt, pad),
                      _out_row(out, ohot, onhot, targets, t0 + 2, nt, pad),
                      _out_row(out, ohot, onhot, targets, t0 + 3, nt, pad),
                      _out_row(out, ohot, onhot, targets, t0 + 4, nt, pad),
                      _out_row(out, ohot, onhot, targets, t0 + 5, nt, pad), G, grp * m, dim)
    loss = _gradients(G, ng, nx, cmult, labels, tmult, alpha)
    for grp in range(ng):
        t0 = grp * TB
        _block_update(rows, hot, nhot, ids, nx, direct,
                      _out_row(out, ohot, onhot, targets, t0, nt, pad),
                      _out_row(out, ohot, onhot, targets, t0 + 1, nt, pad),
                      _out_row(out, ohot, onhot, targets, t0 + 2, nt, pad),
                      _out_row(out, ohot, onhot, targets, t0 + 3, nt, pad),
                      _out_row(out, ohot, onhot, targets, t0 + 4, nt, pad),
                      _out_row(out, ohot, onhot, targets, t0 + 5, nt, pad), G, grp * m, dX, dim)
    return np.float64(loss)
