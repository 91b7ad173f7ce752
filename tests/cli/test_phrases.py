"""``w2v phrases`` against word2vec.c's word2phrase, ``w2v train --phrases``, ``w2v eval --phrases-analogies``.

The word2phrase tests run the binary that PyPI's ``word2vec`` package builds (the test extra);
they skip where it is not installed.
"""
import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from w2v_cli.main import main

from ..conftest import EVAL


def run(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_one_line_error(res, pattern):
    assert res.exit_code == 1, res.output
    out = res.output.strip()
    assert "Traceback" not in out and len(out.splitlines()) == 1 and out.startswith("Error:"), out
    assert pattern in out, out


def word2phrase_binary():
    found = shutil.which("word2phrase")
    local = Path(sys.executable).parent / "word2phrase"
    return found or (str(local) if local.exists() else None)


WORD2PHRASE = word2phrase_binary()
needs_word2phrase = pytest.mark.skipif(WORD2PHRASE is None, reason="word2phrase is not installed "
                                       "(pip install word2vec, in the bench extra, builds it)")


def word2phrase(src, dst, passes=1, **options):
    """word2phrase run ``passes`` times, each on the output of the one before (in ``dst``'s folder,
    by short names: word2phrase holds a file name in 60 bytes)."""
    folder = Path(dst).parent
    shutil.copy(src, folder / "in.0")
    for k in range(passes):
        out = f"in.{k + 1}"
        args = [WORD2PHRASE, "-train", f"in.{k}", "-output", out, "-debug", "0"]
        for name, value in options.items():
            args += [f"-{name.replace('_', '-')}", str(value)]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, cwd=folder)
    os.replace(folder / f"in.{passes}", dst)


def tokens(path, cut=False):
    """The whitespace tokens of a file (bytes); ``cut``: word2phrase's view of each token, whose
    words of 59 bytes or more it cuts to 58 (its MAX_STRING), a deliberate difference."""
    with open(path, "rb") as f:
        return [t[:58] if cut else t for line in f for t in line.split()]


@pytest.fixture(scope="module")
def one_line(small_corpus, tmp_path_factory):
    """The small corpus as one text8-style line (with the final newline word2phrase needs)."""
    path = tmp_path_factory.mktemp("one") / "one-line.txt"
    path.write_text(" ".join(small_corpus.read_text(encoding="utf-8").split()) + "\n", encoding="utf-8")
    return path


@needs_word2phrase
@pytest.mark.parametrize("corpus", ["lines", "one-line"])
@pytest.mark.parametrize("passes", [1, 2])
def test_word2vec_scoring_writes_word2phrases_output(small_corpus, one_line, tmp_path, corpus, passes):
    src = small_corpus if corpus == "lines" else one_line
    word2phrase(src, tmp_path / "theirs.txt", passes, threshold=50)
    res = run(["phrases", src, "-o", tmp_path / "ours.txt", "--threshold", 50, "--passes", passes, "-q"])
    assert res.exit_code == 0, res.output
    ours, theirs = tokens(tmp_path / "ours.txt", cut=True), tokens(tmp_path / "theirs.txt")
    assert ours == theirs
    words = set(tokens(src))
    phrases = {t for t in ours if t not in words}
    assert phrases == {t for t in theirs if t not in words}
    assert len(phrases) > 50 * passes
    if passes == 2:
        assert any(t.count(b"_") >= 2 for t in phrases)
    if corpus == "lines":   # the lines are kept
        with open(tmp_path / "ours.txt", "rb") as a, open(src, "rb") as b:
            assert sum(1 for _ in a) == sum(1 for line in b if line.strip())


@needs_word2phrase
def test_word2phrase_drops_a_last_word_without_newline_and_w2v_does_not(tmp_path):
    src = tmp_path / "c.txt"
    src.write_text("new york is big " * 20 + "end")
    word2phrase(src, tmp_path / "theirs.txt", min_count=2, threshold=1)
    theirs = tokens(tmp_path / "theirs.txt")
    assert b"end" not in theirs
    assert run(["phrases", src, "-o", tmp_path / "ours.txt", "--min-count", 2, "--threshold", 1]).exit_code == 0
    ours = tokens(tmp_path / "ours.txt")
    assert ours[-1] == b"end" and ours[:-1] == theirs and b"new_york" in ours


