"""``w2v phrases``: join frequent collocations of a corpus into single tokens (word2phrase, gensim's Phrases)."""
import time

import click

from w2v.text.scanning import TOKENIZERS, scan_corpus
from w2v.text.encoded import DEFAULT_MEMORY_BUDGET
from w2v.errors import ParameterError
from w2v.settings import MAX_THREADS, available_cores

from .common import one_line_errors, say
from .train import check_distinct_outputs, check_outputs_not_corpus, check_writable


def connector_words(value):
    """``--connector-words``: ``english`` (gensim's ENGLISH_CONNECTOR_WORDS), ``none``, or words
    separated by commas."""
    from w2v.phrases.model import ENGLISH_CONNECTOR_WORDS   # start-up: loads Numba (+0.5 s)
    if value is None or value.strip().lower() == "none":
        return frozenset()
    if value.strip().lower() == "english":
        return ENGLISH_CONNECTOR_WORDS
    words = [w.strip() for w in value.split(",")]
    if not all(words):
        raise ParameterError(f"--connector-words: an empty word in {value!r} (words are separated by commas)")
    return frozenset(words)


@click.command("phrases", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("corpus", nargs=-1, required=True, type=click.Path())
@click.option("-o", "--output", default=None,
              help="Write the corpus with its phrases joined here (- for stdout; .gz/.bz2/.xz compress).")
@click.option("--min-count", type=int, default=5, show_default=True,
              help="Words and pairs seen fewer times never join.")
@click.option("--threshold", type=float, default=100.0, show_default=True,
              help="A pair joins when its score is above this (npmi: in [-1, 1]).")
@click.option("--scoring", type=click.Choice(["word2vec", "gensim", "npmi"]), default="word2vec",
              show_default=True, help="word2phrase's score, gensim's default score, or gensim's normalized PMI.")
@click.option("--passes", type=int, default=1, show_default=True,
              help="Passes of detection; each joins the tokens of the one before (2: three-word phrases).")
@click.option("--connector-words", default=None, metavar="english|none|W1,W2,...",
              help="Words that may stand inside a phrase (bank_of_america); english: gensim's set.")
@click.option("--delimiter", default="_", show_default=True, help="Joins the words of a phrase.")
@click.option("--max-table-size", type=int, default=40_000_000, show_default=True,
              help="Pairs held at most; beyond, the rarest are pruned (word2vec.c's ReduceVocab); gensim "
                   "scorings: words and pairs, pruned after each sentence as gensim's max_vocab_size.")
@click.option("--save-model", type=click.Path(file_okay=False), default=None,
              help="Save the phrases to this folder (w2v train --phrases DIR, w2v phrases --apply DIR).")
@click.option("--apply", "apply_model", type=click.Path(file_okay=False), default=None,
              help="Join the phrases of this saved model instead of learning new ones.")
@click.option("--threads", type=int, default=None, help="Counting threads [default: cores available].")
@click.option("--tokenizer", type=click.Choice(TOKENIZERS), default="whitespace", show_default=True,
              help="As w2v train's.")
@click.option("--lowercase", is_flag=True, help="Lowercase before tokenizing.")
@click.option("--max-sentence-length", type=int, default=10000, show_default=True,
              help="gensim scorings: lines are cut every N tokens, as gensim reads files.")
@click.option("--memory-budget", type=int, default=DEFAULT_MEMORY_BUDGET // (1 << 20), show_default=True,
              help="MiB of encoded corpus kept in RAM; beyond it a temporary file is used.")
@click.option("--allow-binary", is_flag=True, help="Read inputs that do not look like text.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@one_line_errors
def phrases(corpus, output, save_model, apply_model, threads, quiet, **options):
    """Detect phrases in CORPUS (files, folders, .gz/.bz2/.xz, - for stdin) and join them.

    Writes the corpus with each phrase joined into one token (new york ->
    new_york), as word2vec.c's word2phrase does, and/or saves the phrases.
    """
    t0 = time.perf_counter()
    if not output and not save_model:
        raise click.UsageError("give -o/--output, --save-model, or both")
    threads = _check_threads(threads)
    settings, passes, frozen = _model_options(apply_model, options)
    if output:
        _check_text_delimiter(settings if frozen is None else frozen.settings)
    check_distinct_outputs(output=output if output != "-" else None, save_model=save_model)
    if output and output != "-":
        check_writable(output)
    check_outputs_not_corpus(list(corpus), output=output if output != "-" else None, save_model=save_model)
    report = (lambda text: None) if quiet else say
    from w2v.phrases.corpus import join_frozen, learn_passes, write_phrased   # start-up: loads Numba (+0.5 s)

    scanned = scan_corpus(list(corpus), tokenizer=options["tokenizer"], lowercase=options["lowercase"],
                          memory_budget=options["memory_budget"] << 20, threads=threads,
                          allow_binary=options["allow_binary"])
    try:
        report(f"read {scanned.n_tokens:,} tokens, {len(scanned.words):,} distinct ({time.perf_counter() - t0:.1f}s)")
        join_last = not output   # the last pass is joined as the text is written
        if frozen is None:
            frozen, words, _, last = learn_passes(scanned.stream, scanned.words, settings, passes, threads, report,
                                                  join_last)
        else:
            words, _, last = join_frozen(scanned.stream, scanned.words, frozen, report, join_last)
        if output:
            t1 = time.perf_counter()
            size = write_phrased(output, scanned.stream, words, last)
            report(f"wrote {output} ({size / 1e6:,.1f} MB, {time.perf_counter() - t1:.1f}s)")
    finally:
        scanned.stream.close()
    if save_model:
        frozen.save(save_model)
        report(f"saved {len(frozen):,} phrases to {save_model}")
    if frozen.pruned:
        report("warning: the pair table was pruned (--max-table-size): the rarest pairs were dropped")
    report(f"done in {time.perf_counter() - t0:.1f}s")


def _check_threads(threads):
    if threads is None or threads == 0:
        return min(available_cores(), 256)
    if not 1 <= threads <= min(MAX_THREADS, 256):
        raise ParameterError(f"--threads must be 0 (the cores available) or from 1 to 256 (got {threads})")
    return threads


def _check_text_delimiter(settings):
    """Refuse a delimiter holding whitespace for -o: the text's tokens are separated by spaces, so
    its phrases would be split again when it is read."""
    if any(c.isspace() for c in settings.delimiter):
        raise ParameterError(f"--delimiter {settings.delimiter!r} holds whitespace: the text -o writes would split "
                             "its phrases again (save them with --save-model only, or use another delimiter)")


def _model_options(apply_model, options):
    """``(settings, passes, frozen)``: what to learn, or the saved phrases to join (checked before the
    corpus is read)."""
    from w2v.phrases.model import FrozenPhrases   # start-up: loads Numba (+0.5 s)
    from w2v.phrases.settings import PhraseSettings, check_passes   # start-up: loads Numba (+0.5 s)

    if options["memory_budget"] < 0:
        raise ParameterError(f"--memory-budget must be >= 0 MiB (got {options['memory_budget']})")
    if apply_model:
        return None, None, FrozenPhrases.load(apply_model)
    settings = PhraseSettings(min_count=options["min_count"], threshold=options["threshold"],
                              scoring=options["scoring"], delimiter=options["delimiter"],
                              connector_words=connector_words(options["connector_words"]),
                              max_table_size=options["max_table_size"],
                              max_sentence_length=options["max_sentence_length"])
    return settings, check_passes(options["passes"]), None
