"""Training settings, their defaults and their validation."""
import dataclasses
import os

import numpy as np

from .util.checks import is_finite_real, is_integer, require
from .text.scanning import DEFAULT_MEMORY_BUDGET, TOKENIZERS
from .errors import ParameterError


# Upper bounds of the sizes (far above any real use; each sizes a scratch buffer).
MAX_DIM = 100_000
MAX_WINDOW = 10_000
MAX_THREADS = 4096
MAX_EPOCHS = 10_000
MAX_SENTENCE_LENGTH = 1_000_000
MAX_LANES = 1024             # deterministic mode keeps each lane's changes of a round until the merge (training.lanes)
MAX_ROUND_WORDS = 1 << 30
DEFAULT_ROUND_WORDS = 1024   # deterministic mode's ids per lane and round (w2v.training.lanes)

#: settings that fix the shape or meaning of a trained model's arrays
STRUCTURAL = ("model", "dim", "hs")
#: settings the sampling tables are built from
TABLE_SETTINGS = ("sample", "ns_exponent", "negative")
#: settings the sampling tables and the weights' shapes are built from
BUILT_FROM = ("model", "dim", "hs", "negative", "sample", "ns_exponent")


def available_cores():
    """Cores this process may run on (respects CPU affinity / cgroups where visible)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


@dataclasses.dataclass
class Settings:
    """Hyper-parameters of a training run (names follow the CLI options).

    The model defaults to skip-gram (gensim's ``Word2Vec`` and word2vec.c
    default to CBOW); the other defaults are gensim's (word2vec.c's except for
    the CBOW learning rate): dim 100, window 5, negative 5, sample 1e-3,
    min_count 5, 5 epochs, alpha 0.025 decaying linearly to 1e-4.
    """

    model: str = "sg"               # "sg" (skip-gram) or "cbow"
    cbow_mean: bool = True          # CBOW hidden layer: mean (True) or sum of context rows
    dim: int = 100
    window: int = 5
    negative: int = 5
    hs: bool = False
    sample: float = 1e-3
    min_count: int = 5
    max_vocab_size: int = None
    epochs: int = 5
    alpha: float = 0.025
    min_alpha: float = 1e-4
    threads: int = None             # default: the cores available
    seed: int = 1
    ns_exponent: float = 0.75
    exact: bool = False             # per-pair word2vec.c updates instead of shared negatives
    max_sentence_length: int = 10000
    tokenizer: str = "whitespace"
    lowercase: bool = False
    memory_budget: int = DEFAULT_MEMORY_BUDGET   # bytes of RAM for reading the corpus: counting tables + ids in RAM
    device: str = "cpu"             # "cpu" or "cuda" (numba.cuda kernels, see w2v.cuda)
    deterministic: bool = False     # lanes and rounds: the same vectors at any thread count (w2v.training.lanes)
    lanes: int = 8                  # deterministic mode: the lanes the corpus is split into (w2v.training.lanes)
    round_words: int = None         # deterministic mode: ids per lane and round (None: training.lanes' default)

    def __post_init__(self):
        if self.threads is None:
            self.threads = available_cores()
        self.validate()

    @property
    def sg(self):
        """Skip-gram (``model == "sg"``) rather than CBOW."""
        return self.model == "sg"

    def validate(self):
        """Raise :class:`ParameterError` on any invalid value (or a value of the wrong type)."""
        need = require

        def integer(name, lo, hi=None):
            v = getattr(self, name)
            need(is_integer(v) and v >= lo, f"{name} must be an integer >= {lo} (got {v!r})")
            need(hi is None or v <= hi, f"{name} must be <= {hi} (got {v!r})")

        def real(name):
            v = getattr(self, name)
            need(is_finite_real(v), f"{name} must be a finite number (got {v!r})")

        for name in ("cbow_mean", "hs", "exact", "lowercase", "deterministic"):
            # a real bool: a model file's "false" (a string) must not mean True
            need(isinstance(getattr(self, name), (bool, np.bool_)),
                 f"{name} must be True or False (got {getattr(self, name)!r})")
        need(self.model in ("sg", "cbow"), f"model must be 'sg' or 'cbow', not {self.model!r}")
        # upper bounds far above any real use: each sizes a buffer or a loop that must fit in memory
        for name, hi in (("dim", MAX_DIM), ("window", MAX_WINDOW), ("epochs", MAX_EPOCHS), ("min_count", None),
                         ("threads", MAX_THREADS)):
            integer(name, 1, hi)
        # a piece of one word has no context: nothing would ever train
        integer("max_sentence_length", 2, MAX_SENTENCE_LENGTH)
        integer("negative", 0, 1000)
        need(self.negative > 0 or self.hs, "need negative > 0 or hs (or both): nothing to train")
        for name in ("alpha", "min_alpha", "sample", "ns_exponent"):
            real(name)
        need(self.alpha > 0, f"alpha must be > 0 (got {self.alpha!r})")
        need(0 <= self.min_alpha <= self.alpha, f"min_alpha must be in [0, alpha] (got {self.min_alpha!r})")
        need(self.sample >= 0, f"sample must be >= 0 (got {self.sample!r})")
        if self.max_vocab_size is not None:
            integer("max_vocab_size", 1)
        need(self.tokenizer in TOKENIZERS, f"tokenizer must be one of {', '.join(TOKENIZERS)}")
        integer("memory_budget", 0)
        integer("seed", 0, (1 << 64) - 1)
        need(self.device in ("cpu", "cuda"), f"device must be 'cpu' or 'cuda', not {self.device!r}")
        integer("lanes", 1, MAX_LANES)
        if self.round_words is not None:
            integer("round_words", 1, MAX_ROUND_WORDS)
        need(not (self.deterministic and self.device == "cuda"),
             "deterministic mode trains on the CPU (or Dask), not with device='cuda'")

    def to_dict(self):
        """The settings as a plain dict (what a saved model records)."""
        return dataclasses.asdict(self)


def changed_settings(settings, has_weights, **changes):
    """``settings`` with ``changes``, for a model that has a vocabulary (and weights, if ``has_weights``).

    ``model``, ``dim`` and ``hs`` cannot change, nor ``negative`` from 0 to
    more on weights trained without it (there are no output vectors for it).

    Returns
    -------
    Settings
        A new object; ``settings`` is left as it is.

    Raises
    ------
    ParameterError
        An invalid value or a structural change.
    TypeError
        An unknown setting.
    """
    s = settings
    for name in STRUCTURAL:
        if name in changes and changes[name] != getattr(s, name):
            raise ParameterError(f"cannot change {name} of a trained model "
                                 f"({getattr(s, name)!r} -> {changes[name]!r})")
    if has_weights and changes.get("negative", s.negative) > 0 and s.negative == 0:
        raise ParameterError("cannot turn on negative sampling for a model trained without it (negative=0)")
    return dataclasses.replace(s, **changes)
