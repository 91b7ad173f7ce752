"""``Word2Vec``'s methods that read a corpus: ``build_vocab``, gensim's steps, ``read_corpus``.

``build_vocab``, ``scan_vocab``, ``prepare_vocab``, ``build_vocab_from_freq``,
``read_corpus`` and ``raw_vocab`` are plain functions here, bound in the body
of :class:`~w2v.model.word2vec.Word2Vec` as :mod:`w2v.model.gensim_api`'s
are; each takes the model as ``self``, so that users see gensim's
signatures and these docstrings.  Each hands the reading to the model's
:class:`~w2v.model.reader.CorpusReader`, which returns what it read as a
:class:`~w2v.model.reader.CorpusRead`, and has the model install that with
its own methods (``_count_corpus``, ``_take_vocabulary_pass``,
``_take_counted_vocabulary``, ``_take_corpus``): no function here assigns
an attribute of the model, which stays the only writer of its state.  They
live in a module of their own, not in the class body, because the class
and its reading API with gensim's docstrings do not fit one module of the
project's size (600 lines).

A corpus is read once, whether it is paths or an iterable of sentences:
the scan counts the words and records provisional ids; ``prepare_vocab``
picks the vocabulary and encodes those ids for training.  Which corpus
``train`` trains on is said in :mod:`w2v.model.reader`.
"""
import dataclasses

from ..errors import ParameterError, VocabularyError
from ..text.raw_text import warn_of_raw_text
from ..util.aliases import renamed
from .reader import corpus_source_for

__all__ = ["build_vocab", "scan_vocab", "prepare_vocab", "build_vocab_from_freq", "read_corpus", "raw_vocab"]


@renamed(corpus="corpus_iterable")
def build_vocab(self, corpus_iterable=None, corpus_file=None, update=False, progress_per=10000,
                keep_raw_vocab=False, trim_rule=None, quiet=True, progress_stream=None, allow_binary=False,
                phrases=None, **kwargs):
    """Read the corpus once: count, build the vocabulary and tables, encode the ids.

    Parameters
    ----------
    corpus_iterable : str, list of str, or iterable of list of str
        Files, folders or ``"-"`` (stdin), or the sentences as lists of
        ``str`` tokens (any restartable iterable, or an iterator read once).
    corpus_file : str, optional
        A file, instead of ``corpus_iterable`` (gensim's name).
    update : bool
        Online update (as gensim's): keep the vocabulary, ids and weights,
        add the corpus' new words (``min_count`` applies to their counts
        in this corpus) with fresh vectors, add the counts, rebuild the
        sampling tables and Huffman tree (:func:`w2v.text.vocab.merge_vocab`).
        Without it the model is reset.
    progress_per, keep_raw_vocab, trim_rule, **kwargs
        As gensim's (``kwargs``: :meth:`prepare_vocab`'s ``min_count``,
        ``sample``, ``dry_run``); see docs/gensim.md.
    quiet : bool
        No progress on stderr.
    allow_binary : bool
        Read files that do not look like text (see :func:`w2v.text.scanning.scan_corpus`).
    phrases : "auto", dict, Phrases, FrozenPhrases or path, optional
        Phrases joined into the ids as it is read (:func:`w2v.phrases.corpus.resolve_phrases`).

    Returns
    -------
    Word2Vec
        ``self``.

    Raises
    ------
    CorpusError
        A path is missing or unreadable, is not text (unless
        ``allow_binary``), or the corpus holds no token; a sentence that
        is not a list of ``str``.
    VocabularyError
        No word is left after ``min_count``.

    Warns
    -----
    w2v.errors.RawTextWarning
        Files read with the default tokenizer (``whitespace``, no
        ``lowercase``) whose most frequent words look like raw text (``king,``
        beside ``king``, ``The`` beside ``the``): ``tokenizer='simple',
        lowercase=True`` would help (:mod:`w2v.text.raw_text`).  Once per
        call; not for sentences given as lists of tokens, nor for an update.
    w2v.CorpusWarning
        Bytes of the files that are not UTF-8 were read as U+FFFD.
    """
    unknown = set(kwargs) - {"min_count", "sample", "dry_run"}
    if unknown:
        raise TypeError(f"build_vocab() got unexpected keyword arguments: {', '.join(sorted(unknown))}")
    _require_vocabulary_to_update(self, update)
    source = corpus_source_for(self.settings, corpus_iterable, corpus_file, phrases=phrases)
    if source is None:
        raise ParameterError("build_vocab needs a corpus: corpus_iterable (paths or sentences) or corpus_file")
    changes = {k: kwargs[k] for k in ("min_count", "sample") if kwargs.get(k) is not None}
    dry_run = bool(kwargs.get("dry_run"))
    read = self._reader.read_vocabulary(source, dataclasses.replace(self.settings, **changes),
                                        self.vocab if update else None, self.max_final_vocab, keep_raw_vocab,
                                        trim_rule, dry_run, quiet, progress_stream, allow_binary)
    self._take_vocabulary_pass(read, changes, dry_run)
    if not (dry_run or update) and source.iterable is None:   # tokenized here, as the settings say
        warn_of_raw_text(self.vocab.words, self.settings.tokenizer, self.settings.lowercase)
    return self


