"""Code written for gensim's Phrases runs on w2v with only the import changed
(tests/support/gensim_usage_phrases.py)."""

import pytest

from ..support.import_swap import bundled_head, outcomes_on_both
from ..conftest import BUNDLED, ROOT

gensim = pytest.importorskip("gensim")

SCRIPT = ROOT / "tests" / "support" / "gensim_usage_phrases.py"
GENSIM_IMPORT = "from gensim.models import Word2Vec, phrases  # the line that changes\n"
W2V_IMPORT = "from w2v import Word2Vec, phrases  # the line that changes\n"
LINES = 4000   # ~180k words of the bundled corpus


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("usage-phrases")
    corpus = bundled_head(BUNDLED, tmp / "corpus.txt", LINES)
    return outcomes_on_both(SCRIPT, GENSIM_IMPORT, W2V_IMPORT, tmp, [corpus], cwd=ROOT)


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
