"""Deterministic mode (w2v.training.lanes): the same file at any thread count, for the same seed and lanes."""
import hashlib

import numpy as np
import pytest
from click.testing import CliRunner

from w2v.errors import ParameterError
from w2v.training.lanes import LanePlan, run_key
from w2v.model.word2vec import Word2Vec
from w2v_cli.main import main


def train_cli(corpus, out, *extra):
    res = CliRunner().invoke(main, ["train", str(corpus), "-o", str(out), "--dim", "24", "--epochs", "2",
                                    "--min-count", "3", "--seed", "5", "-q", *extra])
    assert res.exit_code == 0, res.output
    return hashlib.sha256(out.read_bytes()).hexdigest()


def test_same_file_at_any_thread_count(small_corpus, tmp_path):
    digests = {t: train_cli(small_corpus, tmp_path / f"v{t}.bin", "--deterministic", "--threads", str(t))
               for t in (1, 2, 4)}
    assert len(set(digests.values())) == 1, digests
    # another seed, or other lanes, give other vectors (the file does depend on them)
    other_lanes = train_cli(small_corpus, tmp_path / "l.bin", "--deterministic", "--lanes", "3", "--threads", "2")
    assert other_lanes != digests[1]


@pytest.mark.parametrize("model", [["--model", "cbow", "--hs", "--negative", "3"], ["--exact"],
                                   ["--hs", "--negative", "0"]], ids=["cbow-hs-ns", "sg-exact", "sg-hs"])
def test_same_file_at_any_thread_count_in_every_mode(small_corpus, tmp_path, model):
    """A lane's private copy is brought up to date only on the rows the replay lists: the other modes too
    give the same file at any thread count (a row read but not listed would differ from copy to copy)."""
    digests = {t: train_cli(small_corpus, tmp_path / f"v{t}.bin", "--deterministic", "--threads", str(t),
                            "--lanes", "5", "--round-words", "300", "--epochs", "1", *model)
               for t in (1, 3)}
    assert len(set(digests.values())) == 1, digests


def test_bundled_corpus_same_file(tmp_path):
    """The bundled corpus (the demo run's), deterministic at 1, 2 and 4 threads."""
    from tests.conftest import BUNDLED

    digests = {t: train_cli(BUNDLED, tmp_path / f"b{t}.bin", "--deterministic", "--threads", str(t),
                            "--epochs", "1", "--lanes", "8")
               for t in (1, 2, 4)}
    assert len(set(digests.values())) == 1, digests


def test_api_records_mode_and_trains_well(small_corpus, tmp_path):
    m = Word2Vec(dim=24, epochs=2, min_count=3, seed=5, threads=2, deterministic=True, lanes=4)
    m.train(str(small_corpus))
    assert m.last_train.details["deterministic"] and m.last_train.details["lanes"] == 4
    assert m.rng_states.shape == (1, 1)
    assert np.isfinite(m.syn0).all() and m.last_train.epoch_loss[1] < m.last_train.epoch_loss[0]
    m.save(tmp_path / "model")
    back = Word2Vec.load(tmp_path / "model")
    assert back.settings.deterministic and back.settings.lanes == 4 and back.settings.seed == 5
    assert np.array_equal(back.syn0, m.syn0)


def test_hogwild_stays_the_default(small_corpus):
    m = Word2Vec(dim=16, epochs=1, min_count=3, seed=5, threads=1)
    assert not m.settings.deterministic
    m.train(str(small_corpus))
    assert "deterministic" not in (m.last_train.details or {})


@pytest.mark.parametrize("kwargs, text", [({"lanes": 0}, "lanes"), ({"lanes": 5000}, "lanes"),
                                          ({"round_words": 0}, "round_words"),
                                          ({"deterministic": "yes"}, "deterministic")])
def test_bad_settings(kwargs, text):
    with pytest.raises(ParameterError, match=text):
        Word2Vec(**kwargs)


@pytest.mark.parametrize("args, text", [(["--lanes", "4"], "--lanes needs --deterministic"),
                                        (["--deterministic", "--dask-workers", "2"], "one machine"),
                                        (["--deterministic", "--lanes", "0"], "lanes")])
def test_cli_refuses(small_corpus, tmp_path, args, text):
    res = CliRunner().invoke(main, ["train", str(small_corpus), "-o", str(tmp_path / "v.bin"), "-q", *args])
    assert res.exit_code != 0 and text in res.output and "Traceback" not in res.output, res.output


def test_lane_plan_covers_the_stream():
    plan = LanePlan(1000, 7, 30)
    seen = np.zeros(1000, int)
    for r in range(plan.rounds):
        for a, b in plan.slices(r):
            seen[a:b] += 1
    assert (seen == 1).all()
    assert plan.position(plan.rounds) == 1000 and plan.round_at(plan.position(2)) == 2
    with pytest.raises(ParameterError):
        plan.round_at(1)


def test_run_key():
    a = run_key(None, 5, True)
    assert a.shape == (1, 1) and np.array_equal(a, run_key(None, 5, True))
    assert np.array_equal(run_key(a, 5, False), a)       # resumed: the same key
    assert not np.array_equal(run_key(a, 5, True), a)    # a new run on a trained model: a new key