def scan_vocab(self, corpus_iterable=None, corpus_file=None, progress_per=10000, workers=None, trim_rule=None,
               quiet=True, progress_stream=None, allow_binary=False):
    """Read the corpus once and count its words (gensim's first step of ``build_vocab``).

    The counts wait in the model for :meth:`prepare_vocab` (``raw_vocab``
    shows them), with the corpus' ids.  ``progress_per``, ``workers``
    and ``trim_rule`` are accepted as gensim's: w2v counts exactly, with
    its own threads, and applies ``trim_rule`` in :meth:`prepare_vocab`.

    Returns
    -------
    (int, int)
        ``(corpus_total_words, corpus_count)``: tokens and sentences read.
    """
    source = corpus_source_for(self.settings, corpus_iterable, corpus_file)
    if source is None:
        raise ParameterError("scan_vocab needs corpus_iterable or corpus_file")
    self._count_corpus(self._reader.scan(source, self.settings, quiet, progress_stream, allow_binary, self.vocab))
    return self.corpus_total_words, self.corpus_count


def prepare_vocab(self, update=False, keep_raw_vocab=False, trim_rule=None, min_count=None, sample=None,
                  dry_run=False):
    """Pick the vocabulary from the counts of :meth:`scan_vocab` and encode the corpus (gensim's second step).

    ``min_count`` and ``sample``, when given, become the model's
    settings; ``max_final_vocab`` and ``trim_rule`` apply as in gensim;
    ``dry_run`` only reports.  With ``update`` the vocabulary grows as in
    :meth:`build_vocab`.  The weights are made here too (gensim does it in
    ``prepare_weights``, which then changes nothing).

    Returns
    -------
    dict
        gensim's report: ``drop_unique``, ``retain_total``,
        ``downsample_unique``, ``downsample_total``, ``num_retained_words``.
    """
    changes = {k: v for k, v in (("min_count", min_count), ("sample", sample)) if v is not None}
    _require_vocabulary_to_update(self, update)
    read = self._reader.prepare(dataclasses.replace(self.settings, **changes), self.vocab if update else None,
                                self.max_final_vocab, keep_raw_vocab, trim_rule, dry_run)
    self._take_vocabulary_pass(read, changes, dry_run)
    return read.report


def build_vocab_from_freq(self, word_freq, keep_raw_vocab=False, corpus_count=None, trim_rule=None,
                          update=False):
    """Build (or with ``update``, grow) the vocabulary from a dict of word counts, as gensim's.

    Words keep the dict's order among equal counts.  No corpus is read:
    give one to :meth:`train`.  ``corpus_count`` sets :attr:`corpus_count`.

    Returns
    -------
    Word2Vec
        ``self``.
    """
    _require_vocabulary_to_update(self, update)
    read = self._reader.from_counts(word_freq, self.settings, self.vocab if update else None,
                                    self.max_final_vocab, trim_rule, keep_raw_vocab, corpus_count)
    self._take_counted_vocabulary(read, update)
    return self


def read_corpus(self, corpus, quiet=True, progress_stream=None, allow_binary=False, phrases=None):
    """Read ``corpus`` and encode it with the model's vocabulary as it is, for the next :meth:`train`.

    Unknown words are dropped; the vocabulary, its counts, the tables and
    the weights do not change.  This is what ``train(corpus)`` does on a
    model that already has a vocabulary.

    Parameters
    ----------
    corpus : str, list of str, or iterable of list of str
        Paths, or sentences, as :meth:`build_vocab` takes them.
    quiet, progress_stream, allow_binary, phrases
        As :meth:`build_vocab`'s.

    Returns
    -------
    Word2Vec
        ``self``.

    Raises
    ------
    VocabularyError
        The model has no vocabulary, or no word of the corpus is in it.
    CorpusError
        As :meth:`build_vocab`.
    """
    source = corpus_source_for(self.settings, corpus, phrases=phrases)
    if source is None:
        raise ParameterError("read_corpus needs a corpus: paths or sentences")
    if self.vocab is None:
        raise VocabularyError("model has no vocabulary yet: call build_vocab(corpus)")
    self._take_corpus(self._reader.encode(source, self.settings, self.vocab, quiet, progress_stream,
                                          allow_binary))
    return self


def _raw_vocab(self):
    """The counts of the corpus scanned last, as a dict (gensim's ``raw_vocab``): kept after
    :meth:`prepare_vocab` only with ``keep_raw_vocab``, else empty."""
    return self._reader.raw_vocab


raw_vocab = property(_raw_vocab)


def _require_vocabulary_to_update(model, update):
    if update and model.vocab is None:
        raise VocabularyError("cannot update a vocabulary that does not exist: call build_vocab(corpus) first")
