"""Training on a Dask cluster: a LocalCluster of 2 worker processes x 1 thread inside the test run.

Checks: merged vocabulary counts equal a single pass exactly; vectors within
2 analogy points and 0.03 WS-353 Spearman of single-process training with
the same settings; a worker killed during a round; the scheduler going away
(one-line error, checkpoint intact); the CLI options.
"""
import contextlib
import json
import logging
import lzma
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from w2v import Word2Vec  # noqa: E402
from w2v.text.scanning import scan_corpus  # noqa: E402
from w2v.distributed import DistributedError, count_corpus, dask_client  # noqa: E402
from w2v.errors import CorpusWarning  # noqa: E402
from w2v.errors import ResumeWarning  # noqa: E402
from w2v.text.vocab import build_vocab  # noqa: E402

from ..conftest import BUNDLED, EVAL, ROOT  # noqa: E402

FAST = dict(dim=32, min_count=3, seed=3)


def _local_cluster():
    return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                    dashboard_address=":0", silence_logs=logging.CRITICAL)


@pytest.fixture(scope="module")
def client():
    with _local_cluster() as cluster, distributed.Client(cluster, set_as_default=False) as c:
        c.wait_for_workers(2, timeout=60)
        yield c


@pytest.fixture(scope="module")
def bundled_plain(tmp_path_factory):
    """The bundled corpus decompressed (a compressed file would be one shard, one lane)."""
    path = tmp_path_factory.mktemp("bundled") / "corpus-small.txt"
    with lzma.open(BUNDLED, "rb") as src:
        path.write_bytes(src.read())
    return path


def test_merged_vocabulary_counts_equal_single_process(client, small_corpus, tmp_path):
    packed = tmp_path / "extra.txt.xz"
    with lzma.open(packed, "wt", encoding="utf-8") as f:
        f.write("zebra quagga zebra\nthe of and\n" * 50)
    files = [str(small_corpus), str(packed)]
    single = scan_corpus(files, tokenizer="simple")
    words, counts = count_corpus(client, files, tokenizer="simple", shard_bytes=100_000)
    assert words == single.words                 # first-occurrence order, shard by shard
    assert np.array_equal(counts, single.counts)
    single.stream.close()

    m = Word2Vec(epochs=1, **FAST).train(str(small_corpus), client=client, round_words=40_000)
    ref = scan_corpus([str(small_corpus)])
    vocab, _ = build_vocab(ref.words, ref.counts, FAST["min_count"])
    ref.stream.close()
    assert m.vocab.words == vocab.words and np.array_equal(m.vocab.counts, vocab.counts)
    d = m.last_train.details["distributed"]
    assert d["workers"] == 2 and d["lanes"] == 2 and d["rounds"] >= 2
    assert m.last_train.words == int(vocab.counts.sum())    # every token seen once
    assert 0 < d["bytes_up_per_round"] <= 2 * 2 * len(vocab) * (FAST["dim"] * 4 + 4)
    assert np.all(np.isfinite(m.syn0)) and np.isfinite(m.last_train.epoch_loss[0])


def _scores(m):
    from w2v.vectors.evaluate import evaluate_word_analogies, evaluate_word_pairs
    acc = evaluate_word_analogies(m.wv, EVAL / "questions-words.txt")[0]
    rho = evaluate_word_pairs(m.wv, EVAL / "wordsim353.tsv")[1][0]
    return acc, rho


@pytest.mark.slow
def test_quality_matches_single_process(client, bundled_plain):
    settings = dict(dim=100, model="sg", window=5, negative=5, sample=1e-3, min_count=5, epochs=3,
                    tokenizer="simple")
    single, dist = [], []
    for seed in (1, 2):
        single.append(_scores(Word2Vec(threads=2, seed=seed, **settings).train(str(bundled_plain))))
        m = Word2Vec(seed=seed, **settings).train(str(bundled_plain), client=client, round_words=200_000)
        assert m.last_train.details["distributed"]["rounds_per_epoch"] >= 4
        dist.append(_scores(m))
    (s_acc, s_rho), (d_acc, d_rho) = np.mean(single, axis=0), np.mean(dist, axis=0)
    print(f"analogy single {s_acc:.4f} dask {d_acc:.4f}; WS-353 single {s_rho:.3f} dask {d_rho:.3f}")
    assert s_acc > 0.03, "single-process baseline unexpectedly weak: the comparison would say nothing"
    assert d_acc >= s_acc - 0.02
    assert d_rho >= s_rho - 0.03


def test_worker_killed_during_a_round(small_corpus):
    state = {"seen_running": False, "victim_pid": None}

    with _local_cluster() as cluster, distributed.Client(cluster, set_as_default=False) as c:
        c.wait_for_workers(2, timeout=60)
        pids = c.run(os.getpid)

        def hook(info):
            if (info["epoch"], info["round"]) != (0, 1):
                return
            victim = info["workers"][0]                  # lane 0 is pinned there
            key = info["futures"][0].key
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                if key in c.processing().get(victim, ()):
                    state["seen_running"] = True
                    break
                time.sleep(0.005)
            time.sleep(0.05)
            state["victim_pid"] = pids[victim]
            os.kill(pids[victim], signal.SIGKILL)

        t0 = time.monotonic()
        m = Word2Vec(epochs=2, dim=64, min_count=3, seed=3).train(str(small_corpus), client=c,
                                                                  round_words=30_000, _round_hook=hook)
        elapsed = time.monotonic() - t0
        assert state["victim_pid"] is not None and state["victim_pid"] not in c.run(os.getpid).values()
    assert state["seen_running"], "the kill did not hit a running round task"
    assert elapsed < 60
    lt = m.last_train
    assert len(lt.epoch_loss) == 2 and np.all(np.isfinite(lt.epoch_loss))
    assert lt.epoch_loss[1] < lt.epoch_loss[0]
    assert np.all(np.isfinite(m.syn0)) and np.all(np.isfinite(m.syn1neg))
    assert lt.details["distributed"]["rounds"] == 2 * lt.details["distributed"]["rounds_per_epoch"]
    assert lt.words == 2 * int(m.vocab.counts.sum())   # the lost slice was trained once, not dropped


