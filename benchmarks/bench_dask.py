#!/usr/bin/env python3
"""Dask benchmark: N local worker processes x T threads against single-process w2v.

Runs, with the same settings (skip-gram defaults: dim 100, window 5,
negative 5, sample 1e-3, min_count 5, 5 epochs):

* ``single``   ``Word2Vec(threads=--single-threads).train(corpus)`` in this process;
* ``dask``     a ``LocalCluster`` of ``--workers`` processes x ``--threads-per-worker``
               threads (started before the clock, its start-up reported apart), then
               ``Word2Vec().train(corpus, client=client, round_words=R)`` for each
               ``--round-words`` value.

Reported per run: training words/s (raw corpus tokens x epochs / training
seconds, the definition of ``bench_train.py`` and ``w2v train``), wall time
(vocabulary + training), bytes sent per round (workers -> driver changed rows
and driver -> workers published rows, both summed over the workers), rows
changed, the mean round time split into training / merging / the rest, and
the analogy accuracy (Google analogies, restrict_vocab=30000, as
``bench_train.py``) and WS-353 Spearman.

From the measured rounds it also prints the scaling model of the README:
the time of a round on N machines of one worker each over a 1 Gbit/s and a
10 Gbit/s network, where the driver's link carries every worker's rows::

    T(N) = t_train + t_other + N * max(b_up, b_down) / bandwidth + N * t_merge / W
    speed-up(N) = N * t_train / T(N)

(``b_up``/``b_down``: bytes one worker sends / receives per round, i.e. rows
changed x (dim x 2 + 8): int16 entries, a float32 scale and an int32 index per row; ``W``: workers of the measurement.)

With ``--repeats R`` the single run and the Dask runs are repeated R times,
interleaved (single, dask round sizes..., single, ...), and the table shows
medians; "vs single" is the median over the repeats of the Dask run's words/s
divided by the single run's of the same repeat.

Results: a markdown table on stdout and ``<out>/bench_dask-<timestamp>.{json,md}``.

Plumbing test on a slice (the real run uses the 17M-token wiki slice):
  head -c 5000000 /work/bench-data/wiki17m.txt > /tmp/w5.txt
  python3 benchmarks/bench_dask.py /tmp/w5.txt --epochs 1 --round-words 200000
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from common import EVAL_DIR, git_describe, machine_info  # noqa: E402

DEFAULT_CORPUS = "/work/bench-data/wiki17m.txt"
NETWORKS = {"1 Gbit/s": 125e6, "10 Gbit/s": 1.25e9}
SCALE_N = (1, 2, 4, 8, 16, 32)


def evaluate(model):
    from w2v.vectors.evaluate import evaluate_word_analogies, evaluate_word_pairs
    acc = evaluate_word_analogies(model.wv, EVAL_DIR / "questions-words.txt", restrict_vocab=30000)[0]
    rho = evaluate_word_pairs(model.wv, EVAL_DIR / "wordsim353.tsv")[1][0]
    return {"analogy": float(acc), "ws353": float(rho)}


def run_single(corpus, settings, threads):
    from w2v import Word2Vec
    t0 = time.perf_counter()
    m = Word2Vec(threads=threads, **settings).train(corpus)
    wall = time.perf_counter() - t0
    tr = m.last_train
    out = {"system": f"single --threads {threads}", "wall_seconds": wall,
           "vocab_seconds": m.timings["vocab_seconds"], "train_seconds": tr.seconds,
           "words_per_sec": m.corpus_tokens * settings["epochs"] / tr.seconds,
           "corpus_tokens": m.corpus_tokens, "vocab_size": len(m.vocab), "epoch_loss": tr.epoch_loss}
    out.update(evaluate(m))
    m.close()
    return out


def run_dask(corpus, settings, client, workers, tpw, round_words, merge):
    from w2v import Word2Vec
    t0 = time.perf_counter()
    m = Word2Vec(**settings).train(corpus, client=client, round_words=round_words, merge=merge)
    wall = time.perf_counter() - t0
    tr = m.last_train
    d = {k: v for k, v in tr.details["distributed"].items() if k != "log"}
    log = tr.details["distributed"]["log"]
    steady = log[1:] or log          # the first round also loads the kernels in every worker
    mean = lambda key: sum(x[key] for x in steady) / len(steady)  # noqa: E731
    out = {"system": f"dask {workers}x{tpw}", "round_words": round_words, "merge": merge,
           "wall_seconds": wall, "vocab_seconds": m.timings["vocab_seconds"], "train_seconds": tr.seconds,
           "words_per_sec": m.corpus_tokens * settings["epochs"] / tr.seconds,
           "corpus_tokens": m.corpus_tokens, "vocab_size": len(m.vocab), "epoch_loss": tr.epoch_loss,
           "rounds": d["rounds"], "rounds_per_epoch": d["rounds_per_epoch"],
           "bytes_up_per_round": mean("bytes_up"), "bytes_down_per_round": mean("bytes_down"),
           "bytes_per_round": mean("bytes_up") + mean("bytes_down"),
           "rows_changed_per_round": [sum(x["rows"][i] for x in steady) / len(steady) for i in range(3)],
           "round_seconds": mean("seconds"), "round_train_seconds": mean("train_seconds"),
           "round_merge_seconds": mean("merge_seconds"),
           "first_round_seconds": log[0]["seconds"] if log else None,
           "fallbacks": d["fallbacks"], "dim": settings["dim"], "workers": workers}
    out["round_other_seconds"] = out["round_seconds"] - out["round_train_seconds"] - out["round_merge_seconds"]
    out.update(evaluate(m))
    m.close()
    return out


def scaling(run):
    """Projected round time and speed-up on N one-worker machines (see the module docstring)."""
    w = run["workers"]
    b_up = run["bytes_up_per_round"] / w
    b_down = run["bytes_down_per_round"] / w
    t_train, t_merge, t_other = run["round_train_seconds"], run["round_merge_seconds"], run["round_other_seconds"]
    table = {}
    for name, bw in NETWORKS.items():
        rows = []
        for n in SCALE_N:
            comm = n * max(b_up, b_down) / bw
            t = t_train + max(t_other, 0.0) + comm + n * t_merge / w
            rows.append({"machines": n, "round_seconds": t, "comm_seconds": comm,
                         "speedup": n * t_train / t})
        table[name] = rows
    return {"bytes_up_per_worker": b_up, "bytes_down_per_worker": b_down, "networks": table}


MEDIAN_KEYS = ("words_per_sec", "wall_seconds", "vocab_seconds", "train_seconds", "bytes_up_per_round",
               "bytes_down_per_round", "bytes_per_round", "round_seconds", "round_train_seconds",
               "round_merge_seconds", "round_other_seconds", "first_round_seconds", "analogy", "ws353")


def summarize(runs):
    """Median over repeats per system/round size; ``vs_single``: median of per-repeat ratios."""
    import statistics
    singles = {r["repeat"]: r for r in runs if r["system"].startswith("single")}
    groups = {}
    for r in runs:
        groups.setdefault((r["system"], r.get("round_words")), []).append(r)
    out = []
    for rs in groups.values():
        s = dict(rs[0])
        for k in MEDIAN_KEYS:
            vals = [r[k] for r in rs if r.get(k) is not None]
            if vals:
                s[k] = statistics.median(vals)
        ratios = [r["words_per_sec"] / singles[r["repeat"]]["words_per_sec"] for r in rs if r["repeat"] in singles]
        s["vs_single"] = statistics.median(ratios) if ratios else None
        s["vs_single_runs"] = ratios
        s["analogy_runs"] = [r["analogy"] for r in rs]
        s["words_per_sec_runs"] = [r["words_per_sec"] for r in rs]
        s["repeats"] = len(rs)
        out.append(s)
    return out


def markdown(res):
    lines = [f"# bench_dask: {res['corpus']} ({res['corpus_tokens']:,} tokens, {res['settings']['epochs']} epochs)",
             "", f"machine: {res['machine'].get('cpu_model')}, {res['machine'].get('logical_cpus')} logical CPUs, "
             f"load {res['machine'].get('loadavg')}; commit {res['commit']}; cluster start-up "
             f"{res.get('cluster_start_seconds', 0):.1f}s; medians of {res.get('repeats', 1)} interleaved "
             "repeat(s), vs single = median of the per-repeat ratios", "",
             "| system | round words | rounds/epoch | words/s | vs single | wall s | train s | MB/round (up+down) "
             "| round s (train/merge/other) | analogy | WS-353 |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in res["summary"]:
        rel = f"{r['vs_single']:.2f}x" if r.get("vs_single") else ""
        if "round_words" in r:
            extra = (f"{r['round_words']:,} | {r['rounds_per_epoch']} | ", f"{r['bytes_per_round'] / 1e6:.1f} | "
                     f"{r['round_seconds']:.2f} ({r['round_train_seconds']:.2f}/{r['round_merge_seconds']:.2f}/"
                     f"{r['round_other_seconds']:.2f}) | ")
        else:
            extra = ("- | - | ", "- | - | ")
        lines.append(f"| {r['system']} | {extra[0]}{r['words_per_sec'] / 1e3:.0f}k | {rel} | {r['wall_seconds']:.1f} | "
                     f"{r['train_seconds']:.1f} | {extra[1]}{100 * r['analogy']:.2f}% | {r['ws353']:.3f} |")
    for r in res["summary"]:
        if "scaling" not in r:
            continue
        sc = r["scaling"]
        lines += ["", f"Scaling model from `{r['system']}`, round_words {r['round_words']:,}: per worker and round "
                  f"{sc['bytes_up_per_worker'] / 1e6:.1f} MB up, {sc['bytes_down_per_worker'] / 1e6:.1f} MB down; "
                  f"t_train {r['round_train_seconds']:.2f}s, t_merge {r['round_merge_seconds']:.2f}s "
                  f"({r['workers']} workers), t_other {r['round_other_seconds']:.2f}s", "",
                  "| machines | " + " | ".join(f"{k}: round s / speed-up" for k in sc["networks"]) + " |",
                  "|---|" + "---|" * len(sc["networks"])]
        for i, n in enumerate(SCALE_N):
            cells = [f"{rows[i]['round_seconds']:.2f} / {rows[i]['speedup']:.1f}x" for rows in sc["networks"].values()]
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", nargs="?", default=DEFAULT_CORPUS)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--dim", type=int, default=100)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads-per-worker", type=int, default=1)
    ap.add_argument("--single-threads", type=int, default=2)
    ap.add_argument("--round-words", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--merge", default="mean", choices=["mean", "touched"])
    ap.add_argument("--no-single", action="store_true", help="skip the single-process baseline")
    ap.add_argument("--repeats", type=int, default=1, help="interleaved repeats (medians are reported)")
    ap.add_argument("--out", default=str(HERE / "results"))
    args = ap.parse_args(argv)

    import distributed

    corpus = os.path.abspath(args.corpus)
    settings = dict(dim=args.dim, epochs=args.epochs, model="sg", window=5, negative=5, sample=1e-3,
                    min_count=5, seed=1)
    res = {"corpus": corpus, "settings": settings, "machine": machine_info(), "commit": git_describe(),
           "workers": args.workers, "threads_per_worker": args.threads_per_worker, "repeats": args.repeats,
           "runs": []}

    def log_run(run):
        print(f"  {run['system']} {run.get('round_words') or ''}: {run['words_per_sec'] / 1e3:.0f}k words/s, "
              f"analogy {100 * run['analogy']:.2f}%, WS-353 {run['ws353']:.3f}", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    with distributed.LocalCluster(n_workers=args.workers, threads_per_worker=args.threads_per_worker,
                                  processes=True, dashboard_address=":0", silence_logs=logging.ERROR) as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        client.wait_for_workers(args.workers, timeout=120)
        res["cluster_start_seconds"] = time.perf_counter() - t0
        for rep in range(args.repeats):
            if not args.no_single:
                print(f"[{rep + 1}/{args.repeats}] single-process, {args.single_threads} threads ...",
                      file=sys.stderr, flush=True)
                run = run_single(corpus, settings, args.single_threads)
                run["repeat"] = rep
                res["runs"].append(run)
                log_run(run)
            for rw in args.round_words:
                print(f"[{rep + 1}/{args.repeats}] dask {args.workers}x{args.threads_per_worker}, "
                      f"round_words {rw:,} ...", file=sys.stderr, flush=True)
                run = run_dask(corpus, settings, client, args.workers, args.threads_per_worker, rw, args.merge)
                run["repeat"] = rep
                res["runs"].append(run)
                log_run(run)
    res["summary"] = summarize(res["runs"])
    for r in res["summary"]:
        if "round_words" in r:
            r["scaling"] = scaling(r)
    res["corpus_tokens"] = res["runs"][0]["corpus_tokens"]
    md = markdown(res)
    print(md)
    os.makedirs(args.out, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(args.out) / f"bench_dask-{stamp}"
    base.with_suffix(".json").write_text(json.dumps(res, indent=2) + "\n")
    base.with_suffix(".md").write_text(md)
    print(f"wrote {base}.json and {base}.md", file=sys.stderr)


if __name__ == "__main__":
    main()
