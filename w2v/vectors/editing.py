"""Adding and changing the vectors of :class:`w2v.vectors.keyed.KeyedVectors` (gensim's names).

The methods ``add_vector``, ``add_vectors``, item assignment
(``kv[word] = vector``), ``resize_vectors`` and ``unit_normalize_all``: plain
functions bound in the class body of :class:`~w2v.vectors.keyed.KeyedVectors`
(their first parameter is ``self``, see :mod:`w2v.vectors.keyed`).  They
check what they are given and make each change through the methods of
``self.store`` (:class:`~w2v.vectors.store.VectorStore`), which keep the
words, the rows, the word index and the per-word attributes consistent and
drop the cached norms.
"""
import numpy as np

from ..util.arrays import check_finite, first_nonfinite_row
from ..errors import ParameterError
from .terms import KEY_TYPES, check_vector

__all__ = ["__setitem__", "add_vector", "add_vectors", "resize_vectors", "unit_normalize_all"]


def _new_keys(keys):
    """``keys`` as a list of distinct str (ParameterError otherwise)."""
    keys = list(keys)
    for i, key in enumerate(keys):
        if not isinstance(key, str):
            raise ParameterError(f"keys must be words (str): key {i} is {type(key).__name__} {key!r}")
    if len(set(keys)) != len(keys):
        seen = set()
        dup = next(k for k in keys if k in seen or seen.add(k))
        raise ParameterError(f"the word {dup!r} is given twice")
    return keys


def _new_rows(weights, n, dim, dtype=np.float32):
    """``weights`` as a finite matrix of ``dtype``, ``n`` rows of ``dim`` values (ParameterError otherwise)."""
    try:
        arr = np.asarray(weights)
        ok = arr.dtype.kind in "fiu" and arr.shape == (n, dim)
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ParameterError(f"weights must be {n} numeric vectors of {dim} values (shape ({n}, {dim})), "
                             f"got {getattr(arr, 'dtype', '?')} {getattr(arr, 'shape', '?')}")
    wide = np.float64 if dtype == np.float64 else np.float32
    with np.errstate(over="ignore"):
        arr = np.ascontiguousarray(arr, dtype=wide)
    check_finite(arr, error=ParameterError)
    if dtype != wide:
        with np.errstate(over="ignore"):
            arr = np.ascontiguousarray(arr, dtype=dtype)
        bad = first_nonfinite_row(arr)
        if bad >= 0:
            raise ParameterError(f"weights: row {bad} has a value beyond the range of {np.dtype(dtype).name}, "
                                 "the type of these vectors")
    return arr


def add_vector(self, key, vector):
    """Add one word and its vector; see :meth:`add_vectors`.

    Each call copies the matrix: add many words at once with
    :meth:`add_vectors`.

    Parameters
    ----------
    key : str
    vector : array_like
        ``dim`` finite numbers.

    Returns
    -------
    int
        The word's row: the next row reserved by ``KeyedVectors(vector_size,
        count)`` while one is free (:attr:`next_index`), else a new last row.
        A word already there keeps its vector and its row is returned
        (gensim returns ``len(kv)``, past the last row).
    """
    vector = check_vector(vector, self.vector_size, "vector")
    if isinstance(key, str) and key in self.key_to_index:
        return self.key_to_index[key]
    rows = _new_rows(vector.reshape(1, -1), 1, self.vector_size, self.store.dtype)
    return int(_add_new(self, _new_keys([key]), rows, {})[0])


def add_vectors(self, keys, weights, extras=None, replace=False):
    """Append words and their vectors; words already there keep theirs unless ``replace``.

    Parameters
    ----------
    keys : str or list of str
        The words (a single word with a single vector).
    weights : array_like
        One vector per word: shape ``(len(keys), dim)``.
    extras : dict of str to array_like, optional
        Per-word attributes of the words (one value per key), stored as
        :meth:`set_vecattr` stores them.  (gensim 4.4 fails on any.)
    replace : bool, optional
        Also give the words already there the new vectors (and extras).

    The new words take the rows reserved by ``KeyedVectors(vector_size,
    count)`` first, while free (gensim appends after them, leaving them
    ``None``), then go after the last row; other attributes (the counts
    included) are 0 for them.

    Raises
    ------
    ParameterError
        A key is not a str or is given twice, or ``weights`` has another
        shape or holds NaN or infinity.
    """
    if isinstance(keys, KEY_TYPES):
        keys = [keys]
        weights = np.asarray(weights).reshape(1, -1)
    keys = _new_keys(keys)
    weights = _new_rows(weights, len(keys), self.vector_size, self.store.dtype)
    extras = {attr: np.asarray(values) for attr, values in (extras or {}).items()}
    for attr, values in extras.items():
        if values.shape[:1] != (len(keys),):
            raise ParameterError(f"extras[{attr!r}] must hold one value per key ({len(keys)}), "
                                 f"got shape {values.shape}")
    store = self.store
    k2i = store.key_to_index
    known = np.array([k in k2i for k in keys], dtype=bool)
    fresh = np.flatnonzero(~known)
    _add_new(self, [keys[i] for i in fresh.tolist()], weights[fresh], {a: v[fresh] for a, v in extras.items()})
    if replace and known.any():
        rows = np.array([k2i[keys[i]] for i in np.flatnonzero(known).tolist()], dtype=np.intp)
        store.set_rows(rows, weights[known])
        for attr, values in extras.items():
            store.set_attribute_values(attr, rows, values[known])


def _add_new(self, keys, weights, extras):
    """Add the words ``keys`` (none there yet) with their checked rows and extras; return their rows."""
    rows = self.store.add_rows(keys, weights) if keys else np.empty(0, dtype=np.intp)
    self.allocate_vecattrs()
    self.allocate_vecattrs(list(extras), [values.dtype for values in extras.values()])
    for attr, values in extras.items():
        self.store.set_attribute_values(attr, rows, values)
    return rows


def __setitem__(self, keys, weights):
    """``kv[word] = vector`` or ``kv[[w1, w2]] = matrix``: :meth:`add_vectors` with ``replace=True``."""
    if not isinstance(keys, list):
        keys = [keys]
        weights = np.asarray(weights).reshape(1, -1)
    self.add_vectors(keys, weights, replace=True)


def resize_vectors(self, seed=0):
    """Give the vectors one row per word of :attr:`index_to_key`, as gensim does.

    For words appended to ``index_to_key`` by hand: new rows are drawn
    uniformly from ``[-1/dim, 1/dim)`` by ``numpy.random.default_rng(seed)``
    (gensim's draw, value for value); rows past the last word are cut.
    The word index is rebuilt and the attributes grown or cut.

    Parameters
    ----------
    seed : int, optional
    """
    store = self.store
    n, dim = len(store.index_to_key), self.vector_size
    if n != store.vectors.shape[0]:
        rng = np.random.default_rng(seed=seed)
        grown = rng.random((n, dim), dtype=np.float32)    # gensim's draw (then cast to the vectors' type)
        grown *= 2.0
        grown -= 1.0
        grown /= dim
        keep = min(n, store.vectors.shape[0])
        grown[:keep] = store.vectors[:keep]
        store.rebuild_index()     # built again from index_to_key on first use
        store.set_vectors(grown, check_values=False)
    self.allocate_vecattrs()
    store.forget_norms()


def unit_normalize_all(self):
    """Scale every vector to unit length, in place when the array is writable.

    A zero vector stays zero (gensim makes it NaN).  Training on from
    normalised vectors makes little sense: this is for query-only use.
    """
    self.fill_norms()
    self.store.normalize_rows()
