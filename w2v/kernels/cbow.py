"""CBOW's step in SIMD vectors: the hidden row, its step against one block of output rows, the scatter.

CBOW trains one input row per centre word, the hidden row ``h``: the sum of the context rows
``r_c``, or their mean.  Its step against the output rows ``o_t`` is
:func:`w2v.kernels.cpu.sgd_block`'s with one input row:

* scores    ``f_t = h . o_t``,  gradients ``g_t = alpha * (label_t - sigmoid(f_t))``
* updates   ``dh = sum_t g_t o_t`` (from the old rows) and ``o_t += g_t h``
* scatter   ``r_c += dh`` for every context position (``dh / nc`` with the sum, as gensim)

Made of scalar loops around ``sgd_block``, a word takes eight passes over rows of ``dim`` floats:
zero ``h`` and ``dh``, add each context row into ``h``, scale it, the scores, ``dh`` (the output rows
again), the output rows' update (again), the scatter.  At dim 300 the passes over the rows are most
of CBOW's instructions.  Here, with the output rows of one block of :data:`~w2v.kernels.block.TB`
(the centre and up to five noise words, word2vec's default), a word takes four:

* :func:`hidden_row`: the context rows two at a time, the first pair stored without zeroing, the
  mean applied in the last pass;
* :func:`block_scores`: one load of ``h`` per vector feeds the six dot products;
* :func:`block_update`: each vector of the six output rows is loaded once for ``dh`` and updated
  in the same pass (``dh`` scaled there for the sum);
* :func:`scatter`: ``dh`` added to each context row.

The sums are those of ``sgd_block``, in its order: every dot product is one fused multiply-add chain
per lane, summed over the lanes at the end; ``dh`` is the chain of the first four rows added to
zero, then a multiply-add for each further row; an output row takes its update after ``dh`` has
read every old row, and a row that is two targets (a noise word drawn twice) takes both updates in
turn.  So these kernels train the vectors ``sgd_block`` trains, bit for bit, and a repeated target
needs no merging.  A block short of six rows is filled up with a row of zeros whose gradient is 0.
"""
import numpy as np
from numba import njit

from .block import TB, flat_gradients, weight_row
from .options import INNER_OPTIONS
from .simd import LANES, vadd, vfma, vload, vmul, vsplat, vstore, vsum, vzero


@njit(inline="always", **INNER_OPTIONS)
def _out_row(out, hot, nhot, targets, t, nt, pad):
    # output row t of the block, the row of zeros past the last target
    if t < nt:
        return weight_row(out, hot, nhot, targets[t])
    return pad[0]


@njit(**INNER_OPTIONS)
def hidden_row(rows, hot, nhot, ctx, nc, mean, h, dim_const):
    """``h = r_0 + r_1 + ... + r_{nc-1}`` (added in that order), times ``1 / nc`` when ``mean``.

    ``r_c`` is row ``ctx[c]`` of ``rows`` (``hot`` below ``nhot``, see :func:`weight_row`);
    ``nc >= 1``.  The context rows are taken two at a time: one load and one store of ``h`` per
    two rows.  ``dim_const``: the row length as a compile-time constant, or 0 to take it from ``h``
    (as :func:`w2v.kernels.cpu.sgd_block`'s).
    """
    dim = dim_const if dim_const > 0 else h.shape[0]
    inv = vsplat(np.float32(1.0) / np.float32(nc))
    ra = weight_row(rows, hot, nhot, ctx[0])
    if nc == 1:
        for k in range(0, dim, LANES):
            n = dim - k
            s = vload(ra, k, n)
            vstore(h, k, n, vmul(s, inv) if mean else s)
        return
    rb = weight_row(rows, hot, nhot, ctx[1])
    last = mean and nc == 2
    for k in range(0, dim, LANES):
        n = dim - k
        s = vadd(vload(ra, k, n), vload(rb, k, n))
        vstore(h, k, n, vmul(s, inv) if last else s)
    c = 2
    while c + 2 <= nc:
        ra = weight_row(rows, hot, nhot, ctx[c])
        rb = weight_row(rows, hot, nhot, ctx[c + 1])
        last = mean and c + 2 == nc
        for k in range(0, dim, LANES):
            n = dim - k
            s = vadd(vadd(vload(h, k, n), vload(ra, k, n)), vload(rb, k, n))
            vstore(h, k, n, vmul(s, inv) if last else s)
        c += 2
    if c < nc:
        ra = weight_row(rows, hot, nhot, ctx[c])
        for k in range(0, dim, LANES):
            n = dim - k
            s = vadd(vload(h, k, n), vload(ra, k, n))
            vstore(h, k, n, vmul(s, inv) if mean else s)


