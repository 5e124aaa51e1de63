package org.gexj.rma.wire;

/**
 * The args of a remote atomic over active messages: a Short request and its Short reply.
 * <pre>
 *  request  [0] slot  [1] code  [2,3] target offset  [4,5] operand 1  [6,7] operand 2     (64-bit values high first)
 *  reply    [0] slot  [1] status  [2,3] the target's previous value, as bits
 *  code     bits 0-7: the type's ordinal; bits 8-15: the operation's ordinal
 * </pre>
 * The slot is the initiator's, which it looks the operation up by; the target sends it back unread.
 */
public final class AtomicArgs {
    public static final int SLOT = 0;
    public static final int CODE = 1;
    public static final int OFFSET = 2;
    public static final int OPERAND1 = 4;
    public static final int OPERAND2 = 6;
    public static final int REQUEST_ARGS = 8;

    public static final int STATUS = 1;
    public static final int VALUE = 2;

    /** Applied; the value is the target's previous one. */
    public static final int APPLIED = 0;
    /** Not applied: the target's segment does not hold an aligned value of that type there. */
    public static final int OUT_OF_SEGMENT = 1;

    private AtomicArgs() {
    }

    public static int code(int typeOrdinal, int opOrdinal) {
        return opOrdinal << 8 | typeOrdinal;
    }

    public static int type(int code) {
        return code & 0xff;
    }

    public static int op(int code) {
        return code >>> 8 & 0xff;
    }

    public static int high(long value) {
        return (int) (value >>> 32);
    }

    public static int low(long value) {
        return (int) value;
    }

    public static long join(int high, int low) {
        return ((long) high << 32) | (low & 0xffff_ffffL);
    }
}
