"""Vocabulary-phase benchmark: the corpus scan and the whole ``build_vocab``, 1 and 2 threads.

w2v reads the corpus once before training (tokenize, count, keep the id
stream), builds the vocabulary, then remaps the id stream to final ids.  This
times, for each thread count, in fresh processes (so each run pays what a
``w2v train`` pays, the kernels' load from Numba's cache included):

* ``scan``: :func:`w2v.corpus.scan_corpus` alone (whitespace tokenizer);
* ``build_vocab``: :meth:`w2v.Word2Vec.build_vocab` (scan, vocabulary,
  encoding, tables, weights; the training kernel loads alongside).

Runs of the thread counts are interleaved; figures are medians of
``--repeats`` and the 2-thread speed-up is taken pair by pair.  Put another
checkout first on ``PYTHONPATH`` (``--pythonpath``) to time its code the same
way.  A markdown table is printed and written with a JSON file to
``benchmarks/results/``.

Example::

    python benchmarks/bench_vocab.py /work/bench-data/wiki69m.txt --repeats 5
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from w2v import Word2Vec
from w2v.corpus import scan_corpus
import w2v
path, threads, what = sys.argv[1], int(sys.argv[2]), sys.argv[3]
t = time.perf_counter()
if what == "scan":
    import inspect   # a checkout from before the threaded scan has no ``threads``
    kw = {"threads": threads} if "threads" in inspect.signature(scan_corpus).parameters else {}
    s = scan_corpus(path, **kw)
    n = s.n_tokens
    s.stream.close()
else:
    m = Word2Vec(threads=threads)
    m.build_vocab(path)
    n = m.corpus_tokens
print(json.dumps({"seconds": time.perf_counter() - t, "tokens": n, "w2v": w2v.__file__}))
"""


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run_child(corpus, threads, what, env):
    out = subprocess.run([sys.executable, "-c", CHILD, corpus, str(threads), what], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--pythonpath", default=None, help="a checkout to time instead of the installed w2v")
    ap.add_argument("--tag", default="vocab")
    ap.add_argument("--out-dir", default=str(Path(__file__).resolve().parent / "results"))
    args = ap.parse_args(argv)
    env = dict(os.environ)
    if args.pythonpath:
        env["PYTHONPATH"] = args.pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    first = run_child(args.corpus, 1, "scan", env)    # warm the page cache and Numba's cache
    runs = []
    for rep in range(args.repeats):
        for what in ("scan", "build_vocab"):
            for threads in args.threads:
                r = run_child(args.corpus, threads, what, env)
                r.update(what=what, threads=threads, repeat=rep)
                runs.append(r)
                print(f"[{rep + 1}/{args.repeats}] {what} t={threads}: {r['seconds']:.3f} s", file=sys.stderr)
    tokens = first["tokens"]
    rows = []
    summary = {}
    for what in ("scan", "build_vocab"):
        med = {t: statistics.median(r["seconds"] for r in runs if r["what"] == what and r["threads"] == t)
               for t in args.threads}
        summary[what] = med
        base = args.threads[0]
        for t in args.threads:
            pairs = [a["seconds"] / b["seconds"] for a, b in zip(
                [r for r in runs if r["what"] == what and r["threads"] == base],
                [r for r in runs if r["what"] == what and r["threads"] == t])]
            rows.append(f"| {what} | {t} | {med[t]:.3f} | {tokens / med[t] / 1e6:.1f} | "
                        f"{statistics.median(pairs):.2f} |")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    head = [f"# w2v vocabulary phase — {stamp}", "",
            f"- CPU: **{cpu_model()}**, {os.cpu_count()} logical CPUs",
            f"- corpus: `{args.corpus}`, {tokens:,} tokens; w2v from `{first['w2v']}`",
            f"- median of {args.repeats} fresh processes per cell (interleaved); speed-up against "
            f"{args.threads[0]} thread(s), median of pairs", "",
            "| phase | threads | seconds | M tokens/s | speed-up |", "|---|---:|---:|---:|---:|"]
    text = "\n".join(head + rows) + "\n"
    print(text)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    base = out / f"vocab-{stamp}-{args.tag}"
    base.with_suffix(".md").write_text(text)
    base.with_suffix(".json").write_text(json.dumps({"corpus": args.corpus, "tokens": tokens,
                                                      "runs": runs, "summary": summary}, indent=1))
    print(f"wrote {base}.md, {base}.json", file=sys.stderr)


if __name__ == "__main__":
    main()
