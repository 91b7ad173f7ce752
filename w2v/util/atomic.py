"""Atomic file writes: a temporary file in the target's directory, then a rename.

Also the words of a failed write (:func:`os_error_text`), the check that a
folder really takes new files (:func:`creation_error`), the modes of what is
replaced (:func:`replaced_mode`, :func:`keep_modes`), and the removal of the
partial temporaries that killed writes left (:func:`reclaim_temporaries`).
"""
import contextlib
import errno
import logging
import os
import re
import shutil
import signal
import stat
import tempfile
import threading
import time

from ..errors import OutputError

logger = logging.getLogger(__name__)

#: a temporary that a write began this many seconds before another write to the same place started,
#: and has not changed since, is stale (file systems stamp times with a coarse clock)
STALE_SECONDS = 2.0

# what numpy's tofile (np.save to a file) raises on a short write, without an errno
_SHORT_WRITE = re.compile(r"(\d+) requested and (\d+) written")


def os_error_text(exc):
    """What went wrong in the ``OSError`` ``exc``, for a message: its ``strerror``.

    A short write of numpy's (``"1233800 requested and 254944 written"``,
    with no errno) is what a full disk does to it, and is said so: ``No
    space left on device (1233800 requested and 254944 written)``.
    """
    if exc.strerror:
        return exc.strerror
    short = _SHORT_WRITE.fullmatch(str(exc))
    if short is not None:
        return f"{os.strerror(errno.ENOSPC)} ({short[0]})"
    return str(exc)


def creation_error(directory):
    """Why no file can be created in ``directory``, or ``None`` once a temporary file was created there and removed.

    ``os.access`` answers from the permission bits, which do not bind root,
    and knows nothing of file systems that refuse new files (``/proc``):
    only creating one tells.
    """
    try:
        fd, tmp = tempfile.mkstemp(prefix=".w2v-probe.", suffix=".tmp", dir=directory)
    except OSError as exc:
        return os_error_text(exc)
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(tmp)
    return None


def umask_mode(mode=0o666):
    """``mode`` filtered by the process umask (what ``open()`` would have given)."""
    old = os.umask(0)
    os.umask(old)
    return mode & ~old


def replaced_mode(path, new=0o666):
    """The permission bits for what replaces ``path``: those of the file or folder there, else ``new`` less umask.

    A replaced output keeps its mode (a ``chmod 600`` file stays 600, a
    0700 model folder stays 0700); only a new one follows the umask.

    Parameters
    ----------
    path : str
    new : int, optional
        The mode of a new file (``0o666``) or folder (``0o777``), before the umask.

    Returns
    -------
    int
    """
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return umask_mode(new)


def keep_modes(old_dir, new_dir):
    """Give the folder ``new_dir`` and its files the modes of the folder ``old_dir`` they replace.

    A file of ``new_dir`` gets the mode of the regular file of the same name
    in ``old_dir``, a file that ``old_dir`` lacks 0666 less the umask; the
    folder gets ``old_dir``'s mode (0777 less the umask where there is
    none).  The folder is changed last, so that a read-only mode cannot keep
    its files from being changed.

    Parameters
    ----------
    old_dir, new_dir : str
    """
    for name in os.listdir(new_dir):
        mine = os.path.join(new_dir, name)
        if not os.path.isfile(mine) or os.path.islink(mine):
            continue
        old = os.path.join(old_dir, name)
        kept = os.path.isfile(old) and not os.path.islink(old)
        os.chmod(mine, replaced_mode(old) if kept else umask_mode())
    os.chmod(new_dir, replaced_mode(old_dir, 0o777) if os.path.isdir(old_dir) else umask_mode(0o777))


def temporaries(path, suffix=".tmp"):
    """The entries ``.<name>.<random><suffix>`` next to ``path``, as the atomic writers name their temporaries.

    ``tempfile`` makes the random part of letters, digits and underscores:
    one holding a dot belongs to another name (``.m.bak.x1.tmp`` is a
    temporary of ``m.bak``, not of ``m``).

    Parameters
    ----------
    path : str
    suffix : str, optional

    Returns
    -------
    list of str
        Paths, whatever they are (links and special files included).
    """
    parent, name = os.path.split(os.path.abspath(path))
    prefix = "." + name + "."
    try:
        entries = os.listdir(parent)
    except OSError:
        return []
    return [os.path.join(parent, e) for e in entries if e.startswith(prefix) and e.endswith(suffix)
            and len(e) > len(prefix) + len(suffix) and "." not in e[len(prefix):-len(suffix)]]


def _last_change(path, st):
    """The newest modification time (ns) of ``path`` and, for a folder, of the entries in it."""
    newest = st.st_mtime_ns
    if stat.S_ISDIR(st.st_mode):
        with os.scandir(path) as entries:
            for entry in entries:
                newest = max(newest, entry.stat(follow_symlinks=False).st_mtime_ns)
    return newest


