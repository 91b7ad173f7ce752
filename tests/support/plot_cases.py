"""Vectors for the picture tests: groups of words around their own centres, and a native model on disk."""
import json
import os

import numpy as np

HEADS = ("alpha", "beta", "gamma", "delta")


def clustered_vectors(members=15, filler=400, dim=32, seed=0):
    """KeyedVectors of 4 tight groups (``alpha`` and ``alpha_0..``, ...) among ``filler`` random words.

    Counts fall with the row, so the first rows are the most frequent; the
    filler words come first, then the groups.
    """
    from w2v.vectors.keyed import KeyedVectors

    rng = np.random.default_rng(seed)
    words = [f"filler{i}" for i in range(filler)]
    rows = [rng.standard_normal((filler, dim))]
    for head in HEADS:
        centre = rng.standard_normal(dim) * 3
        words += [head] + [f"{head}_{k}" for k in range(members)]
        rows.append(centre + 0.3 * rng.standard_normal((members + 1, dim)))
    vectors = np.concatenate(rows).astype(np.float32)
    counts = np.arange(len(words), 0, -1, dtype=np.int64) * 10
    return KeyedVectors(words, vectors, counts=counts)


def write_native(path, words, dim, random_rows=None, seed=0, poison_after=None):
    """A native model folder of ``words`` words (``w0``, ``w1``, ...): the first ``random_rows`` rows
    random, the rest zero (a sparse file); from row ``poison_after`` on, NaN vectors and a broken line
    of vocab.tsv, which only a reader of those rows sees."""
    from w2v.formats import NATIVE_FORMAT, NATIVE_VERSION

    os.makedirs(path)
    vectors = np.lib.format.open_memmap(os.path.join(path, "vectors.npy"), mode="w+", dtype=np.float32,
                                        shape=(words, dim))
    filled = words if random_rows is None else min(words, random_rows)
    vectors[:filled] = np.random.default_rng(seed).standard_normal((filled, dim), dtype=np.float32)
    if poison_after is not None:
        vectors[poison_after:] = np.nan
    vectors.flush()
    del vectors
    lines = [f"w{i}\t{10 * words - i}\n" for i in range(words)]
    if poison_after is not None:
        lines[poison_after] = "not a vocab line\n"
    with open(os.path.join(path, "vocab.tsv"), "w", encoding="utf-8") as f:
        f.write("".join(lines))
    with open(os.path.join(path, "meta.json"), "w", encoding="utf-8") as f:
        json.dump({"format": NATIVE_FORMAT, "version": NATIVE_VERSION, "count": words, "dim": dim, "settings": {},
                   "has_counts": True}, f)
