package org.gexj.am;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.MemorySegment;

/**
 * Where the payload of a prepared negotiated-payload AM is written ({@link SrcDesc#buffer()}): exactly the granted
 * bytes {@code [0, capacity())}, often the conduit's own send memory, so every access is bounds-checked here, whatever
 * Agrona's global bounds-check setting (jobs run with it off). Multi-byte values are in native byte order.
 *
 * <p>A flyweight reused by the thread's next prepare: valid only until its commit or cancel.
 */
public final class PayloadBuffer {
    private final UnsafeBuffer memory = new UnsafeBuffer(0, 0);
    private int capacity;
    private SrcDesc owner;

    PayloadBuffer() {
    }

    void wrap(SrcDesc owner, byte[] array, int offset, int length) {
        this.owner = owner;
        memory.wrap(array, offset, length);
        capacity = length;
    }

    void wrap(SrcDesc owner, long address, int length) {
        this.owner = owner;
        memory.wrap(address, length);
        capacity = length;
    }

    /**
     * The payload's first byte in native memory, for a library's writes of up to the granted bytes by address
     * ({@link org.gexj.am.internal.AmAccess#preparedAddress}); 0 where the buffer is a heap array's.
     */
    long nativeAddress() {
        owner.checkOpen();
        return memory.byteArray() == null ? memory.addressOffset() : 0;
    }

    /** The granted payload size: {@link SrcDesc#size()}. */
    public int capacity() {
        owner.checkOpen();
        return capacity;
    }

    private void check(long index, long count) {
        owner.checkOpen();
        Memory.checkRange("NPAM payload", index, count, capacity);
    }

    public void putByte(int index, byte value) {
        check(index, 1);
        memory.putByte(index, value);
    }

    public byte getByte(int index) {
        check(index, 1);
        return memory.getByte(index);
    }

    public void putShort(int index, short value) {
        check(index, 2);
        memory.putShort(index, value);
    }

    public void putInt(int index, int value) {
        check(index, 4);
        memory.putInt(index, value);
    }

    public int getInt(int index) {
        check(index, 4);
        return memory.getInt(index);
    }

    public void putLong(int index, long value) {
        check(index, 8);
        memory.putLong(index, value);
    }

    public long getLong(int index) {
        check(index, 8);
        return memory.getLong(index);
    }

    public void putDouble(int index, double value) {
        check(index, 8);
        memory.putDouble(index, value);
    }

    /** Sets {@code length} bytes from {@code index} to {@code value}. */
    public void setMemory(int index, int length, byte value) {
        check(index, length);
        memory.setMemory(index, length, value);
    }

    /** Copies {@code length} bytes of {@code src} from {@code srcOffset} to {@code index}. */
    public void putBytes(int index, byte[] src, int srcOffset, int length) {
        check(index, length);
        Memory.checkRange("source array", srcOffset, length, src.length);
        memory.putBytes(index, src, srcOffset, length);
    }

    /** Copies {@code length} bytes of {@code src} from {@code srcOffset} to {@code index}. */
    public void putBytes(int index, MemorySegment src, long srcOffset, int length) {
        check(index, length);
        Memory.checkRange("source segment", srcOffset, length, src.byteSize());
        Memory.copy(src, srcOffset, memory, index, length);
    }

    /** Copies {@code length} bytes of {@code src} from {@code srcIndex} to {@code index}. */
    public void putBytes(int index, DirectBuffer src, int srcIndex, int length) {
        check(index, length);
        Memory.checkRange("source buffer", srcIndex, length, src.capacity());
        memory.putBytes(index, src, srcIndex, length);
    }

    /** Copies {@code length} bytes from {@code index} into {@code dst} at {@code dstOffset}. */
    public void getBytes(int index, MemorySegment dst, long dstOffset, int length) {
        check(index, length);
        Memory.checkRange("destination segment", dstOffset, length, dst.byteSize());
        Memory.copy(memory, index, dst, dstOffset, length);
    }
}