def reclaim_temporaries(path, started, folders=False, complete=None):
    """Remove the partial temporaries that killed writes of ``path`` left beside it, in one logged line.

    Called after a successful write of ``path`` that began at ``started``: a
    temporary of ``path`` (:func:`temporaries`) is stale where neither it nor
    anything in it has changed since :data:`STALE_SECONDS` before that write
    began (a write under way keeps changing its temporary).  Only regular
    files (``folders=False``, :func:`atomic_write`'s) or only folders
    (``folders=True``, a model folder's) are removed, never a link, and
    never a folder that ``complete`` says is complete: that is a copy a
    reader may recover a model from.

    Parameters
    ----------
    path : str
    started : int
        ``time.time_ns()`` when the write began, before it made its own temporary.
    folders : bool, optional
    complete : callable, optional
        ``complete(folder)``: whether a temporary folder is a complete copy, kept.

    Returns
    -------
    list of str
        The names removed.
    """
    before = started - int(STALE_SECONDS * 1e9)
    removed = []
    for tmp in temporaries(path):
        try:
            st = os.lstat(tmp)
            if stat.S_ISDIR(st.st_mode) != folders or not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
                continue
            if _last_change(tmp, st) >= before or (folders and complete is not None and complete(tmp)):
                continue
            if folders:
                shutil.rmtree(tmp)
            else:
                os.unlink(tmp)
        except OSError:
            continue
        removed.append(os.path.basename(tmp))
    if removed:
        logger.warning(f"removed {len(removed)} partial temporar{'y' if len(removed) == 1 else 'ies'} that an "
                       f"interrupted write of {path} left: {', '.join(sorted(removed))}")
    return removed


@contextlib.contextmanager
def atomic_write(path, mode="wb", flush_behind=False):
    """Open a temporary file next to ``path``; on success rename it over ``path``.

    On any exception (``KeyboardInterrupt`` included) the temporary file is
    removed and ``path`` is left as it was: readers see the old file or the
    complete new one, never a truncated file; the data and the rename are
    fsynced before it returns.  ``OSError`` becomes
    :class:`OutputError` naming the path.  A file replaced keeps its mode
    (:func:`replaced_mode`); a new one gets 0666 less the umask.  Once the
    new file is in place, the partial temporaries that killed writes of
    ``path`` left are removed (:func:`reclaim_temporaries`).

    An existing path that is not a regular file (``/dev/null``, a named pipe,
    ``/dev/stdout`` on a pipe) is written straight through, as a shell's
    ``>`` would: renaming over it would replace the device or pipe with a
    plain file (``-o /dev/null`` run as root did) and nobody would read it.

    With ``flush_behind``, a thread of its own syncs what has been written so
    far every :data:`FLUSH_BEHIND_SECONDS` while the caller writes, so the
    final fsync has little left to wait for (for big files written while
    other work computes).
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise OutputError(f"cannot write {path}: it is a directory")
    if os.path.exists(path) and not os.path.isfile(path):
        yield from _write_through(path, mode)
        return
    directory = os.path.dirname(os.path.abspath(path))
    file_mode = replaced_mode(path)
    started = time.time_ns()
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {os_error_text(exc)}") from None
    try:
        with os.fdopen(fd, mode) as fh, _flushing_behind(fd if flush_behind else None):
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, file_mode)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {path}: {os_error_text(exc)}") from None
        raise
    fsync_dir(directory)    # the rename itself is durable once the directory is on disk
    reclaim_temporaries(path, started)


#: how often :func:`atomic_write`'s ``flush_behind`` syncs the file being written
FLUSH_BEHIND_SECONDS = 0.1


@contextlib.contextmanager
def _flushing_behind(fd):
    """While the block runs, fdatasync ``fd`` every :data:`FLUSH_BEHIND_SECONDS` in a thread
    (nothing for ``None``); its errors are left to the final fsync, which reports them."""
    if fd is None:
        yield
        return
    done = threading.Event()

    def flush():
        while not done.wait(FLUSH_BEHIND_SECONDS):
            try:
                os.fdatasync(fd)
            except OSError:
                return

    worker = threading.Thread(target=flush, daemon=True, name="w2v-flush-behind")
    worker.start()
    try:
        yield
    finally:
        done.set()
        worker.join()


def fsync_dir(path):
    """fsync the directory ``path`` (its entries: a rename into it); a file system that
    cannot (``EINVAL``), or a directory this process may not open, is not an error."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


#: the signals that stop a command (see w2v_cli.common), held back by :func:`deferred_signals`
_HELD = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def deferred_signals():
    """Hold back SIGINT, SIGTERM and SIGHUP while the block runs, then deliver them.

    For steps that must not be cut in two, such as the two renames that swap
    a model directory into place and the removal of the old copy: a signal
    that arrives meanwhile is recorded and, once the block has ended (and
    each signal's handler is back), raised again, so that its handler runs
    (``KeyboardInterrupt``) or its default action (ending the process)
    happens then.  A signal that is ignored stays ignored.  Outside the main
    thread, where Python cannot set handlers (and runs none), nothing is
    held.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []

    def hold(signum, frame):
        caught.append(signum)

    saved = {}
    try:
        for sig in _HELD:
            handler = signal.getsignal(sig)
            if handler is None or handler == signal.SIG_IGN:   # None: set outside Python, kept as is
                continue
            saved[sig] = signal.signal(sig, hold)
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(caught):
            signal.raise_signal(sig)


def _write_through(path, mode):
    try:
        fh = open(path, mode)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {os_error_text(exc)}") from None
    try:
        with fh:
            yield fh
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {os_error_text(exc)}") from None


def atomic_write_text(path, text, encoding="utf-8"):
    """Write ``text`` to ``path`` atomically."""
    with atomic_write(path, "wb") as fh:
        fh.write(text.encode(encoding))
