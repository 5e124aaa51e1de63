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
import java.util.Arrays;
import java.util.BitSet;

/**
 * A rank program for floods of AMs of every category: {@code AmFlood SEED MESSAGES MAXLONG WINDOW SECONDS}. Every
 * rank sends MESSAGES requests to every other rank, Short, Medium and Long in turn, and each request's handler answers
 * with a reply of its own category, so Short, Medium and Long requests and replies all cross the network. Everything a
 * message carries is a function of (seed, source, target, sequence, direction): a Short's 16 args, a Medium's or
 * Long's length (Medium up to the largest Medium, Long up to MAXLONG, both chosen from SEED) and every payload byte,
 * so each handler checks the whole message, and where a Long landed. Each handler also records the sequence it got,
 * so a message delivered twice, or not at all, shows. WINDOW requests per target are in flight: a Long request lands
 * in the target's slot for (source, sequence % WINDOW) and its Long reply in the source's slot for (target, sequence
 * % WINDOW), and a slot is reused only after the reply for its last message was checked.
 *
 * <p>The first wrong message is printed ({@code rank R: bad ...}) and ends the job with exit(1) at the rank's next
 * poll. At the end each rank tells each target how many requests it sent, compares with what it received and checked,
 * and the ranks exchange verdicts: every rank closes normally when all are right, otherwise every rank calls exit(1).
 * A rank still waiting after SECONDS prints what it waits for and exits with 2, so a hang shows as a diagnosis.
 *
 * <p>Output: {@code seed S} and {@code max medium N} (rank 0), per rank {@code rank R: flood messages=M bytes=B
 * seconds=T} (its requests and the replies to them, payload bytes of both, from the first send to the last reply), per
 * (rank, source) {@code rank R from S: requests N of N, B bytes, 0 bad}, per (rank, target) {@code rank R to T: replies
 * N of N, B bytes, 0 bad}, then {@code rank R: OK} or {@code rank R: FAIL ...}.
 */
public final class AmFlood {
    static final int SHORT_ARGS = 16;
    private static final int PAYLOAD_ARGS = 4;
    private static final int REQUEST = 0;
    private static final int REPLY = 1;
    private static final long C_SOURCE = 0x9E3779B97F4A7C15L;
    private static final long C_TARGET = 0xC2B2AE3D27D4EB4FL;
    private static final long C_SEQ = 0x165667B19E3779F9L;
    private static final long C_DIR = 0x27D4EB2F165667C5L;

    private final Client client;
    private final Am am;
    private final Segment segment;
    private final long seed;
    private final int messages;
    private final int maxMedium;
    private final int maxLong;
    private final int window;
    private final long slotBytes;
    private final int rank;
    private final int size;
    private final int shortRequest;
    private final int mediumRequest;
    private final int longRequest;
    private final int shortReply;
    private final int mediumReply;
    private final int longReply;
    private final int sentReport;
    private final int verdict;
    /** Requester side, per target: whether the slot's last request still waits for its reply. */
    private final boolean[][] busy;
    private final BitSet[] repliesSeen;
    private final int[] replies;
    private final long[] replyBytes;
    private final int[] badReplies;
    /** Target side, per source. */
    private final BitSet[] requestsSeen;
    private final int[] requests;
    private final long[] requestBytes;
    private final int[] badRequests;
    /** Per source: the count it says it sent, -1 until its report arrives. */
    private final int[] reportedSent;
    private int verdicts;
    private int failedVerdicts;
    private String firstError;
    /**
     * Where a handler builds the expected bytes and copies a Medium's payload; the requests' and the replies' own
     * payloads and args: a blocking request may run handlers while it waits for room, before it copied its own.
     */
    private final MemorySegment expected;
    private final MemorySegment got;
    private final MemorySegment requestOut;
    private final MemorySegment replyOut;
    private final int[] requestArgs = new int[SHORT_ARGS];
    private final int[] replyArgs = new int[SHORT_ARGS];

