"""Machines made of Linux network namespaces, joined to one bridge by veth pairs.

Machine ``k`` (0 is the head, then the workers) is the namespace ``w2vn-TOKEN-ROLE``. Its end of
a veth pair is ``eth0`` there, with the address ``SUBNET.(k + 1)/24``; the other end,
``w2vnTOKENh<k>``, is a port of the bridge ``w2vnTOKENbr`` in the root namespace. The bridge has no
address and the namespaces no route beyond their /24, so traffic goes only from one namespace to
another (or to a namespace's own loopback). ``TOKEN`` is six random hex digits per network; every
name starts with ``w2vn`` and fits the kernel's 15 characters for an interface.

A network holds an exclusive ``flock`` on ``/run/w2v-netns/TOKEN.lock`` for as long as it exists.
A killed run leaves its namespaces, links and processes but not its lock (the kernel drops a dead
process's locks), so :func:`sweep` tells a leftover from a live run of another process and removes
only the leftovers.

The bytes a machine sent and received are the counters of the bridge end of its veth
(``/sys/class/net/<dev>/statistics/{rx,tx}_bytes``): Ethernet frames, headers included, as the
cap counts them.
"""
from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import signal
import subprocess
import time
from pathlib import Path

from .links import LinkCap

PREFIX = "w2vn"
LOCK_DIR = Path("/run/w2v-netns")
NETNS_DIR = Path("/run/netns")
SYS_NET = Path("/sys/class/net")
COMMAND_SECONDS = 15        # bound on one ip/tc command
PROCESS_EXIT_SECONDS = 10   # bound on the wait for a namespace's processes to die after SIGKILL
MAX_MACHINES = 250


class NetworkError(RuntimeError):
    """A namespace, link or cap could not be made or removed (a one-line message)."""


def ip(*args, check=True):
    """Run ``ip ARGS`` (bounded by :data:`COMMAND_SECONDS`); return its stdout.

    Raises
    ------
    NetworkError
        ``check`` and the command failed: its first line of error.
    """
    return _run(["ip", *args], check)


def tc(*args, namespace=None, check=True):
    """Run ``tc ARGS``, in ``namespace`` if given (``tc -n``); return its stdout."""
    return _run(["tc", *(["-n", namespace] if namespace else []), *args], check)


def _run(argv, check):
    try:
        res = subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_SECONDS)
    except subprocess.TimeoutExpired:
        raise NetworkError(f"{' '.join(argv)}: no answer in {COMMAND_SECONDS} s") from None
    if check and res.returncode != 0:
        why = (res.stderr.strip().splitlines() or [f"exit status {res.returncode}"])[0]
        raise NetworkError(f"{' '.join(argv)}: {why}")
    return res.stdout


def unavailable_reason():
    """Why namespaces with capped links cannot be made here, or ``None`` if they can.

    Checks root, ``ip`` and ``tc``, then makes and removes a one-machine network with an HTB cap.
    """
    if os.geteuid() != 0:
        return "network namespaces need root"
    missing = [tool for tool in ("ip", "tc") if shutil.which(tool) is None]
    if missing:
        return f"{' and '.join(missing)} (iproute2) not found"
    try:
        with Network(["probe"]) as net:
            net.cap(LinkCap(1e9))
    except NetworkError as exc:
        return f"cannot make a capped namespace: {exc}"
    return None


def netem_missing():
    """Why this kernel cannot delay packets (no ``netem`` qdisc), or ``None`` if it can."""
    token = secrets.token_hex(3)
    a, b = f"{PREFIX}{token}p0", f"{PREFIX}{token}p1"
    with _Lock(token):
        ip("link", "add", a, "type", "veth", "peer", "name", b)
        try:
            tc("qdisc", "add", "dev", a, "root", "netem", "delay", "100us")
        except NetworkError as exc:
            return f"the kernel has no netem qdisc ({exc})"
        finally:
            ip("link", "del", a, check=False)
    return None


