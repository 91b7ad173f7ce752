"""Each kernel mode against the plain NumPy reference step (tests/support/reference.py)."""
import numpy as np
import pytest

from w2v.kernels.cpu import (SPECIALIZED_DIM, merge_hot_rows, sample_noise, scratch, sgd_block, train_sentence,
                             train_tokens)
from w2v.training.sampling import HuffmanTree, alias_table, pack_alias_table
from w2v.training.hogwild import Replica

from ..support import reference as ref

V, DIM = 12, 8


def make_case(seed, hs=False, dim=DIM, scale=None):
    rng = np.random.default_rng(seed)
    counts = np.sort(rng.integers(1, 100, V))[::-1].astype(np.int64)
    if scale is None:
        scale = 0.3 * np.sqrt(DIM / dim)   # scores x.o of sd 0.25 at dim 8, smaller above
    syn0 = rng.normal(0, scale, (V, dim)).astype(np.float32)
    syn1neg = rng.normal(0, scale, (V, dim)).astype(np.float32)
    syn1 = rng.normal(0, scale, (V - 1, dim)).astype(np.float32)
    thr, alias = alias_table(counts)
    tree = HuffmanTree.from_counts(counts)
    sent = rng.integers(0, V, 9).astype(np.int32)
    sent[3] = sent[5]  # a repeated word: its updates must add up (scatter-add)
    return counts, syn0, syn1neg, syn1, thr, alias, tree, sent


def run_kernel(sent, syn0, syn1neg, syn1, thr, alias, tree, *, sg, cbow_mean, window, negative, hs, shared,
               alpha, state, nhot=0):
    """train_sentence on copies of the weights; with ``nhot``, the rows of ids below it are
    trained in separate copies (as a thread's hot rows) and copied back afterwards."""
    syn0, syn1neg, syn1 = syn0.copy(), syn1neg.copy(), syn1.copy()
    hot0, hot1 = syn0[:nhot].copy(), syn1neg[:nhot].copy()
    if nhot:   # poison the shared rows: a kernel that reads them instead of the copies fails
        syn0[:nhot] = np.nan
        syn1neg[:nhot] = np.nan
    buffers = scratch(window, max(negative + 1, tree.codes.shape[1]), syn0.shape[1])
    shrink = np.empty(sent.size, np.int32)
    noise = np.empty(sent.size * max(negative, 1), np.int32)
    stats = np.zeros(2)
    s = train_sentence(sent, sent.size, syn0, syn1neg, syn1, hot0, nhot, hot1, nhot,
                       pack_alias_table(thr, alias), tree.codes, tree.points, tree.lengths,
                       sg, cbow_mean, window, negative, hs, shared, np.float32(alpha), np.uint64(state),
                       *buffers, shrink, noise, stats)
    syn0[:nhot] = hot0
    syn1neg[:nhot] = hot1
    return syn0, syn1neg, syn1, stats, s


def run_reference(sent, syn0, syn1neg, syn1, thr, alias, tree, *, state, **kw):
    """tests/support/reference.py on the case; returns (syn0, syn1neg, syn1, loss, examples, rng state after)."""
    rng = ref.SplitMix64(state)
    out = ref.train_sentence(sent.tolist(), syn0, syn1neg, syn1, thr, alias, tree.codes, tree.points,
                             tree.lengths, rng=rng, **kw)
    return (*out, rng.state)


MODES = [
    # sg, cbow_mean, negative, hs, shared
    pytest.param(True, True, 5, False, True, id="sgns-shared"),
    pytest.param(True, True, 5, False, False, id="sgns-exact"),
    pytest.param(False, True, 5, False, True, id="cbow-mean-ns"),
    pytest.param(False, False, 5, False, True, id="cbow-sum-ns"),
    pytest.param(True, True, 0, True, True, id="sg-hs-shared"),
    pytest.param(True, True, 0, True, False, id="sg-hs-exact"),
    pytest.param(False, True, 0, True, True, id="cbow-hs"),
    pytest.param(True, True, 3, True, True, id="sg-hs+ns"),
    pytest.param(False, True, 3, True, True, id="cbow-hs+ns"),
    pytest.param(True, True, 7, False, True, id="sgns-shared-two-blocks"),   # 8 targets: two blocks of six
]


