"""Trained vectors: :class:`KeyedVectors`, the store that owns its state (:mod:`w2v.vectors.store`), the
concepts of its API as modules of plain functions (lookup, similarity, neighbours, ranking, per-word
attributes, editing, files, evaluation), and loading and saving them."""

#: defined in :mod:`w2v.vectors.keyed`, imported on first use (``import w2v.vectors.<module>`` stays light)
_PUBLIC = ("KeyedVectors", "load", "load_native", "load_word2vec_format", "save", "save_native", "save_word2vec_format")


def __getattr__(name):
    if name in _PUBLIC:
        from . import keyed as owner   # start-up: the vectors side (scipy.linalg, 0.3 s) loads on first use
        return getattr(owner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_PUBLIC)
