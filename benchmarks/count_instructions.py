#!/usr/bin/env python3
"""Instructions per corpus token of the training kernel, counted by valgrind.

Wall-clock figures on a shared 2-core VM move by +-15% from run to run, so a
kernel change worth 5% cannot be seen in them.  The number of instructions
the kernel executes is exact and repeatable: this script counts it with
valgrind's cachegrind for ``w2v.kernels.cpu.train_tokens`` on the first
``--tokens`` ids of the corpus (1 thread, the benchmark settings: dim 100,
window 5, negative 5, sample 1e-3; ``--dim`` counts other row lengths).  It is a measure of work, not of time:
cache misses (the other half of the kernel's cost) are not in it.

How: the corpus is encoded once with w2v's own vocabulary; then a child
process trains on no ids and another on ``--tokens`` ids under valgrind, and
the difference of their instructions in code without symbols (the Numba JIT
code, ``???`` in ``cg_annotate``) is the kernel's.  valgrind 3.19 cannot run
AVX-512, so the kernel is compiled for ``haswell`` (AVX2 + FMA, 8-float
vectors, as LLVM also prefers on AVX-512 machines) in a private Numba cache:
a first child compiles it natively, the valgrind children load it.

usage: python3 benchmarks/count_instructions.py CORPUS [--model cbow sg] [--tokens 100000]
                                                [--dim 100 [300 ...]] [--code DIR]
``--code`` counts another copy of the repository (a checkout of an older
commit, say) with the same encoded ids, for before/after figures.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
# Fixed CPU name and features, so that the natively compiled cache matches
# what Numba sees under valgrind (whose emulated CPU reports other features).
CPU_ENV = {
    "NUMBA_CPU_NAME": "haswell",
    "NUMBA_CPU_FEATURES": ("+64bit,+avx,+avx2,+bmi,+bmi2,+cmov,+cx16,+f16c,+fma,+fsgsbase,+lzcnt,"
                           "+movbe,+pclmul,+popcnt,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+xsave"),
    "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
}


def encode(corpus, tokens, out):
    """Encode the first ``tokens`` ids of ``corpus`` with w2v's vocabulary; save what the kernel needs."""
    from bench_kernel import encoded_ids   # (it puts the repository first on sys.path)
    from w2v.model.word2vec import Word2Vec
    m = Word2Vec(model="cbow", dim=100, window=5, negative=5, sample=1e-3, min_count=5, threads=1)
    m.build_vocab([str(corpus)], quiet=True)
    ids = encoded_ids(m)[:tokens]
    t = m.tables
    np.savez(out, ids=ids, keep=t.keep_threshold, noise=t.noise_table, vocab=np.int64(len(m.vocab)))
    m.close()


def child(code, data, model, n, dim):
    """Train ``n`` ids (``n`` = 0: load the kernel only) with rows of ``dim`` floats and print the loss."""
    sys.path.insert(0, str(code))
    from w2v.kernels.cpu import train_tokens
    d = np.load(data)
    ids, keep, noise, v = d["ids"][:n], d["keep"], d["noise"], int(d["vocab"])
    rng = np.random.default_rng(1)
    syn0 = (rng.random((v, dim), dtype=np.float32) - np.float32(0.5)) / np.float32(dim)
    syn1neg = np.zeros((v, dim), np.float32)
    syn1 = np.zeros((1, dim), np.float32)
    codes, points, lengths = np.zeros((1, 1), np.int8), np.zeros((1, 1), np.int32), np.zeros(1, np.int32)
    stats = np.zeros(8)
    sg = model == "sg"
    f = train_tokens.py_func.__code__
    # one thread: no replica rows (passed only to a kernel that takes a replica ``plan``)
    hot = ((syn0[:0], syn1neg[:0], syn0[:0], syn1neg[:0], np.zeros(4, np.int64), np.zeros(2, np.int64))
           if "plan" in f.co_varnames[:f.co_argcount] else ())
    train_tokens(ids, 0, max(1, d["ids"].size), syn0, syn1neg, syn1, keep, noise, codes, points, lengths,
                 sg, True, 5, 5, False, True, 0.025 if sg else 0.05, 1e-4, 10000, *hot,
                 np.array([1], np.uint64), stats)
    print(f"loss {stats[0] / max(stats[1], 1):.6f} examples {int(stats[1])}")


def jit_instructions(env, code, data, model, n, dim, workdir):
    """Instructions executed in code without symbols (the JIT code) by a child training ``n`` ids."""
    out = Path(workdir) / "cachegrind.out"
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
           sys.executable, __file__, "--child", str(code), str(data), model, str(n), str(dim)]
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    ann = subprocess.run(["cg_annotate", str(out)], check=True, capture_output=True, text=True).stdout
    for line in ann.splitlines():
        if "???:???" in line:
            return int(re.match(r"\s*([\d,]+)", line).group(1).replace(",", ""))
    raise RuntimeError("no ??? entry in cg_annotate's output")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(Path(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--model", nargs="+", default=["cbow", "sg"], choices=["cbow", "sg"])
    ap.add_argument("--tokens", type=int, default=100_000)
    ap.add_argument("--dim", type=int, nargs="+", default=[100], help="row lengths to count, each in turn")
    ap.add_argument("--code", type=Path, default=REPO, help="repository copy whose kernel is counted")
    a = ap.parse_args()
    if not (shutil.which("valgrind") and shutil.which("cg_annotate")):
        sys.exit("error: valgrind (with cg_annotate) is not installed")
    with tempfile.TemporaryDirectory(prefix="w2v-instr-") as tmp:
        data = Path(tmp) / "ids.npz"
        encode(a.corpus, a.tokens, data)
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(tmp) / "numba-cache"), **CPU_ENV)
        for model in a.model:
            for dim in a.dim:
                # compile natively into the private cache (valgrind would take many minutes)
                subprocess.run([sys.executable, __file__, "--child", str(a.code), str(data), model, "1000",
                                str(dim)], env=env, check=True, capture_output=True)
                base = jit_instructions(env, a.code, data, model, 0, dim, tmp)
                full = jit_instructions(env, a.code, data, model, a.tokens, dim, tmp)
                print(f"{model} dim {dim}: {(full - base) / a.tokens:,.0f} instructions per token "
                      f"({full - base:,} over {a.tokens:,} ids; code {a.code})", flush=True)


if __name__ == "__main__":
    main()
