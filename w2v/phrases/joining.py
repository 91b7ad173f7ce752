"""A phrase model applied to sentences of strings: ``model[sentence]``, ``model[corpus]`` (a
:class:`PhrasedCorpus`, gensim's ``TransformedCorpus``) and ``find_phrases``."""
import itertools

from ..errors import ParameterError


def is_single(obj):
    """``(True, tokens)`` for one sentence (an iterable of strings), ``(False, sentences)`` for a corpus."""
    it = iter(obj)
    peek = next(it, None)
    if peek is None:
        return True, []
    rest = itertools.chain([peek], it)
    if isinstance(peek, str):
        return True, rest
    return False, (rest if it is obj else obj)


class PhraseJoining:
    """What :class:`~w2v.phrases.model.Phrases` and :class:`~w2v.phrases.model.FrozenPhrases` share: joining
    sentences of strings with the phrases of ``self._frozen()``, a :class:`~w2v.phrases.model.FrozenPhrases`."""

    def __getitem__(self, sentence):
        """The sentence with its phrases joined into single tokens (a list); for a corpus (an iterable
        of sentences), a :class:`PhrasedCorpus` that joins them at each iteration,
        so that it can be read again when the corpus can."""
        single, tokens = is_single(sentence)
        if single:
            return self._frozen().join_sentences([list(tokens)])[0]
        return PhrasedCorpus(self, tokens)

    def iter_joined(self, sentences, mark=False, batch=1000):
        """Join the phrases of an iterable of sentences, ``batch`` sentences at a time; with ``mark``,
        each token comes as ``(token, joined)``."""
        frozen = self._frozen()
        it = iter(sentences)
        while True:
            chunk = list(itertools.islice(it, batch))
            if not chunk:
                return
            yield from frozen.join_sentences(chunk, mark)

    def find_phrases(self, sentences):
        """The phrases joined in ``sentences`` (an iterable of lists of str), with their scores.

        Returns
        -------
        dict of str to float
        """
        scores = self._frozen().phrasegrams
        found = {}
        for joined in self.iter_joined(sentences, mark=True):
            for token, is_joined in joined:
                if is_joined:
                    found[token] = scores[token]
        return found


class PhrasedCorpus:
    """The sentences of ``corpus`` with the phrases of ``model`` joined, at each iteration.

    It reads ``corpus`` again at every iteration, so it can be iterated as often
    as ``corpus`` can (a list, or a class whose ``__iter__`` starts over): gensim's
    ``Word2Vec(frozen[MyCorpus()], ...)`` reads it once per epoch.  The model is
    consulted when an iteration starts, as gensim's ``TransformedCorpus`` consults
    it for each sentence.

    Parameters
    ----------
    model : Phrases or FrozenPhrases
    corpus : iterable of list of str
    """

    def __init__(self, model, corpus):
        self._model = model
        self._corpus = corpus

    def __iter__(self):
        return self._model.iter_joined(self._corpus)

    def __len__(self):
        """The sentences of the corpus (a ``TypeError`` when it has no length, as gensim's)."""
        return len(self._corpus)

    def __getitem__(self, docno):
        """Sentence ``docno`` of the corpus, its phrases joined.

        Raises
        ------
        ParameterError
            The corpus cannot be indexed (gensim raises ``RuntimeError``).
        """
        if not hasattr(self._corpus, "__getitem__"):
            raise ParameterError(f"a corpus of type {type(self._corpus).__name__} cannot be indexed")
        return self._model[self._corpus[docno]]

    def __repr__(self):
        return f"PhrasedCorpus<{self._model} over {type(self._corpus).__name__}>"
