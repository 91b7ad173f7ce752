"""The driver's connection to a Dask cluster: clients, a local cluster, waits and retries.

``dask`` is imported only by the functions that talk to a cluster, so that
:class:`DistributedError` and the rest of the package import without it.
"""
import contextlib
import logging
import threading
import time
import uuid

from ..errors import W2VError
from ..util.extras import install_hint

INSTALL_HINT = install_hint("dist")
RUNNING = ("running", "newly-created")   # client states of a usable connection
NO_WORKER_SECONDS = 120.0   # how long a run waits for a worker when the cluster has none
CALL_SECONDS = 60.0         # how long a call to the scheduler may take
RESULT_SECONDS = 300.0      # how long fetching a finished task's result may take
SCATTER_ATTEMPTS = 3        # tries of a scatter that a lost worker made fail


class DistributedError(W2VError):
    """The Dask cluster cannot be used (dask missing, scheduler unreachable or lost, task failures)."""


def require_distributed():
    """Import ``distributed`` or raise :class:`DistributedError` with the install hint."""
    try:
        import distributed
    except ImportError:
        raise DistributedError(f"distributed training needs dask[distributed]: {INSTALL_HINT}") from None
    return distributed


@contextlib.contextmanager
def dask_client(scheduler=None, n_workers=None, threads_per_worker=1, connect_timeout=10):
    """A Dask client on an existing scheduler, or on a ``LocalCluster`` started and stopped here.

    Parameters
    ----------
    scheduler : str, optional
        Scheduler address, e.g. ``tcp://host:8786``.
    n_workers : int, optional
        Without ``scheduler``: worker processes of the local cluster (default 2).
    threads_per_worker : int
        Threads of each local worker process.
    connect_timeout : float
        Seconds to wait for the scheduler.

    Raises
    ------
    DistributedError
        dask is not installed, the scheduler cannot be reached, or the local
        cluster cannot start.
    """
    distributed = require_distributed()
    cluster = None
    try:
        if scheduler:
            try:
                # a malformed address fails here, before a Client exists: a Client whose
                # constructor failed still waits 20 s in its finalizer and prints a traceback
                distributed.comm.resolve_address(scheduler)
                client = distributed.Client(scheduler, timeout=connect_timeout, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                raise DistributedError(f"cannot reach the Dask scheduler at {scheduler}: "
                                       f"{' '.join(str(exc).split())}") from None
        else:
            # CRITICAL: the workers would log, with a traceback, each error that the client
            # raises anyway (a corrupt corpus file: once per retry).  Dashboard ":0" (any free
            # port): with None the scheduler's HTTP server still takes 8787, and warns if it is taken
            cluster = start_local_cluster(distributed, n_workers, threads_per_worker)
            client = distributed.Client(cluster, set_as_default=False)
    except DistributedError:
        raise
    except BaseException as exc:
        # Ctrl-C while the cluster starts, too: closed here, quietly (left to distributed's
        # atexit hook, its close fails on workers still starting and prints a traceback)
        if cluster is not None:
            close_quietly(cluster)
        if not isinstance(exc, Exception):
            raise
        raise DistributedError(f"cannot start a local Dask cluster: {exc}") from None  # pragma: no cover
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=5)
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close(timeout=10)


def start_local_cluster(distributed, n_workers, threads_per_worker):
    """A ``LocalCluster``; one interrupted (or failed) while it starts is closed before the error goes on.

    Its worker processes import this module as they start and run :func:`dask_setup`.
    """
    try:
        from distributed.deploy.spec import SpecCluster
        before = set(SpecCluster._instances)
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - another distributed
        SpecCluster, before = None, None
    try:
        # preload: each worker process runs dask_setup below as it starts
        return distributed.LocalCluster(n_workers=int(n_workers or 2),
                                        threads_per_worker=int(threads_per_worker or 1),
                                        processes=True, dashboard_address=":0",
                                        silence_logs=logging.CRITICAL, preload=[__name__])
    except BaseException:
        if before is not None:
            for half in set(SpecCluster._instances) - before:
                close_quietly(half)
        raise


