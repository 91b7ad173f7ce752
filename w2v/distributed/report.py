"""The figures of a merged round: time, tokens, and the payload bytes each worker sent and received.

Every task that hands on weights records where it ran and what it received
from another worker as ``(from, to, bytes)`` edges
(:mod:`w2v.distributed.worker`); the driver adds the merged ranges it
fetches.  A round's edges are those its tasks received: the previous
round's merged ranges (or the full weights, from the driver) gathered by
its lane tasks, the parts its merge tasks gathered, and the merged ranges
the driver fetched.  Payload is the bytes of the arrays (row indices, int16
rows, scales; the weights and tables of a full state), not what the
network carries around them.
"""
from .worker import DRIVER


def round_edges(merged):
    """Every ``(from, to, bytes)`` payload edge of a :class:`w2v.distributed.rounds.MergedRound`."""
    edges = [tuple(e) for lane in merged.lanes for e in lane.get("edges", ())]
    for r in merged.ranges:
        edges += [tuple(e) for e in r["edges"]]
        edges.append((r["worker"], DRIVER, r["nbytes"]))
    return edges


def traffic(edges, addresses):
    """Bytes sent and received by each worker: ``(sent, received)``, lists in the order of ``addresses``.

    Addresses not yet in ``addresses`` (a worker that joined during the run)
    are appended to it; the driver is not a worker and has no entry.
    """
    for a, b, _ in edges:
        for x in (a, b):
            if x != DRIVER and x not in addresses:
                addresses.append(x)
    index = {a: i for i, a in enumerate(addresses)}
    sent, received = [0] * len(addresses), [0] * len(addresses)
    for a, b, n in edges:
        if a == b:
            continue
        if a in index:
            sent[index[a]] += int(n)
        if b in index:
            received[index[b]] += int(n)
    return sent, received


def round_entry(merged, previous_got, previous_wall_end, addresses):
    """The log entry of a merged round (see :meth:`w2v.distributed.rounds.MergedRound.log_entry`).

    The keys of ``--report-json``'s ``rounds`` (:data:`REPORT_KEYS`) come
    with the older summary keys (``seconds``, ``bytes_up``, ``bytes_down``,
    ``rows`` ...).
    """
    spec, meta = merged.spec, merged.lanes
    sent, received = traffic(round_edges(merged), addresses)
    active = [x for x in meta if not x.get("sync")] or meta
    rows = [sum(int(r["rows"][m][0].size) for r in merged.ranges) for m in range(len(merged.ranges[0]["rows"]))]
    down = sum(r["nbytes"] for r in merged.ranges)
    merge_seconds = [r["seconds"] for r in merged.ranges]
    return dict(
        epoch=spec["epoch"], round=spec["round"],
        workers=len({x.get("worker") for x in meta} | {r["worker"] for r in merged.ranges}),
        tokens=int(sum(x["stats"][3] for x in meta)),
        wall_seconds=merged.got - previous_got,
        train_seconds=[x["train_seconds"] for x in active], merge_seconds=merge_seconds,
        sent_bytes=sent, received_bytes=received,
        # the summary of the round
        seconds=merged.got - previous_got, wait_seconds=merged.got - merged.wait_started,
        fallbacks=merged.fallbacks, task_seconds=max(x["seconds"] for x in meta),
        stream_tokens=spec["round_total"], lr_scale=spec["lr_scale"],
        bytes_up=sum(x["nbytes"] for x in meta), bytes_down=down * len(meta),
        # wall clock: previous merge's end -> first task start (the gap on the workers between
        # rounds), merge end -> result here (off the critical path)
        dispatch_seconds=min(x["wall"][0] for x in meta) - previous_wall_end,
        collect_seconds=merged.wall_got - merged.wall_end,
        rows=rows)


REPORT_KEYS = ("epoch", "round", "workers", "tokens", "wall_seconds", "train_seconds", "merge_seconds",
               "sent_bytes", "received_bytes")
