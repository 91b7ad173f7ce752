"""Intrinsic evaluation: word analogies and word-pair similarity.

Both functions reproduce gensim's ``KeyedVectors.evaluate_word_analogies``
and ``evaluate_word_pairs`` (same vocabulary restriction, case folding,
out-of-vocabulary handling and tie/exclusion rules), but answer the analogy
questions of a section with one matrix product per block of questions instead
of one ``most_similar`` call per question.

They take any object shaped like :class:`w2v.vectors.keyed.KeyedVectors`: one with
``index_to_key``, ``len()``, ``vectors``, ``norms`` and ``get_normed_vectors()``
(this module does not import :mod:`w2v.vectors.keyed`, which offers both as methods).

The bundled test sets live in ``data/eval``, installed as ``w2v/data/eval`` (see
:func:`default_eval_paths`).
"""
from __future__ import annotations

import codecs
import importlib.resources
import logging
import math
import os
from pathlib import Path

import numpy as np

from ..util.checks import is_integer
from ..util import arrays
from ..util.arrays import unitrows, unitvec
from ..errors import FormatError, ParameterError, VocabularyError
from ..formats import decode_utf8
from ..util.opener import DECODE_ERRORS, open_binary

logger = logging.getLogger(__name__)

__all__ = [
    "evaluate_word_analogies",
    "evaluate_word_pairs",
    "default_eval_paths",
    "pearson",
    "spearman",
    "rankdata",
]

_ANALOGY_TOPN = 5  # gensim looks at the 5 best answers and takes the first not among the question words


def default_eval_paths():
    """Locate the evaluation sets bundled with w2v.

    They are package data of ``w2v.data`` (the folder ``data/`` of the source
    tree), found the same way in a source checkout and in an installed wheel.

    Returns
    -------
    dict
        ``{'analogies': [Path, ...], 'pairs': [Path, ...], 'phrase_analogies': [Path, ...]}``
        with the files of ``data/eval`` that exist (Google's ``questions-words.txt``;
        WordSim-353 and SimLex-999; Mikolov's phrase analogies ``questions-phrases.txt``,
        whose phrases are joined with ``_``, as ``w2v phrases`` joins them).
    """
    try:
        root = Path(str(importlib.resources.files("w2v.data"))) / "eval"
    except ModuleNotFoundError:   # an editable install made before data/ was a package: the source tree's
        root = Path(__file__).resolve().parent.parent / "data" / "eval"
    analogies = [root / "questions-words.txt"]
    pairs = [root / "wordsim353.tsv", root / "simlex999.txt"]
    return {
        "analogies": [p for p in analogies if p.is_file()],
        "pairs": [p for p in pairs if p.is_file()],
        "phrase_analogies": [p for p in [root / "questions-phrases.txt"] if p.is_file()],
    }


def _read_lines(path, encoding="utf-8"):
    """Decoded lines of a (possibly compressed) text file, UTF-8 unless ``encoding`` says otherwise."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise FormatError(f"{path}: is a directory, not an evaluation file")
    try:
        with open_binary(path, buffering=-1) as fin:
            raw = fin.read()
    except FileNotFoundError:
        raise
    except (*DECODE_ERRORS, ValueError) as exc:
        # a corrupt .gz or .bz2 file raises OSError (gzip.BadGzipFile), a corrupt .xz LZMAError
        raise FormatError(f"{path}: cannot read: {exc}") from None
    if codecs.lookup(encoding).name == "utf-8":
        text = decode_utf8(raw, path)
    else:
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            raise FormatError(f"{path}: line {line}: not valid {encoding}") from None
    return text[1:].splitlines() if text.startswith("\ufeff") else text.splitlines()   # a byte-order mark


def _ok_vocab(kv, restrict_vocab, case_insensitive):
    keys = kv.index_to_key[:restrict_vocab] if restrict_vocab is not None else kv.index_to_key
    ok = {}
    # walk backwards so that the first (most frequent) case variant wins, as gensim does
    if case_insensitive:
        for i in range(len(keys) - 1, -1, -1):
            ok[keys[i].upper()] = i
    else:
        for i in range(len(keys) - 1, -1, -1):
            ok[keys[i]] = i
    return ok


def _check_restrict(restrict_vocab):
    if restrict_vocab is None:
        return None
    if not is_integer(restrict_vocab) or restrict_vocab < 0:
        raise ParameterError(f"restrict_vocab must be a non-negative integer or None, got {restrict_vocab!r}")
    return int(restrict_vocab)


# --------------------------------------------------------------------------- analogies
def _analogy_means_3cosadd(normed, ia, ib, ic):
    """gensim's ``get_mean_vector([b, c, a], [1, 1, -1])`` of unit vectors, post-normalised."""
    mean = normed[ib].astype(np.float64).astype(np.float32)
    mean = (mean.astype(np.float64) + normed[ic]).astype(np.float32)
    mean = (mean.astype(np.float64) - normed[ia]).astype(np.float32)
    return unitrows(mean.astype(np.float64) / 3.0)


