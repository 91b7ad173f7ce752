"""Training settings: one table whose fields carry their default, check, ``w2v train`` flag and gensim name.

Each field of :class:`Settings` is declared once, by :func:`setting`: its
default, the check of its values (a constraint of :mod:`w2v.util.checks`),
how ``w2v train`` gives it (:class:`Flag`) and its name in gensim's
``Word2Vec(...)`` (:class:`GensimName`), kept in the field's metadata and
gathered in :data:`SPECS`.  :meth:`Settings.validate` runs the fields' checks,
then the rules between fields (:func:`check_relations`); the CLI builds
``w2v train``'s options from the flags (``w2v_cli.options``), and
:mod:`w2v.model.gensim_params` gensim's parameters from the gensim names.

``Settings`` is frozen: ``dataclasses.replace(settings, epochs=3)`` makes
another one (and validates it).
"""
import dataclasses
import os
import types
from typing import Callable

from .util.checks import Boolean, Integer, NoneOr, OneOf, Real, ZeroOr, is_integer
from .text.scanning import DEFAULT_MEMORY_BUDGET, TOKENIZERS
from .errors import ParameterError


# Upper bounds of the sizes (far above any real use; each sizes a scratch buffer or a loop that must fit in memory).
MAX_DIM = 100_000
MAX_WINDOW = 10_000
MAX_THREADS = 4096
MAX_EPOCHS = 10_000
MAX_SENTENCE_LENGTH = 1_000_000
MAX_LANES = 1024             # deterministic mode keeps each lane's changes of a round until the merge (training.lanes)
MAX_ROUND_WORDS = 1 << 30
DEFAULT_ROUND_WORDS = 1024   # deterministic mode's ids per lane and round (w2v.training.lanes)
DEFAULT_LANES = 8
GENSIM_WORKERS = 3           # gensim's worker threads, in gensim mode (w2v.model.gensim_params)
MIB = 1 << 20

#: settings that fix the shape or meaning of a trained model's arrays
STRUCTURAL = ("model", "dim", "hs")
#: settings the sampling tables are built from
TABLE_SETTINGS = ("sample", "ns_exponent", "negative")


