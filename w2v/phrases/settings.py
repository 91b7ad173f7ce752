"""The settings of phrase detection, their validation, and gensim's connector words."""
import dataclasses

from ..util.checks import is_finite_real, is_integer, require
from ..errors import ParameterError
from .scoring import NAMED_SCORERS, scorer_reference, scoring_name

MAX_SENTENCE_LENGTH = 1_000_000
MAX_PASSES = 10

#: gensim 4's connector words for English: articles, some prepositions and conjunctions
ENGLISH_CONNECTOR_WORDS = frozenset(
    "a an the for of with without at from to in on by and or".split())


@dataclasses.dataclass(frozen=True)
class PhraseSettings:
    """How phrases are scored and joined (names follow ``w2v phrases``'s options).

    Attributes
    ----------
    min_count : int
        At least 1.
    threshold : float
        ``word2vec``: >= 0 (word2phrase scores 0 what cannot join, so a
        negative threshold would join every pair); ``gensim``: > 0, as gensim
        requires; ``npmi``: in [-1, 1].
    scoring : {"word2vec", "gensim", "npmi"} or callable
        ``"default"`` (gensim's name) is read as ``"gensim"``; a function of gensim's
        signature is called for each pair (:mod:`w2v.phrases.scoring`), with any finite
        threshold, as gensim checks none for it.
    delimiter : str
        Any string, as in gensim.  Where a phrase cannot be written whole, the writer refuses
        it: whitespace in a word2vec vectors file or in phrased text, a newline in a model's
        ``tokens.txt``.
    connector_words : frozenset of str
    max_table_size : int
        Pairs held at most before pruning (at least 1).
    max_sentence_length : int
        For the gensim scorings, files' lines are cut every so many tokens;
        a longer run of connector words ends a candidate.
    """

    min_count: int = 5
    threshold: float = 10.0
    scoring: str = "gensim"
    delimiter: str = "_"
    connector_words: frozenset = frozenset()
    max_table_size: int = 40_000_000
    max_sentence_length: int = 10000

    def __post_init__(self):
        object.__setattr__(self, "scoring", scoring_name(self.scoring))
        words = self.connector_words
        if isinstance(words, str) or not hasattr(words, "__iter__"):
            raise ParameterError(f"connector_words must be a set of words, not {words!r}")
        object.__setattr__(self, "connector_words", frozenset(words))
        self.validate()

    def validate(self):
        """Raise :class:`ParameterError` on any invalid value."""
        need = require

        def integer(name, lo, hi=None):
            v = getattr(self, name)
            ok = is_integer(v) and v >= lo and (hi is None or v <= hi)
            need(ok, f"{name} must be an integer from {lo}{f' to {hi:,}' if hi else ' up'} (got {v!r})")

        integer("min_count", 1)
        integer("max_table_size", 1)
        integer("max_sentence_length", 2, MAX_SENTENCE_LENGTH)
        t = self.threshold
        need(is_finite_real(t), f"threshold must be a finite number (got {t!r})")
        if self.scoring == "npmi":
            need(-1 <= t <= 1, f"threshold must be in [-1, 1] for npmi scoring (got {t!r})")
        elif self.scoring == "gensim":
            need(t > 0, f"threshold must be > 0 for gensim scoring (got {t!r})")
        elif self.scoring == "word2vec":
            need(t >= 0, f"threshold must be >= 0 for word2vec scoring (got {t!r})")
        need(isinstance(self.delimiter, str), f"delimiter must be a string (got {self.delimiter!r})")
        for w in self.connector_words:
            need(isinstance(w, str) and w != "" and not any(c.isspace() for c in w),
                 f"connector words must be non-empty strings without whitespace (got {w!r})")

    @property
    def cross_lines(self):
        """Whether pairs are counted across line ends: word2phrase's way, without connector words."""
        return self.scoring == "word2vec" and not self.connector_words

    def chunk(self, from_files):
        """Tokens after which a line of a file starts a new sentence: ``max_sentence_length`` for the
        gensim scorings (gensim's ``LineSentence``), never for ``word2vec`` or Python sentences."""
        return self.max_sentence_length if from_files and self.scoring != "word2vec" else 0

    def to_dict(self):
        """The settings as JSON-ready values (connector words sorted; a scoring function by its name).

        Raises
        ------
        ParameterError
            The scoring is a function other than gensim's own scorers: a model file holds no code.
        """
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["connector_words"] = sorted(self.connector_words)
        if callable(self.scoring):
            d["scoring"] = scorer_reference(self.scoring)
            if d["scoring"] is None:
                name = getattr(self.scoring, "__qualname__", repr(self.scoring))
                raise ParameterError(f"cannot save phrases scored by the function {name}: phrase model files hold "
                                     f"no code (no pickle); only gensim's scorers {' and '.join(NAMED_SCORERS)} "
                                     "are saved, by name")
        return d

    @classmethod
    def from_dict(cls, d):
        """Settings from :meth:`to_dict`'s values.

        Raises
        ------
        ParameterError
            A missing, unknown or invalid value.
        """
        if not isinstance(d, dict):
            raise ParameterError(f"settings must be an object, not {type(d).__name__}")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise ParameterError(f"unknown settings: {', '.join(map(str, unknown))}")
        missing = sorted(names - set(d))
        if missing:
            raise ParameterError(f"missing settings: {', '.join(missing)}")
        words = d["connector_words"]
        if not isinstance(words, list):
            raise ParameterError("connector_words must be a list of words")
        scoring = NAMED_SCORERS.get(d["scoring"], d["scoring"]) if isinstance(d["scoring"], str) else d["scoring"]
        return cls(**{**d, "connector_words": frozenset(words), "scoring": scoring})


def check_passes(passes):
    """``passes`` as an int from 1 to :data:`MAX_PASSES`, or a :class:`ParameterError`."""
    require(is_integer(passes) and 1 <= passes <= MAX_PASSES,
            f"passes must be an integer from 1 to {MAX_PASSES} (got {passes!r})")
    return int(passes)
