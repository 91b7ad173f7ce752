"""``vocab.tsv``, the vocabulary of a native directory: ``word<TAB>count`` per line, in row order.

A word is UTF-8, never empty, holds no tab, newline or carriage return, and
takes at most :data:`~w2v.formats.word2vec_stream.MAX_WORD` bytes (as in the
word2vec formats).  A count is ASCII decimal digits and fits in int64.  The
writer refuses anything else before it writes, and the reader reads at most
what the header's word count allows (:func:`max_vocab_bytes`).
"""
import re
import warnings

import numpy as np

from ..errors import FormatError
from .files import check_utf8, decode_utf8, read_model_file
from .word2vec_stream import MAX_WORD

__all__ = ["check_vocab", "max_vocab_bytes", "parse_vocab", "read_vocab", "vocab_bytes"]

_INT64_DIGITS = len(str(np.iinfo(np.int64).max))    # 19
_DIGITS = re.compile(r"[0-9 ]*")


def max_vocab_bytes(count):
    """The most bytes a ``vocab.tsv`` of ``count`` words may hold: each a word, a tab, a count and a newline.

    Parameters
    ----------
    count : int

    Returns
    -------
    int
    """
    return count * (MAX_WORD + _INT64_DIGITS + 2)


def check_vocab(words, counts, path):
    """Refuse, before anything is written, what ``vocab.tsv`` cannot hold or its reader refuses.

    Parameters
    ----------
    words : list of str
    counts : numpy.ndarray or None
    path : str
        The model being written, for the message.

    Raises
    ------
    FormatError
        An empty word, a word holding a tab, newline or carriage return or
        longer than ``MAX_WORD`` bytes, a word with no UTF-8 encoding, or a
        negative count.
    """
    longest = MAX_WORD // 4          # a word of fewer characters cannot exceed MAX_WORD bytes
    for i, word in enumerate(words):
        if not word or "\t" in word or "\n" in word or "\r" in word:
            raise FormatError(
                f"{path}: cannot save word {word!r} (row {i}): vocab.tsv cannot hold empty words, "
                "tabs or newlines"
            )
        if len(word) > longest and len(word.encode("utf-8", "surrogatepass")) > MAX_WORD:
            raise FormatError(f"{path}: cannot save word {word[:20]!r}... (row {i}): it is longer than "
                              f"{MAX_WORD:,} bytes, the longest word a reader accepts")
    check_utf8(words, path)
    if counts is not None and counts.size and counts.min() < 0:
        row = int(np.argmin(counts))
        raise FormatError(f"{path}: cannot save count {int(counts[row])} of {words[row]!r} "
                          f"(row {row}): word counts must be >= 0")


def vocab_bytes(words, counts):
    """The bytes of ``vocab.tsv`` (counts 0 where ``counts`` is None)."""
    if counts is None:
        lines = [f"{w}\t0\n" for w in words]
    else:
        lines = [f"{w}\t{c}\n" for w, c in zip(words, counts.tolist())]
    return "".join(lines).encode("utf-8")


def _too_long(field):
    """Whether the digits ``field`` name a number of more digits than int64 holds (leading zeros aside)."""
    return len(field) > _INT64_DIGITS and len(field.lstrip("0")) > _INT64_DIGITS


def _parse_counts(fields):
    """int64 array of counts written as ASCII digits; None if one is not (or overflows int64).

    Python's ``int()`` also takes ``" 3"``, ``"+3"``, ``"1_0"`` and non-ASCII
    digits; vocab.tsv holds only what :func:`vocab_bytes` writes.
    """
    joined = " ".join(fields)
    # digits and the separating spaces only: no sign, underscore, padding or empty field
    if _DIGITS.fullmatch(joined) is None or joined.count(" ") != len(fields) - 1:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            arr = np.fromstring(joined, dtype=np.int64, sep=" ")   # 2-3x faster than np.array(list)
    except (ValueError, Warning):
        return None
    if arr.size != len(fields):
        return None
    if arr.size and arr.max() == np.iinfo(np.int64).max:
        # fromstring saturates on overflow: exact Python ints decide (int() refuses 4,300 digits and more)
        if any(_too_long(c) for c in fields):
            return None
        try:
            return np.array([int(c) for c in fields], dtype=np.int64)
        except OverflowError:
            return None
    return arr


def _bad_count(path, fields):
    """The FormatError for the first count of ``fields`` that is not a non-negative int64."""
    for k, c in enumerate(fields):
        if not (c.isascii() and c.isdigit()):
            return FormatError(f"{path}: line {k + 1}: bad count {c[:40]!r} (expected decimal digits)")
        if _too_long(c) or int(c) > np.iinfo(np.int64).max:
            return FormatError(f"{path}: line {k + 1}: count {c[:40]}{'...' if len(c) > 40 else ''} is too large")
    return FormatError(f"{path}: bad counts")


def read_vocab(path, count):
    """The words and counts of ``vocab.tsv``, which must hold ``count`` lines.

    Parameters
    ----------
    path : str
    count : int
        The words the header declares.

    Returns
    -------
    words : list of str
    counts : numpy.ndarray
        int64.

    Raises
    ------
    FormatError
        Missing or unreadable, larger than ``count`` lines may be
        (:func:`max_vocab_bytes`, refused before it is read), not UTF-8,
        another number of lines, a line that is not ``word<TAB>count``, an
        empty word or one holding a carriage return, or a count that is not
        ASCII digits or exceeds int64; the message names the line.
    """
    raw = read_model_file(path, "missing file (not a complete w2v native model)", limit=max_vocab_bytes(count))
    return parse_vocab(raw, path, count)


def parse_vocab(raw, path, count):
    """The words and counts of the bytes ``raw`` of a ``vocab.tsv``, checked as :func:`read_vocab` checks them.

    Parameters
    ----------
    raw : bytes
    path : str
        The file (or archive member), for the messages.
    count : int
        The words the header declares.

    Returns
    -------
    words : list of str
    counts : numpy.ndarray
    """
    text = decode_utf8(raw, path)
    body = text[:-1] if text.endswith("\n") else text
    parts = body.replace("\n", "\t").split("\t") if body else []
    n_lines = body.count("\n") + 1 if body else 0
    if n_lines != count:
        raise FormatError(f"{path}: {n_lines} lines, but meta.json declares {count} words")
    # as many tabs as lines is not one tab a line ("a<TAB>1<TAB>b" then "2"): with that many,
    # the separators alternate if every newline comes second (UTF-8 holds no other 9 or 10 byte)
    seps = np.frombuffer(raw, dtype=np.uint8)
    seps = seps[(seps == 9) | (seps == 10)]
    if len(parts) != 2 * count or (seps[1::2] != 10).any():
        for k, line in enumerate(body.split("\n")):
            if line.count("\t") != 1:
                raise FormatError(f"{path}: line {k + 1}: expected 'word<TAB>count'")
    words = parts[0::2]
    fields = parts[1::2]
    counts = _parse_counts(fields) if count else np.zeros(0, dtype=np.int64)
    if counts is None:
        raise _bad_count(path, fields)
    if "" in words or "\r" in body:
        for k, w in enumerate(words):
            if not w:
                raise FormatError(f"{path}: line {k + 1}: empty word")
            if "\r" in w:
                raise FormatError(f"{path}: line {k + 1}: word {w[:40]!r} holds a carriage return")
    return words, counts
