package org.gexj.rma;

import java.util.Arrays;

/**
 * A non-contiguous transfer ({@link Vis}) as a list of contiguous chunks, each a remote offset, a local offset and a
 * length, in the order the data flows; adjacent chunks that continue each other on both sides are merged. A thread
 * builds its plan in its own instance, whose arrays grow and are then reused: no allocation per transfer once grown.
 *
 * <p>The builders check everything before anything moves, each failure an {@link IllegalArgumentException} naming the
 * value and what is allowed: counts, lengths, totals, strides; {@link #checkRanges} then each chunk against the remote
 * segment and the local buffer, and {@link #checkDisjoint} that no two destination chunks overlap.
 */
final class VisPlan {
    long[] remote = new long[16];
    long[] local = new long[16];
    long[] length = new long[16];
    int chunks;
    long bytes;
    private long[] starts = new long[16];
    private long[] ends = new long[16];
    private long[] index = new long[8];

    /** The length of the longest chunk (0 for none). */
    long longest() {
        long max = 0;
        for (int i = 0; i < chunks; i++) {
            max = Math.max(max, length[i]);
        }
        return max;
    }

    /** The length every chunk has, or 0 where they differ (or there are none). */
    long evenLength() {
        if (chunks == 0) {
            return 0;
        }
        final long n = length[0];
        for (int i = 1; i < chunks; i++) {
            if (length[i] != n) {
                return 0;
            }
        }
        return n;
    }

    /** Makes this plan a copy of {@code from}'s chunks (no merging). */
    void copyFrom(VisPlan from) {
        copyFrom(from.remote, from.local, from.length, 0, from.chunks);
    }

    /**
     * Makes this plan the {@code count} chunks at {@code remote[i]} and {@code local[i]} of {@code lengths[i]} bytes,
     * or {@code length} each where {@code lengths} is null (no merging).
     */
    void copyFrom(long[] remoteOffsets, long[] localOffsets, long[] lengths, long length, int count) {
        if (remote.length < count) {
            remote = new long[count];
            local = new long[count];
            this.length = new long[count];
        }
        System.arraycopy(remoteOffsets, 0, remote, 0, count);
        System.arraycopy(localOffsets, 0, local, 0, count);
        if (lengths == null) {
            Arrays.fill(this.length, 0, count, length);
            bytes = length * count;
        } else {
            System.arraycopy(lengths, 0, this.length, 0, count);
            bytes = 0;
            for (int i = 0; i < count; i++) {
                bytes += lengths[i];
            }
        }
        chunks = count;
    }

    void clear() {
        chunks = 0;
        bytes = 0;
    }

    /** Appends a chunk as it is (a piece of a split one). */
    void addUnmerged(long remoteOffset, long localOffset, long n) {
        final int before = chunks;
        add(remoteOffset, localOffset, n);
        if (chunks == before && n > 0) { // merged: undo, and append apart
            length[chunks - 1] -= n;
            bytes -= n;
            grow();
            remote[chunks] = remoteOffset;
            local[chunks] = localOffset;
            length[chunks] = n;
            bytes += n;
            chunks++;
        }
    }

    private void grow() {
        if (chunks == remote.length) {
            final int grown = chunks * 2;
            remote = Arrays.copyOf(remote, grown);
            local = Arrays.copyOf(local, grown);
            length = Arrays.copyOf(length, grown);
        }
    }

    /** Appends a chunk, merged with the last one when it continues it on both sides. */
    void add(long remoteOffset, long localOffset, long n) {
        if (n == 0) {
            return;
        }
        bytes += n;
        if (chunks > 0) {
            final int last = chunks - 1;
            if (remote[last] + length[last] == remoteOffset && local[last] + length[last] == localOffset) {
                length[last] += n;
                return;
            }
        }
        grow();
        remote[chunks] = remoteOffset;
        local[chunks] = localOffset;
        length[chunks] = n;
        chunks++;
    }

