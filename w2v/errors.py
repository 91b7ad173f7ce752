"""Typed exceptions raised by the library, and its warnings.

The CLI turns every :class:`W2VError` into a one-line message and a non-zero
exit status; anything else is a bug.  Warnings (:class:`CorpusWarning`,
:class:`ResumeWarning`) print as one ``warning: ...`` line there.
"""


class W2VError(Exception):
    """Base class of every error w2v raises on purpose."""


class CorpusError(W2VError):
    """A corpus path is missing, unreadable, or holds no tokens."""


class VocabularyError(W2VError):
    """The vocabulary is empty (e.g. after ``min_count``) or inconsistent."""


class ParameterError(W2VError, ValueError):
    """An invalid hyper-parameter or argument."""


class FormatError(W2VError):
    """A vector or model file is truncated, corrupt or not of the expected format."""


class UnknownWordError(W2VError, KeyError):
    """A word is not in the vocabulary.

    Also a :class:`KeyError`, as gensim raises, so code written for gensim's
    ``KeyedVectors`` catches it unchanged.
    """

    @classmethod
    def for_word(cls, word):
        """The error for ``word``, worded as gensim words it."""
        return cls(f"Key '{word}' not present in vocabulary")

    def __str__(self):
        # KeyError's str() is the repr of its argument; show the message as written
        return str(self.args[0]) if self.args else ""


class OutputError(W2VError):
    """An output path cannot be written."""


class DeviceError(W2VError):
    """The requested training device is unusable (e.g. ``cuda`` without numba-cuda or a GPU)."""


class CorpusWarning(UserWarning):
    """The corpus was read, but not quite as written (bytes that are not UTF-8 were replaced), or
    it looks unlike what the settings expect (:class:`RawTextWarning`)."""


class RawTextWarning(CorpusWarning):
    """A vocabulary split at whitespace looks like raw text (punctuation, capitals): a tokenizer would help."""


class ResumeWarning(UserWarning):
    """An unfinished run cannot be continued (another corpus): a new run starts instead."""
