package org.gexj.dist;

import org.gexj.Client;
import org.gexj.Gex;
import org.gexj.Lc;
import org.gexj.Segment;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Args;
import org.gexj.am.Payload;
import org.gexj.am.Token;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.BitSet;

/**
 * A rank program for AM Long floods: {@code LongFlood SEED MESSAGES MAXSIZE WINDOW SECONDS}. Every rank sends
 * MESSAGES AM Long requests to every rank, itself included, of sizes 0..MAXSIZE chosen from SEED, into its own
 * region of the target's segment: WINDOW slots per source, so a slot is reused only after the target's handler
 * checked it and acknowledged (without the window a later message could overwrite a payload before its handler
 * runs). Every byte is a function of (seed, source, target, sequence, position), so the handler checks the whole
 * payload, its length and where it landed, and a stale, torn or misplaced payload shows. At the end each source
 * reports how many it sent, every rank compares that with what it received and checked, and the ranks exchange
 * their verdicts: every rank closes normally when all are right, otherwise every rank calls exit(1). A rank still
 * waiting after SECONDS prints what it waits for and exits with 2, so a hang shows as a diagnosis. A sixth argument
 * {@code corrupt} makes rank 0 flip one byte of its first non-empty message from {@value #CORRUPT_SEQ} on to the last
 * rank, to show the check catches it.
 *
 * <p>Output: {@code seed S}, {@code protocol N: P} (rank 0), per rank {@code rank R: sent ...}, per (rank, source)
 * {@code rank R from S: received N of N, B bytes, 0 bad}, then {@code rank R: OK} or {@code rank R: FAIL ...}.
 */
public final class LongFlood {
    private static final long C_SOURCE = 0x9E3779B97F4A7C15L;
    private static final long C_TARGET = 0xC2B2AE3D27D4EB4FL;
    private static final long C_SEQ = 0x165667B19E3779F9L;
    static final int CORRUPT_SEQ = 3;

    private final Client client;
    private final Am am;
    private final Segment segment;
    private final long seed;
    private final int messages;
    private final int maxSize;
    private final int window;
    /** The negative control: one of this rank's messages to the last rank gets one byte flipped. */
    private final boolean corrupt;
    private final long slotBytes;
    private final int rank;
    private final int size;
    private final int ack;
    private final int data;
    private final int sent;
    private final int verdict;
    /** Sender side: messages to each target not acknowledged yet. */
    private final int[] outstanding;
    /** Target side, per source: sequences delivered (a second delivery of one is counted as bad). */
    private final BitSet[] seen;
    private final int[] received;
    private final long[] receivedBytes;
    private final int[] bad;
    /** Per source: the count it says it sent, -1 until its report arrives. */
    private final int[] reportedSent;
    private int verdicts;
    private int failedVerdicts;
    private String firstError;
    /** Where the handler builds the expected payload. */
    private final MemorySegment expected;

    private LongFlood(Client client, long seed, int messages, int maxSize, int window, boolean corrupt) {
        this.client = client;
        this.corrupt = corrupt;
        this.seed = seed;
        this.messages = messages;
        this.maxSize = maxSize;
        this.window = window;
        this.rank = client.rank();
        this.size = client.size();
        // room for the pattern's last, partly used word
        this.slotBytes = (maxSize + 15L) & ~7L;
        final long regions = slotBytes * window * size;
        this.segment = client.attachSegment(pageAlign(regions + slotBytes));
        this.am = Am.of(client);
        this.outstanding = new int[size];
        this.seen = new BitSet[size];
        for (int s = 0; s < size; s++) {
            seen[s] = new BitSet(messages);
        }
        this.received = new int[size];
        this.receivedBytes = new long[size];
        this.bad = new int[size];
        this.reportedSent = new int[size];
        java.util.Arrays.fill(reportedSent, -1);
        this.expected = Arena.ofAuto().allocate(slotBytes, 8);
        this.ack = am.register(AmHandler.shortReply(1, (token, args) -> outstanding[token.sourceRank()]--));
        this.data = am.register(AmHandler.longRequest(2, this::onData));
        this.sent = am.register(AmHandler.shortRequest(1,
            (token, args) -> reportedSent[token.sourceRank()] = args.get(0)));
        this.verdict = am.register(AmHandler.shortRequest(1, (token, args) -> {
            verdicts++;
            if (args.get(0) != 0) {
                failedVerdicts++;
            }
        }));
    }