    /**
     * Vector: the remote pieces ({@code remoteOffsets[i]}, {@code remoteLengths[i]}) take the local pieces' bytes in
     * order; the totals must be equal.
     */
    void vector(int remoteCount, long[] remoteOffsets, long[] remoteLengths, int localCount, long[] localOffsets,
                long[] localLengths) {
        clear();
        final long remoteTotal = checkList("remote", remoteCount, remoteOffsets, remoteLengths);
        final long localTotal = checkList("local", localCount, localOffsets, localLengths);
        if (remoteTotal != localTotal) {
            throw new IllegalArgumentException("the remote pieces hold " + remoteTotal + " bytes and the local ones "
                + localTotal + ": they must be equal");
        }
        int r = 0;
        int l = 0;
        long rDone = 0;
        long lDone = 0;
        while (r < remoteCount && l < localCount) {
            final long n = Math.min(remoteLengths[r] - rDone, localLengths[l] - lDone);
            add(remoteOffsets[r] + rDone, localOffsets[l] + lDone, n);
            rDone += n;
            lDone += n;
            if (rDone == remoteLengths[r]) {
                r++;
                rDone = 0;
            }
            if (lDone == localLengths[l]) {
                l++;
                lDone = 0;
            }
        }
    }

    /**
     * Indexed: {@code remoteCount} pieces of {@code remoteLength} bytes take {@code localCount} pieces of
     * {@code localLength}.
     */
    void indexed(int remoteCount, long[] remoteOffsets, long remoteLength, int localCount, long[] localOffsets,
                 long localLength) {
        clear();
        checkIndexList("remote", remoteCount, remoteOffsets, remoteLength);
        checkIndexList("local", localCount, localOffsets, localLength);
        if (Math.multiplyHigh(remoteCount, remoteLength) != 0 || Math.multiplyHigh(localCount, localLength) != 0
            || (long) remoteCount * remoteLength != (long) localCount * localLength) {
            throw new IllegalArgumentException(remoteCount + " remote pieces of " + remoteLength + " bytes and "
                + localCount + " local pieces of " + localLength + " bytes: the totals must be equal");
        }
        int r = 0;
        int l = 0;
        long rDone = 0;
        long lDone = 0;
        while (r < remoteCount && l < localCount && remoteLength > 0) {
            final long n = Math.min(remoteLength - rDone, localLength - lDone);
            add(remoteOffsets[r] + rDone, localOffsets[l] + lDone, n);
            rDone += n;
            lDone += n;
            if (rDone == remoteLength) {
                r++;
                rDone = 0;
            }
            if (lDone == localLength) {
                l++;
                lDone = 0;
            }
        }
    }

    /**
     * Strided (GASNet-EX's form): elements of {@code elemSize} bytes at
     * {@code base + sum(i[k] * strides[k])} for {@code 0 <= i[k] < count[k]}, the same shape on both sides, visited
     * with the lowest level fastest; strides may be negative. No element, or {@code elemSize} 0: nothing moves.
     */
    void strided(long remoteBase, long[] remoteStrides, long localBase, long[] localStrides, long elemSize,
                 long[] count, int levels) {
        clear();
        if (elemSize < 0) {
            throw new IllegalArgumentException("elemsz " + elemSize + " is negative");
        }
        if (levels < 0 || count == null || levels > count.length || remoteStrides == null
            || levels > remoteStrides.length || localStrides == null || levels > localStrides.length) {
            throw new IllegalArgumentException("stridelevels " + levels + " outside [0, min(count, strides)] = [0, "
                + Math.min(count == null ? 0 : count.length, Math.min(remoteStrides == null ? 0
                : remoteStrides.length, localStrides == null ? 0 : localStrides.length)) + "]");
        }
        long elements = 1;
        for (int k = 0; k < levels; k++) {
            if (count[k] < 0) {
                throw new IllegalArgumentException("count[" + k + "] " + count[k] + " is negative");
            }
            elements = Math.multiplyExact(elements, count[k]);
        }
        if (elements == 0 || elemSize == 0) {
            return;
        }
        // the lowest levels that are contiguous on both sides are one larger element
        long elem = elemSize;
        int first = 0;
        while (first < levels && remoteStrides[first] == elem && localStrides[first] == elem) {
            elem *= count[first];
            elements /= count[first];
            first++;
        }
        if (index.length < levels) {
            index = new long[levels];
        }
        Arrays.fill(index, 0, levels, 0);
        for (long e = 0; e < elements; e++) {
            long r = remoteBase;
            long l = localBase;
            for (int k = first; k < levels; k++) {
                r += index[k] * remoteStrides[k];
                l += index[k] * localStrides[k];
            }
            add(r, l, elem);
            for (int k = first; k < levels && ++index[k] == count[k]; k++) {
                index[k] = 0;
            }
        }
    }

