"""Explicit float32 SIMD vectors for the CPU kernels (Numba intrinsics over LLVM vector types).

LLVM's loop vectorizer turns one loop over a row into vector code, but it
cannot keep a block of rows in registers across an outer loop: a row's
vector, loaded once, must feed the dot products with six output rows, and
the updated output rows must stay in registers while the context rows stream
past (see :mod:`w2v.kernels.block`).  These intrinsics let a kernel say so:
``vload`` and ``vstore`` move :data:`LANES` floats of a row (a partial tail of
``n < LANES`` floats with a masked load or store, which touches no memory
beyond the row), ``vfma``, ``vadd``, ``vsplat`` and ``vsum`` compute.
A vector is an SSA value, so LLVM keeps it in a register (one zmm register on
AVX-512, two ymm on AVX2; other targets split it as they must).

The order of the arithmetic is the kernel's: ``vfma`` is ``llvm.fmuladd``, and
``vadd`` and ``vmul`` carry no fast-math flag but ``nnan`` (even in a function
compiled with ``fastmath``), so no LLVM pass reorders or fuses them;
``vsum`` is one reduction, whose order the code generator fixes.  A function
may be optimized more than once (on its own, and again as a copy in each
caller's module), and Numba runs one or the other depending on whether the
process compiled the kernels or loaded them from the cache: what LLVM is free
to reorder can differ between the two (``docs/reproducibility.md``).
"""
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, models, register_model

LANES = 16
_VEC = ir.VectorType(ir.FloatType(), LANES)
_FAST = ("fast",)
# vadd's and vmul's only flag: results are not NaN.  Numba's fastmath gives every float instruction
# without flags all of them (reassociation included); one that has a flag keeps its own, and
# "nnan" changes no result that is a number.
_IN_ORDER = ("nnan",)


class Float32Vector(types.Type):
    """The Numba type of :data:`LANES` float32 lanes held in one SIMD value."""

    def __init__(self):
        super().__init__(name=f"float32x{LANES}")


float32xN = Float32Vector()


@register_model(Float32Vector)
class _VectorModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _VEC)


def _is_row(row):
    return isinstance(row, types.Array) and row.ndim == 1 and row.dtype == types.float32 and row.layout == "C"


def _vector_pointer(context, builder, rowty, row, offset, offsetty):
    data = context.make_array(rowty)(context, builder, row).data
    start = builder.gep(data, [context.cast(builder, offset, offsetty, types.intp)])
    return start, builder.bitcast(start, _VEC.as_pointer())


def _lane_mask(context, builder, n, nty):
    """``<lane < n for each lane>`` as an ``<LANES x i1>`` mask."""
    n32 = context.cast(builder, n, nty, types.int32)
    splat = builder.shuffle_vector(builder.insert_element(ir.Constant(ir.VectorType(ir.IntType(32), LANES),
                                                                      ir.Undefined), n32,
                                                          ir.Constant(ir.IntType(32), 0)),
                                   ir.Constant(ir.VectorType(ir.IntType(32), LANES), ir.Undefined),
                                   ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES))
    lanes = ir.Constant(ir.VectorType(ir.IntType(32), LANES), list(range(LANES)))
    return builder.icmp_signed("<", lanes, splat)


def _full(context, builder, n, nty):
    return builder.icmp_signed(">=", context.cast(builder, n, nty, types.intp),
                               ir.Constant(context.get_value_type(types.intp), LANES))