def test_save_model_then_apply_gives_the_same_text(small_corpus, tmp_path):
    res = run(["phrases", small_corpus, "-o", tmp_path / "a.txt.gz", "--save-model", tmp_path / "m", "--passes", 2,
               "--scoring", "npmi", "--threshold", 0.3, "--connector-words", "english"])
    assert res.exit_code == 0, res.output
    assert "phrases, pass 2:" in res.output and "saved" in res.output
    res = run(["phrases", small_corpus, "-o", tmp_path / "b.txt", "--apply", tmp_path / "m", "-q"])
    assert res.exit_code == 0, res.output
    with gzip.open(tmp_path / "a.txt.gz", "rb") as f:
        a = f.read()
    assert a == (tmp_path / "b.txt").read_bytes()
    assert b"_of_" in a   # a phrase with a connector word inside
    res = run(["phrases", small_corpus, "--apply", tmp_path / "m", "-o", "-", "-q"])
    assert res.exit_code == 0 and res.stdout_bytes == a


@pytest.mark.parametrize("args, message", [
    (["--threshold", "-1"], "threshold must be >= 0 for word2vec scoring"),
    (["--scoring", "gensim", "--threshold", "0"], "threshold must be > 0 for gensim scoring"),
    (["--scoring", "npmi", "--threshold", "1.5"], "threshold must be in [-1, 1] for npmi scoring"),
    (["--scoring", "npmi", "--threshold", "-2"], "threshold must be in [-1, 1] for npmi scoring"),
    (["--min-count", "0"], "min_count must be an integer from 1"),
    (["--passes", "0"], "passes must be an integer from 1 to 10"),
    (["--max-table-size", "0"], "max_table_size must be an integer from 1"),
    (["--delimiter", " "], "--delimiter ' ' holds whitespace: the text -o writes would split its phrases again"),
    (["--connector-words", "of,,the"], "an empty word"),
    (["--apply", "no-such-model"], "no such phrase model"),
])
def test_bad_options_are_one_line_errors(small_corpus, tmp_path, args, message):
    res = run(["phrases", small_corpus, "-o", tmp_path / "o.txt", *args])
    assert_one_line_error(res, message)
    assert not (tmp_path / "o.txt").exists()


def test_a_delimiter_holding_whitespace_is_refused_only_where_a_phrase_cannot_be_written(small_corpus, tmp_path):
    res = run(["phrases", small_corpus, "--delimiter", " ", "--save-model", tmp_path / "m", "-q"])
    assert res.exit_code == 0, res.output
    from w2v.phrases.model import FrozenPhrases
    frozen = FrozenPhrases.load(tmp_path / "m")
    assert frozen.delimiter == " " and "Mr. Darcy" in frozen.phrasegrams
    assert_one_line_error(run(["phrases", small_corpus, "--apply", tmp_path / "m", "-o", tmp_path / "o.txt"]),
                          "--delimiter ' ' holds whitespace")
    res = run(["train", small_corpus, "--phrases", tmp_path / "m", "-o", tmp_path / "v.bin", "--epochs", 1, "-q"])
    assert_one_line_error(res, "cannot save word")
    assert "whitespace" in res.output and not (tmp_path / "v.bin").exists()
    res = run(["phrases", small_corpus, "--delimiter", "", "-o", tmp_path / "e.txt", "-q"])
    assert res.exit_code == 0 and "Mr.Darcy" in (tmp_path / "e.txt").read_text(encoding="utf-8")


def test_bad_corpus_and_outputs(small_corpus, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n \n")
    assert_one_line_error(run(["phrases", empty, "-o", tmp_path / "o.txt"]), "corpus is empty")
    assert_one_line_error(run(["phrases", tmp_path / "missing.txt", "-o", tmp_path / "o.txt"]), "missing.txt")
    assert_one_line_error(run(["phrases", small_corpus, "-o", small_corpus]), "is a corpus file")
    res = run(["phrases", small_corpus])
    assert res.exit_code == 2 and "--save-model" in res.output
    model = tmp_path / "m"
    model.mkdir()
    (model / "meta.json").write_text('{"format": "w2v-phrases", "version": 1, "kind": "frozen"}')
    assert_one_line_error(run(["phrases", small_corpus, "-o", tmp_path / "o.txt", "--apply", model]), "meta.json: bad")


def test_train_with_phrases_is_training_on_the_phrased_text(small_corpus, tmp_path):
    # joined on the id stream, the corpus gives the vocabulary, and at one thread the vectors,
    # of training on the text w2v phrases writes
    common = ["--threads", 1, "--epochs", 1, "--dim", 20, "--min-count", 3, "-q"]
    res = run(["phrases", small_corpus, "-o", tmp_path / "phrased.txt", "--passes", 2, "--save-model", tmp_path / "m"])
    assert res.exit_code == 0, res.output
    assert run(["train", tmp_path / "phrased.txt", "-o", tmp_path / "text.txt", "--text", *common]).exit_code == 0
    res = run(["train", small_corpus, "-o", tmp_path / "dir.txt", "--text", "--phrases", tmp_path / "m", *common])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "dir.txt").read_bytes() == (tmp_path / "text.txt").read_bytes()
    res = run(["train", small_corpus, "-o", tmp_path / "auto.txt", "--text", "--phrases", "auto", *common[:-1]])
    assert res.exit_code == 0, res.output
    assert "phrases, pass 2:" in res.output
    assert (tmp_path / "auto.txt").read_bytes() == (tmp_path / "text.txt").read_bytes()
    header = (tmp_path / "auto.txt").read_text(encoding="utf-8").split("\n")
    assert any("_" in line.split(" ")[0] for line in header[1:])


