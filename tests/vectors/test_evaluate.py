"""Analogy and word-pair evaluation: identical results to gensim on the same vectors."""
import itertools
import lzma
import math

import numpy as np
import pytest

from w2v.vectors import evaluate as ev
from w2v.errors import FormatError, ParameterError, VocabularyError
from w2v.vectors.evaluate import default_eval_paths, evaluate_word_analogies, evaluate_word_pairs
from w2v.vectors.keyed import KeyedVectors

from ..conftest import ROOT

EVAL = ROOT / "data" / "eval"
QUESTIONS = EVAL / "questions-words.txt"
WORDSIM = EVAL / "wordsim353.tsv"
SIMLEX = EVAL / "simlex999.txt"


def gensim_cosmul_answer(g, a, b, c):
    """gensim's 3CosMul answer to ``a : b :: c : ?``: its best word other than the three (or its 5th)."""
    predicted = None
    for word, _ in g.most_similar_cosmul(positive=[b, c], negative=[a], topn=5):
        predicted = word
        if word not in (a, b, c):
            break
    return predicted


@pytest.fixture(scope="module")
def trained():
    """gensim Word2Vec (1 epoch, one worker, fixed seed) on the start of the bundled corpus."""
    gensim = pytest.importorskip("gensim")
    from gensim.utils import simple_preprocess

    with lzma.open(ROOT / "data" / "corpus-small.txt.xz", "rt", encoding="utf-8") as f:
        sentences = [simple_preprocess(line) for line in itertools.islice(f, 3000)]
    model = gensim.models.Word2Vec(sentences, vector_size=40, min_count=2, workers=1, seed=7, epochs=1,
                                   window=5)
    g = model.wv
    return g, KeyedVectors(list(g.index_to_key), g.vectors)


@pytest.fixture(scope="module")
def mixed_case(trained):
    """The trained vectors with some words upper-cased (case variants share an upper-case form)."""
    g, kv = trained
    words = list(kv.index_to_key)
    rng = np.random.default_rng(0)
    for i in rng.choice(len(words), size=len(words) // 5, replace=False):
        cand = words[i].capitalize() if i % 2 else words[i].upper()
        if cand not in words:
            words[i] = cand
    mk = KeyedVectors(words, kv.vectors)
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    gm = gensim_kv.KeyedVectors(kv.vector_size)
    gm.add_vectors(words, np.array(kv.vectors))
    return gm, mk


def sections_equal(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a["section"] == b["section"]
        assert a["correct"] == b["correct"], a["section"]
        assert a["incorrect"] == b["incorrect"], a["section"]


def test_default_eval_paths():
    paths = default_eval_paths()
    assert paths["analogies"] == [QUESTIONS]
    assert paths["pairs"] == [WORDSIM, SIMLEX]
    assert all(p.is_file() for p in paths["analogies"] + paths["pairs"])


@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(restrict_vocab=1500),
    dict(dummy4unknown=True),
    dict(case_insensitive=False, restrict_vocab=4000),
])
def test_analogies_identical_to_gensim(trained, kwargs):
    g, kv = trained
    gscore, gsections = g.evaluate_word_analogies(str(QUESTIONS), **kwargs)
    score, sections = kv.evaluate_word_analogies(QUESTIONS, **kwargs)
    sections_equal(sections, gsections)
    assert score == gscore
    total = sections[-1]
    assert total["section"] == "Total accuracy"
    assert len(total["correct"]) + len(total["incorrect"]) > 100  # a real test, not an empty one
    n_questions = sum(1 for line in QUESTIONS.read_text().splitlines() if not line.startswith(":"))
    answered = len(total["correct"]) + len(total["incorrect"])
    if kwargs.get("dummy4unknown"):
        assert answered == n_questions
    else:
        assert answered + len(total["oov"]) == n_questions


def test_analogies_case_variants_identical_to_gensim(mixed_case):
    g, kv = mixed_case
    for kwargs in (dict(), dict(restrict_vocab=2000)):
        gscore, gsections = g.evaluate_word_analogies(str(QUESTIONS), **kwargs)
        score, sections = kv.evaluate_word_analogies(QUESTIONS, **kwargs)
        sections_equal(sections, gsections)
        assert score == gscore