@intrinsic
def vload(typingctx, row, offset, n):
    """``row[offset:offset + n]`` into a vector (lanes from ``n`` on are zero); ``n >= LANES``: a full load."""
    if not (_is_row(row) and isinstance(offset, types.Integer) and isinstance(n, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        rowty, offty, nty = signature.args
        start, vptr = _vector_pointer(context, builder, rowty, args[0], args[1], offty)
        with builder.if_else(_full(context, builder, args[2], nty), likely=True) as (full, part):
            with full:
                whole = builder.load(vptr, align=4)
                whole_block = builder.block
            with part:
                fnty = ir.FunctionType(_VEC, [vptr.type, ir.IntType(32), ir.VectorType(ir.IntType(1), LANES), _VEC])
                fn = cgutils.get_or_insert_function(builder.module, fnty, f"llvm.masked.load.v{LANES}f32.p0")
                masked = builder.call(fn, [vptr, ir.Constant(ir.IntType(32), 4),
                                           _lane_mask(context, builder, args[2], nty), ir.Constant(_VEC, None)])
                part_block = builder.block
        phi = builder.phi(_VEC)
        phi.add_incoming(whole, whole_block)
        phi.add_incoming(masked, part_block)
        return phi

    return float32xN(row, offset, n), codegen


@intrinsic
def vstore(typingctx, row, offset, n, value):
    """Store the first ``n`` lanes of ``value`` (all of them when ``n >= LANES``) at ``row[offset:]``."""
    if not (_is_row(row) and isinstance(offset, types.Integer) and isinstance(n, types.Integer)
            and value == float32xN):
        return None

    def codegen(context, builder, signature, args):
        rowty, offty, nty, _ = signature.args
        start, vptr = _vector_pointer(context, builder, rowty, args[0], args[1], offty)
        with builder.if_else(_full(context, builder, args[2], nty), likely=True) as (full, part):
            with full:
                builder.store(args[3], vptr, align=4)
            with part:
                fnty = ir.FunctionType(ir.VoidType(), [_VEC, vptr.type, ir.IntType(32),
                                                       ir.VectorType(ir.IntType(1), LANES)])
                fn = cgutils.get_or_insert_function(builder.module, fnty, f"llvm.masked.store.v{LANES}f32.p0")
                builder.call(fn, [args[3], vptr, ir.Constant(ir.IntType(32), 4),
                                  _lane_mask(context, builder, args[2], nty)])
        return context.get_dummy_value()

    return types.none(row, offset, n, value), codegen


@intrinsic
def vzero(typingctx):
    """A vector of zeros."""
    def codegen(context, builder, signature, args):
        return ir.Constant(_VEC, None)

    return float32xN(), codegen


@intrinsic
def vsplat(typingctx, x):
    """A vector with ``x`` (a float32) in every lane."""
    if x != types.float32:
        return None

    def codegen(context, builder, signature, args):
        one = builder.insert_element(ir.Constant(_VEC, ir.Undefined), args[0], ir.Constant(ir.IntType(32), 0))
        return builder.shuffle_vector(one, ir.Constant(_VEC, ir.Undefined),
                                      ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES))

    return float32xN(x), codegen


@intrinsic
def vfma(typingctx, a, b, c):
    """``a * b + c`` lane by lane (fused where the target has FMA)."""
    if not (a == b == c == float32xN):
        return None

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(_VEC, [_VEC, _VEC, _VEC])
        fn = cgutils.get_or_insert_function(builder.module, fnty, f"llvm.fmuladd.v{LANES}f32")
        return builder.call(fn, list(args))

    return float32xN(a, b, c), codegen


@intrinsic
def vadd(typingctx, a, b):
    """``a + b`` lane by lane."""
    if not (a == b == float32xN):
        return None

    def codegen(context, builder, signature, args):
        return builder.fadd(args[0], args[1], flags=_IN_ORDER)

    return float32xN(a, b), codegen


@intrinsic
def vmul(typingctx, a, b):
    """``a * b`` lane by lane."""
    if not (a == b == float32xN):
        return None

    def codegen(context, builder, signature, args):
        return builder.fmul(args[0], args[1], flags=_IN_ORDER)

    return float32xN(a, b), codegen


@intrinsic
def vsum(typingctx, a):
    """The sum of the lanes of ``a`` (a float32, added as a tree in the order the code generator fixes)."""
    if a != float32xN:
        return None

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.FloatType(), [ir.FloatType(), _VEC])
        fn = cgutils.get_or_insert_function(builder.module, fnty, f"llvm.vector.reduce.fadd.v{LANES}f32")
        return builder.call(fn, [ir.Constant(ir.FloatType(), 0.0), args[0]], fastmath=_FAST)

    return types.float32(a), codegen


__all__ = ["LANES", "float32xN", "vadd", "vfma", "vload", "vmul", "vsplat", "vstore", "vsum", "vzero"]
