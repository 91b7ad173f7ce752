"""The namespace cluster of ``benchmarks/bench_cluster.py``: report parsing, the model fit, and small
runs over capped links that must leave no namespace, link or process behind."""
import json
import lzma
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from .conftest import ROOT

BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH))

import bench_cluster  # noqa: E402
from netcluster.cluster import ClusterError, NetnsCluster, TrainRun  # noqa: E402
from netcluster.links import CapError, LinkCap  # noqa: E402
from netcluster.model import RunFigures, fit  # noqa: E402
from netcluster.network import (Network, NetworkError, namespace_pids, netem_missing, present,  # noqa: E402
                                sweep, unavailable_reason)
from netcluster.processes import start_time  # noqa: E402
from netcluster.rounds import (NO_ROUNDS, ReportError, link_bytes, report_rounds,  # noqa: E402
                               round_windows)
from netcluster.tables import markdown  # noqa: E402

BUNDLED = ROOT / "data" / "corpus-small.txt.xz"
TRAIN_ARGS = ["--epochs", "1", "--dim", "16", "--min-count", "3", "--round-words", "20000"]
RUN_SECONDS = 300   # a hang guard: the workers' first run may compile the kernels


def _entry(epoch, rnd, wall, train, merge, sent, received):
    return {"epoch": epoch, "round": rnd, "workers": len(train), "tokens": 1000, "wall_seconds": wall,
            "train_seconds": train, "merge_seconds": merge, "sent_bytes": sent, "received_bytes": received}


def test_rounds_of_a_report_in_the_list_form():
    report = {"round_words": 1000, "merge": "mean", "rounds": [
        _entry(0, 0, 2.0, [0.5, 0.75], [0.25, 0.125], [100, 200], [300, 400]),
        _entry(0, 1, 1.0, [0.5, 0.625], [0.5], [10, 20], [30, 40])]}
    rounds, form = report_rounds(report)
    assert form == "list"
    assert [(r.epoch, r.round, r.workers, r.tokens) for r in rounds] == [(0, 0, 2, 1000), (0, 1, 2, 1000)]
    assert (rounds[0].train, rounds[0].merge, rounds[0].communication) == (0.75, 0.25, 1.0)
    assert rounds[1].communication == 0.0   # 1.0 - 0.625 - 0.5 is below 0
    assert rounds[0].sent_bytes == (100, 200) and rounds[1].received_bytes == (30, 40)


def test_rounds_of_a_report_in_the_table_form():
    report = {"rounds": {"columns": ["epoch", "round", "rounds", "seconds", "merge_seconds", "train_seconds"],
                         "rows": [[1, 1, 1, 0.5, 0.01, 0.25], [1, 2, 3, 0.4, 0.02, 0.2]]}}
    rounds, form = report_rounds(report)
    assert form == "table"
    assert [(r.round, r.count, r.wall_seconds, r.train, r.merge) for r in rounds] == [
        (1, 1, 0.5, 0.25, 0.01), (2, 3, 0.4, 0.2, 0.02)]
    assert rounds[1].sent_bytes is None and rounds[1].workers is None


def test_a_report_without_rounds_is_reported_as_such_not_refused():
    report = {"train_seconds": 1.0, "words_per_sec": 1e5, "corpus_words": 1000, "vocab_size": 10}
    assert report_rounds(report) == ([], None)
    samples = [(0.0, {"head": (0, 0), "m1": (0, 0)}), (1.0, {"head": (10, 20), "m1": (30, 40)})]
    record = bench_cluster.run_record(TrainRun(report, samples, [], 1.5, Path("v.bin")), 1, LinkCap(1e9), 0)
    assert record["steady"] is None and record["rounds"] == []
    assert record["link_totals"] == {"head": {"sent": 10, "received": 20}, "m1": {"sent": 30, "received": 40}}
    res = {"corpus": "c.txt", "w2v_args": "", "caps": ["1 Gbit/s"], "machine": {}, "commit": "x",
           "runs": [record], "analysis": bench_cluster.analyse([record], 2)}
    assert res["analysis"] is None
    assert NO_ROUNDS in markdown(res)


@pytest.mark.parametrize("rounds", [{"rows": [[1]]}, "many", [{"epoch": 0}], {"columns": ["epoch"], "rows": []}])
def test_rounds_in_no_known_form_are_a_report_error(rounds):
    with pytest.raises(ReportError, match="report rounds"):
        report_rounds({"rounds": rounds})


