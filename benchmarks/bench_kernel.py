#!/usr/bin/env python3
"""Kernel-only training throughput: 1 vs N threads, without the CLI around it.

Encodes the corpus once with w2v's own scan and vocabulary, then times
``w2v.kernels.cpu.train_tokens`` over the whole id stream (one epoch) with 1
and with N Python threads (the kernels release the GIL; jobs are 64 equal
slices taken in turn, as ``w2v.train`` does).  The runs come in pairs ordered
1, N, N, 1, 1, N, ... (ABBA), so that drift of a shared machine hits both
thread counts alike.  Reports the median corpus words/s of each, the ratio of
the medians and the median of the paired ratios N-thread / 1-thread (the
steadier figure when the machine's speed drifts between pairs).  Weights are
reset before every run.  ``--tokens`` trains on a prefix of the corpus, so
more pairs fit in the same time.

Two diagnostics say how much of a shortfall is the machine and how much is
the sharing of the weights:

* ``--private`` adds a third run to every pair: N threads that each train
  their own copy of the weights (no Hogwild sharing, so no cache line of a
  row moves between cores).  Its ratio to one thread is the ceiling of the
  shared run on this machine; the gap between the two is the cost of sharing.
* a register-only FMA loop (no memory traffic) on 1 and on N threads, before
  and after the runs: below N x, the vCPUs were not all available (a shared
  host) while it ran.

usage: python3 benchmarks/bench_kernel.py CORPUS [--model sg cbow] [--threads 2] [--repeats 5]
                                          [--tokens N] [--private] [--json OUT.json]
"""
import argparse
import json
import os
import platform
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np
from numba import njit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from w2v.kernels.cpu import train_tokens  # noqa: E402
from w2v.model import Word2Vec  # noqa: E402


def encoded_ids(model):
    return np.concatenate([ids for _, ids in model._encoded.blocks()])


@njit(nogil=True, fastmath=True, cache=True)
def fma_loop(a, b, c, iters):
    for _ in range(iters):
        for i in range(64):
            a[i] = a[i] * b + c
    return a[0]


def fma_scaling(threads, iters=20_000_000):
    """N-thread / 1-thread throughput of a register-only FMA loop (N x when N cores are free)."""
    def rate(n):
        arrs = [np.ones(64, np.float32) for _ in range(n)]
        pool = [threading.Thread(target=fma_loop, args=(arrs[i], np.float32(0.999999), np.float32(1e-6), iters))
                for i in range(n)]
        t0 = time.perf_counter()
        for th in pool:
            th.start()
        for th in pool:
            th.join()
        return n * iters / (time.perf_counter() - t0)
    rate(1)
    return statistics.median([rate(threads) / rate(1) for _ in range(3)])


def run_once(ids, model, sg, threads, seed=1, corpus_words=None, private=False):
    s = model.settings
    t = model.tables
    v = len(model.vocab)
    rng = np.random.default_rng(seed)
    syn0 = (rng.random((v, s.dim), dtype=np.float32) - np.float32(0.5)) / np.float32(s.dim)
    syn1neg = np.zeros((v, s.dim), np.float32)
    syn1 = np.zeros((1, s.dim), np.float32)
    # private: every thread its own copy of the weights (the no-sharing ceiling)
    weights = [(syn0.copy(), syn1neg.copy()) for _ in range(threads)] if private else [(syn0, syn1neg)] * threads
    parts = np.array_split(ids, 64)
    starts = np.cumsum([0] + [p.size for p in parts])
    stats = np.zeros((threads, 8))
    states = [np.array([12345 + i], np.uint64) for i in range(threads)]
    lock = threading.Lock()
    nxt = [0]
    alpha = 0.025 if sg else 0.05

    def worker(w):
        while True:
            with lock:
                k = nxt[0]
                nxt[0] += 1
            if k >= len(parts):
                return
            train_tokens(parts[k], starts[k], ids.size, *weights[w], syn1, t.keep_threshold, t.noise_table,
                         t.hs_codes, t.hs_points, t.hs_lengths, sg, True, s.window, s.negative, False, True,
                         alpha, 1e-4, s.max_sentence_length, states[w], stats[w])

    t0 = time.perf_counter()
    pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    seconds = time.perf_counter() - t0
    st = stats.sum(axis=0)
    words = model.corpus_tokens if corpus_words is None else corpus_words
    return words / seconds, float(st[0] / st[1])   # raw corpus tokens, as bench_train


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--model", nargs="+", default=["sg", "cbow"], choices=["sg", "cbow"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--tokens", type=int, default=None, help="train on the first N ids of the encoded corpus")
    ap.add_argument("--private", action="store_true",
                    help="also run N threads on private copies of the weights (the no-sharing ceiling)")
    ap.add_argument("--json")
    a = ap.parse_args()
    m = Word2Vec(dim=100, window=5, negative=5, sample=1e-3, min_count=5, epochs=1)
    t0 = time.perf_counter()
    m.build_vocab(a.corpus)
    vocab_s = time.perf_counter() - t0
    ids = encoded_ids(m)
    print(f"{a.corpus}: {m.corpus_tokens:,} tokens, {len(m.vocab):,} words, vocabulary + encoding {vocab_s:.2f} s")
    words = m.corpus_tokens
    if a.tokens:
        words = int(round(m.corpus_tokens * min(a.tokens, ids.size) / ids.size))   # raw tokens in the prefix
        ids = ids[:a.tokens]
        print(f"training on the first {ids.size:,} ids (~{words:,} corpus tokens)")
    run_once(ids[:100_000], m, True, 1)      # compile / load the kernels
    run_once(ids[:100_000], m, False, 1)
    out = {"corpus": a.corpus, "tokens": m.corpus_tokens, "vocab_seconds": vocab_s,
           "machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(), "results": {},
           "fma_scaling_before": fma_scaling(a.threads)}
    print(f"FMA loop, {a.threads} threads / 1 thread: {out['fma_scaling_before']:.2f}x")
    for model in a.model:
        sg = model == "sg"
        runs = {"one": [], "many": [], "private": []}
        order = [("one", 1, False), ("many", a.threads, False)] + \
            ([("private", a.threads, True)] if a.private else [])
        for k in range(a.repeats):
            for key, n, priv in (order if k % 2 == 0 else order[::-1]):   # ABBA
                runs[key].append(run_once(ids, m, sg, n, corpus_words=words, private=priv)[0])
        one, many = runs["one"], runs["many"]
        ratios = [b / c for b, c in zip(many, one)]
        r = {"words_per_sec_1": statistics.median(one), f"words_per_sec_{a.threads}": statistics.median(many),
             "scaling_median_of_pairs": statistics.median(ratios), "scaling_of_medians":
             statistics.median(many) / statistics.median(one), "runs_1": one, f"runs_{a.threads}": many}
        line = (f"{model}: 1 thread {r['words_per_sec_1']:,.0f} words/s, {a.threads} threads "
                f"{r[f'words_per_sec_{a.threads}']:,.0f} words/s: {r['scaling_of_medians']:.2f}x "
                f"(median of paired ratios {r['scaling_median_of_pairs']:.2f}x)")
        if a.private:
            priv = runs["private"]
            r["private_scaling_median_of_pairs"] = statistics.median([b / c for b, c in zip(priv, one)])
            r[f"runs_{a.threads}_private"] = priv
            line += f"; private weights {r['private_scaling_median_of_pairs']:.2f}x (paired)"
        out["results"][model] = r
        print(line)
    out["fma_scaling_after"] = fma_scaling(a.threads)
    print(f"FMA loop, {a.threads} threads / 1 thread: {out['fma_scaling_after']:.2f}x")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
