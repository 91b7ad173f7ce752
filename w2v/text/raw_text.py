"""The hint that a corpus split at whitespace is raw text, and the tokenizer settings that would help.

Raw text split at whitespace gives ``king``, ``king,`` and ``King`` as three
words.  The default tokenizer stays (pre-tokenized corpora and word2vec.c
expect it); when the most frequent words look like raw text, the library
says so once per ``build_vocab`` as a :class:`w2v.errors.RawTextWarning` (a
:class:`~w2v.errors.CorpusWarning`), and ``w2v train`` as one ``hint:`` line
in the words of its own options.
"""
import unicodedata

from ..errors import RawTextWarning
from ..util.caller_warnings import warn

__all__ = ["HINT_SHARE", "HINT_TOP_WORDS", "raw_text_finding", "warn_of_raw_text"]

HINT_TOP_WORDS = 1000   # the most frequent words the hint looks at
# raw text split at whitespace: on the bundled corpus 171 of the top 1,000 words carry punctuation, 80 are case twins
HINT_SHARE = 0.02

#: what the library's warning suggests (the CLI names its options instead)
API_ADVICE = "tokenizer='simple', lowercase=True"


def raw_text_finding(words, top=HINT_TOP_WORDS):
    """What makes a vocabulary split at whitespace look like raw text, in a few words, or ``None``.

    Says so when at least :data:`HINT_SHARE` of the ``top`` most frequent
    ``words`` (a vocabulary of 100 words at least) are another word of the
    vocabulary with punctuation around it, or with capitals.

    Parameters
    ----------
    words : sequence of str
        The vocabulary, most frequent first.
    top : int, optional

    Returns
    -------
    str or None
        E.g. ``"among the 1,000 most frequent words, 171 carry punctuation
        ('the,', ...) and 80 are capitalized twins ('The', ...)"``.
    """
    head = list(words[:top])
    if len(head) < 100:
        return None
    known = set(words)
    punct = [w for w in head if _bare(w) not in ("", w) and _bare(w) in known]
    case = [w for w in head if w != w.lower() and w.lower() in known]
    if len(punct) + len(case) < HINT_SHARE * len(head):
        return None
    seen = [f"{len(punct)} carry punctuation ({_examples(punct)})"] if punct else []
    seen += [f"{len(case)} are capitalized twins ({_examples(case)})"] if case else []
    return f"among the {len(head):,} most frequent words, {' and '.join(seen)}"


def warn_of_raw_text(words, tokenizer, lowercase):
    """Warn (:class:`w2v.errors.RawTextWarning`) when a vocabulary the whitespace tokenizer made, without
    ``lowercase``, looks like raw text (:func:`raw_text_finding`); the warning names the caller's line.

    Parameters
    ----------
    words : sequence of str
        The vocabulary, most frequent first.
    tokenizer : str
    lowercase : bool
        The settings the corpus was read with: other ones were chosen, and say nothing.
    """
    if tokenizer != "whitespace" or lowercase:
        return
    finding = raw_text_finding(words)
    if finding is not None:
        warn(f"{finding}; for raw text, try {API_ADVICE}", RawTextWarning)


def _examples(words):
    return ", ".join(f"'{w}'" for w in words[:3])


def _bare(word):
    """``word`` without the punctuation at its ends."""
    i, j = 0, len(word)
    while i < j and unicodedata.category(word[i]).startswith("P"):
        i += 1
    while j > i and unicodedata.category(word[j - 1]).startswith("P"):
        j -= 1
    return word[i:j]