@pytest.mark.parametrize("sg,cbow_mean,negative,hs,shared", MODES)
@pytest.mark.parametrize("window", [1, 3])
@pytest.mark.parametrize("dim", [DIM, SPECIALIZED_DIM], ids=["dim8", "dim-specialized"])
@pytest.mark.parametrize("hot", [0, 5], ids=["shared-rows", "hot-rows"])
def test_train_sentence_matches_numpy_reference(sg, cbow_mean, negative, hs, shared, window, dim, hot):
    """Every mode, in the general kernel and in the one compiled for SPECIALIZED_DIM; with
    ``hot``, the rows of ids 0-4 are trained in a thread's own copies (the shared modes)."""
    counts, syn0, syn1neg, syn1, thr, alias, tree, sent = make_case(7 + window, hs, dim)
    state = 12345
    kw = dict(sg=sg, cbow_mean=cbow_mean, window=window, negative=negative, hs=hs, shared=shared, alpha=0.05)
    nhot = hot if shared else 0   # train_tokens gives the per-pair mode no copies
    k0, k1neg, k1, stats, s_after = run_kernel(sent, syn0, syn1neg, syn1, thr, alias, tree, state=state,
                                               nhot=nhot, **kw)
    r0, r1neg, r1, loss, examples, r_after = run_reference(sent, syn0, syn1neg, syn1, thr, alias, tree,
                                                           state=state, **kw)
    # same random draws consumed
    assert int(s_after) == r_after
    # every matrix moved, and moved exactly like the reference
    np.testing.assert_allclose(k0, r0, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(k1neg, r1neg, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(k1, r1, rtol=1e-4, atol=1e-5)
    assert not np.allclose(k0, syn0)
    assert stats[1] == examples
    assert stats[0] == pytest.approx(loss, rel=1e-4)


@pytest.mark.parametrize("sg,cbow_mean,negative,hs,shared", MODES)
def test_pairs_scored_beyond_max_score_are_not_updated(sg, cbow_mean, negative, hs, shared, monkeypatch):
    """Large rows (scores x.o of sd 6): pairs at or beyond +-6 get no update, as in gensim."""
    counts, syn0, syn1neg, syn1, thr, alias, tree, sent = make_case(11, hs, scale=np.sqrt(6.0 / np.sqrt(DIM)))
    kw = dict(sg=sg, cbow_mean=cbow_mean, window=3, negative=negative, hs=hs, shared=shared, alpha=0.05)
    k0, k1neg, k1, stats, _ = run_kernel(sent, syn0, syn1neg, syn1, thr, alias, tree, state=99, **kw)
    r0, r1neg, r1, loss, _, _ = run_reference(sent, syn0, syn1neg, syn1, thr, alias, tree, state=99, **kw)
    np.testing.assert_allclose(k0, r0, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(k1neg, r1neg, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(k1, r1, rtol=1e-4, atol=1e-5)
    assert stats[0] == pytest.approx(loss, rel=1e-4)   # the loss still counts every pair
    # the rule was exercised: without it the reference moves the rows differently
    monkeypatch.setattr(ref, "MAX_SCORE", np.inf)
    u0 = run_reference(sent, syn0, syn1neg, syn1, thr, alias, tree, state=99, **kw)[0]
    assert not np.allclose(u0, r0, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("sg,cbow_mean,negative,hs,shared", [MODES[0], MODES[1], MODES[2], MODES[8]])
@pytest.mark.parametrize("length", [1, 2])
def test_short_sentences_draw_like_the_reference(sg, cbow_mean, negative, hs, shared, length):
    """A one-word sentence has no context: it draws its window shrink and no noise words."""
    counts, syn0, syn1neg, syn1, thr, alias, tree, sent = make_case(5, hs)
    sent = sent[:length].copy()
    kw = dict(sg=sg, cbow_mean=cbow_mean, window=2, negative=negative, hs=hs, shared=shared, alpha=0.05)
    k0, k1neg, k1, stats, s_after = run_kernel(sent, syn0, syn1neg, syn1, thr, alias, tree, state=77, **kw)
    r0, r1neg, r1, loss, examples, r_after = run_reference(sent, syn0, syn1neg, syn1, thr, alias, tree,
                                                           state=77, **kw)
    assert int(s_after) == r_after
    np.testing.assert_allclose(k0, r0, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(k1neg, r1neg, rtol=1e-4, atol=1e-5)
    assert stats[1] == examples == (0 if length == 1 else 2)   # one example per centre (CBOW) or pair


def test_sgd_block_gradient_matches_finite_differences():
    """The update equals -alpha * d(loss)/d(params), checked numerically in float64."""
    rng = np.random.default_rng(3)
    X = rng.normal(0, 0.5, (3, DIM)).astype(np.float32)
    out = rng.normal(0, 0.5, (V, DIM)).astype(np.float32)
    targets = np.array([4, 7, 4, 1], np.int64)   # a repeated target
    labels = np.array([1, 0, 0, 0], np.float32)
    alpha = np.float32(1e-3)

    def loss_fn(Xv, outv):
        F = Xv @ outv[targets].T
        lab = labels.astype(np.float64)[None, :]
        return float(np.sum(np.logaddexp(0, -F) * lab + np.logaddexp(0, F) * (1 - lab)))

    out_k = out.copy()
    dX = np.zeros_like(X)
    G = np.empty(2 * 3 * 4, np.float32)
    loss = sgd_block(X, 3, out_k, out_k[:0], 0, targets, labels, 4, alpha, dX, G, 0)
    X64, out64 = X.astype(np.float64), out.astype(np.float64)
    assert np.abs(X64 @ out64[targets].T).max() < ref.MAX_SCORE   # no pair is skipped here
    assert loss == pytest.approx(loss_fn(X64, out64), rel=1e-5)
    eps = 1e-6
    num_gx = np.zeros_like(X64)
    for idx in np.ndindex(X64.shape):
        a, b = X64.copy(), X64.copy()
        a[idx] += eps
        b[idx] -= eps
        num_gx[idx] = (loss_fn(a, out64) - loss_fn(b, out64)) / (2 * eps)
    num_gout = np.zeros_like(out64)
    for idx in np.ndindex(out64.shape):
        a, b = out64.copy(), out64.copy()
        a[idx] += eps
        b[idx] -= eps
        num_gout[idx] = (loss_fn(X64, a) - loss_fn(X64, b)) / (2 * eps)
    np.testing.assert_allclose(dX, -alpha * num_gx, rtol=1e-3, atol=1e-8)
    np.testing.assert_allclose(out_k - out, -alpha * num_gout, rtol=1e-3, atol=1e-7)


def test_noise_draws_match_reference_and_distribution():
    counts = np.array([500, 200, 90, 40, 40, 7, 3, 1], np.int64)
    thr, alias = alias_table(counts, 0.75)
    state = np.array([99], np.uint64)
    draws = sample_noise(200_000, pack_alias_table(thr, alias), state)
    rng = ref.SplitMix64(99)
    assert draws[:1000].tolist() == [ref.draw_noise(rng.next(), thr, alias) for _ in range(1000)]
    # chi-square goodness of fit against counts ** 0.75
    p = counts ** 0.75 / np.sum(counts ** 0.75)
    observed = np.bincount(draws, minlength=counts.size)
    expected = p * draws.size
    chi2 = float(np.sum((observed - expected) ** 2 / expected))
    assert chi2 < 24.3  # 99.9th percentile of chi-square with 7 degrees of freedom


def test_train_tokens_subsamples_and_splits_long_sentences():
    """Tokens are all seen; sentences longer than max_sentence_length are split, not dropped."""
    counts, syn0, syn1neg, syn1, thr, alias, tree, _ = make_case(1)
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, V, 1000).astype(np.int32)
    tokens[[100, 500]] = -1
    keep_all = np.full(V, 1 << 32, np.int64)
    stats = np.zeros(4)
    s0 = syn0.copy()
    train_tokens(tokens, 0, tokens.size, s0, syn1neg.copy(), syn1.copy(), keep_all,
                 pack_alias_table(thr, alias), tree.codes, tree.points, tree.lengths,
                 True, True, 2, 2, False, True, 0.025, 1e-4, 7,
                 *Replica.no_kernel_args(syn0, syn1neg), np.array([5], np.uint64), stats)
    assert stats[3] == 998 and stats[2] == 998
    # with 7-token sentences every token still gets trained (examples > 0 for each chunk)
    keep_none = np.zeros(V, np.int64)
    stats2 = np.zeros(4)
    s1 = syn0.copy()
    train_tokens(tokens, 0, tokens.size, s1, syn1neg.copy(), syn1.copy(), keep_none,
                 pack_alias_table(thr, alias), tree.codes, tree.points, tree.lengths,
                 True, True, 2, 2, False, True, 0.025, 1e-4, 7,
                 *Replica.no_kernel_args(syn0, syn1neg), np.array([5], np.uint64), stats2)
    assert stats2[2] == 0 and stats2[1] == 0 and np.array_equal(s1, syn0)


def reference_tokens(tokens, pos0, total, syn0, syn1neg, syn1, keep, thr, alias, tree, *, alpha0, min_alpha,
                     max_sentence_length, state, **kw):
    """What train_tokens does, spelled out with tests/support/reference.py: one random stream that
    decides each word's subsampling (high 32 bits below its threshold) and then trains each
    sentence (cut at max_sentence_length kept words) at the learning rate of its first
    position, decaying linearly from alpha0 at 0 to min_alpha at ``total`` (word2vec.c's
    schedule, gensim's per job)."""
    rng = ref.SplitMix64(state)
    loss = examples = kept = seen = 0
    sent, start = [], 0
    for p in range(tokens.size + 1):
        w = int(tokens[p]) if p < tokens.size else -1
        if w >= 0:
            seen += 1
            if (rng.next() >> 32) < keep[w]:
                sent.append(w)
        if w < 0 or len(sent) == max_sentence_length:
            if sent:
                frac = min((pos0 + start) / total, 1.0)
                alpha = max(float(np.float32(alpha0 - (alpha0 - min_alpha) * frac)), float(np.float32(min_alpha)))
                syn0, syn1neg, syn1, sent_loss, e = ref.train_sentence(
                    sent, syn0, syn1neg, syn1, thr, alias, tree.codes, tree.points, tree.lengths,
                    alpha=alpha, rng=rng, **kw)
                loss += sent_loss
                examples += e
                kept += len(sent)
            sent, start = [], p + 1
    return syn0, syn1neg, syn1, np.array([loss, examples, kept, seen]), rng.state


@pytest.mark.parametrize("sg,cbow_mean,negative,hs,shared", [MODES[0], MODES[1], MODES[2], MODES[6]])
def test_train_tokens_matches_the_reference_schedule_subsampling_and_sentence_cuts(sg, cbow_mean, negative,
                                                                                    hs, shared):
    """The learning-rate schedule (from the run position, clamped at min_alpha past ``total``),
    subsampling with uneven thresholds and the cut of long sentences, against the reference."""
    counts, syn0, syn1neg, syn1, thr, alias, tree, _ = make_case(21, hs)
    rng = np.random.default_rng(4)
    tokens = rng.integers(0, V, 160).astype(np.int32)
    tokens[[9, 10, 40, 41, 42, 70]] = -1      # short sentences; 70..160 is long, cut every 11 kept words
    keep = (np.linspace(0.15, 1.0, V) * (1 << 32)).astype(np.int64)[::-1].copy()   # rarer words kept more
    pos0, total, alpha0, min_alpha, msl, state = 30, 150, 0.2, 0.002, 11, 77
    kw = dict(sg=sg, cbow_mean=cbow_mean, window=2, negative=negative, hs=hs, shared=shared)
    k0, k1neg, k1 = syn0.copy(), syn1neg.copy(), syn1.copy()
    stats = np.zeros(4)
    rng_state = np.array([state], np.uint64)
    train_tokens(tokens, pos0, total, k0, k1neg, k1, keep, pack_alias_table(thr, alias), tree.codes, tree.points,
                 tree.lengths, sg, cbow_mean, 2, negative, hs, shared, alpha0, min_alpha, msl,
                 *Replica.no_kernel_args(syn0, syn1neg), rng_state, stats)
    r0, r1neg, r1, rstats, rstate = reference_tokens(
        tokens, pos0, total, syn0.astype(np.float64), syn1neg.astype(np.float64), syn1.astype(np.float64),
        keep, thr, alias, tree, alpha0=alpha0, min_alpha=min_alpha, max_sentence_length=msl, state=state, **kw)
    assert int(rng_state[0]) == rstate                       # the same draws, in the same order
    assert stats[2:].tolist() == rstats[2:].tolist()         # words kept and seen
    assert 0.3 * rstats[3] < rstats[2] < 0.9 * rstats[3]     # subsampling did drop some words
    assert stats[1] == rstats[1]
    assert stats[0] == pytest.approx(rstats[0], rel=1e-4)
    np.testing.assert_allclose(k0, r0, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(k1neg, r1neg, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(k1, r1, rtol=1e-4, atol=1e-5)
    # the schedule matters here: the same run at a constant rate ends elsewhere
    c0 = reference_tokens(tokens, pos0, total, syn0.astype(np.float64), syn1neg.astype(np.float64),
                          syn1.astype(np.float64), keep, thr, alias, tree, alpha0=alpha0, min_alpha=alpha0,
                          max_sentence_length=msl, state=state, **kw)[0]
    assert not np.allclose(c0, r0, rtol=1e-3, atol=1e-4)


def _train_jobs(tokens, syn0, syn1neg, syn1, thr, alias, tree, *, sg, shared, plan):
    """train_tokens over three jobs, with a Replica (rows, frequent rows, their merge interval,
    the others' interval) = ``plan``, or none (``plan`` None)."""
    syn0, syn1neg, syn1 = syn0.copy(), syn1neg.copy(), syn1.copy()
    replica = None if plan is None else Replica(syn0, syn1neg, *plan)
    hot = Replica.no_kernel_args(syn0, syn1neg) if replica is None else replica.kernel_args()
    stats = np.zeros(4)
    keep_all = np.full(V, 1 << 32, np.int64)
    state = np.array([9], np.uint64)
    for job in np.array_split(tokens, 3):
        train_tokens(job, 0, tokens.size, syn0, syn1neg, syn1, keep_all, pack_alias_table(thr, alias),
                     tree.codes, tree.points, tree.lengths, sg, True, 3, 4, False, shared, 0.05, 1e-4, 40,
                     *hot, state, stats)
    if replica is not None:
        replica.merge()
    return syn0, syn1neg, stats, state[0]


@pytest.mark.parametrize("sg,shared", [(True, True), (False, True), (True, False)],
                         ids=["sg-shared", "cbow", "sg-exact"])
@pytest.mark.parametrize("plan", [(5, 2, 16, 100), (5, 5, 1 << 20, 1 << 20), (V, 3, 7, 1)])
def test_a_replica_of_the_first_rows_trains_like_the_shared_rows_alone(sg, shared, plan):
    """One worker on a Replica, merged within jobs or only at the end, trains what it would
    train on the shared rows (up to float rounding)."""
    counts, syn0, syn1neg, syn1, thr, alias, tree, _ = make_case(3)
    tokens = np.random.default_rng(1).integers(0, V, 400).astype(np.int32)
    tokens[[90, 91, 250]] = -1    # sentence ends (and an empty sentence)
    kw = dict(sg=sg, shared=shared)
    a0, a1, ast, astate = _train_jobs(tokens, syn0, syn1neg, syn1, thr, alias, tree, plan=None, **kw)
    b0, b1, bst, bstate = _train_jobs(tokens, syn0, syn1neg, syn1, thr, alias, tree, plan=plan, **kw)
    assert astate == bstate and np.array_equal(ast[1:], bst[1:])
    assert bst[0] == pytest.approx(ast[0], rel=1e-5)
    np.testing.assert_allclose(b0, a0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b1, a1, rtol=1e-5, atol=1e-6)
    assert not np.allclose(b0[:5], syn0[:5]) and not np.allclose(b1[:5], syn1neg[:5])   # those rows trained


def test_replica_rows_fit_the_budget():
    syn0 = np.zeros((1000, 10), np.float32)
    assert Replica.rows_for(syn0, budget=160 * 50) == 50       # 4 rows of 10 float32 per row covered
    assert Replica.rows_for(syn0, budget=1 << 30) == 1000      # never more than the vocabulary


def test_merge_hot_rows_adds_this_threads_changes_to_the_others():
    rng = np.random.default_rng(4)
    base = rng.normal(size=(6, 4)).astype(np.float32)
    mine = rng.normal(size=(6, 4)).astype(np.float32)
    theirs = rng.normal(size=(6, 4)).astype(np.float32)
    rows = base + theirs                 # another thread's updates, merged meanwhile
    hot, snap = base + mine, base.copy()   # this thread's copies: trained, and as taken
    merge_hot_rows(rows, hot, snap, 1, 4)
    np.testing.assert_allclose(rows[1:4], (base + theirs + mine)[1:4], rtol=1e-6)
    np.testing.assert_array_equal(rows[[0, 4, 5]], (base + theirs)[[0, 4, 5]])    # rows outside untouched
    np.testing.assert_array_equal(hot[1:4], rows[1:4])
    np.testing.assert_array_equal(snap[1:4], rows[1:4])


def test_fast_exp_and_log_are_accurate():
    from w2v.kernels.fastmath import exp32_array, log32_array
    x = np.linspace(-25, 25, 200_001).astype(np.float32)
    want = np.exp(x.astype(np.float64))
    assert np.max(np.abs(exp32_array(x) - want) / want) < 5e-7
    z = np.concatenate([np.linspace(1, 3, 10_001), np.geomspace(1, 1e12, 10_001),
                        np.geomspace(1e-30, 1, 1_001)]).astype(np.float32)
    want = np.log(z.astype(np.float64))
    assert np.max(np.abs(log32_array(z) - want)) < 2e-5
    assert np.max(np.abs(log32_array(z) - want) / np.maximum(np.abs(want), 1e-2)) < 5e-6


def test_prefetch_intrinsics_compile_to_prefetches_and_change_nothing():
    import platform

    from numba import njit

    from w2v.kernels.prefetch import prefetch_row

    @njit(cache=False)
    def touch(a, b, idx):
        s = 0.0
        for i in idx:
            prefetch_row(a, i, a.shape[1])
        for i in idx:
            s += a[i, 0] + a[i, -1] + b[i]
        return s

    a = np.arange(50 * 37, dtype=np.float32).reshape(50, 37)   # 148-byte rows: not line-aligned
    b = np.arange(50, dtype=np.float64)
    idx = np.array([0, 49, 7, 7], np.int64)
    assert touch(a, b, idx) == sum(float(a[i, 0] + a[i, -1] + b[i]) for i in idx)
    if platform.machine() in ("x86_64", "AMD64"):
        assert "prefetch" in touch.inspect_asm(touch.signatures[0])


BOUNDSCHECKED_RUN = r"""
import sys
import numpy as np
from numba import njit
from w2v import Word2Vec, load

@njit(cache=False)
def _read(a, i):
    return a[i]

try:                       # the setting took effect: an index past the end raises
    _read(np.zeros(3), 3)
    sys.exit("NUMBA_BOUNDSCHECK had no effect")
except IndexError:
    pass

corpus, out = sys.argv[1], sys.argv[2]
runs = [dict(model="sg"), dict(model="sg", exact=True), dict(model="cbow"), dict(model="cbow", cbow_mean=False),
        dict(model="sg", hs=True, negative=0), dict(model="cbow", hs=True, negative=3),
        dict(model="sg", dim=24, window=2, ns_exponent=-0.5)]
for i, kw in enumerate(runs):
    for threads in (1, 2):
        m = Word2Vec(epochs=1, min_count=2, threads=threads, seed=i, **{"dim": 100, **kw})
        m.train(corpus)
        assert np.all(np.isfinite(m.syn0))
m.build_vocab(corpus + ".more", update=True)   # an online update adds rows, then trains them
m.train(corpus + ".more")
m.save_word2vec(out)
print(load(out).most_similar(m.vocab.words[0], topn=3))
"""


def test_training_reads_and_writes_nothing_out_of_bounds(tmp_path):
    # Every training mode (sg, --exact, CBOW mean/sum, HS, HS + NS, another dim; 1 and 2
    # threads, the 2-thread runs with replicas of the frequent rows), the tokenizer, the
    # Huffman and alias tables and an online update, compiled with NUMBA_BOUNDSCHECK=1: any
    # index out of its array raises IndexError in the subprocess instead of reading past it.
    import lzma
    import os
    import subprocess
    import sys

    from ..conftest import BUNDLED, ROOT

    with lzma.open(BUNDLED, "rt", encoding="utf-8") as src:
        lines = [next(src) for _ in range(1600)]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(lines[:1200]), encoding="utf-8")     # ~60k words: replicas at 2 threads
    (tmp_path / "corpus.txt.more").write_text("".join(lines[1200:]) + "zzunseen " * 5 + "\n",
                                               encoding="utf-8")
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    res = subprocess.run([sys.executable, "-c", BOUNDSCHECKED_RUN, str(corpus), str(tmp_path / "v.bin")],
                         capture_output=True, text=True, timeout=600, cwd=str(ROOT), env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "IndexError" not in res.stderr


def test_replica_merges_the_frequent_rows_at_their_own_interval():
    # Replica(frequent_rows=3, frequent_words=20, merge_words=huge): after a job of ~300 words
    # rows 0-2 have reached the shared matrices, rows 3-7 are still only in the worker's copy
    counts, syn0, syn1neg, syn1, thr, alias, tree, _ = make_case(8)
    tokens = np.random.default_rng(2).integers(0, V, 300).astype(np.int32)
    tokens[::10] = -1
    s0, s1 = syn0.copy(), syn1neg.copy()
    replica = Replica(s0, s1, 8, frequent_rows=3, frequent_words=20, merge_words=1 << 40)
    stats = np.zeros(4)
    train_tokens(tokens, 0, tokens.size, s0, s1, syn1.copy(), np.full(V, 1 << 32, np.int64),
                 pack_alias_table(thr, alias), tree.codes, tree.points, tree.lengths, True, True, 2, 3, False, True,
                 0.05, 1e-4, 40, *replica.kernel_args(), np.array([3], np.uint64), stats)
    assert stats[2] > 200
    assert not np.allclose(s0[:3], syn0[:3]) and not np.allclose(s1[:3], syn1neg[:3])   # merged
    assert np.array_equal(s0[3:8], syn0[3:8]) and np.array_equal(s1[3:8], syn1neg[3:8])  # not yet
    assert not np.allclose(replica.hot0[3:8], syn0[3:8])                                 # but trained
    replica.merge()
    np.testing.assert_array_equal(s0[:8], replica.hot0)