    private AmFlood(Client client, long seed, int messages, int maxLong, int window) {
        this.client = client;
        this.seed = seed;
        this.messages = messages;
        this.maxLong = maxLong;
        this.window = window;
        this.rank = client.rank();
        this.size = client.size();
        this.am = Am.of(client);
        final int other = (rank + 1) % size;
        this.maxMedium = (int) Math.min(am.maxRequestMedium(other, PAYLOAD_ARGS),
            am.maxReplyMedium(other, PAYLOAD_ARGS));
        this.slotBytes = (Math.max(maxLong, maxMedium) + 15L) & ~7L; // room for the pattern's last, partly used word
        // requests land in the first half (by source), replies in the second (by target)
        this.segment = client.attachSegment(pageAlign(2 * slotBytes * window * size));
        this.busy = new boolean[size][window];
        this.repliesSeen = bitSets(size, messages);
        this.replies = new int[size];
        this.replyBytes = new long[size];
        this.badReplies = new int[size];
        this.requestsSeen = bitSets(size, messages);
        this.requests = new int[size];
        this.requestBytes = new long[size];
        this.badRequests = new int[size];
        this.reportedSent = new int[size];
        Arrays.fill(reportedSent, -1);
        final Arena arena = Arena.ofAuto();
        this.expected = arena.allocate(slotBytes, 8);
        this.got = arena.allocate(slotBytes, 8);
        this.requestOut = arena.allocate(slotBytes, 8);
        this.replyOut = arena.allocate(slotBytes, 8);
        this.shortRequest = am.register(AmHandler.shortRequest(SHORT_ARGS, this::onShortRequest));
        this.mediumRequest = am.register(AmHandler.mediumRequest(PAYLOAD_ARGS, this::onMediumRequest));
        this.longRequest = am.register(AmHandler.longRequest(PAYLOAD_ARGS, this::onLongRequest));
        this.shortReply = am.register(AmHandler.shortReply(SHORT_ARGS, this::onShortReply));
        this.mediumReply = am.register(AmHandler.mediumReply(PAYLOAD_ARGS, this::onMediumReply));
        this.longReply = am.register(AmHandler.longReply(PAYLOAD_ARGS, this::onLongReply));
        this.sentReport = am.register(AmHandler.shortRequest(1,
            (token, a) -> reportedSent[token.sourceRank()] = a.get(0)));
        this.verdict = am.register(AmHandler.shortRequest(1, (token, a) -> {
            verdicts++;
            if (a.get(0) != 0) {
                failedVerdicts++;
            }
        }));
    }

    public static void main(String[] args) {
        final long seed = Long.parseLong(args[0]);
        final int messages = Integer.parseInt(args[1]);
        final int maxLong = Integer.parseInt(args[2]);
        final int window = Integer.parseInt(args[3]);
        final long seconds = Long.parseLong(args[4]);
        final Client client = Gex.init("AMFLOOD");
        final long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        new AmFlood(client, seed, messages, maxLong, window).run(deadline);
    }

    /** The category of message {@code seq}: Short, Medium and Long in turn. */
    static int category(int seq) {
        return seq % 3;
    }

    /**
     * The payload length of a Medium (category 1) or Long (2) message in direction {@code dir} (0 request, 1 reply):
     * a quarter small (packed sizes and their boundaries), some empty, some at the largest size.
     */
    static int length(long seed, int source, int target, int seq, int dir, int max) {
        final long h = mix(key(seed, source, target, seq, dir) ^ 0x5851F42D4C957F2DL);
        final int kind = (int) (h & 63);
        final long r = h >>> 8;
        if (kind == 0) {
            return max;
        }
        if (kind == 1) {
            return 0;
        }
        if (kind < 16) {
            return (int) (r % (Math.min(max, 4096) + 1));
        }
        return (int) (r % (max + 1L));
    }

