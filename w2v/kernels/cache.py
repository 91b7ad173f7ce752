"""Where Numba caches the compiled kernels.

The kernels are compiled on their first call (about half a minute on 2 cores) and
cached (``cache=True``), so later runs load them in about a second.  Numba keeps
the cache next to the sources, in the package's ``__pycache__`` folders, as long
as they can be written.  A package installed by another user (a system-wide
``pip install`` into site-packages owned by root) cannot be, and then Numba
tries ``~/.cache/numba``; where that cannot be written either, Numba refuses to
define the kernels and ``import w2v.training.hogwild`` fails ("no locator available").

:func:`choose_cache_dir` decides once, before Numba is imported (``w2v/__init__``
calls it): when the package folders are not writable and the user has not set
``NUMBA_CACHE_DIR``, it sets ``NUMBA_CACHE_DIR`` to ``$XDG_CACHE_HOME/w2v``
(``~/.cache/w2v`` by default), or, where no cache directory can be made, to a
private temporary folder removed at exit (the kernels then compile on every
run).  The variable applies to every Numba function of the process, as a user's
own ``NUMBA_CACHE_DIR`` would, and to its child processes (Dask's local workers
find the same cache).
"""
import atexit
import os
import shutil
import sys
import tempfile

# the folders whose modules hold cached Numba functions: every @njit function lives in w2v.kernels
# (tests/test_structure.py checks it; the GPU's @cuda.jit kernels are not cached)
CACHED_FOLDERS = (os.path.dirname(os.path.abspath(__file__)),)


def folder_writable(folder):
    """Whether Numba can write its cache next to the modules of ``folder`` (its ``__pycache__``)."""
    cache = os.path.join(folder, "__pycache__")
    target = cache if os.path.isdir(cache) else folder
    return os.access(target, os.W_OK | os.X_OK)


def user_cache_dir(environ=None):
    """The user's cache directory for w2v: ``$XDG_CACHE_HOME/w2v``, else ``~/.cache/w2v``
    (``%LOCALAPPDATA%\\w2v`` on Windows)."""
    env = os.environ if environ is None else environ
    if sys.platform == "win32" and env.get("LOCALAPPDATA"):
        return os.path.join(env["LOCALAPPDATA"], "w2v")
    base = env.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):   # the XDG rule: a relative value is ignored
        base = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".cache")
    return os.path.join(base, "w2v")


def _usable(path):
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except OSError:
        return False
    return os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)


def choose_cache_dir(folders=CACHED_FOLDERS, environ=None):
    """Set ``NUMBA_CACHE_DIR`` where Numba could not cache next to the package; return it.

    Parameters
    ----------
    folders : sequence of str
        The package folders whose modules hold cached kernels.
    environ : dict, optional
        The environment to read and change (default: ``os.environ``).

    Returns
    -------
    str or None
        The cache directory set, or ``None`` where nothing was set: the user set
        ``NUMBA_CACHE_DIR``, or every folder of the package is writable (Numba
        caches next to the sources, as before).
    """
    env = os.environ if environ is None else environ
    if env.get("NUMBA_CACHE_DIR") or all(folder_writable(f) for f in folders):
        return None
    path = user_cache_dir(env)
    if not _usable(path):

        path = tempfile.mkdtemp(prefix="w2v-numba-cache-")
        atexit.register(shutil.rmtree, path, True)
    env["NUMBA_CACHE_DIR"] = path
    config = sys.modules.get("numba.core.config")
    if config is not None and environ is None:   # Numba was imported first: make it read the variable again
        config.reload_config()
    return path
