"""The CUDA path (``w2v.cuda``): kernels on Numba's CUDA simulator, device selection, errors.

The simulator checks run once, in a child process started with
``NUMBA_ENABLE_CUDASIM=1`` (``tests/support/cuda_sim_runner.py``): the simulator has to
be chosen before ``numba.cuda`` is imported, and the rest of the session must
not run on it.  The child only runs kernels and saves what they produced; the
NumPy references and all assertions are here.  Without ``numba.cuda`` (neither
``numba-cuda`` nor a Numba that still ships the built-in target) these tests
skip; the CPU-only checks at the end run everywhere.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from w2v.cuda.host import derive_seeds, keep_draw, segment_state, splitmix_output
from w2v.kernels.segments import make_segments
from w2v.errors import DeviceError, ParameterError
from w2v.training.lifecycle import RunResult

from ..support import cuda_cases as cc
from ..support import reference as ref

from ..conftest import ROOT


def _numba_cuda_importable():
    try:
        from numba import cuda  # noqa: F401
    except Exception as exc:  # pragma: no cover - depends on the install
        return f"numba.cuda is not importable (install numba-cuda: pip install 'w2v[cuda]'): {exc}"
    return None


NO_CUDA = _numba_cuda_importable()
needs_numba_cuda = pytest.mark.skipif(NO_CUDA is not None, reason=NO_CUDA or "")


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """Results of the simulator runner (one child process for the whole module)."""
    if NO_CUDA is not None:
        pytest.skip(NO_CUDA)
    tmp = tmp_path_factory.mktemp("cudasim")
    out = tmp / "sim.npz"
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "tests.support.cuda_sim_runner", str(out), str(tmp)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        pytest.fail(f"simulator runner failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}")
    data = np.load(out)
    return {k: data[k] for k in data.files}


# --------------------------------------------------------------------------- kernels vs reference
@needs_numba_cuda
@pytest.mark.parametrize("case", cc.KERNEL_CASES, ids=[c["name"] for c in cc.KERNEL_CASES])
def test_kernel_step_matches_numpy_reference(sim, case):
    arr = cc.case_arrays(case)
    r0, r1neg, r1, rstats = cc.reference(case, arr)
    name = case["name"]
    k0, k1neg, k1, kstats = (sim[f"{name}/{k}"] for k in ("syn0", "syn1neg", "syn1", "stats"))
    np.testing.assert_allclose(k0, r0, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(k1neg, r1neg, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(k1, r1, rtol=1e-4, atol=1e-5)
    assert not np.allclose(k0, arr["syn0"])              # it trained
    if case["negative"]:
        assert not np.allclose(k1neg, arr["syn1neg"])
    if case["hs"]:
        assert not np.allclose(k1, arr["syn1"])
    assert kstats[1] == rstats[1] > 0                     # examples
    assert kstats[2] == rstats[2] and kstats[3] == rstats[3]   # kept, seen
    assert kstats[0] == pytest.approx(rstats[0], rel=1e-4)     # loss
    if case.get("subsample"):
        assert 0 < kstats[2] < kstats[3]                  # subsampling dropped some, kept some


# --------------------------------------------------------------------------- sampling on the device
@needs_numba_cuda
def test_device_noise_draws_equal_cpu_stream_and_distribution(sim):
    from w2v.kernels.cpu import sample_noise
    from w2v.training.sampling import alias_table, pack_alias_table

    thr, alias = alias_table(cc.NOISE_COUNTS, 0.75)
    draws = sim["noise"]
    cpu = sample_noise(cc.NOISE_DRAWS, pack_alias_table(thr, alias), np.array([cc.NOISE_STATE], np.uint64))
    assert np.array_equal(draws, cpu)                     # counter-based == sequential splitmix64
    p = cc.NOISE_COUNTS ** 0.75 / np.sum(cc.NOISE_COUNTS ** 0.75)
    observed = np.bincount(draws, minlength=p.size)
    chi2 = float(np.sum((observed - p * draws.size) ** 2 / (p * draws.size)))
    assert chi2 < 24.3  # 99.9th percentile of chi-square with 7 degrees of freedom


@needs_numba_cuda
def test_device_subsampling_decisions_and_rates(sim):
    from w2v.training.sampling import keep_probabilities, keep_thresholds

    ids = cc.keep_tokens()
    flags = sim["keep"].astype(bool)
    thr = keep_thresholds(cc.KEEP_COUNTS, cc.KEEP_SAMPLE)
    expect = np.array([w >= 0 and (keep_draw(cc.SEED_KEEP, cc.KEEP_POS0 + j) >> 32) < thr[w]
                       for j, w in enumerate(ids.tolist())])
    assert np.array_equal(flags, expect)
    assert not flags[ids < 0].any()
    p = keep_probabilities(cc.KEEP_COUNTS, cc.KEEP_SAMPLE)
    for w in range(cc.KEEP_COUNTS.size):
        sel = ids == w
        n = int(sel.sum())
        rate = flags[sel].mean()
        assert abs(rate - p[w]) <= 4 * np.sqrt(p[w] * (1 - p[w]) / n) + 1e-9, (w, rate, p[w])
    assert p.min() < 0.5   # the test set really subsamples


# --------------------------------------------------------------------------- training runs
def _objective(syn0, syn1neg, corpus_ids, window, negative, noise_p, seed=0):
    """Mean negative-sampling loss over every (centre, context) pair, with fixed negatives."""
    rng = np.random.default_rng(seed)
    total, n = 0.0, 0
    for sent in corpus_ids:
        for i, c in enumerate(sent):
            for j in range(max(0, i - window), min(len(sent), i + window + 1)):
                if j == i:
                    continue
                x = syn0[sent[j]].astype(np.float64)
                negs = rng.choice(len(noise_p), negative, p=noise_p)
                total += np.logaddexp(0, -x @ syn1neg[c]) + np.logaddexp(0, syn1neg[negs] @ x).sum()
                n += 1
    return total / n


@needs_numba_cuda
def test_short_training_run_improves_like_cpu(sim, tmp_path):
    from w2v.model.word2vec import Word2Vec

    loss = sim["train/epoch_loss"]
    examples, kept, words, n_words = sim["train/counts"]
    epochs = cc.TRAIN_SETTINGS["epochs"]
    assert words == kept == epochs * n_words            # sample=0: every token trained every epoch
    assert examples > 0 and np.all(np.isfinite(loss))
    assert loss[-1] < loss[0] - 0.2                      # the epoch loss goes down
    info = json.loads(str(sim["train/info"]))
    assert info["device"] == "cuda-simulator" and info["resident"]
    log = str(sim["train/log"])
    lines = log.splitlines()
    ends = [i for i, line in enumerate(lines) if ": mean loss" in line]
    assert [lines[i].split(":")[0] for i in ends] == [f"epoch {k}" for k in range(1, epochs + 1)], lines
    for k in range(1, epochs):   # each epoch's loss is printed as it ends, before the next one's progress
        later = [i for i, line in enumerate(lines) if line.startswith(f"epoch {k + 1}/")]
        assert later and all(ends[k - 1] < i for i in later), lines

    # the same run on the CPU: both lower a fixed objective well below its starting value, similarly
    corpus = cc.write_train_corpus(tmp_path / "clusters.txt")
    cpu = Word2Vec(**dict(cc.TRAIN_SETTINGS, device="cpu"))
    cpu.build_vocab(str(corpus))
    assert list(cpu.vocab.words) == sim["train/words"].tolist()
    init0, init1 = cpu.syn0.copy(), cpu.syn1neg.copy()
    cpu.train()
    w2i = {w: i for i, w in enumerate(cpu.vocab.words)}
    sents = [[w2i[w] for w in line.split()] for line in corpus.read_text().splitlines()]
    p = cpu.vocab.counts ** 0.75 / np.sum(cpu.vocab.counts ** 0.75)
    kw = dict(window=cc.TRAIN_SETTINGS["window"], negative=cc.TRAIN_SETTINGS["negative"], noise_p=p)
    before = _objective(init0, init1, sents, **kw)
    after_cpu = _objective(cpu.syn0, cpu.syn1neg, sents, **kw)
    after_gpu = _objective(sim["train/syn0"], sim["train/syn1neg"], sents, **kw)
    cpu.close()
    assert before == pytest.approx((1 + kw["negative"]) * np.log(2), rel=1e-3)
    assert after_gpu < before - 0.4, (before, after_gpu)
    assert abs(after_gpu - after_cpu) < 0.5 * (before - after_cpu), (before, after_cpu, after_gpu)


@needs_numba_cuda
def test_streamed_batches_equal_resident_corpus(sim):
    """Batches streamed through two device buffers train exactly as the resident corpus."""
    res_info, str_info = sim["resident/info"], sim["streamed/info"]
    assert res_info[0] == 1 and str_info[0] == 0 and res_info[1] == str_info[1] > 1
    np.testing.assert_array_equal(sim["resident/syn0"], sim["streamed/syn0"])
    np.testing.assert_array_equal(sim["resident/syn1neg"], sim["streamed/syn1neg"])
    np.testing.assert_array_equal(sim["resident/epoch_loss"], sim["streamed/epoch_loss"])


@needs_numba_cuda
def test_batched_run_matches_the_numpy_reference_of_the_whole_run(sim, tmp_path):
    """Every batch's segments train at their global positions (epoch, batch start), with the run's seeds."""
    from w2v.model.word2vec import Word2Vec

    m = Word2Vec(**dict(cc.TRAIN_SETTINGS, epochs=2))
    m.build_vocab(str(cc.write_train_corpus(tmp_path / "small.txt", sentences=8)))
    syn0, syn1neg, stats, segments = cc.run_reference(m, batch_tokens=25, seg_max=1024)
    length = m.encoded_corpus.length
    m.close()
    for name in ("resident", "streamed"):
        np.testing.assert_allclose(sim[f"{name}/syn0"], syn0, rtol=1e-3, atol=1e-4)
        np.testing.assert_allclose(sim[f"{name}/syn1neg"], syn1neg, rtol=1e-3, atol=1e-4)
        np.testing.assert_allclose(sim[f"{name}/epoch_loss"], stats[:, 0] / stats[:, 1], rtol=1e-4)
        # batches of at most batch_tokens ids, as few as that allows
        assert sim[f"{name}/info"][1:].tolist() == [-(-length // 25), segments]
    assert not np.allclose(syn0, m.syn0, atol=1e-3)     # it trained


@needs_numba_cuda
def test_epoch_by_epoch_run_equals_one_call(sim):
    """With a checkpoint hook the epochs run one call each, on the same global positions and schedule."""
    assert sim["by-epoch/calls"].tolist() == [[0, 1], [1, 2]]
    np.testing.assert_array_equal(sim["whole/syn0"], sim["by-epoch/syn0"])
    np.testing.assert_allclose(sim["whole/epoch_loss"], sim["by-epoch/epoch_loss"], rtol=1e-12)


@needs_numba_cuda
def test_ctrl_c_between_launches_brings_back_the_weights_trained_so_far(sim):
    assert sim["stop/raised"] == 1
    moved = np.abs(sim["stop/syn0"] - sim["stop/initial_syn0"]).max()
    assert moved > 1e-4                                                     # the first launch's updates
    assert not np.allclose(sim["stop/syn0"], sim["resident/syn0"], atol=1e-4)   # and not the whole run's


@needs_numba_cuda
def test_failed_kernel_launch_is_a_one_line_device_error(sim):
    errors = json.loads(str(sim["launch/errors"]))
    want = ["DeviceError", "CUDA training failed: too many resources requested for launch"]
    assert errors == [want, want]      # at the first (compiling) launch, and at a training launch


# --------------------------------------------------------------------------- host side (no simulator)
def test_counter_rng_is_the_splitmix64_stream():
    r = ref.SplitMix64(12345)
    assert [r.next() for _ in range(5)] == [splitmix_output(12345, n) for n in range(1, 6)]
    ka, sa = derive_seeds(1)
    assert ka != sa and derive_seeds(1) == (ka, sa) and derive_seeds(2) != (ka, sa)
    assert keep_draw(ka, 10) == splitmix_output(ka, 11)
    assert segment_state(sa, 0) == splitmix_output(sa, 1)


def _check_segments(ids, seg_max, msl):
    starts, lens = make_segments(ids, seg_max, msl)
    covered = np.zeros(ids.size, np.int64)
    for a, n in zip(starts, lens):
        assert 0 < n <= seg_max
        assert ids[a] >= 0                              # never starts on a sentence end
        covered[a:a + n] += 1
        run = 0
        for w in ids[a:a + n]:
            run = 0 if w < 0 else run + 1
            assert run <= msl
    assert np.all(covered[ids >= 0] == 1)               # every word in exactly one segment
    return starts, lens


def _random_sentences(rng, count, longest):
    """``count`` sentences of 1 to ``longest - 1`` ids below 50, each followed by a sentence end."""
    pieces = []
    for n in rng.integers(1, longest, count):
        pieces.append(rng.integers(0, 50, n))
        pieces.append([-1])
    return pieces


def test_make_segments_packs_sentences_and_splits_long_ones():
    rng = np.random.default_rng(0)
    pieces = _random_sentences(rng, 300, 40)
    pieces.append(rng.integers(0, 50, 500))            # one long sentence, no trailing end
    ids = np.concatenate(pieces).astype(np.int32)
    starts, lens = _check_segments(ids, 64, 10_000)
    # short sentences are packed and not cut: a segment ends at a sentence end (or at the limit)
    ends = starts + lens
    for e, n in zip(ends[:-1], lens[:-1]):
        assert e == ids.size or ids[e] < 0 or n == 64
    assert lens.mean() > 40
    _check_segments(ids, 64, 7)                         # max_sentence_length splits
    _check_segments(np.array([-1, -1, 3, -1, -1], np.int32), 4, 100)
    s, n = make_segments(np.array([-1, -1], np.int32), 8, 8)
    assert s.size == 0 and n.size == 0


def test_plan_kernel_fits_shared_memory():
    from w2v.cuda.plan import STATIC_SHARED_LIMIT, plan_kernel, shared_bytes
    from w2v.settings import Settings

    kmax, seg, threads = plan_kernel(Settings(dim=100, window=5, negative=5, threads=1), 1, threads=128)
    assert (kmax, seg, threads) == (6, 1024, 128)
    assert shared_bytes(100, 5, True, True, 6, 1024, 128) < STATIC_SHARED_LIMIT
    assert plan_kernel(Settings(dim=300, window=10, negative=5, threads=1), 1, threads=256)[1] == 1024
    _, seg, _ = plan_kernel(Settings(dim=300, window=12, negative=5, threads=1), 1, threads=256)
    assert 128 <= seg < 1024 and shared_bytes(300, 12, True, True, 6, seg, 256) <= STATIC_SHARED_LIMIT
    with pytest.raises(ParameterError, match="shared memory"):
        plan_kernel(Settings(dim=600, window=10, threads=1), 1, threads=256)


@pytest.mark.parametrize("kw,names,exact", [
    (dict(dim=8, negative=1000), "dim=8, window=5, negative=1000", False),   # negative, not dim, is too big
    (dict(dim=2000, exact=True), "dim=2000, negative=5", False),              # --exact given already
    (dict(dim=600, window=20), "dim=600, window=20, negative=5", True),       # --exact would fit
    (dict(dim=3000, model="cbow", hs=True, negative=0), "dim=3000, hs (Huffman codes up to 40 long)", False),
])
def test_shared_memory_error_names_the_settings_that_fill_it(kw, names, exact):
    # it said "dim=8 with window=5 ... lower dim or window, or use --exact" whatever the cause
    from w2v.cuda.plan import plan_kernel
    from w2v.settings import Settings

    with pytest.raises(ParameterError) as err:
        plan_kernel(Settings(threads=1, **kw), 40, threads=32)
    msg = str(err.value)
    assert msg.startswith(names + " need ") and msg.endswith("or use --device cpu"), msg
    assert ("--exact" in msg) == exact, msg


def test_settings_device_validated():
    from w2v.settings import Settings

    assert Settings(threads=1).device == "cpu"
    assert Settings(threads=1, device="cuda").device == "cuda"
    with pytest.raises(ParameterError, match="device"):
        Settings(threads=1, device="gpu")


def test_cuda_without_gpu_or_numba_cuda_is_a_one_line_error(monkeypatch, small_corpus):
    import w2v.cuda as wc
    from w2v.model.word2vec import Word2Vec

    wc.cuda_status.cache_clear()
    try:
        reason = wc.cuda_status()
        if reason is None:
            pytest.skip("a usable CUDA device (or the simulator) is present")
        with pytest.raises(DeviceError) as info:
            Word2Vec(device="cuda", threads=1).train(str(small_corpus))
        msg = str(info.value)
        assert "\n" not in msg and msg.startswith("--device cuda is unusable:")
        assert "GPU" in msg or "numba-cuda" in msg

        def missing():
            raise ImportError("No module named 'numba.cuda'")

        monkeypatch.setattr(wc, "_import_cuda", missing)
        wc.cuda_status.cache_clear()
        assert "numba-cuda is not installed" in wc.cuda_status()
        with pytest.raises(DeviceError, match="numba-cuda is not installed"):
            wc.require_cuda()
        devs = wc.list_devices()
        assert devs[0]["kind"] == "cpu" and devs[1]["usable"] is False
    finally:
        monkeypatch.undo()
        wc.cuda_status.cache_clear()


def test_cli_report_of_a_cuda_run_gives_its_compile_time(monkeypatch, small_corpus, tmp_path):
    # --report-json had kernel_load_seconds null on the GPU path (its trainer says compile_seconds)
    import w2v.cuda
    import w2v.cuda.train as ct

    def fake_train(enc, syn0, syn1neg, syn1, tables, sub, progress=None, stop_event=None,
                   position_offset=0, total_positions=None, **options):
        return RunResult(epoch_loss=[1.0] * sub.epochs, examples=1, kept=1, words=sub.epochs * enc.n_words, seconds=0.5,
                         device="cuda", kernel_load_seconds=0.25,
                         details={"device_bytes": 0, "device_used_peak_bytes": 0, "resident": True,
                                  "batches": 1, "threads_per_block": 64, "seg_max": 1,
                                  "atomics": False, "max_registers": 0, "segments": 1})

    monkeypatch.setattr(w2v.cuda, "require_cuda", lambda: None)
    monkeypatch.setattr(ct, "require_cuda", lambda: None)
    monkeypatch.setattr(ct, "train_epochs_cuda", fake_train)
    from w2v_cli.main import main
    rep = tmp_path / "r.json"
    res = CliRunner().invoke(main, ["train", str(small_corpus), "--device", "cuda", "--epochs", "1", "--dim", "8",
                                    "-q", "-o", str(tmp_path / "v.bin"), "--report-json", str(rep)])
    assert res.exit_code == 0, res.output
    report = json.loads(rep.read_text())
    assert report["kernel_load_seconds"] == 0.25 and report["train_seconds"] == 0.5


def test_cuda_run_bookkeeping_resumes_or_warns(monkeypatch, small_corpus, tmp_path):
    """run_epochs_cuda's run bookkeeping (shared with the CPU path) with a stand-in for the device trainer.

    A checkpoint after epoch 1 of 3 resumes at epoch 1 on the same corpus, with the run's
    global positions and schedule; given another corpus it starts a new run and warns.
    """
    import w2v.cuda.train as ct
    from w2v.model.word2vec import Word2Vec
    from w2v.errors import ResumeWarning

    calls = []

    def fake_train(enc, syn0, syn1neg, syn1, tables, sub, progress=None, stop_event=None,
                   position_offset=0, total_positions=None, **options):
        calls.append((sub.epochs, position_offset, total_positions))
        return RunResult(epoch_loss=[1.0] * sub.epochs, examples=1, kept=1, words=sub.epochs * enc.n_words, seconds=0.0,
                         device="cuda", kernel_load_seconds=0.0,
                         details={"device_bytes": 0, "device_used_peak_bytes": 0, "resident": True,
                                  "batches": 1, "threads_per_block": 64, "seg_max": 1,
                                  "atomics": False, "max_registers": 0, "segments": 1})

    monkeypatch.setattr(ct, "require_cuda", lambda: None)
    monkeypatch.setattr(ct, "train_epochs_cuda", fake_train)

    class Stop(Exception):
        pass

    m = Word2Vec(dim=8, epochs=3, min_count=3, threads=1)
    m.build_vocab(str(small_corpus))
    length = m.encoded_corpus.length

    def stop_after_first(epoch):
        raise Stop

    with pytest.raises(Stop):
        ct.run_epochs_cuda(m, on_epoch_end=stop_after_first)
    assert calls == [(1, 0, 3 * length)] and m.run_state["epochs_done"] == 1
    calls.clear()
    out = ct.run_epochs_cuda(m)
    assert calls == [(2, length, 3 * length)] and out.first_epoch == 1 and m.run_state["epochs_done"] == 3

    m.run_state["epochs_done"] = 1      # unfinished again, then given another corpus
    other = tmp_path / "other.txt"
    other.write_text("".join(small_corpus.read_text(encoding="utf-8").splitlines(True)[:1000]), encoding="utf-8")
    m.read_corpus(str(other))
    calls.clear()
    with pytest.warns(ResumeWarning, match="another corpus"):
        out = ct.run_epochs_cuda(m)
    other_length = m.encoded_corpus.length
    assert calls == [(3, 0, 3 * other_length)] and out.first_epoch == 0
    assert m.run_state["epochs_done"] == 3 and m.run_state["corpus_length"] == other_length


def test_cli_device_option_and_devices_command(tmp_path, small_corpus):
    import w2v.cuda as wc
    from w2v_cli.main import main

    runner = CliRunner()
    out = runner.invoke(main, ["devices"])
    assert out.exit_code == 0 and out.output.startswith("cpu")
    out = runner.invoke(main, ["devices", "--json"])
    listed = json.loads(out.output)
    assert listed[0]["kind"] == "cpu" and any(d["kind"] == "cuda" for d in listed)
    if wc.cuda_status() is not None:
        out = runner.invoke(main, ["train", str(small_corpus), "-o", str(tmp_path / "v.bin"), "--device", "cuda",
                                   "-q"])
        assert out.exit_code == 1
        lines = [line for line in out.output.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("Error: --device cuda is unusable")
    out = runner.invoke(main, ["train", "--device", "tpu"])
    assert out.exit_code == 2


def cuda_compiler_missing():
    """Why numba-cuda cannot compile here (its compiler libraries NVVM and NVRTC), or ``None``.

    The ``cuda`` extra installs numba-cuda without the CUDA toolkit; without it
    (or ``numba-cuda[cu12]``/``[cu13]``) loading the libraries fails, as ``w2v
    devices`` reports, and the compile test skips with that reason.
    """
    install = "install the CUDA toolkit or pip install 'numba-cuda[cu12]'"
    try:
        from numba.cuda.cudadrv import nvvm
        if not nvvm.is_available():
            return f"NVVM (the CUDA compiler library) is not installed: {install}"
        from numba.cuda.cudadrv import nvrtc
        if hasattr(nvrtc, "get_supported_ccs"):   # numba-cuda: compile_ptx asks NVRTC for the architectures
            nvrtc.get_supported_ccs()
    except Exception as exc:   # DynamicLibNotFoundError (cuda.pathfinder), NvvmSupportError, OSError, ...
        first = str(exc).splitlines()[0] if str(exc) else ""
        return f"the CUDA compiler libraries cannot be loaded ({type(exc).__name__}: {first}): {install}"
    return None


def test_cuda_compiler_missing_is_a_reason_to_skip(monkeypatch):
    # with the cuda extra and no CUDA toolkit, loading NVRTC raised DynamicLibNotFoundError and
    # test_kernels_compile_for_a_real_gpu failed instead of skipping (stand-ins of numba-cuda's modules)
    import types

    class DynamicLibNotFoundError(RuntimeError):
        pass

    def not_found():
        raise DynamicLibNotFoundError('Failure finding "libnvrtc.so.13 or libnvrtc.so.12": No such file\nmore')

    nvvm = types.SimpleNamespace(is_available=lambda: True)
    cudadrv = types.ModuleType("numba.cuda.cudadrv")
    cudadrv.nvvm, cudadrv.nvrtc = nvvm, types.SimpleNamespace(get_supported_ccs=not_found)
    monkeypatch.setitem(sys.modules, "numba.cuda.cudadrv", cudadrv)
    reason = cuda_compiler_missing()
    assert reason.startswith("the CUDA compiler libraries cannot be loaded (DynamicLibNotFoundError: ")
    assert "libnvrtc.so.13" in reason and "\n" not in reason
    nvvm.is_available = lambda: False
    assert cuda_compiler_missing().startswith("NVVM (the CUDA compiler library) is not installed")
    cudadrv.nvrtc = types.SimpleNamespace(get_supported_ccs=lambda: [(9, 0)])
    nvvm.is_available = lambda: True
    assert cuda_compiler_missing() is None


def test_kernels_compile_for_a_real_gpu(monkeypatch):
    """Type-check and compile the kernels to PTX for sm_90 (needs numba-cuda's compiler, NVVM; no GPU).

    The simulator runs the kernels as Python: this catches what only the real
    compiler sees (types, constant shared-memory shapes).
    """
    if NO_CUDA is not None:
        pytest.skip(NO_CUDA)
    from numba import cuda
    from numba import types as T
    if getattr(cuda, "implementation", "") != "NVIDIA" or os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        pytest.skip("compiling without a GPU needs the numba-cuda package (pip install 'numba-cuda[cu12]')")
    missing = cuda_compiler_missing()
    if missing:
        pytest.skip(missing)
    import numba.cuda.dispatcher as disp

    class _Dev:  # device functions are compiled for "the current device": say sm_90 without a GPU
        compute_capability = (9, 0)

    monkeypatch.setattr(disp, "get_current_device", lambda: _Dev(), raising=False)
    from w2v.cuda.kernels import get_train_kernel, keep_kernel, sample_noise_kernel

    a1, a2 = (lambda t: T.Array(t, 1, "C")), (lambda t: T.Array(t, 2, "C"))
    sig = (a1(T.int32), a1(T.int64), a1(T.int32), T.int64, T.int64, T.int64, a2(T.float32), a2(T.float32),
           a2(T.float32), a1(T.int64), a1(T.int64), a1(T.int32), a2(T.int8), a2(T.int32), a1(T.int32),
           T.float64, T.float64, T.uint64, T.uint64, a1(T.float64))
    kern = get_train_kernel(100, 5, 5, True, True, True, True, 30, 1024, 128, True)
    ptx, _ = cuda.compile_ptx(kern.py_func, sig, cc=(9, 0), fastmath=True)
    assert "bar.sync" in ptx and "atom.global.add.f32" in ptx
    cuda.compile_ptx(sample_noise_kernel.py_func, (T.int64, T.uint64, a1(T.int64), a1(T.int32), a1(T.int64)),
                     cc=(9, 0))
    cuda.compile_ptx(keep_kernel.py_func, (a1(T.int32), T.int64, T.uint64, a1(T.int64), a1(T.int8)), cc=(9, 0))


def test_cuda_run_epoch_by_epoch_adds_up_the_calls(monkeypatch, small_corpus):
    # with a checkpoint hook the epochs are one call each: the run's result lists every epoch's
    # loss and adds up the counts, segments and compile time of the calls
    import w2v.cuda.train as ct
    from w2v.model.word2vec import Word2Vec

    n = [0]

    def fake_train(enc, syn0, syn1neg, syn1, tables, sub, progress=None, stop_event=None,
                   position_offset=0, total_positions=None, **options):
        n[0] += 1
        k = n[0]
        return RunResult(epoch_loss=[float(k)], examples=10 * k, kept=100 * k, words=1000 * k, seconds=0.5 * k,
                         device="cuda", kernel_load_seconds=0.25 * k,
                         details={"device_bytes": 7 * k, "device_used_peak_bytes": None, "resident": k == 3,
                                  "batches": k, "threads_per_block": 64, "seg_max": 1024,
                                  "atomics": True, "max_registers": None, "segments": 3 * k})

    monkeypatch.setattr(ct, "require_cuda", lambda: None)
    monkeypatch.setattr(ct, "train_epochs_cuda", fake_train)
    m = Word2Vec(dim=8, epochs=3, min_count=3, threads=1)
    m.build_vocab(str(small_corpus))
    seen = []
    out = ct.run_epochs_cuda(m, on_epoch_end=lambda e: seen.append(list(m.last_train.epoch_loss)))
    assert seen == [[1.0], [1.0, 2.0], [1.0, 2.0, 3.0]]
    assert out.epoch_loss == [1.0, 2.0, 3.0] and out.first_epoch == 0
    assert (out.examples, out.kept, out.words, out.details["segments"]) == (60, 600, 6000, 18)
    assert out.seconds == pytest.approx(3.0) and out.kernel_load_seconds == pytest.approx(1.5)
    last = out.details   # the last call's launch figures
    assert last["device_bytes"] == 21 and last["batches"] == 3 and last["resident"] is True
    m.close()


def test_default_threads_per_block_are_whole_warps():
    from w2v.cuda.host import default_threads
    assert [default_threads(d) for d in (1, 32, 33, 100, 256, 300)] == [32, 32, 64, 128, 256, 256]


def test_plan_kernel_refuses_threads_per_block_out_of_range():
    from w2v.cuda.plan import plan_kernel
    from w2v.settings import Settings

    s = Settings(dim=16, window=2, negative=2, threads=1)
    assert plan_kernel(s, 1, threads=4)[2] == 4 and plan_kernel(s, 1, threads=1024)[2] == 1024
    for bad in (3, 1025):
        with pytest.raises(ParameterError, match=rf"threads per block must be in \[4, 1024\] \(got {bad}\)"):
            plan_kernel(s, 1, threads=bad)


def test_make_segments_never_cuts_a_sentence_that_fits_in_a_segment():
    ids = np.concatenate(_random_sentences(np.random.default_rng(2), 200, 30)).astype(np.int32)
    starts, lens = _check_segments(ids, 64, 10_000)
    seg_of = np.full(ids.size, -1)
    for k, (a, n) in enumerate(zip(starts, lens)):
        seg_of[a:a + n] = k
    ends = np.flatnonzero(ids < 0)
    for a, b in zip(np.concatenate([[0], ends[:-1] + 1]), ends):   # each sentence [a, b)
        assert len(set(seg_of[a:b])) == 1, (a, b)                   # lies in one segment
