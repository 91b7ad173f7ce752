"""Code written for gensim's KeyedVectors runs on w2v with only the import changed
(tests/support/gensim_usage_vectors.py)."""

import pytest

from ..support.import_swap import outcomes_on_both
from ..conftest import ROOT

gensim = pytest.importorskip("gensim")

SCRIPT = ROOT / "tests" / "support" / "gensim_usage_vectors.py"
GENSIM_IMPORT = "from gensim.models import KeyedVectors  # the line that changes\n"
W2V_IMPORT = "from w2v import KeyedVectors  # the line that changes\n"


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("usage_vectors")
    return outcomes_on_both(SCRIPT, GENSIM_IMPORT, W2V_IMPORT, tmp, [], cwd=ROOT, timeout=300)


def test_the_script_gets_gensims_outcomes_on_w2v(outcomes):
    theirs, ours = outcomes["gensim"], outcomes["w2v"]
    assert ours.keys() == theirs.keys()
    for key in sorted(theirs.keys() - {"repr"}):
        assert ours[key] == theirs[key], key


def test_the_outcomes_are_the_ones_gensim_documents(outcomes):
    ours = outcomes["w2v"]
    n = 30
    assert ours["built"][:3] == [n, 20, "float32"] and ours["str"] == "KeyedVectors<vector_size=20, 30 keys>"
    assert ours["reserved"] == [n, [None, None], 0.0] and ours["rows"] == list(range(n))
    assert ours["reserved_filled"][:3] == [True, True, True]
    assert ours["float16"][:3] == ["float16"] * 3 and ours["datatype_float64"][:2] == ["float64"] * 2
    assert ours["loaded_counts"] == [n, n - 1, 1] and ours["limited_counts"] == list(range(10, 0, -1))
    assert ours["vectors_for_all"] == [["japan", "king"], [1, n]]
    assert ours["vocab_file"] == ["king 30", "queen 29", "man 28"] and ours["fvocab_counts"] == [n, 1]
    assert ours["no_header"] == [True, True]
    assert ours["trailing_whitespace"] == [["alpha", "beta", "gamma"], [[1, 2], [3, 4], [5, 6]]]
    assert ours["unicode_error"] == ["utf-8", "invalid start byte", 3]
    assert ours["unicode_replace"] == ["alpha", "bet\ufffd"]


def test_repr_is_gensims_str(outcomes):
    theirs, ours = outcomes["gensim"], outcomes["w2v"]
    assert theirs["repr"].startswith("<gensim.models.keyedvectors.KeyedVectors object at ")   # object's repr
    assert ours["repr"] == ours["str"] == theirs["str"]
