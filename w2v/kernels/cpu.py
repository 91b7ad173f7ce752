"""CPU training kernels: plain Numba functions over arrays.

Shape of one update (skip-gram, negative sampling, shared negatives):

* gather    ``X = syn0[contexts]``                     (nx x dim, the input rows)
* compute   ``F = X @ out[targets].T``                  (nx x nt scores)
            ``G = alpha * (label - sigmoid(F))``        (gradient scale per pair)
* scatter   ``out[targets] += G.T @ X``  and  ``syn0[contexts] += G @ out[targets]``

which is the ``np.add.at`` pattern: repeated ids add up.  Targets are the
centre word (label 1) plus ``negative`` noise words (label 0) for negative
sampling, or the inner nodes of the centre word's Huffman path (label
``1 - code``) for hierarchical softmax.  In the default *shared* mode a centre
word's negatives are drawn once and shared by all its context words (as
Intel's pWord2Vec does), so the rows are loaded once and the work is a small
dense matrix product; ``exact`` mode draws fresh negatives for every
(context, centre) pair and applies each pair's update before the next, as
word2vec.c does.

Threads update the shared matrices without locks (Hogwild), except that a
worker may train a replica of the most frequent words' rows, merged into the
shared ones as it goes (``train_tokens``' ``plan``, :class:`w2v.training.hogwild.Replica`);
each worker owns its random state, passed in and returned as a ``uint64``
array of one element.
Ids are validated by the caller before they get here: these kernels run without bounds checks.
"""

import numpy as np
from numba import njit

from .draws import HIGH32, draw_noise_words, sample_noise, splitmix64  # noqa: F401 (sample_noise: re-exported)
from .block import TB, block_step, hs_targets, negative_targets, padded_targets, unique_context, weight_row
from .fastmath import exp32, log32
from .options import INNER_OPTIONS, KERNEL_OPTIONS, MAX_SCORE, SIGMOID_CLIP
from .prefetch import prefetch_row
from .simd import LANES, vadd, vfma, vload, vmul, vsplat, vstore, vsum, vzero

