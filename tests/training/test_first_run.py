"""A new user's first run: the kernels' compilation is announced and timed apart, raw text gets a hint.

The kernels here are cached, so the compilation is that of small functions made for the test
(Numba's events are the same); ``tests/test_install.py`` runs a real first compilation.
"""
import io
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from numba import njit

from w2v.training.progress import KernelWatch, compiling_line
from w2v_cli.main import main
from w2v_cli.train import tokenizer_hint

from ..conftest import ROOT



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

COMPILING = compiling_line("training")   # "compiling the training kernels (once) ..."


def fresh_function(module=None):
    """A Numba function compiled on its first call (not cached), defined in ``module`` if given."""
    def f(x):
        return np.sum(x * 2.0) + 1.0
    if module is not None:
        f.__module__ = module
    return njit(cache=False)(f)


def test_a_compilation_is_announced_once_and_timed():
    said = []
    f = fresh_function()
    with KernelWatch(on_compile=said.append) as watch:
        f(np.ones(3))
        f(np.ones(3))
        fresh_function()(np.ones(3))   # a second compilation: still one message
    assert said == ["compiling the training kernels (once) ..."] and watch.compiled and watch.compile_seconds > 0
    assert watch.compiled_line().startswith("compiled the training kernels in ")
    with KernelWatch(on_compile=said.append) as watch:
        f(np.ones(3))                  # compiled already: nothing to say
    assert said == [COMPILING] and not watch.compiled and watch.compile_seconds == 0


def test_the_compile_line_names_the_kernels_that_compile():
    # with the training kernels cached, the first `train --phrases` said "compiling the training kernels
    # (once) ... compiled in 0.1s": it was a phrase kernel that compiled
    said = []
    with KernelWatch(on_compile=said.append) as watch:
        fresh_function("w2v.kernels.phrases")(np.ones(3))
    assert said == ["compiling the phrase kernels (once) ..."] and watch.compiled_groups == ["phrase"]
    assert watch.compiled_line().startswith("compiled the phrase kernels in ")
    with KernelWatch(on_compile=said.append) as watch:
        fresh_function("w2v.kernels.phrases")(np.ones(3))
        fresh_function("w2v.kernels.cpu")(np.ones(3))
    assert said[1:] == ["compiling the phrase kernels (once) ...", "compiling the training kernels (once) ..."]
    assert watch.compiled_line().startswith("compiled the phrase and training kernels in ")


def test_a_function_compiled_within_a_kernel_counts_as_that_kernels():
    # Numba compiles the functions a kernel calls within its compilation (their own events)
    inner = fresh_function("w2v.kernels.cpu")

    def outer(x):
        return inner(x) + 1.0
    outer.__module__ = "w2v.kernels.phrases"
    said = []
    with KernelWatch(on_compile=said.append) as watch:
        njit(cache=False)(outer)(np.ones(3))
    assert said == ["compiling the phrase kernels (once) ..."] and watch.compiled_groups == ["phrase"]


CACHED_MODULE = """
from numba import njit

@njit(cache=True)
def add_one(x):
    return x + 1
"""


def test_loading_another_signature_from_the_cache_is_no_compilation(tmp_path):
    # what KernelWatch counts: Numba's compile event, which a cache load never fires
    (tmp_path / "cached_module.py").write_text(CACHED_MODULE)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=os.pathsep.join(
        [str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-c", "from cached_module import add_one; add_one(1); add_one(1.0)"],
                   env=env, check=True, timeout=300)
    probe = ("from cached_module import add_one\n"
             "from w2v.training.progress import KernelWatch\n"
             "add_one(1)\n"
             "with KernelWatch() as w:\n"
             "    add_one(1.0)\n"
             "print(w.compiled)\n"
             "with KernelWatch() as w:\n"
             "    add_one(1j)\n"
             "print(w.compiled)\n")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]   # the cached float signature loads; a complex one compiles


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


def test_ctrl_c_during_the_first_compilation_ends_the_command_at_once(small_corpus, tmp_path):
    # Ctrl-C while the training kernel compiled in its thread took the rest of the compilation (20 s
    # to 90 s) to be honoured: the interrupted corpus read waited for the kernel load on its way out
    from w2v.kernels.cpu import train_tokens

    cache = tmp_path / "numba-cache"   # empty: every kernel compiles
    out = tmp_path / "out"
    out.mkdir()
    # SIGINT as a terminal's Ctrl-C sends it, even where the tests run as a background job (which ignores it)
    cmd = [sys.executable, "-c", "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
           "from w2v_cli.main import main; main()", "train", str(small_corpus), "-o", str(out / "v.bin"),
           "--dim", "8", "--epochs", "1", "--threads", "1"]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env=dict(os.environ, NUMBA_CACHE_DIR=str(cache)))
    try:
        said = []
        for line in proc.stderr:
            said.append(line.rstrip("\n"))
            if line.startswith("compiling "):
                break
        assert said and said[-1].startswith("compiling "), said
        proc.send_signal(signal.SIGINT)
        rest = proc.stderr.read()
        proc.wait(timeout=300)   # a guard against a hang, not a timing
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and rest.splitlines() == ["interrupted"], rest
    assert os.listdir(out) == []
    # the command ended before the compiler did: Numba never cached the training kernel it was compiling
    kernel = f"{Path(train_tokens.py_func.__code__.co_filename).stem}.{train_tokens.py_func.__qualname__}-"
    assert cache.is_dir() and not [p.name for p in cache.rglob(kernel + "*.nbi")]


