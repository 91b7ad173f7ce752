"""Plain NumPy reference of the training step, used to check the Numba kernels.

It mirrors the kernels' semantics and random-number draws (splitmix64, the
alias method, the dynamic window) but computes each update the obvious way:
gather rows, compute scores and gradients in float64, scatter-add with
``np.add.at``.
"""
import numpy as np

M64 = (1 << 64) - 1


class SplitMix64:
    def __init__(self, state):
        self.state = int(state) & M64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)


def draw_noise(r, thr, alias):
    i = ((r >> 32) * thr.size) >> 32
    return i if (r & 0xFFFFFFFF) < thr[i] else int(alias[i])


MAX_SCORE = 6.0     # no update at or beyond +-6 (gensim's rule), as w2v.kernels.cpu.MAX_SCORE
LOSS_CLIP = 20.0    # as w2v.kernels.cpu.SIGMOID_CLIP


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def block_step(syn0_rows, out, targets, labels, alpha):
    """One SGD step of input rows ``X`` (nx x dim) against ``out[targets]``.

    Returns ``(dX, dOut, loss)``: the input-row updates, the dense update of
    ``out`` (built with ``np.add.at``, so repeated targets add up) and the
    summed loss ``-log sigmoid(+-x.o)``.
    """
    X = np.asarray(syn0_rows, np.float64)
    W = out[targets].astype(np.float64)                # gather
    F = X @ W.T                                         # scores, nx x nt
    lab = np.asarray(labels, np.float64)[None, :]
    G = alpha * (lab - sigmoid(F))                      # d(-loss)/dF * alpha
    G[np.abs(F) >= MAX_SCORE] = 0.0                     # gensim's rule: no update beyond +-6
    Fc = np.clip(F, -LOSS_CLIP, LOSS_CLIP)             # the kernels' loss clips the score at +-20
    loss = float(np.sum(np.logaddexp(0, -Fc) * lab + np.logaddexp(0, Fc) * (1 - lab)))
    dX = G @ W
    dOut = np.zeros(out.shape, np.float64)
    np.add.at(dOut, targets, G.T @ X)                   # scatter-add
    return dX, dOut, loss


def train_sentence(sent, syn0, syn1neg, syn1, thr, alias, codes, points, lengths, *, sg, cbow_mean,
                   window, negative, hs, shared, alpha, rng):
    """Reference of ``w2v.kernels.cpu.train_sentence`` on float64 copies.

    Returns ``(syn0, syn1neg, syn1, loss, examples)``.
    """
    syn0 = syn0.astype(np.float64)
    syn1neg = syn1neg.astype(np.float64)
    syn1 = syn1.astype(np.float64)
    n = len(sent)
    total_loss = 0.0
    examples = 0

    def neg_targets(centre):
        t, labels = [centre], [1.0]
        for _ in range(negative):
            w = draw_noise(rng.next(), thr, alias)
            if w != centre:
                t.append(w)
                labels.append(0.0)
        return np.array(t), np.array(labels)

    def hs_targets(centre):
        k = lengths[centre]
        return points[centre, :k].astype(np.int64), 1.0 - codes[centre, :k].astype(np.float64)

    def output_layers(centre, X):
        # hierarchical softmax, then negative sampling (drawing its noise words
        # now, in the kernels' order) for the input rows X; updates the output
        # matrices in place and returns (dX, loss)
        dX = np.zeros_like(X)
        loss = 0.0
        for used, targets_of, out in ((hs, hs_targets, syn1), (negative, neg_targets, syn1neg)):
            if used:
                t, labels = targets_of(centre)
                d, dout, block_loss = block_step(X, out, t, labels, alpha)
                dX += d
                out += dout
                loss += block_loss
        return dX, loss

    for i in range(n):
        centre = sent[i]
        b = rng.next() % window
        ctx = [sent[j] for j in range(max(0, i - window + b), min(n, i + window + 1 - b)) if j != i]
        if not ctx:
            continue
        ctx = np.array(ctx)
        if sg and shared:
            X = syn0[ctx]
            dX, loss = output_layers(centre, X)
            total_loss += loss
            np.add.at(syn0, ctx, dX)
            examples += len(ctx)
        elif sg:
            for w in ctx:
                X = syn0[[w]]
                dX, loss = output_layers(centre, X)
                total_loss += loss
                syn0[w] += dX[0]
                examples += 1
        else:
            h = syn0[ctx].sum(axis=0)
            if cbow_mean:
                h /= len(ctx)
            X = h[None, :]
            dX, loss = output_layers(centre, X)
            total_loss += loss
            if not cbow_mean:   # gensim: error divided over summed context rows
                dX /= len(ctx)
            np.add.at(syn0, ctx, np.repeat(dX, len(ctx), axis=0))
            examples += 1
    return syn0, syn1neg, syn1, total_loss, examples
