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

``--kill N`` instead runs ``w2v train CORPUS --epochs 3 --checkpoint DIR --checkpoint-words W`` at
``--threads 1`` and with ``--deterministic --threads 2``, kills it (SIGKILL) at N random moments while
it trains (a random delay after a random fraction of the run is saved; a kill that lands after training
is tried again elsewhere), resumes each with ``--resume DIR`` and checks the file against the
uninterrupted run's; each kill loses at most one interval of W ids.
"""
import argparse
import hashlib
import json
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import EVAL_DIR, evaluate_vectors  # noqa: E402

from w2v.training import lanes  # noqa: E402
from w2v.model.word2vec import Word2Vec  # noqa: E402

SATURATION = lanes.SATURATION


def parse_config(text):
    """``hog`` or ``det:L[:W[:sum|mean]]`` as Word2Vec keyword arguments (``sum``: the merge sums the lanes'
    changes of every row, :data:`w2v.training.lanes.SATURATION` set to 0;
    ``mean``: :data:`w2v.training.lanes.MERGE`)."""
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


def _cli(*args):
    return [sys.executable, "-c", "from w2v_cli.main import main; main()", *args]


def _saved(path):
    # (epochs done + position / length) / epochs of the checkpoint at path, or -1
    try:
        t = json.loads((Path(path) / "model.json").read_text(encoding="utf-8"))["training"]
        return (t["epochs_done"] + t.get("position", 0) / t["corpus_length"]) / t["epochs"]
    except (OSError, ValueError, KeyError, TypeError):
        return -1.0


def kill_and_resume(corpus, moments, words, seed, tmp):
    """Kill a 3-epoch run at ``moments`` random moments while it trains, resume each; return one row per
    attempt (a kill that came after training, while the vectors were written, is tried again at another
    moment, up to ``4 * moments`` attempts per mode)."""
    rng = random.Random(seed)
    base = ["--epochs", "3", "--seed", str(seed), "-q"]
    rows = []
    for i, mode in enumerate((["--threads", "1"], ["--threads", "2", "--deterministic"])):
        ref = Path(tmp) / f"ref{i}.bin"
        subprocess.run(_cli("train", corpus, "-o", str(ref), *base, *mode), check=True)
        for k in range(4 * moments):
            if sum(r["identical"] is not None for r in rows if r["mode"] == " ".join(mode)) == moments:
                break
            ck, out = Path(tmp) / f"ck{i}-{k}", Path(tmp) / f"out{i}-{k}.bin"
            target, delay = rng.uniform(0.02, 0.9), rng.uniform(0.0, 0.3)
            proc = subprocess.Popen(_cli("train", corpus, "-o", str(out), "--checkpoint", str(ck),
                                         "--checkpoint-words", str(words), *base, *mode))
            while _saved(ck) < target and proc.poll() is None:   # then a random moment after it
                time.sleep(0.002)
            time.sleep(delay)
            at_kill = _saved(ck)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            saved = _saved(ck)
            if saved >= 1.0:   # killed after training, while the vectors were written: nothing to resume
                rows.append({"mode": " ".join(mode), "target": round(target, 4), "checkpoint_at": 1.0,
                             "identical": None})
                continue
            if proc.returncode != -signal.SIGKILL:   # it had finished before the kill: not a kill
                rows.append({"mode": " ".join(mode), "target": round(target, 4), "checkpoint_at": 1.0,
                             "identical": None})
                continue
            subprocess.run(_cli("train", "--resume", str(ck), "-o", str(out), "-q", *mode[:2]), check=True)
            same = out.exists() and out.read_bytes() == ref.read_bytes()
            rows.append({"mode": " ".join(mode), "target": round(target, 4), "checkpoint_at": round(saved, 4),
                         "checkpoint_seen_before_kill": round(at_kill, 4), "identical": same})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus")
    ap.add_argument("--configs", nargs="*", default=["hog", "det:8"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[1])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--quality", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--same-file", nargs="*", type=int, default=[])
    ap.add_argument("--kill", type=int, default=0, metavar="N")
    ap.add_argument("--kill-words", type=int, default=20000)
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    rows = []
    if a.kill:
        with tempfile.TemporaryDirectory() as tmp:
            rows = kill_and_resume(a.corpus, a.kill, a.kill_words, a.seeds[0], tmp)
        resumed = [r for r in rows if r["identical"] is not None]
        print(f"{sum(r['identical'] for r in resumed)} of {len(resumed)} resumed runs gave the uninterrupted file")
        if a.out:
            Path(a.out).write_text(json.dumps(rows, indent=1) + "\n")
        return
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
