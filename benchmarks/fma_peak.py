#!/usr/bin/env python3
"""Single-core FP32 FMA throughput (Numba) vs numpy sgemm, and the skip-gram ceiling it implies.

1. Numba: ``@njit(fastmath=True)`` loops ``a[i] = a[i] * b + c`` over a float32
   accumulator array of N = 16..256 elements (N is a compile-time constant, so the
   inner loop is fully unrolled into N/W independent vector FMAs that stay in
   registers), repeated for about ``--seconds``; GFLOP/s = 2 x FMAs / s, best of
   ``--repeats``. Each variant is run twice, in separate child processes:
   ``default`` (LLVM's own vector width: on AVX-512 CPUs LLVM prefers 256-bit ymm
   vectors) and ``zmm`` (``-force-vector-width=16`` for the loop vectorizer, i.e.
   512-bit). The instruction mix is read from the generated assembly.
2. numpy ``float32 @ float32`` (OpenBLAS sgemm) with one thread
   (``OPENBLAS_NUM_THREADS=1`` etc. are set before numpy is imported).
3. Skip-gram negative-sampling ceiling: flops per trained word
   ~= (window + 1) context pairs (2 x mean reduced window) x (negative + 1)
   x dim x 2 flops x 3 passes (dot, two updates); subsampling ignored (these are
   words that are trained, not raw corpus words; ``--keep-fraction`` converts).
   words/s ceiling = GFLOP/s / flops per word. CBOW is printed too (rough).

usage: python3 benchmarks/fma_peak.py [--seconds 1] [--repeats 3] [--dim 100] [--window 5]
                                      [--negative 5] [--keep-fraction 0.7] [--json OUT.json]
"""
import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

SIZES = (16, 32, 64, 128, 256)


# --------------------------------------------------------------------------- child: Numba FMA

def make_kernel(n):
    from numba import njit
    N = n  # compile-time constant for the closure

    @njit(fastmath=True, cache=False)
    def kernel(a, b, c, iters):
        for _ in range(iters):
            for i in range(N):
                a[i] = a[i] * b + c
        return a[0]
    return kernel


def asm_mix(kernel, sig) -> dict:
    try:
        asm = kernel.inspect_asm(sig)
    except Exception:  # pragma: no cover
        return {}
    mix = {}
    for reg in ("zmm", "ymm", "xmm"):   # packed single FMAs by register width
        mix[f"fma_{reg}"] = len(re.findall(r"\bvfn?m(?:add|sub)\w*ps\s+[^\n]*%" + reg, asm))
    mix["fma_scalar"] = len(re.findall(r"\bvfn?m(?:add|sub)\w*ss\b", asm))
    mix["vmovups_mem"] = len(re.findall(r"\bvmovups\s+[^\n]*\(", asm))
    return mix


def child(variant: str, seconds: float, repeats: int) -> dict:
    import numpy as np
    import llvmlite.binding as llvm
    import numba
    if variant == "zmm":
        llvm.set_option("fma_peak", "-force-vector-width=16")
    res = {"variant": variant, "numba": numba.__version__,
           "cpu_name": llvm.get_host_cpu_name(), "kernels": []}
    b, c = np.float32(0.999999), np.float32(1e-6)
    for n in SIZES:
        k = make_kernel(n)
        a = np.ones(n, dtype=np.float32)
        k(a, b, c, 10)  # compile
        sig = k.signatures[0]
        # calibrate to ~seconds
        iters = 1000
        while True:
            t = time.perf_counter()
            k(a, b, c, iters)
            dt = time.perf_counter() - t
            if dt > 0.05:
                break
            iters *= 4
        iters = max(1, int(iters * seconds / dt))
        best = float("inf")
        for _ in range(repeats):
            a[:] = 1
            t = time.perf_counter()
            k(a, b, c, iters)
            best = min(best, time.perf_counter() - t)
        gflops = 2.0 * n * iters / best / 1e9
        res["kernels"].append({"n": n, "iters": iters, "seconds": best, "gflops": gflops,
                               "finite": bool(np.isfinite(a).all()), **asm_mix(k, sig)})
    return res


# --------------------------------------------------------------------------- parent

def sgemm(seconds: float, repeats: int) -> list:
    import numpy as np
    out = []
    for n in (256, 1024, 2048):
        x = np.random.default_rng(0).random((n, n), dtype=np.float32)
        y = np.random.default_rng(1).random((n, n), dtype=np.float32)
        x @ y
        t = time.perf_counter()
        x @ y
        one = max(time.perf_counter() - t, 1e-6)
        reps = max(1, int(seconds / one))
        best = float("inf")
        for _ in range(repeats):
            t = time.perf_counter()
            for _ in range(reps):
                x @ y
            best = min(best, (time.perf_counter() - t) / reps)
        out.append({"n": n, "seconds": best, "gflops": 2.0 * n ** 3 / best / 1e9})
    return out


