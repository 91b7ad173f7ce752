"""Branch-free float32 ``exp`` and ``log`` that LLVM can vectorize.

libm's ``expf``/``log1pf`` are scalar calls: inside the training kernels they
cost more than the dot products they follow.  These versions use only
multiply, add, divide, floor, select and integer/float bit casts, so a loop
over a block of scores compiles to AVX2/AVX-512 code.  Accuracy is a few
float32 ulps over the ranges the kernels use (checked in
``tests/kernels/test_cpu.py`` against NumPy).
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

OPTIONS = dict(nogil=True, fastmath=True, cache=True, error_model="numpy", boundscheck=False)

_LOG2E = np.float32(1.4426950408889634)
_LN2_HI = np.float32(0.693359375)          # ln 2 split in two for an exact reduction
_LN2_LO = np.float32(-2.12194440e-4)
_LN2 = np.float32(0.6931471805599453)
_SQRT2 = np.float32(1.4142135623730951)
_ONE = np.float32(1.0)


@intrinsic
def float_as_int(typingctx, x):
    """Reinterpret the bits of a float32 as an int32."""
    if x != types.float32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return types.int32(types.float32), codegen


@intrinsic
def int_as_float(typingctx, x):
    """Reinterpret the bits of an int32 as a float32."""
    if x != types.int32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())

    return types.float32(types.int32), codegen


@njit(**OPTIONS)
def exp32(x):
    """``exp(x)`` for float32 ``x`` in ``[-87, 88]`` (callers clip)."""
    n = np.floor(x * _LOG2E + np.float32(0.5))
    r = x - n * _LN2_HI - n * _LN2_LO        # |r| <= ln2 / 2
    # Taylor series of exp(r) to degree 7 (truncation error < 1e-8 on |r| <= 0.35)
    p = np.float32(1.0 / 5040.0)
    p = p * r + np.float32(1.0 / 720.0)
    p = p * r + np.float32(1.0 / 120.0)
    p = p * r + np.float32(1.0 / 24.0)
    p = p * r + np.float32(1.0 / 6.0)
    p = p * r + np.float32(0.5)
    p = p * r + _ONE
    p = p * r + _ONE
    scale = int_as_float(np.int32((np.int32(n) + np.int32(127)) << np.int32(23)))   # 2 ** n
    return p * scale


@njit(**OPTIONS)
def log32(z):
    """Natural log of a positive, normal float32 ``z``."""
    bits = float_as_int(z)
    e = ((bits >> np.int32(23)) & np.int32(0xFF)) - np.int32(127)
    m = int_as_float(np.int32((bits & np.int32(0x7FFFFF)) | np.int32(0x3F800000)))   # mantissa in [1, 2)
    big = m > _SQRT2
    m = np.float32(0.5) * m if big else m                     # now in [0.707, 1.414]
    e = e + np.int32(1) if big else e
    u = (m - _ONE) / (m + _ONE)                               # |u| <= 0.172
    u2 = u * u
    # log(m) = 2 atanh(u) = 2 (u + u^3/3 + u^5/5 + ...), error < 1e-9 at this |u|
    s = np.float32(1.0 / 9.0)
    s = s * u2 + np.float32(1.0 / 7.0)
    s = s * u2 + np.float32(1.0 / 5.0)
    s = s * u2 + np.float32(1.0 / 3.0)
    s = s * u2 + _ONE
    return np.float32(e) * _LN2 + np.float32(2.0) * u * s


@njit(**OPTIONS)
def exp32_array(x):
    """Vectorized :func:`exp32` over a float32 array (for tests)."""
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = exp32(x[i])
    return out


@njit(**OPTIONS)
def log32_array(z):
    """Vectorized :func:`log32` over a float32 array (for tests)."""
    out = np.empty_like(z)
    for i in range(z.size):
        out[i] = log32(z[i])
    return out
