"""Sentences read from files, as lists of ``str`` tokens: w2v's ``LineSentence``, ``PathLineSentences``
and ``Text8Corpus``, with the parameters of gensim's classes of these names.

Each is a restartable iterable: every ``for`` loop reads the files again,
in bounded memory (a line of any length is read in chunks, and handed out in
pieces of ``max_sentence_length`` tokens).  Tokens are split at whitespace,
as ``str.split()`` splits them; bytes that are not UTF-8 read as U+FFFD.

:func:`file_backed` tells :class:`~w2v.model.word2vec.Word2Vec` which corpora it may
read from their files directly (w2v's classes and gensim's ``LineSentence``
and ``PathLineSentences``): the byte scanner then reads them without making
a Python string per token, and the tokens and sentences are the same.
"""
import itertools
import os

from .scanning import iter_token_lines
from ..errors import CorpusError

__all__ = ["LineSentence", "PathLineSentences", "Text8Corpus", "file_backed", "MAX_WORDS_IN_SENTENCE"]

MAX_WORDS_IN_SENTENCE = 10000   # gensim's MAX_WORDS_IN_BATCH: the default cut of long lines


def _pieces(tokens, max_sentence_length):
    """``tokens`` in consecutive pieces of ``max_sentence_length`` (the last one shorter)."""
    for i in range(0, len(tokens), max_sentence_length):
        yield tokens[i:i + max_sentence_length]


def _line_sentences(paths, max_sentence_length, limit):
    """The sentences of :class:`LineSentence`: each line holding a token, cut into pieces, read in
    chunks so that a long line is handed out piece by piece."""
    for path in paths:
        line = []
        done = 0
        for tokens, ends in iter_token_lines([path], allow_binary=True):
            line.extend(tokens)
            while len(line) > max_sentence_length or (len(line) == max_sentence_length and not ends):
                yield line[:max_sentence_length]
                line = line[max_sentence_length:]
            if ends:
                if line:
                    yield line
                line = []
                done += 1
                if limit is not None and done >= limit:
                    break


class LineSentence:
    """The sentences of a text file: one line, one sentence; tokens separated by whitespace.

    Parameters
    ----------
    source : str, os.PathLike or file object
        A file (plain, gzip, bzip2 or xz, recognised from its first bytes),
        or an open file (rewound with ``seek(0)`` at every pass).
    max_sentence_length : int
        Longer lines are handed out in pieces of this many tokens.
    limit : int, optional
        Read only the first ``limit`` lines.

    Examples
    --------
    >>> from w2v import Word2Vec, LineSentence             # doctest: +SKIP
    >>> model = Word2Vec(sentences=LineSentence("corpus.txt"), vector_size=100)   # doctest: +SKIP
    """

    def __init__(self, source, max_sentence_length=MAX_WORDS_IN_SENTENCE, limit=None):
        self.source = source
        self.max_sentence_length = max_sentence_length
        self.limit = limit

    def __iter__(self):
        if hasattr(self.source, "seek"):
            self.source.seek(0)
            for line in itertools.islice(self.source, self.limit):
                if isinstance(line, bytes):
                    line = line.decode("utf-8", "replace")
                yield from _pieces(line.split(), self.max_sentence_length)
        else:
            yield from _line_sentences([self.source], self.max_sentence_length, self.limit)


class PathLineSentences:
    """The sentences of every file of a folder, in file-name order, each read as :class:`LineSentence`.

    Parameters
    ----------
    source : str or os.PathLike
        A folder (its files, not its subfolders, hidden files included, as
        gensim reads it) or a single file.
    max_sentence_length : int
    limit : int, optional
        Read only the first ``limit`` lines of each file.

    Raises
    ------
    CorpusError
        ``source`` is neither a file nor a folder.
    """

    def __init__(self, source, max_sentence_length=MAX_WORDS_IN_SENTENCE, limit=None):
        self.source = source
        self.max_sentence_length = max_sentence_length
        self.limit = limit
        if os.path.isfile(source):
            self.input_files = [os.fspath(source)]
        elif os.path.isdir(source):
            names = sorted(os.listdir(source))
            self.input_files = [p for p in (os.path.join(source, n) for n in names) if os.path.isfile(p)]
        else:
            raise CorpusError(f"{source}: neither a file nor a folder")

    def __iter__(self):
        yield from _line_sentences(self.input_files, self.max_sentence_length, self.limit)


class Text8Corpus:
    """The tokens of a file, line ends ignored, in sentences of ``max_sentence_length`` tokens (text8 is one line).

    Parameters
    ----------
    fname : str or os.PathLike
    max_sentence_length : int
    """

    def __init__(self, fname, max_sentence_length=MAX_WORDS_IN_SENTENCE):
        self.fname = fname
        self.max_sentence_length = max_sentence_length

    def __iter__(self):
        sentence = []
        n = self.max_sentence_length
        for tokens, _ in iter_token_lines([self.fname], allow_binary=True):
            sentence.extend(tokens)
            while len(sentence) >= n:
                yield sentence[:n]
                sentence = sentence[n:]
        if sentence:
            yield sentence


# the classes read through their files: w2v's, and gensim's of the same name and meaning
_LINES = {(LineSentence.__module__, "LineSentence"), ("gensim.models.word2vec", "LineSentence")}
_FOLDERS = {(PathLineSentences.__module__, "PathLineSentences"), ("gensim.models.word2vec", "PathLineSentences")}


def file_backed(corpus, max_sentence_length=MAX_WORDS_IN_SENTENCE, tokenizer="whitespace", lowercase=False):
    """The files of ``corpus`` when reading them gives its sentences, else ``None``.

    That is a ``LineSentence`` of a file path or a ``PathLineSentences``
    (w2v's or gensim's: exactly these classes, not subclasses) without
    ``limit``, whose ``max_sentence_length`` is the model's (the training
    kernel cuts longer lines at it), read with the whitespace tokenizer
    without lowercasing.  Lines are cut after ``max_sentence_length`` kept
    words instead of that many words read: the same, but for where the
    windows of a line longer than that stop.

    Parameters
    ----------
    corpus : object
    max_sentence_length : int
    tokenizer : str
    lowercase : bool

    Returns
    -------
    list of str or None
    """
    if tokenizer != "whitespace" or lowercase:
        return None
    kind = (type(corpus).__module__, type(corpus).__qualname__)
    if kind not in _LINES and kind not in _FOLDERS:
        return None
    if getattr(corpus, "limit", None) is not None or getattr(corpus, "max_sentence_length", None) != \
            max_sentence_length:
        return None
    if kind in _FOLDERS:
        files = list(getattr(corpus, "input_files", []))
        return files or None
    source = getattr(corpus, "source", None)
    if isinstance(source, (str, os.PathLike)) and os.path.isfile(source):
        return [os.fspath(source)]
    return None
