"""Progress on stderr: the training's progress lines, and the statuses of the steps before it.

:class:`Progress` draws the lines every runner reports through (CPU, CUDA,
Dask), and the statuses of the corpus scan; :class:`KernelWatch` says when
Numba compiles the kernels and times what a thread waits for them.
"""
import sys
import threading
import time

from ..util.console import line_left_open, write_or_drop

TICKS = 100   # progress ticks recorded per run: one each time 1% of the run is done


class Progress:
    """Progress lines on stderr: % done, words/s, ETA, learning rate, running loss.

    ``total_words`` and the ``done`` of :meth:`maybe_report` count the ids the
    kernels read (in-vocabulary tokens and sentence ends); ``words_per_id``
    turns their rate into raw corpus words per second, the figure of the
    final summary and of ``--report-json`` (raw tokens x epochs / seconds).

    On a terminal the progress line (and a :meth:`status`) is redrawn in
    place every ``interval`` (0.5 s); elsewhere (a log file, a pipe) each is
    a line of its own, every 5 s.

    Whether or not lines are shown, each 1% of the run done records a tick in
    :attr:`ticks` (at most :data:`TICKS` + 1 per process): the fields of
    :data:`w2v.training.lifecycle.TICK_COLUMNS` but the segment, that ``--report-json``
    keeps and ``w2v plot-run`` draws.
    """

    def __init__(self, total_words, settings, stream=None, quiet=False, interval=None, words_per_id=1.0):
        self.total = max(1, total_words)
        self.done_before = 0    # of a resumed run: what its earlier epochs trained (resume_from)
        self.words_per_id = words_per_id
        self.settings = settings
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.interval = interval if interval is not None else (0.5 if self.tty else 5.0)
        self.t0 = time.perf_counter()
        self.last = self.t0
        self.ticks = []         # [seconds, fraction, epoch, words/s, learning rate, loss] each 1% of the run
        self._tick_at = self._next_tick(0)
        self._tick_from = (0.0, 0)   # seconds and ids of this process at the last tick
        self.checkpoint_at = None    # fraction of the run the last checkpoint holds (w2v.model.checkpoints)

    def resume_from(self, done_before):
        """A resumed run: ``done_before`` of the ``total`` ids were trained before it.

        % done and the learning rate are the whole run's; words/s and the ETA
        count only what this process trains.
        """
        self.done_before = min(max(0, done_before), self.total)
        self._tick_at = self._next_tick(self.done_before)

    def _next_tick(self, ids):
        """The ids of the run after which the tick that follows ``ids`` is due."""
        k = ids * TICKS // self.total + 1
        return -(-k * self.total // TICKS)

    def tick_due(self, done):
        """Whether :meth:`maybe_report` after ``done`` ids of this process records a tick."""
        return self.done_before + done >= self._tick_at

    def run_ticks(self, earlier=None):
        """The run's ticks: ``earlier`` (rows of :data:`w2v.training.lifecycle.TICK_COLUMNS`, saved with a
        checkpoint) and this process's, as the segment after theirs.

        Parameters
        ----------
        earlier : list of list, optional
            The ticks of the processes that trained the run's first epochs.

        Returns
        -------
        list of list
            Rows of :data:`w2v.training.lifecycle.TICK_COLUMNS`.
        """
        earlier = [list(row) for row in earlier or []]
        segment = int(earlier[-1][0]) + 1 if earlier else 0
        return earlier + [[segment] + row for row in self.ticks]

    def _tick(self, now, done, loss, examples, epoch):
        seconds = max(now - self.t0, 1e-9)
        ids = self.done_before + done
        frac = min(1.0, ids / self.total)
        seconds_before, done_before = self._tick_from
        rate = (done - done_before) / max(seconds - seconds_before, 1e-9) * self.words_per_id
        mean_loss = float(loss / examples) if examples else None
        if mean_loss is not None and mean_loss != mean_loss:
            mean_loss = None
        self.ticks.append([round(seconds, 4), round(frac, 6), int(epoch) + 1, round(float(rate), 1),
                           round(float(self.alpha_at(frac)), 9), mean_loss])
        self._tick_from = (seconds, done)
        self._tick_at = self._next_tick(ids)

    def exclude(self, seconds):
        """Leave ``seconds`` spent on something else (a checkpoint's save) out of words/s and the ETA."""
        self.t0 += seconds

    def alpha_at(self, frac):
        """The learning rate after the fraction ``frac`` of the run (linear decay to ``min_alpha``)."""
        s = self.settings
        return max(s.min_alpha, s.alpha - (s.alpha - s.min_alpha) * min(1.0, frac))

    def maybe_report(self, done, loss, examples, epoch, force=False):
        """A progress line after ``done`` ids of this process, at most one per ``interval`` unless ``force``.

        ``loss`` and ``examples`` are the sums of epoch ``epoch`` (0-based) so far.
        A tick is recorded when one is due (:meth:`tick_due`), shown or not.
        """
        now = time.perf_counter()
        if self.tick_due(done):
            self._tick(now, done, loss, examples, epoch)
        if self.quiet or (not force and now - self.last < self.interval):
            return
        self.last = now
        elapsed = max(now - self.t0, 1e-9)
        frac = (self.done_before + done) / self.total
        rate = done / elapsed
        eta = (self.total - self.done_before - done) / rate if rate > 0 else float("inf")
        rate *= self.words_per_id
        loss_text = f"{loss / examples:.4f}" if examples else "-"   # no example trained yet
        self.status(f"epoch {epoch + 1}/{self.settings.epochs}  {100 * frac:5.1f}%  "
                    f"{rate / 1e3:8.1f}k words/s  lr {self.alpha_at(frac):.6f}  "
                    f"loss {loss_text}  ETA {_fmt_seconds(eta)}{self._mode_text()}")

    def _mode_text(self):
        # deterministic mode and the last checkpoint, at the line's end (a Hogwild run without one: nothing)
        s, text = self.settings, ""
        if getattr(s, "deterministic", False):
            text += f"  deterministic {s.lanes} lanes seed {s.seed}"
        if self.checkpoint_at is not None:
            text += f"  checkpoint {100 * self.checkpoint_at:.1f}%"
        return text

    def status(self, text, log=True):
        """What the run is doing now: redrawn in place on a terminal, a line of its own elsewhere
        (unless ``log`` is false: a short step that a :meth:`message` will report)."""
        if self.quiet:
            return
        if self.tty:
            line_left_open(self.stream, True)
            self._write("\r" + text + "\033[K")
        elif log:
            self._write(text + "\n")

    def _write(self, text):
        if not write_or_drop(self.stream, text):   # the terminal or the pipe went away: train on, unseen
            self.quiet = True
            line_left_open(self.stream, False)

    def epoch_done(self, epoch, loss_sum, examples):
        """Report an epoch's mean loss, or say why it trained on nothing."""
        if examples:
            self.message(f"epoch {epoch + 1}: mean loss {loss_sum / examples:.4f} over {int(examples):,} examples")
        else:
            # e.g. a tiny corpus: subsampling keeps a word of frequency f with
            # probability (sqrt(f / sample) + 1) * sample / f, about 7% at f = 25%
            self.message(f"epoch {epoch + 1}: no training examples (every word was subsampled away "
                         f"or had no context; on a tiny corpus set sample to 0)")

    def message(self, text):
        """A line that stays (it replaces the progress line drawn in place on a terminal)."""
        if not self.quiet:
            line_left_open(self.stream, False)
            self._write(("\r\033[K" if self.tty else "") + text + "\n")


def _fmt_seconds(s):
    if s == float("inf") or s != s:
        return "?"
    s = int(round(s))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


COMPILING = "compiling the training kernels (once) ..."
_EVENTS = ("numba:compile", "numba:compiler_lock")   # Numba's event API (numba.core.event)


class KernelWatch:
    """Watches Numba while the kernels load: says when one compiles, times a thread's waits for them.

    Numba compiles a kernel on its first call and caches the machine code, so
    only the first run compiles (about half a minute on 2 cores); later runs
    load the cache in about a second.  Used as a context manager around the
    code that loads the kernels (in any thread):

    * ``on_compile()`` is called once, in the compiling thread, when a
      compilation (a cache miss) starts, e.g. to print :data:`COMPILING`;
    * ``compiled`` tells whether anything compiled, ``compile_seconds`` how
      long the compilations took (summed over threads);
    * ``waited`` is the time the thread that entered the watch spent on
      kernels: holding or waiting for Numba's compiler lock (which a
      compilation in another thread holds), plus what :meth:`wait` adds.
      The caller leaves it out of its own phase's time.

    Parameters
    ----------
    on_compile : callable, optional
        Called without arguments when the first compilation starts.
    """

    def __init__(self, on_compile=None):
        self.on_compile = on_compile
        self.compiled = False
        self.compile_seconds = 0.0
        self.waited = 0.0
        self._thread = threading.get_ident()
        self._open = {}    # (event kind, thread) -> [depth, start]
        self._lock = threading.Lock()
        self._listener = None   # Numba's event listener, registered from __enter__ to __exit__

    def __enter__(self):
        from numba.core import event   # start-up: imported by the CLI; loads Numba (+0.5 s)

        watch = self

        class Listener(event.Listener):
            def on_start(self, ev):
                watch._started(ev.kind)

            def on_end(self, ev):
                watch._ended(ev.kind)

        self._listener = Listener()
        for kind in _EVENTS:
            event.register(kind, self._listener)
        return self

    def __exit__(self, *exc):
        from numba.core import event   # start-up: imported by the CLI; loads Numba (+0.5 s)

        for kind in _EVENTS:
            event.unregister(kind, self._listener)
        return False

    def wait(self, thread):
        """Join ``thread`` (a kernel load), counting the time as waited."""
        t0 = time.perf_counter()
        thread.join()
        self.waited += time.perf_counter() - t0

    def _started(self, kind):
        key = (kind, threading.get_ident())
        if kind == "numba:compiler_lock" and key[1] != self._thread:
            return
        with self._lock:
            depth = self._open.setdefault(key, [0, 0.0])
            depth[0] += 1
            if depth[0] == 1:
                depth[1] = time.perf_counter()
            first = kind == "numba:compile" and not self.compiled
            self.compiled = self.compiled or kind == "numba:compile"
        if first and self.on_compile is not None:
            try:
                self.on_compile()
            except Exception:   # pragma: no cover - a message that cannot be shown must not stop the compile
                pass

    def _ended(self, kind):
        with self._lock:
            depth = self._open.get((kind, threading.get_ident()))
            if not depth or depth[0] == 0:
                return
            depth[0] -= 1
            if depth[0] == 0:
                seconds = time.perf_counter() - depth[1]
                if kind == "numba:compile":
                    self.compile_seconds += seconds
                else:
                    self.waited += seconds

