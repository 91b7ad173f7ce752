"""``w2v train``: train vectors from text files (or the bundled demo corpus)."""
import dataclasses
import importlib.resources
import json
import os
import sys
import time
import warnings
from pathlib import Path

import click

import w2v
import w2v.cuda
from w2v.util.atomic import atomic_write_text
from w2v.model.checkpoints import parse_interval
from w2v.text.raw_text import HINT_TOP_WORDS, raw_text_finding
from w2v.text.scanning import resolve_inputs
from w2v.errors import CorpusError, OutputError, ParameterError, RawTextWarning
from w2v.training.progress import Progress
from w2v.settings import available_cores

from . import resume as full
from .common import json_safe, load_phrase_kernels, one_line_errors, say
from .dask_train import train_on_dask
from .options import SettingFlags, setting_options
from .output import VectorsOutput, check_can_create, check_writable, to_option


def bundled_corpus():
    """The demo corpus: package data of ``w2v.data`` (the folder ``data/`` of the source tree)."""
    try:
        return Path(str(importlib.resources.files("w2v.data"))) / "corpus-small.txt.xz"
    except ModuleNotFoundError:   # an editable install made before data/ was a package: the source tree's
        return Path(w2v.__file__).resolve().parent.parent / "data" / "corpus-small.txt.xz"


BUNDLED_CORPUS = bundled_corpus()
DEFAULT_OUTPUT = "vectors.bin"
DEMO_WORDS = ("man", "woman", "house", "sea", "night", "king", "love", "father")


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
@click.option("-o", "--output", default=None, show_default=DEFAULT_OUTPUT, metavar="PATH",
              help="Output vectors, in the format the name says: .bin (or another compressed name, or a "
                   "device) word2vec.c binary, .txt or .vec word2vec text, any other name a native folder. "
                   "With --resume: where the resumed run wrote.")
@setting_options("model", "cbow_mean", "dim", "window", "negative", "hs", "sample", "min_count", "max_vocab_size",
                 "epochs", "alpha", "min_alpha", "threads", "seed", "ns_exponent", "exact")
@click.option("--text", "text_format", is_flag=True, help="Write word2vec text, whatever -o's name (--to text).")
@to_option("Write this format, whatever -o's name [default: from -o's name].")
@setting_options("lowercase", "tokenizer", "max_sentence_length", "memory_budget")
@click.option("--resume", type=click.Path(), default=None,
              help="Continue training the full model (or checkpoint) in this directory or file on CORPUS "
                   "(default: the corpus it was trained on); its settings apply unless given here, and the "
                   "vectors go where its run wrote them unless -o is given. An unfinished checkpoint runs "
                   "its remaining epochs.")
@click.option("--update-vocab", is_flag=True,
              help="With --resume: add the new words of CORPUS (occurring --min-count times) to the vocabulary.")
@click.option("--save-model", type=click.Path(), default=None,
              help="Save the full model (weights, vocabulary, settings) to this directory at the end "
                   "(one file for a path ending in .w2v or an existing file).")
@click.option("--checkpoint", type=click.Path(), default=None,
              help="Save the full model to this directory (or file, as --save-model) after every epoch (atomically); "
                   "resume an interrupted run with --resume DIR.")
@click.option("--checkpoint-every", default=None, metavar="TIME",
              help="With --checkpoint: save within epochs too, every TIME (seconds, or 90s, 10m, 1.5h), at the "
                   "next job or round boundary.")
@click.option("--checkpoint-words", type=int, default=None, metavar="N",
              help="With --checkpoint: save within epochs too, every N corpus ids trained.")
@setting_options("device")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Train on the Dask cluster of this scheduler (tcp://host:8786); corpus paths must "
                   "be readable by the workers. Needs w2v[dist].")
@click.option("--dask-workers", type=int, default=None, metavar="N",
              help="Train on a local Dask cluster of N worker processes (--threads each, default 1).")
@setting_options("round_words", "deterministic", "lanes")
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
    ctx = click.get_current_context()
    if options["output"] is None and not options["resume"]:   # a resumed run's is the one it recorded
        options["output"] = DEFAULT_OUTPUT
    cmd = TrainCommand(corpus=tuple(corpus), flags=SettingFlags.take(options, ctx), **options)
    demo = cmd.demo
    cmd = cmd.with_demo_corpus() if demo else cmd
    cmd.check()
    t0 = time.perf_counter()
    m = cmd.make_model()
    if cmd.resume:
        cmd = cmd.resumed(m)
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
    shown.message(f"wrote {len(m.vocab):,} x {m.settings.dim} vectors to {cmd.output} "
                  f"({cmd.vectors.format_name}); "
                  f"training {result.seconds:.1f}s ({words_per_sec / 1e3:.0f}k corpus words/s), "
                  f"total {total:.1f}s")
    report = build_report(m, corpus, cmd.output, words_per_sec, save_seconds=save_seconds, total_seconds=total)
    if cmd.report_json:
        write_report(cmd.report_json, report)
    if cmd.plot_training:
        from w2v.plot import save_figure, training   # start-up: loads scipy.linalg (+0.3 s)
        save_figure(training(report), cmd.plot_training)
    if demo:
        print_demo_neighbours(m.wv)
    sys.stdout.flush()


