"""The device training loop: ``train_epochs_cuda`` (the GPU twin of :func:`w2v.train.train_epochs`).

Everything but the training step is shared with the CPU path: the vocabulary,
subsampling thresholds, alias table and Huffman tree come from the model's
:class:`w2v.train.Tables`; progress goes through :class:`w2v.train.Progress`;
the learning rate decays linearly along ``epochs x stream length`` positions
with the CPU formula; the weights come back into the model's host arrays, so
the usual writers save them.

Data movement
-------------
* The weights and tables are copied to the device once and stay there.
* The encoded corpus is cut into *batches* of about ``batch_tokens`` ids
  (sentences are cut at batch ends, like the CPU path's jobs).  Each batch is
  split into segments on the host (:func:`w2v.cuda.host.make_segments`, a
  Numba CPU function) and copied through a pinned staging buffer on a copy
  stream while the previous batch trains on the compute stream (an event
  orders the kernel after its copy).  Two staging buffers alternate.
* When the whole encoded stream fits in ``resident_bytes`` of device memory
  (default: half of the free memory), it is uploaded during the first epoch and
  later epochs launch straight from device memory; otherwise every epoch
  streams it through two device buffers.
* At most ``max_inflight`` launches are queued; progress counts finished
  launches (CUDA events) and reads the loss counters with a small copy on a
  third stream, without stalling the queue.
"""
import math
import sys
import time
import warnings

import numpy as np

from ..errors import DeviceError, ParameterError
from ..run import begin_run, show_remaining, train_spans
from . import require_cuda, simulator_enabled
from ..run import run_totals
from .host import default_threads, derive_seeds, make_segments

DEFAULT_BATCH_TOKENS = 1 << 24
DEFAULT_SEG_MAX = 1024
STATIC_SHARED_LIMIT = 48 * 1024   # bytes of static shared memory a block may use
SIMULATOR_THREADS = 8             # default threads per block on the CUDA simulator


def shared_bytes(dim, window, sg, shared, kmax, seg_max, threads):
    """Static shared memory of one block of the training kernel (bytes)."""
    ld = dim + 1 if dim % 2 == 0 else dim
    nx = 2 * window if (sg and shared) else 1
    return (4 * seg_max + 4 * threads + 32 * threads + 4 + 4 * nx * ld + 4 * kmax * ld
            + 4 * nx * kmax + 4 * threads + 8 * kmax)


def plan_kernel(settings, hs_width, seg_max=DEFAULT_SEG_MAX, threads=None):
    """``(kmax, seg_max, threads)`` for these settings, shrinking segments to fit shared memory."""
    s = settings
    kmax = max(s.negative + 1, hs_width if s.hs else 1)
    if not threads:
        # the simulator runs every GPU thread as a Python thread: keep its blocks small
        threads = SIMULATOR_THREADS if simulator_enabled() else default_threads(s.dim)
    threads = int(threads)
    if not 4 <= threads <= 1024:
        raise ParameterError(f"threads per block must be in [4, 1024] (got {threads})")
    seg = int(seg_max)
    while seg > 128 and shared_bytes(s.dim, s.window, s.sg, not s.exact, kmax, seg, threads) > STATIC_SHARED_LIMIT:
        seg //= 2
    need = shared_bytes(s.dim, s.window, s.sg, not s.exact, kmax, seg, threads)
    if need > STATIC_SHARED_LIMIT:
        # name what the block holds: dim-wide rows of the context (2 * window of them only in
        # skip-gram's shared-negatives mode) and of the output words (negatives + 1, or the
        # longest Huffman code); suggest --exact only where it would fit
        shared_rows = s.sg and not s.exact
        by_hs = s.hs and kmax == hs_width
        lower = ["dim"] + (["window"] if shared_rows else []) + ([] if by_hs else ["negative"])
        held = ", ".join(f"{name}={getattr(s, name)}" for name in lower)
        if by_hs:
            held += f", hs (Huffman codes up to {hs_width} long)"
        exact = shared_rows and shared_bytes(s.dim, s.window, s.sg, False, kmax, 128, threads) <= STATIC_SHARED_LIMIT
        raise ParameterError(
            f"{held} need {need // 1024} KiB of GPU shared memory per block "
            f"(limit {STATIC_SHARED_LIMIT // 1024} KiB): lower {' or '.join(lower)}"
            f"{', use --exact' if exact else ''}, or use --device cpu")
    return kmax, seg, threads


