"""What the library says, and where: logged as gensim logs, warnings naming the caller's line, the raw-text
hint, and gensim's summary of a model as its str and repr."""
import ast
import json
import logging
import subprocess
import sys
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

from w2v import CorpusWarning, KeyedVectors, ResumeWarning, Word2Vec
from w2v.errors import RawTextWarning
from w2v_cli.main import main

from ..conftest import ROOT

FAST = dict(dim=12, epochs=1, min_count=3, seed=3, threads=1)
SENTENCES = [["the", "king", "rules", "the", "land"], ["the", "queen", "rules", "the", "sea"],
             ["a", "dog", "barks", "at", "the", "cat"]] * 40
#: the modules that may write to the console: the progress lines asked for (quiet=False), and the
#: phrased corpus written to "-" (standard output) on request
CONSOLE_MODULES = {"w2v/training/progress.py", "w2v/util/console.py", "w2v/phrases/corpus.py"}


def warned_here(record, category):
    """The warnings of ``category`` in ``record``; each must name this file, where the public call is."""
    hits = [w for w in record if issubclass(w.category, category)]
    assert hits, [str(w.message) for w in record]
    assert all(w.filename == __file__ for w in hits), [(w.filename, w.lineno, str(w.message)[:80]) for w in hits]
    return hits


# --------------------------------------------------------------------------- logging, not printing
def test_doesnt_match_logs_the_words_it_ignores_and_prints_nothing(caplog):
    kv = KeyedVectors(["breakfast", "lunch", "dinner", "house"], np.eye(4, dtype=np.float32) + 0.1)
    with caplog.at_level(logging.WARNING):
        assert kv.doesnt_match("breakfast cereal dinner lunch".split()) in ("breakfast", "dinner", "lunch")
    (record,) = [r for r in caplog.records if "not present" in r.getMessage()]
    assert record.name == "w2v.vectors.similarity" and record.levelno == logging.WARNING
    assert record.getMessage() == ("vectors for words {'cereal'} are not present in the model, "
                                   "ignoring these words")


