"""The markdown of ``bench_cluster.py``'s results: runs, rounds, link totals, the model and its predictions."""
from __future__ import annotations

from .model import ROUND_TRIPS
from .rounds import NO_ROUNDS

MAX_ROUND_ROWS = 30   # rounds shown per run (the JSON keeps them all)


def _mb(x):
    return "-" if x is None else f"{x / 1e6:.2f}"


def markdown(res):
    """The results ``res`` of ``bench_cluster.main`` as markdown."""
    m = res["machine"]
    lines = [f"# bench_cluster: {res['corpus']}", "",
             f"`w2v train {res['w2v_args']}`; caps {', '.join(res['caps'])}; machine: {m.get('cpu_model')}, "
             f"{m.get('logical_cpus')} logical CPUs, load {m.get('loadavg')}; commit {res['commit']}.", "",
             "One head namespace (dask scheduler and the driver) and N worker namespaces (one `dask worker`, "
             "1 thread, each) on one bridge; every link capped both ways (HTB on the egress of both veth "
             "ends). Round figures are medians over the rounds after the first.", ""]
    lines += _runs_table(res)
    analysis = res["analysis"]
    if analysis:
        lines += _bytes_table(analysis) + _model_lines(analysis) + _predictions_table(analysis)
    lines += _links_table(res["runs"])
    for r in res["runs"]:
        lines += _rounds_table(r)
    return "\n".join(lines) + "\n"


def _runs_table(res):
    lines = ["## Runs", "", "| machines | cap | steady rounds | round s measured | fitted | error | train s | "
             "merge s | communication s | busiest link MB/round | regime |", "|---" * 11 + "|"]
    for r in res["runs"]:
        s = r["steady"]
        if not s:
            why = NO_ROUNDS if not r["rounds_form"] else "no round windows (no epoch lines seen)"
            lines.append(f"| {r['machines']} | {r['cap']} | {why} |" + " |" * 8)
            continue
        fitted = f"{s['fitted']:.2f} | {100 * s['error']:+.0f}%" if "fitted" in s else "- | -"
        lines.append(f"| {r['machines']} | {r['cap']} | {s['rounds']} | {s['wall']:.2f} | {fitted} | {s['train']:.2f} "
                     f"| {s['merge']:.3f} | {s['communication']:.2f} | {_mb(s['busiest_link'])} | "
                     f"{s.get('regime', '-')} |")
    return lines + [""]


def _bytes_table(analysis):
    per = analysis["bytes_per_worker"]
    lines = ["## Bytes per worker per round", "", "| machines | link sent MB | link received MB | w2v sent MB | "
             "w2v received MB | busiest link MB |", "|---|---|---|---|---|---|"]
    for n, b in sorted(per.items()):
        lines.append(f"| {n} | {_mb(b['worker_link_sent'])} | {_mb(b['worker_link_received'])} | "
                     f"{_mb(b['worker_report_sent'])} | {_mb(b['worker_report_received'])} | "
                     f"{_mb(b['busiest_link'])} |")
    if len(per) == 2:
        a, b = (per[n] for n in sorted(per))
        lines += ["", f"{max(per)} machines against {min(per)}, bytes per worker per round: " + ", ".join(
            f"{name} {100 * (b[k] / a[k] - 1):+.0f}%" for name, k in (
                ("link sent", "worker_link_sent"), ("link received", "worker_link_received"),
                ("w2v sent", "worker_report_sent"), ("w2v received", "worker_report_received")) if a[k] and b[k])]
    return lines + [""]


def _model_lines(analysis):
    md = analysis["model"]
    eta = f"eta = {md['eta']:.2f}" + ("" if md["eta_fitted"] else " (not separable from t_lat: set to 1)")
    return ["## Model", "", "`T(N, C) = t_train * s(N) + t_lat + L(N) / (eta * C) + t_merge(N)`, "
            "s(N) = max(1, N / cores) (benchmarks/netcluster/model.py):", "",
            f"t_train {md['t_train']:.3f} s, t_lat {md['t_lat']:.3f} s, {eta}, "
            f"L(N) = {md['link'][0] / 1e6:.3f} + {md['link'][1] / 1e6:.3f} N MB, "
            f"t_merge(N) = {md['merge'][0]:.4f} + {md['merge'][1]:.4f} N s; {md['cores']} cores.", ""]


def _predictions_table(analysis):
    lines = ["## Predictions, one core per machine", "",
             f"The delay adds {ROUND_TRIPS} round trips of 2 x the one-way delay per round (assumed, not fitted).",
             "", "| machines | link | round s | train | latency | link | merge | link MB | regime |",
             "|---|---|---|---|---|---|---|---|---|"]
    for p in analysis["predictions"]:
        lines.append(f"| {p['machines']} | {p['cap']} | {p['round']:.2f} | {p['train']:.2f} | {p['latency']:.3f} | "
                     f"{p['link']:.2f} | {p['merge']:.3f} | {_mb(p['link_bytes'])} | {p['regime']} |")
    return lines + [""]


def _links_table(runs):
    lines = ["## Link totals per run (MB sent / received)", "", "| machines | cap | repeat | head | workers |",
             "|---|---|---|---|---|"]
    for r in runs:
        t = r["link_totals"]
        workers = ", ".join(f"{role} {_mb(v['sent'])}/{_mb(v['received'])}" for role, v in t.items() if role != "head")
        lines.append(f"| {r['machines']} | {r['cap']} | {r['repeat'] + 1} | {_mb(t['head']['sent'])}/"
                     f"{_mb(t['head']['received'])} | {workers} |")
    return lines + [""]


def _rounds_table(r):
    head = f"### Rounds: {r['machines']} machines, {r['cap']}, repeat {r['repeat'] + 1}"
    if not r["rounds"]:
        return [head, "", NO_ROUNDS, ""]
    lines = [head, "", "| epoch | round | wall s | train s | merge s | communication s | worker links MB "
             "sent/received | w2v MB sent/received |", "|---|---|---|---|---|---|---|---|"]
    for x in r["rounds"][:MAX_ROUND_ROWS]:
        links = x.get("link_bytes")
        per_link = ", ".join(f"{_mb(v['sent'])}/{_mb(v['received'])}" for role, v in links.items()
                             if role != "head") if links else "-"
        w2v = (", ".join(f"{_mb(s)}/{_mb(v)}" for s, v in zip(x["report_sent_bytes"], x["report_received_bytes"]))
               if x["report_sent_bytes"] and x["report_received_bytes"] else "-")
        lines.append(f"| {x['epoch']} | {x['round']} | {x['wall_seconds']:.3f} | {x['train_seconds']:.3f} | "
                     f"{x['merge_seconds']:.3f} | {x['communication_seconds']:.3f} | {per_link} | {w2v} |")
    if len(r["rounds"]) > MAX_ROUND_ROWS:
        lines.append(f"\n({len(r['rounds']) - MAX_ROUND_ROWS} more rounds in the JSON)")
    return lines + [""]
