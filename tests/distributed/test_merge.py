"""The rounds of distributed training without dask: the merge against a NumPy reference, the ranges of rows,
the weighting by updates, the blocks dealt to the lanes and the size of the rounds."""
import numpy as np
import pytest

from w2v.distributed import add_quantized_rows, changed_rows, merge_round, quantize_rows, split_rows
from w2v.distributed.merge import payload_bytes


def test_quantized_rows_round_trip_within_half_a_step():
    rng = np.random.default_rng(0)
    rows = (rng.standard_normal((40, 17)) * np.logspace(-9, 2, 40)[:, None]).astype(np.float32)
    rows[3] = 0.0
    q, scale = quantize_rows(rows)
    assert q.dtype == np.int16 and scale.dtype == np.float32
    back = q.astype(np.float64) * scale[:, None]
    step = np.abs(rows).max(axis=1) / 32767.0
    assert np.all(np.abs(back - rows) <= 0.5 * step[:, None] * (1 + 1e-5) + 1e-45)
    assert np.abs(q).max() == 32767 and not back[3].any()


def test_changed_rows_finds_exactly_the_rows_that_moved():
    rng = np.random.default_rng(1)
    base = rng.random((30, 8), dtype=np.float32)
    work = base.copy()
    moved = [2, 7, 29]
    work[moved] += rng.standard_normal((3, 8)).astype(np.float32) * 1e-3
    work[7, 1:] = base[7, 1:]              # a row with one changed entry still counts
    idx, q, scale = changed_rows(work, base)
    assert idx.tolist() == moved
    delta = (work - base)[moved]
    step = np.abs(delta).max(axis=1, keepdims=True) / 32767
    assert np.all(np.abs(q * scale[:, None] - delta) <= 0.51 * step)


@pytest.mark.parametrize("floor", [3.0, 1.0, 2.0])
def test_merge_round_matches_numpy_reference_and_replicas_stay_equal(floor):
    # a row's summed deltas divided by the number of workers that changed it, or by the floor where
    # that is larger: 3 (= the workers) is the "mean" rule, 1 the "touched" rule, 2 a capped rule
    rng = np.random.default_rng(2)
    v, dim, workers = 50, 8, 3
    weights = [rng.random((v, dim), dtype=np.float32), rng.random((v, dim), dtype=np.float32)]
    start = [w.copy() for w in weights]
    parts, exact = [], [np.zeros((v, dim)), np.zeros((v, dim))]
    touched = [np.zeros(v), np.zeros(v)]
    for _ in range(workers):
        part = []
        for m in range(2):
            rows = np.sort(rng.choice(v, 20, replace=False)).astype(np.int32)
            work = start[m].copy()
            work[rows] += (rng.standard_normal((20, dim)) * 1e-2).astype(np.float32)
            idx, q, scale = changed_rows(work, start[m])
            part.append((idx, q, scale))
            exact[m][idx] += q * scale[:, None].astype(np.float64)   # what the worker sent
            touched[m][idx] += 1
        parts.append(part)
    update = merge_round(weights, parts, floor)
    for m in range(2):
        div = np.maximum(touched[m], floor)[:, None]
        ref = start[m] + exact[m] / div
        np.testing.assert_allclose(weights[m], ref, atol=2e-6)
        untouched = touched[m] == 0
        assert np.array_equal(weights[m][untouched], start[m][untouched])
        assert update[m][0].tolist() == np.flatnonzero(touched[m]).tolist()
        replica = start[m].copy()
        add_quantized_rows(replica, *update[m])     # what every worker does with the update
        assert np.array_equal(replica, weights[m])


def test_merge_round_rejects_a_row_outside_the_weights():
    from w2v.distributed import DistributedError
    w = [np.zeros((4, 2), np.float32)]
    bad = [(np.array([4], np.int32), np.ones((1, 2), np.int16), np.ones(1, np.float32))]
    with pytest.raises(DistributedError):
        merge_round(w, [bad], 1.0)


def _lane_result(rng, start, lane, rows=6, ranges=1, worker="tcp://w0"):
    idx, q, scale = [], [], []
    for w in start:
        work = w.copy()
        sel = np.sort(rng.choice(w.shape[0], rows, replace=False))
        work[sel] += (rng.standard_normal((rows, w.shape[1])) * 1e-2).astype(np.float32)
        for a, x in zip((idx, q, scale), changed_rows(work, w)):
            a.append(x)
    full = list(zip(idx, q, scale))
    parts = split_rows(full, ranges)
    return {"status": "ok", "lane": lane, "parts": parts, "stats": np.ones(4), "worker": worker, "edges": [],
            "nbytes": payload_bytes(full), "part_bytes": [payload_bytes(p) for p in parts], "full": full}


