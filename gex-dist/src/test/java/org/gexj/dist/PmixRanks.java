package org.gexj.dist;

import org.gexj.Client;
import org.gexj.Gex;
import org.gexj.Segment;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.rma.Rma;

import java.lang.foreign.ValueLayout;

/**
 * A rank program for jobs that a resource manager starts ({@code mpirun}, {@code srun}): {@code PmixRanks SIZE ROUNDS
 * [fail RANK]}. Checks that the job has SIZE ranks, then for ROUNDS rounds sends every other rank a Short request
 * whose handler replies with the round and its own rank, waits for all replies, and puts its rank into every peer's
 * segment; after a barrier every rank checks what the others put. Prints {@code rank R of N: OK pid P} (or
 * {@code FAIL ...} and exits 1). With {@code fail RANK}, that rank throws after the first barrier while the others
 * poll forever: only the resource manager can end the job. With {@code late RANK SECONDS}, that rank (its
 * {@code PMIX_RANK}) sleeps SECONDS before {@code Gex.init}, so the others wait for it in the bootstrap's first fence.
 */
public final class PmixRanks {
    private PmixRanks() {
    }

    public static void main(String[] args) throws Exception {
        final int expected = Integer.parseInt(args[0]);
        final int rounds = Integer.parseInt(args[1]);
        final int failing = args.length > 3 && args[2].equals("fail") ? Integer.parseInt(args[3]) : -1;
        if (args.length > 4 && args[2].equals("late") && args[3].equals(System.getenv("PMIX_RANK"))) {
            Thread.sleep(1000L * Integer.parseInt(args[4])); // the others wait for it in Gex.init's first fence
        }
        final Client client = Gex.init("PMIXRANKS");
        final int rank = client.rank();
        final int size = client.size();
        if (size != expected) {
            System.out.println("rank " + rank + " of " + size + ": FAIL expected " + expected + " ranks");
            client.exit(1);
        }
        final Segment segment = client.attachSegment(1 << 16);
        final Am am = Am.of(client);
        final int[] replies = new int[size];
        final String[] error = new String[1];
        final int pong = am.register(AmHandler.shortReply(2, (token, a) -> {
            if (a.get(1) != token.sourceRank() || a.get(0) != replies[token.sourceRank()]) {
                error[0] = "reply " + a.get(0) + " from rank " + token.sourceRank() + " says rank " + a.get(1)
                    + ", expected round " + replies[token.sourceRank()];
            }
            replies[token.sourceRank()]++;
        }));
        final int ping = am.register(AmHandler.shortRequest(1, (token, a) -> token.replyShort(pong, a.get(0), rank)));
        client.barrier(); // handlers registered everywhere
        if (rank == failing) {
            throw new IllegalStateException("rank " + rank + " fails on purpose");
        }
        if (failing >= 0) {
            while (true) {
                client.poll();
                Thread.sleep(1);
            }
        }
        final Rma rma = Rma.of(client);
        for (int round = 0; round < rounds; round++) {
            for (int i = 1; i < size; i++) {
                am.requestShort((rank + i) % size, ping, round);
            }
            for (int peer = 0; peer < size; peer++) {
                while (peer != rank && replies[peer] <= round) {
                    client.poll();
                }
            }
            for (int i = 1; i < size; i++) {
                final int peer = (rank + i) % size;
                rma.putVal(peer, 8L * rank, 1000L * round + rank, 8);
            }
            client.barrier();
            for (int peer = 0; peer < size; peer++) {
                final long v = segment.memory().get(ValueLayout.JAVA_LONG, 8L * peer);
                if (peer != rank && v != 1000L * round + peer && error[0] == null) {
                    error[0] = "round " + round + ": rank " + peer + " put " + v + ", expected "
                        + (1000L * round + peer);
                }
            }
            client.barrier(); // nobody puts the next round before every rank has checked this one
        }
        if (error[0] != null) {
            System.out.println("rank " + rank + " of " + size + ": FAIL " + error[0]);
            System.out.flush();
            client.exit(1);
        }
        System.out.println("rank " + rank + " of " + size + ": OK pid " + ProcessHandle.current().pid());
        System.out.flush();
        client.close();
    }
}
