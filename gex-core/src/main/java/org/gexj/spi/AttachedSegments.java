package org.gexj.spi;

import java.lang.foreign.MemorySegment;

/**
 * What {@link Conduit#attachSegment} binds: this rank's segment memory, and every rank's descriptor from the one
 * exchange that attaching takes.
 *
 * @param local       this rank's segment
 * @param descriptors every rank's segment, indexed by rank
 */
public record AttachedSegments(MemorySegment local, SegmentDescriptor[] descriptors) {
    public AttachedSegments {
        descriptors = descriptors.clone();
    }

    @Override
    public SegmentDescriptor[] descriptors() {
        return descriptors.clone();
    }

    /** The size of {@code rank}'s segment. */
    public long size(int rank) {
        return descriptors[rank].size();
    }

    public int ranks() {
        return descriptors.length;
    }
}
