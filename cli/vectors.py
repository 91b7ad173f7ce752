"""Commands that use trained vectors: ``similar``, ``analogy``, ``eval``, ``convert``, ``info``.

MODEL is a word2vec binary or text file (optionally ``.gz``/``.bz2``/``.xz``),
a fastText ``.vec`` file or a native model directory; the format is detected.
"""
import json
import os

import click

from w2v.errors import OutputError
from w2v.settings import DEFAULT_ROUND_WORDS

from .common import json_safe, one_line_errors, say

_CTX = {"help_option_names": ["-h", "--help"]}


def model_path(path, option="", full_model=False):
    """``path``, or the newest complete copy of it an interrupted save left, said in one warning line.

    See :func:`w2v.formats.locate_model`.

    Parameters
    ----------
    path : str
    option : str, optional
        The option that names it (``"--resume "``), for the messages.
    full_model : bool, optional
        Consider only copies of a full model.

    Returns
    -------
    str

    Raises
    ------
    click.ClickException
        Neither ``path`` nor a complete copy of it exists.
    """
    from w2v.formats import locate_model   # start-up: loads scipy.linalg (+0.3 s)

    try:
        return locate_model(path, full_model=full_model, warn=lambda line: say(f"warning: {option}{line}"))
    except FileNotFoundError:
        raise click.ClickException(f"{option}{path}: no such file or directory") from None


def _load(path, limit=None, unicode_errors="strict"):
    found = model_path(path)
    from w2v.vectors.keyed import load   # start-up: loads scipy.linalg (+0.3 s)

    return load(found, limit=limit, unicode_errors=unicode_errors)


#: ``--unicode-errors``: how the words of a word2vec file that are not UTF-8 are read (word2vec.c cuts
#: words at 100 bytes, in the middle of a multi-byte character if need be)
_unicode_errors = click.option(
    "--unicode-errors", type=click.Choice(["strict", "replace", "ignore"]), default="strict",
    show_default=True, help="Words of a word2vec file that are not valid UTF-8: an error, U+FFFD, "
                            "or dropped bytes.")


def _print_neighbours(results):
    if not results:
        click.echo("(no results)")
        return
    width = max(len(w) for w, _ in results)
    for word, score in results:
        click.echo(f"{word:<{width}}  {score:.4f}")


def _topn(ctx, param, value):
    if value is not None and value < 1:
        raise click.BadParameter("must be at least 1")
    return value


@click.command(context_settings=_CTX)
@click.argument("model", type=click.Path())
@click.argument("words", nargs=-1, required=True)
@click.option("--topn", "-n", type=int, default=10, show_default=True, callback=_topn,
              help="Number of neighbours to print.")
@click.option("--negative", multiple=True, metavar="WORD",
              help="A word that counts negatively (repeat the option for several).")
@click.option("--restrict-vocab", type=click.IntRange(min=1), default=None,
              help="Search only the N most frequent words.")
@_unicode_errors
@one_line_errors
def similar(model, words, topn, negative, restrict_vocab, unicode_errors):
    """Print the nearest neighbours (cosine) of WORD(s) in MODEL.

    Several WORDs are combined: the query is the mean of their unit vectors
    (minus those of the --negative words), and the query words are left out
    of the answer, as in gensim's most_similar.
    """
    kv = _load(model, unicode_errors=unicode_errors)
    results = kv.most_similar(positive=list(words), negative=list(negative), topn=topn,
                              restrict_vocab=restrict_vocab)
    _print_neighbours(results)


@click.command(context_settings=_CTX)
@click.argument("model", type=click.Path())
@click.argument("a")
@click.argument("b")
@click.argument("c")
@click.option("--topn", "-n", type=int, default=5, show_default=True, callback=_topn,
              help="Number of answers to print.")
@click.option("--method", type=click.Choice(["3cosadd", "3cosmul"]), default="3cosadd", show_default=True,
              help="Vector offset (most_similar) or multiplicative objective (most_similar_cosmul).")
@click.option("--restrict-vocab", type=click.IntRange(min=1), default=None,
              help="Search only the N most frequent words.")
@_unicode_errors
@one_line_errors
def analogy(model, a, b, c, topn, method, restrict_vocab, unicode_errors):
    """Solve "A is to B as C is to ?" with the vectors of MODEL.

    The answer is the word closest to B - A + C (positive B and C, negative A).
    """
    kv = _load(model, unicode_errors=unicode_errors)
    if method == "3cosadd":
        results = kv.most_similar(positive=[b, c], negative=[a], topn=topn, restrict_vocab=restrict_vocab)
    else:
        results = kv.most_similar_cosmul(positive=[b, c], negative=[a], topn=topn,
                                         restrict_vocab=restrict_vocab)
    _print_neighbours(results)


