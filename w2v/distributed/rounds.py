"""The rounds of a Dask run: submitted ahead, merged on a worker, lanes that failed resubmitted.

Every worker keeps a replica of the global weights.  In a round, each
lane's task trains Hogwild (with its worker's thread count) on the lane's
next slice, from the replica, at the learning rate of the global schedule
(position in the whole run), and returns only the rows it changed.  A merge
task (on the first active lane's worker) merges them into one update; the
next round's tasks, submitted while this round runs, start from it as soon
as it exists, so the driver is not on the path from one round to the next.
Every replica, and the driver (which fetches the update while the next
round trains), adds it with :func:`w2v.distributed.merge.apply_update`, so
all stay bit-for-bit equal.  A lane with no tokens in a round still gets a
task that only applies the update, so its replica stays current.

Faults: a task whose worker dies is rescheduled by Dask (and ``retries``
covers exceptions); a shard lost with its worker is recomputed from
lineage.  A task that lands on a worker without an up-to-date replica
answers "stale"; the round's merge task then reports the round
"incomplete", the driver cancels the next round (already submitted),
resubmits the stale or failed lanes with the full weights (its own copy,
which is exact up to the previous round) and merges again.
"""
import dataclasses
import time

from ..errors import W2VError
from .cluster import Cancelled, DistributedError
from .merge import apply_update
from .worker import merge_round_task, round_task, sync_task

MAX_FALLBACKS = 3   # full-state resubmissions per lane and round before giving up