@pytest.mark.parametrize("ranges", [1, 3])
def test_merged_ranges_give_the_update_that_brings_replicas_to_the_driver_weights(ranges):
    # each range's merge task takes its part of every lane; the driver and every replica apply all
    # ranges with apply_update and must end up bit-for-bit equal to the whole round merged at once
    from w2v.distributed import apply_update
    from w2v.distributed.worker import merge_range_task, part_task
    rng = np.random.default_rng(3)
    start = [rng.random((20, 4), dtype=np.float32), rng.random((12, 4), dtype=np.float32)]
    lanes = [_lane_result(rng, start, k, ranges=ranges, worker=f"tcp://w{k}") for k in range(2)]
    merged = []
    for j in range(ranges):
        parts = [part_task(x, j) for x in lanes] if ranges > 1 else lanes
        res = merge_range_task(parts, [w.shape for w in start], 2.0, 7, j)
        assert res["status"] == "ok" and res["version"] == 7 and res["range"] == j
        assert all(int(i) % ranges == j for m in res["rows"] for i in m[0])   # its own rows only
        assert res["nbytes"] == sum(a.nbytes for m in res["rows"] for a in m)
        merged.append(res)
    assert [x["lane"] for x in merged[0]["lanes"]] == [0, 1]            # range 0 carries the statistics
    assert all("parts" not in x and "rows" not in x for x in merged[0]["lanes"])
    assert all(r["lanes"] is None for r in merged[1:])
    driver = [w.copy() for w in start]
    for r in merged:
        apply_update(driver, r["rows"])
    reference = [w.copy() for w in start]
    merge_round(reference, [x["full"] for x in lanes], 2.0)
    for a, b, s in zip(driver, reference, start):
        assert np.array_equal(a, b) and not np.array_equal(a, s)


def test_a_part_or_a_range_made_on_another_worker_is_payload_received():
    # (from, to, bytes): the part tasks run where the lane's result lies, the merge task elsewhere
    from w2v.distributed.worker import merge_range_task, part_task
    rng = np.random.default_rng(5)
    start = [rng.random((30, 4), dtype=np.float32)]
    lanes = [_lane_result(rng, start, k, ranges=2, worker=f"tcp://w{k}") for k in range(2)]
    parts = [part_task(x, 1) for x in lanes]     # outside a worker: made "here" (""), the lanes elsewhere
    assert [p["edges"] for p in parts] == [[("tcp://w0", "", lanes[0]["nbytes"])],
                                           [("tcp://w1", "", lanes[1]["nbytes"])]]
    assert [p["nbytes"] for p in parts] == [x["part_bytes"][1] for x in lanes]
    res = merge_range_task(parts, [start[0].shape], 2.0, 1, 1)
    assert sorted(res["edges"]) == sorted(e for p in parts for e in p["edges"])   # the parts were made here


def test_a_round_with_a_stale_lane_is_incomplete_and_moves_no_replica(tmp_path):
    from w2v.distributed.worker import REPLICAS, Replica, forget_run, merge_range_task, replica_for
    _, setup = _lane_setup(tmp_path)
    rng = np.random.default_rng(4)
    start = [rng.random((10, 3), dtype=np.float32)]
    shapes = [start[0].shape]
    res = merge_range_task([_lane_result(rng, start, 0), {"status": "stale", "lane": 1, "worker": "tcp://w1"}],
                           shapes, 1.0, 3, 0)
    assert res["status"] == "incomplete" and "rows" not in res
    assert res["statuses"] == ["ok", "stale"] and [x["status"] for x in res["lanes"]] == ["ok", "stale"]
    # a replica never moves forward on an incomplete round, nor on a round of which one range is
    # incomplete: the next task answers "stale"
    ok = merge_range_task([_lane_result(rng, start, 0)], shapes, 1.0, 3, 0)
    REPLICAS["test-run"] = rep = Replica(setup, start, 2)
    try:
        assert replica_for("test-run", 3, ("update", [res])) is None
        assert replica_for("test-run", 3, ("update", [ok, res])) is None
        assert rep.version == 2 and np.array_equal(rep.weights[0], start[0])
        assert replica_for("test-run", 4, ("update", [ok])) is None     # a round ahead of the replica
        assert replica_for("test-run", 3, ("update", [ok])) is rep and rep.version == 3
        assert not np.array_equal(rep.weights[0], start[0])
    finally:
        forget_run("test-run")


