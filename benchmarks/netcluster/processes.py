"""Process groups started in a namespace and stopped within a bound.

Each process starts a new session, so it leads its own process group and the terminal's Ctrl-C
reaches only the harness, which then stops the groups in order. ``setpriv --pdeathsig KILL``
(util-linux) makes the kernel kill the process if the harness dies without stopping it (SIGKILL);
start processes from the thread that stops them, as the kernel ties that signal to the thread that
forked. A stopped group's leader is left unreaped until the group has had its SIGKILL, so that its
process group id cannot be taken by another process meanwhile.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

KILL_WAIT_SECONDS = 5


def _pdeathsig():
    return ["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []


def start_time(pid):
    """The start time of process ``pid`` (clock ticks after boot), or ``None`` if it has exited
    (a zombie waiting for its parent counts as exited).

    A pid and its start time name one process, even after the pid is reused.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return None if fields[0] in ("Z", "X") else int(fields[19])


class ProcessGroup:
    """A command in its own process group, its output in a log file.

    Parameters
    ----------
    name : str
        What the process is, in messages (``"scheduler"``, ``"worker m1"``, ``"w2v train"``).
    argv : list of str
        The command (already wrapped in ``ip netns exec``).
    log_path : pathlib.Path
        Its stdout and stderr; ``None`` to read its output from :attr:`stdout` (a pipe) instead.
    env : dict, optional
        Its environment.
    """

    def __init__(self, name, argv, log_path, env=None):
        self.name = name
        self.log_path = log_path
        self._log = open(log_path, "wb") if log_path is not None else None
        out = self._log if self._log is not None else subprocess.PIPE
        self._proc = subprocess.Popen(_pdeathsig() + list(argv), stdin=subprocess.DEVNULL, stdout=out,
                                      stderr=subprocess.STDOUT, env=env, start_new_session=True)

    @property
    def pid(self):
        return self._proc.pid

    @property
    def stdout(self):
        """The pipe of its output (``log_path=None``)."""
        return self._proc.stdout

    def exited(self):
        """Whether the group's leader has exited (it stays a zombie until :meth:`stop` reaps it)."""
        if self._proc.returncode is not None:
            return True
        try:
            res = os.waitid(os.P_PID, self._proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True
        return res is not None

    def signal(self, signum):
        """Send ``signum`` to the whole group (while its leader is not reaped)."""
        if self._proc.returncode is None:
            try:
                os.killpg(self._proc.pid, signum)
            except ProcessLookupError:
                pass

    def wait_exit(self, seconds):
        """Wait at most ``seconds`` for the leader to exit; whether it did."""
        deadline = time.monotonic() + seconds
        while not self.exited():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)
        return True

    def stop(self, grace=10.0):
        """SIGTERM the group, SIGKILL it after ``grace`` seconds (or at once with ``grace=0``); reap it.

        Returns the leader's exit status.
        """
        if not self.exited():
            self.signal(signal.SIGTERM if grace > 0 else signal.SIGKILL)
            if not self.wait_exit(grace):
                self.signal(signal.SIGKILL)
                self.wait_exit(KILL_WAIT_SECONDS)
        self.signal(signal.SIGKILL)   # what the leader left behind in its group
        try:
            code = self._proc.wait(KILL_WAIT_SECONDS)
        except subprocess.TimeoutExpired:   # unkillable (stuck in the kernel): left to the namespace sweep
            code = None
        if self._log is not None:
            self._log.close()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        return code

    def log_tail(self, lines=5):
        """The last ``lines`` lines of its log, one string."""
        if self.log_path is None or not Path(self.log_path).exists():
            return ""
        text = Path(self.log_path).read_text(errors="replace").replace("\r", "\n")
        return "\n".join([x for x in text.splitlines() if x.strip()][-lines:])


def stop_all(groups, grace=10.0):
    """Stop ``groups`` together: SIGTERM to each, at most ``grace`` seconds for all of them, then
    SIGKILL to what is left. Returns their exit statuses."""
    for group in groups:
        if not group.exited():
            group.signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for group in groups:
        group.wait_exit(max(0.0, deadline - time.monotonic()))
    return [group.stop(0) for group in groups]
