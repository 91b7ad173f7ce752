"""The fingerprint of an encoded corpus: its size and a hash of its words, in order.

A saved model and a checkpoint record the fingerprint of the corpus they were
trained on (``training.corpus_fingerprint`` in ``model.json``), so that a
resumed run can tell the same corpus from another one of the same length,
and a reader of the model can tell which corpus made it.

The hash covers the in-vocabulary ids in order (sentence ends left out, so
that Dask's shards, whose ends can add sentence ends inside a line, give the
single process's fingerprint).  It is a sum over the words of a 64-bit mix
of ``(id, index)``, twice with different keys: 128 bits, order-sensitive,
and summable, so that the parts of a corpus (blocks, or Dask's shards given
the index of their first word) hash apart and add up.  It detects a changed
corpus; it is not a cryptographic hash.
"""
import numpy as np

from ..kernels.fingerprint import fold_ids

__all__ = ["Fingerprint", "fold_ids", "corpus_fingerprint"]


class Fingerprint:
    """A corpus' fingerprint being summed: ``add`` its parts, then :meth:`as_dict`."""

    def __init__(self):
        self.acc = np.zeros(2, np.uint64)

    def add(self, ids, first):
        """Add ``ids`` whose first word is word ``first`` of the corpus; return the next word's index."""
        return int(fold_ids(np.ascontiguousarray(ids, np.int32), first, self.acc))

    def add_sums(self, sums):
        """Add a part's sums (``acc`` of another :class:`Fingerprint`, e.g. computed by a Dask worker)."""
        self.acc += np.asarray(sums, np.uint64)

    def hexdigest(self):
        """The 128-bit hash as 32 hexadecimal digits."""
        return "".join(f"{int(v):016x}" for v in self.acc)

    def as_dict(self, length, words):
        """``{"ids": length, "words": words, "hash": ...}``, as a model records it."""
        return {"ids": int(length), "words": int(words), "hash": self.hexdigest()}


def corpus_fingerprint(encoded):
    """The fingerprint of a :class:`w2v.text.encoded.EncodedCorpus` (a dict, see :meth:`Fingerprint.as_dict`)."""
    fp = Fingerprint()
    first = 0
    for _, ids in encoded.blocks():
        first = fp.add(ids, first)
    return fp.as_dict(encoded.length, encoded.n_words)