def test_analogies_do_not_call_most_similar(trained, monkeypatch):
    g, kv = trained

    def forbidden(*args, **kwargs):
        raise AssertionError("per-question most_similar call")

    monkeypatch.setattr(KeyedVectors, "most_similar", forbidden)
    score, sections = kv.evaluate_word_analogies(QUESTIONS, restrict_vocab=3000)
    assert 0.0 <= score <= 1.0
    assert evaluate_word_analogies(kv, QUESTIONS, restrict_vocab=3000) == (score, sections)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_analogies_3cosmul_match_gensim_cosmul(trained, tmp_path):
    g, kv = trained
    # questions whose words are all in the (lower-case) vocabulary, case-sensitively
    lines, questions = [], []
    for line in QUESTIONS.read_text().lower().splitlines():
        if line.startswith(":"):
            lines.append(line)
            continue
        words = line.split()
        if all(w in kv for w in words) and len(questions) < 150:
            lines.append(line)
            questions.append(words)
    path = tmp_path / "q.txt"
    path.write_text("\n".join(lines) + "\n")
    score, sections = kv.evaluate_word_analogies(path, case_insensitive=False, method="3cosmul",
                                                 restrict_vocab=None)
    expected = [gensim_cosmul_answer(g, a, b, c) == d for a, b, c, d in questions]
    got = sections[-1]
    assert len(got["correct"]) == sum(expected)
    assert [tuple(q) for q, ok in zip(questions, expected) if ok] == got["correct"]


def test_analogy_file_errors(tmp_path, trained):
    _, kv = trained
    p = tmp_path / "q.txt"
    p.write_text("man woman king queen\n")
    with pytest.raises(FormatError, match="line 1"):
        kv.evaluate_word_analogies(p)
    p.write_text("")
    with pytest.raises(FormatError, match="no analogy"):
        kv.evaluate_word_analogies(p)
    p.write_text(": only-oov\nqqq www eee rrr\n: empty\n")
    score, sections = kv.evaluate_word_analogies(p)
    assert score == 0.0 and [s["section"] for s in sections] == ["only-oov", "empty", "Total accuracy"]
    assert sections[0]["oov"] == [("QQQ", "WWW", "EEE", "RRR")]
    with pytest.raises(ParameterError):
        kv.evaluate_word_analogies(p, method="3cosfoo")
    with pytest.raises(FileNotFoundError):
        kv.evaluate_word_analogies(tmp_path / "missing.txt")


@pytest.mark.parametrize("path", [WORDSIM, SIMLEX])
@pytest.mark.parametrize("kwargs", [dict(), dict(restrict_vocab=1000), dict(dummy4unknown=True),
                                    dict(case_insensitive=False)])
def test_word_pairs_identical_to_gensim(trained, path, kwargs):
    g, kv = trained
    (gp, gpp), (gs, gsp), goov = g.evaluate_word_pairs(str(path), **kwargs)
    (p, pp), (s, sp), oov = kv.evaluate_word_pairs(path, **kwargs)
    assert abs(p - gp) < 1e-9 and abs(s - gs) < 1e-9
    assert abs(pp - gpp) < 1e-9 and abs(sp - gsp) < 1e-9
    assert oov == goov


def test_word_pairs_case_variants_identical_to_gensim(mixed_case):
    g, kv = mixed_case
    (gp, _), (gs, _), goov = g.evaluate_word_pairs(str(WORDSIM))
    (p, _), (s, _), oov = kv.evaluate_word_pairs(WORDSIM)
    assert abs(p - gp) < 1e-9 and abs(s - gs) < 1e-9 and oov == goov


def test_word_pair_layouts(trained, tmp_path):
    _, kv = trained
    reference = kv.evaluate_word_pairs(SIMLEX)
    rows = [line.split("\t") for line in SIMLEX.read_text().splitlines() if not line.startswith("#")]
    # SimLex-999 original release: 10 tab-separated columns, score in the 4th, header line
    simlex10 = tmp_path / "SimLex-999.txt"
    simlex10.write_text("word1\tword2\tPOS\tSimLex999\tconc(w1)\tconc(w2)\tconcQ\tAssoc(USF)\tSimAssoc333\tSD\n"
                        + "".join(f"{a}\t{b}\tN\t{s}\t1.0\t2.0\t3\t0.5\t1\t0.4\n" for a, b, s in rows))
    # SimVerb: 5 columns, no header
    simverb = tmp_path / "simverb.txt"
    simverb.write_text("".join(f"{a}\t{b}\tV\t{s}\tSYNONYMS\n" for a, b, s in rows))
    csv = tmp_path / "pairs.csv"
    csv.write_text("Word 1,Word 2,Human (mean)\n" + "".join(f"{a},{b},{s}\n" for a, b, s in rows))
    spaced = tmp_path / "pairs.txt"
    spaced.write_text("# comment\n\n" + "".join(f"{a} {b}   {s}\r\n" for a, b, s in rows))
    for path in (simlex10, simverb, csv, spaced):
        assert kv.evaluate_word_pairs(path) == reference, path.name


