"""The rounds of a Dask run: submitted ahead, merged by range on the workers, lanes that failed resubmitted.

Every worker keeps a replica of the global weights.  In a round, each
lane's task trains Hogwild (with its worker's thread count) on the lane's
next slice, from the replica, at the learning rate of the global schedule
(position in the whole run) times the merge rule's multiple, and returns
only the rows it changed, cut into ``ranges`` ranges of rows (row ``i`` in
range ``i % ranges``).  A part task takes each range of each lane where the
lane's result lies, and one merge task per range, on the worker of the lane
of that number, merges the range of every lane (a reduce-scatter: each
worker sends its rows once and merges one range).  The next round's tasks,
submitted while this round runs, start from the merged ranges as soon as
they exist (an all-gather: each worker receives every range once), so the
driver is not on the path from one round to the next.  Every replica, and
the driver (which fetches the ranges while the next round trains), adds
them with :func:`w2v.distributed.merge.apply_update`, so all stay
bit-for-bit equal.  A lane with no tokens in a round still gets a task that
only applies the update, so its replica stays current.

Faults: a task whose worker dies is rescheduled by Dask (and ``retries``
covers exceptions); a shard lost with its worker is recomputed from
lineage.  A task that lands on a worker without an up-to-date replica
answers "stale"; the round's merge tasks then report the round
"incomplete", the driver cancels the next round (already submitted),
resubmits the stale or failed lanes with the full weights (its own copy,
which is exact up to the previous round) and merges again.
"""
import dataclasses
import time

import numpy as np

from ..errors import W2VError
from .cluster import Cancelled, DistributedError
from .merge import apply_update
from .report import round_entry
from .worker import merge_range_task, part_task, round_task, state_bytes, sync_task

MAX_FALLBACKS = 3          # full-state resubmissions per lane and round before giving up
FIRST_ROUND_WAIT = 1800.0  # seconds the first round may take (the workers may compile the kernels first)
ROUND_WAIT = 600.0         # seconds any later round may take at least ...
ROUND_WAIT_FACTOR = 20.0   # ... or this many times the slowest round so far


@dataclasses.dataclass
class MergedRound:
    """A round merged and applied to the driver's weights.

    Attributes
    ----------
    spec : dict
        The round (:meth:`w2v.distributed.plan.RoundPlan.spec`).
    ranges : list of dict
        The merge tasks' results, by range: the merged ``rows``; range 0's
        also holds each lane's statistics in ``lanes``.
    fallbacks : int
        Lanes resubmitted with the full weights.
    wait_started, got : float
        ``time.perf_counter()`` when the driver began to wait for the round and when its result came.
    wall_got : float
        ``time.time()`` when the result came.
    """
    spec: dict
    ranges: list
    fallbacks: int
    wait_started: float
    got: float
    wall_got: float

    @property
    def lanes(self):
        """Each lane's statistics, timings and payload (in the round's lane order)."""
        return self.ranges[0]["lanes"]

    @property
    def wall_end(self):
        """``time.time()`` on the workers when the last merge task ended."""
        return max(r["wall_end"] for r in self.ranges)

    @property
    def update(self):
        """The merged update of the whole round, per matrix: ``(indices, q, scales)`` of every range."""
        return [tuple(np.concatenate([r["rows"][m][k] for r in self.ranges]) for k in range(3))
                for m in range(len(self.ranges[0]["rows"]))]

    def log_entry(self, previous_got, previous_wall_end, addresses):
        """The round's entry of the run's log, after a round whose result came at ``previous_got``
        (``time.perf_counter()``) and whose merge ended at ``previous_wall_end`` (``time.time()``);
        ``addresses`` lists the workers in the order of the per-worker figures."""
        return round_entry(self, previous_got, previous_wall_end, addresses)