def _score_divisors(kv, clip):
    """The norms of the first ``clip`` words as divisors of cosines.

    As ``KeyedVectors.most_similar`` divides: a zero vector's norm is
    replaced by 1, so it scores 0.0 (not NaN; see :func:`w2v.util.arrays.row_norms`).
    """
    norms = kv.norms[:clip]
    return np.where(norms == 0, np.float32(1), norms).astype(norms.dtype, copy=False)


def _cosines(kv, q, clip, div):
    """Cosines of the unit query rows ``q`` with the first ``clip`` words (queries x words)."""
    return np.dot(q, kv.vectors[:clip].T) / div[None, :]


def _predict_block(kv, ia, ib, ic, clip, method, div):
    """Candidate rows (best first, question words removed) for a block of questions."""
    normed = kv.get_normed_vectors()
    if method == "3cosadd":
        q = _analogy_means_3cosadd(normed, ia, ib, ic)
        scores = _cosines(kv, q, clip, div)
        excl_n = np.full(len(ia), 3)  # gensim: topn + len(all_keys), duplicates included
    else:
        def shifted(rows):
            return (1 + _cosines(kv, normed[rows], clip, div)) / 2

        scores = (shifted(ib) * shifted(ic)) / (shifted(ia) + 0.000001)
        excl_n = np.array([len({a, b, c}) for a, b, c in zip(ia, ib, ic)])
    kk = _ANALOGY_TOPN + 3
    neg = -scores
    if kk >= clip:
        best = np.argsort(neg, axis=1)
    else:
        part = np.argpartition(neg, kk, axis=1)[:, :kk]
        order = np.argsort(np.take_along_axis(neg, part, axis=1), axis=1)
        best = np.take_along_axis(part, order, axis=1)
    out = []
    for r in range(len(ia)):
        excluded = (ia[r], ib[r], ic[r])
        cand = best[r, :_ANALOGY_TOPN + excl_n[r]]
        out.append([int(i) for i in cand if i not in excluded][:_ANALOGY_TOPN])
    return out


def _section_score(section):
    correct, incorrect = len(section["correct"]), len(section["incorrect"])
    return 0.0 if correct + incorrect == 0 else correct / (correct + incorrect)