def train_epochs_cuda(encoded, syn0, syn1neg, syn1, tables, settings, progress=None, stop_event=None,
                      batch_tokens=None, resident_bytes=None, seg_max=DEFAULT_SEG_MAX, threads=None,
                      atomics=True, max_inflight=3, position_offset=0, total_positions=None, rng_states=None,
                      job_tokens=None, max_registers=None):
    """Train ``settings.epochs`` epochs on the GPU; the host weight arrays are updated in place.

    A drop-in for :func:`w2v.train.train_epochs` (same arguments and result;
    ``rng_states`` and ``job_tokens`` are accepted and ignored: the device draws
    are counter-based, keyed by ``settings.seed`` and the global position).

    Parameters
    ----------
    encoded : w2v.corpus.EncodedCorpus
    syn0, syn1neg, syn1 : numpy.ndarray of float32
        Weights: copied to the device, trained there, copied back in place.
    tables : w2v.train.Tables
    settings : w2v.settings.Settings
    progress : w2v.train.Progress, optional
    stop_event : threading.Event, optional
        Checked between launches (Ctrl-C); the weights trained so far are
        copied back before ``KeyboardInterrupt`` is raised.
    batch_tokens : int, optional
        Ids per launch (default 16M, balanced so that batches are equal).
    resident_bytes : int, optional
        Keep the whole encoded corpus on the device when it needs at most
        this many bytes (default: half the free device memory; 0 = always stream).
    seg_max : int
        Most ids per segment (one thread block trains one segment at a time).
    threads : int, optional
        Threads per block (default: ``dim`` rounded up to whole warps, 32..256;
        8 on the simulator).
    atomics : bool
        ``cuda.atomic.add`` for the Hogwild writes (default) or plain read-add-store.
    max_registers : int, optional
        Cap on registers per thread (occupancy against spills); default: the compiler's choice.
    max_inflight : int
        Launches queued ahead of the host.
    position_offset, total_positions : int
        As :func:`w2v.train.train_epochs`: the global position of this call's
        first id and the run's length (learning-rate schedule and random
        draws), for a run trained in slices (checkpoints, resume).

    Returns
    -------
    dict
        As :func:`w2v.train.train_epochs` (``epoch_loss``, ``examples``,
        ``words``, ``kept``, ``seconds``) plus ``device``, ``compile_seconds``,
        ``device_bytes`` (this run's allocations), ``device_used_peak_bytes``
        (device memory in use, all processes, highest sample; ``None`` on the
        simulator), ``resident``, ``batches``, ``segments``, ``threads_per_block``,
        ``seg_max``.
    """
    require_cuda()
    from ..train import check_kernel_inputs
    check_kernel_inputs(syn0, syn1neg, syn1, tables, settings, encoded.vocab_size)
    if not simulator_enabled():
        return _train(encoded, syn0, syn1neg, syn1, tables, settings, progress, stop_event, batch_tokens,
                      resident_bytes, seg_max, threads, atomics, max_inflight, position_offset, total_positions,
                      max_registers)
    # The simulator runs the kernels as Python threads: uint64 hashing wraps on purpose (numpy
    # warns), and a short GIL switch interval makes its busy-polled barriers much faster.
    switch = sys.getswitchinterval()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="overflow encountered", category=RuntimeWarning)
        sys.setswitchinterval(1e-4)
        try:
            return _train(encoded, syn0, syn1neg, syn1, tables, settings, progress, stop_event, batch_tokens,
                          resident_bytes, seg_max, threads, atomics, max_inflight, position_offset,
                          total_positions, max_registers)
        finally:
            sys.setswitchinterval(switch)