def dask_setup(worker):
    """Preload hook of the local cluster's worker processes (:func:`start_local_cluster`): ignore SIGINT.

    A terminal's Ctrl-C signals its whole foreground process group: the
    local cluster's worker processes got it too, and each printed a
    ``KeyboardInterrupt`` traceback under the CLI's "interrupted", while the
    driver (which gets it as well) stops and closes the cluster anyway.  The
    driver alone decides; the workers end when it closes the cluster.
    """
    import signal

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def close_quietly(cluster):
    """Close a cluster that may still be starting, without the tracebacks its own close prints."""
    # a cluster whose workers are still starting fails its own close (an assertion on their
    # status): closed here as far as it goes, and taken off distributed's atexit list.  A
    # worker being spawned at that moment fails its start ("Nanny failed to start"), a task
    # nobody awaits any more, which asyncio reported as a 40-line "Task exception was never
    # retrieved" when it was collected (about 1 run in 25 under load): the abandoned
    # cluster's loop drops such reports
    with contextlib.suppress(Exception):
        cluster.loop.asyncio_loop.set_exception_handler(lambda loop, context: None)
    with contextlib.suppress(BaseException):
        cluster.close(timeout=5)
    with contextlib.suppress(Exception):
        cluster.shutdown_on_close = False
        type(cluster)._instances.discard(cluster)


class Cancelled(DistributedError):
    """Dask cancelled tasks while the scheduler is there (their inputs were lost with workers)."""

    @classmethod
    def because(cls, exc):
        """The error of the cancellation ``exc``, in one line."""
        return cls(f"Dask cancelled the training tasks ({' '.join(str(exc).split())})")


