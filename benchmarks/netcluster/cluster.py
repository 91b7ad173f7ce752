"""``dask scheduler``, ``dask worker`` and ``w2v train --scheduler`` on a network of namespaces.

The head machine runs the scheduler and the driver (``w2v train``); each worker machine runs one
``dask worker`` (one worker process under its nanny, ``--nthreads 1``), all from the interpreter's
own environment (the ``dask`` and ``w2v`` scripts beside ``sys.executable``). Workers read the
corpus at the driver's path: the namespaces share the file system.

A :class:`NetnsCluster` is a context manager. Leaving it (normally, on an exception, on Ctrl-C, or
on SIGTERM or SIGHUP, which it turns into ``SystemExit`` while it is open in the main thread) stops
the driver, the workers and the scheduler together (SIGTERM to each process group, SIGKILL to what
is left after :data:`STOP_GRACE_SECONDS`) and removes the namespaces, links and bridge; an
``atexit`` hook does the same if it was never left. Leftovers of a harness killed outright are
swept when the next one starts (:func:`netcluster.network.sweep`).
"""
from __future__ import annotations

import atexit
import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from .network import Network, namespace_pids, sweep
from .processes import ProcessGroup, start_time, stop_all

SCHEDULER_PORT = 8786
STOP_GRACE_SECONDS = 10
SAMPLE_SECONDS = 0.05          # link counters are read this often during a run
EPOCH_END = re.compile(r"^epoch (\d+): mean loss")
TEARDOWN_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

WAIT_FOR_WORKERS = """\
import sys
from distributed import Client
address, n, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
with Client(address, timeout=seconds, set_as_default=False) as client:
    client.wait_for_workers(n, timeout=seconds)
"""


class ClusterError(RuntimeError):
    """The cluster did not come up, or a training run failed or timed out (a one-line message)."""


@dataclasses.dataclass
class TrainRun:
    """What one ``w2v train`` run on the cluster gave.

    Attributes
    ----------
    report : dict
        The ``--report-json`` report.
    samples : list of (float, dict)
        ``(time.time(), {role: (bytes sent, bytes received)})``, every :data:`SAMPLE_SECONDS`
        from the driver's start to its end.
    lines : list of (float, str)
        The driver's output lines (progress updates split at ``\\r``) with the time each came.
    seconds : float
        The driver's wall time.
    output : pathlib.Path
        The vectors it wrote.
    """

    report: dict
    samples: list
    lines: list
    seconds: float
    output: Path

    def epoch_ends(self):
        """``time.time()`` of each ``epoch N: mean loss`` line, in order."""
        return [t for t, text in self.lines if EPOCH_END.match(text)]


