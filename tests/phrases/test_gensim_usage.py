"""Code written for gensim's Phrases runs on w2v with only the import changed
(tests/support/gensim_usage_phrases.py)."""
import json
import lzma
import subprocess
import sys

import pytest

from ..conftest import BUNDLED, ROOT

gensim = pytest.importorskip("gensim")

SCRIPT = ROOT / "tests" / "support" / "gensim_usage_phrases.py"
GENSIM_IMPORT = "from gensim.models import Word2Vec, phrases  # the line that changes\n"
W2V_IMPORT = "from w2v import Word2Vec, phrases  # the line that changes\n"
LINES = 4000   # ~180k words of the bundled corpus


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("usage-phrases")
    corpus = tmp / "corpus.txt"
    with lzma.open(BUNDLED, "rt", encoding="utf-8") as src, open(corpus, "w", encoding="utf-8") as dst:
        for i, line in enumerate(src):
            if i >= LINES:
                break
            dst.write(line)
    text = SCRIPT.read_text(encoding="utf-8")
    assert text.count(GENSIM_IMPORT) == 1
    results = {}
    for name, source in (("gensim", text), ("w2v", text.replace(GENSIM_IMPORT, W2V_IMPORT))):
        script = tmp / f"usage_{name}.py"
        script.write_text(source, encoding="utf-8")
        work = tmp / f"work-{name}"
        work.mkdir()
        run = subprocess.run([sys.executable, str(script), str(corpus), str(work)], capture_output=True, text=True,
                             cwd=ROOT, timeout=600)
        assert run.returncode == 0, run.stderr[-3000:]
        results[name] = json.loads(run.stdout.strip().splitlines()[-1])
    return results


def test_the_script_gets_gensims_outcomes_on_w2v(outcomes):
    theirs, ours = outcomes["gensim"], outcomes["w2v"]
    assert ours.keys() == theirs.keys()
    for key in theirs:
        assert ours[key] == theirs[key], key


def test_the_outcomes_are_not_empty(outcomes):
    ours = outcomes["w2v"]
    assert len(ours["export_phrases"]) > 50 and len(ours["find_phrases"]) > 50
    assert ours["export_kinds"] == ours["find_kinds"] == ["str:float"]
    assert ours["phrased_read_twice"] == [LINES, True]
    assert ours["word2vec_positional"][1] == LINES and len(ours["word2vec_positional"][2]) > 20
    assert ours["trigram_phrases"] and ours["space_delimiter"] and ours["scoring_function"]
    assert ours["bounded_add_vocab"][1] > 1   # the bound pruned
    assert ours["frozen_loaded"] and ours["counts_loaded"][1]