@njit(**INNER_OPTIONS)
def sgd_block(X, nx, out, hot, nhot, targets, labels, nt, alpha, dX, G, dim_const):
    """One SGD step of ``nx`` input rows against ``nt`` output rows.

    Updates ``out[targets]`` in place, adds the input-row gradients to
    ``dX[:nx]`` (the caller scatters them) and returns the summed loss
    ``sum(-log sigmoid(+-x.o))`` over the ``nx * nt`` pairs.  Pairs scored
    at or beyond ``+-MAX_SCORE`` are not updated.  Output rows with ids
    below ``nhot`` are read and written in ``hot`` (see :func:`weight_row`).  ``G`` is a
    scratch buffer of at least ``2 * nx * nt`` float32.  ``dim_const`` is
    the row length when the caller passes it as a compile-time constant
    (see :func:`train_sentence`), or 0 to take it from ``X``.

    The passes over the rows are written in :mod:`w2v.kernels.simd` vectors, so the
    order of every addition is the source's: a dot product is one fused
    multiply-add chain per lane, summed over the lanes at the end (:func:`vsum`).
    Written as scalar loops, the order would be LLVM's, and with the row
    length known it is not the same in every compiled copy of this function
    (see ``docs/reproducibility.md``).  The scores and the input-row updates
    are blocked four output rows at a time, so each vector loaded from an input row
    feeds four FMAs instead of one; what is left over is done a row at a time.
    """
    # blocking: the scores and the input-row updates four output rows at a time, each with a one-row remainder
    dim = dim_const if dim_const > 0 else X.shape[1]
    m = nx * nt
    one = np.float32(1.0)
    # 1. scores F[c, t] = X[c] . out[targets[t]], stored flat in G[:m]
    for c in range(nx):
        x_row = X[c]
        t = 0
        while t + 4 <= nt:
            o0 = weight_row(out, hot, nhot, targets[t])
            o1 = weight_row(out, hot, nhot, targets[t + 1])
            o2 = weight_row(out, hot, nhot, targets[t + 2])
            o3 = weight_row(out, hot, nhot, targets[t + 3])
            f0 = vzero()
            f1 = vzero()
            f2 = vzero()
            f3 = vzero()
            for d in range(0, dim, LANES):
                n = dim - d
                x = vload(x_row, d, n)
                f0 = vfma(x, vload(o0, d, n), f0)
                f1 = vfma(x, vload(o1, d, n), f1)
                f2 = vfma(x, vload(o2, d, n), f2)
                f3 = vfma(x, vload(o3, d, n), f3)
            k = c * nt + t
            G[k] = vsum(f0)
            G[k + 1] = vsum(f1)
            G[k + 2] = vsum(f2)
            G[k + 3] = vsum(f3)
            t += 4
        while t < nt:
            o0 = weight_row(out, hot, nhot, targets[t])
            f0 = vzero()
            for d in range(0, dim, LANES):
                n = dim - d
                f0 = vfma(vload(x_row, d, n), vload(o0, d, n), f0)
            G[c * nt + t] = vsum(f0)
            t += 1
        for t in range(nt):
            G[m + c * nt + t] = labels[t]
    # 2. gradients and loss over the flat block: a branch-free loop LLVM vectorizes
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
    # 3a. dX[c] += sum_t G[c, t] out[targets[t]]   (reads the old output rows)
    for c in range(nx):
        dx_row = dX[c]
        t = 0
        while t + 4 <= nt:
            k = c * nt + t
            o0 = weight_row(out, hot, nhot, targets[t])
            o1 = weight_row(out, hot, nhot, targets[t + 1])
            o2 = weight_row(out, hot, nhot, targets[t + 2])
            o3 = weight_row(out, hot, nhot, targets[t + 3])
            g0 = vsplat(G[k])
            g1 = vsplat(G[k + 1])
            g2 = vsplat(G[k + 2])
            g3 = vsplat(G[k + 3])
            for d in range(0, dim, LANES):
                n = dim - d
                u = vfma(g3, vload(o3, d, n), vfma(g2, vload(o2, d, n),
                                                 vfma(g1, vload(o1, d, n), vmul(g0, vload(o0, d, n)))))
                vstore(dx_row, d, n, vadd(vload(dx_row, d, n), u))
            t += 4
        while t < nt:
            g0 = vsplat(G[c * nt + t])
            o0 = weight_row(out, hot, nhot, targets[t])
            for d in range(0, dim, LANES):
                n = dim - d
                vstore(dx_row, d, n, vfma(g0, vload(o0, d, n), vload(dx_row, d, n)))
            t += 1
    # 3b. out[targets[t]] += sum_c G[c, t] X[c]   (repeated targets add up)
    for t in range(nt):
        row = weight_row(out, hot, nhot, targets[t])
        for c in range(nx):
            g0 = vsplat(G[c * nt + t])
            x_row = X[c]
            for d in range(0, dim, LANES):
                n = dim - d
                vstore(row, d, n, vfma(g0, vload(x_row, d, n), vload(row, d, n)))
    return np.float64(loss)


@njit(**INNER_OPTIONS)
def _negative_targets(centre, noise, first, negative, targets, labels):
    # the centre word (label 1) then up to `negative` noise words, drawn already
    # (noise[first:first + negative]); a noise word equal to the centre is
    # skipped, as in word2vec.c and gensim
    targets[0] = centre
    labels[0] = np.float32(1.0)
    nt = 1
    for k in range(negative):
        w = noise[first + k]
        if w == centre:
            continue
        targets[nt] = w
        labels[nt] = np.float32(0.0)
        nt += 1
    return nt


@njit(**INNER_OPTIONS)
def _hs_targets(centre, hs_codes, hs_points, hs_lengths, targets, labels):
    n = hs_lengths[centre]
    for k in range(n):
        targets[k] = hs_points[centre, k]
        labels[k] = np.float32(1.0) - np.float32(hs_codes[centre, k])
    return n