@click.command("eval", context_settings=_CTX)
@click.argument("model", type=click.Path())
@click.option("--analogies", multiple=True, type=click.Path(), metavar="FILE",
              help="Analogy questions (questions-words.txt format); repeatable.")
@click.option("--pairs", multiple=True, type=click.Path(), metavar="FILE",
              help="Word pairs with similarity scores (WordSim-353, SimLex-999, ...); repeatable.")
@click.option("--restrict-vocab", type=click.IntRange(min=1), default=300000, show_default=True,
              help="Use only the N most frequent words (others count as out of vocabulary).")
@click.option("--case-sensitive", is_flag=True, help="Do not upper-case words before matching.")
@click.option("--method", type=click.Choice(["3cosadd", "3cosmul"]), default="3cosadd", show_default=True,
              help="How analogies are answered.")
@click.option("--sections", is_flag=True, help="Also print the accuracy of every analogy section.")
@click.option("--phrases-analogies", is_flag=True,
              help="Add the bundled phrase analogies (questions-phrases.txt: boston_globe, ...; train with --phrases).")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@_unicode_errors
@one_line_errors
def evaluate(model, analogies, pairs, restrict_vocab, case_sensitive, method, sections, as_json,
             unicode_errors, phrases_analogies):
    """Evaluate MODEL on analogy and word-similarity test sets.

    Without --analogies/--pairs, uses the bundled sets (Google analogies,
    WordSim-353, SimLex-999); --phrases-analogies adds Mikolov's phrase
    analogies.  Results match gensim's evaluate_word_analogies and
    evaluate_word_pairs.
    """
    from w2v.vectors.evaluate import default_eval_paths   # start-up: loads scipy.linalg (+0.3 s)

    if not analogies and not pairs:
        found = default_eval_paths()
        analogies = [str(p) for p in found["analogies"]]
        pairs = [str(p) for p in found["pairs"]]
        if not analogies and not pairs:
            raise click.ClickException("no bundled evaluation sets found; pass --analogies or --pairs")
    if phrases_analogies:
        found = [str(p) for p in default_eval_paths()["phrase_analogies"]]
        if not found:
            raise click.ClickException("the bundled phrase analogies (questions-phrases.txt) are not installed")
        analogies = list(analogies) + found
    for path in list(analogies) + list(pairs):
        if not os.path.exists(path):
            raise click.ClickException(f"{path}: no such file or directory")
    kv = _load(model, unicode_errors=unicode_errors)
    report = {"model": model, "restrict_vocab": restrict_vocab, "analogies": [], "pairs": []}
    for path in analogies:
        score, secs = kv.evaluate_word_analogies(path, restrict_vocab=restrict_vocab,
                                                 case_insensitive=not case_sensitive, method=method)
        total = secs[-1]
        n_ok, n_bad, n_oov = len(total["correct"]), len(total["incorrect"]), len(total["oov"])
        report["analogies"].append({
            "file": path, "accuracy": score, "correct": n_ok, "answered": n_ok + n_bad, "oov": n_oov,
            "sections": [
                {"section": s["section"], "correct": len(s["correct"]),
                 "answered": len(s["correct"]) + len(s["incorrect"]), "oov": len(s["oov"])}
                for s in secs[:-1]
            ],
        })
    for path in pairs:
        (r, rp), (rho, sp), oov = kv.evaluate_word_pairs(path, restrict_vocab=restrict_vocab,
                                                         case_insensitive=not case_sensitive)
        report["pairs"].append({"file": path, "pearson": r, "pearson_p": rp, "spearman": rho,
                                "spearman_p": sp, "oov_percent": oov})
    if as_json:
        click.echo(json.dumps(json_safe(report), indent=2, allow_nan=False))
        return
    click.echo(f"{kv!r}, restrict_vocab={restrict_vocab}")
    if report["analogies"]:
        click.echo("")
        click.echo(f"{'analogies':<32} {'accuracy':>8} {'correct':>9} {'answered':>9} {'oov':>7}")
        for item in report["analogies"]:
            click.echo(f"{os.path.basename(item['file']):<32} {100 * item['accuracy']:>7.2f}% "
                       f"{item['correct']:>9} {item['answered']:>9} {item['oov']:>7}")
            if sections:
                for s in item["sections"]:
                    acc = 100.0 * s["correct"] / s["answered"] if s["answered"] else 0.0
                    click.echo(f"  {s['section'][:30]:<30} {acc:>7.2f}% {s['correct']:>9} "
                               f"{s['answered']:>9} {s['oov']:>7}")
    if report["pairs"]:
        click.echo("")
        click.echo(f"{'word pairs':<32} {'pearson':>8} {'spearman':>9} {'oov %':>9}")
        for item in report["pairs"]:
            click.echo(f"{os.path.basename(item['file']):<32} {item['pearson']:>8.4f} "
                       f"{item['spearman']:>9.4f} {item['oov_percent']:>8.1f}%")


