"""w2v: word2vec training with Numba kernels.

>>> from w2v import Word2Vec, load               # doctest: +SKIP
>>> m = Word2Vec(dim=100).train("corpus.txt")      # doctest: +SKIP
>>> kv = load("vectors.bin")                       # doctest: +SKIP
"""
import importlib

__version__ = "0.1.0"

import logging  # noqa: E402

# the library logs (each module to a logger of its own name, as gensim's) and prints nothing unasked:
# without a handler here, Python's last resort would print every warning to stderr
if not logging.getLogger(__name__).handlers:   # a reload adds no second one
    logging.getLogger(__name__).addHandler(logging.NullHandler())

from .kernels.cache import choose_cache_dir  # noqa: E402

choose_cache_dir()   # before Numba is imported: a package folder that cannot be written caches elsewhere

from .errors import (BudgetError, CorpusError, CorpusWarning, DeviceError, FormatError, OutputError,  # noqa: E402,F401
                     ParameterError, ResumeWarning, UnknownWordError, VocabularyError, W2VError)

_LAZY = {  # imported on first use, so that `import w2v` (and the CLI) start fast
    "Word2Vec": ("w2v.model.word2vec", "Word2Vec"),
    "KeyedVectors": ("w2v.vectors.keyed", "KeyedVectors"),
    "load": ("w2v.vectors.keyed", "load"),
    "save": ("w2v.vectors.keyed", "save"),
    "Settings": ("w2v.settings", "Settings"),
    "LineSentence": ("w2v.text.sentences", "LineSentence"),
    "PathLineSentences": ("w2v.text.sentences", "PathLineSentences"),
    "Text8Corpus": ("w2v.text.sentences", "Text8Corpus"),
    "CallbackAny2Vec": ("w2v.training.callbacks", "CallbackAny2Vec"),
    "Phrases": ("w2v.phrases.model", "Phrases"),
    "FrozenPhrases": ("w2v.phrases.model", "FrozenPhrases"),
}


def __getattr__(name):
    if name == "plot":   # the pictures (w2v.plot.word_map, w2v.plot.training) after a plain `import w2v`
        return importlib.import_module("w2v.plot")
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'w2v' has no attribute {name!r}")


__all__ = ["Word2Vec", "KeyedVectors", "load", "save", "Settings", "Phrases", "FrozenPhrases", "LineSentence",
           "PathLineSentences", "Text8Corpus", "CallbackAny2Vec", "W2VError", "CorpusError", "FormatError",
           "OutputError", "ParameterError", "BudgetError", "UnknownWordError", "VocabularyError", "DeviceError",
           "CorpusWarning", "ResumeWarning", "__version__"]
