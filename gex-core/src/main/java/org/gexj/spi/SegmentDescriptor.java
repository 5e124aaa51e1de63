package org.gexj.spi;

/**
 * One rank's bound segment as the other ranks see it, from the single allgather of {@link Conduit#attachSegment}.
 *
 * @param base      the segment's address in its owner's process (what an RDMA write targets; informative elsewhere)
 * @param size      bytes
 * @param remoteKey the conduit's opaque key for remote access (an rkey, a libfabric key), empty if none is needed
 */
public record SegmentDescriptor(long base, long size, byte[] remoteKey) {
    public SegmentDescriptor {
        if (size < 0) {
            throw new IllegalArgumentException("segment size " + size + " is negative");
        }
        remoteKey = remoteKey.clone();
    }

    @Override
    public byte[] remoteKey() {
        return remoteKey.clone();
    }
}