    private void run(long deadline) {
        client.barrier(); // handlers registered everywhere
        if (rank == 0) {
            System.out.println("seed " + seed);
            System.out.println("max medium " + maxMedium);
        }
        final long start = System.nanoTime();
        long bytes = 0;
        for (int seq = 0; seq < messages; seq++) {
            for (int i = 1; i < size; i++) {
                final int target = (rank + i) % size; // each rank starts with a different target
                final int slot = seq % window;
                while (busy[target][slot]) {
                    client.poll();
                    checkDeadline(deadline, "the reply to message " + (seq - window) + " from rank " + target);
                }
                busy[target][slot] = true;
                bytes += sendRequest(target, seq);
            }
        }
        for (int target = 0; target < size; target++) {
            while (replies[target] < (target == rank ? 0 : messages)) {
                client.poll();
                checkDeadline(deadline, (messages - replies[target]) + " replies from rank " + target);
            }
            bytes += replyBytes[target];
        }
        final double seconds = (System.nanoTime() - start) / 1e9;
        // one write per line: the ranks share the launcher's stdout
        System.out.print(String.format("rank %d: flood messages=%d bytes=%d seconds=%.3f%n", rank,
            2L * messages * (size - 1), bytes, seconds));
        for (int target = 0; target < size; target++) {
            if (target != rank) {
                am.requestShort(target, sentReport, messages);
            }
        }
        for (int source = 0; source < size; source++) {
            while (source != rank && reportedSent[source] < 0) {
                client.poll();
                checkDeadline(deadline, "the sent report of rank " + source);
            }
        }
        client.barrier();
        final StringBuilder report = new StringBuilder();
        boolean ok = firstError == null;
        for (int peer = 0; peer < size; peer++) {
            if (peer == rank) {
                continue;
            }
            report.append(String.format("rank %d from %d: requests %d of %d, %d bytes, %d bad%n", rank, peer,
                requests[peer], reportedSent[peer], requestBytes[peer], badRequests[peer]));
            report.append(String.format("rank %d to %d: replies %d of %d, %d bytes, %d bad%n", rank, peer,
                replies[peer], messages, replyBytes[peer], badReplies[peer]));
            ok &= requests[peer] == messages && reportedSent[peer] == messages && badRequests[peer] == 0
                && requestsSeen[peer].cardinality() == messages
                && replies[peer] == messages && badReplies[peer] == 0 && repliesSeen[peer].cardinality() == messages;
        }
        if (am.pendingLongReassemblies() != 0 || am.droppedFrames() != 0) {
            ok = false;
            report.append(String.format("rank %d: %d reassemblies pending, %d frames dropped%n", rank,
                am.pendingLongReassemblies(), am.droppedFrames()));
        }
        report.append("rank ").append(rank).append(ok ? ": OK" : ": FAIL " + firstError + " (seed " + seed + ")")
            .append('\n');
        System.out.print(report);
        System.out.flush();
        for (int target = 0; target < size; target++) {
            if (target != rank) {
                am.requestShort(target, verdict, ok ? 0 : 1);
            }
        }
        while (verdicts < size - 1) {
            client.poll();
            checkDeadline(deadline, "verdicts (" + verdicts + " of " + (size - 1) + ")");
        }
        if (failedVerdicts > 0 || !ok) {
            client.exit(1); // every rank: the job's code says a rank found wrong data
        }
        client.close();
    }

    /** Sends request {@code seq} to {@code target}; returns its payload bytes. */
    private long sendRequest(int target, int seq) {
        switch (category(seq)) {
            case 0 -> {
                fillArgs(requestArgs, key(seed, rank, target, seq, REQUEST), seq);
                am.requestShort(target, shortRequest, 0, requestArgs, SHORT_ARGS);
                return 0;
            }
            case 1 -> {
                final int n = length(seed, rank, target, seq, REQUEST, maxMedium);
                fill(requestOut, key(seed, rank, target, seq, REQUEST), n);
                am.requestMedium(target, mediumRequest, requestOut, 0, n, Lc.NOW, seq, n,
                    check(seed, rank, target, seq, REQUEST), 0);
                return n;
            }
            default -> {
                final int n = length(seed, rank, target, seq, REQUEST, maxLong);
                fill(requestOut, key(seed, rank, target, seq, REQUEST), n);
                am.requestLong(target, longRequest, requestOut, 0, n, requestSlot(rank, seq), Lc.NOW, seq, n,
                    check(seed, rank, target, seq, REQUEST), 0);
                return n;
            }
        }
    }

    private void onShortRequest(Token token, Args a) {
        final int source = token.sourceRank();
        final int seq = a.get(0);
        String error = seen(requestsSeen[source], seq, 0);
        if (error == null) {
            error = argsMismatch(a, key(seed, source, rank, seq, REQUEST));
        }
        countRequest(source, seq, 0, error);
        if (error == null) {
            fillArgs(replyArgs, key(seed, rank, source, seq, REPLY), seq);
            token.replyShort(shortReply, 0, replyArgs, SHORT_ARGS);
        }
    }

