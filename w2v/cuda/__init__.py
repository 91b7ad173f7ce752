"""Optional GPU training with ``numba.cuda`` (``w2v train --device cuda``).

Nothing here imports ``numba.cuda`` at import time: ``import w2v`` and CPU
training work without it.  :func:`cuda_status` says whether CUDA training can
run and, if not, why (one line); :func:`require_cuda` raises
:class:`w2v.errors.DeviceError` with that line.

``numba.cuda`` comes either from the NVIDIA-maintained ``numba-cuda`` package
(``pip install 'w2v[cuda]'``; it replaces the deprecated target built into
older Numba releases) or from the built-in target where Numba still ships it.
With ``NUMBA_ENABLE_CUDASIM=1`` in the environment (set before ``numba.cuda``
is first imported) the kernels run on Numba's CUDA simulator: slow, for tests.

Modules:

* :mod:`w2v.cuda.host`    host-side helpers (segments, seeds, counter-based RNG) - no numba.cuda;
* :mod:`w2v.cuda.kernels` the ``@cuda.jit`` kernels;
* :mod:`w2v.cuda.plan`    the kernel's launch plan (threads per block, segments, shared memory);
* :mod:`w2v.cuda.device`  one training call on the device (buffers, batches, launches, progress);
* :mod:`w2v.cuda.train`   the device training entry points (``train_epochs_cuda``, ``run_epochs_cuda``).
"""
import functools

from ..errors import DeviceError
from ..settings import available_cores

INSTALL_HINT = "pip install 'w2v[cuda]'"


def _one_line(exc):
    text = " ".join(str(exc).split())
    return text or exc.__class__.__name__


def simulator_enabled():
    """True when Numba's CUDA simulator is on (``NUMBA_ENABLE_CUDASIM=1``)."""
    try:
        from numba.core import config   # start-up: imported by the CLI; loads Numba (+0.5 s)
    except Exception:  # pragma: no cover - numba is a hard dependency
        return False
    return bool(getattr(config, "ENABLE_CUDASIM", False))


def _import_cuda():
    # optional extra: numba-cuda (w2v[cuda]), which redirects this import when installed
    from numba import cuda
    return cuda


@functools.lru_cache(maxsize=None)
def cuda_status():
    """``None`` if CUDA training can run in this process, else a one-line reason.

    Never raises.  The reasons distinguish a missing ``numba-cuda`` package,
    a missing GPU or driver, and a missing CUDA compiler library (NVVM).
    """
    try:
        cuda = _import_cuda()
    except Exception as exc:
        return f"numba-cuda is not installed ({INSTALL_HINT}): {_one_line(exc)}"
    if simulator_enabled():
        return None
    try:
        ok = bool(cuda.is_available())
    except Exception as exc:  # pragma: no cover - driver-specific
        return f"no usable CUDA GPU or driver: {_one_line(exc)}"
    if not ok:
        reason = ""
        try:
            err = cuda.cuda_error()
            reason = _one_line(err) if err else ""
        except Exception:  # pragma: no cover
            pass
        reason = reason.split(". ")[0].rstrip(".") if reason else "the driver reports no CUDA device"
        return f"no CUDA GPU or driver found: {reason} (numba.cuda: {implementation()})"
    try:  # pragma: no cover - needs a GPU
        from numba.cuda.cudadrv import nvvm   # optional extra: numba-cuda
        if hasattr(nvvm, "is_available") and not nvvm.is_available():
            return ("a CUDA GPU was found but not the CUDA compiler library (NVVM): "
                    "pip install 'numba-cuda[cu12]' (or cu13)")
    except Exception:  # pragma: no cover
        pass
    return None


def require_cuda():
    """Raise :class:`DeviceError` (one line) unless CUDA training can run."""
    reason = cuda_status()
    if reason is not None:
        raise DeviceError(f"--device cuda is unusable: {reason}")


def implementation():
    """Where ``numba.cuda`` comes from: ``'numba-cuda'``, ``'built-in'``, or ``None`` if missing."""
    try:
        cuda = _import_cuda()
    except Exception:
        return None
    impl = str(getattr(cuda, "implementation", "")).lower()
    return "built-in" if impl == "built-in" else "numba-cuda"


def list_devices():
    """The devices training can use, as a list of dicts (``kind``, ``name``, details).

    The CPU is always listed; CUDA devices when :func:`cuda_status` is ``None``,
    otherwise one entry with ``usable=False`` and the ``reason``.
    """
    out = [{"kind": "cpu", "name": "cpu", "usable": True, "cores": available_cores()}]
    reason = cuda_status()
    if reason is not None:
        out.append({"kind": "cuda", "name": "cuda", "usable": False, "reason": reason})
        return out
    cuda = _import_cuda()
    if simulator_enabled():
        out.append({"kind": "cuda", "name": "cuda:0", "usable": True, "simulator": True,
                    "device": "Numba CUDA simulator (NUMBA_ENABLE_CUDASIM=1)"})
        return out
    try:  # pragma: no cover - needs a GPU
        for i, gpu in enumerate(cuda.gpus):
            with gpu:
                dev = cuda.get_current_device()
                free, total = cuda.current_context().get_memory_info()
                name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
                out.append({"kind": "cuda", "name": f"cuda:{i}", "usable": True, "device": name,
                            "compute_capability": ".".join(map(str, dev.compute_capability)),
                            "memory_total_mib": total // (1 << 20), "memory_free_mib": free // (1 << 20),
                            "implementation": implementation()})
    except Exception as exc:  # pragma: no cover
        out.append({"kind": "cuda", "name": "cuda", "usable": False, "reason": _one_line(exc)})
    return out


__all__ = ["cuda_status", "require_cuda", "list_devices", "simulator_enabled", "implementation", "DeviceError"]
