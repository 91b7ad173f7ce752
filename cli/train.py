"""``w2v train``: train vectors from text files (or the bundled demo corpus)."""
import dataclasses
import importlib.resources
import json
import os
import sys
import time
import unicodedata
from pathlib import Path

import click

import w2v
from w2v.util.atomic import creation_error
from w2v.model.checkpoints import parse_interval
from w2v.text.scanning import TOKENIZERS, resolve_inputs
from w2v.text.encoded import DEFAULT_MEMORY_BUDGET
from w2v.errors import CorpusError, OutputError, ParameterError
from w2v.training.progress import Progress
from w2v.settings import MAX_THREADS, available_cores

from . import resume as full
from .common import json_safe, one_line_errors, say


def bundled_corpus():
    """The demo corpus: package data of ``w2v.data`` (the folder ``data/`` of the source tree)."""
    try:
        return Path(str(importlib.resources.files("w2v.data"))) / "corpus-small.txt.xz"
    except ModuleNotFoundError:   # an editable install made before data/ was a package: the source tree's
        return Path(w2v.__file__).resolve().parent.parent / "data" / "corpus-small.txt.xz"


BUNDLED_CORPUS = bundled_corpus()
DEMO_WORDS = ("man", "woman", "house", "sea", "night", "king", "love", "father")