def test_word_pair_errors(trained, tmp_path):
    _, kv = trained
    p = tmp_path / "p.txt"
    p.write_text("# nothing\nheader only here\n")
    with pytest.raises(FormatError):
        kv.evaluate_word_pairs(p)
    p.write_text("qqq www 1.0\neee rrr 2.0\n")
    with pytest.raises(VocabularyError):
        kv.evaluate_word_pairs(p)


def test_correlations_match_scipy():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(1)
    for n in (3, 10, 200):
        x = rng.integers(0, 5, n).astype(float)  # many ties
        y = x + rng.standard_normal(n)
        np.testing.assert_allclose(ev.rankdata(x), stats.rankdata(x))
        r, p = ev.pearson(x, y)
        assert abs(r - stats.pearsonr(x, y)[0]) < 1e-12 and abs(p - stats.pearsonr(x, y)[1]) < 1e-12
        rho, p = ev.spearman(x, y)
        assert abs(rho - stats.spearmanr(x, y)[0]) < 1e-12 and abs(p - stats.spearmanr(x, y)[1]) < 1e-12
    r, p = ev.pearson([1, 1, 1], [1, 2, 3])
    assert math.isnan(r)


def test_works_without_scipy(trained, monkeypatch):
    _, kv = trained
    with_scipy = kv.evaluate_word_pairs(WORDSIM)
    assert evaluate_word_pairs(kv, WORDSIM) == with_scipy
    monkeypatch.setattr(ev, "_scipy_stats", lambda: None)
    (p, pp), (s, sp), oov = kv.evaluate_word_pairs(WORDSIM)
    assert p == with_scipy[0][0] and s == with_scipy[1][0] and oov == with_scipy[2]
    assert math.isnan(pp) and math.isnan(sp)
    assert ev.rankdata([3, 1, 2, 1]).tolist() == [4.0, 1.5, 3.0, 1.5]


def offset_model(words_per_pair=8, dim=12, seed=0):
    """Pairs (x_i, y_i) with y_i = x_i + one shared offset: 'x_i : y_i :: x_j : y_j' as raw vectors."""
    rng = np.random.default_rng(seed)
    offset = rng.standard_normal(dim)
    xs = rng.standard_normal((words_per_pair, dim))
    words = [f"x{i}" for i in range(words_per_pair)] + [f"y{i}" for i in range(words_per_pair)]
    return words, np.vstack([xs, xs + offset]).astype(np.float32)


@pytest.mark.filterwarnings("error")        # no overflow / invalid-value warnings
@pytest.mark.parametrize("method", ["3cosadd", "3cosmul"])
def test_analogies_with_zero_and_extreme_vectors(tmp_path, method):
    words, vecs = offset_model()
    questions = [f"x{i} y{i} x{j} y{j}" for i in range(8) for j in range(8) if i != j]
    path = tmp_path / "q.txt"
    path.write_text(": offsets\n" + "\n".join(questions) + "\n")
    plain = KeyedVectors(words, vecs)
    expected = plain.evaluate_word_analogies(path, case_insensitive=False, method=method)
    assert expected[0] > 0.8     # unit vectors make the offsets approximate: most, not all, right
    # the same directions, scaled by exact powers of two until their float32 squares overflow
    # or vanish, plus a zero vector that takes part in no question
    scaled = vecs.astype(np.float64)
    big = [3, 11]
    scaled[big] *= 2.0 ** 110           # norms ~1e33: squares overflow float32
    scaled[[5, 12]] *= 2.0 ** -100      # values ~1e-30: squares vanish
    extreme = KeyedVectors(words + ["zero"], np.vstack([scaled, np.zeros((1, 12))]).astype(np.float32))
    with np.errstate(over="ignore"):
        assert np.isinf(np.linalg.norm(extreme.vectors[big], axis=1)).all()   # float32 squares overflow
    score, sections = extreme.evaluate_word_analogies(path, case_insensitive=False, method=method)
    assert score == expected[0] and sections[-1]["correct"] == expected[1][-1]["correct"]