@njit(inline="always", **INNER_OPTIONS)
def _scores(h, o0, o1, o2, o3, o4, o5, G, dim):
    # G[t] = h . o_t for the block's six rows: one load of h per vector, six accumulators
    f0 = vzero()
    f1 = vzero()
    f2 = vzero()
    f3 = vzero()
    f4 = vzero()
    f5 = vzero()
    for k in range(0, dim, LANES):
        n = dim - k
        x = vload(h, k, n)
        f0 = vfma(x, vload(o0, k, n), f0)
        f1 = vfma(x, vload(o1, k, n), f1)
        f2 = vfma(x, vload(o2, k, n), f2)
        f3 = vfma(x, vload(o3, k, n), f3)
        f4 = vfma(x, vload(o4, k, n), f4)
        f5 = vfma(x, vload(o5, k, n), f5)
    G[0] = vsum(f0)
    G[1] = vsum(f1)
    G[2] = vsum(f2)
    G[3] = vsum(f3)
    G[4] = vsum(f4)
    G[5] = vsum(f5)


@njit(inline="always", **INNER_OPTIONS)
def _update(h, o0, o1, o2, o3, o4, o5, G, scale, dh, dim):
    # dh = (sum_t g_t o_t) * scale from the old rows, then o_t += g_t h in turn, one pass over the rows
    g0 = vsplat(G[0])
    g1 = vsplat(G[1])
    g2 = vsplat(G[2])
    g3 = vsplat(G[3])
    g4 = vsplat(G[4])
    g5 = vsplat(G[5])
    sc = vsplat(scale)
    for k in range(0, dim, LANES):
        n = dim - k
        x = vload(h, k, n)
        p0 = vload(o0, k, n)
        p1 = vload(o1, k, n)
        p2 = vload(o2, k, n)
        p3 = vload(o3, k, n)
        p4 = vload(o4, k, n)
        p5 = vload(o5, k, n)
        # sgd_block's order: the first four rows' chain added to zero, then one multiply-add per row
        u = vfma(g3, p3, vfma(g2, p2, vfma(g1, p1, vmul(g0, p0))))
        d = vfma(g5, p5, vfma(g4, p4, vadd(vzero(), u)))
        vstore(dh, k, n, vmul(d, sc))   # times 1 for the mean: exact
        # each row reloaded after the previous row's store: a row that is two targets takes both updates
        vstore(o0, k, n, vfma(g0, x, vload(o0, k, n)))
        vstore(o1, k, n, vfma(g1, x, vload(o1, k, n)))
        vstore(o2, k, n, vfma(g2, x, vload(o2, k, n)))
        vstore(o3, k, n, vfma(g3, x, vload(o3, k, n)))
        vstore(o4, k, n, vfma(g4, x, vload(o4, k, n)))
        vstore(o5, k, n, vfma(g5, x, vload(o5, k, n)))


@njit(**INNER_OPTIONS)
def block_step(h, out, hot, nhot, targets, labels, nt, alpha, scale, dh, G, pad, dim_const):
    """One SGD step of the hidden row ``h`` against up to :data:`TB` output rows; returns the loss.

    Output row ``t`` is row ``targets[t]`` of ``out`` (``hot`` below ``nhot``), with label
    ``labels[t]``, ``1 <= nt <= TB``; repeated targets add up.  The output rows are updated in
    place, ``dh`` receives the input-row update times ``scale`` (``1 / nc`` for CBOW's sum, else
    1).  ``G`` is scratch of at least ``2 * TB`` float32 and ``pad`` a ``(1, dim)`` array of
    zeros; ``dim_const`` as in :func:`hidden_row`.  The summed loss ``sum(-log sigmoid(+-h.o))`` is
    that of ``sgd_block``.
    """
    dim = dim_const if dim_const > 0 else h.shape[0]
    o0 = _out_row(out, hot, nhot, targets, 0, nt, pad)
    o1 = _out_row(out, hot, nhot, targets, 1, nt, pad)
    o2 = _out_row(out, hot, nhot, targets, 2, nt, pad)
    o3 = _out_row(out, hot, nhot, targets, 3, nt, pad)
    o4 = _out_row(out, hot, nhot, targets, 4, nt, pad)
    o5 = _out_row(out, hot, nhot, targets, 5, nt, pad)
    _scores(h, o0, o1, o2, o3, o4, o5, G, dim)
    for t in range(nt):
        G[nt + t] = labels[t]
    loss = flat_gradients(G, nt, alpha)
    for t in range(nt, TB):   # the row of zeros takes no update
        G[t] = np.float32(0.0)
    _update(h, o0, o1, o2, o3, o4, o5, G, scale, dh, dim)
    return np.float64(loss)


@njit(**INNER_OPTIONS)
def scatter(rows, hot, nhot, ctx, nc, dh, dim_const):
    """``r_c += dh`` for each context position ``c < nc`` (a word twice in the window takes it twice).

    ``dim_const`` as in :func:`hidden_row`.
    """
    dim = dim_const if dim_const > 0 else dh.shape[0]
    for c in range(nc):
        r = weight_row(rows, hot, nhot, ctx[c])
        for k in range(0, dim, LANES):
            n = dim - k
            vstore(r, k, n, vadd(vload(r, k, n), vload(dh, k, n)))
