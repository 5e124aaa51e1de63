package org.gexj.spi;

import org.gexj.internal.ffm.UnistdH;

import java.lang.foreign.MemorySegment;

/**
 * The one rule for a segment's size, which {@code Client.attachSegment} and every conduit's
 * {@link Conduit#attachSegment} apply, so that no conduit accepts what another refuses. As GASNet-EX's
 * {@code gex_Segment_Attach}: the size is a non-zero multiple of the page size ({@code GASNET_PAGESIZE}, here the
 * operating system's), and a rank attaches one segment.
 */
public final class SegmentRules {
    /** The operating system's page size: segment sizes are multiples of it and segments are aligned to it. */
    public static final long PAGE_SIZE = UnistdH.pageSize();

    private SegmentRules() {
    }

    /** Whether {@code bytes} is a segment size the rule allows: a non-zero multiple of {@link #PAGE_SIZE}. */
    public static boolean validSize(long bytes) {
        return bytes > 0 && bytes % PAGE_SIZE == 0;
    }

    /** {@code bytes} rounded up to a multiple of {@link #PAGE_SIZE}. */
    public static long pageAlign(long bytes) {
        return (bytes + PAGE_SIZE - 1) & -PAGE_SIZE;
    }

    /**
     * The check at the start of every conduit's {@link Conduit#attachSegment}, before it allocates or exchanges
     * anything.
     *
     * @param conduit  the conduit's name, for the messages
     * @param rank     this rank
     * @param attached the segment this rank attached before, or null
     * @param bytes    the size asked for
     * @throws IllegalStateException    if a segment is attached already
     * @throws IllegalArgumentException naming the size and the page size, if the size is not a non-zero multiple of
     *                                  the page size
     */
    public static void checkAttach(String conduit, int rank, MemorySegment attached, long bytes) {
        if (attached != null) {
            throw new IllegalStateException(conduit + " rank " + rank + " already attached a segment of "
                + attached.byteSize() + " bytes");
        }
        if (!validSize(bytes)) {
            throw new IllegalArgumentException(conduit + " rank " + rank + ": segment size " + bytes
                + " must be a non-zero multiple of the page size " + PAGE_SIZE);
        }
    }
}