@dataclasses.dataclass
class MergedRound:
    """A round merged and applied to the driver's weights.

    Attributes
    ----------
    spec : dict
        The round (:meth:`w2v.distributed.plan.RoundPlan.spec`).
    result : dict
        The merge task's result: the merged ``rows``, each lane's statistics in ``lanes``.
    fallbacks : int
        Lanes resubmitted with the full weights.
    wait_started, got : float
        ``time.perf_counter()`` when the driver began to wait for the round and when its result came.
    wall_got : float
        ``time.time()`` when the result came.
    """
    spec: dict
    result: dict
    fallbacks: int
    wait_started: float
    got: float
    wall_got: float

    def log_entry(self, previous_got, previous_wall_end):
        """The round's line of the run's log, after a round whose result came at ``previous_got``
        (``time.perf_counter()``) and whose merge ended at ``previous_wall_end`` (``time.time()``)."""
        spec, res = self.spec, self.result
        meta = res["lanes"]
        return dict(epoch=spec["epoch"], round=spec["round"], seconds=self.got - previous_got,
                    wait_seconds=self.got - self.wait_started,
                    merge_seconds=res["seconds"], fallbacks=self.fallbacks,
                    train_seconds=max(x["train_seconds"] for x in meta),
                    task_seconds=max(x["seconds"] for x in meta),
                    tokens=spec["round_total"], bytes_up=sum(x["nbytes"] for x in meta),
                    bytes_down=sum(a.nbytes for part in res["rows"] for a in part) * len(meta),
                    # wall clock: previous merge's end -> first task start (the gap on the
                    # workers between rounds), merge end -> result here (off the critical path)
                    dispatch_seconds=min(x["wall"][0] for x in meta) - previous_wall_end,
                    collect_seconds=self.wall_got - res["wall_end"],
                    rows=[int(u[0].size) for u in res["rows"]])


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

    def broadcast(self):
        """Send the weights at version 0 to every worker (the first round starts from them)."""
        self.base = self.full_state(0, broadcast=True)
        self.held.append(self.base[1])

    def full_state(self, version, broadcast=False):
        """The driver's weights as a replica's base: ``("full", future)``."""
        return ("full", self.cluster.scatter({"setup": self.setup, "weights": self.weights, "version": version},
                                             broadcast=broadcast))

    def run(self, schedule):
        """Train the rounds ``schedule`` (``(epoch, round)`` pairs); yield each as a :class:`MergedRound`.

        A round is yielded once its update is applied to the driver's
        weights; the next round is training by then.
        """
        cur = self.submit_round(schedule, 0, self.base, self.version) if schedule else None
        for i in range(len(schedule)):
            more = i + 1 < len(schedule)
            nxt = self.submit_round(schedule, i + 1, ("update", cur["merge"]), self.version + 1) if more else None
            wait_started = time.perf_counter()
            res, fallbacks, nxt = self._merged(cur, nxt)
            got, wall_got = time.perf_counter(), time.time()
            apply_update(self.weights, res["rows"])   # the same rows, the same way, as every replica
            self.version += 1
            if self.version == 1:
                self.held.clear()
                self.held.extend(f for lane in self.lane_shards for f in lane)
            if nxt is None and more:
                nxt = self.submit_round(schedule, i + 1, ("update", cur["merge"]), self.version)
            merged = MergedRound(cur["spec"], res, fallbacks, wait_started, got, wall_got)
            cur = nxt
            yield merged

    def submit_round(self, schedule, i, base, from_version):
        """Round ``schedule[i]``'s lane tasks and its merge task, from ``base`` at ``from_version``.

        The next round is submitted before this one ends and starts from this merge task's result.
        """
        spec = self.plan.spec(*schedule[i])
        futs = {k: self.submit_lane(spec, k, base, from_version) for k in spec["lanes"]}
        if self.round_hook is not None:
            self.round_hook(dict(epoch=spec["epoch"], round=spec["round"], version=from_version,
                                 futures=futs, client=self.tasks.client, workers=self.tasks.plan.workers,
                                 run_id=self.run_id))
        return {"spec": spec, "lanes": futs, "merge": self.submit_merge(spec, futs, from_version + 1)}

    def submit_lane(self, spec, k, base, from_version, attempt=0):
        """Lane ``k``'s task of round ``spec``: train its slice, or only apply the update (no tokens)."""
        if k not in spec["active"]:
            return self.tasks.submit(sync_task, self.run_id, from_version, base, k, lane=k)
        used, pieces = self.plan.pieces(spec, k)
        sched = dict(lane=k, round=(spec["epoch"], spec["round"]), attempt=attempt,
                     position=spec["position"], round_total=spec["round_total"], total=self.total_positions,
                     lr_scale=spec["lr_scale"])
        return self.tasks.submit(round_task, self.run_id, from_version, base,
                                 [self.lane_shards[k][j] for j in used], pieces, sched, lane=k)

    def submit_merge(self, spec, lane_futures, to_version):
        """The merge task of round ``spec`` (lane results in ``spec["lanes"]`` order)."""
        return self.tasks.submit(merge_round_task, [lane_futures[k] for k in spec["lanes"]], self.shapes,
                                 self.plan.merge, to_version,
                                 lane=spec["active"][0] if spec["active"] else None)

    def _merged(self, cur, nxt):
        # round cur's merged result, lanes resubmitted until it is complete: (result, fallbacks, nxt),
        # nxt None if it was cancelled (it would start from an incomplete round)
        spec = cur["spec"]
        fallbacks = 0
        while True:
            try:
                self.cluster.wait([cur["merge"]])
                res = self.cluster.call(cur["merge"].result)
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
                if res is not None and res["status"] == "ok":
                    return res, fallbacks, nxt
                bad = self._failed_lanes(cur, res, None)
            if nxt is not None:   # it would start from an incomplete round: submitted again later
                self.cluster.call(self.tasks.client.cancel, list(nxt["lanes"].values()) + [nxt["merge"]])
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
        # the lanes in bad again, from the driver's weights, and a new merge task
        spec = cur["spec"]
        for k, why in bad.items():
            self.reporter.message(f"epoch {spec['epoch'] + 1} round {spec['round'] + 1}/{self.plan.n_rounds}: "
                                  f"lane {k} {why if isinstance(why, str) else 'failed'}, resubmitted with "
                                  "the full weights")
            cur["lanes"][k] = self.submit_lane(spec, k, self.full_state(self.version), self.version,
                                               attempt=attempt)
        cur["merge"] = self.submit_merge(spec, cur["lanes"], self.version + 1)

    def _failed_lanes(self, rnd, res, error):
        # lane -> why, for a round whose merge task is not "ok"
        if res is not None:
            return {k: lane["status"] for k, lane in zip(rnd["spec"]["lanes"], res["lanes"])
                    if lane["status"] != "ok"}
        bad = {k: self.cluster.call(f.exception) for k, f in rnd["lanes"].items() if f.status == "error"}
        if not bad:   # the lanes trained, the merge itself failed (e.g. a bad row index)
            if isinstance(error, W2VError):
                raise error
            raise DistributedError(f"merging round {rnd['spec']['round'] + 1} of epoch "
                                   f"{rnd['spec']['epoch'] + 1} failed: "
                                   + (" ".join(str(error).split()) or type(error).__name__))
        return bad
