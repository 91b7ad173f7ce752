"""Progress ticks: about 100 per run, recorded shown or quiet, kept by checkpoints, in --report-json."""
import json

import pytest
from click.testing import CliRunner

from w2v.errors import FormatError
from w2v.training.progress import TICKS, Progress
from w2v.training.lifecycle import ROUND_KEYS, TICK_COLUMNS, RunResult
from w2v.settings import Settings

FAST = dict(dim=16, min_count=3, seed=3, threads=1)


def _feed(progress, total, step, epochs=1):
    """Report every ``step`` ids of a run of ``total`` ids, as a runner does."""
    per_epoch = total // epochs
    for done in list(range(step, total, step)) + [total]:
        progress.maybe_report(done, 2.0 * done, done, min(epochs - 1, (done - 1) // per_epoch))


@pytest.mark.parametrize("quiet", [True, False])
def test_a_tick_each_percent_shown_or_quiet(quiet, tmp_path):
    out = open(tmp_path / "log", "w")
    p = Progress(1_000_000, Settings(threads=1, epochs=1), stream=out, quiet=quiet, interval=3600)
    _feed(p, 1_000_000, 997)
    assert len(p.ticks) == TICKS
    fractions = [t[1] for t in p.ticks]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert all(abs(f - (k + 1) / TICKS) < 0.002 for k, f in enumerate(fractions))
    assert all(t[5] == pytest.approx(2.0) for t in p.ticks)          # the running loss of the epoch
    assert p.ticks[-1][4] == pytest.approx(Settings().min_alpha)     # the learning rate at the end


def test_ticks_are_bounded_whatever_the_epochs_and_calls():
    p = Progress(10_000 * 50, Settings(threads=1, epochs=10_000), quiet=True)
    _feed(p, 10_000 * 50, 7, epochs=10_000)
    assert len(p.ticks) <= TICKS + 1
    assert {t[2] for t in p.ticks} <= set(range(1, 10_001))


def test_big_steps_record_one_tick_each():
    p = Progress(1000, Settings(threads=1), quiet=True)
    _feed(p, 1000, 250)
    assert [t[1] for t in p.ticks] == [0.25, 0.5, 0.75, 1.0]


def test_a_resumed_progress_ticks_from_where_it_resumed():
    p = Progress(1000, Settings(threads=1, epochs=2), quiet=True)
    p.resume_from(500)
    for done in range(5, 501, 5):
        p.maybe_report(done, 1.0, 1, 1)
    assert len(p.ticks) == 50 and p.ticks[0][1] == pytest.approx(0.51)
    earlier = [[0, 1.0, 0.25, 1, 10.0, 0.02, 3.0], [0, 2.0, 0.5, 1, 10.0, 0.01, 2.5]]
    joined = p.run_ticks(earlier)
    assert joined[:2] == earlier and {r[0] for r in joined[2:]} == {1} and len(joined) == 52
    assert p.run_ticks()[0][0] == 0


def test_the_words_per_second_of_a_tick_is_the_rate_since_the_last(monkeypatch):
    clock = iter([0.0, 1.0, 3.0])
    monkeypatch.setattr("w2v.training.progress.time.perf_counter", lambda: next(clock))
    p = Progress(200, Settings(threads=1), quiet=True, words_per_id=2.0)
    p.maybe_report(100, 1.0, 1, 0)     # 100 ids in 1 s
    p.maybe_report(200, 1.0, 1, 0)     # 100 ids in 2 s more
    assert [t[3] for t in p.ticks] == [200.0, 100.0]


def test_report_json_holds_the_ticks_and_keeps_its_keys(small_corpus, tmp_path):
    from w2v_cli.main import main

    report = tmp_path / "r.json"
    result = CliRunner().invoke(main, ["train", str(small_corpus), "-o", str(tmp_path / "v.bin"), "--dim", "16",
                                       "--epochs", "2", "--threads", "1", "-q", "--report-json", str(report)])
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text())
    for key in ("corpus", "output", "vocab_size", "corpus_words", "trained_words", "kept_words", "examples",
                "epoch_loss", "vocab_seconds", "train_seconds", "kernel_load_seconds", "save_seconds",
                "total_seconds", "words_per_sec", "settings"):
        assert key in data
    assert data["progress"]["columns"] == list(TICK_COLUMNS)
    ticks = data["progress"]["ticks"]
    # a tick each 1% of the run, at the end of a job: this run has 32 jobs of 10,000 words
    assert 30 <= len(ticks) <= TICKS + 1 and "rounds" not in data
    assert {t[0] for t in ticks} == {0} and {t[3] for t in ticks} == {1, 2}
    assert ticks[-1][2] == 1.0 and all(t[6] is None or t[6] > 0 for t in ticks)


def test_a_checkpoint_keeps_the_ticks_and_the_resumed_run_joins_them(small_corpus, tmp_path):
    from w2v.model.word2vec import Word2Vec

    class Crash(Exception):
        pass

    m = Word2Vec(epochs=4, **FAST)

    def crash(epoch):
        m.save(str(tmp_path / "ckpt"))
        if epoch == 1:
            raise Crash

    with pytest.raises(Crash):
        m.train(str(small_corpus), on_epoch_end=crash)
    m.close()
    saved = json.loads((tmp_path / "ckpt" / "model.json").read_text())["training"]["progress"]
    assert len(saved) >= 25 and saved[-1][2] == 0.5
    resumed = Word2Vec.load(str(tmp_path / "ckpt"))
    assert resumed.run_state["progress"] == saved
    resumed.train(str(small_corpus))
    ticks = resumed.last_train.progress
    assert ticks[:len(saved)] == saved
    assert {t[0] for t in ticks[len(saved):]} == {1}
    fractions = [t[2] for t in ticks]
    assert fractions == sorted(fractions) and fractions[len(saved)] > 0.5 and len(ticks) >= 2 * len(saved) - 2
    assert resumed.last_train.progress_report()["progress"]["ticks"] == ticks


def test_a_new_run_starts_its_ticks_afresh(small_corpus, tmp_path):
    from w2v.model.word2vec import Word2Vec

    m = Word2Vec(epochs=2, **FAST).train(str(small_corpus), on_epoch_end=lambda e: None)
    m.save(str(tmp_path / "done"))
    again = Word2Vec.load(str(tmp_path / "done")).train(str(small_corpus))   # finished: a new run
    assert {t[0] for t in again.last_train.progress} == {0}


def test_a_malformed_progress_in_a_model_is_a_format_error(small_corpus, tmp_path):
    from w2v.model.word2vec import Word2Vec

    m = Word2Vec(epochs=1, **FAST).train(str(small_corpus), on_epoch_end=lambda e: None)
    m.save(str(tmp_path / "m"))
    path = tmp_path / "m" / "model.json"
    header = json.loads(path.read_text())
    header["training"]["progress"] = [[0, 1.0, "x"]]
    path.write_text(json.dumps(header))
    with pytest.raises(FormatError, match="training.progress"):
        Word2Vec.load(str(tmp_path / "m"))


def test_the_rounds_of_a_dask_run_are_reported_one_entry_each():
    # the network benchmark reads every round: its figures per worker and per merge task, 1-based numbers
    log = [dict(epoch=k // 3, round=k % 3, workers=2, tokens=1000 + k, wall_seconds=0.5 + k, seconds=0.5 + k,
                train_seconds=[0.3, 0.2 + k], merge_seconds=[0.1, 0.05], sent_bytes=[10, 20 + k],
                received_bytes=[30, 40], bytes_up=5, rows=[1, 2, 0]) for k in range(6)]
    result = RunResult([2.0, 1.9], 10, 10, 10, 5.0, device="dask", details={"distributed": {"log": log}})
    rounds = result.progress_report()["rounds"]
    assert len(rounds) == 6 and all(sorted(r) == sorted(ROUND_KEYS) for r in rounds)
    assert [(r["epoch"], r["round"]) for r in rounds] == [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3)]
    assert rounds[4]["train_seconds"] == [0.3, 4.2] and rounds[4]["sent_bytes"] == [10, 24]
    assert rounds[5]["tokens"] == 1005 and rounds[5]["wall_seconds"] == 5.5
    assert log[0]["epoch"] == 0   # the run's log is left as it is
    assert "rounds" not in RunResult([2.0], 1, 1, 1, 1.0).progress_report()


def test_a_device_that_asks_whether_a_tick_is_due_gets_them_in_every_span():
    # the GPU runner reads its statistics only when a line or a tick is due (tick_due); with
    # checkpoints each epoch is a span of its own, whose counts start again from 0
    from w2v.training.lifecycle import train_spans

    class Model:
        settings = Settings(threads=1, epochs=4)
        encoded_corpus = type("Encoded", (), {"length": 10_000})()
        run_state = {}

        def finish_epochs(self, done, result=None):
            pass

    def train_span(settings, progress, offset, total):
        for done in range(100, settings.epochs * 10_000 + 1, 100):
            if progress.tick_due(done):
                progress.maybe_report(done, 1.0, 1, (done - 1) // 10_000)
        return RunResult([1.0] * settings.epochs, 1, 1, 1, 1.0)

    progress = Progress(40_000, Model.settings, quiet=True)
    result = train_spans(Model(), 0, train_span, progress, on_epoch_end=lambda e: None)
    assert [t[2] for t in result.progress] == pytest.approx([k / 100 for k in range(1, 101)])