class Cluster:
    """The driver's view of the client: waits on futures, turns a lost scheduler into one error.

    Parameters
    ----------
    client : distributed.Client
    pinned_tasks : set of str
        Names of the task functions whose tasks prefer a worker (loose
        restrictions): :meth:`reschedule_unrunnable` starts those that wait
        for a worker while the cluster has none.
    """

    def __init__(self, client, pinned_tasks=frozenset()):
        self.client = client
        self.pinned_tasks = frozenset(pinned_tasks)
        try:
            self.where = f" at {client.scheduler.address}"
        except Exception:
            self.where = ""

    def lost(self, exc=None):
        """The :class:`DistributedError` of a lost scheduler (with the one-line cause ``exc``)."""
        detail = " ".join(str(exc).split()) if exc is not None else ""
        return DistributedError(f"lost the connection to the Dask scheduler{self.where}"
                                + (f" ({detail})" if detail else ""))

    def alive(self):
        """True while the client is connected."""
        return self.client.status in RUNNING

    def wait(self, futures, what, seconds, no_worker_timeout=NO_WORKER_SECONDS):
        """Wait for ``futures`` (``what`` they are) at most ``seconds``.

        Raises
        ------
        DistributedError
            The scheduler or every worker went away, or ``seconds`` passed
            (the error names ``what``).
        Cancelled
            Dask cancelled the futures while the scheduler is there.
        """
        from distributed import wait
        started = checked = time.monotonic()
        alone_since = None
        while True:
            if not self.alive():
                raise self.lost()
            now = time.monotonic()
            if now - started > seconds:
                raise DistributedError(f"{what} did not finish within {seconds:.0f}s")
            if now - checked > 5.0:   # tasks cannot finish without workers
                checked = now
                if self.call(self.client.nthreads, what="the scheduler's list of workers", seconds=CALL_SECONDS):
                    alone_since = None
                    self.reschedule_unrunnable()   # a worker joined after the cluster had none
                elif alone_since is None:
                    alone_since = checked
                elif checked - alone_since > no_worker_timeout:
                    raise self.no_worker(no_worker_timeout)
            try:
                with self.client.as_current():   # the client need not be the default one
                    wait(futures, timeout=0.5)
                return
            except TimeoutError:
                continue
            except Exception as exc:   # futures cancelled: the scheduler went away (or cancelled them)
                if not self.alive() or "connection" in str(exc):
                    raise self.lost() from None
                raise Cancelled.because(exc) from None

    def results(self, futures, what, seconds=RESULT_SECONDS):
        """The results of finished ``futures`` (``what`` they are), each fetched within ``seconds``."""
        return [self.call(f.result, timeout=seconds, what=what) for f in futures]

    def cancel(self, futures, what):
        """Cancel ``futures`` (``what`` they are)."""
        self.call(self.client.cancel, futures, what=f"cancelling {what}", seconds=CALL_SECONDS)

    def no_worker(self, seconds):
        """The :class:`DistributedError` of a cluster without workers for ``seconds``."""
        return DistributedError(f"no Dask worker left{self.where} for {seconds:.0f}s")

    def wait_for_worker(self, timeout=NO_WORKER_SECONDS):
        """Return once the cluster has a worker; :class:`DistributedError` after ``timeout`` s without."""
        deadline = time.monotonic() + timeout
        while not self.call(self.client.nthreads, what="the scheduler's list of workers", seconds=CALL_SECONDS):
            if not self.alive():
                raise self.lost()
            if time.monotonic() > deadline:
                raise self.no_worker(timeout)
            time.sleep(0.5)

    def reschedule_unrunnable(self):
        """Start the tasks that waited for a worker while the cluster had none.

        A lane's tasks prefer its worker but may run elsewhere (loose
        restrictions); the scheduler leaves such a task waiting when no worker
        at all is there, and a worker that joins later takes only the tasks
        restricted to it.  The shards the lost workers held are rebuilt by
        such tasks, so they are sent to the workers there now.
        """
        pinned = set(self.pinned_tasks)

        def reschedule(dask_scheduler):
            # defined here, so that it travels by value: the scheduler need not have w2v installed.
            # Tasks of this run parked in "no-worker" with loose restrictions go to "processing",
            # which gives them to any running worker
            if not dask_scheduler.running:
                return 0
            recs = {ts.key: "processing" for ts in list(dask_scheduler.unrunnable)
                    if ts.loose_restrictions and str(ts.key).split("-")[0] in pinned}
            if recs:
                dask_scheduler.transitions(recs, stimulus_id="w2v-reschedule-" + uuid.uuid4().hex)
            return len(recs)

        with contextlib.suppress(Exception):   # best effort: scheduler internals
            self.call(self.client.run_on_scheduler, reschedule, what="rescheduling waiting tasks",
                      seconds=CALL_SECONDS)

    def call(self, func, *args, what=None, seconds=None, **kwargs):
        """A client call; a communication failure becomes :class:`DistributedError`.

        With ``seconds``, the call is given that long (it runs in a helper
        thread): :class:`DistributedError` names ``what`` if it has not
        answered by then.
        """
        try:
            if seconds is None:
                return func(*args, **kwargs)
            return _bounded(func, args, kwargs, seconds, what or getattr(func, "__name__", "a Dask call"))
        except (DistributedError, W2VError):
            raise
        except Exception as exc:
            from concurrent.futures import CancelledError
            if isinstance(exc, CancelledError) and self.alive():
                raise Cancelled.because(exc) from None
            if isinstance(exc, TimeoutError) and self.alive() and what:
                raise DistributedError(f"{what}: no answer ({' '.join(str(exc).split()) or 'timed out'})") from None
            if is_comm_error(exc) or not self.alive():
                raise self.lost(exc) from None
            raise

    def scatter(self, obj, what, broadcast=False, attempts=SCATTER_ATTEMPTS, seconds=None):
        """``obj`` scattered to the workers as one future (to all of them if ``broadcast``).

        A scatter that fails or hangs because a worker went away while it
        sent (the scheduler still there) is tried again, on the workers there
        are then, up to ``attempts`` times; each try has ``seconds``
        (default :func:`scatter_seconds` of the bytes it sends).

        Raises
        ------
        DistributedError
            Every try failed, or the scheduler went away (the error names ``what``).
        """
        nbytes = _nbytes(obj)
        why = None
        for _ in range(attempts):
            self.wait_for_worker()
            copies = max(1, len(self.call(self.client.nthreads, what="the scheduler's list of workers",
                                          seconds=CALL_SECONDS))) if broadcast else 1
            limit = scatter_seconds(nbytes * copies) if seconds is None else seconds
            try:
                # a list: scattering a dict would scatter its values under its keys
                return _bounded(self.client.scatter, ([obj],), dict(broadcast=broadcast, hash=False, timeout=limit),
                                1.1 * limit + 1, what)[0]
            except (DistributedError, W2VError) as exc:
                why = str(exc)
            except Exception as exc:
                why = " ".join(str(exc).split()) or type(exc).__name__
            if not self.alive() or not self._scheduler_answers():
                raise self.lost(why)
        raise DistributedError(f"{what} failed {attempts} times (the last: {why})")

    def _scheduler_answers(self):
        # True if the scheduler answers a call within CALL_SECONDS
        try:
            _bounded(self.client.nthreads, (), {}, CALL_SECONDS, "the scheduler")
            return True
        except Exception:
            return False


