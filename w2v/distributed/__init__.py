"""Data-parallel training on a Dask distributed cluster (``pip install 'w2v[dist]'``).

Dask schedules the work, moves the data and survives worker loss; this
package supplies the training rounds.  ``import w2v`` never imports this
package, and ``dask`` is imported only by the functions that talk to a cluster.

1. **Shards** (:mod:`w2v.distributed.plan`): every file is cut into byte
   ranges at whitespace (compressed files stay whole), grouped by bytes, one
   group per worker; a group's tasks are pinned (loosely: another worker may
   take over) to its worker, so shards are read where the workers are and
   the paths must be visible to them.
2. **Vocabulary** (:mod:`w2v.distributed.vocabulary`): each shard is
   tokenized once by a task; the counts are merged by a tree of tasks in
   corpus order (first-occurrence order and counts equal a single pass);
   the driver builds the vocabulary and every shard is encoded where it
   lies.  The corpus' blocks of ids are then dealt to the lanes in turn,
   one lane per worker.
3. **Rounds** (:mod:`w2v.distributed.rounds`): every worker keeps a replica
   of the global weights (:mod:`w2v.distributed.worker`); in a round each
   lane trains its next slice from the replica at the merge rule's multiple
   of the learning rate and returns the rows it changed (int16 with a
   float32 scale per row), cut into ranges of rows; one merge task per
   range, on a different worker, merges that range of every lane
   (:mod:`w2v.distributed.merge`), and every replica and the driver add
   the merged ranges with the same function, so all stay bit-for-bit equal.
   Each round's figures go to the run's log (:mod:`w2v.distributed.report`).
4. **Faults**: Dask reschedules the tasks of a lost worker and recomputes
   lost shards from lineage; a lane that finds no current replica is
   resubmitted with the driver's full weights; every wait on the cluster
   is bounded.  If the scheduler goes away, :class:`DistributedError` is
   raised (the checkpoints written by ``on_epoch_end`` stay as they are).

Modules: :mod:`~w2v.distributed.cluster` (clients, waits, errors),
:mod:`~w2v.distributed.plan`, :mod:`~w2v.distributed.vocabulary`,
:mod:`~w2v.distributed.rounds`, :mod:`~w2v.distributed.merge`,
:mod:`~w2v.distributed.report`, :mod:`~w2v.distributed.worker` (what runs in
the worker processes) and :mod:`~w2v.distributed.train`
(:func:`train_distributed`, the driver).
"""
from .cluster import INSTALL_HINT, DistributedError, dask_client, require_distributed
from ..kernels.merge import add_quantized_rows, changed_rows, quantize_rows
from .merge import MERGES, MergeRule, apply_update, merge_round, merge_updates, split_rows
from .plan import CLUSTER_ROUND_TOKENS, RoundWordsWarning, choose_round_words, slice_pieces, split_lanes
from .train import train_distributed
from .vocabulary import count_corpus

__all__ = ["CLUSTER_ROUND_TOKENS", "INSTALL_HINT", "MERGES", "DistributedError", "MergeRule", "RoundWordsWarning",
           "add_quantized_rows", "apply_update", "changed_rows", "choose_round_words", "count_corpus",
           "dask_client", "merge_round", "merge_updates", "quantize_rows", "require_distributed", "slice_pieces",
           "split_lanes", "split_rows", "train_distributed"]