def test_worker_without_current_weights_gets_the_full_state(client, small_corpus):
    from w2v.distributed.worker import forget_run

    def hook(info):
        # called as round 2 is submitted, while round 1 trains: a replica lost then (as
        # if a fresh worker took over) makes round 1 or round 2 of that lane "stale"
        # (round 0 would start from the full weights and just rebuild it)
        if (info["epoch"], info["round"]) == (0, 2):
            client.run(forget_run, info["run_id"], workers=[info["workers"][1]])

    m = Word2Vec(epochs=1, **FAST).train(str(small_corpus), client=client, round_words=30_000,
                                         _round_hook=hook)
    log = m.last_train.details["distributed"]["log"]
    assert m.last_train.details["distributed"]["rounds_per_epoch"] >= 3
    assert sum(x["fallbacks"] for x in log) >= 1
    assert m.last_train.words == int(m.vocab.counts.sum())
    assert np.all(np.isfinite(m.syn0))


def _start(cmd, log):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def _stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.slow
def test_scheduler_lost_exits_with_one_line_error_and_checkpoint_intact(small_corpus, tmp_path):
    sched_file = tmp_path / "scheduler.json"
    log = open(tmp_path / "cluster.log", "wb")
    scheduler = _start([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                        "--port", "0", "--no-dashboard", "--scheduler-file", str(sched_file)], log)
    workers = None
    try:
        deadline = time.monotonic() + 60
        while not sched_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(sched_file.read_text())["address"]
        workers = _start([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "2",
                          "--nthreads", "1", "--no-dashboard", "--death-timeout", "10"], log)
        with distributed.Client(address, timeout=30, set_as_default=False) as c:
            c.wait_for_workers(2, timeout=60)
        ckpt, out = tmp_path / "ckpt", tmp_path / "vectors.bin"
        train = subprocess.Popen(
            [sys.executable, "-m", "w2v_cli.main", "train", str(small_corpus), "--scheduler", address,
             "--epochs", "40", "--dim", "16", "--min-count", "3", "--round-words", "20000",
             "--checkpoint", str(ckpt), "-o", str(out), "-q"],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 90
            while not (ckpt / "model.json").exists() and train.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert train.poll() is None, train.communicate()
            time.sleep(0.3)
            os.killpg(scheduler.pid, signal.SIGKILL)
            killed = time.monotonic()
            _, err = train.communicate(timeout=60)
        finally:
            if train.poll() is None:
                train.kill()
                train.wait()
        assert time.monotonic() - killed < 30
        assert train.returncode == 1
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert lines[0].startswith("Error: lost the connection to the Dask scheduler at " + address)
        assert "--resume" in lines[0]
        assert not out.exists()
        m = Word2Vec.load(str(ckpt))
        assert 1 <= m.run_state["epochs_done"] < 40
        assert np.all(np.isfinite(m.syn0)) and np.all(np.isfinite(m.syn1neg))
    finally:
        for p in (workers, scheduler):
            if p is not None:
                _stop(p)
        log.close()


def test_cli_dask_workers_writes_the_same_files(small_corpus, tmp_path):
    from click.testing import CliRunner

    from w2v_cli.main import main

    out, report = tmp_path / "v.bin", tmp_path / "r.json"
    res = CliRunner().invoke(main, ["train", str(small_corpus), "--dask-workers", "2", "--epochs", "1",
                                    "--dim", "16", "--min-count", "3", "--round-words", "40000",
                                    "-o", str(out), "--report-json", str(report), "-q"])
    assert res.exit_code == 0, res.output
    from w2v import load
    kv = load(str(out))
    r = json.loads(report.read_text())
    assert len(kv.index_to_key) == r["vocab_size"] and kv.vectors.shape[1] == 16
    assert r["words_per_sec"] > 0 and len(r["epoch_loss"]) == 1
    # the rounds, one entry each, as the network benchmark reads them
    assert r["round_words"] == 40000 and r["merge"] == "scaled"
    rounds = r["rounds"]
    assert len(rounds) >= 2 and [(x["epoch"], x["round"]) for x in rounds] == [(1, k + 1) for k in range(len(rounds))]
    assert sum(x["tokens"] for x in rounds) == r["trained_words"]
    for x in rounds:
        assert x["workers"] == 2 and len(x["train_seconds"]) == 2 and len(x["merge_seconds"]) == 2
        assert len(x["sent_bytes"]) == len(x["received_bytes"]) == 2 and min(x["sent_bytes"]) > 0
        assert x["wall_seconds"] > 0 and min(x["train_seconds"]) > 0
    # the same vocabulary, in the same order, as one process builds; the vectors were trained
    single = Word2Vec(dim=16, min_count=3, threads=1, seed=1).build_vocab(str(small_corpus))
    assert kv.index_to_key == single.vocab.words
    assert np.all(np.isfinite(kv.vectors))
    moved = np.abs(kv.vectors - single.syn0).max(axis=1)   # the same seed starts from these rows
    assert np.mean(moved > 1e-3) > 0.9


def test_cli_round_words_beyond_the_quality_range_is_one_warning_line(small_corpus, tmp_path):
    cmd = [sys.executable, "-m", "w2v_cli.main", "train", str(small_corpus), "--dask-workers", "2", "--epochs", "1",
           "--dim", "8", "--min-count", "3", "--round-words", "200000", "-o", str(tmp_path / "v.bin"), "-q"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: round_words=200,000 on 2 workers: the cluster trains "
                                                   "400,000 tokens between synchronizations"), proc.stderr
    assert (tmp_path / "v.bin").exists()


def test_cli_corrupt_corpus_on_dask_is_one_line(small_corpus, tmp_path):
    # the local cluster's workers logged each try's traceback before the client's one-line error
    import gzip
    raw = bytearray(gzip.compress(small_corpus.read_bytes()[:200_000]))
    raw[len(raw) // 2] ^= 0xFF
    bad = tmp_path / "bad.txt.gz"
    bad.write_bytes(bytes(raw))
    cmd = [sys.executable, "-c", "from w2v_cli.main import main; main()", "train", str(bad), "--dask-workers", "1",
           "--epochs", "1", "--dim", "8", "-o", str(tmp_path / "v.bin"), "-q"]
    import socket
    with socket.socket() as taken:
        try:   # dashboard_address=None took port 8787 all the same and warned when it was busy
            taken.bind(("", 8787))
            taken.listen()
        except OSError:
            pass   # busy already
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"Error: cannot read corpus {bad}: ")
    assert not (tmp_path / "v.bin").exists()


def test_unreachable_scheduler_is_a_clear_error():
    with pytest.raises(DistributedError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        with dask_client("tcp://127.0.0.1:9", connect_timeout=1):
            pass


def test_options_are_checked(client, small_corpus):
    from w2v.errors import ParameterError
    with pytest.raises(ParameterError):
        Word2Vec(**FAST).train(str(small_corpus), client=client, round_words=0)
    with pytest.raises(ParameterError):
        Word2Vec(**FAST).train(str(small_corpus), client=client, merge="sum")
    with pytest.raises(TypeError):
        Word2Vec(**FAST).train(str(small_corpus), round_words=10)


def test_undecodable_bytes_are_reported_as_in_one_process(client, tmp_path):
    p = tmp_path / "bad.txt"
    p.write_bytes(b"the cat sat on caf\xe9 mat \xff\xfe the cat sat\n" * 40)
    with pytest.warns(CorpusWarning, match=r"bad.txt: bytes that are not UTF-8 were read as U\+FFFD: "
                                           r"80 tokens \(2 distinct words\) hold it"):
        m = Word2Vec(**{**FAST, "epochs": 1}).train(str(p), client=client)
    assert "caf\ufffd" in m.wv


def test_undecodable_bytes_dropped_by_the_simple_tokenizer_are_reported_as_in_one_process(client, tmp_path):
    # the shard reader once decoded with plain errors="replace" and counted nothing: no warning
    p = tmp_path / "bad.txt"
    p.write_bytes(b"the cat sat on caf\xe9 mat \xff\xfe the cat sat\n" * 40)
    message = (r"bad.txt: bytes that are not UTF-8 were read as U\+FFFD: 120 byte sequences, "
               r"which the simple tokenizer then dropped")
    kw = {**FAST, "epochs": 1, "tokenizer": "simple"}
    with pytest.warns(CorpusWarning, match=message):
        Word2Vec(**kw).train(str(p))
    with pytest.warns(CorpusWarning, match=message):
        Word2Vec(**kw).train(str(p), client=client)


@pytest.mark.parametrize("tokenizer, detail", [
    ("simple", r"3,000 byte sequences, which the simple tokenizer then dropped"),
    ("whitespace", r"2,000 tokens \(2 distinct words\) hold it"),
])
def test_undecodable_bytes_in_byte_range_shards_and_with_a_vocabulary_are_reported_as_in_one_process(
        client, tmp_path, tokenizer, detail):
    # 1,000 lines (about 44 KB) cut into byte-range shards of 16 KiB (the range reader, not open_text);
    # then the same corpus given to a model that has its vocabulary (one process warns there too)
    p = tmp_path / "bad.txt"
    p.write_bytes(b"the cat sat on caf\xe9 mat \xff\xfe the cat sat\n" * 1000)
    message = r"bad.txt: bytes that are not UTF-8 were read as U\+FFFD: " + detail
    kw = {**FAST, "epochs": 1, "tokenizer": tokenizer}
    with pytest.warns(CorpusWarning, match=message):
        m = Word2Vec(**kw).train(str(p), client=client, shard_bytes=1 << 14)
    assert m.last_train.details["distributed"]["shards"] >= 2
    with pytest.warns(CorpusWarning, match=message):
        Word2Vec(**kw).train(str(p)).train(str(p))
    with pytest.warns(CorpusWarning, match=message):
        m.train(str(p), client=client, shard_bytes=1 << 14)


def _checkpoint_after_first_of_3_epochs(client, corpus, ckpt):
    """A 3-epoch Dask run saved to ``ckpt`` after its first epoch and stopped there: (model, loaded checkpoint)."""
    class Stop(Exception):
        pass

    m = Word2Vec(epochs=3, **FAST)

    def on_epoch_end(epoch):
        m.save(str(ckpt))
        if epoch == 0:
            raise Stop

    with pytest.raises(Stop):
        m.train(str(corpus), client=client, round_words=40_000, on_epoch_end=on_epoch_end)
    return m, Word2Vec.load(str(ckpt))


def test_checkpoint_then_resume_runs_the_remaining_epochs(client, small_corpus, tmp_path):
    ckpt = tmp_path / "ckpt"

    m, saved = _checkpoint_after_first_of_3_epochs(client, small_corpus, ckpt)
    assert saved.run_state["epochs_done"] == 1 and saved.run_state["epochs"] == 3
    before = np.array(saved.syn0, copy=True)
    resumed = saved.train(str(small_corpus), client=client, round_words=40_000)
    # it went on from the checkpoint's weights: the frequent words' rows moved but kept
    # their direction (a run restarted from random rows would be at cosine ~0 to them)
    a, b = before[:200], resumed.syn0[:200]
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    assert not np.array_equal(a, b) and np.median(cos) > 0.5, np.median(cos)
    assert resumed.last_train.first_epoch == 1 and len(resumed.last_train.epoch_loss) == 2
    assert resumed.run_state["epochs_done"] == 3
    assert resumed.vocab.words == m.vocab.words

    # the checkpoint given another corpus starts a new run over it, and says so
    other = tmp_path / "other.txt"
    other.write_text("".join(small_corpus.read_text(encoding="utf-8").splitlines(True)[:1500]), encoding="utf-8")
    with pytest.warns(ResumeWarning, match="unfinished run .1 of 3 epochs. over another corpus"):
        fresh = Word2Vec.load(str(ckpt)).train(str(other), client=client, round_words=40_000)
    assert fresh.last_train.first_epoch == 0 and len(fresh.last_train.epoch_loss) == 3
    assert fresh.run_state["epochs_done"] == 3 and fresh.run_state["corpus_words"] < saved.run_state["corpus_words"]


def test_dask_checkpoint_resumes_in_one_process_and_back(client, small_corpus, tmp_path):
    # Dask's stream length depends on where the shards were cut (a sentence end more per cut
    # inside a line), so a Dask checkpoint is the same corpus by its in-vocabulary tokens,
    # also when it is resumed in one process (it was taken for another corpus: a warning and
    # a new run from epoch 1)
    import warnings

    ckpt = tmp_path / "ckpt"
    one_line = tmp_path / "one-line.txt"   # text8-style: shards are cut inside the line
    one_line.write_text(" ".join(small_corpus.read_text(encoding="utf-8").split()), encoding="utf-8")

    _, saved = _checkpoint_after_first_of_3_epochs(client, one_line, ckpt)
    assert saved.run_state["epochs_done"] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResumeWarning)
        resumed = saved.train(str(one_line))
    assert resumed.last_train.first_epoch == 1 and len(resumed.last_train.epoch_loss) == 2
    assert resumed.run_state["epochs_done"] == 3

    # another corpus still starts a new run, and says so
    other = tmp_path / "other.txt"
    other.write_text("".join(small_corpus.read_text(encoding="utf-8").splitlines(True)[:1500]), encoding="utf-8")
    with pytest.warns(ResumeWarning, match="over another corpus"):
        fresh = Word2Vec.load(str(ckpt)).train(str(other))
    assert fresh.last_train.first_epoch == 0


def test_ctrl_c_while_the_local_cluster_starts_leaves_no_traceback():
    # Ctrl-C while LocalCluster() started its workers: the half-started cluster was left to
    # distributed's atexit hook, whose close failed (an assertion on the workers' status)
    # and printed a 25-line traceback after the CLI's "interrupted"
    script = (
        "import os, signal, threading, time\n"
        "from distributed.deploy.spec import SpecCluster\n"
        "from w2v.distributed import dask_client\n"
        "def poke():\n"
        "    while not any(getattr(c, '_created', None) for c in list(SpecCluster._instances)):\n"
        "        time.sleep(0.002)\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "threading.Thread(target=poke, daemon=True).start()\n"
        "try:\n"
        "    with dask_client(n_workers=2):\n"
        "        time.sleep(30)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted')\n")
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         cwd=str(ROOT))
    assert res.returncode == 0 and res.stdout.strip() == "interrupted", (res.stdout, res.stderr)
    # (a worker process being spawned at that moment may still print its own EOFError)
    assert "atexit" not in res.stderr and "AssertionError" not in res.stderr, res.stderr