@njit(inline="always", **INNER_OPTIONS)
def output_layers(X, nx, centre, syn1, syn1neg, hot1, nhot1, hs_codes, hs_points, hs_lengths, hs,
                  noise, first, negative, targets, labels, alpha, dX, G, dim_const):
    # One example's output layers for the input rows X[:nx]: the hierarchical
    # softmax step, then the negative-sampling step against the noise words
    # noise[first:first + negative], drawn already, with the rows
    # syn1neg[:nhot1] in the thread's copy hot1.  Returns the summed loss; the
    # input-row gradients are added to dX[:nx].
    loss = 0.0
    if hs:
        nt = _hs_targets(centre, hs_codes, hs_points, hs_lengths, targets, labels)
        loss += sgd_block(X, nx, syn1, hot1, 0, targets, labels, nt, alpha, dX, G, dim_const)
    if negative > 0:
        nt = _negative_targets(centre, noise, first, negative, targets, labels)
        loss += sgd_block(X, nx, syn1neg, hot1, nhot1, targets, labels, nt, alpha, dX, G, dim_const)
    return loss


@njit(**INNER_OPTIONS)
def _context(sent, n, i, b, window, ctx):
    # ids around position i, the window shrunk by b (word2vec.c's dynamic window)
    lo = max(0, i - window + b)
    hi = min(n, i + window + 1 - b)
    nc = 0
    for j in range(lo, hi):
        if j != i:
            ctx[nc] = sent[j]
            nc += 1
    return nc


@njit(**INNER_OPTIONS)
def _draw_sentence(n, window, negative, noise_table, s, shrink, noise):
    # A sentence's random draws made up front, in the order the word loop made
    # them when it drew as it went (so results are unchanged): per word its
    # window shrink, then its `negative` noise words.  A word without context
    # draws no noise words; with window >= 1 that happens only in a one-word
    # sentence.  Drawn here, the word loop can prefetch the next word's noise
    # rows without drawing twice, and the alias-table reads of a whole
    # sentence overlap one another.
    with_noise = n > 1
    for i in range(n):
        r, s = splitmix64(s)
        shrink[i] = np.int32(r % np.uint64(window))
        if with_noise:
            s = draw_noise_words(noise_table, s, noise, i * negative, negative)
    return s


@njit(**INNER_OPTIONS)
def _prefetch_next_word(sent, n, i, syn0, syn1neg, hot0, nhot0, hot1, nhot1, noise, nnoise, window,
                        negative, dim):
    # Start loading what word i + 1 touches while word i computes: the input
    # row entering the context, the next centre's output row and the rows of
    # the first `nnoise` of its noise words (drawn already, see _draw_sentence).
    # Rows the thread holds a copy of (ids below nhot0 / nhot1) are prefetched
    # from the copy: a replica of 10k rows does not fit in L2 either.
    if i + 1 >= n:
        return
    nxt = i + window + 1
    if nxt < n:
        _prefetch_weight_row(syn0, hot0, nhot0, sent[nxt], dim)
    if negative > 0:
        _prefetch_weight_row(syn1neg, hot1, nhot1, sent[i + 1], dim)
        first = (i + 1) * negative
        for k in range(first, first + nnoise):
            _prefetch_weight_row(syn1neg, hot1, nhot1, noise[k], dim)


@njit(**INNER_OPTIONS)
def _prefetch_weight_row(rows, hot, nhot, r, dim):
    # prefetch what weight_row(rows, hot, nhot, r) returns
    if r < nhot:
        prefetch_row(hot, r, dim)
    else:
        prefetch_row(rows, r, dim)