def test_round_windows_walk_back_from_each_epochs_end_and_take_the_counters_in_them():
    rounds, _ = report_rounds({"rounds": [_entry(1, 1, 2.0, [1], [0], [1], [1]), _entry(1, 2, 1.0, [1], [0], [1], [1]),
                                          _entry(2, 1, 0.5, [1], [0], [1], [1])]})
    assert round_windows(rounds, [100.0]) is None   # the second epoch's end is unknown
    windows = round_windows(rounds, [100.0, 200.0])
    assert windows == [(97.0, 99.0), (99.0, 100.0), (199.5, 200.0)]
    # a machine that sends 10 bytes/s and receives 3 bytes/s, sampled every 0.7 s
    times = np.arange(90.0, 210.0, 0.7)
    samples = [(t, {"m1": (10 * t, 3 * t)}) for t in times]
    got = link_bytes(samples, windows)
    assert [x for g in got for x in g["m1"]] == pytest.approx([20, 6, 10, 3, 5, 1.5])


def test_the_fit_recovers_the_model_that_made_the_rounds():
    cores, t_train, t_lat, eta, link, merge = 2, 1.5, 0.2, 0.8, (1e6, 4e6), (0.01, 0.02)
    runs = []
    for n in (2, 4, 8):
        for rate in (125e6, 6.25e6):
            b = link[0] + link[1] * n
            wall = t_train * max(1, n / cores) + t_lat + b / (eta * rate) + merge[0] + merge[1] * n
            runs.append(RunFigures(n, rate, 0.0, 5, wall, t_train * max(1, n / cores), merge[0] + merge[1] * n,
                                   0.0, b))
    model = fit(runs, cores)
    assert model.eta_fitted
    assert (model.t_train, model.t_lat, model.eta) == pytest.approx((t_train, t_lat, eta))
    assert model.link == pytest.approx(link) and model.merge == pytest.approx(merge)
    for r in runs:
        assert model.terms(r.machines, r.rate_bytes)["round"] == pytest.approx(r.wall)
    flat = [RunFigures(n, 125e6, 0.0, 5, 2.0, 1.0, 0.1, 0.0, 5e6) for n in (2, 4)]
    assert not fit(flat, cores=8).eta_fitted   # one L / C for every run: t_lat alone, eta = 1


def test_the_fit_never_gives_a_negative_latency():
    # rounds faster than their link term at eta = 1 would want t_lat < 0: the fit keeps it at 0
    runs = [RunFigures(n, rate, 0.0, 5, 0.5 * (1e6 * n) / rate, 0.0, 0.0, 0.0, 1e6 * n)
            for n in (2, 4) for rate in (1e6, 2e6)]
    model = fit(runs, cores=8)
    assert model.t_lat == 0.0 and model.eta == pytest.approx(2.0)


def _synthetic_run(machines, rate_per_worker):
    # a run of three 2 s rounds ending at t = 100, every worker link sending rate_per_worker bytes/s
    # and receiving half of it; w2v's report says each worker sent 1,000 and received 2,000 bytes
    roles = ["head"] + [f"m{k}" for k in range(1, machines + 1)]
    rounds = [_entry(1, r, 2.0, [0.5] * machines, [0.1], [1000] * machines, [2000] * machines) for r in (1, 2, 3)]
    samples = [(t, {role: (rate_per_worker * t, rate_per_worker * t / 2) for role in roles})
               for t in np.arange(90.0, 101.0, 0.05)]
    report = {"rounds": rounds, "round_words": 1000, "merge": "mean", "train_seconds": 6.0}
    return TrainRun(report, samples, [(100.0, "epoch 1: mean loss 3.0 over 10 examples")], 7.0, Path("v.bin"))


def test_runs_at_4_and_8_machines_give_the_bytes_per_worker_the_fit_and_the_predictions():
    cap = LinkCap.parse("100mbit")
    records = [bench_cluster.run_record(_synthetic_run(n, 1e5 * (1 + n / 40)), n, cap, 0) for n in (4, 8)]
    steady = records[0]["steady"]
    assert steady["rounds"] == 2 and steady["wall"] == 2.0 and steady["train"] == 0.5
    assert steady["worker_link_sent"] == pytest.approx(2 * 1.1e5) and steady["worker_report_received"] == 2000
    assert steady["busiest_link"] == pytest.approx(2 * 1.5 * 1.1e5)
    analysis = bench_cluster.analyse(records, cores=2)
    assert set(analysis["bytes_per_worker"]) == {4, 8}
    assert {(p["machines"], p["cap"]) for p in analysis["predictions"]} == {
        (32, "1 Gbit/s + 0.2 ms"), (32, "10 Gbit/s + 0.05 ms"), (64, "1 Gbit/s + 0.2 ms"), (64, "10 Gbit/s + 0.05 ms")}
    assert all(r["steady"]["regime"].startswith("CPU shared") for r in records)
    res = {"corpus": "c.txt", "w2v_args": "", "caps": [cap.label], "machine": {}, "commit": "x", "runs": records,
           "analysis": analysis}
    text = markdown(res)
    assert "8 machines against 4, bytes per worker per round: link sent +9%, link received +9%, w2v sent +0%" in text
    assert NO_ROUNDS not in text


