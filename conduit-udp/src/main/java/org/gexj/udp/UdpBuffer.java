package org.gexj.udp;

import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Native memory the udp conduit sends a frame from, receives a datagram into, or reassembles a frame in, from the
 * {@link UdpBufferPool}. A frame being sent starts {@link org.gexj.udp.wire.UdpHeaderFlyweight#LENGTH} bytes in, so
 * that its first fragment's header goes in front of it and the datagram leaves without a copy; the fields below track
 * what of it is in flight.
 */
final class UdpBuffer {
    /**
     * Buffers start on a page (those under a page, on their own size), so a datagram never starts just before a
     * page's end: on loopback the kernel's copy of a 32 KiB datagram sent from 1-12 bytes before a page's end took 2.8
     * times as long (13.7 µs against 4.8 for a send and receive, in C), and at malloc's 64-byte alignment where a
     * buffer started moved with the heap.
     */
    static final long PAGE = 4096;

    final int id;
    final int sizeClass;
    final Arena arena;
    final UnsafeBuffer buffer;

    /** Sending: the frame's length, target and channel. */
    int frameLength;
    int target;
    int channel;
    /** Sending: fragments handed to the window so far, and of those, the ones not acknowledged. */
    int fragmentsAssigned;
    int fragmentsUnacked;
    int fragmentCount;
    /** Sending: committed (not just claimed). */
    boolean committed;

    UdpBuffer(int id, int sizeClass, long capacity) {
        this.id = id;
        this.sizeClass = sizeClass;
        this.arena = Arena.ofShared();
        final MemorySegment memory = arena.allocate(capacity, Math.min(capacity, PAGE));
        // over a ByteBuffer, not a bare address: the checksum and the NIO port read through it
        this.buffer = new UnsafeBuffer(memory.asByteBuffer());
    }

    int capacity() {
        return buffer.capacity();
    }
}
