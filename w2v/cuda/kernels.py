"""CUDA training kernels (``numba.cuda``).

Work mapping
------------
One thread block trains one *segment* (:mod:`w2v.cuda.host`): at most
``seg_max`` consecutive ids of the encoded stream, possibly holding several
short sentences separated by ``-1``.  Blocks loop over segments
(grid-stride), so any grid size works.  Inside a block:

1. **Subsampling on the device.**  Each thread takes a contiguous slice of
   the raw segment, decides keep/drop for each token with a counter-based
   splitmix64 draw keyed by its global position, and the kept ids are
   compacted in order (an exclusive scan of per-thread counts) into shared
   memory (``sent``; sentence ends stay in as ``-1``).
2. **Centres in order.**  The block walks the kept ids as the CPU kernel
   walks a sentence: window shrink ``b`` from the segment's splitmix64 stream,
   the context limited to the centre's own sentence, then the update.  Within
   a segment the updates are sequential (each centre sees the previous
   centre's writes), exactly as :func:`w2v.kernels.cpu.train_sentence`.
3. **One update = one small dense block** (same algebra as
   :func:`w2v.kernels.cpu.sgd_block`): the input rows ``X`` (skip-gram with
   shared negatives: all context rows of the window; CBOW: their sum or mean;
   ``exact`` skip-gram: one context row at a time) and the target rows ``W``
   (centre + ``negative`` noise words, shared by the whole window, or the
   Huffman path for hierarchical softmax) are gathered into shared memory,
   rows padded to an odd stride so that threads reading different rows at
   the same column hit different banks.  Scores ``X . W`` are computed with
   ``K`` threads per (input, target) pair, each summing a strided part of the
   dimensions, and the ``K`` partial sums are added from shared memory
   (``K`` = as many threads as the block has per pair, up to 32).  Gradients
   ``G = alpha (label - sigmoid(score))`` go to shared memory; then each
   thread owns a set of dimensions ``d`` and computes ``dX[:, d] = G @ W[:, d]``
   (kept in the thread's local array until the context rows are written back)
   and ``out[targets, d] += G.T @ X[:, d]``.  No warp shuffles are used, only
   ``syncthreads`` between phases (so the same code runs on Numba's CUDA
   simulator, which has no shuffles).
4. **Hogwild writes.**  ``out`` rows and, at the end of each update, the
   context rows of ``syn0`` are updated in global memory with
   ``cuda.atomic.add`` (default: no lost updates when blocks collide on
   frequent words) or plain read-add-store (``atomics=False``).  Within a block
   the thread that owns dimension ``d`` does every read and write of column
   ``d``, so repeated words in a window add up exactly as ``np.add.at``.
5. Loss, examples, kept and seen counts are reduced per block and added to a
   float64 ``stats`` row with one atomic add each.

The learning rate is computed per segment from its global position with the
CPU formula ``alpha0 - (alpha0 - min_alpha) * min(1, position / total)``.
"""
import math

import numpy as np
from numba import cuda, float32, float64, int32, int64, uint64

from . import simulator_enabled
from .host import default_threads  # noqa: F401  (re-exported)

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
U27 = np.uint64(27)
U30 = np.uint64(30)
U31 = np.uint64(31)
U32 = np.uint64(32)
LOW32 = np.uint64(0xFFFFFFFF)
SIGMOID_CLIP = np.float32(20.0)   # as the CPU kernels
MAX_SCORE = np.float32(6.0)       # as the CPU kernels: no update at or beyond +-6 (gensim's rule)


@cuda.jit(device=True)
def mix64(z):
    """splitmix64's output function."""
    z = (z ^ (z >> U30)) * MIX1
    z = (z ^ (z >> U27)) * MIX2
    return z ^ (z >> U31)


@cuda.jit(device=True)
def draw_noise(r, noise_threshold, noise_alias):
    """One draw of the noise distribution from the alias table (as the CPU kernel)."""
    i = int64(((r >> U32) * uint64(noise_threshold.size)) >> U32)
    if int64(r & LOW32) < noise_threshold[i]:
        return i
    return int64(noise_alias[i])


