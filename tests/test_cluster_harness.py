"""The namespace cluster of ``benchmarks/bench_cluster.py``: report parsing, the model fit, and small
runs over capped links that must leave no namespace, link or process behind."""
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH))

from netcluster.links import CapError, LinkCap  # noqa: E402
from netcluster.network import (Network, NetworkError, namespace_pids, netem_missing, present,  # noqa: E402
                                sweep, unavailable_reason)

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
