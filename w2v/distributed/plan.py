"""The plan of a Dask run: shards grouped into lanes, and every round's slice of each lane.

Every file is cut into shards (:mod:`w2v.text.shards`); the shards are grouped into
one contiguous *lane* per worker, balanced by bytes, and a lane's tasks are
pinned (loosely: another worker may take over) to its worker.  An epoch is
``n_rounds`` rounds; in round ``r`` lane ``k`` trains ids
``[n_k r / R, n_k (r + 1) / R)`` of its stream (``n_k`` ids, ``R`` rounds).
"""
import dataclasses
import math
import warnings

import numpy as np

#: the most tokens the whole cluster trains between two synchronizations (docs/distributed.md)
CLUSTER_ROUND_TOKENS = 131_072
#: the fewest tokens a worker trains in a round (smaller rounds cost more than they train)
MIN_ROUND_WORDS = 1_000
#: ids of a block of the corpus' stream dealt to the lanes in turn (:func:`deal_blocks`)
DEAL_BLOCK = 1024


class RoundWordsWarning(UserWarning):
    """``round_words`` lets the cluster train more tokens between synchronizations than keeps the vectors' quality."""


def choose_round_words(length, lanes, round_words=None, stacklevel=2):
    """Tokens each of ``lanes`` lanes trains per round, on a corpus of ``length`` ids.

    By default the cluster trains at most :data:`CLUSTER_ROUND_TOKENS` between
    two synchronizations, so every lane trains that many over ``lanes`` (at
    least :data:`MIN_ROUND_WORDS`); the rounds and so the run depend only on
    the corpus and the number of lanes.  A ``round_words`` given that lets the
    cluster train more than twice that warns (:class:`RoundWordsWarning`; ``stacklevel``
    as :func:`warnings.warn`'s) and is used as given.
    """
    lanes = max(1, lanes)
    if round_words is None:
        return max(MIN_ROUND_WORDS, math.ceil(min(length, CLUSTER_ROUND_TOKENS) / lanes))
    if lanes > 1 and round_words * lanes > 2 * CLUSTER_ROUND_TOKENS:
        warnings.warn(f"round_words={round_words:,} on {lanes} workers: the cluster trains "
                      f"{round_words * lanes:,} tokens between synchronizations, and beyond "
                      f"{2 * CLUSTER_ROUND_TOKENS:,} the vectors lose quality (leave it out to get "
                      f"{choose_round_words(length, lanes):,})", RoundWordsWarning, stacklevel=stacklevel + 1)
    return round_words


def split_lanes(sizes, n_lanes):
    """Contiguous groups of shards balanced by size: ``[(first, stop), ...]``, none empty."""
    n = len(sizes)
    n_lanes = max(1, min(n_lanes, n))
    cum = np.concatenate([[0.0], np.cumsum(np.maximum(np.asarray(sizes, np.float64), 1.0))])
    bounds = [0]
    for k in range(1, n_lanes):
        target = cum[-1] * k / n_lanes
        b = int(np.searchsorted(cum, target))
        if b > 0 and abs(cum[b - 1] - target) < abs(cum[b] - target):
            b -= 1
        b = min(max(b, bounds[-1] + 1), n - (n_lanes - k))
        bounds.append(b)
    bounds.append(n)
    return list(zip(bounds[:-1], bounds[1:]))


def _dealt_pieces(n, offset, block, lanes, lane):
    # (start, stop, ends its block) in a shard of n ids at stream position offset, of the blocks of lane
    first, last = offset // block, (offset + n - 1) // block
    b = first + (lane - first) % lanes
    pieces = []
    while b <= last:
        lo, hi = max(b * block, offset), min((b + 1) * block, offset + n)
        pieces.append((lo - offset, hi - offset, hi == (b + 1) * block))
        b += lanes
    return pieces


def deal_blocks(ids, offset, block, lanes, lane):
    """The ids of a shard that lane ``lane`` of ``lanes`` trains: its blocks, each followed by a sentence end.

    The corpus' stream is cut into blocks of ``block`` ids; block ``b`` goes
    to lane ``b % lanes``.  ``ids`` is a shard's stream, from position
    ``offset`` of the corpus' stream.  The lane's pieces of the shard come in
    corpus order; a piece that ends its block is followed by a sentence end,
    so that no window reaches from one block into a block that is not next
    to it in the corpus.  With one lane the shard is returned as it is.
    """
    ids = np.asarray(ids)
    if lanes == 1 or ids.size == 0:
        return ids
    out = []
    for lo, hi, ends in _dealt_pieces(ids.size, offset, block, lanes, lane):
        out.append(ids[lo:hi])
        if ends:
            out.append(np.full(1, -1, ids.dtype))
    return np.concatenate(out) if out else ids[:0]


def dealt_length(n, offset, block, lanes, lane):
    """The length of :func:`deal_blocks` of a shard of ``n`` ids at ``offset``, without the ids."""
    if lanes == 1 or n == 0:
        return n
    return sum(hi - lo + ends for lo, hi, ends in _dealt_pieces(n, offset, block, lanes, lane))