@click.command(context_settings=_CTX)
@click.argument("src", metavar="IN", type=click.Path())
@click.argument("dst", metavar="OUT", type=click.Path())
@click.option("--to", "to", type=click.Choice(["bin", "text", "native"]), default=None,
              help="Output format [default: from OUT: .bin binary, .txt/.vec text, else native]; "
                   "a .gz/.bz2/.xz suffix compresses bin/text.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Convert only the first N vectors.")
@_unicode_errors
@one_line_errors
def convert(src, dst, to, limit, unicode_errors):
    """Convert vectors IN (any supported format) to OUT.

    OUT may not be IN itself (also through a link): converting a file or
    model in place would replace what it holds.  An existing full model
    (saved by ``--save-model``) is never replaced by vectors only.
    """
    from w2v.vectors.keyed import save   # start-up: loads scipy.linalg (+0.3 s)

    if os.path.exists(src) and os.path.exists(dst):
        try:
            same = os.path.samefile(src, dst)
        except OSError:
            same = os.path.realpath(src) == os.path.realpath(dst)
        if same:
            raise OutputError(f"cannot write {dst}: it is the input {src} itself (converting in place "
                              "would replace it); write to another path")
    kv = _load(src, limit=limit, unicode_errors=unicode_errors)
    save(kv, dst, format=to)
    click.echo(f"wrote {len(kv):,} x {kv.vector_size} vectors to {dst}", err=True)


@click.command(context_settings=_CTX)
@click.argument("model", type=click.Path())
@one_line_errors
def info(model):
    """Print the vocabulary size, dimensionality, format and settings of MODEL."""
    from w2v.formats import inspect   # start-up: loads scipy.linalg (+0.3 s)

    desc = inspect(model_path(model))
    click.echo(f"path:        {desc['path']}")
    fmt = desc["format"] + (f" ({desc['compression']}-compressed)" if desc["compression"] else "") + \
        (" (one file)" if desc.get("single_file") else "")
    click.echo(f"format:      {fmt}")
    click.echo(f"vocabulary:  {desc['count']:,} words")
    click.echo(f"dimensions:  {desc['dim']}")
    click.echo(f"counts:      {'yes' if desc['has_counts'] else 'no'}")
    if desc["settings"]:
        click.echo("settings:")
        for key in sorted(desc["settings"]):
            click.echo(f"  {key}: {json.dumps(desc['settings'][key])}")
    else:
        click.echo("settings:    unknown")
    for line in full_model_lines(desc.get("full_model"), desc["settings"]):
        click.echo(line)


def full_model_lines(header, settings):
    """``w2v info``'s lines on what a full model (its header ``model.json``) needs to be reproduced:
    the w2v version, the mode and seed, the corpus' fingerprint, and where its run stands."""
    if not (header and settings):
        return []
    s, t = settings, header.get("training") or {}
    if s.get("deterministic"):
        mode = (f"deterministic, {s.get('lanes')} lanes of {s.get('round_words') or DEFAULT_ROUND_WORDS:,} ids per "
                f"round, seed {s.get('seed')} (the same vectors at any thread count)")
    else:
        mode = f"Hogwild, seed {s.get('seed')} (the same vectors at --threads 1)"
    lines = [f"w2v version: {header.get('w2v_version', 'unknown')}", f"reproduce:   {mode}"]
    fp = t.get("corpus_fingerprint")
    if fp:
        lines.append(f"corpus:      {fp['ids']:,} ids, {fp['words']:,} words, fingerprint {fp['hash']}")
    if t:
        where = f"{t.get('epochs_done')} of {t.get('epochs')} epochs done"
        if t.get("position"):
            where += f", {t['position']:,} ids into epoch {t['epochs_done'] + 1} (a checkpoint within an epoch)"
        lines.append(f"run:         {where}")
    return lines


def register(group):
    """Add the vector commands to the click ``group``.

    Parameters
    ----------
    group : click.Group
        The ``w2v`` command group.
    """
    for command in (similar, analogy, evaluate, convert, info):
        group.add_command(command)
