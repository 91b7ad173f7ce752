"""The merge rules of a Dask run, and the rows of a round cut into the ranges that merge tasks own.

Rows travel as block floating point: one float32 scale per row and the row's
entries as int16 multiples of it (``row ~= q * scale``, scale = max|row| / 32767),
half the bytes of float32 with a relative error below 2e-5 of the row's
largest entry.  Workers send their deltas so; a round's merge tasks merge
them and quantize the merged delta once more, and the driver and every
replica add *those* quantized rows with the same function (no fastmath: the
float32 operations are identical), so the replicas stay bit-for-bit equal to
the driver's weights without the new values being sent.

A merge rule (:class:`MergeRule`) says at what multiple ``s`` of the learning
rate the lanes of a round train, and divides the sum of a row's deltas by
the number of lanes that changed it, or by ``s`` where that is larger:

``"scaled"`` (default)
    ``s = min(W, alpha_cap / alpha)``: the ``W`` lanes of the round train at
    ``W`` times the learning rate ``alpha`` of the global schedule, but never
    above ``alpha_cap`` (:data:`ALPHA_CAP`).  A row that changes a little in
    each lane gets the sum of the lanes' changes at the unscaled rate (what
    one process would apply for the same words); a row that every lane
    drives to the same place (the frequent words) gets their average.  The
    cap keeps the local rate where one process trains stably.
``"mean"``
    ``s = W``, uncapped: every lane trains at ``W`` times the learning rate
    and every row is divided by ``W``.
``"touched"``
    ``s = 1``: Spark MLlib's rule, the mean over the lanes that changed the
    row at the unscaled rate (rows that every lane changes learn ``W`` times
    more slowly).

``docs/distributed.md`` gives the measurements behind the default.
"""
import dataclasses

import numpy as np

from ..errors import ParameterError
from ..kernels.merge import add_quantized_rows, changed_rows, merge_matrix, quantize_rows  # noqa: F401
from .cluster import DistributedError

ALPHA_CAP = 0.1   # largest local learning rate of the "scaled" rule (one process diverges at 0.2)


@dataclasses.dataclass(frozen=True)
class MergeRule:
    """The learning-rate multiple of a round's lanes and the divisor of a merged row.

    Attributes
    ----------
    name : {"scaled", "mean", "touched"}
    alpha_cap : float
        ``"scaled"``: the largest local learning rate.
    """
    name: str = "scaled"
    alpha_cap: float = ALPHA_CAP

    def lr_scale(self, lanes, alpha):
        """The multiple of the learning rate at which ``lanes`` lanes train where the schedule is at ``alpha``."""
        if self.name == "touched" or lanes <= 1:
            return 1.0
        if self.name == "mean":
            return float(lanes)
        return float(min(lanes, max(1.0, self.alpha_cap / alpha))) if alpha > 0 else float(lanes)


MERGES = {name: MergeRule(name) for name in ("scaled", "mean", "touched")}


def merge_rule(merge):
    """The :class:`MergeRule` of ``merge`` (a name of :data:`MERGES`, or a rule)."""
    if isinstance(merge, MergeRule):
        return merge
    try:
        return MERGES[merge]
    except (KeyError, TypeError):
        raise ParameterError(f"merge must be one of {', '.join(MERGES)} (got {merge!r})") from None


def apply_update(weights, update):
    """Add a merged update (:func:`merge_updates`) to ``weights`` in place.

    The driver and every replica apply updates with this one function, so
    they stay bit-for-bit equal.
    """
    for w, (idx, q, scale) in zip(weights, update):
        if idx.size:
            # the kernel has no bounds checks: indices, rows and scales must fit the weights
            ok = (isinstance(w, np.ndarray) and w.ndim == 2 and w.dtype == np.float32 and w.flags.c_contiguous
                  and idx.ndim == 1 and idx.dtype == np.int32 and q.dtype == np.int16
                  and q.shape == (idx.size, w.shape[1]) and scale.dtype == np.float32
                  and scale.shape == (idx.size,) and int(idx.min()) >= 0 and int(idx.max()) < w.shape[0])
            if not ok:
                raise DistributedError("an update does not fit the weights (indices, rows or scales)")
            add_quantized_rows(w, idx, q, scale)


def merge_round(weights, parts, divisor_floor):
    """Merge the changed rows of one round into ``weights`` (in place).

    :func:`merge_updates` then :func:`apply_update`.

    Returns
    -------
    update : list of (indices, q, scales)
        Per matrix, the merged delta as it was added to ``weights``.
    """
    update = merge_updates([w.shape for w in weights], parts, divisor_floor)
    apply_update(weights, update)
    return update


def merge_updates(shapes, parts, divisor_floor):
    """Merge the changed rows that the lanes returned for one round (or for one range of rows).

    Parameters
    ----------
    shapes : list of (int, int)
        Shapes of the global matrices (``syn0``, ``syn1neg``, ``syn1``).
    parts : list of list of (indices, q, scales)
        Per lane, per matrix: the rows it changed and the quantized deltas
        (as :func:`changed_rows` returns them).
    divisor_floor : float
        A row's summed deltas are divided by the number of lanes that
        changed it, or by this where it is larger (the lanes' learning-rate
        multiple, :meth:`MergeRule.lr_scale`).

    Returns
    -------
    update : list of (indices, q, scales)
        Per matrix, the merged delta, quantized (what :func:`apply_update` adds).
    """
    update = []
    for m, (v, dim) in enumerate(shapes):
        # every lane's rows of matrix m one after the other: indices, int16 rows, scales
        idx, q, scale = (np.concatenate([np.empty((0,) + shape, dtype)]
                                        + [np.asarray(p[m][k], dtype).reshape((-1,) + shape) for p in parts])
                         for k, dtype, shape in ((0, np.int32, ()), (1, np.int16, (dim,)),
                                                 (2, np.float32, ())))
        if idx.size and (idx.min() < 0 or idx.max() >= v):
            raise DistributedError("a worker returned a row index outside the weights")
        if q.shape[0] != idx.size or scale.size != idx.size:
            raise DistributedError(f"a worker returned {idx.size} row indices with {q.shape[0]} rows "
                                   f"and {scale.size} scales")
        update.append(merge_matrix(v, dim, idx, q, scale, float(divisor_floor)))
    return update


def split_rows(rows, n_ranges):
    """``rows`` (per matrix ``(indices, q, scales)``) cut into ``n_ranges`` ranges: row ``i`` goes to ``i % n_ranges``.

    Rows are dealt out by index modulo the number of ranges, so that every
    range holds its share of the frequent words (the first ids) and of the
    rare ones.  Returns a list of ``n_ranges`` lists shaped like ``rows``;
    each range keeps the rows in index order.
    """
    if n_ranges == 1:
        return [list(rows)]
    ranges = [[] for _ in range(n_ranges)]
    for idx, q, scale in rows:
        key = idx % n_ranges
        order = np.argsort(key, kind="stable")
        cuts = np.searchsorted(key[order], np.arange(n_ranges + 1))
        for j in range(n_ranges):
            take = order[cuts[j]:cuts[j + 1]]
            ranges[j].append((idx[take], q[take], scale[take]))
    return ranges


def payload_bytes(rows):
    """Bytes of the arrays of ``rows`` (per matrix ``(indices, q, scales)``)."""
    return int(sum(a.nbytes for part in rows for a in part))
