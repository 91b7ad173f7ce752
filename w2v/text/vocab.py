"""Vocabulary: words, counts and their deterministic order."""
import numpy as np

from ..errors import BudgetError, ParameterError, VocabularyError


def mib(n_bytes):
    """``n_bytes`` in MiB, rounded up (the unit of ``--memory-budget``)."""
    return -(-int(n_bytes) // (1 << 20))


def size_text(n_bytes):
    """``n_bytes`` for a message: ``"3.2 GiB"``, ``"250 MiB"``, ``"12 KiB"`` or ``"800 bytes"``."""
    n = int(n_bytes)
    if n >= 10 << 30:
        return f"{n / (1 << 30):.0f} GiB"
    if n >= 1 << 30:
        return f"{n / (1 << 30):.1f} GiB"
    if n >= 1 << 20:
        return f"{mib(n):,} MiB"
    return f"{-(-n // 1024):,} KiB" if n >= 1024 else f"{n} bytes"


class ListedWords(list):
    """The words a scan listed after it spilled its counts to disk (docs/large-corpora.md).

    A list of ``str`` in order of first occurrence, as a scan's words are,
    that holds only the words occurring at least ``count_floor`` times and
    the words of ``always``: the others were counted on disk and left out.
    A vocabulary taken from these words is exact when it needs no word
    left out; :meth:`require` says whether a choice does, and the functions
    of this module call it.

    Parameters
    ----------
    words : iterable of str
    count_floor : int
        Every word occurring at least this many times is listed.
    always : sequence of str, optional
        Words listed whatever their counts (a model's vocabulary).
    n_distinct : int
        Distinct words of the corpus, listed or not.
    needed : int
        A memory budget (bytes) under which the scan counts every word in
        memory, and so lists them all.
    """

    def __init__(self, words, count_floor, always=None, n_distinct=0, needed=0):
        super().__init__(words)
        self.count_floor = int(count_floor)
        self.always = always
        self.n_distinct = int(n_distinct)
        self.needed = int(needed)

    def _refuse(self, what, remedy):
        raise BudgetError(f"{what}: the corpus has {self.n_distinct:,} distinct words, more than the memory "
                          f"budget counts at once, so its scan listed only the {len(self):,} that occur at least "
                          f"{self.count_floor:,} times{' or are in the vocabulary' if self.always else ''}; "
                          f"{remedy}a memory budget of {mib(self.needed):,} MiB (--memory-budget "
                          f"{mib(self.needed)}) counts them all in memory", self.needed)

    def require(self, min_count=None, trim_rule=None, vocabulary=None):
        """Raise :class:`~w2v.errors.BudgetError` unless a vocabulary chosen with these needs only listed words.

        Parameters
        ----------
        min_count : int, optional
            Words occurring fewer times are dropped: exact when it is at least
            ``count_floor``.
        trim_rule : callable, optional
            It sees every word: exact only when nothing was left out.
        vocabulary : sequence of str, optional
            Words whose counts (or ids) are needed: exact when they are
            ``always``.
        """
        if min_count is not None and min_count < self.count_floor:
            self._refuse(f"min_count={min_count} needs the words occurring {min_count} times or more",
                         f"use min_count >= {self.count_floor:,}, or ")
        if trim_rule is not None:
            self.require_all("trim_rule is given every word of the corpus")
        if vocabulary is not None and self.count_floor > 1 and not self._lists(vocabulary):
            self._refuse("the words of the vocabulary are needed whatever their counts", "")

    def require_all(self, what):
        """Raise :class:`~w2v.errors.BudgetError` (``what`` needs every word) unless every word is listed."""
        if self.count_floor > 1:
            self._refuse(what, "")

    def _lists(self, vocabulary):
        always = self.always
        if always is None:
            return False
        return vocabulary is always or set(vocabulary) <= set(always)


class Vocab:
    """Words in index order with their corpus counts.

    Order is deterministic: count descending, ties broken by first occurrence
    in the corpus.  gensim 4's ``sort_by_descending_frequency`` breaks ties the
    other way (``np.lexsort((-index, -count))``: the word seen *last* first);
    word2vec.c's ``qsort`` leaves them in no fixed order and puts ``</s>``
    first, which w2v does not have.  The words and counts are the same as
    gensim's ``build_vocab`` (``corpus_file`` or ``LineSentence``) on the same
    file.

    Parameters
    ----------
    words : list of str
    counts : array_like of int
    """

    def __init__(self, words, counts):
        self.words = list(words)
        self.counts = np.asarray(counts, dtype=np.int64)
        if len(self.words) != self.counts.size:
            raise VocabularyError("words and counts differ in length")
        self.index = {w: i for i, w in enumerate(self.words)}
        if len(self.index) != len(self.words):
            raise VocabularyError("duplicate words in vocabulary")

    def __len__(self):
        return len(self.words)

    def check(self):
        """Raise :class:`VocabularyError` if words, counts and index disagree (edited by hand).

        The corpus is encoded through ``index`` and the counts are indexed by
        its ids, so an id outside ``0..len - 1`` or counts of another length
        must stop here, before anything is read or trained.
        """
        counts = self.counts
        if not (isinstance(counts, np.ndarray) and counts.dtype == np.int64 and counts.shape == (len(self.words),)):
            raise VocabularyError(f"vocabulary counts must be an int64 array of {len(self.words)} entries "
                                  f"(one per word), got {type(counts).__name__} "
                                  f"{getattr(counts, 'dtype', '')} {getattr(counts, 'shape', '')}")
        index = self.index
        if len(index) != len(self.words) or any(index.get(w) != i for i, w in enumerate(self.words)):
            raise VocabularyError("vocabulary index does not map each word to its row (edited by hand?)")

    def __contains__(self, word):
        return word in self.index

    @property
    def total(self):
        """Number of corpus tokens covered by the vocabulary."""
        return int(self.counts.sum())


def build_vocab(words, counts, min_count=5, max_vocab_size=None, keep=None):
    """Select and order the vocabulary from raw counts.

    Parameters
    ----------
    words : list of str
        Distinct words in order of first occurrence.
    counts : numpy.ndarray of int64
        Their counts.
    min_count : int
        Words occurring fewer times are dropped.
    max_vocab_size : int, optional
        Keep exactly the ``max_vocab_size`` most frequent words, cutting a
        group of equal counts by first occurrence.  gensim's
        ``max_final_vocab`` instead raises ``min_count`` so that no group of
        equal counts is cut (it may keep fewer words), and gensim's
        ``max_vocab_size`` / word2vec.c's vocabulary reduction prune rare words
        *while counting* (approximate counts); w2v's counts are always exact.
    keep : numpy.ndarray of bool, optional
        Which words pass, instead of ``counts >= min_count`` (see :func:`kept_words`).

    Returns
    -------
    vocab : Vocab
    remap : numpy.ndarray of int32
        For each input word, its id in ``vocab`` or ``-2`` if dropped.

    Raises
    ------
    VocabularyError
        No word survives ``min_count``.
    BudgetError
        ``words`` are those of a scan that spilled its counts
        (:class:`ListedWords`) and ``min_count`` is below the counts it listed.
    """
    if min_count < 1:
        raise ParameterError("min_count must be >= 1")
    if max_vocab_size is not None and max_vocab_size < 1:
        raise ParameterError("max_vocab_size must be >= 1")
    if keep is None and isinstance(words, ListedWords):
        words.require(min_count=min_count)
    counts = np.asarray(counts, dtype=np.int64)
    kept = np.flatnonzero(counts >= min_count if keep is None else keep)
    if kept.size == 0:
        raise VocabularyError(
            f"vocabulary is empty after min_count={min_count} "
            f"(the most frequent word occurs {int(counts.max()) if counts.size else 0} times)")
    # stable sort on descending count keeps first-occurrence order among ties
    order = kept[np.argsort(-counts[kept], kind="stable")]
    if max_vocab_size is not None:
        order = order[:max_vocab_size]
    remap = np.full(counts.size, -2, np.int32)
    remap[order] = np.arange(order.size, dtype=np.int32)
    vocab = Vocab([words[i] for i in order], counts[order])
    return vocab, remap


def vocab_ids(vocab, words):
    """The id in ``vocab`` of each of ``words``, ``-2`` for a word outside it (a remap for
    :func:`w2v.text.encoded.encode_corpus`).

    Parameters
    ----------
    vocab : Vocab
    words : list of str

    Returns
    -------
    numpy.ndarray of int32

    Raises
    ------
    BudgetError
        ``words`` are those of a scan that spilled its counts without being
        given ``vocab``'s words (:class:`ListedWords`).
    """
    if isinstance(words, ListedWords):
        words.require(vocabulary=vocab.words)
    index = vocab.index
    return np.fromiter((index.get(w, -2) for w in words), dtype=np.int32, count=len(words))


def merge_vocab(old, words, counts, min_count=5, max_vocab_size=None, keep=None):
    """The vocabulary of an online update: ``old`` and the new words of a scanned corpus, as gensim's.

    Words of ``old`` keep their ids; their counts grow by their counts in
    the corpus.  Words not in ``old`` that occur at least ``min_count`` times
    in the corpus are appended (most frequent first, ties by first
    occurrence), up to ``max_vocab_size`` words in all.

    Parameters
    ----------
    old : Vocab
    words : list of str
        The corpus' distinct words (each once), in order of first occurrence.
    counts : numpy.ndarray of int64
        Their counts in the corpus.
    min_count : int
    max_vocab_size : int, optional
    keep : numpy.ndarray of bool, optional
        Which new words pass, instead of ``counts >= min_count`` (see :func:`kept_words`).

    Returns
    -------
    vocab : Vocab
        The merged vocabulary (``old``'s words first).
    remap : numpy.ndarray of int32
        For each of ``words``, its id in ``vocab`` or ``-2`` if left out.

    Raises
    ------
    VocabularyError
        No word of the corpus is in ``old`` or occurs ``min_count`` times.
    BudgetError
        ``words`` are those of a scan that spilled its counts without being
        given ``old``'s words (:class:`ListedWords`).
    """
    if isinstance(words, ListedWords):
        words.require(min_count=min_count if keep is None else None, vocabulary=old.words)
    v0 = len(old)
    index = old.index
    existing = np.fromiter((index.get(w, -1) for w in words), dtype=np.int64, count=len(words))
    known = existing >= 0
    merged = old.counts.copy()
    merged[existing[known]] += counts[known]      # each word once in words
    cand = np.flatnonzero(~known & (counts >= min_count if keep is None else keep))
    cand = cand[np.argsort(-counts[cand], kind="stable")]
    if max_vocab_size is not None:
        cand = cand[:max(0, max_vocab_size - v0)]
    remap = np.full(len(words), -2, np.int32)
    remap[known] = existing[known]
    remap[cand] = v0 + np.arange(cand.size, dtype=np.int32)
    if not np.any(remap >= 0):
        raise VocabularyError(f"no word of the corpus is in the vocabulary or occurs min_count={min_count} times")
    vocab = Vocab(old.words + [words[i] for i in cand], np.concatenate([merged, counts[cand]]))
    return vocab, remap


#: what a ``trim_rule`` returns (the values of gensim.utils' constants)
RULE_DEFAULT, RULE_DISCARD, RULE_KEEP = 0, 1, 2


def kept_words(words, counts, min_count, trim_rule=None):
    """Which words enter the vocabulary: ``counts >= min_count``, overruled word by word by ``trim_rule``.

    Parameters
    ----------
    words : list of str
    counts : numpy.ndarray of int64
    min_count : int
    trim_rule : callable, optional
        gensim's ``trim_rule(word, count, min_count)``: :data:`RULE_KEEP` keeps
        the word, :data:`RULE_DISCARD` drops it, anything else (:data:`RULE_DEFAULT`)
        leaves the decision to ``min_count``.  Called once per distinct word.

    Returns
    -------
    numpy.ndarray of bool

    Raises
    ------
    BudgetError
        ``words`` are those of a scan that spilled its counts (:class:`ListedWords`),
        and ``min_count`` is below the counts it listed, or ``trim_rule`` is given.
    """
    if isinstance(words, ListedWords):
        words.require(min_count=min_count, trim_rule=trim_rule)
    keep = np.asarray(counts, np.int64) >= min_count
    if trim_rule is None:
        return keep
    if not callable(trim_rule):
        raise ParameterError(f"trim_rule must be callable, not {type(trim_rule).__name__}")
    for i, (word, count) in enumerate(zip(words, counts.tolist())):
        rule = trim_rule(word, count, min_count)
        if rule == RULE_KEEP:
            keep[i] = True
        elif rule == RULE_DISCARD:
            keep[i] = False
    return keep


def final_vocab_min_count(counts, min_count, max_final_vocab=None):
    """The ``min_count`` that gensim's ``max_final_vocab`` leads to.

    With ``max_final_vocab`` and more distinct words than it, words must occur
    more often than the word ranked ``max_final_vocab + 1`` (counting from 1 by
    descending count), so that no group of equal counts is cut: the vocabulary
    may hold fewer words.  ``min_count`` applies when it is higher.

    Returns
    -------
    int
    """
    if max_final_vocab is None:
        return min_count
    counts = np.asarray(counts, np.int64)
    if max_final_vocab >= counts.size:
        return min_count
    ranked = -np.partition(-counts, max_final_vocab)[max_final_vocab]
    return max(min_count, int(ranked) + 1)