    public static void main(String[] args) {
        final long seed = Long.parseLong(args[0]);
        final int messages = Integer.parseInt(args[1]);
        final int maxSize = Integer.parseInt(args[2]);
        final int window = Integer.parseInt(args[3]);
        final long seconds = Long.parseLong(args[4]);
        final boolean corrupt = args.length > 5 && args[5].equals("corrupt");
        final Client client = Gex.init("LONGFLOOD");
        final long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        new LongFlood(client, seed, messages, maxSize, window, corrupt && client.rank() == 0).run(deadline);
    }

    private void run(long deadline) {
        client.barrier(); // handlers registered everywhere
        if (rank == 0) {
            System.out.println("seed " + seed);
            System.out.println("protocol " + maxSize + ": " + am.longProtocol(maxSize));
        }
        final MemorySegment inSegment = segment.memory().asSlice(slotBytes * window * size, slotBytes);
        final MemorySegment offSegment = Arena.ofShared().allocate(slotBytes, 8);
        final long start = System.nanoTime();
        long bytes = 0;
        boolean corrupted = false;
        for (int seq = 0; seq < messages; seq++) {
            for (int i = 1; i <= size; i++) {
                final int target = (rank + i) % size; // each rank starts with a different target, itself last
                while (outstanding[target] >= window) {
                    client.poll();
                    checkDeadline(deadline, "a window slot to rank " + target);
                }
                final int n = size(seed, rank, target, seq, maxSize);
                // both source kinds: registered segment memory and plain off-heap memory
                final MemorySegment src = (seq & 1) == 0 ? inSegment : offSegment;
                fill(src, seed, rank, target, seq, n);
                if (corrupt && !corrupted && target == size - 1 && seq >= CORRUPT_SEQ && n > 0) {
                    src.set(ValueLayout.JAVA_BYTE, n / 2, (byte) ~src.get(ValueLayout.JAVA_BYTE, n / 2));
                    corrupted = true;
                }
                outstanding[target]++;
                am.requestLong(target, data, src, 0, n, slot(rank, seq), Lc.NOW, seq, n);
                bytes += n;
            }
        }
        for (int target = 0; target < size; target++) {
            while (outstanding[target] > 0) {
                client.poll();
                checkDeadline(deadline, outstanding[target] + " acknowledgements from rank " + target);
            }
        }
        final double seconds = (System.nanoTime() - start) / 1e9;
        System.out.print(String.format("rank %d: sent %d messages, %d bytes in %.2f s%n", rank, messages * size, bytes,
            seconds)); // one write: the ranks share the launcher's stdout
        // every message this rank sent was handled (acknowledged): now each target learns how many to expect
        for (int target = 0; target < size; target++) {
            am.requestShort(target, sent, messages);
        }
        for (int source = 0; source < size; source++) {
            while (reportedSent[source] < 0) {
                client.poll();
                checkDeadline(deadline, "the sent report of rank " + source);
            }
        }
        client.barrier();
        final StringBuilder out = new StringBuilder();
        boolean ok = true;
        for (int source = 0; source < size; source++) {
            out.append(String.format("rank %d from %d: received %d of %d, %d bytes, %d bad%n", rank, source,
                received[source], reportedSent[source], receivedBytes[source], bad[source]));
            ok &= received[source] == messages && reportedSent[source] == messages && bad[source] == 0
                && seen[source].cardinality() == messages;
        }
        if (am.pendingLongReassemblies() != 0 || am.droppedFrames() != 0) {
            ok = false;
            out.append(String.format("rank %d: %d reassemblies pending, %d frames dropped%n", rank,
                am.pendingLongReassemblies(), am.droppedFrames()));
        }
        out.append("rank ").append(rank).append(ok ? ": OK" : ": FAIL " + firstError + " (seed " + seed + ")")
            .append('\n');
        System.out.print(out);
        System.out.flush();
        for (int target = 0; target < size; target++) {
            am.requestShort(target, verdict, ok ? 0 : 1);
        }
        while (verdicts < size) {
            client.poll();
            checkDeadline(deadline, "verdicts (" + verdicts + " of " + size + ")");
        }
        if (failedVerdicts > 0) {
            client.exit(1); // every rank: the job's code says a rank found wrong data
        }
        client.close();
    }