@dataclasses.dataclass(frozen=True)
class TrainCommand:
    """The options of one ``w2v train`` call: the settings' (``flags``) and the others, by name."""

    corpus: tuple
    flags: SettingFlags
    output: str          # None with --resume until the model says where its run wrote (resumed)
    text_format: bool
    resume: str
    update_vocab: bool
    save_model: str
    checkpoint: str
    report_json: str
    quiet: bool
    scheduler: str = None
    dask_workers: int = None
    allow_binary: bool = False
    plot_training: str = None
    phrases: str = None
    checkpoint_every: str = None
    checkpoint_words: int = None
    to: str = None

    @property
    def demo(self):
        """No corpus and no model to resume: the bundled demo corpus."""
        return not self.corpus and not self.resume

    @property
    def on_dask(self):
        return bool(self.scheduler) or self.dask_workers is not None

    @property
    def vectors(self):
        """The vectors output: ``-o``'s path, in the format ``--to``, ``--text`` or its name says."""
        return VectorsOutput.named(self.output, self.to, self.text_format)

    def resumed(self, model):
        """The command resuming ``model``: its vectors go to ``-o``, else where the run recorded them.

        The outputs are checked as :meth:`check` does; unless quiet, a first
        line says where the vectors go, the next the state of the model.
        """
        output, to, why = self.output, self.to, "as -o says"
        if output is None:
            recorded = full.recorded_output(model, self.resume)
            output, why = recorded["path"], "where the resumed run wrote them (-o writes elsewhere)"
            to = to or (None if self.text_format else recorded["format"])
        cmd = dataclasses.replace(self, output=output, to=to)
        cmd.check_outputs()
        if not self.quiet:
            vectors = cmd.vectors
            say(f"writing the vectors to {vectors.path} ({vectors.format_name}) at the end, {why}")
            say(full.describe(model))
        return cmd

    def with_demo_corpus(self):
        """The command on the bundled corpus, with the simple tokenizer unless one is given."""
        if not BUNDLED_CORPUS.exists():
            raise CorpusError(f"bundled corpus not found ({BUNDLED_CORPUS}); pass a corpus path")
        return dataclasses.replace(self, corpus=(str(BUNDLED_CORPUS),),
                                   flags=self.flags.with_default("tokenizer", "simple"))

    def output_paths(self):
        return {"output": self.output, "report_json": self.report_json, "save_model": self.save_model,
                "checkpoint": self.checkpoint, "plot_training": self.plot_training}

    def check(self):
        """Refuse bad combinations and unwritable outputs before the corpus is read."""
        flags = self.flags
        flags.check()
        if not self.resume:   # a resumed model's settings are checked with the options given (load_for_resume)
            flags.check_new_settings()
        if self.update_vocab and not self.resume:
            raise click.UsageError("--update-vocab needs --resume")
        if self.update_vocab and not self.corpus:   # a model's recorded corpus only continues its run
            raise click.UsageError("--update-vocab adds the words of CORPUS: pass CORPUS")
        if flags["round_words"] is not None and not (self.on_dask or flags["deterministic"]):
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
        if flags["lanes"] is not None and not flags["deterministic"]:
            raise click.UsageError("--lanes needs --deterministic")
        if flags["deterministic"] and self.on_dask:   # Dask keeps its own merge: see docs/reproducibility.md
            raise click.UsageError("--deterministic trains on one machine; a Dask run has its own fixed merges "
                                   "(see docs/reproducibility.md)")
        if self.phrases is not None and self.on_dask:
            raise click.UsageError("--phrases does not combine with --scheduler or --dask-workers")
        if self.text_format and self.to not in (None, "text"):
            raise click.UsageError(f"--text and --to {self.to} ask for two formats; give one")
        if flags["device"] == "cuda":   # one-line error before reading the corpus
            w2v.cuda.require_cuda()
        if not self.resume or self.output is not None:   # else once the model says where (resumed)
            self.check_outputs()
        if self.phrases is not None:
            load_phrase_kernels(self.quiet)   # said apart when they compile, not within the corpus read
        self.phrases_arg()   # a missing or corrupt phrase model fails before the corpus is read
        self.warn_of_slow_settings()

    def check_outputs(self):
        """Refuse outputs that name one path twice or cannot be written, before the corpus is read."""
        check_distinct_outputs(**self.output_paths())
        self.vectors.check()
        if self.report_json:
            check_writable(self.report_json)
        if self.plot_training:   # matplotlib and a known format, before the corpus is read
            from w2v.plot.deps import format_of, require_matplotlib   # start-up: loads scipy.linalg (+0.3 s)
            format_of(self.plot_training)
            require_matplotlib()
            check_writable(self.plot_training)
        for option, path in (("--save-model", self.save_model), ("--checkpoint", self.checkpoint)):
            if path:
                full.check_model_dir(path, option)
                parent = os.path.dirname(os.path.abspath(path))   # the model is written next to it first
                check_can_create(parent, f"{option} {path}: directory {parent} is not writable")

    def warn_of_slow_settings(self):
        """One ``warning:`` line for each value that is allowed but slows training: more ``--threads`` than
        the cores available here (a ``--scheduler``'s workers run elsewhere), and ``--memory-budget 0``."""
        threads, cores = self.flags["threads"], available_cores()
        if threads and threads > cores and not self.scheduler:
            say(f"warning: --threads {threads} is more than the {cores} core{'s' if cores > 1 else ''} available: "
                f"more threads than cores slow training down")
        if self.flags["memory_budget"] == 0:
            say("warning: --memory-budget 0 keeps none of the encoded corpus in RAM: all of it goes to a "
                "temporary file")

    def make_model(self):
        """A new Word2Vec from the options, or the model of --resume with the options given explicitly."""
        from w2v.model.word2vec import Word2Vec   # start-up: loads Numba (+0.5 s)

        if self.resume:
            return full.load_for_resume(self.resume, self.flags.explicit_settings())
        return Word2Vec(**self.flags.new_settings())

    def run(self, m, corpus):
        """Train ``m`` on ``corpus``: on Dask, on the resumed model's vocabulary, or after building one."""
        m.record_output(self.output, self.vectors.format)   # where a --resume of it writes (resumed)
        hook = full.checkpoint_hook(m, self.checkpoint, self.quiet) if self.checkpoint else None
        within = {}
        if self.checkpoint_every is not None or self.checkpoint_words is not None:   # and at epoch ends
            hook, within = None, {"checkpoint": self.checkpoint, "checkpoint_every": self.checkpoint_every,
                                  "checkpoint_words": self.checkpoint_words}
        if self.on_dask:
            train_on_dask(m, corpus, self.scheduler, self.dask_workers, self.flags["round_words"],
                          self.flags["threads"], self.quiet, hook, self.update_vocab, self.allow_binary)
        elif self.resume and not self.update_vocab:   # the model's vocabulary as it is
            with full.only_the_recorded_run(not self.corpus, self.resume):
                m.train(list(corpus), quiet=self.quiet, on_epoch_end=hook, allow_binary=self.allow_binary,
                        phrases=self.phrases_arg(), **within)
        else:
            with warnings.catch_warnings():   # said below as a hint, in the words of the options
                warnings.simplefilter("ignore", RawTextWarning)
                m.build_vocab(list(corpus), quiet=self.quiet, update=self.update_vocab,
                              allow_binary=self.allow_binary, phrases=self.phrases_arg())
            if not (self.quiet or self.resume or self.flags["tokenizer"]):   # the default tokenizer, not chosen
                hint = tokenizer_hint(m.vocab.words)
                if hint:
                    say(hint)
            m.train(quiet=self.quiet, on_epoch_end=hook, **within)

    def phrases_arg(self):
        """What ``--phrases`` gives the model: ``"auto"``, the saved phrases of DIR, or ``None``."""
        if self.phrases is None or self.phrases == "auto":
            return self.phrases
        from w2v.phrases.model import FrozenPhrases   # start-up: loads Numba (+0.5 s)
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
        vectors = self.vectors
        shown.status(f"writing {len(m.vocab):,} x {m.settings.dim} vectors to {vectors.path} "
                     f"({vectors.format_name}) ...")
        vectors.write(m.wv)
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
    atomic_write_text(path, json.dumps(json_safe(report), indent=2, allow_nan=False) + "\n")


def kernel_seconds(m):
    """Seconds the run waited for its kernels: beside the corpus read, then before training (None on Dask)."""
    before = m.last_train.kernel_load_seconds
    return None if before is None else m.timings.get("kernel_load_seconds", 0.0) + before


def tokenizer_hint(words, top=HINT_TOP_WORDS):
    """A one-line hint when a vocabulary split at whitespace looks like raw text, else ``None``.

    The finding of :func:`w2v.text.raw_text.raw_text_finding`, with the
    options that would help (``--tokenizer simple --lowercase``).
    """
    finding = raw_text_finding(words, top)
    return None if finding is None else f"hint: {finding}; for raw text, try --tokenizer simple --lowercase"


def print_demo_neighbours(wv):
    """The demo run's output: the nearest neighbours of a few words of the bundled corpus."""
    for word in DEMO_WORDS:
        if word in wv:
            near = wv.most_similar(word, topn=6)
            click.echo(f"{word:>8}: " + ", ".join(f"{w} ({s:.2f})" for w, s in near))
