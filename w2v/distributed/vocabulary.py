"""The corpus on the cluster: shards counted, given a vocabulary, encoded where they lie and dealt to the lanes.

Each shard is tokenized once by a task, which keeps its provisional id
stream in the worker's memory and yields ``(words, counts)``; these are
merged pairwise by tasks (a tree reduction, in corpus order, so
first-occurrence order and counts equal a single pass).  The driver builds
the vocabulary once; every shard is then encoded to final ids where it lies
(the vocabulary index is itself a task, so a lost shard is rebuilt from its
lineage).  Each shard's ids are then dealt to the lanes in blocks
(:func:`deal_lanes`), where the shard lies.
"""
import dataclasses
import os

from ..errors import CorpusError, VocabularyError
from .cluster import Cluster, require_distributed, scheduler_workers
from .plan import DEAL_BLOCK, dealt_length
from .worker import (PINNED_TASKS, counts_task, deal_task, encode_task, index_task, merge_counts_task, scan_task,
                     shape_task, vocab_index_task)


CORPUS_WAIT = 600.0   # seconds a pass over the shards may take, besides 1 s per MB


def tree_reduce(client, futures, func, **submit):
    """Pairwise reduction of ``futures`` in order, by tasks (``func(left, right)``)."""
    level = list(futures)
    while len(level) > 1:
        nxt = [client.submit(func, level[i], level[i + 1], pure=False, **submit)
               for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


def corpus_seconds(shards):
    """How long a pass of the workers over ``shards`` may take: 10 minutes plus 1 s per MB (a compressed
    file counts 4 times its size)."""
    return CORPUS_WAIT + sum(sh.size * (4 if sh.end is None else 1) for sh in shards) / 1e6


def merge_replaced(parts):
    """:func:`w2v.distributed.worker.replaced_bytes` of every shard as ``(words, counts, sequences)``
    for :func:`w2v.text.scanning.warn_replaced_bytes` (words in first-occurrence order)."""
    total = {}
    for words, counts, _ in parts:
        for w, c in zip(words, counts):
            total[w] = total.get(w, 0) + c
    return list(total), list(total.values()), sum(p[2] for p in parts)


class LaneTasks:
    """Submits a run's tasks: not pure, with retries, pinned (loosely) to their lane's worker.

    Parameters
    ----------
    cluster : w2v.distributed.cluster.Cluster
    plan : w2v.distributed.plan.ShardPlan
    retries : int
        Dask retries of a task that raised.
    """

    def __init__(self, cluster, plan, retries):
        self.cluster = cluster
        self.client = cluster.client
        self.plan = plan
        self.retries = retries

    def submit(self, func, *args, lane=None, **kw):
        """``func(*args)`` as a task (on ``lane``'s worker if given); its future."""
        return self.cluster.call(self.client.submit, func, *args, pure=False, retries=self.retries,
                                 **(self.plan.pin(lane) if lane is not None else {}), **kw)


@dataclasses.dataclass
class ShardedCorpus:
    """The encoded corpus as the workers hold it.

    Attributes
    ----------
    vocab : w2v.text.vocab.Vocab
        The model's vocabulary, or the new one built from the counts (``fresh``).
    fresh : bool
        ``vocab`` is new.
    encoded : list of distributed.Future
        The encoded shards, in corpus order.
    lengths : list of int
        Each shard's stream length (ids and sentence ends).
    n_words, n_tokens : int
        In-vocabulary tokens and raw tokens of the corpus.
    lineage : list of distributed.Future
        Futures the encoded shards were computed from (the vocabulary index),
        held for the run so that a lost shard is rebuilt from them.
    """
    vocab: object
    fresh: bool
    encoded: list
    lengths: list
    n_words: int
    n_tokens: int
    lineage: list

    @property
    def length(self):
        """The stream length of the whole corpus."""
        return sum(self.lengths)


def count_corpus(client, corpus, tokenizer="whitespace", lowercase=False, shard_bytes=None, retries=2):
    """Words of the corpus in first-occurrence order and their counts, counted by the workers.

    The same as :func:`w2v.text.scanning.scan_corpus`'s ``words`` and ``counts``
    (shards counted where they lie, merged by a tree of tasks).

    Returns
    -------
    words : list of str
    counts : numpy.ndarray of int64
    """
    require_distributed()
    from ..text.shards import DEFAULT_SHARD_BYTES, plan_shards

    cluster = Cluster(client, PINNED_TASKS)
    workers = scheduler_workers(cluster)
    if isinstance(corpus, (str, os.PathLike)):
        corpus = [corpus]
    shards = plan_shards([os.path.abspath(os.fspath(p)) for p in corpus], shard_bytes or DEFAULT_SHARD_BYTES,
                         min_shards=2 * len(workers))
    scans = [cluster.call(client.submit, scan_task, sh, tokenizer, lowercase, pure=False, retries=retries)
             for sh in shards]
    counts = [cluster.call(client.submit, counts_task, f, pure=False, retries=retries) for f in scans]
    merged = tree_reduce(client, counts, merge_counts_task, retries=retries)
    what = f"counting the words of {len(shards)} corpus shards"
    cluster.wait([merged], what, corpus_seconds(shards))
    return cluster.results([merged], what)[0]


def encode_on_cluster(tasks, settings, vocab, corpus, held, stacklevel=2):
    """Scan the shards of ``tasks.plan``, build the vocabulary if ``vocab`` is None, and encode them.

    Parameters
    ----------
    tasks : LaneTasks
    settings : w2v.settings.Settings
    vocab : w2v.text.vocab.Vocab or None
        The model's vocabulary; None: one is built from the corpus' counts.
    corpus : list of str
        The corpus' paths (in the error of an empty corpus).
    held : list
        The encoded shards' futures are added to it as soon as they are submitted.
    stacklevel : int
        Of the warning about bytes that are not UTF-8, as :func:`warnings.warn`'s
        (1: this function, 2: its caller).

    Returns
    -------
    ShardedCorpus

    Raises
    ------
    CorpusError
        The corpus has no tokens.
    VocabularyError
        No word of the corpus is in the model's vocabulary.
    """
    plan = tasks.plan
    scans = [tasks.submit(scan_task, sh, settings.tokenizer, settings.lowercase, lane=plan.lane_of(i))
             for i, sh in enumerate(plan.shards)]
    fresh = vocab is None
    if fresh:
        vocab, lineage = _new_vocabulary(tasks, scans, settings, corpus)
    else:
        lineage = [tasks.submit(index_task, list(vocab.words))]
    encoded = [tasks.submit(encode_task, f, lineage[-1], lane=plan.lane_of(i)) for i, f in enumerate(scans)]
    held.extend(encoded)
    shapes_f = [tasks.submit(shape_task, e, f, lane=plan.lane_of(i)) for i, (e, f) in enumerate(zip(encoded, scans))]
    what = f"encoding {len(plan.shards)} corpus shards"
    tasks.cluster.wait(shapes_f, what, corpus_seconds(plan.shards))
    shapes = tasks.cluster.results(shapes_f, what)
    del scans, shapes_f   # the encoded shards keep their lineage
    sharded = ShardedCorpus(vocab, fresh, encoded, [x[0] for x in shapes], sum(x[1] for x in shapes),
                            sum(x[2] for x in shapes), lineage)
    if sharded.n_tokens == 0:
        raise CorpusError("corpus is empty: no tokens in " + ", ".join(corpus))
    # as one process does, with a new vocabulary or the model's
    from ..text.scanning import warn_replaced_bytes
    bad_words, bad_counts, sequences = merge_replaced([x[3] for x in shapes])
    warn_replaced_bytes(bad_words, bad_counts, plan.corpus_files, sequences, settings.tokenizer,
                        stacklevel=stacklevel + 1)
    if sharded.n_words == 0:
        raise VocabularyError("no word of the corpus is in the model's vocabulary")
    return sharded


def _new_vocabulary(tasks, scans, settings, corpus):
    # the shards' counts merged by a tree of tasks; the vocabulary built here and its index by a
    # task (from the merged counts, so that a lost shard is encoded again from its lineage)
    from ..text.vocab import build_vocab

    plan, s = tasks.plan, settings
    counts = [tasks.submit(counts_task, f, lane=plan.lane_of(i)) for i, f in enumerate(scans)]
    merged = tree_reduce(tasks.client, counts, merge_counts_task, retries=tasks.retries)
    what = f"counting the words of {len(plan.shards)} corpus shards"
    tasks.cluster.wait([merged], what, corpus_seconds(plan.shards))
    words, word_counts = tasks.cluster.results([merged], what)[0]
    if int(word_counts.sum()) == 0:
        raise CorpusError("corpus is empty: no tokens in " + ", ".join(corpus))
    vocab, _ = build_vocab(words, word_counts, s.min_count, s.max_vocab_size)
    del words, word_counts, counts
    return vocab, [merged, tasks.submit(vocab_index_task, merged, s.min_count, s.max_vocab_size)]


def deal_lanes(tasks, sharded, block=DEAL_BLOCK):
    """Every lane's stream: its blocks of every shard (:func:`w2v.distributed.plan.deal_blocks`), where the shard lies.

    The blocks of the corpus go to the lanes in turn, so that in every
    round all lanes train the same stretch of the corpus, each a share of
    its blocks, rather than each its own part of the corpus.  With one lane
    its stream is the encoded shards.

    Returns
    -------
    parts : list of list of distributed.Future
        Per lane, its ids of every shard, in corpus order.
    lengths : list of list of int
        Their lengths.
    """
    lanes = len(tasks.plan.lanes)
    if lanes == 1:
        return [list(sharded.encoded)], [list(sharded.lengths)]
    offsets = [0]
    for n in sharded.lengths[:-1]:
        offsets.append(offsets[-1] + n)
    parts = [[tasks.submit(deal_task, f, off, block, lanes, k, lane=tasks.plan.lane_of(i))
              for i, (f, off) in enumerate(zip(sharded.encoded, offsets))] for k in range(lanes)]
    lengths = [[dealt_length(n, off, block, lanes, k) for n, off in zip(sharded.lengths, offsets)]
               for k in range(lanes)]
    return parts, lengths
