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
from numba import njit

from .kernels.draws import splitmix64

__all__ = ["Fingerprint", "fold_ids", "corpus_fingerprint"]

_K2 = np.uint64(0xD1B54A32D192ED03)   # a second odd multiplier: the two halves hash x and x * _K2
_S32 = np.uint64(32)


@njit(cache=True, nogil=True)
def fold_ids(ids, first, acc):
    """Add the words of ``ids`` (``-1`` skipped), the first being word ``first`` of the corpus, to ``acc``.

    ``acc`` is uint64[2]; returns the index of the word after the last.
    """
    j = first
    for k in range(ids.size):
        w = ids[k]
        if w < 0:
            continue
        x = (np.uint64(w) << _S32) ^ np.uint64(j)
        acc[0] += splitmix64(x)[0]
        acc[1] += splitmix64(x * _K2)[0]
        j += 1
    return j


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
    """The fingerprint of a :class:`w2v.encoded.EncodedCorpus` (a dict, see :meth:`Fingerprint.as_dict`)."""
    fp = Fingerprint()
    first = 0
    for _, ids in encoded.blocks():
        first = fp.add(ids, first)
    return fp.as_dict(encoded.length, encoded.n_words)
