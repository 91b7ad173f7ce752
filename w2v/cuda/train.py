"""The device training loop: ``train_epochs_cuda`` (the GPU twin of :func:`w2v.training.hogwild.train_epochs`).

Everything but the training step is shared with the CPU path: the vocabulary,
subsampling thresholds, alias table and Huffman tree come from the model's
:class:`w2v.training.sampling.Tables`; progress goes through :class:`w2v.training.progress.Progress`;
the learning rate decays linearly along ``epochs x stream length`` positions
with the CPU formula; the weights come back into the model's host arrays, so
the usual writers save them.

Data movement (:mod:`w2v.cuda.device`)
--------------------------------------
* The weights and tables are copied to the device once and stay there.
* The encoded corpus is cut into *batches* of about ``batch_tokens`` ids
  (sentences are cut at batch ends, like the CPU path's jobs).  Each batch is
  split into segments on the host (:func:`w2v.kernels.segments.make_segments`, a
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
import contextlib
import sys
import warnings

from ..training.kernelcalls import check_kernel_inputs
from ..training.lifecycle import RunResult, begin_run, merge_results, run_totals, show_remaining, train_spans
from . import require_cuda, simulator_enabled
from .device import DeviceTraining
from .plan import DEFAULT_SEG_MAX


def train_epochs_cuda(encoded, syn0, syn1neg, syn1, tables, settings, progress=None, stop_event=None,
                      batch_tokens=None, resident_bytes=None, seg_max=DEFAULT_SEG_MAX, threads=None,
                      atomics=True, max_inflight=3, position_offset=0, total_positions=None, rng_states=None,
                      job_tokens=None, max_registers=None):
    """Train ``settings.epochs`` epochs on the GPU; the host weight arrays are updated in place.

    A drop-in for :func:`w2v.training.hogwild.train_epochs` (same arguments and result type;
    ``rng_states`` and ``job_tokens`` are accepted and ignored: the device draws
    are counter-based, keyed by ``settings.seed`` and the global position).

    Parameters
    ----------
    encoded : w2v.text.encoded.EncodedCorpus
    syn0, syn1neg, syn1 : numpy.ndarray of float32
        Weights: copied to the device, trained there, copied back in place.
    tables : w2v.training.sampling.Tables
    settings : w2v.settings.Settings
    progress : w2v.training.progress.Progress, optional
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
        As :func:`w2v.training.hogwild.train_epochs`: the global position of this call's
        first id and the run's length (learning-rate schedule and random
        draws), for a run trained in slices (checkpoints, resume).

    Returns
    -------
    w2v.training.lifecycle.RunResult
        As :func:`w2v.training.hogwild.train_epochs`, with ``device`` ``"cuda"`` (or
        ``"cuda-simulator"``), the kernel's compile time as
        ``kernel_load_seconds``, and in ``details``: ``device_bytes`` (this
        run's allocations), ``device_used_peak_bytes`` (device memory in use,
        all processes, highest sample; ``None`` on the simulator),
        ``resident``, ``batches``, ``segments``, ``threads_per_block``,
        ``seg_max``, ``atomics``, ``max_registers``.
    """
    require_cuda()
    check_kernel_inputs(syn0, syn1neg, syn1, tables, settings, encoded.vocab_size)
    with _simulator_settings():
        training = DeviceTraining(encoded, syn0, syn1neg, syn1, tables, settings, progress, stop_event,
                                  max_inflight, position_offset, total_positions)
        training.plan_kernel(seg_max, threads, atomics, max_registers)
        training.upload()
        training.plan_batches(batch_tokens, resident_bytes)
        training.train()
        stats, seconds = training.finish()
        return _call_result(training, stats, seconds)


@contextlib.contextmanager
def _simulator_settings():
    # The simulator runs the kernels as Python threads: uint64 hashing wraps on purpose (numpy
    # warns), and a short GIL switch interval makes its busy-polled barriers much faster.
    if not simulator_enabled():
        yield
        return
    switch = sys.getswitchinterval()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="overflow encountered", category=RuntimeWarning)
        sys.setswitchinterval(1e-4)
        try:
            yield
        finally:
            sys.setswitchinterval(switch)


def _call_result(training, stats, seconds):
    # the result of one train_epochs_cuda call: built here only
    return RunResult(**run_totals(stats, seconds), kernel_load_seconds=training.compile_seconds,
                     device="cuda-simulator" if simulator_enabled() else "cuda",
                     details={
                         "device_bytes": int(training.allocated),
                         "device_used_peak_bytes": max(training.used_samples) if training.used_samples else None,
                         "resident": bool(training.resident),
                         "batches": training.n_batches,
                         "segments": training.n_segments,
                         "threads_per_block": training.threads,
                         "seg_max": training.seg,
                         "atomics": bool(training.atomics),
                         "max_registers": training.max_registers,
                     })


def run_epochs_cuda(model, progress=None, stop_event=None, on_epoch_end=None, **options):
    """Run (or continue) a training run of ``model`` on the GPU (what ``Word2Vec.train`` calls).

    The same run bookkeeping as the CPU path (:func:`w2v.training.hogwild.run_epochs`):
    ``model.run_state`` records the run; an unfinished run over a corpus of
    the same encoded length continues with its remaining epochs and the
    original learning-rate schedule; with ``on_epoch_end`` the epochs run one
    call at a time (weights copied back after each, so a checkpoint can save
    them) and ``on_epoch_end(epoch)`` is called after each.  ``options`` go to
    :func:`train_epochs_cuda`.
    """
    require_cuda()
    enc = model.encoded_corpus
    first = begin_run(model, int(enc.length), enc.n_words)
    show_remaining(progress, first, model.settings.epochs, int(enc.length))

    def train_span(sub, shown, offset, total):
        return train_epochs_cuda(enc, model.syn0, model.syn1neg, model.syn1, model.tables, sub,
                                 progress=shown, stop_event=stop_event, position_offset=offset,
                                 total_positions=total, **options)

    return train_spans(model, first, train_span, progress, on_epoch_end, merge=_run_result)


def _run_result(results, first):
    # the result of a CUDA run (the train_epochs_cuda calls of its spans): the sums of
    # merge_results, the launch figures of the last call, the segments of all
    merged = merge_results(results, first)
    if results:
        merged.details = dict(results[-1].details, segments=sum(r.details["segments"] for r in results))
    return merged
