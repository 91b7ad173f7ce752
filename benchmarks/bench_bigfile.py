#!/usr/bin/env python3
"""Peak memory of `w2v train` on a huge single-line (text8-style) file.

Target: peak RSS < 2 x the model's own arrays + 300 MB, where the
model's arrays are the input vectors plus the output vectors of every output
layer in use (syn1neg for negative sampling, syn1 for hierarchical softmax).

Make the input by concatenating the wiki corpus in text8 form, e.g.::

    python3 benchmarks/text8_normalize.py --single-line < wiki.txt > wiki69m.txt
    (cat wiki69m.txt wiki69m.txt wiki69m.txt) | head -c 1000000000 > big1g.txt

Usage::

    python3 benchmarks/bench_bigfile.py /path/to/big1g.txt [--threads 2] [--epochs 1]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--dim", type=int, default=100)
    ap.add_argument("--out", default=str(HERE / "results"))
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="w2v-big-")
    report = os.path.join(tmp, "report.json")
    cmd = ["/usr/bin/time", "-v", sys.executable, str(REPO / "benchmarks" / "run_cli.py"), "train", args.corpus, "-o",
           os.path.join(tmp, "v.bin"), "--threads", str(args.threads), "--epochs", str(args.epochs),
           "--dim", str(args.dim), "--report-json", report, "--quiet"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    t0 = time.time()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.time() - t0
    if proc.returncode != 0:
        sys.exit(f"w2v failed: {proc.stderr[-2000:]}")
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))
    r = json.load(open(report))
    s = r["settings"]
    rows = r["vocab_size"] * s["dim"] * 4
    model_bytes = rows * (1 + (s["negative"] > 0) + bool(s["hs"]))
    limit = 2 * model_bytes + 300 * 2 ** 20
    res = {
        "corpus": args.corpus, "bytes": os.path.getsize(args.corpus), "corpus_words": r["corpus_words"],
        "vocab_size": r["vocab_size"], "model_arrays_mib": model_bytes / 2 ** 20,
        "peak_rss_mib": peak_kb / 1024, "limit_mib": limit / 2 ** 20, "ok": peak_kb * 1024 < limit,
        "vocab_seconds": r["vocab_seconds"], "train_seconds": r["train_seconds"], "wall_seconds": wall,
        "words_per_sec": r["words_per_sec"], "threads": args.threads, "epochs": args.epochs,
    }
    os.makedirs(args.out, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    with open(os.path.join(args.out, f"bigfile-{stamp}.json"), "w") as f:
        json.dump(res, f, indent=2)
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
