"""Run a snippet of Python in a child process with bounded time and memory.

For the cases where a regression would hang the test run (a reader blocked on a named pipe) or
exhaust the machine (a reader of ``/dev/zero``): the child's address space is capped once its
imports are done, and the whole child runs under a timeout.
"""
import os
import subprocess
import sys
import textwrap

from ..conftest import ROOT

#: address space the child may add to what it holds after its imports
HEADROOM = 1 << 30

_PRELUDE = """
import resource
def _cap():
    with open("/proc/self/status") as f:
        size = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    resource.setrlimit(resource.RLIMIT_AS, (size + {headroom}, size + {headroom}))
"""


def run_bounded(imports, body, timeout=60):
    """Run ``imports``, cap the address space, then run ``body``; the child's ``CompletedProcess``.

    Parameters
    ----------
    imports, body : str
        Python source (dedented here).
    timeout : float
        Seconds; ``subprocess.TimeoutExpired`` past them (the child is killed).

    Returns
    -------
    subprocess.CompletedProcess
        With ``stdout`` and ``stderr`` as text.
    """
    source = (_PRELUDE.format(headroom=HEADROOM) + textwrap.dedent(imports) + "\n_cap()\n"
              + textwrap.dedent(body))
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, cwd=str(ROOT),
                          env=env, timeout=timeout)