def test_a_replica_advances_by_every_range_of_a_round(tmp_path):
    from w2v.distributed.worker import REPLICAS, Replica, forget_run, merge_range_task, part_task, replica_for
    _, setup = _lane_setup(tmp_path)
    rng = np.random.default_rng(6)
    start = [rng.random((8, 4), dtype=np.float32) for _ in range(3)]
    lane = _lane_result(rng, start, 0, ranges=2)
    ranges = [merge_range_task([part_task(lane, j)], [w.shape for w in start], 1.0, 5, j) for j in range(2)]
    REPLICAS["adv-run"] = Replica(setup, start, 4)
    try:
        rep = replica_for("adv-run", 5, ("update", ranges))
        assert rep is REPLICAS["adv-run"] and rep.version == 5
        expect = [w.copy() for w in start]
        merge_round(expect, [lane["full"]], 1.0)
        assert all(np.array_equal(a, b) for a, b in zip(rep.weights, expect))
        assert replica_for("adv-run", 6, ("update", ranges)) is None   # the next version needs the next round
    finally:
        forget_run("adv-run")


def test_updates_that_do_not_fit_the_weights_are_refused():
    # add_quantized_rows has no bounds checks: a bad index or mismatched rows must raise first
    from w2v.distributed import DistributedError, apply_update, merge_updates
    part = [(np.array([0, 5, 9], np.int32), np.ones((1, 4), np.int16), np.ones(1, np.float32))]
    with pytest.raises(DistributedError):
        merge_updates([(10, 4)], [part], 1.0)
    w = np.zeros((10, 4), np.float32)
    for update in ((np.array([10 ** 7], np.int32), np.ones((1, 4), np.int16), np.ones(1, np.float32)),
                   (np.array([10], np.int32), np.ones((1, 4), np.int16), np.ones(1, np.float32)),   # one past
                   (np.array([-1], np.int32), np.ones((1, 4), np.int16), np.ones(1, np.float32)),
                   (np.array([1, 2], np.int32), np.ones((1, 4), np.int16), np.ones(2, np.float32)),
                   (np.array([1], np.int32), np.ones((1, 3), np.int16), np.ones(1, np.float32))):
        with pytest.raises(DistributedError):
            apply_update([w], [update])
    assert not w.any()
    apply_update([w], [(np.array([3], np.int32), np.full((1, 4), 2, np.int16), np.full(1, 0.5, np.float32))])
    assert w[3].tolist() == [1.0] * 4 and w.sum() == 4.0


def _lane_setup(tmp_path, **kw):
    from w2v import Word2Vec
    from w2v.training.hogwild import kernel_params
    p = tmp_path / "c.txt"
    p.write_text("a b c d e f g h\n" * 20, encoding="utf-8")
    m = Word2Vec(dim=4, min_count=1, threads=1, **kw).build_vocab(str(p))
    return m, {"tables": m.tables, "params": dict(kernel_params(m.settings), seed=m.settings.seed)}