def test_the_only_worker_killed_during_a_round(small_corpus):
    # one worker (--dask-workers 1), killed and restarted by its nanny: the weights scattered to
    # it and the merged updates are gone and cannot be recomputed, so Dask cancels the round.
    # The run stopped with "Dask cancelled the training tasks: 1 Future cancelled:"; the round
    # is now trained again from the driver's weights (the lost shards rebuilt from lineage
    # once the new worker is there)
    killed = []
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=logging.CRITICAL) as cluster, \
            distributed.Client(cluster, set_as_default=False) as c:
        c.wait_for_workers(1, timeout=60)
        pids = c.run(os.getpid)

        def hook(info):
            if (info["epoch"], info["round"]) == (0, 2) and not killed:
                killed.append(pids[info["workers"][0]])
                time.sleep(0.1)
                os.kill(killed[0], signal.SIGKILL)

        m = Word2Vec(epochs=1, **FAST).train(str(small_corpus), client=c, round_words=20_000, _round_hook=hook)
        assert killed and killed[0] not in c.run(os.getpid).values()
    lt = m.last_train
    assert lt.details["distributed"]["rounds_per_epoch"] >= 4 and lt.details["distributed"]["fallbacks"] >= 1
    assert lt.words == int(m.vocab.counts.sum())   # every round trained once
    assert np.all(np.isfinite(m.syn0)) and np.isfinite(lt.epoch_loss[0])


