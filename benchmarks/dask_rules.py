#!/usr/bin/env python3
"""The rounds of a Dask run replayed in one process, with candidate merge rules (docs/distributed.md).

W lanes train rounds of C ids of the whole cluster (C / W each) from the
weights at the round's start, with w2v's training kernel
(:func:`w2v.distributed.worker.train_slice`, the global learning-rate
schedule), and their changed rows (:func:`w2v.distributed.changed_rows`,
int16-quantized) are merged by one of the rules below and added.  No cluster
is needed, so 8 to 32 lanes fit on a small machine; the quality of a seed is
deterministic.  Each run appends one JSON line (the rule, the scores as
``w2v eval`` gives them, the loss and the mean norm of the input vectors).

Rules (``s`` the lanes' learning-rate multiple, ``c`` the lanes that changed a row):

``sum``      ``s = 1``, the deltas added
``touched``  ``s = 1``, divided by ``c`` (Spark MLlib)
``counts``   ``s = 1``, weighted by the updates behind each row (``--kappa``; the lanes' rule of
             ``--deterministic`` has the same shape)
``hot``      ``s = 1``, the ``--hot`` most frequent rows divided by ``c``, the others added
``mean``     ``s = W``, divided by ``W``
``capped``   ``s = min(W, --beta)`` (or ``--acap / alpha``), divided by ``max(s, c)``
``model``    ``s`` as ``capped``, weighted by the updates behind each row everywhere
             (``--kappa`` for input rows, ``--kappa1`` for output rows), between ``1 / (s c)`` and 1
``scaled``   w2v's default: ``s`` as ``capped``; ``1 / s`` where ``c <= s``, else the weighting of
             ``model`` between ``1 / c`` and ``1 / s``

Layouts: ``lanes`` (each lane a contiguous part of the corpus), ``chunk`` (each
round's stretch of the corpus cut into W pieces), ``dealt`` (each round's
stretch dealt to the lanes in blocks of ``--block`` ids, as w2v deals its
blocks).

  python3 benchmarks/dask_rules.py /work/bench-data/wiki17m.txt 16 125000 scaled --layout dealt \\
      --kappa 3 --kappa1 0.3 --out rules.jsonl
"""
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from w2v import Word2Vec  # noqa: E402
from w2v.distributed import changed_rows  # noqa: E402
from w2v.distributed.worker import train_slice  # noqa: E402
from w2v.training.kernelcalls import kernel_params  # noqa: E402

RULES = ("sum", "touched", "counts", "hot", "mean", "capped", "model", "scaled")


def evaluate(m):
    """``w2v eval``'s scores: the bundled analogies (restrict_vocab 300000), WS-353 and SimLex-999."""
    from w2v.vectors.evaluate import default_eval_paths
    paths = default_eval_paths()
    kv = m.wv
    out = {"analogy": float(kv.evaluate_word_analogies(str(paths["analogies"][0]), restrict_vocab=300000,
                                                       case_insensitive=True)[0])}
    for p in paths["pairs"]:
        name = "ws353" if "wordsim" in str(p) else "simlex"
        out[name] = float(kv.evaluate_word_pairs(str(p), restrict_vocab=300000, case_insensitive=True)[1][0])
    return out


