package org.gexj.ibv;

import org.gexj.Client;
import org.gexj.Gex;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A rank program for {@link IbvKillMidFloodOnDevice}, started by gexrun: every rank joins, says "ready RANK PID", then
 * floods every other rank without end with AM Medium requests of {@value #MEDIUM} bytes (sent from registered buffers)
 * and Short requests (sent inline), polling between rounds. Once Mediums from every peer have arrived it says
 * "flooding RANK", so the test strikes in the middle of the flood. A run ends only by a failure: the rank prints
 * {@code rank R ended at MILLIS (epoch ms): EXCEPTION} and exits non-zero.
 */
public final class IbvFloodRank {
    static final int MEDIUM = 4096;
    /** Mediums a rank takes from each peer before it says it floods. */
    private static final int WARM_UP = 16;

    private IbvFloodRank() {
    }

    public static void main(String[] args) {
        try (Client client = Gex.init("IBVFLOOD")) {
            final int rank = client.rank();
            try {
                flood(client);
            } catch (RuntimeException e) {
                System.out.println("rank " + rank + " ended at " + System.currentTimeMillis() + ": " + e);
                System.out.flush();
                throw e;
            }
        }
    }

    private static void flood(Client client) {
        final int rank = client.rank();
        final int size = client.size();
        final Am am = Am.of(client);
        final int[] arrived = new int[size];
        final int medium = am.register(AmHandler.mediumRequest(1, (t, payload, a) -> arrived[t.sourceRank()]++));
        final int shortHandler = am.register(AmHandler.shortRequest(1, (token, a) -> { }));
        final MemorySegment buffer = Arena.ofShared().allocate(MEDIUM, 64);
        client.barrier();
        System.out.println("ready " + rank + " " + ProcessHandle.current().pid());
        System.out.flush();
        boolean said = false;
        for (int round = 0; ; round++) {
            for (int i = 1; i < size; i++) {
                final int peer = (rank + i) % size;
                am.requestMedium(peer, medium, buffer, 0, MEDIUM, Lc.NOW, round);
                am.requestShort(peer, shortHandler, round);
            }
            client.poll();
            if (!said && warm(arrived, rank)) {
                said = true;
                System.out.println("flooding " + rank);
                System.out.flush();
            }
        }
    }

    private static boolean warm(int[] arrived, int rank) {
        for (int p = 0; p < arrived.length; p++) {
            if (p != rank && arrived[p] < WARM_UP) {
                return false;
            }
        }
        return true;
    }
}