def check_writable(path):
    """Fail before training, not after, if ``path`` cannot be written.

    The file is written as a temporary file in its folder, renamed over it
    (:func:`w2v.util.atomic.atomic_write`), so a temporary file is created there
    and removed: the permission bits do not bind root, and ``/proc`` takes
    no new file whatever they say.  A device or a pipe is written through,
    and only its permissions are checked.
    """
    path = os.path.abspath(path)
    parent = os.path.dirname(path)
    if os.path.isdir(path):
        raise OutputError(f"output path is a directory: {path}")
    if not os.path.isdir(parent):
        raise OutputError(f"output directory does not exist: {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"output directory is not writable: {parent}")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise OutputError(f"output file is not writable: {path}")
    if os.path.exists(path) and not os.path.isfile(path):
        return
    check_can_create(parent, f"output directory is not writable: {parent}")


def check_can_create(directory, message):
    """Raise ``OutputError(message)``, with the reason, unless a file can be created in ``directory``."""
    reason = creation_error(directory)
    if reason is not None:
        raise OutputError(f"{message} (creating a file there failed: {reason})")


def check_distinct_outputs(**paths):
    """Fail before training if two outputs name the same path (one would overwrite the other).

    ``--save-model`` and ``--checkpoint`` may share a directory: both hold a
    full model, the last epoch's checkpoint being replaced by the final model.
    """
    seen = {}
    for name, path in paths.items():
        if not path:
            continue
        key = os.path.realpath(path)
        other = seen.get(key)
        if other is not None and {other, name} != {"save_model", "checkpoint"}:
            raise OutputError(f"{_flag(other)} and {_flag(name)} name the same path: {path}")
        seen.setdefault(key, name)


def _flag(name):
    return {"output": "-o/--output"}.get(name, "--" + name.replace("_", "-"))


def check_outputs_not_corpus(corpus, **paths):
    """Fail before training if an output would replace or hold part of the corpus.

    An output may not be a corpus file (also through a link), lie inside a
    corpus folder (it would replace a file there, or join the corpus of the
    next run), or be a folder that holds a corpus file (a model directory is
    replaced as a whole).
    """
    named = [p for p in corpus if p != "-"]
    files = resolve_inputs(named) if named else []
    inodes = {(st.st_dev, st.st_ino) for st in map(os.stat, files)}
    real_files = [os.path.realpath(f) for f in files]
    real_dirs = [os.path.realpath(p) for p in named if os.path.isdir(p)]
    for name, path in paths.items():
        if not path:
            continue
        real = os.path.realpath(path)
        if os.path.exists(path):
            st = os.stat(path)
            if (st.st_dev, st.st_ino) in inodes:
                raise OutputError(f"{_flag(name)} {path} is a corpus file: training would overwrite it")
        inside = next((d for d in real_dirs if real == d or real.startswith(d + os.sep)), None)
        if inside is not None:
            raise OutputError(f"{_flag(name)} {path} is inside the corpus folder {inside}")
        held = next((f for f in real_files if f.startswith(real + os.sep)), None)
        if held is not None:
            raise OutputError(f"{_flag(name)} {path} holds the corpus file {held}: saving would replace it")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("corpus", nargs=-1, type=click.Path())
@click.option("-o", "--output", default="vectors.bin", show_default=True,
              help="Output vectors (word2vec.c binary format, or text with --text).")
@click.option("--model", type=click.Choice(["sg", "cbow"]), default="sg", show_default=True,
              help="Skip-gram or CBOW.")
@click.option("--cbow-mean/--cbow-sum", default=True, show_default=True,
              help="CBOW hidden layer: mean or sum of the context vectors.")
@click.option("--dim", type=int, default=100, show_default=True, help="Vector dimensionality.")
@click.option("--window", type=int, default=5, show_default=True, help="Maximum context window (each side).")
@click.option("--negative", type=int, default=5, show_default=True, help="Negative samples (0: off).")
@click.option("--hs", is_flag=True, help="Hierarchical softmax (alone with --negative 0, or with it).")
@click.option("--sample", type=float, default=1e-3, show_default=True,
              help="Subsampling threshold for frequent words (0: off).")
@click.option("--min-count", type=int, default=5, show_default=True, help="Ignore rarer words.")
@click.option("--max-vocab", type=int, default=None, help="Keep only the N most frequent words.")
@click.option("--epochs", type=int, default=5, show_default=True, help="Passes over the corpus.")
@click.option("--alpha", type=float, default=0.025, show_default=True, help="Initial learning rate.")
@click.option("--min-alpha", type=float, default=1e-4, show_default=True, help="Final learning rate.")
@click.option("--threads", type=int, default=None,
              help="Worker threads; 0 means the cores available [default: cores available].")
@click.option("--seed", type=int, default=1, show_default=True, help="Random seed.")
@click.option("--ns-exponent", type=float, default=0.75, show_default=True,
              help="Exponent of the negative-sampling distribution (counts ** e).")
@click.option("--exact", is_flag=True,
              help="word2vec.c's per-pair updates (fresh negatives for every context word) "
                   "instead of negatives shared across a window.")
@click.option("--text", "text_format", is_flag=True, help="Write the text format instead of binary.")
@click.option("--lowercase", is_flag=True, help="Lowercase before tokenizing.")
@click.option("--tokenizer", type=click.Choice(TOKENIZERS), default=None,
              help="whitespace (default), simple (lowercased letters/digits), char. "
                   "The bundled demo corpus uses simple.")
@click.option("--max-sentence-length", type=int, default=10000, show_default=True,
              help="Longer sentences are split (not truncated).")
@click.option("--memory-budget", type=int, default=DEFAULT_MEMORY_BUDGET // (1 << 20), show_default=True,
              help="MiB of encoded corpus kept in RAM; beyond it a temporary file is used.")
@click.option("--resume", type=click.Path(file_okay=False), default=None,
              help="Continue training the full model (or checkpoint) in this directory on CORPUS "
                   "(default: the corpus it was trained on); its settings apply unless given here. "
                   "An unfinished checkpoint runs its remaining epochs.")
@click.option("--update-vocab", is_flag=True,
              help="With --resume: add the new words of CORPUS (occurring --min-count times) to the vocabulary.")
@click.option("--save-model", type=click.Path(file_okay=False), default=None,
              help="Save the full model (weights, vocabulary, settings) to this directory at the end.")
@click.option("--checkpoint", type=click.Path(file_okay=False), default=None,
              help="Save the full model to this directory after every epoch (atomically); "
                   "resume an interrupted run with --resume DIR.")
@click.option("--checkpoint-every", default=None, metavar="TIME",
              help="With --checkpoint: save within epochs too, every TIME (seconds, or 90s, 10m, 1.5h), at the "
                   "next job or round boundary.")
@click.option("--checkpoint-words", type=int, default=None, metavar="N",
              help="With --checkpoint: save within epochs too, every N corpus ids trained.")
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True,
              help="Train on the CPU or on an NVIDIA GPU (numba.cuda; install w2v[cuda]). See `w2v devices`.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Train on the Dask cluster of this scheduler (tcp://host:8786); corpus paths must "
                   "be readable by the workers. Needs w2v[dist].")
