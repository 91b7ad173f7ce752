"""Vocabulary-phase benchmark: the corpus scan and the whole ``build_vocab``, 1 and 2 threads.

w2v reads the corpus once before training (tokenize, count, keep the id
stream), builds the vocabulary, then remaps the id stream to final ids.  This
times, for each thread count, in fresh processes (so each run pays what a
``w2v train`` pays, the kernels' load from Numba's cache included):

* ``scan``: :func:`w2v.text.scanning.scan_corpus` alone (whitespace tokenizer);
* ``build_vocab``: :meth:`w2v.Word2Vec.build_vocab` (scan, vocabulary,
  encoding, tables, weights; the training kernel loads alongside).

Runs of the thread counts are interleaved; figures are medians of
``--repeats`` and the 2-thread speed-up is taken pair by pair.  ``--vs
CHECKOUT`` times another checkout's code (an older commit, say from ``git
worktree add``) in the same run, interleaved, and reports its time over the
installed w2v's.  A markdown table is printed and written with a JSON file to
``benchmarks/results/``.

Example::

    python benchmarks/bench_vocab.py /work/bench-data/wiki69m.txt --repeats 5
    python benchmarks/bench_vocab.py /work/bench-data/wiki69m.txt --vs /tmp/before
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
from w2v.text.scanning import scan_corpus
import w2v
path, threads, what = sys.argv[1], int(sys.argv[2]), sys.argv[3]
t = time.perf_counter()
if what == "scan":
    import inspect   # another checkout's scan_corpus may take no ``threads``
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


def run_child(corpus, threads, what, env, checkout):
    # ``python -c`` puts the working directory first on sys.path, and an editable install's
    # finder answers before PYTHONPATH would: so the child runs *in* the checkout it times, and
    # the w2v it imported is checked
    out = subprocess.run([sys.executable, "-c", CHILD, corpus, str(threads), what], env=env,
                         cwd=checkout, capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    if checkout is not None and not Path(r["w2v"]).resolve().is_relative_to(Path(checkout).resolve()):
        sys.exit(f"bench_vocab: the child imported {r['w2v']}, not the checkout {checkout}")
    return r


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--vs", metavar="CHECKOUT", action="append", default=[],
                    help="another checkout (a directory holding w2v/) to time in the same run, "
                         "interleaved; repeatable")
    ap.add_argument("--tag", default="vocab")
    ap.add_argument("--out-dir", default=str(Path(__file__).resolve().parent / "results"))
    args = ap.parse_args(argv)
    corpus = str(Path(args.corpus).resolve())   # the child may run in another directory
    # (label, checkout, env): the installed w2v first, then each --vs checkout
    systems = [("installed", None, dict(os.environ))]
    for path in args.vs:
        env = dict(os.environ)
        env["PYTHONPATH"] = path + os.pathsep + env.get("PYTHONPATH", "")
        systems.append((path, path, env))
    phases = ("scan", "build_vocab")
    # warm the page cache and Numba's cache (a first build_vocab at 2 threads compiles)
    first = {}
    for label, checkout, env in systems:
        for what in phases:
            for t in args.threads:
                first[label, what, t] = run_child(corpus, t, what, env, checkout)
    runs = []
    for rep in range(args.repeats):
        for what in phases:
            for threads in args.threads:
                for label, checkout, env in systems:
                    r = run_child(corpus, threads, what, env, checkout)
                    r.update(system=label, what=what, threads=threads, repeat=rep)
                    runs.append(r)
                    print(f"[{rep + 1}/{args.repeats}] {label} {what} t={threads}: "
                          f"{r['seconds']:.3f} s", file=sys.stderr)
    tokens = first["installed", "scan", args.threads[0]]["tokens"]

    def cell(label, what, t):
        return [r["seconds"] for r in runs
                if r["system"] == label and r["what"] == what and r["threads"] == t]

    def median_ratio(a, b):   # pair by pair (same repeat), then the median
        return statistics.median(x / y for x, y in zip(a, b))

    rows = []
    summary = {}
    base_t = args.threads[0]
    for what in phases:
        for t in args.threads:
            for label, _, _ in systems:
                sec = cell(label, what, t)
                med = statistics.median(sec)
                summary.setdefault(label, {}).setdefault(what, {})[t] = med
                row = (f"| {label} | {what} | {t} | {med:.3f} | {tokens / med / 1e6:.1f} | "
                       f"{median_ratio(cell(label, what, base_t), sec):.2f} |")
                if len(systems) > 1:
                    row += f" {median_ratio(cell(label, what, t), cell('installed', what, t)):.2f} |"
                rows.append(row)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    cols = "| w2v | phase | threads | seconds | M tokens/s | speed-up |"
    rule = "|---|---|---:|---:|---:|---:|"
    if len(systems) > 1:
        cols += " time ÷ installed |"
        rule += "---:|"
    head = [f"# w2v vocabulary phase — {stamp}", "",
            f"- CPU: **{cpu_model()}**, {os.cpu_count()} logical CPUs",
            f"- corpus: `{args.corpus}`, {tokens:,} tokens",
            "- w2v: " + "; ".join(f"{label} = `{first[label, 'scan', base_t]['w2v']}`"
                                  for label, _, _ in systems),
            f"- median of {args.repeats} fresh processes per cell (interleaved); speed-up against "
            f"{base_t} thread(s) and time ratios are medians of pairs from the same repeat", "",
            cols, rule]
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