class Rounds:
    """Submits the rounds of a run and yields them merged, in order (see the module docstring).

    Parameters
    ----------
    tasks : w2v.distributed.vocabulary.LaneTasks
    plan : w2v.distributed.plan.RoundPlan
    run_id : str
        The run's key of the workers' replicas.
    lane_shards : list of list of distributed.Future
        Each lane's encoded shards.
    weights : list of numpy.ndarray
        The driver's weights (``syn0``, ``syn1neg``, ``syn1``): updated in place.
    setup : dict
        What every replica needs besides the weights: ``tables`` and the kernel ``params``.
    total_positions : int
        Ids of the whole run (the learning rate's schedule).
    reporter : w2v.training.progress.Progress
        Says which lanes were resubmitted.
    held : list
        The futures the run holds: the first full state is dropped from it
        (and ``lane_shards`` kept) once the first round is merged.
    round_hook : callable, optional
        For tests: called with the round, its lane futures and the cluster as each round is submitted.
    """

    def __init__(self, tasks, plan, run_id, lane_shards, weights, setup, total_positions, reporter, held,
                 round_hook=None):
        self.tasks = tasks
        self.cluster = tasks.cluster
        self.plan = plan
        self.run_id = run_id
        self.lane_shards = lane_shards
        self.weights = weights
        self.shapes = [w.shape for w in weights]
        self.setup = setup
        self.total_positions = total_positions
        self.reporter = reporter
        self.held = held
        self.round_hook = round_hook
        self.version = 0
        self.base = None
        self.slowest = 0.0

    def broadcast(self):
        """Send the weights at version 0 to every worker (the first round starts from them)."""
        self.base = self.full_state(0, broadcast=True)
        self.held.append(self.base[1])

    def full_state(self, version, broadcast=False):
        """The driver's weights as a replica's base: ``("full", future)``."""
        state = {"setup": self.setup, "weights": self.weights, "version": version}
        what = (f"sending the weights ({state_bytes(state) / 1e6:,.1f} MB) to "
                + ("every worker" if broadcast else "a worker"))
        return ("full", self.cluster.scatter(state, what, broadcast=broadcast))

    def run(self, schedule):
        """Train the rounds ``schedule`` (``(epoch, round)`` pairs); yield each as a :class:`MergedRound`.

        A round is yielded once its update is applied to the driver's
        weights; the next round is training by then.
        """
        cur = self.submit_round(schedule, 0, self.base, self.version) if schedule else None
        for i in range(len(schedule)):
            more = i + 1 < len(schedule)
            nxt = self.submit_round(schedule, i + 1, ("update", cur["merges"]), self.version + 1) if more else None
            wait_started = time.perf_counter()
            ranges, fallbacks, nxt = self._merged(cur, nxt)
            got, wall_got = time.perf_counter(), time.time()
            for r in ranges:   # the same rows, the same way, as every replica
                apply_update(self.weights, r["rows"])
            self.version += 1
            if self.version == 1:
                self.held.clear()
                self.held.extend(f for lane in self.lane_shards for f in lane)
            if nxt is None and more:
                nxt = self.submit_round(schedule, i + 1, ("update", cur["merges"]), self.version)
            self.slowest = max(self.slowest, got - wait_started)
            merged = MergedRound(cur["spec"], ranges, fallbacks, wait_started, got, wall_got)
            cur = nxt
            yield merged

    def submit_round(self, schedule, i, base, from_version):
        """Round ``schedule[i]``'s lane, part and merge tasks, from ``base`` at ``from_version``.

        The next round is submitted before this one ends and starts from this round's merge tasks' results.
        """
        spec = self.plan.spec(*schedule[i])
        futs = {k: self.submit_lane(spec, k, base, from_version) for k in spec["lanes"]}
        if self.round_hook is not None:
            self.round_hook(dict(epoch=spec["epoch"], round=spec["round"], version=from_version,
                                 futures=futs, client=self.tasks.client, workers=self.tasks.plan.workers,
                                 run_id=self.run_id))
        rnd = {"spec": spec, "lanes": futs, "parts": {k: self.submit_parts(spec, k, f) for k, f in futs.items()}}
        rnd["merges"] = self.submit_merges(rnd, from_version + 1)
        return rnd

    def submit_lane(self, spec, k, base, from_version, attempt=0):
        """Lane ``k``'s task of round ``spec``: train its slice, or only apply the update (no tokens)."""
        if k not in spec["active"]:
            return self.tasks.submit(sync_task, self.run_id, from_version, base, k, lane=k)
        used, pieces = self.plan.pieces(spec, k)
        sched = dict(lane=k, round=(spec["epoch"], spec["round"]), attempt=attempt,
                     position=spec["position"], round_total=spec["round_total"], total=self.total_positions,
                     lr_scale=spec["lr_scale"], ranges=self.plan.ranges, updates=self.plan.rule.counts_updates)
        return self.tasks.submit(round_task, self.run_id, from_version, base,
                                 [self.lane_shards[k][j] for j in used], pieces, sched, lane=k)

    def submit_parts(self, spec, k, lane_future):
        """The part tasks of lane ``k``'s result, one per range (none with one range: the merge takes it whole)."""
        if self.plan.ranges == 1:
            return [lane_future]
        return [self.tasks.submit(part_task, lane_future, j, lane=k) for j in range(self.plan.ranges)]

    def submit_merges(self, rnd, to_version):
        """The merge tasks of round ``rnd``, one per range, on the workers of the lanes of those numbers."""
        spec = rnd["spec"]
        pinned = spec["active"] or spec["lanes"]
        saturation = self.plan.rule.saturation(spec["alpha"], spec["lr_scale"])
        return [self.tasks.submit(merge_range_task, [rnd["parts"][k][j] for k in spec["lanes"]], self.shapes,
                                  spec["lr_scale"], to_version, j, saturation, lane=pinned[j % len(pinned)])
                for j in range(self.plan.ranges)]

    def wait_seconds(self):
        """How long the driver waits for a round before it gives up."""
        if self.version == 0:
            return FIRST_ROUND_WAIT
        return max(ROUND_WAIT, ROUND_WAIT_FACTOR * self.slowest)

    def _merged(self, cur, nxt):
        # round cur's merged ranges, lanes resubmitted until it is complete: (ranges, fallbacks, nxt),
        # nxt None if it was cancelled (it would start from an incomplete round)
        spec = cur["spec"]
        what = f"round {spec['round'] + 1} of epoch {spec['epoch'] + 1}"
        fallbacks = 0
        while True:
            try:
                self.cluster.wait(cur["merges"], f"{what} (its {len(cur['merges'])} merge tasks)",
                                  self.wait_seconds())
                ranges = self.cluster.results(cur["merges"], f"the merged update of {what}")
            except Cancelled:
                # the round needed data that only lost workers held (the weights scattered to
                # them, a merged update): Dask cancels it, as nothing can recompute that data.
                # Every lane starts again from the driver's weights once a worker is there.
                bad = {k: "lost with its worker" for k in spec["active"]}
                self.cluster.wait_for_worker()
                self.cluster.reschedule_unrunnable()
            except DistributedError:
                raise
            except Exception as exc:
                if not self.cluster.alive():
                    raise self.cluster.lost(exc) from None
                bad = self._failed_lanes(cur, None, exc)
            else:
                if all(r is not None and r["status"] == "ok" for r in ranges):
                    return ranges, fallbacks, nxt
                bad = self._failed_lanes(cur, ranges, None)
            if nxt is not None:   # it would start from an incomplete round: submitted again later
                self.cluster.cancel(list(nxt["lanes"].values()) + [f for p in nxt["parts"].values() for f in p]
                                    + nxt["merges"], f"the tasks of the round after {what}")
                nxt = None
            fallbacks += len(bad)
            if fallbacks > MAX_FALLBACKS * len(spec["lanes"]):
                k, why = next(iter(bad.items()))
                raise DistributedError(
                    f"round {spec['round'] + 1} of epoch {spec['epoch'] + 1} failed on lane {k}: "
                    + (" ".join(str(why).split()) or type(why).__name__ if isinstance(why, BaseException)
                       else "no worker holds the current weights"))
            self._resubmit(cur, bad, fallbacks)

    def _resubmit(self, cur, bad, attempt):
        # the lanes in bad again, from the driver's weights, with their parts and new merge tasks
        spec = cur["spec"]
        for k, why in bad.items():
            self.reporter.message(f"epoch {spec['epoch'] + 1} round {spec['round'] + 1}/{self.plan.n_rounds}: "
                                  f"lane {k} {why if isinstance(why, str) else 'failed'}, resubmitted with "
                                  "the full weights")
            cur["lanes"][k] = self.submit_lane(spec, k, self.full_state(self.version), self.version,
                                               attempt=attempt)
            cur["parts"][k] = self.submit_parts(spec, k, cur["lanes"][k])
        cur["merges"] = self.submit_merges(cur, self.version + 1)

    def _failed_lanes(self, rnd, ranges, error):
        # lane -> why, for a round whose merge tasks are not all "ok"
        if ranges is not None:
            bad = {}
            for r in ranges:
                for k, status in zip(rnd["spec"]["lanes"], r["statuses"]):
                    if status != "ok":
                        bad.setdefault(k, status)
            return bad
        bad = {k: self.cluster.call(f.exception) for k, f in rnd["lanes"].items() if f.status == "error"}
        if not bad:   # the lanes trained, the merge itself failed (e.g. a bad row index)
            if isinstance(error, W2VError):
                raise error
            raise DistributedError(f"merging round {rnd['spec']['round'] + 1} of epoch "
                                   f"{rnd['spec']['epoch'] + 1} failed: "
                                   + (" ".join(str(error).split()) or type(error).__name__))
        return bad