@click.option("--dask-workers", type=int, default=None, metavar="N",
              help="Train on a local Dask cluster of N worker processes (--threads each, default 1).")
@click.option("--round-words", type=int, default=None, metavar="N",
              help="With Dask: tokens each worker trains between two synchronizations [default: 1000000]. "
                   "With --deterministic: ids each lane trains per round [default: 1024].")
@click.option("--deterministic", is_flag=True,
              help="The same vectors for the same seed at any --threads (lanes trained on private copies, "
                   "merged in a fixed way after each round); slower than the default Hogwild training.")
@click.option("--lanes", type=int, default=None, metavar="N",
              help="With --deterministic: the lanes the corpus is split into; the same lanes and seed give "
                   "the same file [default: 8].")
@click.option("--report-json", type=click.Path(dir_okay=False), default=None,
              help="Write timings, throughput and losses as JSON to this file.")
@click.option("--plot-training", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Draw the running loss, words/s and learning rate into this picture (.png, .svg, .pdf); "
                   "needs w2v[plot].")
@click.option("--phrases", default=None, metavar="auto|DIR",
              help="Join phrases (new_york) into the corpus as it is encoded: auto learns them first "
                   "(word2phrase's settings, 2 passes); DIR joins the phrases w2v phrases saved there.")
@click.option("--allow-binary", is_flag=True,
              help="Read inputs that do not look like text (by default an input whose first 65,536 "
                   "characters hold a NUL byte, or more than 30% bytes that are not UTF-8 or control "
                   "characters, is refused).")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@one_line_errors
def train(corpus, **options):
    """Train word vectors on CORPUS (files, directories, .gz/.bz2/.xz, or - for stdin).

    Without CORPUS, trains on the bundled demo corpus (20 Gutenberg novels)
    and prints the nearest neighbours of a few words.
    """
    cmd = TrainCommand(corpus=tuple(corpus), **options)
    demo = cmd.demo
    cmd = cmd.with_demo_corpus() if demo else cmd
    cmd.check()
    t0 = time.perf_counter()
    m = cmd.make_model(click.get_current_context())
    corpus = cmd.corpus or full.resume_corpus(m, cmd.resume)
    check_outputs_not_corpus(corpus, **cmd.output_paths())
    try:
        cmd.run(m, corpus)
        shown = Progress(1, m.settings, quiet=cmd.quiet)
        save_seconds = cmd.save(m, shown)
    finally:
        m.close()
    total = time.perf_counter() - t0
    result = m.last_train
    words_per_sec = (m.corpus_tokens * len(result.epoch_loss) / result.seconds if result.seconds > 0
                     else float("nan"))
    shown.message(f"wrote {len(m.vocab):,} x {m.settings.dim} vectors to {cmd.output} ({cmd.format_name}); "
                  f"training {result.seconds:.1f}s ({words_per_sec / 1e3:.0f}k corpus words/s), "
                  f"total {total:.1f}s")
    report = build_report(m, corpus, cmd.output, words_per_sec, save_seconds=save_seconds, total_seconds=total)
    if cmd.report_json:
        write_report(cmd.report_json, report)
    if cmd.plot_training:
        from w2v.plot import save_figure, training
        save_figure(training(report), cmd.plot_training)
    if demo:
        print_demo_neighbours(m.wv)
    sys.stdout.flush()


