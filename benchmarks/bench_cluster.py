#!/usr/bin/env python3
"""Dask training over a real, capped network: N machines made of Linux network namespaces.

For each machine count N of ``--machines`` it builds a network (``netcluster.network``): a head
namespace running ``dask scheduler`` and the driver, and N worker namespaces running one ``dask
worker`` each (one thread), all joined to one bridge by veth pairs whose two ends are capped by
``tc`` (HTB on the egress of each end, so both directions; ``netcluster.links`` says why). For each
cap of ``--caps`` it runs ``w2v train CORPUS --scheduler tcp://10.77.0.1:8786 --report-json ... -o
... W2V_ARGS`` over the TCP stack between the namespaces, ``--repeats`` times.

Reported per run: each machine's bytes sent and received on its link (the veth counters), per round
where the report gives its rounds; per round: training, communication and merge seconds, bytes per
worker from the links and, where the report has them, from w2v. Then the round-time model of
``netcluster.model`` fitted to the runs, measured against fitted round times, the bytes per worker
per round at 4 and 8 machines, and the model's rounds for 32 and 64 machines at 1 Gbit/s + 0.2 ms
and 10 Gbit/s + 0.05 ms, each figure with its regime (this machine's cores are shared once the
workers outnumber them). Written to ``<out>/cluster-<timestamp>.{json,md}``.

Needs root and iproute2 (``ip``, ``tc``); a delay in a cap needs the kernel's ``netem``. Everything
it starts is stopped and removed when it ends, also on an error, Ctrl-C or SIGTERM; what a run
killed outright left is removed when the next one starts.

  sudo .venv/bin/python benchmarks/bench_cluster.py wiki17m.txt --machines 2 4 8 --caps 1gbit 50mbit \\
      --w2v-args "--epochs 1 --round-words 250000"
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import git_describe, machine_info
from netcluster.cluster import ClusterError, NetnsCluster
from netcluster.links import CapError, LinkCap
from netcluster.model import RunFigures, fit, regime
from netcluster.network import NetworkError, netem_missing, unavailable_reason
from netcluster.rounds import NO_ROUNDS, ReportError, link_bytes, link_totals, report_rounds, round_windows
from netcluster.tables import markdown

PREDICT_MACHINES = (32, 64)
PREDICT_CAPS = (LinkCap(1e9, 0.2e-3), LinkCap(10e9, 0.05e-3))
COMPARE_MACHINES = (4, 8)


def run_record(run, machines, cap, repeat):
    """One run as the results keep it: the report's totals, its rounds with their link bytes, each
    machine's link totals, and the steady-round figures (``None`` without per-round figures)."""
    report = run.report
    rounds, form = report_rounds(report)
    windows = round_windows(rounds, run.epoch_ends()) if rounds else None
    per_round = link_bytes(run.samples, windows) if windows else None
    workers = [f"m{k}" for k in range(1, machines + 1)]
    record = {
        "machines": machines, "cap": cap.label, "rate_bits": cap.rate_bits, "delay_seconds": cap.delay_seconds,
        "repeat": repeat, "driver_seconds": run.seconds, "train_seconds": report.get("train_seconds"),
        "words_per_sec": report.get("words_per_sec"), "corpus_words": report.get("corpus_words"),
        "vocab_size": report.get("vocab_size"), "epoch_loss": report.get("epoch_loss"),
        "round_words": report.get("round_words", (report.get("reproducibility") or {}).get("round_words")),
        "merge": report.get("merge"), "rounds_form": form, "link_windows": windows is not None,
        "link_totals": {role: {"sent": s, "received": r} for role, (s, r) in link_totals(run.samples).items()},
        "rounds": [_round_dict(r, per_round[i] if per_round else None) for i, r in enumerate(rounds)],
    }
    record["steady"] = _steady(rounds, per_round, workers, cap, machines) if per_round else None
    return record


def _round_dict(r, links):
    out = {"epoch": r.epoch, "round": r.round, "count": r.count, "workers": r.workers, "tokens": r.tokens,
           "wall_seconds": r.wall_seconds, "train_seconds": r.train, "merge_seconds": r.merge,
           "communication_seconds": r.communication, "report_sent_bytes": r.sent_bytes,
           "report_received_bytes": r.received_bytes}
    if links is not None:
        out["link_bytes"] = {role: {"sent": s, "received": v} for role, (s, v) in links.items()}
    return out


def _steady(rounds, per_round, workers, cap, machines):
    # medians over the rounds after the first (which also loads the kernels and the weights)
    keep = list(range(1, len(rounds))) or [0]
    med = lambda values: statistics.median(values)  # noqa: E731
    busiest = med([max(sum(per_round[i][w]) for w in workers) for i in keep])
    figures = RunFigures(machines=machines, rate_bytes=cap.bytes_per_second, delay_seconds=cap.delay_seconds,
                         rounds=sum(rounds[i].count for i in keep), wall=med([rounds[i].wall_seconds for i in keep]),
                         train=med([rounds[i].train for i in keep]), merge=med([rounds[i].merge for i in keep]),
                         communication=med([rounds[i].communication for i in keep]), busiest_link=busiest)
    out = dict(vars(figures))
    out["worker_link_sent"] = med([statistics.mean(per_round[i][w][0] for w in workers) for i in keep])
    out["worker_link_received"] = med([statistics.mean(per_round[i][w][1] for w in workers) for i in keep])
    out["head_link"] = med([sum(per_round[i]["head"]) for i in keep])
    for side in ("sent", "received"):
        values = [getattr(rounds[i], f"{side}_bytes") for i in keep]
        out[f"worker_report_{side}"] = med([statistics.mean(v) for v in values]) if all(values) else None
    return out


