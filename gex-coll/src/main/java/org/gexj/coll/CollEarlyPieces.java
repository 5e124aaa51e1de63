package org.gexj.coll;

import org.agrona.collections.Long2ObjectHashMap;
import org.gexj.am.Payload;
import org.gexj.coll.wire.CollArgs;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * Pieces that came before their collective started here (a faster member is ahead, or this rank's split that makes
 * the team is still running), copied out of the network's buffer and kept by collective key until
 * {@link CollEngine} starts it. Pieces and their lists are pooled, and a piece's buffer is kept with it for the next.
 *
 * <p>Threads: the holder of the client's delivery, as {@link CollEngine}.
 */
final class CollEarlyPieces {
    /**
     * A piece that came before its collective started. Its buffer is of the kind of the operations' children's
     * buffers, so that a whole message can be swapped in instead of copied again.
     */
    static final class Piece {
        int fromJob;
        int word;
        int offset;
        int total;
        int length;
        MemorySegment data;
    }

    private final Long2ObjectHashMap<ArrayList<Piece>> byKey = new Long2ObjectHashMap<>();
    private final ArrayDeque<Piece> freePieces = new ArrayDeque<>();
    private final ArrayDeque<ArrayList<Piece>> freeLists = new ArrayDeque<>();

    /** Copies a piece for collective {@code key}, not started yet, into pooled memory. */
    void keep(long key, int fromJob, int word, int offset, int total, Payload payload) {
        ArrayList<Piece> list = byKey.get(key);
        if (list == null) {
            list = freeLists.isEmpty() ? new ArrayList<>() : freeLists.pop();
            byKey.put(key, list);
        }
        final Piece p = freePieces.isEmpty() ? new Piece() : freePieces.pop();
        final int length = (int) payload.length();
        if (length > 0) {
            p.data = CollOperation.room(p.data, length);
            payload.copyTo(0, p.data, 0, length);
        }
        p.fromJob = fromJob;
        p.word = word;
        p.offset = offset;
        p.total = total;
        p.length = length;
        list.add(p);
    }

    /** Whether pieces of collective {@code key} are kept (one load where none is kept at all). */
    boolean holds(long key) {
        return !byKey.isEmpty() && byKey.containsKey(key);
    }

    /**
     * The pieces of collective {@code key}, in arrival order, no longer kept; null if none. Give the list back with
     * {@link #release} once its pieces are taken.
     */
    ArrayList<Piece> remove(long key) {
        return byKey.remove(key);
    }

    /** Keeps again, as they were, the pieces {@link #remove} returned for {@code key}. */
    void putBack(long key, ArrayList<Piece> list) {
        byKey.put(key, list);
    }

    /** Pools a list {@link #remove} returned, and its pieces with their buffers. */
    void release(ArrayList<Piece> list) {
        for (int i = 0; i < list.size(); i++) {
            freePieces.push(list.get(i));
        }
        list.clear();
        freeLists.push(list);
    }

    /** Receives a kept probe ({@link #forEachProbe}). */
    @FunctionalInterface
    interface ProbeConsumer {
        void accept(long key, Piece probe);
    }

    /** Hands every kept probe, with its collective's key, to {@code consumer} (control path), keeping them. */
    void forEachProbe(ProbeConsumer consumer) {
        byKey.forEach((key, list) -> {
            for (int i = 0; i < list.size(); i++) {
                if (CollArgs.phase(list.get(i).word) == CollArgs.PHASE_PROBE) {
                    consumer.accept(key, list.get(i));
                }
            }
        });
    }

    /** Collectives with pieces kept. */
    int size() {
        return byKey.size();
    }
}
