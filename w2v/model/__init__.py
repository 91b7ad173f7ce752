"""The ``Word2Vec`` model: its corpus reader, gensim's parameters and names, full-model files and
checkpoints."""

#: defined in :mod:`w2v.model.word2vec`, imported on first use (``import w2v.model.<module>`` stays light)
_PUBLIC = ("Word2Vec",)


def __getattr__(name):
    if name in _PUBLIC:
        from . import word2vec as owner
        return getattr(owner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_PUBLIC)
