"""Word-map benchmark: a picture of the most frequent words of a large model, against loading it all.

Builds a native model of random vectors (by default 3,000,000 x 100, 1.2 GB)
in a temporary directory, then times, each the median of ``--repeats`` runs
with a warm page cache:

* ``w2v plot MODEL --top 300 --method pca -o map.png``, the whole command in
  a new process (Python, matplotlib and the picture included);
* the same with the default method (t-SNE when openTSNE is installed);
* in one process: ``w2v.plot.load_rows(MODEL, 300)`` (what ``--top`` reads)
  against ``w2v.load(MODEL)`` (every row mapped and checked);
* the same vectors as a word2vec binary file: ``w2v plot`` with PCA, and
  ``w2v.load`` of every row.

Prints a markdown table and writes it with a JSON file to ``benchmarks/results/``.

Examples::

    python benchmarks/bench_plot.py
    python benchmarks/bench_plot.py --words 300000 --repeats 1     # a quick check
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--words", type=int, default=3_000_000, help="words of the random model")
    ap.add_argument("--dim", type=int, default=100)
    ap.add_argument("--top", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(HERE / "results"))
    ap.add_argument("--tag", default="")
    return ap.parse_args(argv)


def write_random_native(path, words, dim, seed=0, block=250_000):
    """A native model folder of ``words`` random vectors, written block by block."""
    from w2v.formats import NATIVE_FORMAT, NATIVE_VERSION

    os.makedirs(path)
    rng = np.random.default_rng(seed)
    vectors = np.lib.format.open_memmap(os.path.join(path, "vectors.npy"), mode="w+", dtype=np.float32,
                                        shape=(words, dim))
    for start in range(0, words, block):
        stop = min(words, start + block)
        vectors[start:stop] = rng.standard_normal((stop - start, dim), dtype=np.float32)
    vectors.flush()
    del vectors
    with open(os.path.join(path, "vocab.tsv"), "w", encoding="utf-8") as f:
        for start in range(0, words, block):
            f.write("".join(f"w{i}\t{10 * words - i}\n" for i in range(start, min(words, start + block))))
    meta = {"format": NATIVE_FORMAT, "version": NATIVE_VERSION, "count": words, "dim": dim, "settings": {},
            "has_counts": True}
    with open(os.path.join(path, "meta.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f)


def time_command(args, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def time_call(func, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        func()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main(argv=None):
    a = parse_args(argv)
    import w2v
    from w2v.plot import best_method, load_rows

    w2v_cmd = [sys.executable, "-m", "w2v_cli.main"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "model")
        t = time.perf_counter()
        write_random_native(model, a.words, a.dim)
        print(f"wrote a {a.words:,} x {a.dim} native model in {time.perf_counter() - t:.1f}s", file=sys.stderr)
        png = os.path.join(tmp, "map.png")
        for method in ("pca", best_method()):
            seconds = time_command(w2v_cmd + ["plot", model, "--top", str(a.top), "--method", method, "-o", png],
                                   a.repeats)
            rows.append({"what": f"`w2v plot --top {a.top} --method {method}` (whole command)", "seconds": seconds})
        rows.append({"what": f"`w2v.plot.load_rows(model, {a.top})`",
                     "seconds": time_call(lambda: load_rows(model, a.top), a.repeats)})
        rows.append({"what": "`w2v.load(model)` (every row)", "seconds": time_call(lambda: w2v.load(model), a.repeats)})
        binary = os.path.join(tmp, "model.bin")
        w2v.vectors.keyed.save_word2vec_format(w2v.load(model), binary)
        seconds = time_command(w2v_cmd + ["plot", binary, "--top", str(a.top), "--method", "pca", "-o", png],
                               a.repeats)
        rows.append({"what": f"`w2v plot model.bin --top {a.top} --method pca` (word2vec binary)", "seconds": seconds})
        rows.append({"what": "`w2v.load(model.bin)` (every row)",
                     "seconds": time_call(lambda: w2v.load(binary), a.repeats)})
    table = [f"| {r['what']} | {r['seconds']:.3f} |" for r in rows]
    md = "\n".join([f"Random native model, {a.words:,} x {a.dim}; median of {a.repeats}.", "",
                    "| what | seconds |", "|---|---:|"] + table) + "\n"
    print(md)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path(a.out) / (f"plot-{stamp}" + (f"-{a.tag}" if a.tag else ""))
    base.parent.mkdir(parents=True, exist_ok=True)
    base.with_suffix(".md").write_text(md)
    base.with_suffix(".json").write_text(json.dumps({"words": a.words, "dim": a.dim, "top": a.top,
                                                     "repeats": a.repeats, "rows": rows}, indent=1) + "\n")
    print(f"wrote {base}.md and .json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