def _nbytes(obj):
    # bytes of the arrays in a (nested) dict, list or object of arrays
    if hasattr(obj, "nbytes"):
        return int(obj.nbytes)
    if isinstance(obj, dict):
        return sum(_nbytes(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_nbytes(v) for v in obj)
    if hasattr(obj, "__dict__"):
        return sum(_nbytes(v) for v in vars(obj).values())
    return 0


def scatter_seconds(nbytes):
    """How long a scatter of ``nbytes`` (all copies together) may take: 60 s plus 10 MB/s."""
    return 60.0 + nbytes / 10e6


def _bounded(func, args, kwargs, seconds, what):
    # func(*args, **kwargs) in a helper thread, given `seconds`: its result or its exception;
    # DistributedError naming `what` if it has not returned by then (the thread is left to finish)
    box = {}

    def run():
        try:
            box["result"] = func(*args, **kwargs)
        except BaseException as exc:   # handed to the caller
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True, name="w2v-dask-call")
    t.start()
    t.join(seconds)
    if t.is_alive():
        raise DistributedError(f"{what} did not finish within {seconds:.0f}s")
    if "error" in box:
        raise box["error"]
    return box["result"]


def is_comm_error(exc):
    """True if ``exc`` is a failure of the connection to the scheduler (or of a cancelled call)."""
    from concurrent.futures import CancelledError
    try:
        from distributed.comm.core import CommClosedError
    except ImportError:  # pragma: no cover
        CommClosedError = OSError
    return isinstance(exc, (CommClosedError, OSError, ConnectionError, CancelledError, TimeoutError))



def scheduler_workers(cluster):
    """The addresses of the cluster's workers, sorted, once there is at least one (60 s at most)."""
    client = cluster.client
    try:
        client.wait_for_workers(1, timeout=60)
    except TimeoutError:
        raise (cluster.no_worker(60) if cluster.alive() else cluster.lost()) from None
    except Exception as exc:
        if is_comm_error(exc) or not cluster.alive():
            raise cluster.lost(exc) from None
        raise
    what = "the scheduler's list of workers"
    try:
        info = cluster.call(client.scheduler_info, n_workers=-1, what=what, seconds=CALL_SECONDS)
    except TypeError:  # older distributed
        info = cluster.call(client.scheduler_info, what=what, seconds=CALL_SECONDS)
    return sorted(info["workers"])
