package org.gexj.spi;

/**
 * The vocabulary of {@link RmaTransport#atomic}: libfabric's {@code enum fi_datatype} and {@code enum fi_op} values,
 * so that the ofi conduit passes them through and other NICs map from one well-defined set (ibv's verbs have 64-bit
 * fetch-and-add and compare-and-swap only).
 */
public final class AtomicCodes {
    /** {@code FI_INT32}. */
    public static final int INT32 = 4;
    /** {@code FI_UINT32}. */
    public static final int UINT32 = 5;
    /** {@code FI_INT64}. */
    public static final int INT64 = 6;
    /** {@code FI_UINT64}. */
    public static final int UINT64 = 7;
    /** {@code FI_FLOAT}: IEEE 754 binary32. */
    public static final int FLOAT = 8;
    /** {@code FI_DOUBLE}: IEEE 754 binary64. */
    public static final int DOUBLE = 9;

    /** {@code FI_MIN}: the target becomes the smaller of it and the operand. */
    public static final int MIN = 0;
    /** {@code FI_MAX}. */
    public static final int MAX = 1;
    /** {@code FI_SUM}: the target becomes it plus the operand. */
    public static final int SUM = 2;
    /** {@code FI_PROD}. */
    public static final int PROD = 3;
    /** {@code FI_BOR}. */
    public static final int BOR = 6;
    /** {@code FI_BAND}. */
    public static final int BAND = 7;
    /** {@code FI_BXOR}. */
    public static final int BXOR = 9;
    /** {@code FI_ATOMIC_READ}: fetching only; the target is unchanged. */
    public static final int READ = 10;
    /** {@code FI_ATOMIC_WRITE}: the target becomes the operand. */
    public static final int WRITE = 11;
    /** {@code FI_CSWAP}: the target becomes the operand if it equals the compare value. */
    public static final int CSWAP = 12;

    private AtomicCodes() {
    }

    /** The width in bytes of {@code datatype}: 4 or 8. */
    public static int bytes(int datatype) {
        return datatype == INT32 || datatype == UINT32 || datatype == FLOAT ? 4 : 8;
    }

    /** A datatype's name, for messages. */
    public static String datatype(int datatype) {
        return switch (datatype) {
            case INT32 -> "INT32";
            case UINT32 -> "UINT32";
            case INT64 -> "INT64";
            case UINT64 -> "UINT64";
            case FLOAT -> "FLOAT";
            case DOUBLE -> "DOUBLE";
            default -> "datatype " + datatype;
        };
    }

    /** An operation's name, for messages. */
    public static String op(int op) {
        return switch (op) {
            case MIN -> "MIN";
            case MAX -> "MAX";
            case SUM -> "SUM";
            case PROD -> "PROD";
            case BOR -> "BOR";
            case BAND -> "BAND";
            case BXOR -> "BXOR";
            case READ -> "READ";
            case WRITE -> "WRITE";
            case CSWAP -> "CSWAP";
            default -> "op " + op;
        };
    }
}