@pytest.mark.filterwarnings("error")
def test_word_pairs_with_zero_vectors(tmp_path):
    words, vecs = offset_model()
    kv = KeyedVectors(words + ["zero"], np.vstack([vecs, np.zeros((1, 12), np.float32)]))
    path = tmp_path / "p.txt"
    path.write_text("x0 y0 9\nx1 zero 1\nx2 x3 4\nzero y4 2\n")
    (r, _), (rho, _), oov = kv.evaluate_word_pairs(path, case_insensitive=False)
    model = [kv.similarity("x0", "y0"), 0.0, kv.similarity("x2", "x3"), 0.0]
    assert r == pytest.approx(ev.pearson([9, 1, 4, 2], model)[0]) and math.isfinite(rho) and oov == 0


def test_indented_comments_and_a_byte_order_mark_are_read_as_such(tmp_path):
    # "   # comment 1 2" was read as the pair ('#', 'comment'); a BOM made the first line unreadable
    words, vecs = offset_model()
    kv = KeyedVectors(words, vecs)
    plain = tmp_path / "p.txt"
    plain.write_text("x0 y0 9\nx1 y1 1\nx2 x3 4\n", encoding="utf-8")
    odd = tmp_path / "odd.txt"
    odd.write_text("\ufeffx0 y0 9\n   # indented comment 1 2\nx1 y1 1\n\t# tab 3 4\nx2 x3 4\n", encoding="utf-8")
    assert kv.evaluate_word_pairs(odd, case_insensitive=False) == kv.evaluate_word_pairs(plain, case_insensitive=False)
    assert kv.evaluate_word_pairs(odd, case_insensitive=False)[2] == 0.0
    questions = "x0 y0 x1 y1\nx2 y2 x3 y3\n"
    (tmp_path / "q.txt").write_text(": s\n" + questions, encoding="utf-8")
    (tmp_path / "qbom.txt").write_text("\ufeff: s\n" + questions, encoding="utf-8")
    assert kv.evaluate_word_analogies(tmp_path / "qbom.txt", case_insensitive=False) == \
        kv.evaluate_word_analogies(tmp_path / "q.txt", case_insensitive=False)


def _case_variant_analogies(tmp_path, seed, noise=1.0):
    """KeyedVectors whose words have other-case variants, and analogy questions on them.

    ``word7``, ``Word7`` and ``WORD7`` upper-case alike; the variants' vectors lie close to
    the word's, and each question's answer ``d`` lies near ``b - a + c`` (noisy, so that some
    answers are wrong).  The best candidates of many questions are then variants of ``b`` and
    ``c`` (other rows than the question words), which the evaluation must skip, and which
    variant comes first in the vocabulary decides the vector of a question word.
    """
    rng = np.random.default_rng(seed)
    n, dim = 30, 12
    base = rng.standard_normal((n, dim))
    rows = [(f"word{i}", base[i]) for i in range(n)]
    lines = [": variants"]
    for q in range(40):
        a, b, c = rng.choice(n, 3, replace=False)
        rows.append((f"answer{q}", base[b] - base[a] + base[c] + noise * np.sqrt(3) * rng.standard_normal(dim)))
        lines.append(f"word{a} word{b} word{c} answer{q}")
    for i in range(n):
        for variant in (f"Word{i}", f"WORD{i}"):
            rows.append((variant, base[i] + 0.15 * rng.standard_normal(dim)))
    order = rng.permutation(len(rows))        # a variant often comes before the lower-case word
    words = [rows[i][0] for i in order]
    vectors = np.array([rows[i][1] for i in order], np.float32)
    path = tmp_path / f"variants{seed}.txt"
    path.write_text("\n".join(lines) + "\n")
    return words, vectors, path