def test_report_info_and_progress_say_how_to_reproduce(small_corpus, tmp_path):
    import json

    import w2v

    ck, rep = tmp_path / "ck", tmp_path / "r.json"
    res = CliRunner().invoke(main, ["train", str(small_corpus), "-o", str(tmp_path / "v.bin"), "--dim", "16",
                                    "--epochs", "2", "--min-count", "3", "--seed", "6", "--deterministic",
                                    "--lanes", "4", "--checkpoint", str(ck), "--checkpoint-words", "50000",
                                    "--report-json", str(rep)])
    assert res.exit_code == 0, res.output
    assert "deterministic 4 lanes seed 6" in res.output and "checkpoint " in res.output
    r = json.loads(rep.read_text(encoding="utf-8"))["reproducibility"]
    assert r["deterministic"] and r["lanes"] == 4 and r["seed"] == 6 and r["w2v_version"] == w2v.__version__
    assert r["last_checkpoint"]["path"] == str(ck) and r["last_checkpoint"]["at_epoch_end"]
    assert len(r["corpus_fingerprint"]["hash"]) == 32
    info = CliRunner().invoke(main, ["info", str(ck)])
    assert info.exit_code == 0, info.output
    assert f"w2v version: {w2v.__version__}" in info.output
    assert "reproduce:   deterministic, 4 lanes" in info.output and "seed 6" in info.output
    assert f"fingerprint {r['corpus_fingerprint']['hash']}" in info.output
    assert "run:         2 of 2 epochs done" in info.output


def test_same_vectors_when_the_corpus_is_on_disk(small_corpus):
    """A corpus beyond the memory budget is read from its temporary file, by the calling thread."""
    out = []
    for threads in (1, 4):
        m = Word2Vec(dim=16, epochs=1, min_count=3, seed=2, threads=threads, deterministic=True, lanes=8,
                     memory_budget=0)
        m.train(str(small_corpus))
        assert m.encoded_corpus.on_disk
        out.append(m.syn0.copy())
    assert np.array_equal(out[0], out[1])


def _round_of_changes(rng, weights, lanes, parts):
    """RoundChanges holding random changes of ``lanes`` lanes (some rows changed by several)."""
    from w2v.training.lanes import RoundChanges

    changes = RoundChanges(weights, parts, lanes, [w.shape[0] for w in weights])
    for m, w in enumerate(weights):
        for lane in range(lanes):
            rows = rng.choice(w.shape[0], int(rng.integers(1, w.shape[0])), replace=False).astype(np.int32)
            changes.n[m, lane] = rows.size
            changes.idx[m][lane, :rows.size] = rows
            changes.counts[m][lane, :rows.size] = rng.integers(1, 50, rows.size)
            changes.lane_deltas(m, lane)[:rows.size] = rng.normal(0, 0.01, (rows.size, w.shape[1]))
    return changes


def test_round_merge_sums_each_row_in_lane_order_whatever_the_split():
    """Each row gets its lanes' changes summed in lane order times the saturation factor: the same bytes
    whether one thread merges or several split the rows."""
    from concurrent.futures import ThreadPoolExecutor

    from w2v.kernels.lanes import saturation_factor
    from w2v.training.lanes import SATURATION

    rng = np.random.default_rng(3)
    start = [rng.normal(0, 0.1, (40, 7)).astype(np.float32), rng.normal(0, 0.1, (30, 7)).astype(np.float32)]
    results = []
    for parts in (1, 2, 5):
        weights = [w.copy() for w in start]
        changes = _round_of_changes(np.random.default_rng(8), weights, 6, parts)
        if parts == 1:
            expect = []
            for m, w in enumerate(start):
                acc, pushes = np.zeros(w.shape, np.float64), np.zeros(w.shape[0], np.int64)
                for lane in range(6):
                    k = changes.n[m, lane]
                    for i, c, d in zip(changes.idx[m][lane, :k], changes.counts[m][lane, :k],
                                       changes.lane_deltas(m, lane)[:k]):
                        acc[i] += d.astype(np.float64)
                        pushes[i] += c
                f = np.array([saturation_factor(SATURATION[m] * 0.02, p) for p in pushes])
                expect.append(w + (acc * f[:, None]).astype(np.float32))
        with ThreadPoolExecutor(3) as pool:
            changes.merge(weights, 0.02, pool if parts > 1 else None)
        for w, e in zip(weights, expect):
            assert np.array_equal(w, e)
        results.append(weights)
        assert not changes.n.any() and all((p == 0).all() for p in changes.pushes)   # ready for the next round
    assert all(np.array_equal(a, b) for r in results[1:] for a, b in zip(results[0], r))


def test_round_merge_refuses_a_diverged_round():
    from w2v.errors import W2VError

    rng = np.random.default_rng(4)
    weights = [np.zeros((10, 4), np.float32), np.zeros((10, 4), np.float32)]
    changes = _round_of_changes(rng, weights, 2, 1)
    changes.lane_deltas(1, 1)[0, 2] = np.nan
    with pytest.raises(W2VError, match="diverged"):
        changes.merge(weights, 0.025)


def test_a_round_too_large_for_memory_is_a_parameter_error(small_corpus, monkeypatch):
    """The buffers of a round's changes grow with lanes x round_words: no room is a clear error."""
    import w2v.training.lanes

    def no_memory(*args):
        raise MemoryError

    monkeypatch.setattr(w2v.training.lanes.RoundChanges, "__init__", no_memory)
    m = Word2Vec(dim=8, epochs=1, min_count=3, seed=1, deterministic=True, lanes=1024, round_words=1 << 20)
    with pytest.raises(ParameterError, match="lower lanes or round_words"):
        m.train(str(small_corpus))