class _Lock:
    # the exclusive flock that marks a network's names as owned by a live process
    def __init__(self, token):
        LOCK_DIR.mkdir(parents=True, exist_ok=True)
        self.path = LOCK_DIR / f"{token}.lock"
        self._fd = os.open(self.path, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            self._fd = None
            raise

    def release(self):
        if self._fd is not None:
            self.path.unlink(missing_ok=True)
            os.close(self._fd)
            self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


class Network:
    """Namespaces joined to one bridge, with the same cap on every link.

    Parameters
    ----------
    roles : list of str
        The machines, in order (``"head"``, ``"m1"``, ...); machine ``k`` gets ``SUBNET.(k + 1)``.
    subnet : str
        The first three octets of the private /24 (``"10.77.0"``).
    """

    def __init__(self, roles, subnet="10.77.0"):
        if not 1 <= len(roles) <= MAX_MACHINES:
            raise NetworkError(f"a network has 1 to {MAX_MACHINES} machines (got {len(roles)})")
        self.token = secrets.token_hex(3)
        self.roles = list(roles)
        self.subnet = subnet
        self._lock = None
        self._made = []   # (kind, name) in the order made

    def namespace(self, role):
        """The namespace of machine ``role``."""
        return f"{PREFIX}-{self.token}-{role}"

    def address(self, role):
        """The IPv4 address of machine ``role``."""
        return f"{self.subnet}.{self.roles.index(role) + 1}"

    def bridge_end(self, role):
        """The bridge end of machine ``role``'s veth (its counters are the machine's link)."""
        return f"{PREFIX}{self.token}h{self.roles.index(role)}"

    @property
    def bridge(self):
        return f"{PREFIX}{self.token}br"

    def exec_argv(self, role, argv):
        """``argv`` run in machine ``role``'s namespace."""
        return ["ip", "netns", "exec", self.namespace(role), *argv]

    def build(self):
        """Make the bridge, the namespaces and their links (removed again if a step fails)."""
        self._lock = _Lock(self.token)
        try:
            ip("link", "add", self.bridge, "type", "bridge")
            self._made.append(("link", self.bridge))
            ip("link", "set", self.bridge, "up")
            for role in self.roles:
                self._add_machine(role)
        except BaseException:
            self.destroy()
            raise
        return self

    def _add_machine(self, role):
        ns, end = self.namespace(role), self.bridge_end(role)
        ip("netns", "add", ns)
        self._made.append(("netns", ns))
        ip("link", "add", end, "type", "veth", "peer", "name", "eth0", "netns", ns)
        self._made.append(("link", end))
        ip("link", "set", end, "master", self.bridge, "up")
        ip("-n", ns, "addr", "add", f"{self.address(role)}/24", "dev", "eth0")
        ip("-n", ns, "link", "set", "eth0", "up")
        ip("-n", ns, "link", "set", "lo", "up")

    def cap(self, cap):
        """Cap every link, both directions, to ``cap`` (replacing the previous cap).

        Raises
        ------
        NetworkError
            A ``tc`` command failed (a delay on a kernel without ``netem``, for one).
        """
        for role in self.roles:
            for device, ns in ((self.bridge_end(role), None), ("eth0", self.namespace(role))):
                tc("qdisc", "del", "dev", device, "root", namespace=ns, check=False)
                for args in cap.tc_commands(device):
                    tc(*args, namespace=ns)

    def counters(self):
        """``{role: (bytes sent, bytes received)}`` of every machine's link since it was made."""
        out = {}
        for role in self.roles:
            stats = SYS_NET / self.bridge_end(role) / "statistics"
            out[role] = (int((stats / "rx_bytes").read_text()), int((stats / "tx_bytes").read_text()))
        return out

    def destroy(self):
        """Kill what still runs in the namespaces, remove every namespace and link, release the lock."""
        _kill_and_remove([name for kind, name in self._made if kind == "netns"],
                         [name for kind, name in self._made if kind == "link"])
        self._made.clear()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self):
        return self.build()

    def __exit__(self, *exc):
        self.destroy()


def present(token=None):
    """The namespaces and links with the harness's prefix (of one ``token`` if given) that exist now."""
    ns_prefix, link_prefix = f"{PREFIX}-{token or ''}", f"{PREFIX}{token or ''}"
    namespaces = sorted(p.name for p in NETNS_DIR.iterdir() if p.name.startswith(ns_prefix)) \
        if NETNS_DIR.is_dir() else []
    links = sorted(p.name for p in SYS_NET.iterdir() if p.name.startswith(link_prefix))
    return {"namespaces": namespaces, "links": links}


def namespace_pids(namespace):
    """The processes that run in ``namespace`` now."""
    return [int(p) for p in ip("netns", "pids", namespace, check=False).split()]


def sweep():
    """Remove what killed runs left: the namespaces (and their processes) and links of every token
    whose lock no live process holds. Returns the tokens removed."""
    now = present()
    tokens = {n.split("-")[1] for n in now["namespaces"]} | {n[len(PREFIX):len(PREFIX) + 6] for n in now["links"]}
    removed = []
    for token in sorted(tokens):
        try:
            lock = _Lock(token)
        except BlockingIOError:   # a live run holds it
            continue
        with lock:
            mine = present(token)
            _kill_and_remove(mine["namespaces"], mine["links"])
        removed.append(token)
    return removed


def _kill_and_remove(namespaces, links):
    # SIGKILL every process in the namespaces, wait (bounded) until none is left, then delete
    # the namespaces and the links (a veth goes with either end; a name already gone is no error)
    for ns in namespaces:
        for pid in namespace_pids(ns):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + PROCESS_EXIT_SECONDS
    while any(namespace_pids(ns) for ns in namespaces) and time.monotonic() < deadline:
        time.sleep(0.05)
    for ns in namespaces:
        ip("netns", "del", ns, check=False)
    for link in links:
        if (SYS_NET / link).exists():
            ip("link", "del", link, check=False)
    # the kernel frees a deleted namespace's devices (and so the bridge ends of their veths) a moment later
    deadline = time.monotonic() + PROCESS_EXIT_SECONDS
    while present_of(namespaces, links) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = present_of(namespaces, links)
    if left:
        raise NetworkError(f"could not remove {', '.join(left)}")


def present_of(namespaces, links):
    """Those of ``namespaces`` and ``links`` that still exist."""
    return [n for n in namespaces if (NETNS_DIR / n).exists()] + [n for n in links if (SYS_NET / n).exists()]
