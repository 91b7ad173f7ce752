"""Byte arrays a 64-bit word at a time: unaligned loads and stores, and the bytes a bit mask flags
(LLVM instructions the scan and the text writer inline)."""
from llvmlite import ir
from numba import types
from numba.extending import intrinsic


def _byte_pointer(context, builder, aryty, ary, index, indexty):
    a = context.make_array(aryty)(context, builder, ary)
    i8p = ir.IntType(8).as_pointer()
    return builder.gep(builder.bitcast(a.data, i8p), [context.cast(builder, index, indexty, types.intp)])


@intrinsic
def move8(typingctx, dst, dst_index, src, src_index):
    """Copy the 8 bytes ``src[src_index:src_index + 8]`` to ``dst[dst_index:]`` (uint8 arrays) as one
    unaligned 64-bit load and store; 4x a byte loop when writing text."""
    if not all(isinstance(a, types.Array) for a in (dst, src)):
        return None

    def codegen(context, builder, signature, args):
        dstty, dity, srcty, sity = signature.args
        i64p = ir.IntType(64).as_pointer()
        dp = _byte_pointer(context, builder, dstty, args[0], args[1], dity)
        sp = _byte_pointer(context, builder, srcty, args[2], args[3], sity)
        builder.store(builder.load(builder.bitcast(sp, i64p), align=1), builder.bitcast(dp, i64p), align=1)
        return context.get_dummy_value()

    return types.none(dst, dst_index, src, src_index), codegen


@intrinsic
def load8(typingctx, src, index):
    """The 8 bytes ``src[index:index + 8]`` (a uint8 array) as one little-endian uint64, loaded
    unaligned; the caller keeps ``index + 8`` within the array."""
    if not (isinstance(src, types.Array) and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        srcty, indexty = signature.args
        p = _byte_pointer(context, builder, srcty, args[0], args[1], indexty)
        return builder.load(builder.bitcast(p, ir.IntType(64).as_pointer()), align=1)

    return types.uint64(src, index), codegen


@intrinsic
def first_flagged_byte(typingctx, mask):
    """The index (0-7) of the lowest byte whose bit 7 is set in the uint64 ``mask`` (not 0)."""
    if not (isinstance(mask, types.Integer) and mask.bitwidth == 64):
        return None

    def codegen(context, builder, signature, args):
        tz = builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
        return builder.lshr(tz, ir.Constant(ir.IntType(64), 3))

    return types.uint64(mask), codegen