@pytest.mark.filterwarnings("ignore::DeprecationWarning")   # gensim's own init_sims inside its evaluation
@pytest.mark.parametrize("seed", range(4))
def test_analogies_skip_other_case_variants_of_the_question_words_like_gensim(tmp_path, seed):
    # (the mixed_case fixture renames words without ever making two share an upper-case form)
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    words, vectors, path = _case_variant_analogies(tmp_path, seed)
    g = gensim_kv.KeyedVectors(vectors.shape[1])
    g.add_vectors(words, vectors)
    kv = KeyedVectors(words, vectors)
    for kwargs in (dict(), dict(restrict_vocab=70)):
        gscore, gsections = g.evaluate_word_analogies(str(path), **kwargs)
        score, sections = kv.evaluate_word_analogies(path, **kwargs)
        sections_equal(sections, gsections)
        assert score == gscore
    total = sections[-1]
    assert total["correct"] and total["incorrect"]        # neither trivially right nor wrong


@pytest.mark.filterwarnings("ignore::DeprecationWarning")   # gensim's own init_sims
def test_analogies_3cosmul_near_opposite_words_match_gensim_cosmul(tmp_path):
    # a candidate nearly opposite to ``a`` has (1 + cos) / 2 close to 0 in the denominator:
    # gensim's 1e-6 there decides how far it climbs
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    rng = np.random.default_rng(5)
    n, dim = 40, 10
    vectors = rng.standard_normal((n, dim))
    words = [f"w{i}" for i in range(n)]
    lines, questions = [": near-opposite"], []
    for q, a in enumerate(rng.permutation(n)[:30]):       # each word is ``a`` once: one answer per a
        b, c = rng.choice(np.delete(np.arange(n), a), 2, replace=False)
        for k, scale in enumerate((1e-3, 3e-2)):      # two words nearly opposite to a
            words.append(f"anti{q}x{k}")
            vectors = np.vstack([vectors, -vectors[a] + scale * rng.standard_normal(dim)])
        # the answer is the word most nearly opposite to a: the one 3CosMul ranks first
        lines.append(f"w{a} w{b} w{c} anti{q}x0")
        questions.append((f"w{a}", f"w{b}", f"w{c}", f"anti{q}x0"))
    vectors = vectors.astype(np.float32)
    path = tmp_path / "q.txt"
    path.write_text("\n".join(lines) + "\n")
    g = gensim_kv.KeyedVectors(dim)
    g.add_vectors(words, vectors)
    kv = KeyedVectors(words, vectors)
    _, sections = kv.evaluate_word_analogies(path, case_insensitive=False, method="3cosmul", restrict_vocab=None)
    got = {q: "correct" for q in sections[-1]["correct"]}
    got.update({q: "incorrect" for q in sections[-1]["incorrect"]})
    for a, b, c, d in questions:
        predicted = gensim_cosmul_answer(g, a, b, c)
        assert got[(a, b, c, d)] == ("correct" if predicted == d else "incorrect"), (a, b, c, d, predicted)
    assert len(sections[-1]["correct"]) > 20


# --------------------------------------------------------------------------- boundaries and misuse
@pytest.mark.parametrize("restrict_vocab", [-1, True, 2.5, "10"])
def test_a_bad_restrict_vocab_is_refused(tmp_path, restrict_vocab):
    # not a silent index_to_key[:-1] for -1, nor a vocabulary of one word for True
    kv = KeyedVectors(*offset_model())
    questions, pairs = tmp_path / "q.txt", tmp_path / "p.txt"
    questions.write_text(": s\nx0 y0 x1 y1\n")
    pairs.write_text("x0 y0 1\nx1 y2 2\nx2 y3 3\n")
    with pytest.raises(ParameterError, match="restrict_vocab"):
        evaluate_word_analogies(kv, questions, restrict_vocab=restrict_vocab)
    with pytest.raises(ParameterError, match="restrict_vocab"):
        evaluate_word_pairs(kv, pairs, restrict_vocab=restrict_vocab)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")   # gensim's own init_sims
