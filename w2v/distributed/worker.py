"""What runs inside the worker processes: the run's weight replicas and the tasks of a run.

Every worker keeps, per run, a :class:`Replica` of the global weights at a
version (the number of rounds merged into it).  A round's task brings the
replica to the round's version (from the previous round's merged ranges, or
from the full weights the driver sends), trains the lane's slice of the
round on a copy, and returns the rows it changed, cut into the round's
ranges of rows (:func:`round_task`); :func:`part_task` takes one range of a
lane's result, and the range's merge task (:func:`merge_range_task`) merges
that range of every lane into its share of the update of the next version.
The scan, count and encode tasks read the corpus shards where they lie.

Every task that hands on weights says where it ran (``"worker"``) and which
payload it received from another worker (``"edges"``: ``(from, to, bytes)``),
so that the driver can count the bytes each worker sent and received.

Dask sends a task's function by reference (module and name): the tasks are
module-level functions of this module.
"""
import threading
import time

import numpy as np

from .merge import (add_quantized_rows, apply_update, changed_rows, expected_updates, merge_matrix,
                    merge_matrix_weighted, merge_updates, payload_bytes, split_rows)
from .plan import deal_blocks

REPLICAS = {}                      # run id -> Replica, in each worker process
_REPLICAS_LOCK = threading.Lock()
DRIVER = "driver"                  # the sender of the weights scattered by the driver, in ``edges``
_HEAVY = ("parts", "rows")         # the keys of a result that hold rows


class Replica:
    """A worker's copy of the global weights at ``version`` and the run's read-only setup."""

    def __init__(self, setup, weights, version):
        # writable copies: arrays deserialized by Dask can be read-only, which
        # Numba types (and compiles) differently from the driver's arrays
        t = setup["tables"]
        tables = type(t)(*(np.array(a, copy=True) for a in (
            t.keep_threshold, t.noise_threshold, t.noise_alias, t.hs_codes, t.hs_points, t.hs_lengths)))
        self.setup = {**setup, "tables": tables}
        self.weights = [np.array(w, dtype=np.float32, copy=True) for w in weights]
        self.version = version
        self.lock = threading.Lock()
        self.scratch = {}

    def work_copy(self):
        """The calling thread's scratch matrices, reset to the replica."""
        key = threading.get_ident()
        with self.lock:
            bufs = self.scratch.get(key)
            if bufs is None:
                bufs = [np.empty_like(w) for w in self.weights]
                self.scratch[key] = bufs
        for b, w in zip(bufs, self.weights):
            np.copyto(b, w)
        return bufs

    def advance(self, ranges, version):
        """Add a round's merged ranges, which bring the replica from ``version - 1`` to ``version``.

        Nothing is added unless every range is complete and of that version.
        """
        if self.version == version - 1 and all(r["status"] == "ok" and r["version"] == version for r in ranges):
            for r in ranges:
                apply_update(self.weights, r["rows"])
            self.version = version


def state_bytes(state):
    """Payload bytes of a full state (the weights and the sampling tables)."""
    t = state["setup"]["tables"]
    tables = (t.keep_threshold, t.noise_threshold, t.noise_alias, t.hs_codes, t.hs_points, t.hs_lengths)
    return int(sum(w.nbytes for w in state["weights"]) + sum(np.asarray(a).nbytes for a in tables))


def here():
    """The address of the worker this task runs on (``""`` outside a worker)."""
    try:
        from distributed import get_worker   # optional extra: dask
        return get_worker().address
    except Exception:
        return ""


def base_edges(base, me):
    """The payload a task received with its ``base``: ``(from, to, bytes)`` of the ranges made elsewhere."""
    kind, payload = base
    if kind == "full":
        return [(DRIVER, me, state_bytes(payload))]
    return [(r["worker"], me, r["nbytes"]) for r in payload if r.get("worker") != me and "nbytes" in r]