@pytest.mark.parametrize("configured", [False, True])
def test_a_script_sees_the_library_log_only_once_it_configures_logging(configured):
    script = ("import logging, numpy as np\n"
              + ("logging.basicConfig(level=logging.WARNING)\n" if configured else "")
              + "from w2v import KeyedVectors\n"
              "kv = KeyedVectors(['a', 'b', 'c'], np.eye(3, dtype=np.float32))\n"
              "print(kv.doesnt_match(['a', 'b', 'cereal']))\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() in ("a", "b")
    if configured:
        assert run.stderr == ("WARNING:w2v.vectors.similarity:vectors for words {'cereal'} are not present in "
                              "the model, ignoring these words\n")
    else:
        assert run.stderr == ""


def test_no_library_module_prints():
    offenders = []
    for path in sorted((ROOT / "w2v").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in CONSOLE_MODULES:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                offenders.append(f"{rel}:{node.lineno}: print")
            if isinstance(node, ast.Attribute) and node.attr in ("stderr", "stdout") and \
                    isinstance(node.value, ast.Name) and node.value.id == "sys":
                offenders.append(f"{rel}:{node.lineno}: sys.{node.attr}")
    assert not offenders, offenders


def test_the_cli_says_what_the_library_logs_as_warning_lines(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("3 2\na 1 0\nb 0 1\na 1 1\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["similar", str(path), "a", "-n", "1"])
    assert res.exit_code == 0, res.output
    (line,) = [x for x in res.stderr.splitlines() if "duplicate word" in x]
    assert line == f"warning: {path}: line 4: duplicate word 'a', ignoring all but the first"


# --------------------------------------------------------------------------- warnings name the caller's line
def test_trim_rule_without_a_corpus_warns_at_the_call():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        Word2Vec(vector_size=8, trim_rule=lambda word, count, min_count: 1)
    warned_here(rec, UserWarning)


def test_totals_that_disagree_warn_at_the_train_call():
    m = Word2Vec(sentences=SENTENCES, vector_size=8, min_count=1, workers=1, epochs=1, seed=1)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        m.train(SENTENCES, total_examples=10, epochs=1)
    assert "total_examples=10 differs" in str(warned_here(rec, CorpusWarning)[0].message)


def test_bytes_that_are_not_utf8_warn_at_the_call_that_read_them(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(("caf\xe9 the king rules the land\n" * 50).encode("latin-1"))
    for read in (lambda: Word2Vec(**FAST).build_vocab(str(path)),
                 lambda: Word2Vec(corpus_file=str(path), vector_size=8, min_count=1, epochs=1, workers=1),
                 lambda: Word2Vec(**FAST).train(str(path))):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            read()
        assert "U+FFFD" in str(warned_here(rec, CorpusWarning)[0].message)


def test_resume_warnings_name_the_load_and_the_train_call(small_corpus, tmp_path):
    ck = tmp_path / "ck"
    m = Word2Vec(**{**FAST, "epochs": 2})
    m.train(str(small_corpus), on_epoch_end=lambda e: e == 0 and m.save(str(ck)))
    header = json.loads((ck / "model.json").read_text())
    header["w2v_version"] = "0.0.1"
    (ck / "model.json").write_text(json.dumps(header))
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        resumed = Word2Vec.load(str(ck))
    assert "a checkpoint of w2v 0.0.1" in str(warned_here(rec, ResumeWarning)[0].message)
    other = tmp_path / "other.txt"
    other.write_text(" ".join(resumed.vocab.words[:50]) + "\n" * 3 + " ".join(resumed.vocab.words[:80]) + "\n",
                     encoding="utf-8")
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        resumed.train(str(other))
    assert "another corpus" in str(warned_here(rec, ResumeWarning)[0].message)


# --------------------------------------------------------------------------- the raw-text hint
def test_build_vocab_of_raw_text_warns_once_with_the_settings_that_help(small_corpus):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        Word2Vec(**FAST).build_vocab(str(small_corpus))
    (hint,) = warned_here(rec, RawTextWarning)
    assert issubclass(hint.category, CorpusWarning)
    text = str(hint.message)
    assert text.startswith("among the 1,000 most frequent words, ") and "carry punctuation ('" in text
    assert text.endswith("; for raw text, try tokenizer='simple', lowercase=True")
    for call in (lambda: Word2Vec(**FAST).train(str(small_corpus)),
                 lambda: Word2Vec(corpus_file=str(small_corpus), vector_size=8, min_count=3, epochs=1, workers=1)):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            call()
        assert len(warned_here(rec, RawTextWarning)) == 1


def test_no_hint_where_the_settings_or_the_sentences_are_the_users(small_corpus):
    lines = small_corpus.read_text(encoding="utf-8").splitlines()
    sentences = [line.split() for line in lines if line.split()]
    cases = {"simple tokenizer": lambda: Word2Vec(**FAST, tokenizer="simple").build_vocab(str(small_corpus)),
             "lowercase": lambda: Word2Vec(**FAST, lowercase=True).build_vocab(str(small_corpus)),
             "sentences": lambda: Word2Vec(**FAST).build_vocab(sentences),
             "update": lambda: Word2Vec(**FAST).build_vocab(sentences).build_vocab(str(small_corpus), update=True)}
    for name, call in cases.items():
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            call()
        assert not [w for w in rec if issubclass(w.category, RawTextWarning)], name


def test_the_cli_gives_the_hint_once_in_the_words_of_its_options(small_corpus, tmp_path):
    res = CliRunner().invoke(main, ["train", str(small_corpus), "-o", str(tmp_path / "v.bin"), "--dim", "8",
                                    "--epochs", "1", "--threads", "1"])
    assert res.exit_code == 0, res.output
    said = [line for line in res.stderr.splitlines() if "most frequent words" in line]
    assert len(said) == 1 and said[0].startswith("hint: ") and said[0].endswith("--tokenizer simple --lowercase")


# --------------------------------------------------------------------------- str and repr
def test_str_and_repr_are_gensims_summary():
    assert str(Word2Vec()) == repr(Word2Vec()) == "Word2Vec<vocab=0, vector_size=100, alpha=0.025>"
    m = Word2Vec(SENTENCES, vector_size=20, alpha=0.05, min_count=1, workers=1, epochs=1, seed=1)
    assert repr(m) == str(m) == f"Word2Vec<vocab={len(m.wv)}, vector_size=20, alpha=0.05>" and len(m.wv) == 11


def test_the_summary_is_gensims_own():
    gensim = pytest.importorskip("gensim")
    kw = dict(vector_size=20, alpha=0.05, min_count=2, workers=1, epochs=1, seed=1)
    theirs = gensim.models.Word2Vec(SENTENCES, **kw)
    assert str(Word2Vec(SENTENCES, **kw)) == str(theirs)
    assert str(Word2Vec(vector_size=7)) == str(gensim.models.Word2Vec(vector_size=7))