def test_train_phrases_errors(small_corpus, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    assert_one_line_error(run(["train", small_corpus, "--phrases", bad, "-o", tmp_path / "v.bin"]),
                          "meta.json: missing")
    res = run(["train", small_corpus, "--phrases", "auto", "--dask-workers", 1, "-o", tmp_path / "v.bin"])
    assert res.exit_code == 2 and "--phrases does not combine" in res.output


def test_build_vocab_phrases_options(small_corpus):
    from w2v import ParameterError, Word2Vec
    m = Word2Vec(min_count=3, epochs=1, threads=1)
    m.build_vocab(str(small_corpus), phrases={"passes": 1, "threshold": 20.0})
    assert any("_" in w for w in m.vocab.words)
    with pytest.raises(ParameterError, match="threshold must be in"):
        Word2Vec().build_vocab(str(small_corpus), phrases={"scoring": "npmi", "threshold": 3})
    with pytest.raises(ParameterError, match="phrases:"):
        Word2Vec().build_vocab(str(small_corpus), phrases={"thresold": 3})
    with pytest.raises(ParameterError, match="phrases must be 'auto'"):
        Word2Vec().build_vocab(str(small_corpus), phrases=3)


def test_sentences_with_phrases_train_as_the_files_with_phrases(small_corpus):
    # an iterable corpus is phrased on its id stream as files are: same vocabulary, same vectors at one thread
    from w2v import Word2Vec
    sentences = [line.split() for line in small_corpus.read_text(encoding="utf-8").splitlines() if line.split()]
    options = {"passes": 1, "threshold": 20.0}
    vectors = []
    for corpus in (str(small_corpus), sentences):
        m = Word2Vec(min_count=3, epochs=1, threads=1, dim=16)
        m.train(corpus, phrases=options)
        vectors.append((m.vocab.words, m.syn0))
    assert any("_" in w for w in vectors[0][0])
    assert vectors[0][0] == vectors[1][0]
    np.testing.assert_array_equal(vectors[0][1], vectors[1][1])


def test_eval_phrases_analogies(small_corpus, tmp_path):
    res = run(["train", small_corpus, "-o", tmp_path / "v.bin", "--epochs", 1, "--phrases", "auto", "-q"])
    assert res.exit_code == 0, res.output
    res = run(["eval", tmp_path / "v.bin", "--phrases-analogies", "--json"])
    assert res.exit_code == 0, res.output
    import json
    files = [os.path.basename(a["file"]) for a in json.loads(res.output)["analogies"]]
    assert files == ["questions-words.txt", "questions-phrases.txt"]
    res = run(["eval", tmp_path / "v.bin", "--phrases-analogies", "--analogies",
               EVAL / "questions-words.txt"])
    assert res.exit_code == 0 and "questions-phrases.txt" in res.output and "wordsim" not in res.output


def test_phrases_from_stdin_and_folders(small_corpus, tmp_path):
    folder = tmp_path / "texts"
    folder.mkdir()
    shutil.copy(small_corpus, folder / "a.txt")
    res = run(["phrases", folder, "-o", tmp_path / "f.txt", "-q"])
    assert res.exit_code == 0, res.output
    direct = run(["phrases", small_corpus, "-o", tmp_path / "d.txt", "-q"])
    assert direct.exit_code == 0
    assert np.array_equal(np.frombuffer((tmp_path / "f.txt").read_bytes(), np.uint8),
                          np.frombuffer((tmp_path / "d.txt").read_bytes(), np.uint8))
    res = CliRunner().invoke(main, ["phrases", "-", "-o", str(tmp_path / "s.txt"), "-q"],
                             input=small_corpus.read_bytes())
    assert res.exit_code == 0, res.output
    assert (tmp_path / "s.txt").read_bytes() == (tmp_path / "d.txt").read_bytes()
