package org.gexj.spi;

/**
 * What a conduit can do, as data: core and AM code choose protocols and fallbacks from this record and
 * never test the conduit's class.
 *
 * @param conduit           short conduit name, e.g. {@code smp}
 * @param maxFrameLength    largest AM frame (header, args and inline payload) the conduit moves in one piece
 * @param crossMapped       peers' segments are mapped into this process ({@link Conduit#peerSegment(int)}),
 *                          so RMA and AM Long payloads are plain memory copies
 * @param nativeRma         the conduit does put/get itself; if neither this nor {@code crossMapped}, RMA goes
 *                          over AM (reference implementation)
 * @param orderedChannels   frames between one pair on one channel arrive in order (AM semantics never rely on it)
 */
public record Capabilities(String conduit, int maxFrameLength, boolean crossMapped, boolean nativeRma,
                           boolean orderedChannels) {
    public Capabilities {
        if (maxFrameLength < 1024) {
            throw new IllegalArgumentException("maxFrameLength " + maxFrameLength + " must be >= 1024");
        }
    }
}
