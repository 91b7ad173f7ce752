"""The per-round figures of a ``w2v train --report-json`` report, and the link bytes of each round.

A report gives its rounds in one of two forms, both read here:

* ``"rounds"``, a list with an entry per round: ``{"epoch", "round", "workers", "tokens",
  "wall_seconds", "train_seconds": [per worker], "merge_seconds": [per merge task],
  "sent_bytes": [per worker], "received_bytes": [per worker]}``, beside ``"round_words"`` and
  ``"merge"`` at the top;
* ``"rounds"`` as a table, ``{"columns": ["epoch", "round", "rounds", "seconds", "merge_seconds",
  "train_seconds"], "rows": [...]}``: a row per round, or the mean of ``rounds`` consecutive rounds
  in a long run; ``train_seconds`` is the slowest lane's, and the bytes are not in it.

A report without ``"rounds"`` (a run on one machine) has no per-round figures: :data:`NO_ROUNDS`.

A round's *communication* time is what its wall time leaves after training and merging: the
transfers, the scheduler's hand-offs and the network's latency. Training is the slowest worker's
time (the round waits for it); merging is the longest merge task's (merge tasks on several workers
run at once).

The link counters are sampled over the run (``netcluster.cluster.TrainRun.samples``). A round's
window is found from the driver's ``epoch N: mean loss`` line, printed as the epoch's last round is
merged: walking back from it by the rounds' wall times. A machine's bytes in a round are its
counters at the window's end less those at its start, interpolated between samples.
"""
from __future__ import annotations

import dataclasses

import numpy as np

NO_ROUNDS = "no per-round figures in this report"
TABLE_COLUMNS = ("epoch", "round", "rounds", "seconds", "merge_seconds", "train_seconds")


class ReportError(ValueError):
    """A report whose ``"rounds"`` is in neither known form (a one-line message)."""


@dataclasses.dataclass(frozen=True)
class Round:
    """One round (or, from a table row, the mean of ``count`` consecutive rounds).

    Attributes
    ----------
    epoch, round : int
        As the report numbers them.
    count : int
        Rounds this entry stands for.
    wall_seconds : float
        The round's wall time (each, for ``count`` > 1).
    train_seconds, merge_seconds : tuple of float
        Per worker, per merge task (a table row gives only the slowest lane and one merge).
    workers, tokens : int or None
        Workers in the round and tokens trained, where the report gives them.
    sent_bytes, received_bytes : tuple of int or None
        Per worker, where the report gives them.
    """

    epoch: int
    round: int
    count: int
    wall_seconds: float
    train_seconds: tuple
    merge_seconds: tuple
    workers: int = None
    tokens: int = None
    sent_bytes: tuple = None
    received_bytes: tuple = None

    @property
    def train(self):
        """The slowest worker's training seconds."""
        return max(self.train_seconds, default=0.0)

    @property
    def merge(self):
        """The longest merge task's seconds."""
        return max(self.merge_seconds, default=0.0)

    @property
    def communication(self):
        """Wall seconds left after training and merging (never below 0)."""
        return max(0.0, self.wall_seconds - self.train - self.merge)


def report_rounds(report):
    """The rounds of ``report`` and the form they came in: ``(rounds, "list" | "table")``, or
    ``([], None)`` when the report has none.

    Raises
    ------
    ReportError
        ``"rounds"`` is there but in neither form.
    """
    rounds = report.get("rounds")
    if rounds is None:
        return [], None
    try:
        if isinstance(rounds, list):
            return [_from_entry(e) for e in rounds], "list"
        if isinstance(rounds, dict) and "rows" in rounds:
            return _from_table(rounds), "table"
    except (KeyError, TypeError, ValueError) as exc:
        raise ReportError(f"report rounds: {type(exc).__name__} {exc}") from None
    raise ReportError(f"report rounds: neither a list of rounds nor a table (a {type(rounds).__name__})")


def _from_entry(e):
    def per(key):
        v = e.get(key)
        return None if v is None else tuple(v if isinstance(v, list) else [v])

    return Round(epoch=int(e["epoch"]), round=int(e["round"]), count=1, wall_seconds=float(e["wall_seconds"]),
                 train_seconds=tuple(float(x) for x in per("train_seconds") or ()),
                 merge_seconds=tuple(float(x) for x in per("merge_seconds") or ()),
                 workers=e.get("workers"), tokens=e.get("tokens"),
                 sent_bytes=per("sent_bytes"), received_bytes=per("received_bytes"))


def _from_table(table):
    col = {name: i for i, name in enumerate(table["columns"])}
    missing = [c for c in TABLE_COLUMNS if c not in col]
    if missing:
        raise KeyError(f"columns {missing} missing")
    out = []
    for row in table["rows"]:
        out.append(Round(epoch=int(row[col["epoch"]]), round=int(row[col["round"]]), count=int(row[col["rounds"]]),
                         wall_seconds=float(row[col["seconds"]]), train_seconds=(float(row[col["train_seconds"]]),),
                         merge_seconds=(float(row[col["merge_seconds"]]),)))
    return out


def round_windows(rounds, epoch_ends):
    """``(start, end)`` in ``time.time()`` of each round, or ``None`` where the epochs' ends are not
    all known (one ``epoch_ends`` entry per epoch of ``rounds``, in order)."""
    epochs = list(dict.fromkeys(r.epoch for r in rounds))
    if len(epoch_ends) < len(epochs):
        return None
    windows = []
    for epoch, end in zip(epochs, epoch_ends):
        mine = [r for r in rounds if r.epoch == epoch]
        ends = end - np.concatenate([np.cumsum([r.wall_seconds * r.count for r in mine[::-1]])[::-1][1:], [0.0]])
        windows += [(float(e - r.wall_seconds * r.count), float(e)) for r, e in zip(mine, ends)]
    return windows


def link_bytes(samples, windows):
    """Each machine's ``(sent, received)`` bytes in each window: ``[{role: (sent, received)}]``.

    Parameters
    ----------
    samples : list of (float, dict)
        ``(time, {role: (sent, received)})`` counters, in time order.
    windows : list of (float, float)
        ``(start, end)`` times.
    """
    times = np.array([t for t, _ in samples])
    roles = list(samples[0][1])
    out = [{} for _ in windows]
    for role in roles:
        for side in (0, 1):
            values = np.array([c[role][side] for _, c in samples], dtype=float)
            for i, (a, b) in enumerate(windows):
                got = float(np.interp(b, times, values) - np.interp(a, times, values))
                out[i][role] = out[i].get(role, ()) + (got,)
    return out


def link_totals(samples):
    """Each machine's ``(sent, received)`` bytes from the first sample to the last."""
    first, last = samples[0][1], samples[-1][1]
    return {role: (last[role][0] - first[role][0], last[role][1] - first[role][1]) for role in first}