def slice_pieces(lengths, lo, hi):
    """``(shard index in lane, start, stop)`` ranges covering lane tokens ``[lo, hi)``."""
    pieces = []
    off = 0
    for k, n in enumerate(lengths):
        a, b = max(lo, off), min(hi, off + n)
        if a < b:
            pieces.append((k, a - off, b - off))
        off += n
    return pieces


@dataclasses.dataclass
class ShardPlan:
    """The corpus' shards, grouped into lanes, and the worker each lane prefers.

    Attributes
    ----------
    shards : list of w2v.text.shards.Shard
        In corpus order.
    lanes : list of (int, int)
        ``(first, stop)`` shard indices of each lane (:func:`split_lanes`).
    workers : list of str
        Worker addresses; lane ``k`` prefers ``workers[k]``.
    """
    shards: list
    lanes: list
    workers: list

    @classmethod
    def make(cls, corpus, shard_bytes, workers):
        """Shards of ``corpus`` (at least two per worker where the files allow) in one lane per worker."""
        from ..text.shards import DEFAULT_SHARD_BYTES, plan_shards

        shards = plan_shards(corpus, shard_bytes or DEFAULT_SHARD_BYTES, min_shards=2 * len(workers))
        return cls(shards, split_lanes([sh.size for sh in shards], len(workers)), list(workers))

    @property
    def corpus_files(self):
        """The files the shards come from, in corpus order, each once."""
        return list(dict.fromkeys(sh.path for sh in self.shards))

    def lane_of(self, shard):
        """The lane of shard index ``shard``."""
        return next(k for k, (a, b) in enumerate(self.lanes) if a <= shard < b)

    def pin(self, lane):
        """Dask ``submit`` options of a task of ``lane``: its worker, others allowed."""
        return dict(workers=[self.workers[lane]], allow_other_workers=True)


@dataclasses.dataclass
class RoundPlan:
    """How the rounds of every epoch cut the lanes, and at what learning-rate multiple the lanes train.

    Round ``r`` of an epoch cut into ``n`` rounds trains ids
    ``[n_k r / n, n_k (r + 1) / n)`` of lane ``k`` (``n_k`` ids).

    Attributes
    ----------
    lane_lengths : list of list of int
        Per lane, the stream length (ids and sentence ends) of each of its shards.
    n_rounds : int
        Rounds per epoch.
    rule : w2v.distributed.merge.MergeRule
        The merge rule (the lanes' learning-rate multiple, the merged rows' divisor).
    ranges : int
        Ranges of rows, one merge task each (:func:`w2v.distributed.merge.split_rows`).
    alpha, min_alpha : float
        The learning rate's schedule, from ``alpha`` to ``min_alpha`` over the run.
    epochs : int
        Epochs of the run.
    """
    lane_lengths: list
    n_rounds: int
    rule: object
    ranges: int = 1
    alpha: float = 0.025
    min_alpha: float = 0.0001
    epochs: int = 1

    @classmethod
    def make(cls, lane_lengths, round_words, rule, ranges=1, alpha=0.025, min_alpha=0.0001, epochs=1):
        """Rounds of about ``round_words`` ids per lane."""
        length = sum(map(sum, lane_lengths))
        n_rounds = max(1, math.ceil(length / (len(lane_lengths) * round_words)))
        return cls(lane_lengths, n_rounds, rule, ranges, alpha, min_alpha, epochs)

    @property
    def length(self):
        """Ids of an epoch (the whole stream)."""
        return sum(map(sum, self.lane_lengths))

    def alpha_at(self, position):
        """The schedule's learning rate at ``position`` of the run (as the kernel computes it)."""
        frac = min(position / max(1, self.epochs * self.length), 1.0)
        return max(self.alpha - (self.alpha - self.min_alpha) * frac, self.min_alpha)

    def spec(self, epoch, r):
        """Round ``r`` of ``epoch``: each lane's ``bounds``, the lanes that train, position and learning-rate scale.

        Every lane gets a task: the ``active`` ones train, the others only
        apply the last update; ``lanes`` lists the active ones first.
        """
        n_rounds = self.n_rounds
        lanes = range(len(self.lane_lengths))
        bounds = [(lt * r // n_rounds, lt * (r + 1) // n_rounds) for lt in map(sum, self.lane_lengths)]
        active = [k for k in lanes if bounds[k][1] > bounds[k][0]]
        position = epoch * self.length + sum(a for a, _ in bounds)
        return dict(epoch=epoch, round=r, bounds=bounds, active=active,
                    lanes=active + [k for k in lanes if k not in active], position=position,
                    round_total=sum(b - a for a, b in bounds), alpha=self.alpha_at(position),
                    lr_scale=self.rule.lr_scale(len(active), self.alpha))

    def pieces(self, spec, lane):
        """``(used, pieces)``: the lane's shards that ``spec``'s slice reads, and its ranges in them.

        ``pieces`` are ``(index in used, start, stop)``.
        """
        pieces = slice_pieces(self.lane_lengths[lane], *spec["bounds"][lane])
        used = sorted({p[0] for p in pieces})
        where = {j: n for n, j in enumerate(used)}
        return used, [(where[j], a, b) for j, a, b in pieces]
