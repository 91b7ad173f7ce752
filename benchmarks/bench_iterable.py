#!/usr/bin/env python3
"""gensim's own call, on gensim and on w2v with only the import changed: an iterable corpus.

  python3 benchmarks/bench_iterable.py CORPUS [--threads 1 2] [--seeds 1 2 3]
      [--systems gensim w2v w2v-sentences] [--out-dir benchmarks/results] [--tag TAG]

Every run is a fresh process (under ``/usr/bin/time -v``: its peak RSS) that makes

    Word2Vec(sentences=LineSentence(CORPUS), vector_size=100, window=5, negative=5, sample=1e-3,
             min_count=5, epochs=1, workers=T, seed=S)

with ``LineSentence`` from ``gensim.models.word2vec`` and ``Word2Vec`` from gensim (``gensim``) or
w2v (``w2v``: w2v recognises gensim's LineSentence and reads its file itself).  ``w2v-sentences``
hands w2v the same sentences through a plain iterable class, so that w2v iterates them in Python
as it would any user's corpus.  gensim's defaults apply to the rest (CBOW, alpha 0.025).

Timings come from a callback: training is ``on_train_begin`` to ``on_train_end`` (gensim reads the
corpus again inside it; w2v trains on the ids it encoded while building the vocabulary), the
vocabulary phase is the rest of the constructor.  Words/s = ``corpus_total_words`` x epochs /
training seconds; ``total`` words/s divide by the whole constructor.  Quality: gensim's
``evaluate_word_analogies`` (restrict_vocab 30000) and WS-353 Spearman on the saved vectors
(:func:`common.evaluate_vectors`).  Runs are interleaved; the tables give medians over seeds.
Writes ``iterable-<stamp>[-TAG].json`` and ``.md`` to ``--out-dir``.
"""
import argparse
import datetime as _dt
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import EVAL_DIR, evaluate_vectors, git_describe, machine_info, median, run_timed  # noqa: E402

SYSTEMS = ("gensim", "w2v", "w2v-sentences")
# the targets: w2v / gensim words/s at least this, quality and memory within these
TARGETS = {"speed_ratio": 3.0, "analogy_points": 0.5, "ws353": 0.02, "rss_ratio": 1.2}


class Sentences:
    """The sentences of another iterable, through a plain class (no file for w2v to read)."""

    def __init__(self, inner):
        self.inner = inner

    def __iter__(self):
        return iter(self.inner)


class Timer:
    """Callback timing the training (gensim's CallbackAny2Vec protocol: gensim calls all four methods)."""

    def __init__(self):
        self.begin = self.end = None

    def on_train_begin(self, model):
        self.begin = time.perf_counter()

    def on_epoch_begin(self, model):
        pass

    def on_epoch_end(self, model):
        pass

    def on_train_end(self, model):
        self.end = time.perf_counter()


def child(a):
    """One run: the constructor call, timings, the vectors in word2vec binary format."""
    if a.child == "gensim":
        from gensim.models import Word2Vec
    else:
        from w2v import Word2Vec
    from gensim.models.word2vec import LineSentence

    sentences = LineSentence(a.corpus)
    if a.child == "w2v-sentences":
        sentences = Sentences(sentences)
    timer = Timer()
    t0 = time.perf_counter()
    model = Word2Vec(sentences=sentences, vector_size=100, window=5, negative=5, sample=1e-3, min_count=5,
                     epochs=1, workers=a.threads, seed=a.seed, callbacks=[timer])
    t1 = time.perf_counter()
    model.wv.save_word2vec_format(a.vectors, binary=True)
    words = int(model.corpus_total_words)
    report = {"system": a.child, "threads": a.threads, "seed": a.seed, "corpus_words": words,
              "corpus_count": int(model.corpus_count), "vocab_size": len(model.wv),
              "train_seconds": timer.end - timer.begin, "vocab_seconds": timer.begin - t0, "total_seconds": t1 - t0}
    report["words_per_sec"] = words / report["train_seconds"]
    report["total_words_per_sec"] = words / report["total_seconds"]
    Path(a.report).write_text(json.dumps(report))


def run_one(a, system, threads, seed, tmp):
    vectors = os.path.join(tmp, f"{system}-{threads}-{seed}.bin")
    report = os.path.join(tmp, f"{system}-{threads}-{seed}.json")
    cmd = [sys.executable, __file__, a.corpus, "--child", system, "--threads", str(threads), "--seed", str(seed),
           "--vectors", vectors, "--report", report]
    res = run_timed(cmd, time_report=os.path.join(tmp, "time.txt"), timeout=3600)
    if res.get("rc") != 0:
        raise SystemExit(f"{system} failed:\n{res.get('output_tail')}")
    out = json.loads(Path(report).read_text())
    out["max_rss_mib"] = res.get("max_rss_mib")
    out["wall_s"] = res.get("wall_s")
    out.update(evaluate_vectors(vectors, binary=True, analogies=str(EVAL_DIR / "questions-words.txt"),
                                ws353=str(EVAL_DIR / "wordsim353.tsv"), simlex=None, restrict_vocab=30000))
    os.remove(vectors)
    print(f"{system:14s} T={threads} seed={seed}: {out['words_per_sec']:>12,.0f} words/s train, "
          f"{out['total_seconds']:6.1f} s total, {out['max_rss_mib']:7.0f} MiB, analogy {100 * out['analogy']:.1f}%, "
          f"WS-353 {out['ws353']:.3f}", flush=True)
    return out


