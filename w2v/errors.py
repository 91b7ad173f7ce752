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


class BudgetError(ParameterError):
    """The memory budget is too small for what was asked of it.

    ``needed`` is the smallest budget, in bytes, that would do (``None``
    when unknown).
    """

    def __init__(self, message, needed=None):
        super().__init__(message)
        self.needed = needed


class FormatError(W2VError):
    """A vector or model file is truncated, corrupt or not of the expected format."""


class WordDecodeError(FormatError, UnicodeDecodeError):
    """A word of a vector or vocabulary file does not decode in its encoding (``unicode_errors='strict'``).

    Also the :class:`UnicodeDecodeError` gensim raises there, so code written
    for gensim's ``load_word2vec_format`` catches it unchanged: ``encoding``,
    ``object``, ``start``, ``end`` and ``reason`` are those of the failed
    decoding (``object`` holds the bytes of the word or line), and ``str()``
    is the message, which names the file and the place.

    Parameters
    ----------
    message : str
    encoding, data, start, end, reason
        :class:`UnicodeDecodeError`'s five arguments.
    """

    def __init__(self, message, encoding, data, start, end, reason):
        UnicodeDecodeError.__init__(self, encoding, data, start, end, reason)
        self.message = message

    @classmethod
    def from_error(cls, message, exc):
        """The error with ``message`` for the :class:`UnicodeDecodeError` ``exc``."""
        return cls(message, exc.encoding, exc.object, exc.start, exc.end, exc.reason)

    def __str__(self):
        return self.message

    def __reduce__(self):
        # the arguments of __init__, not UnicodeDecodeError's five kept in self.args
        return type(self), (self.message, self.encoding, self.object, self.start, self.end, self.reason)


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