def test_caps_parse_and_bad_ones_are_refused():
    assert LinkCap.parse("1gbit") == LinkCap(1e9, 0.0)
    assert LinkCap.parse("100mbit:0.2ms") == LinkCap(1e8, 2e-4)
    assert LinkCap.parse("10gbit:0.05ms").label == "10 Gbit/s + 0.05 ms"
    for bad in ("fast", "0mbit", "1gbit:soon", "1 gigabit"):
        with pytest.raises(CapError):
            LinkCap.parse(bad)


# ---------------------------------------------------------------------------- namespaces
@pytest.fixture(scope="session")
def namespaces():
    """Skips, with the reason, where capped namespaces cannot be made (not root, no ip/tc, no HTB)."""
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(reason)


@pytest.fixture(scope="module")
def tiny_corpus(tmp_path_factory):
    """The first 2,000 lines (~115k words) of the bundled corpus."""
    path = tmp_path_factory.mktemp("cluster") / "tiny.txt"
    with lzma.open(BUNDLED, "rt", encoding="utf-8") as src, open(path, "w", encoding="utf-8") as dst:
        for i, line in enumerate(src):
            if i >= 2000:
                break
            dst.write(line)
    return path


def _alive(processes):
    # those of [(pid, start time)] still running
    return [p for p, started in processes if start_time(p) == started]


def _htb_bytes(device, namespace=None):
    # bytes sent through the HTB class that caps device
    out = subprocess.run(["tc", *(["-n", namespace] if namespace else []), "-s", "class", "show", "dev", device],
                         capture_output=True, text=True, check=True).stdout
    return int(out.split("Sent ")[1].split()[0])


@pytest.mark.usefixtures("namespaces")
def test_a_small_run_trains_over_the_capped_links_and_leaves_nothing(tiny_corpus, tmp_path):
    cap = LinkCap.parse("50mbit")
    with NetnsCluster(2, cap, tmp_path / "run") as cluster:
        token, roles = cluster.network.token, cluster.network.roles
        processes = cluster.processes()
        run = cluster.train(str(tiny_corpus), TRAIN_ARGS, timeout=RUN_SECONDS)
        shaped = {role: (_htb_bytes(cluster.network.bridge_end(role)),
                         _htb_bytes("eth0", cluster.network.namespace(role))) for role in roles}
        assert len(present(token)["namespaces"]) == 3
    record = bench_cluster.run_record(run, 2, cap, 0)
    assert run.report["trained_words"] > 0 and len(run.report["epoch_loss"]) == 1
    with open(run.output, "rb") as f:
        assert int(f.readline().split()[0]) == run.report["vocab_size"]
    # every dask process listens in its own namespace, so the training traffic crossed the links: each
    # worker link carried more than one int16 copy of the input vectors each way (its trained rows
    # out, the others' in), and it went through the HTB classes at both ends of the link
    vectors = run.report["vocab_size"] * 16 * 2
    for role in ("m1", "m2"):
        sent, received = record["link_totals"][role]["sent"], record["link_totals"][role]["received"]
        assert sent > vectors and received > vectors, (role, sent, received)
        assert min(shaped[role]) > vectors   # through the caps of both ends
    assert record["rounds_form"] is not None and record["steady"] is not None
    assert all(sum(x["link_bytes"]["m1"].values()) > 0 for x in record["rounds"])
    assert present(token) == {"namespaces": [], "links": []}
    assert len(processes) >= 5 and not _alive(processes)


@pytest.mark.usefixtures("namespaces")
def test_a_run_whose_scheduler_is_killed_fails_and_leaves_nothing(tiny_corpus, tmp_path):
    def kill_scheduler(cluster, text):
        if text.startswith("vocabulary:"):
            cluster.kill("head")

    with pytest.raises(ClusterError, match="w2v train exited with status 1: Error: lost the connection"):
        with NetnsCluster(2, LinkCap.parse("50mbit"), tmp_path / "run") as cluster:
            token, processes = cluster.network.token, cluster.processes()
            cluster.train(str(tiny_corpus), TRAIN_ARGS, timeout=RUN_SECONDS, on_line=kill_scheduler)
    assert present(token) == {"namespaces": [], "links": []}
    assert not _alive(processes)