# Row length compiled as a constant.  Numba compiles a separate version of a
# function for each literal argument value, so calling the word loops with
# this constant gives LLVM a known trip count for every loop over a row (no
# run-time trip-count checks, the split of a row into whole vectors and a tail
# and the row prefetches fixed at compile time).  100 is the default of gensim, word2vec.c
# and w2v; every other length takes the general version.  Each
# specialization costs one more compilation of the kernel (cached on disk),
# so there is only one.  A loop over a row unrolled completely is where LLVM
# would reorder a float sum when it optimizes a copy of the function again:
# the sums over a row are written in w2v.kernels.simd vectors (sgd_block,
# w2v.kernels.block), whose order no optimization changes.
SPECIALIZED_DIM = 100


@njit(**INNER_OPTIONS)
def train_sentence(sent, n, syn0, syn1neg, syn1, hot0, nhot0, hot1, nhot1, noise_table,
                   hs_codes, hs_points, hs_lengths, sg, cbow_mean, window, negative, hs, shared,
                   alpha, s, X, dX, G, ctx, targets, labels, cmult, tmult, pad, shrink, noise, stats):
    """Train one (already subsampled) sentence ``sent[:n]``; return the new RNG state.

    ``stats`` accumulates ``[loss, examples]`` in float64; ``shrink`` (int32,
    ``n``) and ``noise`` (int32, ``n * negative``) are scratch for the
    sentence's random draws, the others are :func:`scratch`'s.  Rows of
    :data:`SPECIALIZED_DIM` floats run a version compiled for that length.
    The rows ``syn0[:nhot0]`` and ``syn1neg[:nhot1]`` are read and written in
    the thread's copies ``hot0`` and ``hot1`` (see :func:`merge_hot_rows`; the
    per-pair mode takes none).
    """
    if sg and not shared:
        if syn0.shape[1] == SPECIALIZED_DIM:
            return _train_pairs(sent, n, syn0, syn1neg, syn1, hot1, noise_table, hs_codes, hs_points,
                                hs_lengths, window, negative, hs, alpha, s, X, dX, G, ctx, targets,
                                labels, noise, stats, SPECIALIZED_DIM)
        return _train_pairs(sent, n, syn0, syn1neg, syn1, hot1, noise_table, hs_codes, hs_points,
                            hs_lengths, window, negative, hs, alpha, s, X, dX, G, ctx, targets,
                            labels, noise, stats, 0)
    s = _draw_sentence(n, window, negative, noise_table, s, shrink, noise)
    if syn0.shape[1] == SPECIALIZED_DIM:
        _train_words(sent, n, syn0, syn1neg, syn1, hot0, nhot0, hot1, nhot1, hs_codes, hs_points,
                     hs_lengths, sg, cbow_mean, window, negative, hs, alpha, X, dX, G, ctx, targets,
                     labels, cmult, tmult, pad, shrink, noise, stats, SPECIALIZED_DIM)
    else:
        _train_words(sent, n, syn0, syn1neg, syn1, hot0, nhot0, hot1, nhot1, hs_codes, hs_points,
                     hs_lengths, sg, cbow_mean, window, negative, hs, alpha, X, dX, G, ctx, targets,
                     labels, cmult, tmult, pad, shrink, noise, stats, 0)
    return s


@njit(inline="always", **INNER_OPTIONS)
def _shared_output_layers(rows, hot0, nhot0, ids, cmult, nx, direct, centre, syn1, syn1neg,
                          hot1, nhot1, hs_codes, hs_points, hs_lengths, hs, noise, first, negative, targets,
                          labels, tmult, alpha, dX, G, pad, dim_const):
    # Skip-gram's shared output layers for the distinct context rows (block_step's
    # arguments): the hierarchical softmax step, then the negative-sampling step
    # against noise[first:first + negative]; returns the summed loss.
    loss = 0.0
    if hs:
        nt = hs_targets(centre, hs_codes, hs_points, hs_lengths, targets, labels, tmult)
        loss += block_step(rows, hot0, nhot0, ids, cmult, nx, False, syn1, hot1, 0, targets,
                           labels, tmult, nt, alpha, dX, G, pad, dim_const)
    if negative > 0:
        nt = negative_targets(centre, noise, first, negative, targets, labels, tmult)
        loss += block_step(rows, hot0, nhot0, ids, cmult, nx, direct, syn1neg, hot1, nhot1,
                           targets, labels, tmult, nt, alpha, dX, G, pad, dim_const)
    return loss