def available_cores():
    """Cores this process may run on (respects CPU affinity / cgroups where visible)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def _same(value):
    return value


_FIELDS_DEFAULT = object()   # GensimName.default: the field's default, in gensim's values the same


@dataclasses.dataclass(frozen=True)
class Flag:
    """How ``w2v train`` gives a setting.

    Attributes
    ----------
    name : str
        The option: ``"--dim"``; a boolean's ``"--hs"`` (a flag that turns
        it on) or ``"--cbow-mean/--cbow-sum"`` (on and off).
    help : str
        The option's help text.
    metavar : str, optional
        The placeholder of its value in ``--help`` (click's, from the type, by default).
    unset : bool
        The option's default is ``None``, meaning not given: the field's
        default applies, and ``help`` says which.  Otherwise the option's
        default is the field's default (through ``from_field``), shown in ``--help``.
    to_field, from_field : callable
        The option's value as the field's value, and back, where the two
        differ (``--memory-budget`` is in MiB, the field in bytes).
    check : constraint, optional
        The check of the option's values where it is not the field's check
        of ``to_field(value)``: a value the option gives a meaning of its own
        (``--threads 0``), or bounds in the option's units.
    """

    name: str
    help: str
    metavar: str = None
    unset: bool = False
    to_field: Callable = _same
    from_field: Callable = _same
    check: object = None

    @property
    def option(self):
        """The option's name in messages: ``--cbow-mean`` of ``--cbow-mean/--cbow-sum``."""
        return self.name.split("/")[0]


@dataclasses.dataclass(frozen=True)
class GensimName:
    """A setting's parameter in gensim's ``Word2Vec(...)``.

    Attributes
    ----------
    name : str
        gensim's name (``vector_size`` for ``dim``).
    to_field : callable
        gensim's value as the field's (``sg=1`` is ``model="sg"``; gensim's
        0/1 flags are bools).  Applied to ``default``, it gives gensim mode's
        default (docs/gensim.md).
    default : object
        The default of gensim's signature, in gensim's values; by default the
        field's (``None`` where the default depends on the mode: ``sg``, ``workers``).
    """

    name: str
    to_field: Callable = _same
    default: object = _FIELDS_DEFAULT


@dataclasses.dataclass(frozen=True)
class SettingSpec:
    """What the table says of one setting: its default, check, flag and gensim name (see :func:`setting`)."""

    default: object
    check: object
    flag: Flag
    gensim: GensimName = None

    @property
    def gensim_default(self):
        """The default of the setting's gensim parameter, in gensim's values."""
        g = self.gensim
        return self.default if g.default is _FIELDS_DEFAULT else g.default


def setting(default, check, flag, gensim=None):
    """A field of :class:`Settings`: its default, with its :class:`SettingSpec` in the field's metadata."""
    return dataclasses.field(default=default, metadata={"spec": SettingSpec(default, check, flag, gensim)})


def _gensim_flag(value):
    """gensim's 0/1 flags (``hs``, ``cbow_mean``) as bools (anything else is left for the check to refuse)."""
    if is_integer(value) and value in (0, 1):
        return bool(value)
    return value


def _sg_model(sg):
    return "sg" if sg else "cbow"


def _workers_threads(workers):
    return GENSIM_WORKERS if workers is None else workers


def _threads_of_flag(threads):
    return None if threads == 0 else threads     # --threads 0: the cores available, as None is


def _bytes_of_mib(mib):
    return mib * MIB


def _mib_of_bytes(size):
    return size // MIB


@dataclasses.dataclass(frozen=True)
class Settings:
    """Hyper-parameters of a training run (names follow the CLI options).

    The model defaults to skip-gram (gensim's ``Word2Vec`` and word2vec.c
    default to CBOW); the other defaults are gensim's (word2vec.c's except for
    the CBOW learning rate): dim 100, window 5, negative 5, sample 1e-3,
    min_count 5, 5 epochs, alpha 0.025 decaying linearly to 1e-4.
    ``threads=None`` (the default) means the cores available.
    """

    model: str = setting("sg", OneOf(("sg", "cbow")), Flag("--model", "Skip-gram or CBOW."),
                         GensimName("sg", _sg_model, default=None))
    cbow_mean: bool = setting(True, Boolean(),   # CBOW hidden layer: mean (True) or sum of context rows
                              Flag("--cbow-mean/--cbow-sum", "CBOW hidden layer: mean or sum of the context vectors."),
                              GensimName("cbow_mean", _gensim_flag, default=1))
    dim: int = setting(100, Integer(1, MAX_DIM), Flag("--dim", "Vector dimensionality."), GensimName("vector_size"))
    window: int = setting(5, Integer(1, MAX_WINDOW), Flag("--window", "Maximum context window (each side)."),
                          GensimName("window"))
    negative: int = setting(5, Integer(0, 1000), Flag("--negative", "Negative samples (0: off)."),
                            GensimName("negative"))
    hs: bool = setting(False, Boolean(), Flag("--hs", "Hierarchical softmax (alone with --negative 0, or with it)."),
                       GensimName("hs", _gensim_flag, default=0))
    sample: float = setting(1e-3, Real(at_least=0),
                            Flag("--sample", "Subsampling threshold for frequent words (0: off)."),
                            GensimName("sample"))
    min_count: int = setting(5, Integer(1), Flag("--min-count", "Ignore rarer words."), GensimName("min_count"))
    max_vocab_size: int = setting(None, NoneOr(Integer(1)),
                                  Flag("--max-vocab", "Keep only the N most frequent words.", unset=True),
                                  GensimName("max_vocab_size"))
    epochs: int = setting(5, Integer(1, MAX_EPOCHS), Flag("--epochs", "Passes over the corpus."), GensimName("epochs"))
    alpha: float = setting(0.025, Real(above=0), Flag("--alpha", "Initial learning rate."), GensimName("alpha"))
    min_alpha: float = setting(1e-4, Real(), Flag("--min-alpha", "Final learning rate."),   # in [0, alpha]
                               GensimName("min_alpha"))
    threads: int = setting(None, NoneOr(Integer(1, MAX_THREADS)),   # None: the cores available
                           Flag("--threads", "Worker threads; 0 means the cores available [default: cores available].",
                                unset=True, to_field=_threads_of_flag,
                                check=ZeroOr("the cores available", Integer(1, MAX_THREADS))),
                           GensimName("workers", _workers_threads, default=None))
    seed: int = setting(1, Integer(0, (1 << 64) - 1), Flag("--seed", "Random seed."), GensimName("seed"))
    ns_exponent: float = setting(0.75, Real(),
                                 Flag("--ns-exponent", "Exponent of the negative-sampling distribution (counts ** e)."),
                                 GensimName("ns_exponent"))
    exact: bool = setting(False, Boolean(),   # per-pair word2vec.c updates instead of shared negatives
                          Flag("--exact", "word2vec.c's per-pair updates (fresh negatives for every context word) "
                                          "instead of negatives shared across a window."))
    # a piece of one word has no context: nothing would ever train
    max_sentence_length: int = setting(10000, Integer(2, MAX_SENTENCE_LENGTH),
                                       Flag("--max-sentence-length", "Longer sentences are split (not truncated)."))
    tokenizer: str = setting("whitespace", OneOf(TOKENIZERS),
                             Flag("--tokenizer", "whitespace (default), simple (lowercased letters/digits), char. "
                                                 "The bundled demo corpus uses simple.", unset=True))
    lowercase: bool = setting(False, Boolean(), Flag("--lowercase", "Lowercase before tokenizing."))
    memory_budget: int = setting(DEFAULT_MEMORY_BUDGET, Integer(0),   # bytes: counting tables + ids in RAM
                                 Flag("--memory-budget", "MiB of RAM for reading the corpus: the vocabulary's "
                                                         "counting tables and the encoded corpus kept in RAM. Past "
                                                         "it the encoded corpus goes to a temporary file, then the "
                                                         "counts spill to disk and only words occurring --min-count "
                                                         "times are kept.", to_field=_bytes_of_mib,
                                      from_field=_mib_of_bytes, check=Integer(0, unit="MiB")))
    device: str = setting("cpu", OneOf(("cpu", "cuda")),   # numba.cuda kernels: see w2v.cuda
                          Flag("--device", "Train on the CPU or on an NVIDIA GPU (numba.cuda; install w2v[cuda]). "
                                           "See `w2v devices`."))
    # lanes and rounds: the same vectors at any thread count (w2v.training.lanes)
    deterministic: bool = setting(False, Boolean(), Flag(
        "--deterministic", "The same vectors for the same seed at any --threads (lanes trained on private copies, "
                           "merged in a fixed way after each round); slower than the default Hogwild training."))
    lanes: int = setting(DEFAULT_LANES, Integer(1, MAX_LANES), Flag(
        "--lanes", "With --deterministic: the lanes the corpus is split into; the same lanes and seed give "
                   f"the same file [default: {DEFAULT_LANES}].", metavar="N", unset=True))
    # deterministic mode's ids per lane and round (None: DEFAULT_ROUND_WORDS); the CLI's flag gives a Dask
    # run's round size too, which is no setting (w2v.distributed)
    round_words: int = setting(None, NoneOr(Integer(1, MAX_ROUND_WORDS)), Flag(
        "--round-words", "With Dask: tokens each worker trains between two synchronizations [default: 1000000]. "
                         f"With --deterministic: ids each lane trains per round [default: {DEFAULT_ROUND_WORDS}].",
        metavar="N", unset=True))

    def __post_init__(self):
        if self.threads is None:
            object.__setattr__(self, "threads", available_cores())
        self.validate()

    @property
    def sg(self):
        """Skip-gram (``model == "sg"``) rather than CBOW."""
        return self.model == "sg"

    def validate(self):
        """Raise :class:`ParameterError` on any invalid value (or a value of the wrong type).

        Each field's check (:data:`SPECS`), in the fields' order, then the
        rules between fields (:func:`check_relations`).
        """
        check_values(self.to_dict())

    def to_dict(self):
        """The settings as a plain dict (what a saved model records)."""
        return dataclasses.asdict(self)


#: the table: each field's :class:`SettingSpec`, by name, in the fields' order (tests/test_settings_table.py
#: checks that every field has one)
SPECS = types.MappingProxyType({f.name: f.metadata["spec"] for f in dataclasses.fields(Settings)
                                if "spec" in f.metadata})


class FieldNames:
    """How the library's messages name a setting: by its field (``min_alpha``, ``device='cuda'``)."""

    def name(self, field):
        """The setting ``field``, in a message."""
        return field

    def value(self, field, value):
        """The setting ``field`` given ``value``, in a message."""
        return f"{field}={value!r}"


FIELD_NAMES = FieldNames()


def check_values(values, names=FIELD_NAMES):
    """Check every field's value with its check in the table, then :func:`check_relations`.

    Parameters
    ----------
    values : mapping
        Every field's value, by name.
    names : FieldNames, optional
        How the messages name a setting: by its field (the library's), or
        as the CLI does, by its option (``w2v_cli.options.FLAG_NAMES``).

    Raises
    ------
    ParameterError
        The first value its check refuses, in the fields' order, or a rule
        between fields that does not hold.
    """
    for field, spec in SPECS.items():
        problem = spec.check.problem(values[field])
        if problem is not None:
            raise ParameterError(f"{names.name(field)} {problem}")
    check_relations(values, names)


def check_relations(values, names=FIELD_NAMES):
    """Check the rules between fields: ``negative > 0`` or ``hs``, ``min_alpha`` in ``[0, alpha]``, and
    deterministic mode not on ``device="cuda"``.

    Parameters
    ----------
    values : mapping
        The fields' values, by name, each accepted by its own check.
    names : FieldNames, optional
        How the messages name a setting (see :func:`check_values`).

    Raises
    ------
    ParameterError
        A rule that does not hold.
    """
    if not (values["negative"] > 0 or values["hs"]):
        raise ParameterError(f"need {names.name('negative')} > 0 or {names.name('hs')} (or both): nothing to train")
    if not 0 <= values["min_alpha"] <= values["alpha"]:
        raise ParameterError(f"{names.name('min_alpha')} must be in [0, {names.name('alpha')}] "
                             f"(got {values['min_alpha']!r})")
    if values["deterministic"] and values["device"] == "cuda":
        raise ParameterError(f"deterministic mode trains on the CPU (or Dask), not with "
                             f"{names.value('device', 'cuda')}")


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