class NetnsCluster:
    """A Dask scheduler and ``workers`` one-worker machines on capped links.

    Parameters
    ----------
    workers : int
        Worker machines (``m1`` ... ``mN``); the head machine comes on top.
    cap : netcluster.links.LinkCap
        The cap of every link (:meth:`set_cap` changes it).
    run_dir : pathlib.Path
        Logs, reports, vectors and the workers' local directories.
    start_seconds : float
        Bound on the wait for the scheduler, then for all the workers, to come up.
    subnet : str
        The first three octets of the private /24.
    """

    def __init__(self, workers, cap, run_dir, start_seconds=120.0, subnet="10.77.0"):
        if workers < 1:
            raise ClusterError(f"a cluster needs at least one worker machine (got {workers})")
        self.workers = [f"m{k}" for k in range(1, workers + 1)]
        self.network = Network(["head"] + self.workers, subnet=subnet)
        self.cap = cap
        self.run_dir = Path(run_dir)
        self.start_seconds = start_seconds
        self._groups = {}          # role -> ProcessGroup, in start order
        self._handlers = None      # the signal handlers in place before this cluster's
        self._runs = 0
        self._open = False

    @property
    def scheduler_address(self):
        return f"tcp://{self.network.address('head')}:{SCHEDULER_PORT}"

    def __enter__(self):
        self._open = True
        atexit.register(self.close)
        self._catch_signals()
        try:
            sweep()
            self.run_dir.mkdir(parents=True, exist_ok=True)
            self.network.build()
            self.network.cap(self.cap)
            self._start_scheduler()
            self._start_workers()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def set_cap(self, cap):
        """Cap every link to ``cap`` from now on."""
        self.network.cap(cap)
        self.cap = cap

    def processes(self):
        """``[(pid, start time)]`` of every process in the cluster's namespaces now."""
        found = []
        for role in self.network.roles:
            for pid in namespace_pids(self.network.namespace(role)):
                found.append((pid, start_time(pid)))
        return found

    def kill(self, role):
        """SIGKILL the process group of machine ``role``'s worker, or of the scheduler (``"head"``)."""
        self._groups[role].signal(signal.SIGKILL)

    def train(self, corpus, args=(), timeout=1800.0, on_line=None):
        """Run ``w2v train CORPUS --scheduler ... --report-json ... -o ... ARGS`` on the head machine.

        Parameters
        ----------
        corpus : str
            The corpus path (the workers read it at this path).
        args : sequence of str
            More ``w2v train`` options.
        timeout : float
            Seconds the run may take; then it is stopped.
        on_line : callable, optional
            Called as ``on_line(cluster, text)`` with each line of the driver's output, in this
            thread, while the run goes (tests kill machines from it).

        Raises
        ------
        ClusterError
            The driver failed (its last line) or took longer than ``timeout``.
        """
        self._runs += 1
        report_path = self.run_dir / f"report-{self._runs}.json"
        output = self.run_dir / f"vectors-{self._runs}.bin"
        argv = [_script("w2v"), "train", str(corpus), "--scheduler", self.scheduler_address,
                "--report-json", str(report_path), "-o", str(output), *args]
        driver = ProcessGroup("w2v train", self.network.exec_argv("head", argv), None, env=_env())
        self._groups["driver"] = driver
        watch = _RunWatch(self.network, driver)
        started = time.time()
        try:
            code = watch.follow(timeout, lambda text: on_line and on_line(self, text))
        finally:
            watch.stop()
            driver.stop(STOP_GRACE_SECONDS)
            self._groups.pop("driver")
        if code is None:
            raise ClusterError(f"w2v train did not finish in {timeout:g} s")
        if code != 0:
            last = next((text for _, text in reversed(watch.lines) if text.strip()), "")
            raise ClusterError(f"w2v train exited with status {code}: {last.strip()}")
        report = json.loads(report_path.read_text())
        return TrainRun(report, watch.samples, watch.lines, time.time() - started, output)

    def close(self):
        """Stop every process (driver, workers, scheduler) and remove the network; safe to call again."""
        if not self._open:
            return
        self._open = False
        ignored = {s: signal.signal(s, signal.SIG_IGN) for s in TEARDOWN_SIGNALS} if _main_thread() else {}
        try:
            stop_all([self._groups.pop(role) for role in reversed(list(self._groups))], STOP_GRACE_SECONDS)
            self.network.destroy()
        finally:
            for s, handler in ignored.items():
                signal.signal(s, handler)
            self._restore_signals()
            atexit.unregister(self.close)

    # ------------------------------------------------------------------ start-up
    def _start_scheduler(self):
        sched_file = self.run_dir / "scheduler.json"
        sched_file.unlink(missing_ok=True)
        argv = [_script("dask"), "scheduler", "--host", self.network.address("head"), "--port",
                str(SCHEDULER_PORT), "--no-dashboard", "--scheduler-file", str(sched_file)]
        group = self._start("head", "dask scheduler", argv, "scheduler.log")
        deadline = time.monotonic() + self.start_seconds
        while not sched_file.exists():
            if group.exited() or time.monotonic() > deadline:
                why = "exited" if group.exited() else f"not up after {self.start_seconds:g} s"
                raise ClusterError(f"dask scheduler {why}: {group.log_tail(1)}")
            time.sleep(0.05)

    def _start_workers(self):
        for role in self.workers:
            argv = [_script("dask"), "worker", self.scheduler_address, "--name", role, "--host",
                    self.network.address(role), "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
                    "--local-directory", str(self.run_dir / role), "--death-timeout", "60"]
            self._start(role, f"dask worker {role}", argv, f"worker-{role}.log")
        waiter = [sys.executable, "-c", WAIT_FOR_WORKERS, self.scheduler_address, str(len(self.workers)),
                  str(self.start_seconds)]
        try:
            res = subprocess.run(self.network.exec_argv("head", waiter), capture_output=True, text=True,
                                 timeout=self.start_seconds + 30, env=_env())
        except subprocess.TimeoutExpired:
            res = None
        if res is None or res.returncode != 0:
            dead = [g.name for g in self._groups.values() if g.exited()]
            raise ClusterError(f"{len(self.workers)} dask workers not up after {self.start_seconds:g} s"
                               + (f" ({', '.join(dead)} exited)" if dead else ""))

    def _start(self, role, name, argv, log_name):
        group = ProcessGroup(name, self.network.exec_argv(role, argv), self.run_dir / log_name, env=_env())
        self._groups[role] = group
        return group

    # ------------------------------------------------------------------ signals
    def _catch_signals(self):
        if not _main_thread():
            return
        self._handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
        for s in self._handlers:
            signal.signal(s, _exit_on_signal)

    def _restore_signals(self):
        if self._handlers is not None:
            for s, handler in self._handlers.items():
                signal.signal(s, handler)
            self._handlers = None