    private void onMediumRequest(Token token, Payload payload, Args a) {
        final int source = token.sourceRank();
        final int seq = a.get(0);
        String error = seen(requestsSeen[source], seq, 1);
        if (error == null) {
            error = payloadMismatch(payload, a, source, rank, seq, REQUEST, maxMedium, -1);
        }
        countRequest(source, seq, payload.length(), error);
        if (error == null) {
            final int n = length(seed, rank, source, seq, REPLY, maxMedium);
            fill(replyOut, key(seed, rank, source, seq, REPLY), n);
            token.replyMedium(mediumReply, replyOut, 0, n, Lc.NOW, seq, n, check(seed, rank, source, seq, REPLY), 0);
        }
    }

    private void onLongRequest(Token token, Payload payload, Args a) {
        final int source = token.sourceRank();
        final int seq = a.get(0);
        String error = seen(requestsSeen[source], seq, 2);
        if (error == null) {
            error = payloadMismatch(payload, a, source, rank, seq, REQUEST, maxLong, requestSlot(source, seq));
        }
        countRequest(source, seq, payload.length(), error);
        if (error == null) {
            final int n = length(seed, rank, source, seq, REPLY, maxLong);
            fill(replyOut, key(seed, rank, source, seq, REPLY), n);
            token.replyLong(longReply, replyOut, 0, n, replySlot(rank, seq), Lc.NOW, seq, n,
                check(seed, rank, source, seq, REPLY), 0);
        }
    }

    private void onShortReply(Token token, Args a) {
        final int target = token.sourceRank();
        final int seq = a.get(0);
        String error = seen(repliesSeen[target], seq, 0);
        if (error == null) {
            error = argsMismatch(a, key(seed, target, rank, seq, REPLY));
        }
        countReply(target, seq, 0, error);
    }

    private void onMediumReply(Token token, Payload payload, Args a) {
        final int target = token.sourceRank();
        final int seq = a.get(0);
        String error = seen(repliesSeen[target], seq, 1);
        if (error == null) {
            error = payloadMismatch(payload, a, target, rank, seq, REPLY, maxMedium, -1);
        }
        countReply(target, seq, payload.length(), error);
    }

    private void onLongReply(Token token, Payload payload, Args a) {
        final int target = token.sourceRank();
        final int seq = a.get(0);
        String error = seen(repliesSeen[target], seq, 2);
        if (error == null) {
            error = payloadMismatch(payload, a, target, rank, seq, REPLY, maxLong, replySlot(target, seq));
        }
        countReply(target, seq, payload.length(), error);
    }

    /** Null if {@code seq} is new in {@code seen} and of {@code category}; records it. */
    private String seen(BitSet seen, int seq, int category) {
        if (seq < 0 || seq >= messages) {
            return "sequence " + seq + " outside [0, " + messages + ")";
        }
        if (category(seq) != category) {
            return "sequence " + seq + " arrived as category " + category + ", sent as " + category(seq);
        }
        if (seen.get(seq)) {
            return "sequence " + seq + " delivered twice";
        }
        seen.set(seq);
        return null;
    }

    private void countRequest(int source, int seq, long bytes, String error) {
        requests[source]++;
        requestBytes[source] += bytes;
        if (error != null) {
            badRequests[source]++;
            error("request from rank " + source + " message " + seq + ": " + error);
        }
    }

    private void countReply(int target, int seq, long bytes, String error) {
        replies[target]++;
        replyBytes[target] += bytes;
        if (error != null) {
            badReplies[target]++;
            error("reply from rank " + target + " to message " + seq + ": " + error);
        } else if (seq >= 0 && seq < messages) {
            busy[target][seq % window] = false;
        }
    }

    private void error(String what) {
        if (firstError == null) {
            firstError = what;
            System.out.println("rank " + rank + ": bad " + what);
        }
    }

    private static void fillArgs(int[] args, long key, int seq) {
        args[0] = seq;
        for (int i = 1; i < SHORT_ARGS; i++) {
            args[i] = (int) mix(key + i);
        }
    }

