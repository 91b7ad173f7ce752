"""Phrases: gensim's ``Phrases`` and ``FrozenPhrases`` over w2v's pair tables, phrase passes over a
corpus's id stream, phrase model files and their settings."""

#: defined in :mod:`w2v.phrases.model`, imported on first use (``import w2v.phrases.<module>`` stays light)
_PUBLIC = ("ENGLISH_CONNECTOR_WORDS", "Phrases", "FrozenPhrases", "load_phrases", "original_scorer", "npmi_scorer")


def __getattr__(name):
    if name in _PUBLIC:
        from . import model as owner
        return getattr(owner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_PUBLIC)