@pytest.mark.usefixtures("namespaces")
def test_a_cluster_that_does_not_come_up_in_time_is_an_error_and_leaves_nothing(tmp_path):
    cluster = NetnsCluster(1, LinkCap.parse("1gbit"), tmp_path / "run", start_seconds=0.2)
    with pytest.raises(ClusterError, match="dask scheduler not up after 0.2 s"):
        with cluster:
            pass
    assert present(cluster.network.token) == {"namespaces": [], "links": []}


HARNESS = """\
import json, sys, time
sys.path.insert(0, sys.argv[1])
from netcluster.cluster import NetnsCluster
from netcluster.links import LinkCap
with NetnsCluster(1, LinkCap(1e8), sys.argv[2]) as cluster:
    print(json.dumps([cluster.network.token, cluster.processes()]), flush=True)
    cluster.train(sys.argv[3], sys.argv[4:], timeout=300, on_line=lambda c, text: print(text, flush=True))
"""


@pytest.mark.usefixtures("namespaces")
@pytest.mark.parametrize("signum, status", [
    (signal.SIGTERM, 128 + signal.SIGTERM),
    pytest.param(signal.SIGINT, -signal.SIGINT, marks=pytest.mark.slow),   # Ctrl-C: KeyboardInterrupt
], ids=["SIGTERM", "SIGINT"])
def test_a_signal_to_the_harness_during_a_run_stops_and_removes_everything(tiny_corpus, tmp_path, signum, status):
    proc = subprocess.Popen([sys.executable, "-c", HARNESS, str(BENCH), str(tmp_path / "run"), str(tiny_corpus),
                             *TRAIN_ARGS, "--epochs", "20"], stdout=subprocess.PIPE, text=True)
    try:
        token, processes = json.loads(proc.stdout.readline())
        for line in proc.stdout:
            if line.startswith("vocabulary:"):
                break
        else:
            pytest.fail("the harness ended before the run built its vocabulary")
        assert present(token)["namespaces"] and len(_alive(processes)) == len(processes)   # the run is going
        proc.send_signal(signum)
        assert proc.wait(60) == status
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    assert present(token) == {"namespaces": [], "links": []}
    assert not _alive(processes)


LEFT = """\
import sys, time
sys.path.insert(0, sys.argv[1])
from netcluster.links import LinkCap
from netcluster.network import Network
net = Network(["head", "m1"]).build()
net.cap(LinkCap(1e8))
print(net.token, flush=True)
time.sleep(300)
"""


@pytest.mark.usefixtures("namespaces")
def test_what_a_killed_harness_left_is_swept_at_the_next_start():
    proc = subprocess.Popen([sys.executable, "-c", LEFT, str(BENCH)], stdout=subprocess.PIPE, text=True)
    try:
        token = proc.stdout.readline().strip()
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        proc.stdout.close()
    left = present(token)
    assert len(left["namespaces"]) == 2 and len(left["links"]) == 3
    # a process still running in a leftover namespace
    stray = subprocess.Popen(["ip", "netns", "exec", left["namespaces"][0], "sleep", "300"])
    try:
        deadline = time.monotonic() + 10
        while not namespace_pids(left["namespaces"][0]) and time.monotonic() < deadline:
            time.sleep(0.05)
        with Network(["head"]) as live:   # a live network of this process is not a leftover
            assert token in sweep()
            assert present(live.token)["namespaces"] == [f"w2vn-{live.token}-head"]
        assert stray.wait(10) == -signal.SIGKILL
    finally:
        if stray.poll() is None:
            stray.kill()
            stray.wait()
    assert present(token) == {"namespaces": [], "links": []}


@pytest.mark.usefixtures("namespaces")
def test_a_delay_needs_netem_in_the_kernel():
    missing = netem_missing()
    with Network(["head"]) as net:
        if missing:
            with pytest.raises(NetworkError, match="netem"):
                net.cap(LinkCap.parse("1gbit:0.2ms"))
        else:
            net.cap(LinkCap.parse("1gbit:0.2ms"))
            shown = subprocess.run(["tc", "qdisc", "show", "dev", net.bridge_end("head")], capture_output=True,
                                   text=True, check=True).stdout
            assert "netem" in shown and "delay 100us" in shown
    assert present(net.token) == {"namespaces": [], "links": []}
