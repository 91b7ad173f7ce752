"""The round-time model fitted to runs at several machine counts and caps, and its predictions.

A round on ``N`` one-worker machines with links of ``C`` bytes/s takes

    T(N, C) = t_train * s(N) + t_lat + L(N) / (eta * C) + t_merge(N)

* ``t_train``: a worker's training time with a core to itself. ``s(N) = max(1, N / cores)`` is
  this machine's CPU sharing: ``N`` workers on fewer cores train ``N / cores`` times slower; on
  ``N`` real machines ``s = 1``.
* ``L(N) = l0 + l1 * N``: the bytes one round puts on the busiest worker link, sent plus received
  (least squares over the runs). The two directions of a link are capped apart; a link that
  receives everyone's rows and then sends the merged rows uses them one after the other, which is
  what ``eta = 1`` means. ``eta`` is fitted: below 1 the transfers reach less than the cap (TCP
  ramping up after each idle gap, hand-offs between transfers), up to 2 when both directions are
  busy at once. A star merge has ``l1`` about one worker's rows; a merge spread over the workers has
  ``l1`` near 0.
* ``t_merge(N) = m0 + m1 * N``: the longest merge task (least squares over the runs).
* ``t_lat``: what is left: the scheduler's hand-offs and the round trips, fitted with ``eta``
  by least squares to the measured round times. Where links are delayed by ``d`` one way, a
  prediction adds ``k`` round trips of ``2 * d``; ``k`` (:data:`ROUND_TRIPS`) is not fitted where
  the kernel cannot delay packets.

Each figure says its regime: *CPU shared* where more workers than cores train (``s(N) > 1``: the
measured speed cannot grow with ``N`` here), then *network-bound* where the link term is at least
half of the round, *compute-bound* where training is, *mixed* otherwise.
"""
from __future__ import annotations

import dataclasses
import statistics

import numpy as np

ROUND_TRIPS = 4   # the worker -> scheduler -> merging worker hand-off and a dependency fetch, twice a round


@dataclasses.dataclass(frozen=True)
class RunFigures:
    """The steady rounds of one run (the first round, which also loads the kernels and the weights,
    left out): medians per round.

    Attributes
    ----------
    machines : int
        Worker machines.
    rate_bytes : float
        The links' cap, bytes/s.
    delay_seconds : float
        The links' one-way delay.
    rounds : int
        Steady rounds measured.
    wall, train, merge, communication : float
        Seconds per round.
    busiest_link : float
        Bytes per round on the busiest worker link, sent + received.
    """

    machines: int
    rate_bytes: float
    delay_seconds: float
    rounds: int
    wall: float
    train: float
    merge: float
    communication: float
    busiest_link: float


@dataclasses.dataclass(frozen=True)
class RoundModel:
    """The fitted model (see the module docstring); ``cores``: this machine's, for ``s(N)``."""

    cores: int
    t_train: float
    t_lat: float
    eta: float
    eta_fitted: bool
    link: tuple    # (l0, l1)
    merge: tuple   # (m0, m1)

    def share(self, machines):
        """``s(N)``: how much slower training is with ``machines`` workers on this machine's cores."""
        return max(1.0, machines / self.cores)

    def terms(self, machines, rate_bytes, delay_seconds=0.0, share=None):
        """The model's seconds per round, by term: ``{"train", "latency", "link", "merge", "round"}``.

        ``share`` is ``s(N)`` (this machine's by default; 1 for machines with a core per worker).
        """
        s = self.share(machines) if share is None else share
        link_bytes = max(0.0, self.link[0] + self.link[1] * machines)
        out = {"train": self.t_train * s,
               "latency": self.t_lat + ROUND_TRIPS * 2 * delay_seconds,
               "link": link_bytes / (self.eta * rate_bytes),
               "merge": max(0.0, self.merge[0] + self.merge[1] * machines)}
        out["round"] = sum(out.values())
        out["link_bytes"] = link_bytes
        return out


def fit(runs, cores):
    """The model fitted to ``runs`` (a list of :class:`RunFigures`) on a machine of ``cores`` cores.

    ``t_train`` is the median of ``train / s(N)``; ``L`` and ``t_merge`` are lines in ``N``; then
    ``t_lat`` and ``1 / eta`` by least squares on ``T - t_train * s(N) - t_merge(N)`` against
    ``L(N) / C`` (``t_lat`` at least 0). Where that cannot separate them (every run has the same
    ``L / C``) or gives ``eta <= 0``, ``eta`` is 1 and only ``t_lat`` is fitted.
    """
    if not runs:
        raise ValueError("no runs to fit")
    n = np.array([r.machines for r in runs], dtype=float)
    share = np.maximum(1.0, n / cores)
    t_train = statistics.median(r.train / s for r, s in zip(runs, share))
    link = _line(n, [r.busiest_link for r in runs])
    merge = _line(n, [r.merge for r in runs])
    x = (link[0] + link[1] * n) / np.array([r.rate_bytes for r in runs])
    y = np.array([r.wall for r in runs]) - t_train * share - (merge[0] + merge[1] * n)
    eta, eta_fitted, t_lat = 1.0, False, max(0.0, float(np.mean(y - x)))
    if np.ptp(x) > 1e-3 * max(abs(x).max(), 1e-9):
        (a, b), *_ = np.linalg.lstsq(np.column_stack([np.ones_like(x), x]), y, rcond=None)
        if a < 0:   # no negative latency: the line through the origin
            a, b = 0.0, float(x @ y / (x @ x))
        if b > 0:
            eta, eta_fitted, t_lat = float(1 / b), True, float(a)
    return RoundModel(cores=cores, t_train=float(t_train), t_lat=t_lat, eta=eta, eta_fitted=eta_fitted,
                      link=link, merge=merge)


def _line(n, values):
    # least-squares (intercept, slope) of values over n; a constant where n has one value
    values = np.asarray(values, dtype=float)
    if np.ptp(n) == 0:
        return float(values.mean()), 0.0
    slope, intercept = np.polyfit(n, values, 1)
    return float(intercept), float(slope)


def regime(train, link, round_seconds, share=1.0):
    """The regime of a round of ``round_seconds`` with ``train`` seconds of training and ``link``
    seconds on the busiest link, ``share`` being ``s(N)`` (see the module docstring)."""
    if link >= 0.5 * round_seconds:
        kind = "network-bound"
    elif train >= 0.5 * round_seconds:
        kind = "compute-bound"
    else:
        kind = "mixed"
    return f"CPU shared x{share:.0f}, {kind}" if share > 1.0 else kind