@dataclasses.dataclass(frozen=True)
class TrainCommand:
    """The options of one ``w2v train`` call (the click parameters, by name)."""

    corpus: tuple
    output: str
    model: str
    cbow_mean: bool
    dim: int
    window: int
    negative: int
    hs: bool
    sample: float
    min_count: int
    max_vocab: int
    epochs: int
    alpha: float
    min_alpha: float
    threads: int
    seed: int
    ns_exponent: float
    exact: bool
    text_format: bool
    lowercase: bool
    tokenizer: str
    max_sentence_length: int
    memory_budget: int
    resume: str
    update_vocab: bool
    save_model: str
    checkpoint: str
    report_json: str
    quiet: bool
    device: str = "cpu"
    scheduler: str = None
    dask_workers: int = None
    round_words: int = None
    deterministic: bool = False
    lanes: int = None
    allow_binary: bool = False
    plot_training: str = None
    phrases: str = None
    checkpoint_every: str = None
    checkpoint_words: int = None

    @property
    def demo(self):
        """No corpus and no model to resume: the bundled demo corpus."""
        return not self.corpus and not self.resume

    @property
    def on_dask(self):
        return bool(self.scheduler) or self.dask_workers is not None

    @property
    def format_name(self):
        return "text" if self.text_format else "binary"

    def with_demo_corpus(self):
        """The command on the bundled corpus, with the simple tokenizer unless one is given."""
        if not BUNDLED_CORPUS.exists():
            raise CorpusError(f"bundled corpus not found ({BUNDLED_CORPUS}); pass a corpus path")
        return dataclasses.replace(self, corpus=(str(BUNDLED_CORPUS),), tokenizer=self.tokenizer or "simple")

    def output_paths(self):
        return {"output": self.output, "report_json": self.report_json, "save_model": self.save_model,
                "checkpoint": self.checkpoint, "plot_training": self.plot_training}

    def check(self):
        """Refuse bad combinations and unwritable outputs before the corpus is read."""
        if self.memory_budget < 0:   # in MiB here; the library's message would give bytes
            raise ParameterError(f"--memory-budget must be >= 0 MiB (got {self.memory_budget})")
        if self.threads is not None and not 0 <= self.threads <= MAX_THREADS:   # 0 is the CLI's own
            raise ParameterError(f"--threads must be 0 (the cores available) or from 1 to {MAX_THREADS} "
                                 f"(got {self.threads})")
        if self.update_vocab and not self.resume:
            raise click.UsageError("--update-vocab needs --resume")
        if self.round_words is not None and not (self.on_dask or self.deterministic):
            raise click.UsageError("--round-words needs --scheduler, --dask-workers or --deterministic")
        within = self.checkpoint_every is not None or self.checkpoint_words is not None
        if within and not self.checkpoint:
            raise click.UsageError("--checkpoint-every and --checkpoint-words need --checkpoint DIR")
        if within and self.on_dask:
            raise click.UsageError("--checkpoint-every and --checkpoint-words train on one machine, not on Dask")
        if self.checkpoint_every is not None:
            parse_interval(self.checkpoint_every)
        if self.checkpoint_words is not None and self.checkpoint_words < 1:
            raise ParameterError(f"--checkpoint-words must be >= 1 (got {self.checkpoint_words})")
        if self.lanes is not None and not self.deterministic:
            raise click.UsageError("--lanes needs --deterministic")
        if self.deterministic and self.on_dask:   # Dask keeps its own merge: see docs/reproducibility.md
            raise click.UsageError("--deterministic trains on one machine; a Dask run has its own fixed merges "
                                   "(see docs/reproducibility.md)")
        if self.phrases is not None and self.on_dask:
            raise click.UsageError("--phrases does not combine with --scheduler or --dask-workers")
        self.phrases_arg()   # a missing or corrupt phrase model fails before the corpus is read
        if self.device == "cuda":   # one-line error before reading the corpus
            from w2v.cuda import require_cuda
            require_cuda()
        check_distinct_outputs(**self.output_paths())
        check_writable(self.output)
        if self.report_json:
            check_writable(self.report_json)
        if self.plot_training:   # matplotlib and a known format, before the corpus is read
            from w2v.plot.deps import format_of, require_matplotlib
            format_of(self.plot_training)
            require_matplotlib()
            check_writable(self.plot_training)
        for option, path in (("--save-model", self.save_model), ("--checkpoint", self.checkpoint)):
            if path:
                full.check_model_dir(path, option)
                parent = os.path.dirname(os.path.abspath(path))   # the model is written next to it first
                check_can_create(parent, f"{option} {path}: directory {parent} is not writable")

    def make_model(self, ctx):
        """A new Word2Vec from the options, or the model of --resume with the options given explicitly."""
        from w2v.model.word2vec import Word2Vec

        if self.resume:
            m = full.load_for_resume(self.resume, full.explicit_settings(ctx, dataclasses.asdict(self)))
            if not self.quiet:
                say(full.describe(m))
            return m
        return Word2Vec(model=self.model, cbow_mean=self.cbow_mean, dim=self.dim, window=self.window,
                        negative=self.negative, hs=self.hs, sample=self.sample, min_count=self.min_count,
                        max_vocab_size=self.max_vocab, epochs=self.epochs, alpha=self.alpha,
                        min_alpha=self.min_alpha, threads=self.threads or available_cores(), seed=self.seed,
                        ns_exponent=self.ns_exponent, exact=self.exact,
                        max_sentence_length=self.max_sentence_length, tokenizer=self.tokenizer or "whitespace",
                        lowercase=self.lowercase, memory_budget=self.memory_budget << 20, device=self.device,
                        **self.deterministic_settings())

    def deterministic_settings(self):
        """The settings of ``--deterministic``, ``--lanes`` and ``--round-words`` (none without it)."""
        if not self.deterministic:
            return {}
        out = {"deterministic": True, "round_words": self.round_words}
        return out if self.lanes is None else dict(out, lanes=self.lanes)

    def run(self, m, corpus):
        """Train ``m`` on ``corpus``: on Dask, on the resumed model's vocabulary, or after building one."""
        hook = full.checkpoint_hook(m, self.checkpoint, self.quiet) if self.checkpoint else None
        within = {}
        if self.checkpoint_every is not None or self.checkpoint_words is not None:   # and at epoch ends
            hook, within = None, {"checkpoint": self.checkpoint, "checkpoint_every": self.checkpoint_every,
                                  "checkpoint_words": self.checkpoint_words}
        if self.on_dask:
            from .dask_train import train_on_dask
            train_on_dask(m, corpus, self.scheduler, self.dask_workers, self.round_words, self.threads,
                          self.quiet, hook, self.update_vocab, self.allow_binary)
        elif self.resume and not self.update_vocab:   # the model's vocabulary as it is
            m.train(list(corpus), quiet=self.quiet, on_epoch_end=hook, allow_binary=self.allow_binary,
                    phrases=self.phrases_arg(), **within)
        else:
            m.build_vocab(list(corpus), quiet=self.quiet, update=self.update_vocab, allow_binary=self.allow_binary,
                          phrases=self.phrases_arg())
            if not (self.quiet or self.resume or self.tokenizer):   # the default tokenizer, not chosen
                hint = tokenizer_hint(m.vocab.words)
                if hint:
                    say(hint)
            m.train(quiet=self.quiet, on_epoch_end=hook, **within)

    def phrases_arg(self):
        """What ``--phrases`` gives the model: ``"auto"``, the saved phrases of DIR, or ``None``."""
        if self.phrases is None or self.phrases == "auto":
            return self.phrases
        from w2v.phrases.model import FrozenPhrases
        return FrozenPhrases.load(self.phrases)

    def save(self, m, shown):
        """Write the full model (--save-model), then the vectors; return the seconds it took.

        The full model goes first: if it cannot be written, -o is left as it
        was; if -o then fails, the saved model holds the vectors (``w2v
        convert MODEL_DIR OUT`` writes them).  A large model takes a while
        (dim 300, --text: seconds), so each step says what it writes.
        """
        t_save = time.perf_counter()
        if self.save_model:
            shown.status(f"saving the model to {self.save_model} ...")
            m.save(self.save_model)
        shown.status(f"writing {len(m.vocab):,} x {m.settings.dim} vectors to {self.output} "
                     f"({self.format_name}) ...")
        m.save_word2vec(self.output, binary=not self.text_format)
        return time.perf_counter() - t_save