def blas_info() -> str:
    try:
        from threadpoolctl import threadpool_info
        return "; ".join(f"{d.get('internal_api')} {d.get('version')} threads={d.get('num_threads')}"
                         f" arch={d.get('architecture')}" for d in threadpool_info())
    except ImportError:
        return "threadpoolctl not installed; OPENBLAS_NUM_THREADS=%s" % os.environ.get("OPENBLAS_NUM_THREADS")


def cpu_model() -> str:
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True,
                                   env={**os.environ, "LC_ALL": "C"}).stdout.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--seconds", type=float, default=1.0, help="time per measurement (default 1)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dim", type=int, default=100)
    ap.add_argument("--window", type=int, default=5)
    ap.add_argument("--negative", type=int, default=5)
    ap.add_argument("--keep-fraction", type=float, default=None,
                    help="fraction of raw corpus words that survive min_count + subsampling "
                         "(e.g. w2v's kept_words / corpus_words) to also print a raw words/s ceiling")
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument("--child", choices=["default", "zmm"], help=argparse.SUPPRESS)
    a = ap.parse_args(argv)

    if a.child:
        print(json.dumps(child(a.child, a.seconds, a.repeats)))
        return 0

    print(f"CPU: {cpu_model()} (1 core; {os.cpu_count()} logical CPUs on the machine)")
    try:
        la = os.getloadavg()
        print(f"load average: {la[0]:.2f} {la[1]:.2f} {la[2]:.2f}"
              + ("  (machine busy: numbers will be low)" if la[0] > 0.5 else ""))
    except OSError:
        pass
    results = {"cpu": cpu_model(), "numba": {}, "sgemm": None}
    for variant in ("default", "zmm"):
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", variant,
                            "--seconds", str(a.seconds), "--repeats", str(a.repeats)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"numba {variant}: FAILED\n{p.stderr[-2000:]}")
            continue
        r = json.loads(p.stdout.strip().splitlines()[-1])
        results["numba"][variant] = r
        print(f"\nNumba FMA, {variant} vector width (LLVM cpu {r['cpu_name']}, numba {r['numba']}):")
        print(f"  {'N':>5} {'GFLOP/s':>9} {'iters':>12}  asm: packed FMAs zmm/ymm/xmm, scalar FMAs, "
              "vmovups with memory operand")
        for k in r["kernels"]:
            print(f"  {k['n']:>5} {k['gflops']:9.1f} {k['iters']:>12}  "
                  f"{k.get('fma_zmm', '?')}/{k.get('fma_ymm', '?')}/{k.get('fma_xmm', '?')}, "
                  f"{k.get('fma_scalar', '?')}, {k.get('vmovups_mem', '?')}"
                  + ("" if k["finite"] else "  (non-finite!)"))

    import numpy as np
    results["blas"] = blas_info()
    results["sgemm"] = sgemm(a.seconds, a.repeats)
    print(f"\nnumpy {np.__version__} sgemm, 1 thread ({results['blas']}):")
    for s in results["sgemm"]:
        print(f"  n={s['n']:>5} {s['gflops']:9.1f} GFLOP/s")

    best_numba = max((k["gflops"] for r in results["numba"].values() for k in r["kernels"]), default=None)
    best_default = max((k["gflops"] for k in results["numba"].get("default", {}).get("kernels", [])),
                       default=None)
    best_sgemm = max(s["gflops"] for s in results["sgemm"])
    d, w, neg = a.dim, a.window, a.negative
    sg_flops = (w + 1) * (neg + 1) * d * 2 * 3
    cbow_flops = (neg + 1) * d * 2 * 3 + 2 * (w + 1) * d   # output side as SG for 1 pair + mean in, scatter out
    results.update(sg_flops_per_word=sg_flops, cbow_flops_per_word=cbow_flops,
                   best_numba_gflops=best_numba, best_numba_default_gflops=best_default,
                   best_sgemm_gflops=best_sgemm)
    print(f"\nskip-gram NS, dim {d}, window {w}, negative {neg}: "
          f"({w}+1) pairs x ({neg}+1) x {d} x 2 flops x 3 passes = {sg_flops:,} flops per trained word")
    print(f"CBOW NS (rough): ({neg}+1) x {d} x 2 x 3 + 2 x ({w}+1) x {d} = {cbow_flops:,} flops per trained word")
    rows = [("Numba FMA peak (best variant)", best_numba),
            ("Numba FMA, LLVM default width", best_default),
            ("numpy sgemm 1 thread", best_sgemm)]
    print(f"\n{'ceiling from':32} {'GFLOP/s':>8} {'SG words/s':>14} {'CBOW words/s':>14}"
          + (f" {'SG raw words/s':>15}" if a.keep_fraction else ""))
    for name, g in rows:
        if g is None:
            continue
        sg = g * 1e9 / sg_flops
        cb = g * 1e9 / cbow_flops
        line = f"{name:32} {g:8.1f} {sg:14,.0f} {cb:14,.0f}"
        if a.keep_fraction:
            line += f" {sg / a.keep_fraction:15,.0f}"
        print(line)
    print("(compute-only ceilings for one core: the real kernels also pay for loads/stores of the "
          "rows, random access to the output matrix, the sigmoid and the RNG)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
