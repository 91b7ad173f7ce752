"""Quality against gensim trained on the same tokens with the same settings (bundled corpus).

The check is one-sided: w2v may score higher than gensim, never more than the
tolerance lower.  Scores are means over four seeds.

Both systems run on one thread, where each is deterministic for a given seed (checked:
the same seed twice gives identical scores), so the outcome does not depend on thread
scheduling.  With two threads the test flaked: per seed, WS-353 on this small corpus
moves by about 0.02-0.03 (standard deviation, measured over seeds 1-10 for each mode),
and a two-seed mean of gensim once landed 0.056 above w2v's in CI for CBOW with
hierarchical softmax, although over ten seeds w2v's mean is the higher (0.231 vs 0.199).
"""
import numpy as np
import pytest

from .conftest import BUNDLED, EVAL

gensim = pytest.importorskip("gensim")

SEEDS = (1, 2, 3, 4)
EPOCHS = 3


def common_questions(path, vocab_a, vocab_b, out):
    """Keep the analogy questions whose four words are in both vocabularies (lowercased)."""
    both = set(vocab_a) & set(vocab_b)
    lines = []
    for line in open(path, encoding="utf-8"):
        if line.startswith(":") or all(w.lower() in both for w in line.split()):
            lines.append(line)
    out.write_text("".join(lines), encoding="utf-8")
    return out


def test_common_questions_keep_sections_and_questions_both_vocabularies_answer(tmp_path):
    # the quick part of this module (-m "not slow"): the filter that makes the comparison fair
    src = tmp_path / "q.txt"
    src.write_text(": capital\nAthens Greece Paris France\nAthens Greece Oslo Norway\n: family\nboy girl man woman\n",
                   encoding="utf-8")
    out = common_questions(src, ["athens", "greece", "paris", "france", "oslo", "boy", "girl", "man", "woman"],
                           ["athens", "greece", "paris", "france", "oslo", "norway", "boy", "girl", "man"],
                           tmp_path / "kept.txt")
    assert out.read_text(encoding="utf-8") == ": capital\nAthens Greece Paris France\n: family\n"


@pytest.mark.slow
@pytest.mark.parametrize("model,hs,negative,exact",
                         [("sg", 0, 5, False), ("cbow", 0, 5, False), ("cbow", 1, 0, False), ("sg", 1, 0, False),
                          ("sg", 0, 5, True)],
                         ids=["sg-ns", "cbow-ns", "cbow-hs", "sg-hs", "sg-ns-exact"])
def test_quality_matches_gensim(tmp_path, model, hs, negative, exact):
    # exact: --exact, word2vec.c's per-pair negatives (the default shares them across a window)
    from gensim.models import KeyedVectors
    from gensim.models import Word2Vec as GensimWord2Vec

    from w2v import Word2Vec
    from w2v.text.scanning import iter_token_lines

    sentences, cur = [], []
    for toks, end in iter_token_lines([str(BUNDLED)], tokenizer="simple"):
        cur.extend(toks)
        if end:
            if cur:
                sentences.append(cur)
            cur = []
    # CBOW at word2vec.c's rate for it (0.05): at gensim's 0.025 three epochs leave it so
    # undertrained that WS-353 moves by +-0.03 from run to run
    settings = dict(window=5, negative=negative, hs=hs, sample=1e-3, min_count=5,
                    alpha=0.025 if model == "sg" else 0.05)
    scores = {"w2v": [], "gensim": []}
    for seed in SEEDS:
        g = GensimWord2Vec(sentences, vector_size=100, sg=int(model == "sg"), workers=1, epochs=EPOCHS,
                           seed=seed, **settings)
        m = Word2Vec(dim=100, model=model, threads=1, epochs=EPOCHS, seed=seed, tokenizer="simple", exact=exact,
                     **{**settings, "hs": bool(hs)}).train(str(BUNDLED))
        ours = KeyedVectors(100)
        ours.add_vectors(m.vocab.words, m.syn0)
        questions = common_questions(EVAL / "questions-words.txt", m.vocab.words, g.wv.index_to_key,
                                     tmp_path / f"q{seed}.txt")
        for name, kv in (("w2v", ours), ("gensim", g.wv)):
            acc = kv.evaluate_word_analogies(str(questions))[0]
            rho = kv.evaluate_word_pairs(str(EVAL / "wordsim353.tsv"))[1][0]
            scores[name].append((acc, rho))
    w_acc, w_rho = np.mean(scores["w2v"], axis=0)
    g_acc, g_rho = np.mean(scores["gensim"], axis=0)
    print(f"analogy w2v {w_acc:.4f} gensim {g_acc:.4f}; WS-353 w2v {w_rho:.3f} gensim {g_rho:.3f}")
    assert g_acc > 0.02, "gensim baseline unexpectedly weak: the comparison would say nothing"
    # a point below gensim, or a quarter of its score where that is more (seed noise on this
    # small corpus is about half a point; a broken noise distribution scored 1.5% against 5.3%)
    assert w_acc >= g_acc - max(0.01, 0.25 * g_acc)
    assert w_rho >= g_rho - 0.03