def test_ctrl_c_on_a_terminal_reaches_only_the_driver():
    # a terminal's Ctrl-C signals its whole foreground process group, the local cluster's worker
    # processes too: each printed a KeyboardInterrupt traceback under the CLI's "interrupted",
    # while the driver closes the cluster anyway
    script = (
        "import time\n"
        "from w2v.distributed import dask_client\n"
        "try:\n"
        "    with dask_client(n_workers=2) as client:\n"
        "        client.wait_for_workers(2, timeout=60)\n"
        "        print('ready', flush=True)\n"
        "        time.sleep(60)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=str(ROOT), start_new_session=True)
    try:
        assert proc.stdout.readline() == "ready\n", proc.stderr.read()
        os.killpg(proc.pid, signal.SIGINT)     # what the terminal does on Ctrl-C
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0 and out == "interrupted\n", (out, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


# --------------------------------------------------------------------------- one-process reference of the rounds
def _two_files(small_corpus, tmp_path):
    """Two files under 64 KiB (one shard each, on the worker of lane 0 and of lane 1)."""
    lines = small_corpus.read_text(encoding="utf-8").splitlines(True)
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("".join(lines[:150]), encoding="utf-8")
    b.write_text("".join(lines[150:200]), encoding="utf-8")
    assert a.stat().st_size < 1 << 16
    return a, b


def _encoded_ids(model, path):
    """``path`` encoded with ``model``'s vocabulary by the one-process reader (sentence ends as -1)."""
    from w2v.text.encoded import encode_corpus
    scanned = scan_corpus([str(path)])
    remap = np.array([model.vocab.index.get(w, -2) for w in scanned.words], np.int32)
    enc = encode_corpus(scanned, remap, len(model.vocab))
    ids = enc.stream.read(0, enc.length)
    enc.close()
    return ids


def _rounds_in_one_process(settings, files, round_words, merge, epochs_range=None, model=None, ranges=1):
    """The Dask run done in this process: rounds of one slice per lane, merged as the driver does.

    Each file is one shard; the blocks of the files' streams are dealt to the lanes in turn
    (:func:`w2v.distributed.plan.deal_blocks`).
    In round ``r`` of ``R`` (``R = ceil(stream length / (lanes x round_words))``) lane ``k`` trains
    tokens ``[n_k r / R, n_k (r + 1) / R)`` of its file from the weights at the round's start,
    at the global position of the round's first tokens, the learning rate times the merge rule's
    multiple for the lanes that train in the round (:meth:`MergeRule.lr_scale`); the changed rows
    are merged (:func:`w2v.distributed.merge.merge_updates`, weighted by the updates behind them for
    the "scaled" rule) and added.
    Returns ``(model, per-epoch stats, R, stream length, per-round log)``.
    """
    from w2v.distributed import changed_rows, merge_round
    from w2v.distributed.merge import expected_updates, merge_rule
    from w2v.distributed.plan import DEAL_BLOCK, deal_blocks
    from w2v.distributed.worker import train_slice
    from w2v.training.hogwild import kernel_params

    m = model if model is not None else Word2Vec(**settings).build_vocab([str(f) for f in files])
    s = m.settings
    rule = merge_rule(merge)
    shards = [_encoded_ids(m, f) for f in files]   # one shard per file
    offsets = np.cumsum([0] + [x.size for x in shards[:-1]])
    lanes = [np.concatenate([deal_blocks(x, off, DEAL_BLOCK, len(files), k) for x, off in zip(shards, offsets)])
             for k in range(len(files))]
    length = sum(x.size for x in lanes)
    n_rounds = -(-length // (len(lanes) * round_words))
    weights = [m.syn0, m.syn1neg, m.syn1]
    setup = {"tables": m.tables, "params": dict(kernel_params(s), seed=s.seed)}
    stats = np.zeros((s.epochs, 4))
    log = []
    for epoch in (epochs_range or range(s.epochs)):
        for r in range(n_rounds):
            bounds = [(x.size * r // n_rounds, x.size * (r + 1) // n_rounds) for x in lanes]
            active = [k for k, (lo, hi) in enumerate(bounds) if hi > lo]
            position = epoch * length + sum(a for a, _ in bounds)
            alpha = max(s.alpha - (s.alpha - s.min_alpha) * min(position / (s.epochs * length), 1.0), s.min_alpha)
            lr_scale = rule.lr_scale(len(active), s.alpha)
            parts, seen = [], 0
            for k in active:
                lo, hi = bounds[k]
                work = [w.copy() for w in weights]
                sched = dict(lane=k, round=(epoch, r), position=position,
                             round_total=sum(b - a for a, b in bounds), total=s.epochs * length,
                             lr_scale=lr_scale)
                tokens = lanes[k][lo:hi].copy()
                lane_stats = train_slice(tokens, work, setup, sched, 1)
                stats[epoch] += lane_stats
                seen += int(lane_stats[3])
                rows = [changed_rows(w, b) for w, b in zip(work, weights)]
                if rule.counts_updates:
                    n = expected_updates(tokens, m.tables, setup["params"], [w.shape for w in weights])
                    rows = [(i, q, sc, nm[i].astype(np.float32)) for (i, q, sc), nm in zip(rows, n)]
                parts.append(rows)
            update = merge_round(weights, parts, lr_scale, rule.saturation(alpha, lr_scale))
            log.append(dict(epoch=epoch, round=r, tokens=seen, lr_scale=lr_scale,
                            bytes_up=sum(a.nbytes for p in parts for x in p for a in x),
                            # the update goes to every lane's next task, those that sit it out included
                            bytes_down=sum(a.nbytes for u in update for a in u) * len(lanes),
                            rows=[int(u[0].size) for u in update]))
    return m, stats, n_rounds, length, log


@pytest.mark.parametrize("merge, tiny, ranges, alpha", [
    ("scaled", False, None, 0.025), ("scaled", False, 1, 0.025), ("mean", False, None, 0.025),
    ("touched", False, 1, 0.025),
    ("scaled", False, None, 0.15),   # 2 lanes at 0.2 / 0.15 times the rate: rows both changed are weighed
    ("mean", True, None, 0.025),     # one block of ids: lane 1 gets none and sits every round out
])
def test_rounds_equal_the_one_process_reference_bit_for_bit(client, small_corpus, tmp_path, merge, tiny, ranges,
                                                             alpha):
    # the same vectors whether one merge task takes every lane's rows or each of 2 merges its range
    from w2v.training.lifecycle import run_totals

    if tiny:
        files = [tmp_path / "a.txt", tmp_path / "b.txt"]
        files[0].write_text("the cat sat on the mat\n" * 20, encoding="utf-8")
        files[1].write_text("the of\n", encoding="utf-8")
    else:
        files = _two_files(small_corpus, tmp_path)
    round_words = 20 if tiny else 700
    kw = dict(FAST, epochs=2, alpha=alpha)
    m = Word2Vec(**kw).train([str(f) for f in files], client=client, round_words=round_words, merge=merge,
                             merge_ranges=ranges)
    ref, stats, n_rounds, length, log = _rounds_in_one_process(kw, files, round_words, merge)
    d = m.last_train.details["distributed"]
    assert (d["shards"], d["lanes"], d["rounds_per_epoch"], d["stream_length"]) == (2, 2, n_rounds, length)
    assert n_rounds >= 3 and d["rounds"] == 2 * n_rounds and d["merge"] == merge
    assert d["merge_ranges"] == (ranges or 2)
    assert all(x["workers"] == 2 for x in d["log"])
    # the lanes' learning-rate multiple (one lane alone trains at the rate)
    assert {x["lr_scale"] for x in log} == {1 if tiny else dict(scaled=min(2, 0.2 / alpha), mean=2, touched=1)[merge]}
    assert m.vocab.words == ref.vocab.words
    for a, b in zip((m.syn0, m.syn1neg), (ref.syn0, ref.syn1neg)):
        assert np.array_equal(a, b)
    want = run_totals(stats, 0.0)
    lt = m.last_train
    assert [getattr(lt, k) for k in ("examples", "kept", "words")] == [want[k] for k in ("examples", "kept", "words")]
    np.testing.assert_allclose(lt.epoch_loss, want["epoch_loss"], rtol=1e-12)
    # the report: every round's tokens, rows and bytes; means over the rounds; the weights sent to each worker
    keys = ("epoch", "round", "tokens", "lr_scale", "bytes_up", "bytes_down", "rows")
    assert [{k: x[k] for k in keys} for x in d["log"]] == log
    assert d["bytes_up_per_round"] == pytest.approx(np.mean([x["bytes_up"] for x in log]))
    assert d["bytes_down_per_round"] == pytest.approx(np.mean([x["bytes_down"] for x in log]))
    assert d["initial_broadcast_bytes"] == 2 * (m.syn0.nbytes + m.syn1neg.nbytes + m.syn1.nbytes)
    # no fault, no full-weight resend: a lane that sat a round out applied its update all the same
    assert d["fallbacks"] == sum(x["fallbacks"] for x in d["log"]) == 0
    assert m.corpus_tokens == ref.corpus_tokens and m.run_state["corpus_words"] == ref.encoded_corpus.n_words


def test_checkpoint_and_resume_equal_the_uninterrupted_run_bit_for_bit(client, small_corpus, tmp_path):
    # the checkpoint holds the weights after exactly one epoch; the resumed run trains epochs 2-3
    # at their places in the original schedule (positions, learning rate, random draws)
    class Stop(Exception):
        pass

    files = [str(f) for f in _two_files(small_corpus, tmp_path)]
    kw = dict(FAST, epochs=3)
    ckpt = tmp_path / "ckpt"
    m = Word2Vec(**kw)
    seen = []

    def on_epoch_end(epoch):
        seen.append((epoch, m.run_state["epochs_done"], len(m.last_train.epoch_loss)))
        m.save(str(ckpt))
        raise Stop

    with pytest.raises(Stop):
        m.train(files, client=client, round_words=700, on_epoch_end=on_epoch_end)
    assert seen == [(0, 1, 1)]
    saved = Word2Vec.load(str(ckpt))
    ref = _rounds_in_one_process(kw, files, 700, "scaled", epochs_range=range(1))[0]
    assert np.array_equal(saved.syn0, ref.syn0) and np.array_equal(saved.syn1neg, ref.syn1neg)

    resumed = saved.train(files, client=client, round_words=700)
    stats = _rounds_in_one_process(kw, files, 700, "scaled", epochs_range=range(1, 3), model=ref)[1]
    assert np.array_equal(resumed.syn0, ref.syn0) and np.array_equal(resumed.syn1neg, ref.syn1neg)
    lt = resumed.last_train
    assert lt.first_epoch == 1 and resumed.run_state["epochs_done"] == 3
    assert lt.words == int(stats[1:, 3].sum()) and lt.examples == int(stats[1:, 1].sum())
    np.testing.assert_allclose(lt.epoch_loss, stats[1:, 0] / stats[1:, 1], rtol=1e-12)


def test_stale_lane_retrained_from_the_full_weights_gives_the_same_run(client, small_corpus, tmp_path):
    # a replica lost while round 1 trains: the stale lane is trained again from the driver's
    # weights with the round's own position and draws, so the run equals the one without the fault
    from w2v.distributed.worker import forget_run

    def hook(info):
        if (info["epoch"], info["round"]) == (0, 2):
            client.run(forget_run, info["run_id"], workers=[info["workers"][1]])

    files = [str(f) for f in _two_files(small_corpus, tmp_path)]
    kw = dict(FAST, epochs=2)
    m = Word2Vec(**kw).train(files, client=client, round_words=700, _round_hook=hook)
    ref = _rounds_in_one_process(kw, files, 700, "scaled")[0]
    d = m.last_train.details["distributed"]
    assert d["fallbacks"] >= 1 and d["rounds"] >= 8
    assert d["fallbacks"] < d["rounds"] // 2      # the rounds after it start from the merged updates again
    assert np.array_equal(m.syn0, ref.syn0) and np.array_equal(m.syn1neg, ref.syn1neg)
    assert m.last_train.words == 2 * int(m.vocab.counts.sum())


@contextlib.contextmanager
def _broken_on_workers(client, name, message, typed=False):
    """Within the block, ``w2v.distributed.worker.<name>`` raises (``DistributedError`` if ``typed``, else
    ``RuntimeError``) on every worker."""
    def patch(on):
        import w2v.distributed.worker as d
        from w2v.distributed import DistributedError
        saved = "_saved_" + name
        if on:
            setattr(d, saved, getattr(d, name))

            def broken(*args, **kwargs):
                raise (DistributedError if typed else RuntimeError)(message)
            setattr(d, name, broken)
        elif hasattr(d, saved):
            setattr(d, name, d.__dict__.pop(saved))
        return True

    client.run(patch, True)
    try:
        yield
    finally:
        client.run(patch, False)


def _train_two_files(client, files):
    return Word2Vec(**dict(FAST, epochs=1)).train(files, client=client, round_words=700, retries=0)


def test_a_lane_that_keeps_failing_is_a_one_line_distributed_error(client, small_corpus, tmp_path):
    files = [str(f) for f in _two_files(small_corpus, tmp_path)]
    with _broken_on_workers(client, "train_slice", "out of\n  memory"), \
            pytest.raises(DistributedError) as info:
        _train_two_files(client, files)
    msg = str(info.value)
    assert "\n" not in msg
    assert msg in ("round 1 of epoch 1 failed on lane 0: out of memory",
                   "round 1 of epoch 1 failed on lane 1: out of memory"), msg
    # the workers are fine again: the next run trains
    m = Word2Vec(**dict(FAST, epochs=1)).train(files, client=client, round_words=700)
    assert m.last_train.words == int(m.vocab.counts.sum())


def test_a_failing_merge_is_a_distributed_error_naming_the_round(client, small_corpus, tmp_path):
    files = [str(f) for f in _two_files(small_corpus, tmp_path)]
    # a typed error of the merge (a worker's row outside the weights) reaches the caller as it is
    message = "a worker returned a row index outside the weights"
    with _broken_on_workers(client, "merge_updates", message, typed=True), \
            pytest.raises(DistributedError, match=f"^{message}$"):
        _train_two_files(client, files)
    # any other error names the round, in one line (a multi-line cause once kept its newlines)
    for cause in ("cannot allocate", "cannot\n  allocate"):
        with _broken_on_workers(client, "merge_updates", cause), pytest.raises(DistributedError) as info:
            _train_two_files(client, files)
        assert str(info.value) == "merging round 1 of epoch 1 failed: cannot allocate"


def test_progress_lines_of_a_dask_run(client, small_corpus, tmp_path):
    import io
    import re

    files = [str(f) for f in _two_files(small_corpus, tmp_path)]
    kw = dict(FAST, epochs=2)
    out = io.StringIO()
    m = Word2Vec(**kw).train(files, client=client, round_words=700, quiet=False, progress_stream=out)
    ref = Word2Vec(**kw).build_vocab(files)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(f"vocabulary: {len(ref.vocab):,} words (min_count=3) covering "
                               f"{ref.encoded_corpus.n_words:,} of {ref.corpus_tokens:,} tokens; 2 shards in 2 lanes "
                               "on 2 Dask workers (")
    for epoch, pct in ((1, "50.0"), (2, "100.0")):
        # each epoch's end: a progress line at its share of the run, then its mean loss
        ends = [i for i, x in enumerate(lines) if x.startswith(f"epoch {epoch}: mean loss ")]
        assert len(ends) == 1, lines
        assert lines[ends[0]].startswith(f"epoch {epoch}: mean loss {m.last_train.epoch_loss[epoch - 1]:.4f}")
        assert re.match(rf"epoch {epoch}/2 +{pct}% ", lines[ends[0] - 1]), lines


def test_a_corpus_without_a_word_of_the_models_vocabulary_is_refused(client, small_corpus, tmp_path):
    from w2v.errors import VocabularyError
    files = [str(f) for f in _two_files(small_corpus, tmp_path)]
    m = Word2Vec(**dict(FAST, epochs=1)).build_vocab(files)
    other = tmp_path / "other.txt"
    other.write_text("qqq zzz xxyy\n" * 50, encoding="utf-8")
    with pytest.raises(VocabularyError, match="no word of the corpus is in the model's vocabulary"):
        m.train(str(other), client=client)


def test_malformed_scheduler_address_is_a_clear_error():
    for address in ("tcp://127.0.0.1:notaport", "foo://bar"):
        with pytest.raises(DistributedError, match=f"^cannot reach the Dask scheduler at {address}: "):
            with dask_client(address, connect_timeout=1):
                pass


def test_local_dask_client_starts_the_workers_asked_for_and_stops_them():
    with dask_client(threads_per_worker=2) as c:
        c.wait_for_workers(2, timeout=60)
        assert sorted(c.nthreads().values()) == [2, 2]      # 2 worker processes by default
        cluster = c.cluster
    assert cluster.status.name == "closed" and c.status == "closed"


class _FakeClient:
    def __init__(self, status="running", nthreads=None):
        self.status = status
        self.scheduler = type("S", (), {"address": "tcp://10.1.2.3:8786"})()
        self._nthreads = nthreads or {}

    def nthreads(self):
        return self._nthreads


def test_cluster_turns_client_failures_into_typed_one_line_errors():
    from concurrent.futures import CancelledError

    from w2v.distributed.cluster import Cluster
    from w2v.errors import CorpusError

    def fails(exc):
        def call():
            raise exc
        return call

    running = Cluster(_FakeClient())
    with pytest.raises(DistributedError) as info:
        running.call(fails(OSError("Connection reset\n  by peer")))
    assert str(info.value) == ("lost the connection to the Dask scheduler at tcp://10.1.2.3:8786 "
                               "(Connection reset by peer)")
    with pytest.raises(DistributedError, match=r"^Dask cancelled the training tasks \(1 Future cancelled\)$"):
        running.call(fails(CancelledError("1 Future\ncancelled")))
    with pytest.raises(CorpusError, match="^bad file$"):     # the library's own errors go on as they are
        running.call(fails(CorpusError("bad file")))
    with pytest.raises(KeyError):                          # and so do errors that are not the cluster's
        running.call(fails(KeyError("x")))
    closed = Cluster(_FakeClient(status="closed"))
    with pytest.raises(DistributedError, match=r"^lost the connection to the Dask scheduler at tcp://10.1.2.3:8786"):
        closed.call(fails(CancelledError()))
    with pytest.raises(DistributedError, match=r"^lost the connection to the Dask scheduler at tcp://10.1.2.3:8786$"):
        closed.wait_for_worker(timeout=60)
    with pytest.raises(DistributedError, match=r"^lost the connection"):
        closed.wait([], "the test's futures", 60)
    with pytest.raises(DistributedError, match=r"^no Dask worker left at tcp://10.1.2.3:8786 for 0s$"):
        running.wait_for_worker(timeout=0)
    Cluster(_FakeClient(nthreads={"tcp://w": 1})).wait_for_worker(timeout=0)   # a worker is there


class _KillOnVocabulary:
    """A progress stream that kills a worker as the ``vocabulary:`` line is written (after ``delay`` s, in a thread)."""

    def __init__(self, pid, delay):
        self.pid, self.delay, self.killed, self.lines = pid, delay, None, []

    def write(self, text):
        self.lines.append(text)
        if text.startswith("vocabulary:") and self.killed is None:
            self.killed = time.monotonic()
            if self.delay:
                import threading
                threading.Timer(self.delay, os.kill, (self.pid, signal.SIGKILL)).start()
            else:
                os.kill(self.pid, signal.SIGKILL)
        return len(text)

    def flush(self):
        pass


@pytest.mark.parametrize("delay", [0.0, 0.1])
def test_a_worker_killed_just_after_the_vocabulary_phase_is_survived(small_corpus, delay):
    # the weights are scattered to every worker right after the vocabulary line: a worker killed
    # then made the scatter hang (no timeout) or end the run with the bare line "Error: tcp://..."
    with _local_cluster() as cluster, distributed.Client(cluster, set_as_default=False) as c:
        c.wait_for_workers(2, timeout=60)
        pids = c.run(os.getpid)
        stream = _KillOnVocabulary(pids[sorted(pids)[0]], delay)
        t0 = time.monotonic()
        m = Word2Vec(epochs=1, **FAST).train(str(small_corpus), client=c, round_words=20_000, quiet=False,
                                             progress_stream=stream)
        elapsed = time.monotonic() - t0
        assert stream.killed is not None and pids[sorted(pids)[0]] not in c.run(os.getpid).values()
    assert elapsed < 120
    assert m.last_train.words == int(m.vocab.counts.sum())   # every token trained once
    assert np.all(np.isfinite(m.syn0)) and np.isfinite(m.last_train.epoch_loss[0])


def test_a_wait_that_passes_its_bound_names_what_it_waited_for(client):
    from w2v.distributed.cluster import Cluster
    cluster = Cluster(client)
    slow = client.submit(time.sleep, 30, pure=False)
    t0 = time.monotonic()
    with pytest.raises(DistributedError, match=r"^round 3 of epoch 1 \(its 2 merge tasks\) did not finish "
                                                r"within 1s$"):
        cluster.wait([slow], "round 3 of epoch 1 (its 2 merge tasks)", 1.0)
    assert time.monotonic() - t0 < 10
    client.cancel(slow)


class _ScatterClient(_FakeClient):
    """A client whose scatter fails (raises ``errors`` one after the other), hangs (``None``) or succeeds."""

    def __init__(self, outcomes):
        super().__init__(nthreads={"tcp://w": 1})
        self.outcomes, self.calls = list(outcomes), 0

    def scatter(self, data, broadcast=False, hash=True, timeout=None):
        self.calls += 1
        outcome = self.outcomes.pop(0)
        if outcome is None:
            time.sleep(30)
        if isinstance(outcome, BaseException):
            raise outcome
        return [outcome]


def test_a_scatter_that_a_lost_worker_breaks_is_tried_again_and_bounded():
    from w2v.distributed.cluster import Cluster
    # a worker lost while the weights are sent: the try fails (Dask raises the worker's address)
    # or hangs; the next try goes to the workers there are then
    flaky = _ScatterClient([KeyError("tcp://127.0.0.1:35055"), None, "the future"])
    assert Cluster(flaky).scatter({"w": np.zeros(3)}, "sending the weights", seconds=0.5) == "the future"
    assert flaky.calls == 3
    broken = _ScatterClient([OSError("Stream is closed"), KeyError("tcp://10.0.0.9:1234"), None])
    t0 = time.monotonic()
    with pytest.raises(DistributedError) as info:
        Cluster(broken).scatter({"w": np.zeros(3)}, "sending the weights (0.1 MB) to every worker",
                                broadcast=True, seconds=0.5)
    assert time.monotonic() - t0 < 10
    assert str(info.value) == ("sending the weights (0.1 MB) to every worker failed 3 times (the last: "
                               "sending the weights (0.1 MB) to every worker did not finish within 2s)")