    /**
     * Every chunk lies in the remote segment of {@code remoteSize} bytes and in the local buffer of {@code localSize}.
     */
    void checkRanges(int rank, long remoteSize, long localSize) {
        for (int i = 0; i < chunks; i++) {
            if (remote[i] < 0 || remote[i] > remoteSize - length[i]) {
                throw new IllegalArgumentException("remote piece [" + remote[i] + ", " + (remote[i] + length[i])
                    + ") outside rank " + rank + "'s segment [0, " + remoteSize + ")");
            }
            if (local[i] < 0 || local[i] > localSize - length[i]) {
                throw new IllegalArgumentException("local piece [" + local[i] + ", " + (local[i] + length[i])
                    + ") outside the local buffer [0, " + localSize + ")");
            }
        }
    }

    /** No two chunks overlap on the destination side (remote for a put, local for a get). */
    void checkDisjoint(boolean remoteSide) {
        if (chunks < 2) {
            return;
        }
        final long[] at = remoteSide ? remote : local;
        int i = 1;
        while (i < chunks && at[i] >= at[i - 1] + length[i - 1]) {
            i++;
        }
        if (i == chunks) {
            return; // in ascending order, each after the one before: the common case, without sorting
        }
        if (starts.length < chunks) {
            starts = new long[remote.length];
            ends = new long[remote.length];
        }
        for (i = 0; i < chunks; i++) {
            starts[i] = at[i];
            ends[i] = at[i] + length[i];
        }
        // disjoint exactly when, with starts and ends sorted apart, each start is at or after the previous end
        Arrays.sort(starts, 0, chunks);
        Arrays.sort(ends, 0, chunks);
        for (i = 1; i < chunks; i++) {
            if (starts[i] < ends[i - 1]) {
                throw new IllegalArgumentException("the " + (remoteSide ? "remote" : "local") + " destination pieces "
                    + "overlap: byte " + starts[i] + " is written twice");
            }
        }
    }

    /** @return the pieces' total, each length checked not negative (then a negative sum is an overflow) */
    private static long checkList(String side, int count, long[] offsets, long[] lengths) {
        if (offsets == null || lengths == null || count < 0 || count > Math.min(offsets.length, lengths.length)) {
            throw new IllegalArgumentException(side + " count " + count + " outside [0, " + (offsets == null
                || lengths == null ? 0 : Math.min(offsets.length, lengths.length)) + "] (the lists' length)");
        }
        long sum = 0;
        for (int i = 0; i < count; i++) {
            if (lengths[i] < 0) {
                throw new IllegalArgumentException(side + " piece " + i + " has length " + lengths[i]);
            }
            sum += lengths[i];
            if (sum < 0) {
                throw new IllegalArgumentException("the " + side + " pieces' lengths sum beyond " + Long.MAX_VALUE
                    + " bytes at piece " + i);
            }
        }
        return sum;
    }

    private static void checkIndexList(String side, int count, long[] offsets, long pieceLength) {
        if (offsets == null || count < 0 || count > offsets.length) {
            throw new IllegalArgumentException(side + " count " + count + " outside [0, " + (offsets == null ? 0
                : offsets.length) + "] (the list's length)");
        }
        if (pieceLength < 0) {
            throw new IllegalArgumentException(side + " piece length " + pieceLength + " is negative");
        }
    }
}