def replica_for(run_id, version, base):
    """This worker's replica of ``run_id`` brought to ``version``, or None if it cannot be.

    ``base`` is ``("full", state)`` (weights scattered by the driver) or
    ``("update", ranges)``: the previous round's merged ranges.
    """
    kind, payload = base
    with _REPLICAS_LOCK:
        rep = REPLICAS.get(run_id)
        if kind == "full":
            if rep is None or rep.version != version:
                rep = Replica(payload["setup"], payload["weights"], payload["version"])
                REPLICAS[run_id] = rep
            return rep
        if rep is None:
            return None
        # a round that failed somewhere is "incomplete" and brings no replica forward
        rep.advance(payload, version)
        return rep if rep.version == version else None


def forget_run(run_id):
    """Drop this worker's replica of ``run_id`` (run on every worker when a run ends)."""
    with _REPLICAS_LOCK:
        REPLICAS.pop(run_id, None)
    return True


def worker_threads():
    """Threads of the worker this task runs on (1 outside a worker)."""
    try:
        from distributed import get_worker   # optional extra: dask
        w = get_worker()
        return max(1, int(getattr(getattr(w, "state", w), "nthreads", 1)))
    except Exception:
        return 1


def train_slice(tokens, work, setup, sched, threads):
    """Hogwild over ``tokens`` with ``threads`` threads; returns ``[loss, examples, kept, seen]``."""
    from ..kernels.cpu import train_tokens
    from ..training.lifecycle import seed_states
    from ..training.kernelcalls import kernel_args

    t = setup["tables"]
    p = setup["params"]
    threads = max(1, min(threads, tokens.size // 10000 or 1))
    cuts = [tokens.size * i // threads for i in range(threads + 1)]
    rng = seed_states(hash((p["seed"],) + tuple(sched["round"]) + (sched["lane"],)) & 0x7FFFFFFFFFFFFFFF,
                      threads)
    stats = np.zeros((threads, 8), np.float64)
    syn0, syn1neg, syn1 = work
    lr = sched["lr_scale"]

    def run(i):
        sub = tokens[cuts[i]:cuts[i + 1]]
        if sub.size == 0:
            return
        # the cluster advances round_total tokens while this thread trains sub.size of them:
        # scaled positions make the learning rate follow the run's global schedule
        m = sched["round_total"] / sub.size
        pos0 = int(round(sched["position"] / m))
        total = max(1, int(round(sched["total"] / m)))
        # kernel_args: the same argument types as the kernel loaded by start_kernel_load_task
        train_tokens(sub, pos0, total, *kernel_args(p, syn0, syn1neg, syn1, t, lr_scale=lr), rng[i], stats[i])

    if threads == 1:
        run(0)
    else:
        errors = []

        def guarded(i):
            try:
                run(i)
            except BaseException as exc:  # pragma: no cover - surfaced below
                errors.append(exc)

        pool = [threading.Thread(target=guarded, args=(i,), daemon=True) for i in range(threads)]
        for th in pool:
            th.start()
        for th in pool:
            th.join()
        if errors:
            raise errors[0]
    return stats.sum(axis=0)[:4]


def round_task(run_id, version, base, shards, pieces, sched):
    """Train one lane's slice of one round; return the changed rows, cut into the round's ranges.

    ``shards`` are the encoded shards the slice reads (resolved by Dask),
    ``pieces`` its ``(index in shards, start, stop)`` ranges; ``sched`` holds
    the lane, the round, the schedule's position, the learning-rate
    multiple, ``ranges`` (the number of ranges of rows) and ``updates``
    (whether each changed row goes with the updates behind it).
    """
    t0, wall0 = time.perf_counter(), time.time()
    me = here()
    rep = replica_for(run_id, version, base)
    if rep is None:
        return {"status": "stale", "lane": sched["lane"], "worker": me}
    tokens = np.concatenate([shards[k][a:b] for k, a, b in pieces])   # a writable copy
    threads = worker_threads()
    work = rep.work_copy()
    t1 = time.perf_counter()
    stats = train_slice(tokens, work, rep.setup, sched, threads)
    t2 = time.perf_counter()
    rows = [changed_rows(w, b) for w, b in zip(work, rep.weights)]
    if sched.get("updates"):   # the merge weighs each row by the updates behind it
        n = expected_updates(tokens, rep.setup["tables"], rep.setup["params"], [w.shape for w in rep.weights])
        rows = [(i, q, sc, nm[i].astype(np.float32)) for (i, q, sc), nm in zip(rows, n)]
    parts = split_rows(rows, sched["ranges"])
    return {"status": "ok", "lane": sched["lane"], "parts": parts, "stats": stats,
            "tokens": int(tokens.size), "threads": threads, "nbytes": payload_bytes(rows),
            "part_bytes": [payload_bytes(p) for p in parts], "train_seconds": t2 - t1,
            "seconds": time.perf_counter() - t0, "wall": (wall0, time.time()), "worker": me,
            "edges": base_edges(base, me)}


def sync_task(run_id, version, base, lane):
    """Bring this worker's replica to ``version`` for a lane with no tokens in the round.

    A lane whose slice of a round is empty (a lane with fewer ids than rounds)
    trains nothing, but its worker still applies the previous round's update,
    so that its next training task finds the replica current instead of
    answering "stale" and being resent the full weights.
    """
    t0, wall0 = time.perf_counter(), time.time()
    me = here()
    if replica_for(run_id, version, base) is None:
        return {"status": "stale", "lane": lane, "worker": me}
    return {"status": "ok", "lane": lane, "sync": True, "stats": np.zeros(4), "tokens": 0, "threads": 0,
            "nbytes": 0, "part_bytes": [], "train_seconds": 0.0, "seconds": time.perf_counter() - t0,
            "wall": (wall0, time.time()), "worker": me, "edges": base_edges(base, me)}


def lane_meta(result):
    """A lane's result without its rows: status, statistics, timings, where it ran, what it received."""
    return {k: v for k, v in result.items() if k not in _HEAVY}


def part_task(result, j):
    """Range ``j`` of a lane's result (:func:`round_task` or :func:`sync_task`), taken where the result lies.

    The part of range 0 also carries the lane's statistics (``"meta"``); a
    lane that did not train ("stale", or a sync lane) gives its status only.
    """
    me = here()
    out = {"part": True, "status": result["status"], "lane": result["lane"], "worker": me,
           "sync": bool(result.get("sync")), "edges": []}
    if j == 0:
        out["meta"] = lane_meta(result)
    if result["status"] == "ok" and not out["sync"]:
        if result["worker"] != me:   # the lane's whole result was moved here
            out["edges"].append((result["worker"], me, result["nbytes"]))
        out["rows"] = result["parts"][j]
        out["nbytes"] = result["part_bytes"][j]
    return out


def merge_range_task(parts, shapes, divisor_floor, version, j, saturation=None):
    """Merge range ``j`` of one round's lanes (their parts, in lane order) into its share of the update.

    ``parts`` are :func:`part_task` results, or, with one range, the lanes'
    results themselves.  Runs on a worker, so that the next round's tasks
    start from the merged ranges without a trip through the driver.  A round
    where a lane answered "stale" is "incomplete": the driver resubmits those
    lanes.  The merge task of range 0 carries every lane's statistics; lanes
    that trained nothing (sync lanes) are waited for, so that every replica
    moves on together, and not merged.
    """
    t0 = time.perf_counter()
    me = here()
    parts = [p if p.get("part") else part_task(p, j) for p in parts]
    edges = [e for p in parts for e in p["edges"]]
    edges += [(p["worker"], me, p["nbytes"]) for p in parts if "rows" in p and p["worker"] != me]
    out = {"range": j, "version": version, "worker": me, "statuses": [p["status"] for p in parts],
           "lanes": [p["meta"] for p in parts] if j == 0 else None, "edges": edges}
    if any(p["status"] != "ok" for p in parts):
        return {**out, "status": "incomplete"}
    rows = merge_updates(shapes, [p["rows"] for p in parts if "rows" in p], divisor_floor, saturation)
    return {**out, "status": "ok", "rows": rows, "nbytes": payload_bytes(rows),
            "seconds": time.perf_counter() - t0, "wall_end": time.time()}


def load_round_kernels(dim, merge=True):
    """Load the machine code of the round kernels by calling them on stand-ins with the real types.

    The first call of a cached Numba function loads its machine code (0.1-1 s
    each): done early, so that the first round does not wait for it.  Workers
    train, merge and apply; the driver only applies (``merge=False``).
    """
    w = np.zeros((2, dim), np.float32)
    idx, q, scale = changed_rows(w, w.copy())
    add_quantized_rows(w, idx, q, scale)
    if merge:
        merge_matrix(2, dim, idx, q, scale, 1.0)
        merge_matrix_weighted(2, dim, idx, q, scale, np.zeros(idx.size), 1.0, 0.1, 0.1)


def start_kernel_load_task(settings):
    """Start loading the training and round kernels in a thread of this worker process.

    Run by ``client.run`` on every worker while the shards are scanned (as the
    single-process trainer loads its kernel while it reads the corpus).
    """
    from ..training.kernelcalls import start_kernel_load
    start_kernel_load(settings, then=lambda: load_round_kernels(settings.dim))
    return True


def scan_task(shard, tokenizer, lowercase):
    """Tokenize a shard (:func:`w2v.text.shards.scan_shard`); the result stays in the worker's memory."""
    from ..text.shards import scan_shard
    return scan_shard(shard, tokenizer, lowercase)


def counts_task(scan):
    """A scanned shard's ``(words, counts)``."""
    return scan.words, scan.counts


def replaced_bytes(scan):
    """A shard's words that hold U+FFFD, their counts, and its replaced byte sequences."""
    bad = [i for i, w in enumerate(scan.words) if "\ufffd" in w]
    return [scan.words[i] for i in bad], [int(scan.counts[i]) for i in bad], int(scan.replaced)


def merge_counts_task(a, b):
    """Two ``(words, counts)`` merged in order (:func:`w2v.text.shards.merge_counts`): a step of the tree reduction."""
    from ..text.shards import merge_counts
    return merge_counts(a, b)


def vocab_index_task(merged, min_count, max_vocab_size):
    """The vocabulary's word -> id index, built from the merged counts as the driver builds it."""
    from ..text.vocab import build_vocab
    vocab, _ = build_vocab(merged[0], merged[1], min_count, max_vocab_size)
    return vocab.index


def index_task(words):
    """The word -> id index of an existing vocabulary's ``words``."""
    return {w: i for i, w in enumerate(words)}


def encode_task(scan, vocab_index):
    """A scanned shard's provisional ids as final vocabulary ids (:func:`w2v.text.shards.encode_ids`)."""
    from ..text.shards import encode_ids
    return encode_ids(scan.ids, scan.words, vocab_index)


def deal_task(ids, offset, block, lanes, lane):
    """An encoded shard's ids that ``lane`` trains (:func:`w2v.distributed.plan.deal_blocks`)."""
    return deal_blocks(ids, offset, block, lanes, lane)


def shape_task(ids, scan):
    """An encoded shard's length, in-vocabulary words and raw tokens, and its :func:`replaced_bytes`."""
    return int(ids.size), int(np.count_nonzero(ids >= 0)), int(scan.n_tokens), replaced_bytes(scan)



# the tasks that prefer their lane's worker (see w2v.distributed.cluster.Cluster.reschedule_unrunnable)
PINNED_TASKS = frozenset(f.__name__ for f in (scan_task, counts_task, encode_task, shape_task, deal_task,
                                               round_task, sync_task, part_task, merge_range_task))