def analyse(runs, cores):
    """The fitted model, each run's fitted round time and regime, the 4-vs-8 bytes and the predictions."""
    steady = [r for r in runs if r["steady"]]
    if not steady:
        return None
    figures = [RunFigures(**{k: r["steady"][k] for k in RunFigures.__dataclass_fields__}) for r in steady]
    model = fit(figures, cores)
    for r, f in zip(steady, figures):
        share = model.share(f.machines)
        fitted = model.terms(f.machines, f.rate_bytes, f.delay_seconds)["round"]
        r["steady"].update(fitted=fitted, error=fitted / f.wall - 1,
                           regime=regime(f.train, f.busiest_link / (model.eta * f.rate_bytes), f.wall, share))
    predictions = []
    for n in PREDICT_MACHINES:
        for cap in PREDICT_CAPS:
            terms = model.terms(n, cap.bytes_per_second, cap.delay_seconds, share=1.0)
            predictions.append({"machines": n, "cap": cap.label, **terms,
                                "regime": regime(terms["train"], terms["link"], terms["round"])})
    return {"model": vars(model), "predictions": predictions, "bytes_per_worker": _bytes_per_worker(steady)}


def _bytes_per_worker(steady):
    # per machine count of COMPARE_MACHINES: medians over runs of the per-worker bytes per round
    out = {}
    for n in COMPARE_MACHINES:
        mine = [r["steady"] for r in steady if r["machines"] == n]
        if mine:
            out[n] = {k: statistics.median(s[k] for s in mine) if all(s[k] is not None for s in mine) else None
                      for k in ("worker_link_sent", "worker_link_received", "worker_report_sent",
                                "worker_report_received", "busiest_link")}
    return out


def run_all(args, caps, run_root, say):
    """Every run of the grid (machines x caps x repeats), each cluster built and removed in turn."""
    runs = []
    for machines in args.machines:
        say(f"{machines} worker machines: starting the cluster ...")
        with NetnsCluster(machines, caps[0], run_root / f"n{machines}", start_seconds=args.start_timeout) as cl:
            for cap in caps:
                cl.set_cap(cap)
                for repeat in range(args.repeats):
                    run = cl.train(args.corpus, shlex.split(args.w2v_args), timeout=args.timeout)
                    record = run_record(run, machines, cap, repeat)
                    runs.append(record)
                    say(_run_line(record))
    return runs


def _run_line(r):
    s = r["steady"]
    rounds = (f"{s['rounds']} steady rounds of {s['wall']:.2f} s (train {s['train']:.2f}, merge {s['merge']:.2f}, "
              f"communication {s['communication']:.2f}), busiest link {s['busiest_link'] / 1e6:.2f} MB/round"
              if s else NO_ROUNDS if not r["rounds_form"] else "no round windows (no epoch lines seen)")
    return f"  {r['machines']} machines, {r['cap']}, repeat {r['repeat'] + 1}: {r['driver_seconds']:.1f} s; {rounds}"


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", help="the corpus (read by the workers at this path)")
    ap.add_argument("--machines", type=int, nargs="+", default=[2, 4, 8], help="worker machine counts")
    ap.add_argument("--caps", nargs="+", default=["1gbit", "50mbit"],
                    help="link caps, RATE[:DELAY] (1gbit, 100mbit, 10gbit:0.05ms)")
    ap.add_argument("--w2v-args", default="--epochs 1", help="more `w2v train` options, one string")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds one training run may take")
    ap.add_argument("--start-timeout", type=float, default=180.0, help="seconds the scheduler, then the "
                    "workers, may take to come up")
    ap.add_argument("--out", default=str(HERE / "results"))
    return ap.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    say = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    try:
        caps = [LinkCap.parse(c) for c in args.caps]
        reason = unavailable_reason()
        if reason is None and any(c.delay_seconds for c in caps):
            reason = netem_missing()
        if reason:
            raise NetworkError(reason)
        args.corpus = os.path.abspath(args.corpus)
        with tempfile.TemporaryDirectory(prefix="w2v-cluster-") as tmp:
            runs = run_all(args, caps, Path(tmp), say)
    except (CapError, NetworkError, ClusterError, ReportError) as exc:
        say(f"Error: {exc}")
        return 1
    except KeyboardInterrupt:
        say("Error: interrupted; the cluster was removed")
        return 130
    machine = machine_info()
    res = {"corpus": args.corpus, "w2v_args": args.w2v_args, "caps": [c.label for c in caps],
           "machines": args.machines, "repeats": args.repeats, "machine": machine, "commit": git_describe(),
           "runs": runs, "analysis": analyse(runs, machine.get("logical_cpus") or os.cpu_count())}
    md = markdown(res)
    print(md)
    os.makedirs(args.out, exist_ok=True)
    base = Path(args.out) / f"cluster-{time.strftime('%Y%m%d-%H%M%S')}"
    base.with_suffix(".json").write_text(json.dumps(res, indent=2) + "\n")
    base.with_suffix(".md").write_text(md)
    say(f"wrote {base}.json and {base}.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
