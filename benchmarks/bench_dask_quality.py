#!/usr/bin/env python3
"""Dask quality table: the vectors of W workers against one process, the old merge beside the default one.

For each seed, on one corpus with the same settings (skip-gram defaults:
dim 100, window 5, negative 5, sample 1e-3, min_count 5; ``--epochs``):

* ``one process, 2 threads`` and ``one process, 1 thread``: ``Word2Vec(threads=T).train(corpus)``, what
  ``w2v train CORPUS --threads T`` runs;
* ``dask W``: a ``LocalCluster`` of W processes of 1 thread, ``Word2Vec(threads=1).train(corpus, client=...)``
  with the defaults (the rounds chosen from the corpus and the workers, the ``scaled`` merge by
  ranges), what ``w2v train CORPUS --dask-workers W --threads 1`` runs;
* ``dask W, old merge``: the same cluster with ``merge="mean", merge_ranges=1`` (every lane at W times the
  learning rate, one merge task) and ``round_words = corpus tokens / (4 W)`` (four rounds per epoch, the
  rule the README gave with that merge).

Every run is scored as ``w2v eval`` scores it: the bundled Google analogies
(``restrict_vocab=300000``, case-insensitive, 3CosAdd), WS-353 and SimLex-999
(Spearman).  The table gives medians over the seeds; the analogy column also
gives the ratio to the median of ``one process, 2 threads`` over the same seeds.

Each finished run is appended to ``<out>/bench_dask_quality-<name>.jsonl`` at once;
``--resume FILE.jsonl`` skips the runs that file holds, so a table of hours
can be continued.  The end writes ``<out>/bench_dask_quality-<name>.{json,md}``.
The quality of a seed is deterministic for a given worker count, so the
figures hold on a loaded machine; the times are those of this machine at that
load and compare nothing.

The issue's table (hours on a 2-core machine)::

    python3 benchmarks/bench_dask_quality.py /work/bench-data/wiki17m.txt --epochs 1 \\
        --workers 1 2 4 8 16 32 --seeds 1 2 3 --name wiki17m-1ep
    python3 benchmarks/bench_dask_quality.py /work/bench-data/wiki69m.txt --epochs 3 \\
        --workers 1 8 32 --seeds 1 2 3 --name wiki69m-3ep

A plumbing check on a slice::

    head -c 3000000 /work/bench-data/wiki17m.txt > /tmp/w3.txt
    python3 benchmarks/bench_dask_quality.py /tmp/w3.txt --workers 1 2 --seeds 1 --name check
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from common import EVAL_DIR, git_describe, machine_info  # noqa: E402

ONE_PROCESS = ("one process, 2 threads", "one process, 1 thread")
REFERENCE = ONE_PROCESS[0]
SETTINGS = dict(dim=100, model="sg", window=5, negative=5, sample=1e-3, min_count=5)


def evaluate(model):
    """``w2v eval``'s figures for ``model``: analogy accuracy, WS-353 and SimLex-999 Spearman."""
    kv = model.wv
    out = {"analogy": float(kv.evaluate_word_analogies(str(EVAL_DIR / "questions-words.txt"),
                                                       restrict_vocab=300000, case_insensitive=True)[0])}
    for key, name in (("ws353", "wordsim353.tsv"), ("simlex", "simlex999.txt")):
        out[key] = float(kv.evaluate_word_pairs(str(EVAL_DIR / name), restrict_vocab=300000,
                                                case_insensitive=True)[1][0])
    return out


def one_process(corpus, epochs, seed, threads):
    from w2v import Word2Vec
    t0 = time.perf_counter()
    m = Word2Vec(threads=threads, seed=seed, epochs=epochs, **SETTINGS).train(corpus)
    run = {"seconds": time.perf_counter() - t0, "corpus_tokens": m.corpus_tokens, "vocab_size": len(m.vocab),
           "epoch_loss": m.last_train.epoch_loss, **evaluate(m)}
    m.close()
    return run


