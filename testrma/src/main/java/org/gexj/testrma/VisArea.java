package org.gexj.testrma;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One of testvis's areas (GASNet's {@code my_seg_read_area}, {@code my_heap_write1_area}, {@code
 * partner_seg_remotewrite_area}...), or a slice of one. GASNet's pointers become byte offsets: into {@link #memory}
 * for this rank's areas (its segment's memory or its heap buffer), into the owner's segment for a partner's. An
 * area in this rank's segment is both: its offsets are local ones and, with this rank as the target, remote ones.
 *
 * @param name      GASNet's name, for messages
 * @param memory    this rank's memory holding the area, or null for a partner's area
 * @param base      the area's first byte in {@code memory}, or in the owner's segment
 * @param owner     the rank whose segment or heap this is
 * @param inSegment whether the area lies in a segment (remote operations can target it)
 */
record VisArea(String name, MemorySegment memory, long base, int owner, boolean inSegment) {
    /** SEG_VALUE(node, idx) with VEC_SZ 1: the byte GASNet stores at index idx of a read area in a segment. */
    static byte segValue(int node, long idx) {
        return (byte) (0x80 | (node & 0x7) << 4 | idx & 0xF);
    }

    /** HEAP_VALUE(node, idx) with VEC_SZ 1: the byte at index idx of the read area in the heap. */
    static byte heapValue(int node, long idx) {
        return (byte) ((node & 0x7) << 4 | idx & 0xF);
    }

    /** The area {@code elems} elements further on (the non-blocking test's per-operation slices). */
    VisArea slice(long elems) {
        return new VisArea(name, memory, base + elems * VisRun.VEC_SZ, owner, inSegment);
    }

    /**
     * The byte a source holds at {@code offset}: read from this rank's memory, or for a partner's area (only its read
     * area is ever a source that is checked) the SEG_VALUE it was initialized with.
     */
    byte valueAt(long offset) {
        return memory != null ? memory.get(ValueLayout.JAVA_BYTE, offset) : segValue(owner, offset - base);
    }
}
