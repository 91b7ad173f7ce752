"""Software prefetch of matrix rows (an LLVM ``llvm.prefetch`` intrinsic).

The training kernels are bound by the latency of loading rows of the output
matrix that are not in cache (negative samples are spread over the whole
vocabulary).  The kernels know one word ahead which rows they will touch, so
they ask the CPU to start loading them while the current word computes.  A
prefetch is only a hint: it never faults and never changes a result.
"""
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_LINE = 64   # bytes per cache line


def _emit_prefetch(builder, address):
    """``llvm.prefetch(address, read, keep in all cache levels, data cache)``."""
    i8p = ir.IntType(8).as_pointer()
    i32 = ir.IntType(32)
    fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
    # declare_intrinsic mangles the name for this LLVM's pointer type ("p0i8", which
    # LLVM versions with opaque pointers upgrade to "p0")
    fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p], fnty)
    builder.call(fn, [builder.bitcast(address, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3),
                      ir.Constant(i32, 1)])


@intrinsic
def prefetch_row(typingctx, arr, row, ncols):
    """Prefetch every cache line of ``arr[row, :ncols]`` (a 2-D array) for reading.

    With ``ncols`` a compile-time constant the loop over the lines unrolls
    into a handful of prefetch instructions.
    """
    if not (isinstance(arr, types.Array) and arr.ndim == 2 and isinstance(row, types.Integer)
            and isinstance(ncols, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        aryty, rowty, ncolsty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        row_stride = cgutils.unpack_tuple(builder, ary.strides)[0]
        index = context.cast(builder, args[1], rowty, types.intp)
        ncols_ = context.cast(builder, args[2], ncolsty, types.intp)
        start = builder.gep(builder.bitcast(ary.data, ir.IntType(8).as_pointer()),
                            [builder.mul(index, row_stride)])
        nbytes = builder.mul(ncols_, ir.Constant(row_stride.type, context.get_abi_sizeof(
            context.get_data_type(aryty.dtype))))
        step = ir.Constant(row_stride.type, _LINE)
        with cgutils.for_range_slice(builder, ir.Constant(row_stride.type, 0), nbytes, step) as (off, _):
            _emit_prefetch(builder, builder.gep(start, [off]))
        # a row that does not start on a line boundary spills into one more line
        _emit_prefetch(builder, builder.gep(start, [builder.sub(nbytes, ir.Constant(nbytes.type, 1))]))
        return context.get_dummy_value()

    return types.none(arr, row, ncols), codegen


@intrinsic
def prefetch_item(typingctx, arr, index):
    """Prefetch the cache line holding ``arr[index]`` (a 1-D array) for reading."""
    if not (isinstance(arr, types.Array) and arr.ndim == 1 and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        aryty, indexty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        stride = cgutils.unpack_tuple(builder, ary.strides)[0]
        i = context.cast(builder, args[1], indexty, types.intp)
        _emit_prefetch(builder, builder.gep(builder.bitcast(ary.data, ir.IntType(8).as_pointer()),
                                            [builder.mul(i, stride)]))
        return context.get_dummy_value()

    return types.none(arr, index), codegen
