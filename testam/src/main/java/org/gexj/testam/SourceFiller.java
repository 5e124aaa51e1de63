package org.gexj.testam;

import org.gexj.am.PayloadBuffer;
import org.gexj.am.SrcDesc;
import org.gexj.testam.TestAmOptions.SourceMode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * GASNet's -src-* modes: what a sender does to a Medium or Long payload's buffer just before each injection, inside
 * the timed loop. GENERATE writes 8-byte words counting down, then bytes counting down, reading no memory; MEMCPY
 * copies from a buffer of zeros. Allocates nothing per call.
 */
final class SourceFiller {
    private final SourceMode mode;
    private final MemorySegment zeros;

    SourceFiller(SourceMode mode, long maxSize) {
        this.mode = mode;
        this.zeros = mode == SourceMode.MEMCPY ? Arena.ofShared().allocate(Math.max(1, maxSize), 8)
            : MemorySegment.NULL;
    }

    void fill(MemorySegment dst, long offset, long length) {
        switch (mode) {
            case NOOP -> { }
            case MEMCPY -> MemorySegment.copy(zeros, 0, dst, offset, length);
            case GENERATE -> {
                long at = offset;
                for (long words = length / Long.BYTES; words > 0; words--) {
                    dst.set(ValueLayout.JAVA_LONG_UNALIGNED, at, words);
                    at += Long.BYTES;
                }
                for (long bytes = length % Long.BYTES; bytes > 0; bytes--) {
                    dst.set(ValueLayout.JAVA_BYTE, at++, (byte) bytes);
                }
            }
        }
    }

    /** Fills the first {@code length} bytes of a negotiated-payload buffer. */
    void fill(PayloadBuffer dst, int length) {
        switch (mode) {
            case NOOP -> { }
            case MEMCPY -> dst.putBytes(0, zeros, 0, length);
            case GENERATE -> {
                int at = 0;
                for (int words = length / Long.BYTES; words > 0; words--) {
                    dst.putLong(at, words);
                    at += Long.BYTES;
                }
                for (int bytes = length % Long.BYTES; bytes > 0; bytes--) {
                    dst.putByte(at++, (byte) bytes);
                }
            }
        }
    }

    /** Fills a negotiated payload's buffer as the mode says, and sends it. */
    void commit(SrcDesc sd, int handler, long nbytes) {
        fill(sd.buffer(), (int) nbytes);
        sd.commit(handler, nbytes);
    }
}
