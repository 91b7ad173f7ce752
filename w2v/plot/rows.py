"""The first rows of a vectors file, and nothing more: what a picture of the most frequent words reads.

A native folder's ``vectors.npy`` is memory-mapped and only the asked rows
are copied out; ``vocab.tsv`` is read up to the asked line.  A word2vec file
is read up to its ``limit``-th record (:func:`w2v.vectors.keyed.load` with
``limit``).  So a picture of the 300 most frequent words of a 3M-word model
reads 300 rows whatever the model's size.
"""
import json
import os

import numpy as np

from ..util.checks import is_integer
from ..util.arrays import check_finite
from ..errors import FormatError, ParameterError
from ..formats import NATIVE_FORMAT, NATIVE_VERSION, decode_utf8, load_npy
from ..vectors.keyed import KeyedVectors, load

__all__ = ["load_rows"]


def load_rows(path, rows=None):
    """The first ``rows`` vectors of the file or native folder ``path`` (all of them when None).

    Parameters
    ----------
    path : str or os.PathLike
        Any format :func:`w2v.load` reads.
    rows : int, optional
        How many rows, from the first (the most frequent words).

    Returns
    -------
    KeyedVectors
        In memory when ``rows`` is given; otherwise as :func:`w2v.load` returns it
        (a native folder's vectors memory-mapped).

    Raises
    ------
    FormatError
        A damaged file (of the rows read).
    ParameterError
        ``rows`` is not a positive integer.
    FileNotFoundError
        ``path`` does not exist.
    """
    if rows is None:
        return load(path, mmap=True)
    if not is_integer(rows) or rows < 1:
        raise ParameterError(f"rows must be a positive integer, got {rows!r}")
    path = os.fspath(path)
    if not os.path.isdir(path):
        return load(path, limit=int(rows))
    return _native_head(path, int(rows))


def _native_head(path, rows):
    """The first ``rows`` of a native folder: mapped vectors, the head of vocab.tsv."""
    meta_path = os.path.join(path, "meta.json")
    try:
        with open(meta_path, "rb") as f:
            meta = json.loads(f.read(1 << 20))
        count, dim = meta["count"], meta["dim"]
        usable = (meta["format"] == NATIVE_FORMAT and meta["version"] == NATIVE_VERSION
                  and type(count) is int and type(dim) is int and count >= 0 and dim >= 1)
    except (OSError, ValueError, KeyError, TypeError):
        usable = False
    if not usable:   # the full loader names what is wrong
        return load(path, limit=rows)
    rows = min(rows, count)
    vec_path = os.path.join(path, "vectors.npy")
    vectors = load_npy(vec_path, mmap=True, missing="missing file (not a complete w2v native model)")
    if vectors.dtype != np.float32 or vectors.shape != (count, dim):
        raise FormatError(f"{vec_path}: array {vectors.dtype} {vectors.shape}, meta.json declares float32 "
                          f"({count}, {dim})")
    head = np.array(vectors[:rows], dtype=np.float32, order="C")
    del vectors
    words, counts = _vocab_head(os.path.join(path, "vocab.tsv"), rows)
    check_finite(head, vec_path, words)
    settings = meta.get("settings")
    kv = KeyedVectors(words, head, counts=counts if meta.get("has_counts", True) else None,
                      settings=settings if isinstance(settings, dict) else None)
    kv.source_format, kv.source_path = "native", path
    return kv


def _vocab_head(vocab_path, rows):
    """The words and counts of the first ``rows`` lines of ``vocab.tsv``."""
    words, counts = [], []
    try:
        with open(vocab_path, "rb") as f:
            for number, raw in enumerate(f, 1):
                line = decode_utf8(raw, vocab_path).rstrip("\n")
                word, tab, count = line.partition("\t")
                if not tab or not word or not count.isdigit() or not count.isascii():
                    raise FormatError(f"{vocab_path}: line {number}: expected 'word<TAB>count'")
                words.append(word)
                counts.append(int(count))
                if number == rows:
                    break
    except FileNotFoundError:
        raise FormatError(f"{vocab_path}: missing file (not a complete w2v native model)") from None
    if len(words) < rows:
        raise FormatError(f"{vocab_path}: {len(words)} lines, fewer than the {rows} rows of vectors.npy")
    return words, np.asarray(counts, dtype=np.int64)
