#!/usr/bin/env python3
"""A/B timing of the training kernel of two or more checkouts, in one process, by CPU time.

Wall-clock time on a shared 2-core machine measures the neighbours as much as
the kernel.  This loads ``w2v/kernels`` of every checkout given (``--code``,
default: this one) under its own package name into one process, encodes the
corpus once, and runs the kernels in turn on the same ids, one thread, from
the same starting weights: A, B, B, A, A, B, ... (ABBA).  Each run is timed by
the thread's CPU time (``time.thread_time``), which does not count the time
the kernel waits while other processes run; what remains is cache pollution
by them.  Reports the median words/s of each checkout and the median of the
paired ratios to the first.

usage: python3 benchmarks/ab_kernel.py CORPUS --code DIR [DIR ...] [--model sg cbow] [--tokens 2000000]
                                       [--pairs 10] [--shared | --exact] [--dim 100 [112 ...]] [--align 64]
``CORPUS`` may also be an ``.npz`` of ids and tables saved by ``--save-ids``.
"""
import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
# The kernels are imported under other package names here: their compiled code is cached apart, so
# that the checkouts' own caches (which name the package w2v) are left as they are.
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path.home() / ".cache" / "w2v-ab-kernel"))


def load_kernels(code, name):
    """Import ``code/w2v/kernels`` as the package ``name``; return its ``cpu`` module."""
    init = Path(code) / "w2v" / "kernels" / "__init__.py"
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(init.parent)])
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    spec.loader.exec_module(package)
    return importlib.import_module(f"{name}.cpu")


def encode(corpus):
    """Ids and tables of ``corpus`` with the benchmark settings (or those saved in an ``.npz``)."""
    if str(corpus).endswith(".npz"):
        d = np.load(corpus)
        return {k: d[k] for k in d.files}
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_kernel import encoded_ids
    from w2v.model.word2vec import Word2Vec
    m = Word2Vec(model="sg", dim=100, window=5, negative=5, sample=1e-3, min_count=5, threads=1)
    m.build_vocab([str(corpus)], quiet=True)
    t = m.tables
    return dict(ids=encoded_ids(m), keep=t.keep_threshold, noise=t.noise_table, vocab=np.int64(len(m.vocab)),
                tokens=np.int64(m.corpus_tokens))


def matrix(shape, align):
    """A float32 matrix of zeros whose data starts on an ``align``-byte boundary (0: where numpy puts it)."""
    if not align:
        return np.zeros(shape, np.float32)
    n = int(np.prod(shape)) * 4
    buf = np.zeros(n + align, np.uint8)
    start = (-buf.ctypes.data) % align
    return buf[start:start + n].view(np.float32).reshape(shape)


def run(cpu, data, ids, sg, shared, dim, seed=1, align=0):
    """CPU seconds and loss of one run of ``cpu.train_tokens`` over ``ids`` from fresh weights."""
    v = int(data["vocab"])
    rng = np.random.default_rng(seed)
    syn0 = matrix((v, dim), align)
    syn0[:] = (rng.random((v, dim), dtype=np.float32) - np.float32(0.5)) / np.float32(dim)
    syn1neg = matrix((v, dim), align)
    syn1 = np.zeros((1, dim), np.float32)
    codes, points, lengths = np.zeros((1, 1), np.int8), np.zeros((1, 1), np.int32), np.zeros(1, np.int32)
    hot = (syn0[:0], syn1neg[:0], syn0[:0], syn1neg[:0], np.zeros(4, np.int64), np.zeros(2, np.int64))
    stats = np.zeros(8)
    t0 = time.thread_time()
    cpu.train_tokens(ids, 0, max(1, ids.size), syn0, syn1neg, syn1, data["keep"], data["noise"], codes, points,
                     lengths, sg, True, 5, 5, False, shared, 0.025 if sg else 0.05, 1e-4, 10000, *hot,
                     np.array([12345], np.uint64), stats)
    return time.thread_time() - t0, stats[0] / max(stats[1], 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--code", nargs="+", default=[str(REPO)])
    ap.add_argument("--model", nargs="+", default=["sg"], choices=["sg", "cbow"])
    ap.add_argument("--tokens", type=int, default=2_000_000)
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--exact", action="store_true", help="word2vec.c's per-pair mode instead of shared negatives")
    ap.add_argument("--dim", type=int, nargs="+", default=[100],
                    help="several: the first checkout at each dimension, paired (padded rows: 112 for 100)")
    ap.add_argument("--align", type=int, default=0, help="start the matrices on this byte boundary (e.g. 64)")
    ap.add_argument("--save-ids", help="save the encoded ids and tables to this .npz and stop")
    a = ap.parse_args()
    data = encode(a.corpus)
    if a.save_ids:
        np.savez(a.save_ids, **data)
        return
    ids = data["ids"][:a.tokens]
    words = int(data["tokens"]) * ids.size / data["ids"].size   # corpus tokens in the prefix
    cpus = [load_kernels(c, f"kernels_ab{i}") for i, c in enumerate(a.code)]
    # the variants paired: each checkout at the first dimension, or the first checkout at each dimension
    variants = [(cpu, a.dim[0], c) for cpu, c in zip(cpus, a.code)] if len(a.dim) == 1 else \
        [(cpus[0], d, f"{a.code[0]} dim {d}") for d in a.dim]
    for model in a.model:
        sg = model == "sg"
        for cpu, dim, _ in variants:
            run(cpu, data, ids[:20000], sg, not a.exact, dim, align=a.align)   # load or compile
        secs = [[] for _ in variants]
        for p in range(a.pairs):
            order = range(len(variants)) if p % 2 == 0 else reversed(range(len(variants)))
            for i in order:
                cpu, dim, _ = variants[i]
                s, loss = run(cpu, data, ids, sg, not a.exact, dim, align=a.align)
                secs[i].append(s)
        print(f"{model}{' exact' if a.exact else ''}, {ids.size:,} ids, {a.pairs} rounds, loss {loss:.4f}:")
        for i, (_, _, c) in enumerate(variants):
            ratio = statistics.median([b / x for b, x in zip(secs[0], secs[i])])
            print(f"  {c}: {words / statistics.median(secs[i]) / 1e6:.3f}M words/s (CPU time), "
                  f"{ratio:.3f}x the first (paired); min {words / min(secs[i]) / 1e6:.3f}M", flush=True)


if __name__ == "__main__":
    main()