@njit(**INNER_OPTIONS)
def _train_words(sent, n, syn0, syn1neg, syn1, hot0, nhot0, hot1, nhot1, hs_codes, hs_points,
                 hs_lengths, sg, cbow_mean, window, negative, hs, alpha, X, dX, G, ctx, targets,
                 labels, cmult, tmult, pad, shrink, noise, stats, dim_const):
    # Skip-gram with shared negatives, and CBOW, over a sentence whose random
    # draws are made (_draw_sentence); dim_const as in sgd_block.
    dim = dim_const if dim_const > 0 else syn0.shape[1]
    # skip-gram with negative sampling alone, up to TB targets: the block adds the
    # input rows' updates into the rows themselves, else into dX, scattered after
    direct = not hs and negative < TB
    for i in range(n):
        centre = sent[i]
        if sg:
            nu, nc = unique_context(sent, n, i, shrink[i], window, ctx, cmult)
        else:
            nc = _context(sent, n, i, shrink[i], window, ctx)
        if nc == 0:
            continue
        _prefetch_next_word(sent, n, i, syn0, syn1neg, hot0, nhot0, hot1, nhot1, noise, negative,
                            window, negative, dim)
        if sg:
            # the distinct context rows, read in place: no copies
            if not direct:
                for c in range(nu):
                    for d in range(dim):
                        dX[c, d] = 0.0
            loss = _shared_output_layers(syn0, hot0, nhot0, ctx, cmult, nu, direct, centre, syn1,
                                         syn1neg, hot1, nhot1, hs_codes, hs_points, hs_lengths, hs, noise,
                                         i * negative, negative, targets, labels, tmult, alpha, dX, G, pad,
                                         dim_const)
            if not direct:
                for c in range(nu):
                    row = weight_row(syn0, hot0, nhot0, ctx[c])
                    for d in range(dim):
                        row[d] += dX[c, d]
            stats[0] += loss
            stats[1] += nc
        else:
            # CBOW: the hidden row is the sum (or mean) of the context rows
            for d in range(dim):
                X[0, d] = 0.0
                dX[0, d] = 0.0
            for c in range(nc):
                row = weight_row(syn0, hot0, nhot0, ctx[c])
                for d in range(dim):
                    X[0, d] += row[d]
            if cbow_mean:
                inv = np.float32(1.0) / np.float32(nc)
                for d in range(dim):
                    X[0, d] *= inv
            # one input row: the blocked step measured no faster (1.02x), so CBOW keeps its vectors
            loss = output_layers(X, 1, centre, syn1, syn1neg, hot1, nhot1, hs_codes, hs_points,
                                 hs_lengths, hs, noise, i * negative, negative, targets, labels,
                                 alpha, dX, G, dim_const)
            if not cbow_mean:
                # as gensim: with the sum, the error is divided over the context rows;
                # with the mean, every context row gets the full error (gensim and
                # word2vec.c both do this, although the mean's exact gradient is 1/nc of it)
                inv = np.float32(1.0) / np.float32(nc)
                for d in range(dim):
                    dX[0, d] *= inv
            for c in range(nc):
                row = weight_row(syn0, hot0, nhot0, ctx[c])
                for d in range(dim):
                    row[d] += dX[0, d]
            stats[0] += loss
            stats[1] += 1