def test_lane_slice_follows_the_global_learning_rate_schedule(monkeypatch, tmp_path):
    # the cluster advances round_total positions while a thread trains its part of the lane's
    # slice: the learning rate at the thread's j-th token is the run's at position + j * round_total / part
    import w2v.kernels.cpu as kc
    from w2v.distributed.worker import train_slice

    m, setup = _lane_setup(tmp_path, alpha=0.03, min_alpha=0.001)
    calls = []

    def fake(sub, pos0, total, *args):   # the threads call it in any order: sorted by offset after
        offset = (sub.ctypes.data - tokens.ctypes.data) // sub.itemsize
        calls.append(dict(offset=offset, sub=sub.copy(), pos0=pos0, total=total, alpha=args[14],
                          min_alpha=args[15], rng=int(args[-2][0])))
        args[-1][:4] = [1.5, 2, 3, sub.size]

    def train(sched, n_tokens, threads):
        calls.clear()
        stats = train_slice(tokens[:n_tokens], weights, setup, sched, threads)
        calls.sort(key=lambda c: c["offset"])
        return stats

    monkeypatch.setattr(kc, "train_tokens", fake)
    tokens = (np.arange(25_001) % 7).astype(np.int32)
    weights = [m.syn0.copy(), m.syn1neg.copy(), m.syn1.copy()]
    P, T, N = 1_234_567, 75_000, 9_000_000
    sched = dict(lane=1, round=(2, 5), position=P, round_total=T, total=N, lr_scale=3.0)
    stats = train(sched, tokens.size, 2)
    assert len(calls) == 2                                           # 25,001 tokens: two threads
    assert np.array_equal(np.concatenate([c["sub"] for c in calls]), tokens)
    for c in calls:
        n = c["sub"].size
        for j in (0, n // 2, n):
            assert (c["pos0"] + j) / c["total"] == pytest.approx((P + j * T / n) / N, abs=1e-6)
        assert c["alpha"] == pytest.approx(0.09) and c["min_alpha"] == pytest.approx(0.003)   # x lr_scale
    assert stats.tolist() == [3.0, 4.0, 6.0, 25_001.0]
    first = calls[0]["rng"]
    assert first != calls[1]["rng"]
    # the same round and lane draw the same numbers; another lane or round other ones
    rngs = []
    for lane, rnd in ((1, (2, 5)), (0, (2, 5)), (1, (2, 6)), (1, (3, 5))):
        train(dict(sched, lane=lane, round=rnd), tokens.size, 2)
        rngs.append(calls[0]["rng"])
    assert rngs[0] == first and len(set(rngs)) == 4
    # a slice under 10,000 tokens a thread is not split
    train(sched, 15_000, 4)
    assert len(calls) == 1 and calls[0]["sub"].size == 15_000


def test_full_state_replaces_a_replica_at_another_version(tmp_path):
    from w2v.distributed.worker import REPLICAS, forget_run, replica_for

    m, setup = _lane_setup(tmp_path)
    w1 = [m.syn0.copy(), m.syn1neg.copy(), m.syn1.copy()]
    w3 = [w + 1 for w in w1]
    try:
        rep = replica_for("full-run", 1, ("full", {"setup": setup, "weights": w1, "version": 1}))
        assert rep.version == 1 and REPLICAS["full-run"] is rep
        assert replica_for("full-run", 1, ("full", {"setup": setup, "weights": w3, "version": 1})) is rep
        # a replica left behind (it missed rounds) takes the full weights it is sent
        new = replica_for("full-run", 3, ("full", {"setup": setup, "weights": w3, "version": 3}))
        assert new.version == 3 and all(np.array_equal(a, b) for a, b in zip(new.weights, w3))
    finally:
        forget_run("full-run")


def test_weighted_merge_sums_where_updates_add_up_and_averages_where_they_saturate():
    from w2v.kernels.merge import merge_matrix_weighted
    rng = np.random.default_rng(7)
    v, dim, lanes, floor = 6, 4, 4, 2.0
    deltas = rng.standard_normal((lanes, v, dim)).astype(np.float32) * 1e-2
    # rows 0-2: changed by every lane, with few updates (linear), many (saturated), some; rows 3-5: by
    # at most 2 lanes (= floor), whatever their updates
    n = np.array([[0.01, 1e4, 1.0, 3, 0, 1e4], [0.01, 1e4, 1.0, 0, 3, 0], [0.01, 1e4, 1.0, 0, 0, 0],
                  [0.01, 1e4, 1.0, 0, 0, 2]])
    parts = [(np.flatnonzero(n[k]).astype(np.int32),) + quantize_rows(deltas[k][n[k] > 0]) + (n[k][n[k] > 0],)
             for k in range(lanes)]
    idx, q, scale, upd = (np.concatenate([p[i] for p in parts]) for i in range(4))
    lam_local, lam_global = 0.5 * floor, 0.5
    union, mq, ms = merge_matrix_weighted(v, dim, idx, q, scale, upd, floor, lam_local, lam_global)
    got = mq * ms[:, None]
    sent = np.zeros((v, dim))
    for p in parts:
        sent[p[0]] += p[1] * p[2][:, None]
    for row in range(v):
        nk = n[:, row][n[:, row] > 0]
        f = -np.expm1(-lam_global * nk.sum()) / (-np.expm1(-lam_local * nk)).sum()
        f = min(max(f, 1 / max(floor, nk.size)), 1 / floor)
        np.testing.assert_allclose(got[row], sent[row] * f, atol=2e-6)
    assert union.tolist() == list(range(v))
    np.testing.assert_allclose(got[0] / sent[0], 1 / floor, rtol=1e-2)      # the sum at the unscaled rate
    np.testing.assert_allclose(got[1] / sent[1], 1 / lanes, rtol=1e-3)      # the mean of the lanes
    assert 1 / lanes < (got[2] / sent[2]).mean() < 1 / floor                # in between
    for row in (3, 4, 5):                                                    # at most floor lanes: 1 / floor
        np.testing.assert_allclose(got[row] / sent[row], 1 / floor, rtol=1e-3)


def test_expected_updates_count_the_rows_each_token_moves(tmp_path):
    from w2v.distributed.merge import expected_updates
    for kw, per_centre in ((dict(), 6.0), (dict(model="cbow"), 1.0)):
        m, setup = _lane_setup(tmp_path, sample=0, window=5, negative=3, **kw)
        tokens = np.array([0, 1, 2, -1, 3, 3, 4, 5, 6, 7, -1, 0], np.int32)
        shapes = [m.syn0.shape, m.syn1neg.shape, m.syn1.shape]
        u0, u1, u2 = expected_updates(tokens, m.tables, setup["params"], shapes)
        counts = np.bincount(tokens[tokens >= 0], minlength=len(m.vocab))
        np.testing.assert_allclose(u0, counts * 6.0)                     # a context of window + 1 centres
        np.testing.assert_allclose(u1.sum(), counts.sum() * per_centre * (1 + 3))   # positives + 3 noise words each
        assert u1.shape == (len(m.vocab),) and not u2.any()
    m, setup = _lane_setup(tmp_path, sample=0, window=2, negative=0, hs=True)
    tokens = np.array([0, 1, 1, 2], np.int32)
    shapes = [m.syn0.shape, m.syn1neg.shape, m.syn1.shape]
    u0, u1, u2 = expected_updates(tokens, m.tables, setup["params"], shapes)
    lengths = m.tables.hs_lengths
    assert u2.sum() == pytest.approx(3.0 * (lengths[0] + 2 * lengths[1] + lengths[2]))   # every node of the path
    assert not u1.any()


@pytest.mark.parametrize("lanes", [1, 2, 3])
def test_blocks_dealt_to_the_lanes_cover_the_corpus_once_in_order(lanes):
    from w2v.distributed.plan import deal_blocks, dealt_length
    rng = np.random.default_rng(8)
    corpus = rng.integers(0, 50, 1000).astype(np.int32)
    corpus[rng.choice(1000, 30, replace=False)] = -1
    block, cuts = 64, [0, 130, 131, 600, 1000]        # shards cut anywhere, one of a single id
    streams = []
    for k in range(lanes):
        parts = [deal_blocks(corpus[a:b], a, block, lanes, k) for a, b in zip(cuts[:-1], cuts[1:])]
        assert [p.size for p in parts] == [dealt_length(b - a, a, block, lanes, k) for a, b in zip(cuts[:-1], cuts[1:])]
        streams.append(np.concatenate(parts))
    if lanes == 1:
        assert np.array_equal(streams[0], corpus)     # one lane: the corpus as it is
        return
    for k, stream in enumerate(streams):
        # the lane's blocks in corpus order, each complete one followed by a sentence end
        blocks = [corpus[b * block:(b + 1) * block] for b in range(k, -(-1000 // block), lanes)]
        want = np.concatenate([np.append(x, -1) if x.size == block else x for x in blocks])
        assert np.array_equal(stream, want)


def test_rounds_are_sized_from_the_corpus_and_the_workers_and_a_large_size_warns():
    import warnings

    from w2v.distributed.plan import CLUSTER_ROUND_TOKENS, MIN_ROUND_WORDS, RoundWordsWarning, choose_round_words
    assert choose_round_words(10 ** 8, 1) == CLUSTER_ROUND_TOKENS
    assert choose_round_words(10 ** 8, 8) == CLUSTER_ROUND_TOKENS // 8
    assert choose_round_words(10 ** 8, 1000) == MIN_ROUND_WORDS
    assert choose_round_words(50_000, 2) == 25_000          # a corpus under one round: one round per epoch
    assert choose_round_words(1500, 2) == MIN_ROUND_WORDS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert choose_round_words(10 ** 8, 4, 2 * CLUSTER_ROUND_TOKENS // 4) == 2 * CLUSTER_ROUND_TOKENS // 4
        assert choose_round_words(10 ** 8, 1, 10 ** 7) == 10 ** 7     # one worker: nothing is stale
    with pytest.warns(RoundWordsWarning, match=r"^round_words=1,000,000 on 4 workers: the cluster trains "
                                                r"4,000,000 tokens between synchronizations"):
        assert choose_round_words(10 ** 8, 4, 1_000_000) == 1_000_000
