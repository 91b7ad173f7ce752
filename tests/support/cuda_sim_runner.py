"""Run the CUDA kernel checks on Numba's CUDA simulator; write the raw results to an ``.npz``.

Started by ``tests/cuda/test_train.py`` in a child process with ``NUMBA_ENABLE_CUDASIM=1``
(the simulator must be chosen before ``numba.cuda`` is first imported, and the
rest of the test session must not run on it).  Usage::

    NUMBA_ENABLE_CUDASIM=1 python -m tests.support.cuda_sim_runner OUT.npz [WORKDIR]

The assertions live in the test module; this script only runs kernels and saves
what they produced (and the time each part took, under ``seconds/...``).
"""
import io
import json
import os
import sys
import tempfile
import time
import warnings

import numpy as np


def lock_simulator_shared_arrays():
    """Make the simulator's ``cuda.shared.array`` allocation atomic.

    Numba's simulator runs a block's threads as Python threads and creates a
    shared array on the first call from a source line: it looks the line up
    in a dict and, if absent, stores a new array, with no lock.  Two threads
    that reach the line together can both miss and get *different* arrays, so
    the block no longer shares that memory.  A clean-clone CI run once failed
    the cbow-sum-ns case this way (syn0 off by up to 0.004, every other case
    and the nine reruns since exact); I could not trigger the race in a small
    kernel, and found no missing barrier in ours, so this lock is the fix for
    the one unsynchronized step there is.  The same lookup, under a lock; the
    caller is still the kernel's line (``stack[-2]`` from inside this
    function, as in Numba's own method).
    """
    import threading
    import traceback

    from numba import types
    from numba.cuda.simulator.kernelapi import FakeCUDAShared
    from numba.np import numpy_support

    dynamic = FakeCUDAShared.array
    lock = threading.Lock()

    def array(self, shape, dtype):
        if shape == 0:                       # dynamic shared memory: one buffer, no lookup
            return dynamic(self, shape, dtype)
        if isinstance(dtype, types.Type):
            dtype = numpy_support.as_dtype(dtype)
        caller = traceback.extract_stack(sys._getframe())[-2][0:2]
        with lock:
            res = self._allocations.get(caller)
            if res is None:
                res = np.empty(shape, dtype)
                self._allocations[caller] = res
        return res

    FakeCUDAShared.array = array