@cuda.jit
def sample_noise_kernel(n, state, noise_threshold, noise_alias, out):
    """``out[i]`` = noise draw number ``i + 1`` of the splitmix64 stream at ``state`` (grid-stride).

    Equals :func:`w2v.kernels.cpu.sample_noise` with the same state (tests, statistics).
    """
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        out[i] = draw_noise(mix64(state + uint64(i + 1) * GOLDEN), noise_threshold, noise_alias)


@cuda.jit
def keep_kernel(ids, pos0, seed_keep, keep_threshold, out):
    """``out[j] = 1`` if token ``ids[j]`` at global position ``pos0 + j`` is kept (grid-stride).

    The same decision the training kernel takes.
    """
    for j in range(cuda.grid(1), ids.size, cuda.gridsize(1)):
        w = ids[j]
        keep = 0
        if w >= 0:
            r = mix64(seed_keep + uint64(pos0 + j + 1) * GOLDEN)
            if int64(r >> U32) < keep_threshold[w]:
                keep = 1
        out[j] = keep


_KERNELS = {}


def get_train_kernel(dim, window, negative, hs, sg, shared, cbow_mean, kmax, seg_max, threads, atomics,
                     max_registers=None):
    """The training kernel specialised for these settings (compiled on first launch, cached).

    ``max_registers`` caps the registers per thread (more resident blocks per
    SM, at the price of spills); ``None`` lets the compiler choose.
    """
    key = (int(dim), int(window), int(negative), bool(hs), bool(sg), bool(shared), bool(cbow_mean),
           int(kmax), int(seg_max), int(threads), bool(atomics), int(max_registers or 0))
    kern = _KERNELS.get(key)
    if kern is None:
        kern = _build_train_kernel(*key)
        _KERNELS[key] = kern
    return kern