def build_report(m, corpus, output, words_per_sec, save_seconds, total_seconds):
    """The report of a run: timings, throughput, losses, settings and progress ticks."""
    result = m.last_train
    report = {
        "corpus": list(corpus), "output": output, "vocab_size": len(m.vocab),
        "corpus_words": m.corpus_tokens, "trained_words": result.words, "kept_words": result.kept,
        "examples": result.examples, "epoch_loss": result.epoch_loss,
        "vocab_seconds": m.timings["vocab_seconds"], "train_seconds": result.seconds,
        # loading the CPU kernels from Numba's cache, or compiling them on a first run (while the corpus
        # is read, and left out of vocab_seconds); compiling the GPU kernel (--device cuda)
        "kernel_load_seconds": kernel_seconds(m),
        "save_seconds": save_seconds, "total_seconds": total_seconds, "words_per_sec": words_per_sec,
        "settings": m.settings.to_dict(),
        "reproducibility": reproducibility(m),
    }
    report.update(result.progress_report())   # progress ticks; a Dask run's rounds
    dask_run = (result.details or {}).get("distributed")
    if dask_run:   # the rounds' size (chosen or given) and merge rule, beside the rounds
        report.update(round_words=dask_run["round_words"], merge=dask_run["merge"])
    return report


def reproducibility(m):
    """``--report-json``'s ``reproducibility``: the mode, lanes, seed, corpus fingerprint, w2v version and
    the last checkpoint written (``None`` without ``--checkpoint-every``/``--checkpoint-words``)."""
    s, details = m.settings, m.last_train.details or {}
    return {"deterministic": bool(s.deterministic), "lanes": details.get("lanes"),
            "round_words": details.get("round_words"), "seed": s.seed, "threads": s.threads,
            "corpus_fingerprint": (m.run_state or {}).get("corpus_fingerprint"), "w2v_version": w2v.__version__,
            "last_checkpoint": details.get("checkpoint")}


