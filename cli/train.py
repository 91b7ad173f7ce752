"""``w2v train``: train vectors from text files (or the bundled demo corpus)."""
import json
import os
import sys
import time
from pathlib import Path

import click

from w2v.corpus import DEFAULT_MEMORY_BUDGET, TOKENIZERS, resolve_inputs
from w2v.errors import CorpusError, OutputError, ParameterError
from w2v.run import as_run_result
from w2v.settings import available_cores

from .common import json_safe, one_line_errors, say

BUNDLED_CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus-small.txt.xz"
DEMO_WORDS = ("man", "woman", "house", "sea", "night", "king", "love", "father")


def check_writable(path):
    """Fail before training, not after, if ``path`` cannot be written."""
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
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True,
              help="Train on the CPU or on an NVIDIA GPU (numba.cuda; install w2v[cuda]). See `w2v devices`.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Train on the Dask cluster of this scheduler (tcp://host:8786); corpus paths must "
                   "be readable by the workers. Needs w2v[dist].")
@click.option("--dask-workers", type=int, default=None, metavar="N",
              help="Train on a local Dask cluster of N worker processes (--threads each, default 1).")
@click.option("--round-words", type=int, default=None, metavar="N",
              help="With Dask: tokens each worker trains between two synchronizations [default: 1000000].")
@click.option("--report-json", type=click.Path(dir_okay=False), default=None,
              help="Write timings, throughput and losses as JSON to this file.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@one_line_errors
def train(corpus, output, model, cbow_mean, dim, window, negative, hs, sample, min_count, max_vocab,
          epochs, alpha, min_alpha, threads, seed, ns_exponent, exact, text_format, lowercase,
          tokenizer, max_sentence_length, memory_budget, resume, update_vocab, save_model, checkpoint,
          report_json, quiet, device="cpu", scheduler=None, dask_workers=None, round_words=None):
    """Train word vectors on CORPUS (files, directories, .gz/.bz2/.xz, or - for stdin).

    Without CORPUS, trains on the bundled demo corpus (20 Gutenberg novels)
    and prints the nearest neighbours of a few words.
    """
    from w2v.model import Word2Vec

    from . import resume as full
    demo = not corpus and not resume
    if demo:
        if not BUNDLED_CORPUS.exists():
            raise CorpusError(f"bundled corpus not found ({BUNDLED_CORPUS}); pass a corpus path")
        corpus = (str(BUNDLED_CORPUS),)
        if tokenizer is None:
            tokenizer = "simple"
    if memory_budget < 0:   # in MiB here; the library's message would give bytes
        raise ParameterError(f"--memory-budget must be >= 0 MiB (got {memory_budget})")
    if update_vocab and not resume:
        raise click.UsageError("--update-vocab needs --resume")
    if round_words is not None and not (scheduler or dask_workers is not None):
        raise click.UsageError("--round-words needs --scheduler or --dask-workers")
    if device == "cuda":   # one-line error before reading the corpus
        from w2v.cuda import require_cuda
        require_cuda()
    check_distinct_outputs(output=output, report_json=report_json, save_model=save_model,
                           checkpoint=checkpoint)
    check_writable(output)
    if report_json:
        check_writable(report_json)
    for option, path in (("--save-model", save_model), ("--checkpoint", checkpoint)):
        if path:
            full.check_model_dir(path, option)
    t0 = time.perf_counter()
    if resume:
        m = full.load_for_resume(resume, full.explicit_settings(click.get_current_context(), locals()))
        corpus = corpus or full.resume_corpus(m, resume)
        if not quiet:
            say(full.describe(m))
    else:
        m = Word2Vec(model=model, cbow_mean=cbow_mean, dim=dim, window=window, negative=negative, hs=hs,
                     sample=sample, min_count=min_count, max_vocab_size=max_vocab, epochs=epochs,
                     alpha=alpha, min_alpha=min_alpha, threads=threads or available_cores(), seed=seed,
                     ns_exponent=ns_exponent, exact=exact, max_sentence_length=max_sentence_length,
                     tokenizer=tokenizer or "whitespace", lowercase=lowercase,
                     memory_budget=memory_budget << 20, device=device)
    check_outputs_not_corpus(corpus, output=output, report_json=report_json, save_model=save_model,
                             checkpoint=checkpoint)
    hook = full.checkpoint_hook(m, checkpoint, quiet) if checkpoint else None
    try:
        if scheduler or dask_workers is not None:
            from .dask_train import train_on_dask
            train_on_dask(m, corpus, scheduler, dask_workers, round_words, threads, quiet, hook, update_vocab)
        elif resume and not update_vocab:
            m.train(list(corpus), quiet=quiet, on_epoch_end=hook)   # the model's vocabulary as it is
        else:
            m.build_vocab(list(corpus), quiet=quiet, update=update_vocab)
            m.train(quiet=quiet, on_epoch_end=hook)
        t_save = time.perf_counter()
        # a save of a large model takes a while (dim 300, --text: seconds): say what it writes
        from w2v.progress import Progress
        shown = Progress(1, m.settings, quiet=quiet)
        kind = "text" if text_format else "binary"
        # the full model first: if it cannot be written, -o is left as it was; if -o then
        # fails, the saved model holds the vectors (`w2v convert MODEL_DIR OUT` writes them)
        if save_model:
            shown.status(f"saving the model to {save_model} ...")
            m.save(save_model)
        shown.status(f"writing {len(m.vocab):,} x {m.settings.dim} vectors to {output} ({kind}) ...")
        m.save_word2vec(output, binary=not text_format)
        save_seconds = time.perf_counter() - t_save
    finally:
        m.close()
    total = time.perf_counter() - t0
    tr = as_run_result(m.last_train)
    words_per_sec = m.corpus_tokens * len(tr.epoch_loss) / tr.seconds if tr.seconds > 0 else float("nan")
    shown.message(f"wrote {len(m.vocab):,} x {m.settings.dim} vectors to {output} ({kind}); training "
                  f"{tr.seconds:.1f}s ({words_per_sec / 1e3:.0f}k corpus words/s), total {total:.1f}s")
    if report_json:
        report = {
            "corpus": list(corpus), "output": output, "vocab_size": len(m.vocab),
            "corpus_words": m.corpus_tokens, "trained_words": tr.words, "kept_words": tr.kept,
            "examples": tr.examples, "epoch_loss": tr.epoch_loss,
            "vocab_seconds": m.timings["vocab_seconds"], "train_seconds": tr.seconds,
            # loading the CPU kernel from Numba's cache; compiling the GPU kernel (--device cuda)
            "kernel_load_seconds": tr.kernel_load_seconds,
            "save_seconds": save_seconds, "total_seconds": total, "words_per_sec": words_per_sec,
            "settings": m.settings.to_dict(),
        }
        from w2v.atomic import atomic_write_text
        atomic_write_text(report_json, json.dumps(json_safe(report), indent=2, allow_nan=False) + "\n")
    if demo:
        wv = m.wv
        for word in DEMO_WORDS:
            if word in wv:
                near = wv.most_similar(word, topn=6)
                click.echo(f"{word:>8}: " + ", ".join(f"{w} ({s:.2f})" for w, s in near))
    sys.stdout.flush()
