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
rate the ``W`` lanes of a round train, and by how much a row's summed deltas
are divided:

``"scaled"`` (default)
    ``s = min(W, alpha_cap / alpha)``: the lanes train at ``W`` times the
    learning rate of the global schedule, but never start above
    ``alpha_cap`` (:data:`ALPHA_CAP`; ``alpha`` is the run's starting
    rate).  A row that at most ``s`` lanes changed gets the sum of their
    changes divided by ``s``: the sum at the unscaled rate, what one process
    would apply for the same words.  For a row that more lanes changed, each
    lane also sends the number of updates its tokens gave the row (expected,
    from the slice's word counts: :func:`expected_updates`), and the sum is
    weighted by a model of one row pulled towards a target, ``kappa`` of
    the way per update at the learning rate 1 (:data:`KAPPA`, per matrix):
    ``(1 - exp(-kappa alpha N)) / sum_j (1 - exp(-kappa s alpha n_j))`` for
    lanes that made ``n_1 .. n_c`` updates (``N`` in all, ``alpha`` the
    round's rate), kept between ``1 / c`` and ``1 / s``.  Where the updates
    add up linearly that is ``1 / s`` again; where each lane drove the row
    to the target (the frequent words) it is ``1 / c``, their mean.  With
    ``W <= s`` this is the ``"mean"`` rule.
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
from ..kernels.merge import (add_quantized_rows, changed_rows, merge_matrix, merge_matrix_weighted,  # noqa: F401
                              quantize_rows)
from .cluster import DistributedError

ALPHA_CAP = 0.2   # largest local learning rate of the "scaled" rule (docs/distributed.md)
#: per matrix (syn0, syn1neg, syn1): the share of the way to its target a row moves per update at rate 1
KAPPA = (3.0, 0.3, 0.3)


@dataclasses.dataclass(frozen=True)
class MergeRule:
    """The learning-rate multiple of a round's lanes and how their rows are merged (see the module docstring).

    Attributes
    ----------
    name : {"scaled", "mean", "touched"}
    alpha_cap : float
        ``"scaled"``: the largest local learning rate.
    kappa : tuple of float
        ``"scaled"``: per matrix, the share of the way to its target a row moves per update at rate 1.
    """
    name: str = "scaled"
    alpha_cap: float = ALPHA_CAP
    kappa: tuple = KAPPA

    @property
    def counts_updates(self):
        """True if the lanes send the updates behind each row (the ``"scaled"`` rule)."""
        return self.name == "scaled"

    def lr_scale(self, lanes, alpha):
        """The multiple of the learning rate at which ``lanes`` lanes train a run that starts at rate ``alpha``."""
        if self.name == "touched" or lanes <= 1:
            return 1.0
        if self.name == "mean" or alpha <= 0:
            return float(lanes)
        return float(min(lanes, max(1.0, self.alpha_cap / alpha)))

    def saturation(self, alpha, lr_scale):
        """Per matrix ``(local, global)`` rates of :func:`merge_updates`' weighting, or None (a plain divisor)."""
        if not self.counts_updates:
            return None
        return [(k * lr_scale * alpha, k * alpha) for k in self.kappa]


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


def merge_round(weights, parts, divisor_floor, saturation=None):
    """Merge the changed rows of one round into ``weights`` (in place).

    :func:`merge_updates` then :func:`apply_update`.

    Returns
    -------
    update : list of (indices, q, scales)
        Per matrix, the merged delta as it was added to ``weights``.
    """
    update = merge_updates([w.shape for w in weights], parts, divisor_floor, saturation)
    apply_update(weights, update)
    return update


def merge_updates(shapes, parts, divisor_floor, saturation=None):
    """Merge the changed rows that the lanes returned for one round (or for one range of rows).

    Parameters
    ----------
    shapes : list of (int, int)
        Shapes of the global matrices (``syn0``, ``syn1neg``, ``syn1``).
    parts : list of list of tuple
        Per lane, per matrix: ``(indices, q, scales)`` of the rows it changed
        and their quantized deltas (as :func:`changed_rows` returns them),
        with ``saturation`` also the updates behind each row.
    divisor_floor : float
        The lanes' learning-rate multiple (:meth:`MergeRule.lr_scale`).
        Without ``saturation``, a row's summed deltas are divided by the
        number of lanes that changed it, or by this where it is larger.
    saturation : list of (float, float), optional
        Per matrix, the ``(local, global)`` rates of the weighting by updates
        (:meth:`MergeRule.saturation`, :func:`w2v.kernels.merge.merge_matrix_weighted`).

    Returns
    -------
    update : list of (indices, q, scales)
        Per matrix, the merged delta, quantized (what :func:`apply_update` adds).
    """
    update = []
    for m, (v, dim) in enumerate(shapes):
        # every lane's rows of matrix m one after the other: indices, int16 rows, scales (, updates)
        fields = [(0, np.int32, ()), (1, np.int16, (dim,)), (2, np.float32, ())]
        if saturation is not None:
            fields.append((3, np.float64, ()))
        idx, q, scale, *updates = (
            np.concatenate([np.empty((0,) + shape, dtype)]
                           + [np.asarray(p[m][k], dtype).reshape((-1,) + shape) for p in parts])
            for k, dtype, shape in fields)
        if idx.size and (idx.min() < 0 or idx.max() >= v):
            raise DistributedError("a worker returned a row index outside the weights")
        if q.shape[0] != idx.size or scale.size != idx.size or (updates and updates[0].size != idx.size):
            raise DistributedError(f"a worker returned {idx.size} row indices with {q.shape[0]} rows "
                                   f"and {scale.size} scales")
        if saturation is None:
            update.append(merge_matrix(v, dim, idx, q, scale, float(divisor_floor)))
        else:
            local, total = saturation[m]
            update.append(merge_matrix_weighted(v, dim, idx, q, scale, updates[0], float(divisor_floor),
                                                float(local), float(total)))
    return update


def expected_updates(tokens, tables, params, shapes):
    """Per matrix, the updates (expected) that training ``tokens`` gives each row.

    A kept word (subsampling's expected share of the word's tokens) is the
    context of about ``window + 1`` centres: as many updates of its ``syn0``
    row.  Skip-gram updates a centre's output rows once per context
    (``window + 1`` times), CBOW once; negative sampling updates each word's
    ``syn1neg`` row as a noise word in proportion to the noise distribution;
    the hierarchical softmax updates the inner nodes on the centre's path.
    """
    t = tables
    v = shapes[0][0]
    ids = tokens[tokens >= 0]
    keep = np.minimum(np.asarray(t.keep_threshold, np.float64) / 2.0 ** 32, 1.0)
    kept = np.bincount(ids, minlength=v)[:v] * keep[:v]
    ctx = params["window"] + 1.0
    centre = kept * (ctx if params["sg"] else 1.0)
    out = [kept * ctx]
    if params["negative"] > 0:
        thr = np.minimum(np.asarray(t.noise_threshold, np.float64), 2.0 ** 32)
        noise = (thr + np.bincount(np.asarray(t.noise_alias), weights=2.0 ** 32 - thr, minlength=thr.size)[:thr.size])
        noise /= max(noise.sum(), 1.0)
        out.append(centre + params["negative"] * centre.sum() * noise[:v])
    else:
        out.append(np.zeros(shapes[1][0]))
    nodes = np.zeros(shapes[2][0])
    if params["hs"]:
        points, lengths = np.asarray(t.hs_points), np.asarray(t.hs_lengths)
        for w in np.flatnonzero(centre):
            np.add.at(nodes, points[w, :lengths[w]], centre[w])
    out.append(nodes)
    return out


def split_rows(rows, n_ranges):
    """``rows`` (per matrix a tuple of row indices and arrays of one entry per row) cut into ``n_ranges`` ranges.

    Row ``i`` goes to range ``i % n_ranges``, so that every range holds its
    share of the frequent words (the first ids) and of the rare ones.
    Returns a list of ``n_ranges`` lists shaped like ``rows``; each range
    keeps the rows in index order.
    """
    if n_ranges == 1:
        return [list(rows)]
    ranges = [[] for _ in range(n_ranges)]
    for matrix in rows:
        key = matrix[0] % n_ranges
        order = np.argsort(key, kind="stable")
        cuts = np.searchsorted(key[order], np.arange(n_ranges + 1))
        for j in range(n_ranges):
            take = order[cuts[j]:cuts[j + 1]]
            ranges[j].append(tuple(a[take] for a in matrix))
    return ranges


def payload_bytes(rows):
    """Bytes of the arrays of ``rows`` (per matrix ``(indices, q, scales)``)."""
    return int(sum(a.nbytes for part in rows for a in part))