def summarize(runs, systems, threads):
    rows = []
    for t in threads:
        base = {k: median([r[k] for r in runs if r["system"] == "gensim" and r["threads"] == t])
                for k in ("words_per_sec", "total_words_per_sec", "max_rss_mib", "analogy", "ws353")} \
            if "gensim" in systems else None
        for s in systems:
            mine = [r for r in runs if r["system"] == s and r["threads"] == t]
            row = {"system": s, "threads": t, "runs": len(mine)}
            for k in ("words_per_sec", "total_words_per_sec", "train_seconds", "vocab_seconds", "total_seconds",
                      "max_rss_mib", "analogy", "ws353"):
                row[k] = median([r[k] for r in mine])
            if base and s != "gensim":
                row["speed_ratio"] = row["words_per_sec"] / base["words_per_sec"]
                row["total_ratio"] = row["total_words_per_sec"] / base["total_words_per_sec"]
                row["rss_ratio"] = row["max_rss_mib"] / base["max_rss_mib"]
                row["analogy_points"] = 100 * (row["analogy"] - base["analogy"])
                row["ws353_delta"] = row["ws353"] - base["ws353"]
                row["targets_met"] = {
                    "speed": row["speed_ratio"] >= TARGETS["speed_ratio"],
                    "analogy": row["analogy_points"] >= -TARGETS["analogy_points"],
                    "ws353": row["ws353_delta"] >= -TARGETS["ws353"],
                    "rss": row["rss_ratio"] <= TARGETS["rss_ratio"]}
            rows.append(row)
    return rows


def markdown(rows, meta):
    lines = [f"# Iterable corpus: gensim's call on gensim and w2v ({meta['date']})", "",
             f"`{meta['command']}`", "",
             f"Machine: {meta['machine']['cpu_model']}, {meta['machine']['logical_cpus']} CPUs; "
             f"w2v {meta['git']}; seeds {meta['seeds']}; medians.", "",
             "| system | threads | words/s (train) | ÷ gensim | words/s (total) | ÷ gensim | peak RSS MiB | ÷ gensim "
             "| analogy % | Δ points | WS-353 | Δ |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        def ratio(key, fmt="{:.2f}", row=r):
            return fmt.format(row[key]) if key in row else ""

        lines.append(f"| {r['system']} | {r['threads']} | {r['words_per_sec']:,.0f} | {ratio('speed_ratio')} | "
                     f"{r['total_words_per_sec']:,.0f} | {ratio('total_ratio')} | {r['max_rss_mib']:.0f} | "
                     f"{ratio('rss_ratio')} | {100 * r['analogy']:.1f} | {ratio('analogy_points', '{:+.1f}')} | "
                     f"{r['ws353']:.3f} | {ratio('ws353_delta', '{:+.3f}')} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--systems", nargs="+", choices=SYSTEMS, default=list(SYSTEMS))
    ap.add_argument("--out-dir", default=str(Path(__file__).resolve().parent / "results"))
    ap.add_argument("--tag", default="")
    ap.add_argument("--child", choices=SYSTEMS, help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--vectors", help=argparse.SUPPRESS)
    ap.add_argument("--report", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        a.threads = a.threads[0]
        return child(a)
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-iterable-") as tmp:
        for seed in a.seeds:
            for t in a.threads:
                for s in a.systems:
                    runs.append(run_one(a, s, t, seed, tmp))
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    meta = {"date": _dt.date.today().isoformat(), "git": git_describe(), "machine": machine_info(),
            "seeds": a.seeds, "targets": TARGETS,
            "command": "python3 benchmarks/bench_iterable.py " + " ".join(sys.argv[1:] if argv is None else argv)}
    rows = summarize(runs, a.systems, a.threads)
    base = Path(a.out_dir) / f"iterable-{stamp}{'-' + a.tag if a.tag else ''}"
    base.with_suffix(".json").write_text(json.dumps({"meta": meta, "summary": rows, "runs": runs}, indent=1))
    base.with_suffix(".md").write_text(markdown(rows, meta))
    print(markdown(rows, meta))
    print(f"wrote {base}.md and .json")


if __name__ == "__main__":
    main()