def _build_train_kernel(dim, window, negative, hs, sg, shared, cbow_mean, kmax, seg_max, threads, atomics,
                        max_registers):
    # blocking: the kernel and its device functions are closures over this specialisation's
    # compile-time constants (row stride, shared-memory sizes), so they are built here together
    # compile-time constants of this specialisation
    DIM = dim
    LD = dim + 1 if dim % 2 == 0 else dim     # odd row stride in shared memory
    NTHR = threads
    SEG = seg_max
    WIN = window
    NEG = negative
    HS = hs
    SG = sg
    SHARED = shared
    MEAN = cbow_mean
    ATOMIC = atomics
    KMAX = kmax
    NX = 2 * window if (sg and shared) else 1
    DPT = (dim + threads - 1) // threads      # dimensions owned by each thread
    XSZ = NX * LD
    REDSZ = 4 * threads
    LOCSZ = NX * DPT
    WSZ = KMAX * LD
    GSZ = NX * KMAX
    UWIN = np.uint64(window)
    UNEG = np.uint64(negative)
    ONE = np.float32(1.0)
    ZERO = np.float32(0.0)

    @cuda.jit(device=True)
    def add_to(mat, row, d, val):
        if ATOMIC:
            cuda.atomic.add(mat, (row, d), val)
        else:
            mat[row, d] += val

    @cuda.jit(device=True)
    def grad(f, lb, alpha):
        skip = abs(f) >= MAX_SCORE
        f = min(max(f, -SIGMOID_CLIP), SIGMOID_CLIP)
        e = math.exp(-f)
        one_e = ONE + e
        g = ZERO if skip else (lb - ONE / one_e) * alpha
        loss = math.log(one_e) + (ONE - lb) * f
        return float32(g), float64(loss)

    @cuda.jit(device=True)
    def sgd_step(Xs, dXl, nx, out, Ws, trg, lab, nt, G, P, alpha, tid):
        """One SGD step of ``nx`` rows of Xs against ``out[trg[:nt]]`` (skipping lab < 0).

        Updates ``out`` in global memory, adds the input-row gradient of this
        thread's dimensions to its local ``dXl[c * DPT + k]`` (dimension
        ``tid + k * NTHR``); returns this thread's share of the loss.  Ends
        with a barrier.
        """
        # blocking: gather, scores, gradients and both updates share the block's shared-memory tiles
        # and the barriers between them, so they stay one device function
        # 1. gather the target rows
        for t in range(nt):
            if lab[t] >= ZERO:
                row = trg[t]
                for d in range(tid, DIM, NTHR):
                    Ws[t * LD + d] = out[row, d]
        cuda.syncthreads()
        # 2. scores -> gradient scales G[c * nt + t]
        loss = 0.0
        npairs = nx * nt
        K = 1
        while K < 32 and 2 * K * npairs <= NTHR:
            K *= 2
        if K == 1:
            for q in range(tid, npairs, NTHR):
                c = q // nt
                t = q - c * nt
                lb = lab[t]
                g = ZERO
                if lb >= ZERO:
                    xo = c * LD
                    wo = t * LD
                    f = ZERO
                    for d in range(DIM):
                        f += Xs[xo + d] * Ws[wo + d]
                    g, pair_loss = grad(f, lb, alpha)
                    loss += pair_loss
                G[q] = g
        else:
            q = tid // K
            k = tid - q * K
            part = ZERO
            if q < npairs:
                c = q // nt
                t = q - c * nt
                if lab[t] >= ZERO:
                    xo = c * LD
                    wo = t * LD
                    for d in range(k, DIM, K):
                        part += Xs[xo + d] * Ws[wo + d]
            P[tid] = part
            cuda.syncthreads()
            if tid < npairs:
                c = tid // nt
                t = tid - c * nt
                lb = lab[t]
                g = ZERO
                if lb >= ZERO:
                    f = ZERO
                    for k2 in range(K):
                        f += P[tid * K + k2]
                    g, pair_loss = grad(f, lb, alpha)
                    loss += pair_loss
                G[tid] = g
        cuda.syncthreads()
        # 3. dX[:, d] += G @ W[:, d];  out[targets, d] += G.T @ X[:, d]
        for kd in range(DPT):
            d = tid + kd * NTHR
            if d >= DIM:
                break
            for c in range(nx):
                acc = ZERO
                for t in range(nt):
                    if lab[t] >= ZERO:
                        acc += G[c * nt + t] * Ws[t * LD + d]
                dXl[c * DPT + kd] += acc
            for t in range(nt):
                if lab[t] >= ZERO:
                    acc = ZERO
                    for c in range(nx):
                        acc += G[c * nt + t] * Xs[c * LD + d]
                    add_to(out, trg[t], d, acc)
        cuda.syncthreads()
        return loss

    @cuda.jit(device=True)
    def neg_targets(centre, s, noise_threshold, noise_alias, trg, lab, tid):
        # target 0: the centre (label 1); targets 1..NEG: noise draws 1..NEG after state s,
        # label -1 (skipped) for a draw equal to the centre, as word2vec.c / the CPU kernel
        for t in range(tid, NEG + 1, NTHR):
            if t == 0:
                trg[0] = centre
                lab[0] = ONE
            else:
                w = draw_noise(mix64(s + uint64(t) * GOLDEN), noise_threshold, noise_alias)
                trg[t] = w
                lab[t] = -ONE if w == centre else ZERO

    @cuda.jit(device=True)
    def hs_targets(centre, codes, points, lengths, trg, lab, tid):
        n = lengths[centre]
        for t in range(tid, n, NTHR):
            trg[t] = points[centre, t]
            lab[t] = ONE - float32(codes[centre, t])
        return n

    @cuda.jit(device=True)
    def context_word(sent, wlo, i, cc):
        # the cc-th context word of centre i, the window starting at wlo (the centre skipped)
        jj = wlo + cc
        if jj >= i:
            jj += 1
        return sent[jj]

    @cuda.jit(device=True)
    def output_layers(Xs, dXl, nx, centre, s, syn1, syn1neg, codes, points, lengths,
                      noise_threshold, noise_alias, Ws, trg, lab, G, P, alpha, tid):
        # One example's output layers: the hierarchical-softmax step, then the
        # negative-sampling step.  Returns this thread's share of the loss and
        # the random state advanced past the example's noise draws.
        loss = 0.0
        if HS:
            nt = hs_targets(centre, codes, points, lengths, trg, lab, tid)
            cuda.syncthreads()
            loss += sgd_step(Xs, dXl, nx, syn1, Ws, trg, lab, nt, G, P, alpha, tid)
        if NEG > 0:
            neg_targets(centre, s, noise_threshold, noise_alias, trg, lab, tid)
            s += UNEG * GOLDEN
            cuda.syncthreads()
            loss += sgd_step(Xs, dXl, nx, syn1neg, Ws, trg, lab, NEG + 1, G, P, alpha, tid)
        return loss, s

    jit_options = dict(fastmath=True)
    if max_registers and not simulator_enabled():   # (the simulator has no registers)
        jit_options["max_registers"] = int(max_registers)

    @cuda.jit(**jit_options)
    def train_kernel(ids, seg_start, seg_len, nseg, pos_base, total, syn0, syn1neg, syn1,
                     keep_threshold, noise_threshold, noise_alias, codes, points, lengths,
                     alpha0, min_alpha, seed_keep, seed_seg, stats):
        # blocking: one block per segment keeps its kept ids, window and row tiles in shared memory
        # from subsampling to write-back
        sent = cuda.shared.array(SEG, int32)
        cnt = cuda.shared.array(NTHR, int32)
        red = cuda.shared.array(REDSZ, float64)
        info = cuda.shared.array(1, int32)
        Xs = cuda.shared.array(XSZ, float32)
        dXl = cuda.local.array(LOCSZ, float32)
        Ws = cuda.shared.array(WSZ, float32)
        G = cuda.shared.array(GSZ, float32)
        P = cuda.shared.array(NTHR, float32)
        trg = cuda.shared.array(KMAX, int32)
        lab = cuda.shared.array(KMAX, float32)
        tid = cuda.threadIdx.x
        loss = 0.0
        examples = 0
        seen = 0
        kept = 0
        for seg in range(cuda.blockIdx.x, nseg, cuda.gridDim.x):
            a = seg_start[seg]
            nraw = seg_len[seg]
            p0 = pos_base + a
            # ---- 1. subsample: per-thread slices, exclusive scan, compaction
            per = (nraw + NTHR - 1) // NTHR
            lo = tid * per
            hi = min(lo + per, nraw)
            c = 0
            for j in range(lo, hi):
                w = ids[a + j]
                if w < 0:
                    c += 1
                else:
                    seen += 1
                    r = mix64(seed_keep + uint64(p0 + j + 1) * GOLDEN)
                    if int64(r >> U32) < keep_threshold[w]:
                        c += 1
                        kept += 1
            cnt[tid] = c
            cuda.syncthreads()
            if tid == 0:
                acc = 0
                for t in range(NTHR):
                    v = cnt[t]
                    cnt[t] = acc
                    acc += v
                info[0] = acc
            cuda.syncthreads()
            k = cnt[tid]
            for j in range(lo, hi):
                w = ids[a + j]
                keep = w < 0
                if not keep:
                    r = mix64(seed_keep + uint64(p0 + j + 1) * GOLDEN)
                    keep = int64(r >> U32) < keep_threshold[w]
                if keep:
                    sent[k] = w
                    k += 1
            n = info[0]
            cuda.syncthreads()
            # ---- 2. learning rate of this segment, its random stream
            frac = min(float64(p0) / float64(total), 1.0)
            alpha = float32(max(alpha0 - (alpha0 - min_alpha) * frac, min_alpha))
            s = mix64(seed_seg + uint64(p0 + 1) * GOLDEN)
            # ---- 3. centres in order
            for i in range(n):
                centre = sent[i]
                if centre < 0:
                    continue
                s += GOLDEN
                b = int64(mix64(s) % UWIN)          # dynamic window, as word2vec.c
                wlo = max(0, i - WIN + b)
                whi = min(n, i + WIN + 1 - b)
                j = i - 1                           # stay inside the centre's sentence
                while j >= wlo and sent[j] >= 0:
                    j -= 1
                wlo = j + 1
                j = i + 1
                while j < whi and sent[j] >= 0:
                    j += 1
                whi = j
                nc = whi - wlo - 1
                if nc <= 0:
                    continue
                if SG and SHARED:
                    # all context rows of the window against one set of targets
                    for cc in range(nc):
                        w = context_word(sent, wlo, i, cc)
                        for kd in range(DPT):
                            d = tid + kd * NTHR
                            if d < DIM:
                                Xs[cc * LD + d] = syn0[w, d]
                            dXl[cc * DPT + kd] = ZERO
                    step_loss, s = output_layers(Xs, dXl, nc, centre, s, syn1, syn1neg, codes, points, lengths,
                                                 noise_threshold, noise_alias, Ws, trg, lab, G, P, alpha, tid)
                    loss += step_loss
                    for cc in range(nc):
                        w = context_word(sent, wlo, i, cc)
                        for kd in range(DPT):
                            d = tid + kd * NTHR
                            if d < DIM:
                                add_to(syn0, w, d, dXl[cc * DPT + kd])
                    if tid == 0:
                        examples += nc
                elif SG:
                    # exact: word2vec.c's per-pair updates, fresh negatives for each pair
                    for cc in range(nc):
                        w = context_word(sent, wlo, i, cc)
                        for kd in range(DPT):
                            d = tid + kd * NTHR
                            if d < DIM:
                                Xs[d] = syn0[w, d]
                            dXl[kd] = ZERO
                        step_loss, s = output_layers(Xs, dXl, 1, centre, s, syn1, syn1neg, codes, points, lengths,
                                                     noise_threshold, noise_alias, Ws, trg, lab, G, P, alpha, tid)
                        loss += step_loss
                        for kd in range(DPT):
                            d = tid + kd * NTHR
                            if d < DIM:
                                add_to(syn0, w, d, dXl[kd])
                        if tid == 0:
                            examples += 1
                else:
                    # CBOW: the hidden row is the sum (or mean) of the context rows
                    inv = ONE / float32(nc)
                    for kd in range(DPT):
                        dXl[kd] = ZERO
                        d = tid + kd * NTHR
                        if d >= DIM:
                            break
                        h = ZERO
                        for cc in range(nc):
                            h += syn0[context_word(sent, wlo, i, cc), d]
                        if MEAN:
                            h *= inv
                        Xs[d] = h
                    step_loss, s = output_layers(Xs, dXl, 1, centre, s, syn1, syn1neg, codes, points, lengths,
                                                 noise_threshold, noise_alias, Ws, trg, lab, G, P, alpha, tid)
                    loss += step_loss
                    for kd in range(DPT):
                        d = tid + kd * NTHR
                        if d >= DIM:
                            break
                        g = dXl[kd]
                        if not MEAN:   # gensim: sum divides the error, mean does not
                            g *= inv
                        for cc in range(nc):
                            add_to(syn0, context_word(sent, wlo, i, cc), d, g)
                    if tid == 0:
                        examples += 1
        # ---- 4. block totals -> stats (one atomic add each)
        red[tid] = loss
        red[NTHR + tid] = float64(examples)
        red[2 * NTHR + tid] = float64(kept)
        red[3 * NTHR + tid] = float64(seen)
        cuda.syncthreads()
        if tid < 4:
            acc64 = 0.0
            for t in range(NTHR):
                acc64 += red[tid * NTHR + t]
            cuda.atomic.add(stats, tid, acc64)

    return train_kernel
