package org.gexj.testkit.emu;

import org.gexj.spi.AtomicCodes;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The atomics {@link EmuConduit}'s "NIC" performs where an operation lands ({@link org.gexj.spi.RmaTransport#atomic}):
 * every libfabric operation on every datatype of {@link AtomicCodes}, as a compare-and-set loop on the target's
 * segment, so that any thread delivering to it may apply them. Written from libfabric's definitions, apart from the
 * library's own arithmetic, so that the kits compare two implementations.
 */
final class EmuAtomics {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private EmuAtomics() {
    }

    /** Whether {@code op} applies to {@code datatype}, fetching or not (READ only fetching). */
    static boolean valid(int datatype, int op, boolean fetch) {
        if (datatype < AtomicCodes.INT32 || datatype > AtomicCodes.DOUBLE) {
            return false;
        }
        final boolean integer = datatype <= AtomicCodes.UINT64;
        return switch (op) {
            case AtomicCodes.MIN, AtomicCodes.MAX, AtomicCodes.SUM, AtomicCodes.PROD, AtomicCodes.WRITE,
                 AtomicCodes.CSWAP -> true;
            case AtomicCodes.BOR, AtomicCodes.BAND, AtomicCodes.BXOR -> integer;
            case AtomicCodes.READ -> fetch;
            default -> false;
        };
    }

    /** Applies the operation to the value at {@code offset}; returns its previous bits (zero-extended if 4 bytes). */
    static long apply(MemorySegment memory, long offset, int datatype, int op, long operand, long compare) {
        if (AtomicCodes.bytes(datatype) == 4) {
            while (true) {
                final int old = (int) INT.getVolatile(memory, offset);
                final int next = (int) next(datatype, op, old & 0xffff_ffffL, operand & 0xffff_ffffL,
                    compare & 0xffff_ffffL);
                if (op == AtomicCodes.READ || INT.compareAndSet(memory, offset, old, next)) {
                    return old & 0xffff_ffffL;
                }
            }
        }
        while (true) {
            final long old = (long) LONG.getVolatile(memory, offset);
            final long next = next(datatype, op, old, operand, compare);
            if (op == AtomicCodes.READ || LONG.compareAndSet(memory, offset, old, next)) {
                return old;
            }
        }
    }

    private static long next(int datatype, int op, long old, long operand, long compare) {
        switch (op) {
            case AtomicCodes.READ:
                return old;
            case AtomicCodes.WRITE:
                return operand;
            case AtomicCodes.CSWAP:
                return old == compare ? operand : old;
            case AtomicCodes.BOR:
                return old | operand;
            case AtomicCodes.BAND:
                return old & operand;
            case AtomicCodes.BXOR:
                return old ^ operand;
            default:
                break;
        }
        return switch (datatype) {
            case AtomicCodes.FLOAT -> Float.floatToRawIntBits((float) arithmetic(op,
                Float.intBitsToFloat((int) old), Float.intBitsToFloat((int) operand), true)) & 0xffff_ffffL;
            case AtomicCodes.DOUBLE -> Double.doubleToRawLongBits(arithmetic(op, Double.longBitsToDouble(old),
                Double.longBitsToDouble(operand), false));
            default -> integer(datatype, op, old, operand);
        };
    }

    /** SUM, PROD, MIN, MAX in floating point; a float's sum and product rounded to float once. */
    private static double arithmetic(int op, double old, double operand, boolean single) {
        return switch (op) {
            case AtomicCodes.SUM -> single ? (float) old + (float) operand : old + operand;
            case AtomicCodes.PROD -> single ? (float) old * (float) operand : old * operand;
            case AtomicCodes.MIN -> operand < old ? operand : old;
            default -> operand > old ? operand : old;
        };
    }

    private static long integer(int datatype, int op, long old, long operand) {
        final boolean wide = datatype == AtomicCodes.INT64 || datatype == AtomicCodes.UINT64;
        final long a = wide || datatype == AtomicCodes.UINT32 ? old : (int) old;
        final long b = wide || datatype == AtomicCodes.UINT32 ? operand : (int) operand;
        final boolean unsigned = datatype == AtomicCodes.UINT32 || datatype == AtomicCodes.UINT64;
        final int order = unsigned ? Long.compareUnsigned(b, a) : Long.compare(b, a);
        final long r = switch (op) {
            case AtomicCodes.SUM -> a + b;
            case AtomicCodes.PROD -> a * b;
            case AtomicCodes.MIN -> order < 0 ? b : a;
            default -> order > 0 ? b : a;
        };
        return wide ? r : r & 0xffff_ffffL;
    }
}