class _RunWatch:
    # the driver's output lines (a reader thread) and the link counters (a sampler thread) of one run
    def __init__(self, network, driver):
        self.network = network
        self.driver = driver
        self.lines = []
        self.samples = [(time.time(), network.counters())]
        self._pending = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._threads = [threading.Thread(target=self._read, daemon=True),
                         threading.Thread(target=self._sample, daemon=True)]
        for t in self._threads:
            t.start()

    def follow(self, timeout, on_line):
        """Wait for the driver (at most ``timeout`` s), passing on each line; its exit status or None."""
        deadline = time.monotonic() + timeout
        while not self.driver.exited() and time.monotonic() < deadline:
            time.sleep(0.05)
            self._deliver(on_line)
        if not self.driver.exited():
            return None
        self._threads[0].join(STOP_GRACE_SECONDS)   # the rest of its output
        self._deliver(on_line)
        return self.driver.stop(0)

    def stop(self):
        self._done.set()
        self._threads[1].join(STOP_GRACE_SECONDS)
        self.samples.append((time.time(), self.network.counters()))

    def _deliver(self, on_line):
        with self._lock:
            pending, self._pending = self._pending, []
        for _, text in pending:
            on_line(text)

    def _read(self):
        buf = b""
        try:
            for chunk in iter(lambda: self.driver.stdout.read1(65536), b""):
                buf += chunk
                *done, buf = re.split(rb"[\r\n]", buf)
                self._add([x for x in done if x.strip()])
        except (OSError, ValueError):   # the pipe closed under it: the driver was stopped
            pass
        self._add([buf] if buf.strip() else [])

    def _add(self, raw):
        now = time.time()
        entries = [(now, x.decode(errors="replace")) for x in raw]
        with self._lock:
            self.lines.extend(entries)
            self._pending.extend(entries)

    def _sample(self):
        while not self._done.wait(SAMPLE_SECONDS):
            self.samples.append((time.time(), self.network.counters()))


def _exit_on_signal(signum, frame):
    raise SystemExit(128 + signum)


def _main_thread():
    return threading.current_thread() is threading.main_thread()


def _script(name):
    # the console script of this interpreter's environment
    path = Path(sys.executable).parent / name
    if not path.exists():
        raise ClusterError(f"{path} not found: install w2v with its test extras (pip install -e '.[test]')")
    return str(path)


def _env():
    return {**os.environ, "PYTHONUNBUFFERED": "1"}