def main(out_path, workdir):
    if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        raise SystemExit("run me with NUMBA_ENABLE_CUDASIM=1")
    sys.setswitchinterval(1e-4)   # the simulator busy-polls its barriers: switch threads often
    warnings.filterwarnings("ignore", message="overflow encountered", category=RuntimeWarning)
    from numba import cuda
    lock_simulator_shared_arrays()

    from tests.support import cuda_cases as cc
    from w2v.cuda.kernels import get_train_kernel, keep_kernel, sample_noise_kernel
    from w2v.training.sampling import keep_thresholds

    res = {}
    secs = {}

    # ---- one kernel launch per mode against the NumPy reference
    for case in cc.KERNEL_CASES:
        t = time.perf_counter()
        arr = cc.case_arrays(case)
        pos_base, total, alpha0, min_alpha, grid, atomics = cc.run_params(case)
        kmax = max(case["negative"] + 1, arr["codes"].shape[1] if case["hs"] else 1)
        kern = get_train_kernel(cc.DIM, case["window"], case["negative"], case["hs"], case["sg"], case["shared"],
                                case["cbow_mean"], kmax, 64, case["threads"], atomics)
        d = {k: cuda.to_device(arr[k].copy()) for k in ("syn0", "syn1neg", "syn1")}
        stats = cuda.to_device(np.zeros(4))
        nseg = arr["starts"].size
        kern[grid or nseg, case["threads"]](
            cuda.to_device(arr["ids"]), cuda.to_device(arr["starts"]), cuda.to_device(arr["lens"]), np.int64(nseg),
            np.int64(pos_base), np.int64(total), d["syn0"], d["syn1neg"], d["syn1"], cuda.to_device(arr["keep"]),
            cuda.to_device(arr["thr"]), cuda.to_device(arr["alias"]), cuda.to_device(arr["codes"]),
            cuda.to_device(arr["points"]), cuda.to_device(arr["lengths"]), np.float64(alpha0),
            np.float64(min_alpha), np.uint64(cc.SEED_KEEP), np.uint64(cc.SEED_SEG), stats)
        for k in ("syn0", "syn1neg", "syn1"):
            res[f"{case['name']}/{k}"] = d[k].copy_to_host()
        res[f"{case['name']}/stats"] = stats.copy_to_host()
        secs[case["name"]] = time.perf_counter() - t

    # ---- noise draws and subsampling decisions
    from w2v.training.sampling import alias_table
    t = time.perf_counter()
    thr, alias = alias_table(cc.NOISE_COUNTS, 0.75)
    out = cuda.device_array(cc.NOISE_DRAWS, np.int64)
    sample_noise_kernel[1, 32](np.int64(cc.NOISE_DRAWS), np.uint64(cc.NOISE_STATE), cuda.to_device(thr),
                               cuda.to_device(alias), out)
    res["noise"] = out.copy_to_host()
    ids = cc.keep_tokens()
    flags = cuda.device_array(ids.size, np.int8)
    keep_kernel[1, 32](cuda.to_device(ids), np.int64(cc.KEEP_POS0), np.uint64(cc.SEED_KEEP),
                       cuda.to_device(keep_thresholds(cc.KEEP_COUNTS, cc.KEEP_SAMPLE)), flags)
    res["keep"] = flags.copy_to_host()
    secs["sampling"] = time.perf_counter() - t

    # ---- short training runs: Word2Vec(device="cuda") end to end; resident vs streamed batches
    from w2v.cuda.train import train_epochs_cuda
    from w2v.model.word2vec import Word2Vec

    corpus = cc.write_train_corpus(os.path.join(workdir, "clusters.txt"))
    t = time.perf_counter()
    log = io.StringIO()
    import w2v.model.runs
    from w2v.training.progress import Progress

    class EveryLaunch(Progress):   # a progress line after every launch
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, "interval": 0})

    w2v.model.runs.Progress, plain = EveryLaunch, w2v.model.runs.Progress
    m = Word2Vec(**cc.TRAIN_SETTINGS)
    m.train(corpus, quiet=False, progress_stream=log)
    w2v.model.runs.Progress = plain
    lt = m.last_train
    res["train/epoch_loss"] = np.array(lt.epoch_loss)
    res["train/counts"] = np.array([lt.examples, lt.kept, lt.words, m.encoded_corpus.n_words])
    res["train/syn0"] = m.syn0.copy()
    res["train/syn1neg"] = m.syn1neg.copy()
    res["train/words"] = np.array(m.vocab.words)
    res["train/log"] = np.array(log.getvalue())
    info = {k: lt.details[k] for k in ("resident", "batches", "segments", "threads_per_block", "seg_max")}
    res["train/info"] = np.array(json.dumps({"device": lt.device, **info}))
    m.close()
    secs["train"] = time.perf_counter() - t

    t = time.perf_counter()
    settings = dict(cc.TRAIN_SETTINGS, epochs=2)
    small = cc.write_train_corpus(os.path.join(workdir, "small.txt"), sentences=8)
    for name, resident_bytes in (("resident", None), ("streamed", 0)):
        m = Word2Vec(**settings)
        m.build_vocab(small)
        r = train_epochs_cuda(m.encoded_corpus, m.syn0, m.syn1neg, m.syn1, m.tables, m.settings,
                              batch_tokens=25, resident_bytes=resident_bytes)
        res[f"{name}/syn0"] = m.syn0.copy()
        res[f"{name}/syn1neg"] = m.syn1neg.copy()
        res[f"{name}/epoch_loss"] = np.array(r.epoch_loss)
        res[f"{name}/info"] = np.array([int(r.details["resident"]), r.details["batches"], r.details["segments"]])
        m.close()
    secs["batches"] = time.perf_counter() - t

    # ---- the same run in one call and epoch by epoch (checkpoint hook): same positions, same result
    t = time.perf_counter()
    seen_epochs = []
    for name, hook in (("whole", None),
                       # m is this iteration's model, bound when the hook runs
                       ("by-epoch", lambda e: seen_epochs.append((e, m.run_state["epochs_done"])))):  # noqa: B023
        m = Word2Vec(**settings)
        m.build_vocab(small)
        m.train(on_epoch_end=hook)
        res[f"{name}/syn0"] = m.syn0.copy()
        res[f"{name}/epoch_loss"] = np.array(m.last_train.epoch_loss)
        m.close()
    res["by-epoch/calls"] = np.array(seen_epochs)
    secs["epochs"] = time.perf_counter() - t

    # ---- Ctrl-C (stop_event) after the first launch: the weights trained so far come back
    import threading
    t = time.perf_counter()
    stop = threading.Event()

    class StopAfterFirstLaunch(Progress):
        def maybe_report(self, *args, **kwargs):
            stop.set()

    m = Word2Vec(**settings)
    m.build_vocab(small)
    res["stop/initial_syn0"] = m.syn0.copy()
    res["stop/raised"] = np.array(0)
    try:
        train_epochs_cuda(m.encoded_corpus, m.syn0, m.syn1neg, m.syn1, m.tables, m.settings, batch_tokens=25,
                          progress=StopAfterFirstLaunch(1, m.settings, stream=io.StringIO(), interval=0),
                          stop_event=stop)
    except KeyboardInterrupt:
        res["stop/raised"] = np.array(1)
    res["stop/syn0"] = m.syn0.copy()
    secs["stop"] = time.perf_counter() - t

    # ---- a kernel launch that fails (first launch, or a training launch): the error as it comes out
    import w2v.cuda.kernels as kernels
    real = kernels.get_train_kernel
    errors = []
    for fail_first in (True, False):
        class FailingLaunch:
            def __getitem__(self, config):
                def launch(*args):
                    if fail_first or int(args[3]) > 0:   # noqa: B023 (used within its iteration)
                        raise RuntimeError("too many resources\n  requested for launch")
                return launch

        kernels.get_train_kernel = lambda *a, **k: FailingLaunch()
        try:
            train_epochs_cuda(m.encoded_corpus, m.syn0, m.syn1neg, m.syn1, m.tables, m.settings)
            errors.append(["none", ""])
        except Exception as exc:
            errors.append([type(exc).__name__, str(exc)])
        finally:
            kernels.get_train_kernel = real
    res["launch/errors"] = np.array(json.dumps(errors))
    m.close()

    res["seconds"] = np.array(json.dumps(secs))
    np.savez(out_path, **res)


if __name__ == "__main__":
    out = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        main(out, sys.argv[2] if len(sys.argv) > 2 else tmp)
