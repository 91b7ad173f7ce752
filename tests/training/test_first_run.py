"""A new user's first run: the kernels' compilation is announced and timed apart, raw text gets a hint.

The kernels here are cached, so the compilation is that of small functions made for the test
(Numba's events are the same); ``tests/test_install.py`` runs a real first compilation.
"""
import io
import threading
import time

import numpy as np
import pytest
from click.testing import CliRunner
from numba import njit

from w2v.training.progress import COMPILING, KernelWatch
from w2v_cli.main import main
from w2v_cli.train import tokenizer_hint



def read_then_signal(monkeypatch):
    """An event set once the corpus has been read and encoded: a stand-in kernel load that waits for it
    outlasts the read by a known time, whatever the machine's load."""
    import w2v.model.reader

    done = threading.Event()
    prepare = w2v.model.reader.CorpusReader.prepare

    def prepare_and_signal(*args, **kwargs):
        result = prepare(*args, **kwargs)
        done.set()
        return result

    monkeypatch.setattr(w2v.model.reader.CorpusReader, "prepare", prepare_and_signal)
    return done

def fresh_function():
    """A Numba function compiled on its first call (not cached)."""
    @njit(cache=False)
    def f(x):
        return np.sum(x * 2.0) + 1.0
    return f


def test_a_compilation_is_announced_once_and_timed():
    said = []
    f = fresh_function()
    with KernelWatch(on_compile=lambda: said.append(COMPILING)) as watch:
        f(np.ones(3))
        f(np.ones(3))
        fresh_function()(np.ones(3))   # a second compilation: still one message
    assert said == [COMPILING] and watch.compiled and watch.compile_seconds > 0
    with KernelWatch(on_compile=lambda: said.append("again")) as watch:
        f(np.ones(3))                  # compiled already: nothing to say
    assert said == [COMPILING] and not watch.compiled and watch.compile_seconds == 0


def test_the_wait_for_a_compilation_in_another_thread_is_counted():
    # a compilation holds Numba's compiler lock: the thread that needs it waits, and that time
    # is the kernels', not its own phase's
    g = fresh_function()
    with KernelWatch() as watch:
        t = threading.Thread(target=lambda: fresh_function()(np.ones(3)))
        t.start()
        time.sleep(0.05)
        g(np.ones(3))                  # compiles too, after or while the other thread does
        watch.wait(t)
    assert watch.compiled and watch.waited > 0


def small_model(**settings):
    from w2v import Word2Vec
    return Word2Vec(dim=8, epochs=1, threads=1, min_count=1, **settings)


def test_build_vocab_says_when_the_kernels_compile_and_times_them_apart(small_corpus, monkeypatch):
    # the first run was silent for ~25 s and its summary gave the compilation to the vocabulary
    # ("encoded corpus in memory (26.3s)"); here the background kernel load compiles a function
    # and then takes 1.5 s more
    import w2v.model.reader

    read = read_then_signal(monkeypatch)

    def loader(settings):
        def load():
            fresh_function()(np.ones(3))
            read.wait(60)      # the load outlasts the corpus read by 1.5 s, however long the read takes
            time.sleep(1.5)
        t = threading.Thread(target=load, daemon=True)
        t.start()
        return t

    monkeypatch.setattr(w2v.model.reader, "start_kernel_load", loader)
    stream = io.StringIO()
    t0 = time.perf_counter()
    m = small_model().build_vocab([str(small_corpus)], quiet=False, progress_stream=stream)
    total = time.perf_counter() - t0
    lines = stream.getvalue().splitlines()
    assert lines.count(COMPILING) == 1 and lines.index(COMPILING) == 0, lines
    assert sum(line.startswith("compiled the training kernels in ") for line in lines) == 1, lines
    assert m.timings["kernel_load_seconds"] >= 1.4
    assert m.timings["vocab_seconds"] <= total - 1.4
    vocab_line = next(line for line in lines if line.startswith("vocabulary:"))
    assert vocab_line.endswith(f"({m.timings['vocab_seconds']:.1f}s)")


def test_a_cached_kernel_load_says_nothing(small_corpus):
    stream = io.StringIO()
    small_model().build_vocab([str(small_corpus)], quiet=False, progress_stream=stream)   # loads (may compile)
    stream = io.StringIO()
    m = small_model().build_vocab([str(small_corpus)], quiet=False, progress_stream=stream)
    assert "compil" not in stream.getvalue()
    assert m.timings["kernel_load_seconds"] < 5


def test_the_report_counts_the_kernel_load_beside_the_corpus_read(small_corpus, tmp_path, monkeypatch):
    import json

    import w2v.model.reader

    read = read_then_signal(monkeypatch)

    def loader(settings):
        t = threading.Thread(target=lambda: (read.wait(60), time.sleep(1.0)), daemon=True)
        t.start()
        return t

    monkeypatch.setattr(w2v.model.reader, "start_kernel_load", loader)
    rep = tmp_path / "r.json"
    res = CliRunner().invoke(main, ["train", str(small_corpus), "-o", str(tmp_path / "v.bin"), "--dim", "8",
                                    "--epochs", "1", "--threads", "1", "-q", "--report-json", str(rep)])
    assert res.exit_code == 0, res.output
    report = json.loads(rep.read_text())
    assert report["kernel_load_seconds"] >= 0.9
    assert report["vocab_seconds"] + report["kernel_load_seconds"] <= report["total_seconds"]


# --------------------------------------------------------------------------- the tokenizer hint

RAW = ["the", "of", "and", "The", "it,", "it", "king", "King", "sea;", "sea", "him.", "him"] + \
    [f"w{i}" for i in range(200)]


def test_the_hint_names_punctuation_and_case_twins():
    hint = tokenizer_hint(RAW)
    assert hint == ("hint: among the 212 most frequent words, 3 carry punctuation ('it,', 'sea;', 'him.') and "
                    "2 are capitalized twins ('The', 'King'); for raw text, try --tokenizer simple --lowercase")
    assert "\n" not in hint


@pytest.mark.parametrize("words", [
    [w.lower().strip(",;.") for w in RAW],             # tokenized, lower case: nothing to say
    ["the", ",", ".", "King", "Paris", "“"] + [f"w{i}" for i in range(200)],   # punctuation as tokens, no twins
    RAW[:12] + [f"w{i}" for i in range(60)],           # fewer than 100 words
    ["the", "The"] + [f"w{i}" for i in range(200)],    # one twin among 202: under 2%
], ids=["clean", "separate-punctuation", "small", "few"])
def test_no_hint_where_the_words_are_already_clean(words):
    assert tokenizer_hint(words) is None


def test_train_prints_the_hint_once_for_raw_text_with_the_default_tokenizer(small_corpus, tmp_path):
    args = ["train", str(small_corpus), "-o", str(tmp_path / "v.bin"), "--dim", "8", "--epochs", "1",
            "--threads", "1"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    hints = [line for line in res.stderr.splitlines() if line.startswith("hint: ")]
    assert len(hints) == 1 and hints[0].endswith("for raw text, try --tokenizer simple --lowercase"), hints
    for chosen in (["--tokenizer", "whitespace"], ["--tokenizer", "simple", "--lowercase"], ["-q"]):
        res = CliRunner().invoke(main, args + chosen)
        assert res.exit_code == 0, res.output
        assert "hint:" not in res.stderr, chosen