@pytest.mark.parametrize("n_words", [7, 8, 9])
def test_analogies_on_a_vocabulary_as_small_as_the_candidate_list(tmp_path, n_words):
    # each question looks at the 5 + 3 best candidates: a vocabulary (or restrict_vocab) of
    # about that many words takes the full-sort path at 8 and below
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    rng = np.random.default_rng(n_words)
    words = [f"w{i}" for i in range(n_words)]
    vectors = rng.standard_normal((n_words, 5)).astype(np.float32)
    quads = [rng.choice(n_words, 4, replace=False) for _ in range(25)]
    path = tmp_path / "q.txt"
    path.write_text(": small\n" + "".join(" ".join(words[i] for i in q) + "\n" for q in quads))
    g = gensim_kv.KeyedVectors(5)
    g.add_vectors(words, vectors)
    kv = KeyedVectors(words, vectors)
    for restrict_vocab in (None, 8):
        kwargs = dict(case_insensitive=False, restrict_vocab=restrict_vocab)
        gscore, gsections = g.evaluate_word_analogies(str(path), **kwargs)
        score, sections = kv.evaluate_word_analogies(path, **kwargs)
        sections_equal(sections, gsections)
        assert score == gscore
    _, sections = kv.evaluate_word_analogies(path, case_insensitive=False, method="3cosmul", restrict_vocab=None)
    expected = [tuple(words[i] for i in q) for q in quads
                if gensim_cosmul_answer(g, *(words[i] for i in q[:3])) == words[q[3]]]
    assert sections[-1]["correct"] == expected


@pytest.mark.filterwarnings("ignore::DeprecationWarning")   # gensim's own init_sims inside its evaluation
@pytest.mark.parametrize("seed", [0, 6])
def test_analogies_3cosmul_skip_other_case_variants_like_gensim(tmp_path, seed):
    # the reference: gensim's own evaluation loop asking most_similar_cosmul instead of most_similar
    # (whose restrict_vocab gensim 4.4 ignores: the whole vocabulary here). In seed 6 a question
    # ranks b or c among its best five candidates: gensim asks for topn + 3 candidates, so five
    # remain once the question words are dropped
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    words, vectors, path = _case_variant_analogies(tmp_path, seed)
    g = gensim_kv.KeyedVectors(vectors.shape[1])
    g.add_vectors(words, vectors)
    g.most_similar = g.most_similar_cosmul
    kv = KeyedVectors(words, vectors)
    gscore, gsections = g.evaluate_word_analogies(str(path))
    score, sections = kv.evaluate_word_analogies(path, method="3cosmul")
    sections_equal(sections, gsections)
    assert score == gscore
    assert sections[-1]["correct"] and sections[-1]["incorrect"]


def _cosmul_answers(vectors, questions, eps):
    """The 3CosMul answer of each (a, b, c) row triple, with ``eps`` in the denominator (NumPy, float64)."""
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    out = []
    for a, b, c in questions:
        shifted = (1 + unit @ unit[[a, b, c]].T) / 2
        scores = shifted[:, 1] * shifted[:, 2] / (shifted[:, 0] + eps)
        scores[[a, b, c]] = -np.inf
        out.append(int(np.argmax(scores)))
    return out


@pytest.mark.filterwarnings("ignore::DeprecationWarning")   # gensim's own init_sims
def test_analogies_3cosmul_denominator_offset_is_gensims(tmp_path):
    # b and c lie close to a, and the vocabulary holds a word exactly opposite to a: its numerator
    # is tiny and its denominator about 0, so gensim's 1e-6 (not a larger offset) lets it win
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    rng = np.random.default_rng(2)
    dim, n_q = 6, 12
    rows, questions = [], []
    for q in range(n_q):
        a = rng.standard_normal(dim)
        rows += [a, a + 0.1 * np.linalg.norm(a) * rng.standard_normal(dim),
                 a + 0.1 * np.linalg.norm(a) * rng.standard_normal(dim), -a]
        questions.append((4 * q, 4 * q + 1, 4 * q + 2))
    rows += list(rng.standard_normal((20, dim)))
    vectors = np.array(rows, np.float32)
    words = [f"w{i}" for i in range(len(vectors))]
    answers = _cosmul_answers(vectors.astype(np.float64), questions, 1e-6)
    # the offset decides: with 1e-3 most answers change
    assert sum(x != y for x, y in zip(answers, _cosmul_answers(vectors.astype(np.float64), questions, 1e-3))) > n_q // 2
    path = tmp_path / "q.txt"
    path.write_text(": opposite\n" + "".join(f"{words[a]} {words[b]} {words[c]} {words[4 * q + 3]}\n"
                                             for q, (a, b, c) in enumerate(questions)))
    g = gensim_kv.KeyedVectors(dim)
    g.add_vectors(words, vectors)
    _, sections = KeyedVectors(words, vectors).evaluate_word_analogies(path, case_insensitive=False, method="3cosmul",
                                                                       restrict_vocab=None)
    expected = [(words[a], words[b], words[c], words[4 * q + 3]) for q, (a, b, c) in enumerate(questions)
                if gensim_cosmul_answer(g, words[a], words[b], words[c]) == words[4 * q + 3]]
    assert sections[-1]["correct"] == expected and len(expected) > n_q // 2
    assert [words[i] for i in answers] == [gensim_cosmul_answer(g, words[a], words[b], words[c])
                                           for a, b, c in questions]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")   # gensim's own init_sims
