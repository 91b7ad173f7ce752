"""Merging the rows that the workers changed in a round, and adding the merged update.

Rows travel as block floating point: one float32 scale per row and the row's
entries as int16 multiples of it (``row ~= q * scale``, scale = max|row| / 32767),
half the bytes of float32 with a relative error below 2e-5 of the row's
largest entry.  Workers send their deltas so; the round's merge task merges
them and quantizes the merged delta once more, and the driver and every
replica add *those* quantized rows with the same function (no fastmath: the
float32 operations are identical), so the replicas stay bit-for-bit equal to
the driver's weights without the new values being sent.

Merging (``merge``):

``"mean"`` (default)
    Every worker trains with the learning rate multiplied by the number of
    workers ``W`` in the round; the merged delta of a row is the mean over
    the ``W`` workers (a worker that did not touch the row counts as a zero
    delta), i.e. the per-row average over the workers that touched it
    (Spark MLlib's correction) weighted by the fraction of workers that
    touched it.  To first order the update of a round equals the sum of
    the workers' updates at the unscaled learning rate (what one process
    would apply to the same words); where the workers' updates saturate
    (frequent rows that every worker moves to the same place) it is their
    average, so vectors do not blow up as summed deltas do.
``"touched"``
    Spark MLlib's rule as is: the mean over the workers that touched the
    row, learning rate not scaled.  Stable, but rows that every worker
    touches learn ``W`` times more slowly (lower quality at equal epochs).
"""
import numpy as np
from ..errors import ParameterError
from ..kernels.merge import add_quantized_rows, changed_rows, merge_matrix, quantize_rows  # noqa: F401
from .cluster import DistributedError

MERGES = ("mean", "touched")


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


def merge_round(weights, parts, merge="mean"):
    """Merge the changed rows of one round into ``weights`` (in place).

    :func:`merge_updates` then :func:`apply_update`.

    Returns
    -------
    update : list of (indices, q, scales)
        Per matrix, the merged delta as it was added to ``weights``.
    """
    update = merge_updates([w.shape for w in weights], parts, merge)
    apply_update(weights, update)
    return update


def merge_updates(shapes, parts, merge="mean"):
    """Merge the changed rows that the workers returned for one round.

    Parameters
    ----------
    shapes : list of (int, int)
        Shapes of the global matrices (``syn0``, ``syn1neg``, ``syn1``).
    parts : list of (list of indices, list of q, list of scales)
        Per worker, per matrix: the rows it changed and the quantized deltas
        (as :func:`changed_rows` returns them).
    merge : {"mean", "touched"}
        ``mean``: divide every delta by the number of workers (they trained
        at ``W`` times the learning rate); ``touched``: divide by the number
        of workers that changed the row.

    Returns
    -------
    update : list of (indices, q, scales)
        Per matrix, the merged delta, quantized (what :func:`apply_update` adds).
    """
    if merge not in MERGES:
        raise ParameterError(f"merge must be one of {', '.join(MERGES)} (got {merge!r})")
    update = []
    for m, (v, dim) in enumerate(shapes):
        # every worker's rows of matrix m one after the other: indices, int16 rows, scales
        idx, q, scale = (np.concatenate([np.empty((0,) + shape, dtype)]
                                        + [np.asarray(p[k][m], dtype).reshape((-1,) + shape) for p in parts])
                         for k, dtype, shape in ((0, np.int32, ()), (1, np.int16, (dim,)),
                                                 (2, np.float32, ())))
        if idx.size and (idx.min() < 0 or idx.max() >= v):
            raise DistributedError("a worker returned a row index outside the weights")
        if q.shape[0] != idx.size or scale.size != idx.size:
            raise DistributedError(f"a worker returned {idx.size} row indices with {q.shape[0]} rows "
                                   f"and {scale.size} scales")
        update.append(merge_matrix(v, dim, idx, q, scale, max(1, len(parts)), merge == "touched"))
    return update

