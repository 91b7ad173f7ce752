#!/usr/bin/env python3
"""Deterministic mode against Hogwild: words/s, quality, lanes, and identical files at any thread count.

  python3 benchmarks/bench_deterministic.py CORPUS [--configs hog det:8 det:8:2048 ...] [--seeds 1 2 3]
      [--threads 2] [--epochs 1] [--same-file 1 2 4] [--out FILE.json]

Each config trains skip-gram (dim 100, window 5, negative 5, sample 1e-3, min_count 5) on CORPUS in
this process, one after the other: ``hog`` is the default Hogwild training, ``det:L[:W[:sum|mean]]``
``deterministic=True`` with L lanes of W ids per round.  Words/s = corpus words x epochs / training
seconds.  Quality: gensim's ``evaluate_word_analogies`` (restrict_vocab 30000) and WS-353 Spearman
(:func:`common.evaluate_vectors`).  ``--same-file T...`` trains ``det:8`` at each thread count
and prints the SHA-256 of each binary vectors file (they must be equal).
"""
import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import EVAL_DIR, evaluate_vectors  # noqa: E402

from w2v import lanes  # noqa: E402
from w2v.model import Word2Vec  # noqa: E402

SATURATION = lanes.SATURATION


def parse_config(text):
    """``hog`` or ``det:L[:W[:sum|mean]]`` as Word2Vec keyword arguments (``sum``: the merge sums the lanes'
    changes of every row, :data:`w2v.lanes.SATURATION` set to 0; ``mean``: :data:`w2v.lanes.MERGE`)."""
    lanes.SATURATION, lanes.MERGE = SATURATION, "saturation"
    if text == "hog":
        return {}
    parts = text.split(":")
    if parts[3:] == ["sum"]:
        lanes.SATURATION = (0.0, 0.0, 0.0)
    elif parts[3:] == ["mean"]:
        lanes.MERGE = "mean"
    out = {"deterministic": True, "lanes": int(parts[1])}
    if len(parts) > 2:
        out["round_words"] = int(parts[2])
    return out


def train_one(corpus, config, seed, threads, epochs, path):
    """Train one config; write its vectors to ``path``; return words/s and the file's SHA-256."""
    m = Word2Vec(model="sg", dim=100, window=5, negative=5, sample=1e-3, min_count=5, epochs=epochs,
                 threads=threads, seed=seed, **parse_config(config))
    m.build_vocab(corpus, quiet=True)
    m.train(quiet=True)
    wps = m.corpus_tokens * epochs / m.last_train.seconds
    m.save_word2vec(path, binary=True)
    m.close()
    return wps, hashlib.sha256(Path(path).read_bytes()).hexdigest()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus")
    ap.add_argument("--configs", nargs="*", default=["hog", "det:8"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[1])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--quality", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--same-file", nargs="*", type=int, default=[])
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "v.bin")
        for threads in a.same_file:
            wps, digest = train_one(a.corpus, "det:8", a.seeds[0], threads, a.epochs, path)
            rows.append({"config": "det:8", "threads": threads, "seed": a.seeds[0], "wps": wps, "sha256": digest})
            print(json.dumps(rows[-1]), flush=True)
        for seed in a.seeds:
            for config in a.configs:
                t = time.perf_counter()
                wps, digest = train_one(a.corpus, config, seed, a.threads, a.epochs, path)
                row = {"config": config, "threads": a.threads, "seed": seed, "wps": round(wps), "sha256": digest}
                if a.quality:
                    q = evaluate_vectors(path, binary=True, analogies=str(EVAL_DIR / "questions-words.txt"),
                                         ws353=str(EVAL_DIR / "wordsim353.tsv"), simlex=None)
                    row.update(analogy=q.get("analogy"), ws353=q.get("ws353"))
                row["seconds"] = round(time.perf_counter() - t, 1)
                rows.append(row)
                print(json.dumps(row), flush=True)
    if a.out:
        Path(a.out).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