    /** Target side, in the handler: checks (sequence, length, place, every byte), then frees the sender's slot. */
    private void onData(Token token, Payload payload, Args args) {
        final int source = token.sourceRank();
        final int seq = args.get(0);
        final int n = size(seed, source, rank, seq, maxSize);
        final String error;
        if (seq < 0 || seq >= messages) {
            error = "sequence " + seq + " outside [0, " + messages + ")";
        } else if (seen[source].get(seq)) {
            error = "sequence " + seq + " delivered twice";
        } else if (args.get(1) != n || payload.length() != n) {
            error = "length " + payload.length() + " (arg " + args.get(1) + "), expected " + n;
        } else if (payload.segmentOffset() != slot(source, seq)) {
            error = "landed at " + payload.segmentOffset() + ", expected " + slot(source, seq);
        } else {
            error = mismatch(payload, source, seq, n);
        }
        if (seq >= 0 && seq < messages) {
            seen[source].set(seq);
        }
        received[source]++;
        receivedBytes[source] += payload.length();
        if (error != null) {
            bad[source]++;
            if (firstError == null) {
                firstError = "from rank " + source + " message " + seq + ": " + error;
                System.out.println("rank " + rank + ": bad payload " + firstError);
            }
        }
        token.replyShort(ack, seq);
    }

    /** Null if the n bytes in the segment are the pattern of (source, this rank, seq), else where they differ. */
    private String mismatch(Payload payload, int source, int seq, int n) {
        if (n == 0) {
            return null;
        }
        fill(expected, seed, source, rank, seq, n);
        final MemorySegment landed = segment.memory().asSlice(payload.segmentOffset(), n);
        final long at = landed.mismatch(expected.asSlice(0, n));
        if (at >= 0) {
            return "byte " + at + " of " + n + " is " + landed.get(ValueLayout.JAVA_BYTE, at) + ", expected "
                + expected.get(ValueLayout.JAVA_BYTE, at);
        }
        // the handler's view must show the same bytes as the segment
        for (int i : new int[] {0, n / 2, n - 1}) {
            if (payload.getByte(i) != expected.get(ValueLayout.JAVA_BYTE, i)) {
                return "payload view byte " + i + " differs from the segment";
            }
        }
        return null;
    }

    private long slot(int source, int seq) {
        return (source * (long) window + seq % window) * slotBytes;
    }

    private void checkDeadline(long deadline, String waitingFor) {
        if (System.nanoTime() - deadline > 0) {
            final StringBuilder state = new StringBuilder("rank " + rank + ": TIMEOUT waiting for " + waitingFor
                + " (seed " + seed + "); outstanding");
            for (int t = 0; t < size; t++) {
                state.append(' ').append(t).append('=').append(outstanding[t]);
            }
            state.append("; received");
            for (int s = 0; s < size; s++) {
                state.append(' ').append(s).append('=').append(received[s]);
            }
            state.append("; reassemblies pending ").append(am.pendingLongReassemblies());
            System.out.println(state);
            System.out.flush();
            client.exit(2);
        }
    }

    /**
     * The size of message seq from source to target: a quarter small (packed sizes and their boundary), some at max.
     */
    static int size(long seed, int source, int target, int seq, int maxSize) {
        final long h = mix(seed ^ (source * C_SOURCE) ^ (target * C_TARGET) ^ (seq * C_SEQ));
        final int kind = (int) (h & 63);
        final long r = h >>> 8;
        if (kind == 0) {
            return maxSize;
        }
        if (kind == 1) {
            return 0;
        }
        if (kind < 16) {
            return (int) (r % (Math.min(maxSize, 8192) + 1));
        }
        return (int) (r % (maxSize + 1L));
    }

    /** Writes message (source, target, seq)'s n bytes (and the rest of their last word) at dst's start. */
    static void fill(MemorySegment dst, long seed, int source, int target, int seq, int n) {
        final long base = seed ^ (source * C_SEQ) ^ (target * C_SOURCE) ^ ((long) seq * C_TARGET);
        final int words = (n + 7) >>> 3;
        for (int w = 0; w < words; w++) {
            dst.set(ValueLayout.JAVA_LONG_UNALIGNED, 8L * w, mix(base + w));
        }
    }

    /** SplitMix64's finaliser: every input bit changes every output bit. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static long pageAlign(long bytes) {
        return (bytes + Client.PAGE_SIZE - 1) & -Client.PAGE_SIZE;
    }
}