def evaluate_word_analogies(kv, path, restrict_vocab=300000, case_insensitive=True,
                            dummy4unknown=False, method="3cosadd"):
    """Accuracy on an analogy test set (``a b c d``: a is to b as c is to d).

    Gives the same answers as gensim's ``KeyedVectors.evaluate_word_analogies``:
    a question counts as correct when the best answer to
    ``most_similar(positive=[b, c], negative=[a])`` over the first
    ``restrict_vocab`` words, skipping the three question words (also their
    other-case variants when ``case_insensitive``), is ``d``.

    Parameters
    ----------
    kv : KeyedVectors
        The vectors.
    path : str or os.PathLike
        Questions file: ``: section name`` lines followed by 4-word lines
        (Google's ``questions-words.txt`` format).
    restrict_vocab : int or None, optional
        Use only the first ``restrict_vocab`` words (questions with other
        words are out of vocabulary).
    case_insensitive : bool, optional
        Compare upper-cased words; the first (most frequent) case variant of
        a word gives its vector.
    dummy4unknown : bool, optional
        Count out-of-vocabulary questions as incorrect instead of skipping them.
    method : {'3cosadd', '3cosmul'}, optional
        Additive offset (gensim's ``most_similar``) or the multiplicative
        objective (gensim's ``most_similar_cosmul``).

    Returns
    -------
    score : float
        Accuracy over all answered questions.
    sections : list of dict
        One dict per section and a last one named ``'Total accuracy'``, each
        with ``'section'``, ``'correct'`` and ``'incorrect'`` (lists of
        4-tuples, upper-cased when ``case_insensitive``) as in gensim, plus
        ``'oov'``: the questions with out-of-vocabulary words.

    Raises
    ------
    FormatError
        The file holds no question or a question comes before any section,
        or it cannot be read (a directory, a corrupt compressed file).
    FileNotFoundError
        ``path`` does not exist.
    ParameterError
        ``method`` is not one of the two, or ``restrict_vocab`` is not a
        non-negative integer or None.
    """
    if method not in ("3cosadd", "3cosmul"):
        raise ParameterError(f"method must be '3cosadd' or '3cosmul', got {method!r}")
    restrict_vocab = _check_restrict(restrict_vocab)
    ok_vocab = _ok_vocab(kv, restrict_vocab, case_insensitive)
    clip = len(kv) if restrict_vocab is None else min(restrict_vocab, len(kv))
    sections, n_questions = _read_analogies(path, ok_vocab, case_insensitive)
    div = _score_divisors(kv, clip)
    results = []
    n_oov = 0
    for name, entries in sections:
        predictions = _predict_section(kv, entries, clip, method, div)
        section = _score_section(kv, name, entries, predictions, ok_vocab, case_insensitive, dummy4unknown)
        n_oov += len(section["oov"])
        results.append(section)
    total = {
        "section": "Total accuracy",
        "correct": [q for s in results for q in s["correct"]],
        "incorrect": [q for s in results for q in s["incorrect"]],
        "oov": [q for s in results for q in s["oov"]],
    }
    logger.info("questions with out-of-vocabulary words: %.1f%%", 100.0 * n_oov / n_questions)
    score = _section_score(total)
    results.append(total)
    return score, results


def _read_analogies(path, ok_vocab, case_insensitive):
    """The sections of an analogy file and how many questions they hold.

    Returns
    -------
    sections : list of (str, list)
        Per section its name and its questions: ``(quad, ids)`` with the four
        (upper-cased when ``case_insensitive``) words and their rows, ``ids``
        None when a word is out of vocabulary.
    n_questions : int
    """
    sections, entries = [], None
    n_questions = 0
    for line_no, line in enumerate(_read_lines(path), 1):
        if line.startswith(": "):
            entries = []
            sections.append((line.lstrip(": ").strip(), entries))
            continue
        if entries is None:
            if not line.strip():
                continue
            raise FormatError(f"{path}: line {line_no}: question before the first ': section' line")
        words = line.split()
        if len(words) != 4:
            logger.info("skipping invalid line %d in %s", line_no, path)
            continue
        if case_insensitive:
            words = [w.upper() for w in words]
        quad = tuple(words)
        n_questions += 1
        if any(w not in ok_vocab for w in words):
            entries.append((quad, None))
        else:
            entries.append((quad, tuple(ok_vocab[w] for w in words)))
    if n_questions == 0:
        raise FormatError(f"{path}: no analogy questions found (expected ': section' and 4-word lines)")
    return sections, n_questions