@njit(**INNER_OPTIONS)
def _train_pairs(sent, n, syn0, syn1neg, syn1, unused_hot, noise_table, hs_codes, hs_points,
                 hs_lengths, window, negative, hs, alpha, s, X, dX, G, ctx, targets, labels, noise,
                 stats, dim_const):
    # Skip-gram in word2vec.c's order (--exact): each (context, centre) pair
    # updated in turn with its own noise words, drawn as it goes into
    # noise[:negative].  Every row is read and written in the shared
    # matrices (unused_hot only gives output_layers its argument's type).
    dim = dim_const if dim_const > 0 else syn0.shape[1]
    for i in range(n):
        centre = sent[i]
        r, s = splitmix64(s)
        nc = _context(sent, n, i, np.int64(r % np.uint64(window)), window, ctx)
        if nc == 0:
            continue
        _prefetch_next_word(sent, n, i, syn0, syn1neg, syn0, 0, syn1neg, 0, noise, 0, window, negative, dim)
        for c in range(nc):
            w = np.uint64(ctx[c])
            for d in range(dim):
                X[0, d] = syn0[w, d]
                dX[0, d] = 0.0
            if negative > 0:
                # this pair's noise words, drawn now (hierarchical softmax draws nothing,
                # so drawing them before its step changes no result)
                s = draw_noise_words(noise_table, s, noise, 0, negative)
            loss = output_layers(X, 1, centre, syn1, syn1neg, unused_hot, 0, hs_codes, hs_points,
                                 hs_lengths, hs, noise, 0, negative, targets, labels, alpha, dX, G,
                                 dim_const)
            for d in range(dim):
                syn0[w, d] += dX[0, d]
            stats[0] += loss
            stats[1] += 1
    return s


@njit(**KERNEL_OPTIONS)
def scratch(window, kmax, dim):
    """The scratch arrays of :func:`train_sentence` for up to ``kmax`` targets per step.

    ``(X, dX, G, ctx, targets, labels, cmult, tmult, pad)``: input rows and
    their updates, scores, context ids, target ids and labels, the
    multiplicities of the contexts and targets, and a row of zeros.
    """
    width = 2 * window
    kpad = padded_targets(kmax)
    return (np.empty((width, dim), np.float32), np.empty((width, dim), np.float32),
            np.empty(3 * width * kpad, np.float32), np.empty(width, np.int64), np.empty(kpad, np.int64),
            np.empty(kpad, np.float32), np.empty(width, np.float32), np.empty(kpad, np.float32),
            np.zeros((1, dim), np.float32))


@njit(**INNER_OPTIONS)
def merge_hot_rows(rows, hot, snap, lo, hi):
    """Add a thread's changes to its copies of ``rows[lo:hi]`` into ``rows``; refresh the copies.

    ``hot`` holds the thread's working copies of the rows and ``snap`` their
    values when they were last taken, so ``rows[r] += hot[r] - snap[r]``
    adds this thread's updates to whatever the other threads have added
    meanwhile (the read-modify-write is not atomic: Hogwild, as every
    update here); then both copies restart from the merged rows.  ``hi``
    is clipped to the rows of the copies.
    """
    dim = rows.shape[1]
    for r in range(lo, min(hi, hot.shape[0])):
        for d in range(dim):
            v = rows[r, d] + (hot[r, d] - snap[r, d])
            rows[r, d] = v
            hot[r, d] = v
            snap[r, d] = v