def round_slices(a, ids, lanes, cut, r, epoch, length):
    """Each lane's ids in round ``r`` and the position of the round in the run."""
    W = a.W
    if a.layout == "lanes":
        bounds = [(cut(x.size, r), cut(x.size, r + 1)) for x in lanes]
        return [lanes[k][lo:hi] for k, (lo, hi) in enumerate(bounds)], epoch * length + sum(b[0] for b in bounds)
    c0, c1 = cut(length, r), cut(length, r + 1)
    if a.layout == "dealt":
        nb = -(-(c1 - c0) // a.block)
        slices = [np.concatenate([ids[c0 + j * a.block: min(c1, c0 + (j + 1) * a.block)]
                                  for j in range(k, nb, W)] or [ids[:0]]) for k in range(W)]
    else:
        slices = [ids[c0 + (c1 - c0) * k // W: c0 + (c1 - c0) * (k + 1) // W] for k in range(W)]
    return slices, epoch * length + c0


def lr_scale(a, lanes, alpha):
    if a.rule == "mean":
        return float(lanes)
    if a.rule in ("capped", "model", "scaled"):
        return min(float(lanes), max(1.0, a.acap / alpha)) if a.acap else min(a.beta or float(lanes), float(lanes))
    return 1.0


def factors(a, V, s, alpha, lanes, touched, updates, saturated, kappa):
    """The factor of each row's summed deltas under rule ``a.rule``."""
    c = np.maximum(touched, 1)
    if a.rule == "mean":
        return np.full(V, 1.0 / lanes)
    if a.rule == "sum":
        return np.ones(V)
    if a.rule == "touched":
        return 1.0 / c
    if a.rule == "hot":
        return np.where(np.arange(V) < a.hot, 1.0 / c, 1.0)
    if a.rule == "capped":
        return 1.0 / np.maximum(touched, s)
    if a.rule == "counts":
        lam = a.kappa * alpha
        total = -np.expm1(updates * np.log1p(-min(lam, 0.999))) / lam
        return np.clip(np.where(saturated > 0, total / np.maximum(saturated, 1e-300), 1.0), 1.0 / c, 1.0)
    f = np.where(saturated > 0, -np.expm1(-kappa * alpha * updates) / np.maximum(saturated, 1e-300), 1.0 / s)
    if a.rule == "model":
        return np.clip(f, 1.0 / (s * c), 1.0)
    return np.clip(f, 1.0 / np.maximum(touched, s), 1.0 / s)   # scaled


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("W", type=int, help="lanes")
    ap.add_argument("C", type=int, help="ids the cluster trains per round")
    ap.add_argument("rule", choices=RULES)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--layout", choices=("lanes", "chunk", "dealt"), default="dealt")
    ap.add_argument("--block", type=int, default=1000)
    ap.add_argument("--beta", type=float, default=8.0,
                    help="the largest learning-rate multiple (capped, model, scaled; 0: W)")
    ap.add_argument("--acap", type=float, default=0.0, help="instead: s = min(W, acap / alpha) at each round")
    ap.add_argument("--kappa", type=float, default=3.0, help="input rows (counts: every row)")
    ap.add_argument("--kappa1", type=float, default=0.3, help="output rows")
    ap.add_argument("--hot", type=int, default=1000)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()

    m = Word2Vec(epochs=a.epochs, seed=a.seed, threads=1).build_vocab(a.corpus)
    st = m.settings
    enc = m.encoded_corpus
    ids = enc.stream.read(0, enc.length)
    length = ids.size
    lanes = [ids[length * k // a.W: length * (k + 1) // a.W] for k in range(a.W)]
    bounds = [0.0]   # the rounds' ends as shares of the epoch
    while bounds[-1] < 1.0:
        bounds.append(min(1.0, bounds[-1] + a.C / length))
    n_rounds = len(bounds) - 1
    cut = lambda n, r: int(round(n * bounds[r]))  # noqa: E731
    weights = [m.syn0, m.syn1neg]
    V, dim = m.syn0.shape
    setup = {"tables": m.tables, "params": dict(kernel_params(st), seed=st.seed)}
    keep = np.minimum(m.tables.keep_threshold.astype(np.float64) / 2.0 ** 32, 1.0)
    noise = m.vocab.counts.astype(np.float64) ** st.ns_exponent
    noise /= noise.sum()
    ctx = st.window + 1.0
    total = st.epochs * length
    work = [np.empty_like(w) for w in weights]
    kappa = [a.kappa, a.kappa1]
    stats = np.zeros(4)
    t0 = time.perf_counter()
    for epoch in range(st.epochs):
        for r in range(n_rounds):
            slices, pos = round_slices(a, ids, lanes, cut, r, epoch, length)
            active = [k for k, x in enumerate(slices) if x.size]
            alpha = max(st.alpha - (st.alpha - st.min_alpha) * pos / total, st.min_alpha)
            s = lr_scale(a, len(active), alpha)
            acc = [np.zeros((V, dim)) for _ in weights]
            touched = [np.zeros(V, np.int32) for _ in weights]
            saturated = [np.zeros(V) for _ in weights]
            updates = [np.zeros(V) for _ in weights]
            for k in active:
                for wk, w in zip(work, weights):
                    np.copyto(wk, w)
                sched = dict(lane=k, round=(epoch, r), position=pos, round_total=sum(x.size for x in slices),
                             total=total, lr_scale=s)
                tokens = slices[k].copy()
                stats += train_slice(tokens, work + [m.syn1], setup, sched, 1)
                kept = np.bincount(tokens[tokens >= 0], minlength=V) * keep
                expected = [kept * ctx, kept * ctx + st.negative * kept.sum() * ctx * noise]
                for mi, (wk, w) in enumerate(zip(work, weights)):
                    idx, q, sc = changed_rows(wk, w)
                    acc[mi][idx] += q.astype(np.float64) * sc[:, None]
                    touched[mi][idx] += 1
                    updates[mi] += expected[mi]
                    if a.rule in ("model", "scaled"):
                        saturated[mi] += -np.expm1(-kappa[mi] * alpha * s * expected[mi])
                    elif a.rule == "counts":
                        lam = a.kappa * alpha
                        saturated[mi] += -np.expm1(expected[mi] * np.log1p(-min(lam, 0.999))) / lam
            for mi, w in enumerate(weights):
                f = factors(a, V, s, alpha, len(active), touched[mi], updates[mi], saturated[mi], kappa[mi])
                w += (acc[mi] * f[:, None]).astype(np.float32)
    res = dict(corpus=a.corpus, W=a.W, C=a.C, rule=a.rule, layout=a.layout, block=a.block, beta=a.beta, acap=a.acap,
               kappa=a.kappa, kappa1=a.kappa1, hot=a.hot, seed=a.seed, epochs=a.epochs, rounds=n_rounds,
               seconds=time.perf_counter() - t0, loss=float(stats[0] / max(stats[1], 1)),
               norm0=float(np.linalg.norm(m.syn0, axis=1).mean()), **evaluate(m))
    print(json.dumps(res), flush=True)
    if a.out:
        with open(a.out, "a") as f:
            f.write(json.dumps(res) + "\n")


if __name__ == "__main__":
    main()