def _predict_section(kv, entries, clip, method, div):
    """The candidate rows of every in-vocabulary question of a section, in blocks of questions."""
    known = [ids for _, ids in entries if ids is not None]
    predictions = []
    if known:
        ids = np.array(known, dtype=np.int64)
        block = max(1, arrays.BLOCK_ELEMENTS // max(clip, 1))
        for start in range(0, len(ids), block):
            chunk = ids[start:start + block]
            predictions.extend(_predict_block(kv, chunk[:, 0], chunk[:, 1], chunk[:, 2], clip, method, div))
    return predictions


def _score_section(kv, name, entries, predictions, ok_vocab, case_insensitive, dummy4unknown):
    """The result dict of one section: its correct, incorrect and out-of-vocabulary questions."""
    section = {"section": name, "correct": [], "incorrect": [], "oov": []}
    pred_iter = iter(predictions)
    for quad, ids in entries:
        if ids is None:
            section["oov"].append(quad)
            if dummy4unknown:
                section["incorrect"].append(quad)
            continue
        ignore = set(quad[:3])
        predicted = None
        for i in next(pred_iter):
            word = kv.index_to_key[i]
            predicted = word.upper() if case_insensitive else word
            if predicted in ok_vocab and predicted not in ignore:
                break
        if predicted == quad[3]:
            section["correct"].append(quad)
        else:
            section["incorrect"].append(quad)
    logger.info("%s: %.1f%% (%d/%d)", name, 100.0 * _section_score(section),
                len(section["correct"]), len(section["correct"]) + len(section["incorrect"]))
    return section


# --------------------------------------------------------------------------- word pairs
def rankdata(x):
    """Ranks from 1 to n, ties getting the average of their ranks.

    Parameters
    ----------
    x : array_like
        1-D data.

    Returns
    -------
    numpy.ndarray
        float64 ranks (as ``scipy.stats.rankdata(x, method='average')``).
    """
    x = np.asarray(x)
    n = x.size
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    new_group = np.empty(n, dtype=bool)
    if n:
        new_group[0] = True
        new_group[1:] = xs[1:] != xs[:-1]
    starts = np.flatnonzero(new_group)
    ends = np.append(starts[1:], n)
    avg = (starts + ends + 1) / 2.0  # mean of ranks start+1 .. end
    group_of_sorted = np.cumsum(new_group) - 1
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = avg[group_of_sorted]
    return ranks


def _pearson_r(x, y):
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.size < 2:
        return float("nan")
    xm = x - x.mean()
    ym = y - y.mean()
    nx, ny = np.linalg.norm(xm), np.linalg.norm(ym)
    if nx == 0 or ny == 0:
        return float("nan")
    r = float(np.dot(xm / nx, ym / ny))
    return max(-1.0, min(1.0, r))


def _scipy_stats():
    try:
        from scipy import stats   # optional extra: scipy, for the Spearman correlation only
    except Exception:  # pragma: no cover - scipy is optional
        return None
    return stats


def _p_value(test, r, x, y):
    """Two-sided p-value of ``scipy.stats.<test>(x, y)``; nan without scipy or for an undefined ``r``."""
    stats = _scipy_stats()
    if stats is None or math.isnan(r):
        return float("nan")
    try:
        return float(getattr(stats, test)(np.asarray(x, np.float64), np.asarray(y, np.float64))[1])
    except Exception:  # pragma: no cover
        return float("nan")


def pearson(x, y):
    """Pearson correlation and two-sided p-value.

    Parameters
    ----------
    x, y : array_like
        Paired samples.

    Returns
    -------
    tuple of (float, float)
        ``(r, p)``; ``p`` is nan when scipy is not installed.
    """
    r = _pearson_r(x, y)
    return r, _p_value("pearsonr", r, x, y)


def spearman(x, y):
    """Spearman rank correlation (average ranks for ties) and two-sided p-value.

    Parameters
    ----------
    x, y : array_like
        Paired samples.

    Returns
    -------
    tuple of (float, float)
        ``(rho, p)``; ``p`` is nan when scipy is not installed.
    """
    rho = _pearson_r(rankdata(x), rankdata(y))
    return rho, _p_value("spearmanr", rho, x, y)


def _check_text_options(delimiter, encoding):
    """The delimiter (None: find it per line) and encoding of a word-pair file, checked."""
    if delimiter is not None and (not isinstance(delimiter, str) or not delimiter):
        raise ParameterError(f"delimiter must be a non-empty str or None, got {delimiter!r}")
    try:
        codecs.lookup(encoding)
    except (LookupError, TypeError):
        raise ParameterError(f"encoding must be the name of a text encoding, got {encoding!r}") from None
    return delimiter, encoding


def _parse_pair_line(line, delimiter=None):
    """(word1, word2, score) or None for a line of a word-similarity file."""
    if delimiter is not None:
        fields = line.split(delimiter)
    elif "\t" in line:
        fields = line.split("\t")
    elif "," in line:
        fields = line.split(",")
    else:
        fields = line.split()
    fields = [f.strip() for f in fields]
    if len(fields) < 3 or not fields[0] or not fields[1]:
        return None
    for field in fields[2:]:
        try:
            score = float(field)
        except ValueError:
            continue
        if math.isfinite(score):
            return fields[0], fields[1], score
        return None
    return None


def evaluate_word_pairs(kv, path, restrict_vocab=300000, case_insensitive=True, dummy4unknown=False,
                        delimiter=None, encoding="utf-8"):
    """Correlation between model cosine similarities and human judgements.

    Gives the same numbers as gensim's ``KeyedVectors.evaluate_word_pairs``
    on gensim's 3-column files, and also reads tab-, comma- or
    space-separated files with more columns (the SimLex-999 10-column and
    SimVerb 5-column releases): the first two columns are the words, the
    first later column that parses as a number is the score.  Lines starting
    with ``#``, blank lines and lines without a score (headers) are skipped.

    Parameters
    ----------
    kv : KeyedVectors
        The vectors.
    path : str or os.PathLike
        The word-pair file.
    restrict_vocab : int or None, optional
        Use only the first ``restrict_vocab`` words.
    case_insensitive : bool, optional
        Compare upper-cased words (the first case variant gives the vector).
    dummy4unknown : bool, optional
        Give pairs with unknown words similarity 0 instead of skipping them.
    delimiter : str, optional
        Split every line at this string only; when None (the default) a
        line is split at tabs if it holds one, else at commas, else at
        whitespace.
    encoding : str, optional
        The file's encoding.

    Returns
    -------
    pearson : tuple of (float, float)
        Pearson r and two-sided p-value (nan without scipy).
    spearman : tuple of (float, float)
        Spearman rho and two-sided p-value (nan without scipy).
    oov_ratio : float
        Percentage of pairs with unknown words (as gensim computes it).

    Raises
    ------
    FormatError
        No line of the file holds a word pair with a score, or the file
        cannot be read (a directory, a corrupt compressed file).
    VocabularyError
        Every pair has an out-of-vocabulary word (and not ``dummy4unknown``).
    FileNotFoundError
        ``path`` does not exist.
    ParameterError
        ``restrict_vocab`` is not a non-negative integer or None, ``delimiter``
        is not a non-empty str, or ``encoding`` names no encoding.
    """
    restrict_vocab = _check_restrict(restrict_vocab)
    text_options = _check_text_options(delimiter, encoding)
    ok_vocab = _ok_vocab(kv, restrict_vocab, case_insensitive)
    pairs, oov = _read_pairs(path, ok_vocab, case_insensitive, text_options)
    vectors = kv.vectors
    gold, model = [], []
    for a, b, score in pairs:
        if a is None:
            if dummy4unknown:
                model.append(0.0)
                gold.append(score)
            continue
        gold.append(score)
        model.append(np.dot(unitvec(vectors[a]), unitvec(vectors[b])))
    if not gold:
        raise VocabularyError(f"{path}: every word pair has an out-of-vocabulary word")
    model_arr = np.asarray(model)
    p = pearson(gold, model_arr)
    s = spearman(gold, model_arr)
    if dummy4unknown:
        oov_ratio = float(oov) / len(gold) * 100
    else:
        oov_ratio = float(oov) / (len(gold) + oov) * 100
    logger.info("Pearson %.4f, Spearman %.4f, pairs with unknown words %.1f%% (%s)", p[0], s[0], oov_ratio, path)
    return p, s, oov_ratio


def _read_pairs(path, ok_vocab, case_insensitive, text_options=(None, "utf-8")):
    """The scored word pairs of a file as ``(row_a, row_b, score)`` (rows None when out of
    vocabulary), and how many are out of vocabulary; ``text_options`` is ``(delimiter, encoding)``."""
    delimiter, encoding = text_options
    pairs = []
    oov = 0
    for line_no, line in enumerate(_read_lines(path, encoding), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = _parse_pair_line(line, delimiter)
        if item is None:
            logger.info("skipping line %d of %s (no word pair with a score)", line_no, path)
            continue
        a, b, score = item
        if case_insensitive:
            a, b = a.upper(), b.upper()
        if a not in ok_vocab or b not in ok_vocab:
            oov += 1
            pairs.append((None, None, score))
        else:
            pairs.append((ok_vocab[a], ok_vocab[b], score))
    if not pairs:
        raise FormatError(f"{path}: no word pairs with a score found")
    return pairs, oov