@njit(**KERNEL_OPTIONS)
def train_tokens(tokens, pos0, total, syn0, syn1neg, syn1, keep_threshold, noise_table,
                 hs_codes, hs_points, hs_lengths, sg, cbow_mean, window, negative,
                 hs, shared, alpha0, min_alpha, max_sentence_length, hot0, hot1, snap0, snap1,
                 plan, pending, rng_state, stats):
    """Train on a block of the encoded corpus.

    Parameters
    ----------
    tokens : int32[:]
        Vocabulary ids, ``-1`` between sentences (validated by the caller).
    pos0, total : int
        Position of ``tokens[0]`` in the whole run (epochs x stream length)
        and the run's length: the learning rate decays linearly from
        ``alpha0`` to ``min_alpha`` along it.
    syn0, syn1neg, syn1 : float32[:, :]
        Input vectors, negative-sampling output vectors, HS inner-node vectors.
    keep_threshold : int64[:]
        Subsampling: keep a token if ``rand32 < keep_threshold[id]``.
    noise_table : uint64[:]
        Packed alias table of the noise distribution
        (:func:`w2v.training.sampling.pack_alias_table`).
    hs_codes, hs_points, hs_lengths : int8[:, :], int32[:, :], int32[:]
        Huffman tree.
    sg, cbow_mean, hs, shared : bool
    window, negative, max_sentence_length : int
    hot0, hot1, snap0, snap1 : float32[:, :]
        A worker's replica (:class:`w2v.training.hogwild.Replica`): in the shared mode
        (``shared``) the rows of ids below ``plan[2]`` are read and written
        in ``hot0`` (for ``syn0``) and ``hot1`` (for ``syn1neg``) instead;
        ``snap0``, ``snap1`` hold their values when last merged.
    plan, pending : int64[4], int64[2]
        The replica's rows and merges: rows ``[0, plan[0])`` are merged into
        the shared matrices (:func:`merge_hot_rows`) after every ``plan[1]``
        trained words and rows ``[plan[0], plan[2])`` after every
        ``plan[3]``, at the end of a sentence; ``pending`` counts the words
        trained since each merge, across calls.  ``plan[2] = 0``: no replica.
    rng_state : uint64[1]
        The worker's random state, advanced in place.
    stats : float64[4]
        Accumulates ``[loss, examples, words kept, words seen]``.
    """
    # blocking: one nogil loop over the sentences owns scratch buffers, schedule and replica merges
    dim = syn0.shape[1]
    X, dX, G, ctx, targets, labels, cmult, tmult, pad = scratch(window, max(negative + 1, hs_codes.shape[1]), dim)
    sent = np.empty(max_sentence_length, np.int32)
    shrink = np.empty(max_sentence_length, np.int32)              # the sentence's draws
    noise = np.empty(max_sentence_length * max(negative, 1), np.int32)
    local = np.zeros(2, np.float64)   # [loss, examples], written to `stats` once at the end
    nhot = plan[2] if shared else 0
    nhot0 = min(nhot, hot0.shape[0])
    nhot1 = min(nhot, hot1.shape[0]) if negative > 0 else 0
    s = rng_state[0]
    n = 0
    seen = 0
    kept = 0
    sent_start = 0
    ntok = tokens.size
    for p in range(ntok + 1):
        w = tokens[p] if p < ntok else -1
        if w >= 0:
            seen += 1
            r, s = splitmix64(s)
            if np.int64(r >> HIGH32) < keep_threshold[w]:
                sent[n] = w
                n += 1
        if w < 0 or n == max_sentence_length or p == ntok:
            if n > 0:
                frac = (pos0 + sent_start) / total
                alpha = np.float32(alpha0 - (alpha0 - min_alpha) * min(frac, 1.0))
                if alpha < min_alpha:
                    alpha = np.float32(min_alpha)
                s = train_sentence(sent, n, syn0, syn1neg, syn1, hot0, nhot0, hot1, nhot1, noise_table,
                                   hs_codes, hs_points, hs_lengths, sg, cbow_mean, window, negative,
                                   hs, shared, alpha, s, X, dX, G, ctx, targets, labels, cmult, tmult, pad,
                                   shrink, noise, local)
                kept += n
                if nhot > 0:
                    pending[0] += n
                    pending[1] += n
                    if pending[0] >= plan[1]:   # the most frequent rows, often
                        merge_hot_rows(syn0, hot0, snap0, 0, plan[0])
                        merge_hot_rows(syn1neg, hot1, snap1, 0, plan[0])
                        pending[0] = 0
                    if pending[1] >= plan[3]:
                        merge_hot_rows(syn0, hot0, snap0, plan[0], plan[2])
                        merge_hot_rows(syn1neg, hot1, snap1, plan[0], plan[2])
                        pending[1] = 0
            n = 0
            sent_start = p + 1
    stats[0] += local[0]
    stats[1] += local[1]
    stats[2] += kept
    stats[3] += seen
    rng_state[0] = s
