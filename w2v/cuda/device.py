"""One call of :func:`w2v.cuda.train.train_epochs_cuda` on the device, step by step.

1. :meth:`DeviceTraining.upload`: the weights and tables copied to the
   device, the kernel compiled by a launch over zero segments (before the clock
   starts);
2. :meth:`DeviceTraining.plan_batches`: the encoded stream cut into batches,
   resident on the device or streamed through two device buffers;
3. :meth:`DeviceTraining.train`: every batch of every epoch cut into
   segments, staged and launched (:meth:`DeviceTraining.launch`), finished
   launches settled and reported;
4. :meth:`DeviceTraining.finish`: the weights copied back, the epochs' statistics.

``numba.cuda`` is imported when a training is made, never at import time.
"""
import math
import time
import warnings

import numpy as np

from ..errors import DeviceError, ParameterError
from ..kernels.segments import make_segments
from .host import derive_seeds
from .plan import plan_kernel

DEFAULT_BATCH_TOKENS = 1 << 24


def launch_error(exc):
    """A failed launch or copy as a one-line :class:`DeviceError`."""
    text = " ".join(str(exc).split()) or exc.__class__.__name__
    return DeviceError(f"CUDA training failed: {text[:400]}")


class DeviceTraining:
    """The device buffers, streams and progress of one training call (see the module docstring).

    Parameters are those of :func:`w2v.cuda.train.train_epochs_cuda`.
    """

    def __init__(self, encoded, syn0, syn1neg, syn1, tables, settings, progress=None, stop_event=None,
                 max_inflight=3, position_offset=0, total_positions=None):
        from numba import cuda   # optional extra: numba-cuda (require_cuda has checked it)

        self.cuda = cuda
        self.encoded = encoded
        self.host_weights = (syn0, syn1neg, syn1)
        self.tables = tables
        self.settings = s = settings
        self.progress = progress
        self.stop_event = stop_event
        self.max_inflight = max_inflight
        self.epochs = s.epochs
        self.length = int(encoded.length)
        self.total = int(total_positions or max(1, self.epochs * self.length))
        self.offset = int(position_offset)
        self.used_samples = []   # device memory in use (all processes), sampled
        self.allocated = 0       # bytes of this call's device arrays
        self.done = 0            # ids of the finished launches
        self.pending = []        # (event, ids) of the launches queued, oldest first
        self.n_segments = 0
        self.can_query = None
        self.reported = 0        # epochs whose mean loss has been printed

    # ------------------------------------------------------------ setup
    def plan_kernel(self, seg_max, threads, atomics, max_registers):
        """Choose the kernel's block shape and get it compiled for these settings (not yet loaded)."""
        from .kernels import get_train_kernel   # optional extra: w2v.cuda.kernels imports numba-cuda

        s = self.settings
        self.kmax, self.seg, self.threads = plan_kernel(s, self.tables.hs_codes.shape[1], seg_max, threads)
        self.atomics, self.max_registers = atomics, max_registers
        self.kernel = get_train_kernel(s.dim, s.window, s.negative, s.hs, s.sg, not s.exact, s.cbow_mean,
                                       self.kmax, self.seg, self.threads, atomics, max_registers)
        self.seed_keep, self.seed_seg = (np.uint64(v) for v in derive_seeds(s.seed))
        self.alpha0, self.min_alpha = np.float64(s.alpha), np.float64(s.min_alpha)
        self.total64 = np.int64(self.total)

    def dev(self, a, stream=0):
        """``a`` copied to the device (counted in the call's device bytes)."""
        d = self.cuda.to_device(np.ascontiguousarray(a), stream=stream)
        self.allocated += d.nbytes
        return d

    def empty(self, shape, dtype):
        """An uninitialised device array (counted in the call's device bytes)."""
        d = self.cuda.device_array(shape, dtype)
        self.allocated += d.nbytes
        return d

    def sample_memory(self):
        """Record the device memory in use now (all processes)."""
        try:
            free, tot = self.cuda.current_context().get_memory_info()
        except Exception:  # pragma: no cover
            return
        if math.isfinite(free) and math.isfinite(tot):
            self.used_samples.append(int(tot - free))

    def upload(self):
        """Streams, weights, tables and statistics on the device; the kernel compiled by a first launch."""
        cuda = self.cuda
        try:
            self.comp, self.copy, self.statq = cuda.stream(), cuda.stream(), cuda.stream()
            self.d_weights = [self.dev(w) for w in self.host_weights]
            t = self.tables
            self.d_tables = [self.dev(t.keep_threshold.astype(np.int64)), self.dev(t.noise_threshold.astype(np.int64)),
                             self.dev(t.noise_alias.astype(np.int32)), self.dev(t.hs_codes.astype(np.int8)),
                             self.dev(t.hs_points.astype(np.int32)), self.dev(t.hs_lengths.astype(np.int32))]
            self.d_stats = self.dev(np.zeros((self.epochs, 4), np.float64))
            # compile (first launch) before the clock starts: a launch over zero segments
            t_c = time.perf_counter()
            dummy = self.dev(np.zeros(1, np.int32))
            d0 = self.dev(np.zeros(1, np.int64))
            d1 = self.dev(np.zeros(1, np.int32))
            d_scratch = self.dev(np.zeros(4, np.float64))
            with warnings.catch_warnings():   # "grid size 1 ... under-utilization": on purpose here
                warnings.simplefilter("ignore")
                self.kernel[1, self.threads, self.comp](dummy, d0, d1, np.int64(0), np.int64(0), self.total64,
                                                        *self.d_weights, *self.d_tables, self.alpha0,
                                                        self.min_alpha, self.seed_keep, self.seed_seg, d_scratch)
                self.comp.synchronize()
        except ParameterError:
            raise
        except Exception as exc:
            raise launch_error(exc) from exc
        self.compile_seconds = time.perf_counter() - t_c

    def plan_batches(self, batch_tokens, resident_bytes):
        """Batches of about ``batch_tokens`` ids, balanced; resident on the device if they fit."""
        cuda, length = self.cuda, self.length
        bt = int(batch_tokens or DEFAULT_BATCH_TOKENS)
        self.n_batches = max(1, -(-length // max(1, bt)))
        bsize = max(1, -(-length // self.n_batches))
        self.bsize = bsize
        if resident_bytes is None:
            try:
                free, _ = cuda.current_context().get_memory_info()
            except Exception:  # pragma: no cover
                free = 0
            resident_bytes = free // 2 if math.isfinite(free) else 1 << 62
        # ids + segment arrays (at most one segment per 2 ids: 12 bytes each, i.e. 6 per id)
        self.resident = resident = length * 10 <= resident_bytes
        self.d_ids = self.empty(max(1, length), np.int32) if resident else None
        self.d_bufs = None if resident else [self.empty(bsize, np.int32) for _ in range(2)]
        self.pinned = [cuda.pinned_array(bsize, np.int32) for _ in range(2)]
        self.pin_events = [None, None]
        self.buf_events = [None, None]
        self.seg_cache = {}   # batch -> (segment starts, lengths, start, ids) on the host
        self.seg_dev = {}     # batch -> segment starts and lengths on the device (resident)
        self.h_stats = np.zeros(4, np.float64)
        self.sample_memory()
        make_segments(np.zeros(2, np.int32), self.seg, self.settings.max_sentence_length)   # load it now

    # ------------------------------------------------------------ training
    def train(self):
        """Every epoch's batches, launched in order; the weights copied back on Ctrl-C (``stop_event``)."""
        self.t0 = time.perf_counter()
        counter = 0
        try:
            for epoch in range(self.epochs):
                for b, start, ids in self.batches(epoch):
                    if self.stop_event is not None and self.stop_event.is_set():
                        raise KeyboardInterrupt
                    self.launch(epoch, b, start, ids, counter)
                    counter += 1
                    self.settle()
                    self.report_ended()
                    # no line for an epoch already summed up
                    self.report(min(max(epoch, self.reported), self.epochs - 1))
            self.comp.synchronize()
            self.settle(block=True)
            self.report_ended()
        except KeyboardInterrupt:
            self.comp.synchronize()
            self.copy_back()
            raise
        except (ParameterError, DeviceError):
            raise
        except Exception as exc:
            raise launch_error(exc) from exc

    def batches(self, epoch):
        """``(batch, start, ids)`` of an epoch; ``ids`` None where the batch is already on the device."""
        if self.resident and epoch > 0:
            for b in range(self.n_batches):
                yield b, self.seg_cache[b][2], None
        else:
            for b, (start, ids) in enumerate(self.encoded.blocks(self.bsize)):
                yield b, start, ids

    def launch(self, epoch, b, start, ids, counter):
        """Queue batch ``b`` (its copy first if ``ids`` are given) on the compute stream."""
        if ids is not None:
            d_batch, d_st, d_ln, nseg, n = self.stage(b, start, ids, counter % 2)
        else:
            st, ln, start, n = self.seg_cache[b]
            d_st, d_ln = self.seg_dev[b]
            d_batch = self.d_ids[start:start + n]
            nseg = int(st.size)
        if nseg:
            self.kernel[nseg, self.threads, self.comp](
                d_batch, d_st, d_ln, np.int64(nseg), np.int64(self.offset + epoch * self.length + start),
                self.total64, *self.d_weights, *self.d_tables, self.alpha0, self.min_alpha, self.seed_keep,
                self.seed_seg, self.d_stats[epoch])
            self.n_segments += nseg
        done_ev = self.cuda.event()
        done_ev.record(self.comp)
        if not self.resident:
            self.buf_events[counter % 2] = done_ev
        self.pending.append((done_ev, n))

    def stage(self, b, start, ids, slot):
        """Copy a batch's ids and segments to the device through staging buffer ``slot``.

        Returns ``(device ids, segment starts, segment lengths, segments, ids)``;
        the compute stream waits for the copy.
        """
        cuda, copy = self.cuda, self.copy
        n = ids.size
        if b not in self.seg_cache:
            st, ln = make_segments(ids, self.seg, self.settings.max_sentence_length)
            self.seg_cache[b] = (st, ln, start, n)
        st, ln = self.seg_cache[b][0], self.seg_cache[b][1]
        if self.pin_events[slot] is not None:
            self.pin_events[slot].synchronize()       # staging buffer free again
        if not self.resident and self.buf_events[slot] is not None:
            self.buf_events[slot].wait(copy)          # device buffer no longer read
        stage = self.pinned[slot][:n]
        np.copyto(stage, ids)
        target = self.d_ids[start:start + n] if self.resident else self.d_bufs[slot][:n]
        if n:
            target.copy_to_device(stage, stream=copy)
        if self.resident:
            self.seg_dev[b] = (self.dev(st, copy), self.dev(ln, copy))
            d_st, d_ln = self.seg_dev[b]
        else:
            d_st, d_ln = cuda.to_device(st, stream=copy), cuda.to_device(ln, stream=copy)
        ev = cuda.event()
        ev.record(copy)
        ev.wait(self.comp)
        self.pin_events[slot] = ev
        return target, d_st, d_ln, int(st.size), n

    def settle(self, block=False):
        """Count the launches that have finished (all of them if ``block``; never more than ``max_inflight`` queued)."""
        pending = self.pending
        while pending:
            ev, ntok = pending[0]
            if len(pending) > self.max_inflight or block:
                ev.synchronize()
            else:
                if self.can_query is None:
                    self.can_query = hasattr(ev, "query")
                if self.can_query and not ev.query():
                    break
                if not self.can_query:
                    ev.synchronize()
            pending.pop(0)
            self.done += ntok

    def epoch_stats(self, epoch):
        """Epoch ``epoch``'s statistics so far, read on the statistics stream (the queue goes on)."""
        self.d_stats[epoch].copy_to_host(self.h_stats, stream=self.statq)
        self.statq.synchronize()
        return self.h_stats

    def report(self, epoch, force=False):
        """A progress line or a progress tick if one is due."""
        progress = self.progress
        if progress is None:
            return
        shown = not progress.quiet and time.perf_counter() - progress.last >= progress.interval
        if not (force or shown or progress.tick_due(self.done)):
            return
        h_stats = self.epoch_stats(epoch)
        progress.maybe_report(self.done, h_stats[0], h_stats[1], epoch, force)

    def report_ended(self):
        """Each epoch's mean loss as soon as its last launch has finished.

        Launches run in order on one stream, so the epoch's statistics are complete by then.
        """
        progress = self.progress
        while progress is not None and self.reported < self.epochs and self.done >= (self.reported + 1) * self.length:
            e = self.reported
            h_stats = self.epoch_stats(e)
            progress.maybe_report(self.done, h_stats[0], h_stats[1], e, True)
            progress.epoch_done(e, h_stats[0], h_stats[1])
            self.reported += 1

    # ------------------------------------------------------------ the end
    def copy_back(self):
        """The device weights into the host arrays."""
        for d, h in zip(self.d_weights, self.host_weights):
            d.copy_to_host(h)

    def finish(self):
        """Copy the weights back; return the per-epoch statistics and the training seconds."""
        self.sample_memory()
        self.copy_back()
        stats = self.d_stats.copy_to_host()
        seconds = time.perf_counter() - self.t0
        if self.progress is not None:
            for i in range(self.reported, len(stats)):   # none left unless an epoch was empty
                self.progress.epoch_done(i, stats[i, 0], stats[i, 1])
        return stats, seconds