# --------------------------------------------------------------------------- the phrase kernels
def test_the_phrase_kernels_load_for_every_signature_the_phrase_work_calls(small_corpus, tmp_path):
    # loaded at once when a phrase model is made, they are all there is: no phrase work loads or
    # compiles another signature later (the first phrases[sentence] took 1.4 s, or compiled)
    from w2v.kernels import phrases as kernels
    from w2v.phrases.corpus import learn_passes
    from w2v.phrases.kernel_load import kernel_signatures, load_phrase_kernels
    from w2v.phrases.model import ENGLISH_CONNECTOR_WORDS, Phrases, load_phrases, original_scorer
    from w2v.text.scanning import scan_corpus

    load_phrase_kernels()
    sentences = [line.split() for line in small_corpus.read_text(encoding="utf-8").splitlines()[:800]]
    for options in (dict(), dict(scoring="npmi", threshold=0.5, connector_words=ENGLISH_CONNECTOR_WORDS),
                    dict(scoring=original_scorer, threshold=5.0, threads=2),   # a function, gensim's
                    dict(max_vocab_size=2000, connector_words=ENGLISH_CONNECTOR_WORDS)):
        model = Phrases(sentences, min_count=3, **options)
        frozen = model.freeze()
        for phrases in (model, frozen):
            assert isinstance(phrases[sentences[0]], list) and list(phrases[sentences[:5]])
            phrases.find_phrases(sentences[:50])
            phrases.export_phrases()
            phrases.save(tmp_path / "m")
            load_phrases(tmp_path / "m")[sentences[1]]
    scanned = scan_corpus([str(small_corpus)])
    learn_passes(scanned.stream, scanned.words, frozen.settings, 2, threads=2, join_last=True)
    scanned.stream.close()
    res = CliRunner().invoke(main, ["train", str(small_corpus), "--phrases", "auto", "-o", str(tmp_path / "v.bin"),
                                    "--dim", "8", "--epochs", "1", "--threads", "1", "-q"])
    assert res.exit_code == 0, res.output
    for name, signature in kernel_signatures().items():
        assert set(getattr(kernels, name).overloads) == {signature}, name


@pytest.mark.slow
def test_with_the_training_kernels_cached_train_phrases_says_the_phrase_kernels_compile(small_corpus, tmp_path):
    # the order: `w2v train`, then the first `w2v train --phrases`, with a fresh Numba cache
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    args = [sys.executable, "-m", "w2v_cli.main", "train", str(small_corpus), "--dim", "8", "--epochs", "1",
            "--threads", "1"]
    runs = [subprocess.run(args + ["-o", str(tmp_path / f"v{k}.bin"), *extra], capture_output=True, text=True,
                           cwd=ROOT, env=env, timeout=1200)
            for k, extra in enumerate([[], ["--phrases", "auto"], ["--phrases", "auto"]])]
    assert all(r.returncode == 0 for r in runs), [r.stderr[-2000:] for r in runs]
    first, phrases, again = (r.stderr.splitlines() for r in runs)
    assert first[0] == "compiling the training kernels (once) ..." and "phrase" not in runs[0].stderr
    assert phrases[0] == "compiling the phrase kernels (once) ..." and "training kernels" not in runs[1].stderr
    assert phrases[1].startswith("compiled the phrase kernels in "), phrases
    assert "compil" not in runs[2].stderr


PHRASES_FIRST_CALL = """
import logging, sys
logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(name)s: %(message)s")
from w2v.kernels import phrases as kernels
from w2v.phrases.model import ENGLISH_CONNECTOR_WORDS, Phrases
sentences = [["new", "york", "is", "big"], ["i", "love", "new", "york"], ["bank", "of", "america"]] * 50
model = Phrases(sentences, min_count=1, threshold=0.1, connector_words=ENGLISH_CONNECTOR_WORDS)
loaded = {name: len(f.overloads) for name, f in vars(kernels).items() if hasattr(f, "overloads")}
print(model[["i", "love", "new", "york", "bank", "of", "america"]])
print(model.freeze()[["bank", "of", "america"]])
print({name: len(f.overloads) for name, f in vars(kernels).items() if hasattr(f, "overloads")} == loaded)
"""


def test_the_first_phrases_call_finds_its_kernels_loaded_and_the_load_is_logged():
    out = subprocess.run([sys.executable, "-c", PHRASES_FIRST_CALL], capture_output=True, text=True, cwd=ROOT,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert re.fullmatch(r"w2v\.phrases\.kernel_load: (loaded the phrase kernels from the cache in|compiled the "
                        r"phrase kernels in) \d+\.\ds.*", lines[0]), lines
    assert lines[1:] == ["['i_love', 'new_york', 'bank_of_america']", "['bank_of_america']", "True"], lines


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