    private static String argsMismatch(Args a, long key) {
        for (int i = 1; i < SHORT_ARGS; i++) {
            if (a.get(i) != (int) mix(key + i)) {
                return "arg " + i + " is " + a.get(i) + ", expected " + (int) mix(key + i);
            }
        }
        return null;
    }

    /** Null if the payload is message (from, to, seq, dir)'s, whole, with its args, and where a Long must land. */
    private String payloadMismatch(Payload payload, Args a, int from, int to, int seq, int dir, int max, long slot) {
        final int n = length(seed, from, to, seq, dir, max);
        if (a.get(1) != n || payload.length() != n) {
            return "length " + payload.length() + " (arg " + a.get(1) + "), expected " + n;
        }
        if (a.get(2) != check(seed, from, to, seq, dir) || a.get(3) != 0) {
            return "args 2 and 3 are " + a.get(2) + ", " + a.get(3) + ", expected " + check(seed, from, to, seq, dir)
                + ", 0";
        }
        if (payload.segmentOffset() != slot) {
            return "landed at " + payload.segmentOffset() + ", expected " + slot;
        }
        if (n == 0) {
            return null;
        }
        fill(expected, key(seed, from, to, seq, dir), n);
        payload.copyTo(0, got, 0, n);
        final long at = got.asSlice(0, n).mismatch(expected.asSlice(0, n));
        if (at >= 0) {
            return "byte " + at + " of " + n + " is " + got.get(ValueLayout.JAVA_BYTE, at) + ", expected "
                + expected.get(ValueLayout.JAVA_BYTE, at);
        }
        if (slot >= 0 && segment.memory().asSlice(slot, n).mismatch(expected.asSlice(0, n)) >= 0) {
            return "the segment at " + slot + " differs from the payload view";
        }
        return null;
    }

    private long requestSlot(int source, int seq) {
        return (source * (long) window + seq % window) * slotBytes;
    }

    private long replySlot(int target, int seq) {
        return ((size + target) * (long) window + seq % window) * slotBytes;
    }

    /** Between polls: ends the job after a wrong message (1), or when waiting past the deadline (2). */
    private void checkDeadline(long deadline, String waitingFor) {
        if (firstError != null) {
            System.out.println("rank " + rank + ": FAIL " + firstError + " (seed " + seed + ")");
            System.out.flush();
            client.exit(1);
        }
        if (System.nanoTime() - deadline > 0) {
            final StringBuilder state = new StringBuilder("rank " + rank + ": TIMEOUT waiting for " + waitingFor
                + " (seed " + seed + "); requests received");
            for (int s = 0; s < size; s++) {
                state.append(' ').append(s).append('=').append(requests[s]);
            }
            state.append("; replies received");
            for (int t = 0; t < size; t++) {
                state.append(' ').append(t).append('=').append(replies[t]);
            }
            state.append("; reassemblies pending ").append(am.pendingLongReassemblies());
            System.out.println(state);
            System.out.flush();
            client.exit(2);
        }
    }

    private static long key(long seed, int source, int target, int seq, int dir) {
        return mix(seed ^ (source * C_SOURCE) ^ (target * C_TARGET) ^ (seq * C_SEQ) ^ (dir * C_DIR));
    }

    /** An arg that ties a Medium's or Long's frame to its message beyond its sequence number. */
    private static int check(long seed, int source, int target, int seq, int dir) {
        return (int) (key(seed, source, target, seq, dir) >>> 32);
    }

    /** Writes the n bytes (and the rest of their last word) of the message with {@code key} at dst's start. */
    private static void fill(MemorySegment dst, long key, int n) {
        final int words = (n + 7) >>> 3;
        for (int w = 0; w < words; w++) {
            dst.set(ValueLayout.JAVA_LONG_UNALIGNED, 8L * w, mix(key + w));
        }
    }

    /** SplitMix64's finaliser: every input bit changes every output bit. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static BitSet[] bitSets(int n, int bits) {
        final BitSet[] sets = new BitSet[n];
        for (int i = 0; i < n; i++) {
            sets[i] = new BitSet(bits);
        }
        return sets;
    }

    private static long pageAlign(long bytes) {
        return (bytes + Client.PAGE_SIZE - 1) & -Client.PAGE_SIZE;
    }
}