def write_report(path, report):
    """Write ``--report-json`` (atomically)."""
    from w2v.util.atomic import atomic_write_text

    atomic_write_text(path, json.dumps(json_safe(report), indent=2, allow_nan=False) + "\n")


def kernel_seconds(m):
    """Seconds the run waited for its kernels: beside the corpus read, then before training (None on Dask)."""
    before = m.last_train.kernel_load_seconds
    return None if before is None else m.timings.get("kernel_load_seconds", 0.0) + before


HINT_TOP_WORDS = 1000   # the most frequent words the hint looks at
# raw text split at whitespace: on the bundled corpus 171 of the top 1,000 words carry punctuation, 80 are case twins
HINT_SHARE = 0.02


def tokenizer_hint(words, top=HINT_TOP_WORDS):
    """A one-line hint when a vocabulary split at whitespace looks like raw text, else ``None``.

    Raw text split at whitespace gives ``king``, ``king,`` and ``King`` as three
    words.  The default tokenizer stays (pre-tokenized corpora and word2vec.c
    expect it); the hint suggests ``--tokenizer simple --lowercase`` when at
    least :data:`HINT_SHARE` of the ``top`` most frequent ``words`` (a
    vocabulary of 100 words at least) are another word of the vocabulary with
    punctuation around it, or with capitals.
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
    return (f"hint: among the {len(head):,} most frequent words, {' and '.join(seen)}; "
            f"for raw text, try --tokenizer simple --lowercase")


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


def print_demo_neighbours(wv):
    """The demo run's output: the nearest neighbours of a few words of the bundled corpus."""
    for word in DEMO_WORDS:
        if word in wv:
            near = wv.most_similar(word, topn=6)
            click.echo(f"{word:>8}: " + ", ".join(f"{w} ({s:.2f})" for w, s in near))
