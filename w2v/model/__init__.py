"""The ``Word2Vec`` model: its corpus reader, gensim's parameters and names, full-model files and
checkpoints."""

#: defined in :mod:`w2v.model.word2vec`, imported on first use: the CLI imports :mod:`w2v.model.checkpoints` at
#: start, and an eager import here would load Numba into ``w2v --help``
_PUBLIC = ("Word2Vec",)


def __getattr__(name):
    if name in _PUBLIC:
        from . import word2vec as owner   # start-up: loads Numba (+0.5 s; see _PUBLIC)
        return getattr(owner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_PUBLIC)
