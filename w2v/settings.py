"""Training settings, their defaults and their validation."""
import dataclasses
import os

from .corpus import DEFAULT_MEMORY_BUDGET, TOKENIZERS
from .errors import ParameterError


def available_cores():
    """Cores this process may run on (respects CPU affinity / cgroups where visible)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


@dataclasses.dataclass
class Settings:
    """Hyper-parameters of a training run (names follow the CLI options).

    Defaults follow gensim's ``Word2Vec`` (which follows word2vec.c except for
    the CBOW learning rate): skip-gram, dim 100, window 5, negative 5,
    sample 1e-3, min_count 5, 5 epochs, alpha 0.025 decaying linearly to 1e-4.
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
    memory_budget: int = DEFAULT_MEMORY_BUDGET
    device: str = "cpu"             # "cpu" or "cuda" (numba.cuda kernels, see w2v.cuda)

    def __post_init__(self):
        if self.threads is None:
            self.threads = available_cores()
        self.validate()

    @property
    def sg(self):
        return self.model == "sg"

    def validate(self):
        """Raise :class:`ParameterError` on any invalid value."""
        def need(cond, msg):
            if not cond:
                raise ParameterError(msg)

        need(self.model in ("sg", "cbow"), f"model must be 'sg' or 'cbow', not {self.model!r}")
        for name in ("dim", "window", "epochs", "min_count", "threads", "max_sentence_length"):
            v = getattr(self, name)
            need(isinstance(v, int) and not isinstance(v, bool) and v >= 1, f"{name} must be an integer >= 1 (got {v!r})")
        need(isinstance(self.negative, int) and self.negative >= 0, f"negative must be >= 0 (got {self.negative!r})")
        need(self.negative <= 1000, "negative must be <= 1000")
        need(self.negative > 0 or self.hs, "need negative > 0 or hs (or both): nothing to train")
        need(self.alpha > 0, f"alpha must be > 0 (got {self.alpha!r})")
        need(0 <= self.min_alpha <= self.alpha, f"min_alpha must be in [0, alpha] (got {self.min_alpha!r})")
        need(self.sample >= 0, f"sample must be >= 0 (got {self.sample!r})")
        need(self.ns_exponent >= 0, "ns_exponent must be >= 0")
        need(self.max_vocab_size is None or self.max_vocab_size >= 1, "max_vocab_size must be >= 1")
        need(self.tokenizer in TOKENIZERS, f"tokenizer must be one of {', '.join(TOKENIZERS)}")
        need(self.memory_budget >= 0, "memory_budget must be >= 0")
        need(isinstance(self.seed, int), "seed must be an integer")
        need(self.device in ("cpu", "cuda"), f"device must be 'cpu' or 'cuda', not {self.device!r}")

    def to_dict(self):
        return dataclasses.asdict(self)