def on_dask(corpus, epochs, seed, client, workers, old_tokens=None):
    """A Dask run with the defaults, or with the old merge where ``old_tokens`` (the corpus' tokens) is given."""
    import warnings

    from w2v import Word2Vec
    from w2v.distributed import RoundWordsWarning
    m = Word2Vec(threads=1, seed=seed, epochs=epochs, **SETTINGS)
    extra = {}
    if old_tokens:
        extra = dict(merge="mean", merge_ranges=1, round_words=max(1, old_tokens // (4 * workers)))
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoundWordsWarning)   # the old rule's rounds are meant
        m.train(corpus, client=client, **extra)
    seconds = time.perf_counter() - t0
    d = m.last_train.details["distributed"]
    log = d["log"]
    run = {"seconds": seconds, "corpus_tokens": m.corpus_tokens, "vocab_size": len(m.vocab),
           "epoch_loss": m.last_train.epoch_loss, "merge": d["merge"], "merge_ranges": d["merge_ranges"],
           "round_words": d["round_words"], "rounds_per_epoch": d["rounds_per_epoch"], "fallbacks": d["fallbacks"],
           "sent_bytes_per_worker_round": statistics.median(max(x["sent_bytes"]) for x in log) if log else 0,
           "received_bytes_per_worker_round": statistics.median(max(x["received_bytes"]) for x in log) if log else 0,
           **evaluate(m)}
    m.close()
    return run


def summarize(runs):
    """Medians per system (and worker count) over the seeds; analogy also as a ratio to the reference."""
    groups = {}
    for r in runs:
        groups.setdefault((r["system"], r.get("workers", 0)), []).append(r)
    ref = {r["seed"]: r["analogy"] for r in runs if r["system"] == REFERENCE}
    out = []
    for (system, workers), rs in groups.items():
        row = {"system": system, "workers": workers, "seeds": sorted(r["seed"] for r in rs)}
        for k in ("analogy", "ws353", "simlex", "seconds"):
            row[k] = statistics.median(r[k] for r in rs)
        same = [r for r in rs if r["seed"] in ref]
        if same and ref:
            row["analogy_vs_reference"] = row["analogy"] / statistics.median(ref[r["seed"]] for r in same)
        for k in ("round_words", "rounds_per_epoch", "merge"):
            if k in rs[0]:
                row[k] = rs[0][k]
        out.append(row)
    order = {s: i for i, s in enumerate(ONE_PROCESS)}
    out.sort(key=lambda r: (order.get(r["system"], 2), r["workers"], r["system"]))
    return out


def markdown(res):
    s = res["settings"]
    ref = next((r for r in res["summary"] if r["system"] == REFERENCE), None)
    lines = [f"# bench_dask_quality: {res['corpus']} ({res.get('corpus_tokens', 0):,} tokens), {s['epochs']} "
             f"epoch(s), seeds {', '.join(map(str, res['seeds']))}", "",
             f"commit {res['commit']}; {res['machine'].get('cpu_model')}, {res['machine'].get('logical_cpus')} "
             f"logical CPUs; medians over the seeds; scored as `w2v eval` (analogies restrict_vocab 300000)", "",
             "| system | workers | round words | rounds/epoch | analogy % | vs one process | WS-353 | Δ WS-353 "
             "| SimLex | time s |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in res["summary"]:
        vs = f"{100 * r['analogy_vs_reference']:.0f}%" if "analogy_vs_reference" in r else ""
        dws = f"{r['ws353'] - ref['ws353']:+.3f}" if ref else ""
        lines.append(f"| {r['system']} | {r['workers'] or ''} | {r.get('round_words', '') or ''} | "
                     f"{r.get('rounds_per_epoch', '') or ''} | {100 * r['analogy']:.2f} | {vs} | {r['ws353']:.3f} | "
                     f"{dws} | {r['simlex']:.3f} | {r['seconds']:.0f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--no-old", action="store_true", help="leave out the old merge")
    ap.add_argument("--one-process-threads", type=int, nargs="+", choices=(2, 1), default=[2, 1],
                    help="the one-process runs (2: the reference, 1)")
    ap.add_argument("--name", default=time.strftime("%Y%m%d-%H%M%S"))
    ap.add_argument("--resume", default=None, help="a .jsonl of an earlier run of this table: its runs are kept")
    ap.add_argument("--out", default=str(HERE / "results"))
    args = ap.parse_args(argv)

    import distributed

    corpus = os.path.abspath(args.corpus)
    os.makedirs(args.out, exist_ok=True)
    base = Path(args.out) / f"bench_dask_quality-{args.name}"
    log_path = Path(args.resume) if args.resume else base.with_suffix(".jsonl")
    runs = [json.loads(x) for x in log_path.read_text().splitlines() if x.strip()] if log_path.exists() else []
    done = {(r["system"], r.get("workers", 0), r["seed"]) for r in runs}

    def record(run):
        runs.append(run)
        with open(log_path, "a") as f:
            f.write(json.dumps(run) + "\n")
        print(f"  {run['system']} seed {run['seed']}: analogy {100 * run['analogy']:.2f}%, "
              f"WS-353 {run['ws353']:.3f}, SimLex {run['simlex']:.3f} ({run['seconds']:.0f}s)",
              file=sys.stderr, flush=True)

    for seed in args.seeds:
        for threads, system in zip((2, 1), ONE_PROCESS):
            if threads in args.one_process_threads and (system, 0, seed) not in done:
                record({"system": system, "workers": 0, "seed": seed,
                        **one_process(corpus, args.epochs, seed, threads)})
    for workers in args.workers:
        systems = [(f"dask {workers}", False)] + ([] if args.no_old else [(f"dask {workers}, old merge", True)])
        todo = [(s, old, seed) for seed in args.seeds for s, old in systems if (s, workers, seed) not in done]
        if not todo:
            continue
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=":0", silence_logs=logging.CRITICAL) as cluster, \
                distributed.Client(cluster, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=300)
            for system, old, seed in todo:
                print(f"[{system}] seed {seed} ...", file=sys.stderr, flush=True)
                tokens = runs[0]["corpus_tokens"] if old else None   # the one-process runs counted them
                record({"system": system, "workers": workers, "seed": seed,
                        **on_dask(corpus, args.epochs, seed, client, workers, tokens)})
    res = {"corpus": corpus, "corpus_tokens": runs[0]["corpus_tokens"] if runs else 0,
           "settings": dict(SETTINGS, epochs=args.epochs), "seeds": args.seeds, "workers": args.workers,
           "machine": machine_info(), "commit": git_describe(), "runs": runs, "summary": summarize(runs)}
    md = markdown(res)
    print(md)
    base.with_suffix(".json").write_text(json.dumps(res, indent=2) + "\n")
    base.with_suffix(".md").write_text(md)
    print(f"wrote {base}.json, {base}.md and {log_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
