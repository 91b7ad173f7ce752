"""Code written for gensim's Word2Vec runs on w2v with only the import changed (tests/support/gensim_usage.py)."""

import pytest

from ..support.import_swap import bundled_head, outcomes_on_both
from ..conftest import BUNDLED, EVAL, ROOT

gensim = pytest.importorskip("gensim")
scipy_stats = pytest.importorskip("scipy.stats")

SCRIPT = ROOT / "tests" / "support" / "gensim_usage.py"
GENSIM_IMPORT = "from gensim.models import Word2Vec, phrases  # the line that changes\n"
W2V_IMPORT = "from w2v import Word2Vec, phrases  # the line that changes\n"
LINES = 8000   # ~360k words of the bundled corpus


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("usage")
    corpus = bundled_head(BUNDLED, tmp / "corpus.txt", LINES)
    return outcomes_on_both(SCRIPT, GENSIM_IMPORT, W2V_IMPORT, tmp,
                            [corpus, EVAL / "questions-words.txt", EVAL / "wordsim353.tsv"], cwd=ROOT)


def test_the_script_runs_on_both_and_gets_results_of_the_same_kinds(outcomes):
    theirs, ours = outcomes["gensim"], outcomes["w2v"]
    assert ours.keys() == theirs.keys()
    for key in ("line_sentence_vocab", "corpus_count", "corpus_total_words", "train_returns", "vocab", "vector",
                "most_similar", "similarity_kind", "analogy_kind", "wordsim_kind", "predict_output_word",
                "callback_events", "losses_grow", "epoch_saves_load", "loaded_vocab", "online_added",
                "online_corpus_count", "vectors_file_lines", "summary_before_vocab", "summary",
                "doesnt_match_unknown", "phrased", "tempfile", "tempfile_again"):
        assert ours[key] == theirs[key], key
    assert ours["losses_grow"] and ours["epoch_saves_load"] and ours["online_added"][:2] == [True, True]


def test_what_gensims_users_see_of_files_messages_and_summaries(outcomes):
    ours = outcomes["w2v"]
    # a model saved to NamedTemporaryFile's name is that one file, loads whole, and is replaced by a later save
    assert ours["tempfile"] == [True, 1, True, True, True] and ours["tempfile_again"] == [2, 1]
    # doesnt_match logs the words it ignores, at WARNING, and prints nothing unasked
    assert ours["doesnt_match_unknown"] == ["", [["WARNING", "vectors for words {'cereal'} are not present in the "
                                                              "model, ignoring these words"]]]
    assert ours["summary"] == f"Word2Vec<vocab={ours['vocab']}, vector_size=50, alpha=0.025>"
    assert ours["summary_before_vocab"] == "Word2Vec<vocab=0, vector_size=50, alpha=0.025>"
    # frozen[MyCorpus()] is read again at every pass and joins phrases
    assert ours["phrased"][0] > 0 and ours["phrased"][2]


def test_the_quality_is_gensims_within_bounds(outcomes):
    theirs, ours = outcomes["gensim"], outcomes["w2v"]
    assert abs(ours["analogy_score"] - theirs["analogy_score"]) <= 0.03
    assert abs(ours["wordsim_spearman"] - theirs["wordsim_spearman"]) <= 0.2   # 360k words: WS-353 is noise here
    assert ours["similar_pairs"] > 0.1 and abs(ours["similar_pairs"] - theirs["similar_pairs"]) <= 0.15
    pairs = sorted(theirs["probe_similarities"].keys() & ours["probe_similarities"].keys())
    assert len(pairs) > 100
    rho = scipy_stats.spearmanr([theirs["probe_similarities"][p] for p in pairs],
                                [ours["probe_similarities"][p] for p in pairs])[0]
    assert rho > 0.5   # the two models rank the pairs of common words alike