def test_analogy_lines_gensim_skips_and_section_names(tmp_path):
    # lines of 3 or 5 words are skipped (not questions), a section starts with ': ' and its name is
    # stripped, as in gensim
    gensim_kv = pytest.importorskip("gensim.models.keyedvectors")
    words, vecs = offset_model()
    path = tmp_path / "q.txt"
    path.write_text(":  first  \nx0 y0 x1 y1\nx0 y0 x2\nx0 y0 x2 y2 x3\n:no-space\n\nx1 y1 x3 y3\n"
                    ": second\t\nx4 y4 x5 y5\n")
    g = gensim_kv.KeyedVectors(vecs.shape[1])
    g.add_vectors(words, vecs)
    score, sections = KeyedVectors(words, vecs).evaluate_word_analogies(path)
    gscore, gsections = g.evaluate_word_analogies(str(path))
    sections_equal(sections, gsections)
    assert [s["section"] for s in sections] == ["first", "second", "Total accuracy"]
    assert len(sections[-1]["correct"]) + len(sections[-1]["incorrect"]) == 3 and score == gscore


def test_correlations_stay_within_minus_one_and_one():
    # x against itself: the float64 dot product of the unit-length centred vectors can round past 1
    rng = np.random.default_rng(0)
    for n in range(2, 40):
        x = rng.standard_normal(n)
        assert ev.pearson(x, x)[0] <= 1.0 and ev.pearson(x, -x)[0] >= -1.0
        assert ev.pearson(x, 3 * x + 1)[0] <= 1.0 and ev.spearman(x, x)[0] <= 1.0


@pytest.mark.parametrize("name,data", [("q.txt.gz", b"not gzip data"), ("q.txt.bz2", b"not bz2 data"),
                                       ("q.txt.xz", b"not xz data"), ("dir", None)])
def test_unreadable_evaluation_files_raise_format_error(tmp_path, name, data):
    # a corrupt .gz or .bz2 file raised gzip.BadGzipFile / OSError, not the FormatError of a corrupt .xz
    kv = KeyedVectors(*offset_model())
    path = tmp_path / name
    if data is None:
        path.mkdir()
    else:
        path.write_bytes(data)
    for evaluate in (evaluate_word_analogies, evaluate_word_pairs):
        with pytest.raises(FormatError, match=f"{name}: "):
            evaluate(kv, path)


@pytest.mark.parametrize("name,plain,odd", [
    # "nan" and "inf" parse as floats but are no score: such a line is skipped like a header
    ("nonfinite.txt", "x0 y0 9\nx1 y1 1\nx2 x3 4\n",
     "x0 y0 9\nx4 y4 nan\nx1 y1 1\nx5 y5 inf\nx2 x3 4\nx6 y6 -Infinity\n"),
    # "word, word, score" (a space after each comma) reads as "word,word,score"
    ("spaced.csv", "x0,y0,9\nx1,y1,1\nx2,x3,4\n", "x0, y0, 9\n x1 ,y1 , 1\nx2,  x3,4 \n"),
])
def test_word_pair_lines_read_as_their_plain_form(tmp_path, name, plain, odd):
    kv = KeyedVectors(*offset_model())
    (tmp_path / f"plain-{name}").write_text(plain)
    (tmp_path / name).write_text(odd)
    expected = kv.evaluate_word_pairs(tmp_path / f"plain-{name}", case_insensitive=False)
    assert expected[2] == 0.0  # every pair of the plain file is in the vocabulary
    assert kv.evaluate_word_pairs(tmp_path / name, case_insensitive=False) == expected