def _launch_error(exc):
    text = " ".join(str(exc).split()) or exc.__class__.__name__
    return DeviceError(f"CUDA training failed: {text[:400]}")


def _train(encoded, syn0, syn1neg, syn1, tables, settings, progress, stop_event, batch_tokens,
           resident_bytes, seg_max, threads, atomics, max_inflight, position_offset, total_positions,
           max_registers):
    from numba import cuda

    from .kernels import get_train_kernel

    s = settings
    epochs = s.epochs
    length = int(encoded.length)
    total = int(total_positions or max(1, epochs * length))
    offset = int(position_offset)
    sim = simulator_enabled()
    kmax, seg, threads = plan_kernel(s, tables.hs_codes.shape[1], seg_max, threads)
    kernel = get_train_kernel(s.dim, s.window, s.negative, s.hs, s.sg, not s.exact, s.cbow_mean,
                              kmax, seg, threads, atomics, max_registers)
    seed_keep, seed_seg = (np.uint64(v) for v in derive_seeds(s.seed))
    alpha0, min_alpha = np.float64(s.alpha), np.float64(s.min_alpha)
    total64 = np.int64(total)

    used_samples = []

    def sample_memory():
        try:
            free, tot = cuda.current_context().get_memory_info()
        except Exception:  # pragma: no cover
            return
        if math.isfinite(free) and math.isfinite(tot):
            used_samples.append(int(tot - free))

    allocated = [0]

    def dev(a, stream=0):
        d = cuda.to_device(np.ascontiguousarray(a), stream=stream)
        allocated[0] += d.nbytes
        return d

    def empty(shape, dtype):
        d = cuda.device_array(shape, dtype)
        allocated[0] += d.nbytes
        return d

    try:
        comp = cuda.stream()
        copy = cuda.stream()
        statq = cuda.stream()
        d_syn0 = dev(syn0)
        d_syn1neg = dev(syn1neg)
        d_syn1 = dev(syn1)
        t = tables
        d_tables = [dev(t.keep_threshold.astype(np.int64)), dev(t.noise_threshold.astype(np.int64)),
                    dev(t.noise_alias.astype(np.int32)), dev(t.hs_codes.astype(np.int8)),
                    dev(t.hs_points.astype(np.int32)), dev(t.hs_lengths.astype(np.int32))]
        d_stats = dev(np.zeros((epochs, 4), np.float64))
        # compile (first launch) before the clock starts: a launch over zero segments
        t_c = time.perf_counter()
        dummy = dev(np.zeros(1, np.int32))
        d0 = dev(np.zeros(1, np.int64))
        d1 = dev(np.zeros(1, np.int32))
        d_scratch = dev(np.zeros(4, np.float64))
        with warnings.catch_warnings():   # "grid size 1 ... under-utilization": on purpose here
            warnings.simplefilter("ignore")
            kernel[1, threads, comp](dummy, d0, d1, np.int64(0), np.int64(0), total64, d_syn0, d_syn1neg, d_syn1,
                                     *d_tables, alpha0, min_alpha, seed_keep, seed_seg, d_scratch)
            comp.synchronize()
    except ParameterError:
        raise
    except Exception as exc:
        raise _launch_error(exc) from exc
    compile_seconds = time.perf_counter() - t_c

    # batches of about batch_tokens ids, balanced
    bt = int(batch_tokens or DEFAULT_BATCH_TOKENS)
    n_batches = max(1, -(-length // max(1, bt)))
    bsize = max(1, -(-length // n_batches))
    if resident_bytes is None:
        try:
            free, _ = cuda.current_context().get_memory_info()
        except Exception:  # pragma: no cover
            free = 0
        resident_bytes = free // 2 if math.isfinite(free) else 1 << 62
    # ids + segment arrays (at most one segment per 2 ids: 12 bytes each, i.e. 6 per id)
    resident = length * 10 <= resident_bytes
    d_ids = empty(max(1, length), np.int32) if resident else None
    d_bufs = None if resident else [empty(bsize, np.int32) for _ in range(2)]
    pinned = [cuda.pinned_array(bsize, np.int32) for _ in range(2)]
    pin_events = [None, None]
    buf_events = [None, None]
    seg_cache = {}
    seg_dev = {}
    h_stats = np.zeros(4, np.float64)
    sample_memory()
    make_segments(np.zeros(2, np.int32), seg, s.max_sentence_length)   # load the compiled helper now

    done = [0]
    pending = []
    n_segments = [0]
    can_query = None

    def settle(block=False):
        nonlocal can_query
        while pending:
            ev, ntok = pending[0]
            if len(pending) > max_inflight or block:
                ev.synchronize()
            else:
                if can_query is None:
                    can_query = hasattr(ev, "query")
                if can_query and not ev.query():
                    break
                if not can_query:
                    ev.synchronize()
            pending.pop(0)
            done[0] += ntok

    def report(epoch, force=False):
        if progress is None:
            return
        if not force and (progress.quiet or time.perf_counter() - progress.last < progress.interval):
            return
        d_stats[epoch].copy_to_host(h_stats, stream=statq)
        statq.synchronize()
        progress.maybe_report(done[0], h_stats[0], h_stats[1], epoch, force)

    reported = [0]   # epochs whose mean loss has been printed

    def report_ended():
        # each epoch's mean loss as soon as its last launch has finished (launches run in
        # order on one stream, so the epoch's statistics are complete by then)
        while progress is not None and reported[0] < epochs and done[0] >= (reported[0] + 1) * length:
            e = reported[0]
            d_stats[e].copy_to_host(h_stats, stream=statq)
            statq.synchronize()
            progress.maybe_report(done[0], h_stats[0], h_stats[1], e, True)
            progress.epoch_done(e, h_stats[0], h_stats[1])
            reported[0] += 1

    def batches(epoch):
        if resident and epoch > 0:
            for b in range(n_batches):
                yield b, seg_cache[b][2], None
        else:
            for b, (start, ids) in enumerate(encoded.blocks(bsize)):
                yield b, start, ids

    t0 = time.perf_counter()
    counter = 0
    try:
        for epoch in range(epochs):
            for b, start, ids in batches(epoch):
                if stop_event is not None and stop_event.is_set():
                    raise KeyboardInterrupt
                if ids is not None:
                    n = ids.size
                    if b not in seg_cache:
                        st, ln = make_segments(ids, seg, s.max_sentence_length)
                        seg_cache[b] = (st, ln, start, n)
                    st, ln = seg_cache[b][0], seg_cache[b][1]
                    slot = counter % 2
                    if pin_events[slot] is not None:
                        pin_events[slot].synchronize()       # staging buffer free again
                    if not resident and buf_events[slot] is not None:
                        buf_events[slot].wait(copy)          # device buffer no longer read
                    stage = pinned[slot][:n]
                    np.copyto(stage, ids)
                    target = d_ids[start:start + n] if resident else d_bufs[slot][:n]
                    if n:
                        target.copy_to_device(stage, stream=copy)
                    if resident:
                        seg_dev[b] = (dev(st, copy), dev(ln, copy))
                        d_st, d_ln = seg_dev[b]
                    else:
                        d_st, d_ln = cuda.to_device(st, stream=copy), cuda.to_device(ln, stream=copy)
                    ev = cuda.event()
                    ev.record(copy)
                    ev.wait(comp)
                    pin_events[slot] = ev
                    d_batch = target
                else:
                    st, ln, start, n = seg_cache[b]
                    d_st, d_ln = seg_dev[b]
                    d_batch = d_ids[start:start + n]
                nseg = int(st.size)
                if nseg:
                    kernel[nseg, threads, comp](d_batch, d_st, d_ln, np.int64(nseg),
                                                np.int64(offset + epoch * length + start), total64,
                                                d_syn0, d_syn1neg, d_syn1, *d_tables, alpha0, min_alpha,
                                                seed_keep, seed_seg, d_stats[epoch])
                    n_segments[0] += nseg
                done_ev = cuda.event()
                done_ev.record(comp)
                if not resident:
                    buf_events[counter % 2] = done_ev
                pending.append((done_ev, n))
                counter += 1
                settle()
                report_ended()
                report(min(max(epoch, reported[0]), epochs - 1))   # no line for an epoch already summed up
        comp.synchronize()
        settle(block=True)
        report_ended()
    except KeyboardInterrupt:
        comp.synchronize()
        d_syn0.copy_to_host(syn0)
        d_syn1neg.copy_to_host(syn1neg)
        d_syn1.copy_to_host(syn1)
        raise
    except (ParameterError, DeviceError):
        raise
    except Exception as exc:
        raise _launch_error(exc) from exc
    sample_memory()
    d_syn0.copy_to_host(syn0)
    d_syn1neg.copy_to_host(syn1neg)
    d_syn1.copy_to_host(syn1)
    stats = d_stats.copy_to_host()
    seconds = time.perf_counter() - t0
    if progress is not None:
        for i in range(reported[0], len(stats)):   # none left unless an epoch was empty
            progress.epoch_done(i, stats[i, 0], stats[i, 1])
    return {
        **run_totals(stats, seconds),
        "device": "cuda-simulator" if sim else "cuda",
        "compile_seconds": compile_seconds,
        "device_bytes": int(allocated[0]),
        "device_used_peak_bytes": max(used_samples) if used_samples else None,
        "resident": bool(resident),
        "batches": n_batches,
        "segments": n_segments[0],
        "threads_per_block": threads,
        "seg_max": seg,
        "atomics": bool(atomics),
        "max_registers": max_registers,
    }


def run_epochs_cuda(model, progress=None, stop_event=None, on_epoch_end=None, **options):
    """Run (or continue) a training run of ``model`` on the GPU (what ``Word2Vec.train`` calls).

    The same run bookkeeping as the CPU path (:func:`w2v.persist.run_epochs`):
    ``model.run_state`` records the run; an unfinished run over a corpus of
    the same encoded length continues with its remaining epochs and the
    original learning-rate schedule; with ``on_epoch_end`` the epochs run one
    call at a time (weights copied back after each, so a checkpoint can save
    them) and ``on_epoch_end(epoch)`` is called after each.  ``options`` go to
    :func:`train_epochs_cuda`.
    """
    require_cuda()
    enc = model._encoded
    first = begin_run(model, int(enc.length), enc.n_words)
    show_remaining(progress, first, model.settings.epochs, int(enc.length))

    def train_span(sub, shown, offset, total):
        return train_epochs_cuda(enc, model.syn0, model.syn1neg, model.syn1, model.tables, sub,
                                 progress=shown, stop_event=stop_event, position_offset=offset,
                                 total_positions=total, **options)

    return train_spans(model, first, train_span, progress, on_epoch_end, merge=_merge)


def _merge(results, first):
    out = {
        "epoch_loss": [l for r in results for l in r["epoch_loss"]],
        "examples": sum(r["examples"] for r in results),
        "kept": sum(r["kept"] for r in results),
        "words": sum(r["words"] for r in results),
        "seconds": sum(r["seconds"] for r in results),
        "first_epoch": first,
        "device": "cuda",
    }
    if results:
        last = results[-1]
        for key in ("device", "compile_seconds", "device_bytes", "device_used_peak_bytes", "resident",
                    "batches", "threads_per_block", "seg_max", "atomics", "max_registers"):
            out[key] = last[key]
        out["segments"] = sum(r["segments"] for r in results)
        out["compile_seconds"] = sum(r["compile_seconds"] for r in results)
    return out
