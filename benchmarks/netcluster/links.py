"""A link's cap: its rate and one-way delay, and the ``tc`` commands that set it on one end of a veth.

Both directions of a link are capped by shaping the *egress* of each end of its veth pair: the end
inside the machine's namespace limits what the machine sends, the end on the bridge limits what it
receives. Egress shaping queues packets (HTB, a token bucket that also handles the kernel's 64 KiB
GSO packets), so TCP sees a slower link, as on a real NIC. The alternatives were not used: an
ingress policer drops what exceeds the rate, which makes TCP back off in a saw-tooth well below the
cap (and ``act_police`` is missing from some kernels, this machine's among them); an ifb device per
link would shape ingress as egress, but needs one more device and a ``mirred`` redirect per link for
what the bridge end already does.

A delay is a ``netem`` qdisc under the HTB class, half of it at each end, so that the one-way delay
between two machines (through the bridge) is ``delay`` and their round trip ``2 * delay``. Kernels
built without ``CONFIG_NET_SCH_NETEM`` cannot delay packets;
:func:`netcluster.network.netem_missing` tells, and a cap with a delay is refused there.
"""
from __future__ import annotations

import dataclasses
import re

UNITS = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}
_RATE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?)\s*(bit|kbit|mbit|gbit)\s*$", re.IGNORECASE)
_DELAY = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?)\s*(s|ms|us)?\s*$", re.IGNORECASE)
_DELAY_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6}
HTB_MAX_QUANTUM = 200_000   # bytes; HTB warns above this
GSO_BYTES = 65_536          # the largest packet the kernel hands a veth's qdisc


class CapError(ValueError):
    """A cap that cannot be parsed or set (a one-line message)."""


@dataclasses.dataclass(frozen=True)
class LinkCap:
    """The rate and one-way delay of every link of a cluster.

    Parameters
    ----------
    rate_bits : float
        Bits per second, each direction.
    delay_seconds : float
        One-way delay between two machines (half at each end of each link); 0 for none.
    """

    rate_bits: float
    delay_seconds: float = 0.0

    @classmethod
    def parse(cls, text):
        """A cap from ``RATE[:DELAY]``, such as ``1gbit``, ``100mbit``, ``10gbit:0.05ms``.

        Raises
        ------
        CapError
            ``text`` is not of that form, or the rate is not positive.
        """
        rate_text, _, delay_text = text.partition(":")
        m = _RATE.match(rate_text)
        if not m or float(m.group(1)) <= 0:
            raise CapError(f"cap {text!r}: the rate must be a positive number with a unit "
                           f"({', '.join(UNITS)}), e.g. 1gbit or 100mbit")
        delay = 0.0
        if delay_text:
            d = _DELAY.match(delay_text)
            if not d:
                raise CapError(f"cap {text!r}: the delay must be a number with s, ms or us, e.g. 0.2ms")
            delay = float(d.group(1)) * _DELAY_UNITS[(d.group(2) or "s").lower()]
        return cls(float(m.group(1)) * UNITS[m.group(2).lower()], delay)

    @property
    def bytes_per_second(self):
        """The rate in bytes per second."""
        return self.rate_bits / 8

    @property
    def label(self):
        """``1 Gbit/s``, ``100 Mbit/s + 0.2 ms``."""
        for unit, scale in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
            if self.rate_bits >= scale:
                text = f"{self.rate_bits / scale:g} {unit}"
                break
        else:
            text = f"{self.rate_bits:g} bit/s"
        return text + (f" + {self.delay_seconds * 1e3:g} ms" if self.delay_seconds else "")

    def tc_commands(self, device):
        """The ``tc`` argument lists that cap the egress of ``device`` (run in the device's namespace).

        An HTB root with one class at the rate (burst: 2 ms of traffic, at least two GSO
        packets), and, with a delay, a ``netem`` leaf delaying by half of it.
        """
        rate = f"{int(self.rate_bits)}bit"
        burst = f"{max(2 * GSO_BYTES, int(self.bytes_per_second * 0.002))}b"
        quantum = str(int(min(HTB_MAX_QUANTUM, max(2 * 1514, self.bytes_per_second / 10))))
        cmds = [["qdisc", "add", "dev", device, "root", "handle", "1:", "htb", "default", "10"],
                ["class", "add", "dev", device, "parent", "1:", "classid", "1:10", "htb", "rate", rate,
                 "ceil", rate, "burst", burst, "cburst", burst, "quantum", quantum]]
        if self.delay_seconds:
            cmds.append(["qdisc", "add", "dev", device, "parent", "1:10", "handle", "10:", "netem",
                         "delay", f"{self.delay_seconds / 2 * 1e6:.0f}us", "limit", "100000"])
        return cmds
