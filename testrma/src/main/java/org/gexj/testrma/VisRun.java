package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.rma.Vis;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What {@link TestVis}'s sections share: the rank and its partner, the limits of the command line, the areas
 * (GASNet's {@code doit} breaks the segment and the heap buffer into {@link #NUM_AREAS} areas each), the random
 * numbers, and test.h's messages.
 */
abstract class VisRun {
    /** GASNet's VEC_SZ, the size and alignment of every access: its default 1, the most general test. */
    static final int VEC_SZ = 1;
    static final int NUM_AREAS = 4;

    final Client client;
    final PrintStream out;
    final int mynode;
    final int ranks;
    final int partner;
    // the command line's limits: -mv -mi -ms -mc -mn, -d, -t
    long maxVeclen = 100;
    long maxIdxlen = 8192;
    long maxStridedim = 20;
    long maxChunksz = 256;
    long maxInflightOps = 16;
    boolean verify = true;
    boolean showTiming;
    // set by setUp
    Vis vis;
    VisRandom rnd;
    /** Elements per area. */
    long areasz;
    VisArea mySegRead;
    VisArea mySegWrite1;
    VisArea mySegWrite2;
    VisArea mySegRemoteWrite;
    VisArea myHeapRead;
    VisArea myHeapWrite1;
    VisArea myHeapWrite2;
    VisArea partnerSegRead;
    VisArea partnerSegRemoteWrite;

    VisRun(Client client, PrintStream out) {
        this.client = client;
        this.out = out;
        this.mynode = client.rank();
        this.ranks = client.size();
        this.partner = (mynode + 1) % ranks;
    }

    /** doit's areas over this rank's segment and heap buffer, of {@code bytes} each. */
    final void setUp(MemorySegment seg, MemorySegment heap, long bytes) {
        vis = Vis.of(client);
        areasz = bytes / NUM_AREAS / VEC_SZ;
        final long area = areasz * VEC_SZ;
        mySegRead = new VisArea("my_seg_read_area", seg, 0, mynode, true);
        mySegWrite1 = new VisArea("my_seg_write1_area", seg, area, mynode, true);
        mySegWrite2 = new VisArea("my_seg_write2_area", seg, 2 * area, mynode, true);
        mySegRemoteWrite = new VisArea("my_seg_remotewrite_area", seg, 3 * area, mynode, true);
        myHeapRead = new VisArea("my_heap_read_area", heap, 0, mynode, false);
        myHeapWrite1 = new VisArea("my_heap_write1_area", heap, area, mynode, false);
        myHeapWrite2 = new VisArea("my_heap_write2_area", heap, 2 * area, mynode, false);
        partnerSegRead = new VisArea("partner_seg_read_area", null, 0, partner, true);
        partnerSegRemoteWrite = new VisArea("partner_seg_remotewrite_area", null, 3 * area, partner, true);
    }

    /** Initializes the read areas to known values (GASNet's doit, with verification on). */
    final void initReadAreas() {
        for (long i = 0; i < areasz; i++) {
            mySegRead.memory().set(ValueLayout.JAVA_BYTE, mySegRead.base() + i, VisArea.segValue(mynode, i));
            myHeapRead.memory().set(ValueLayout.JAVA_BYTE, myHeapRead.base() + i, VisArea.heapValue(mynode, i));
        }
    }

    /** checkmem: the read areas were not corrupted (they are only ever read, or cleared and restored). */
    final void checkmem() {
        if (!verify) {
            return;
        }
        for (long i = 0; i < areasz; i++) {
            if (mySegRead.memory().get(ValueLayout.JAVA_BYTE, mySegRead.base() + i) != VisArea.segValue(mynode, i)) {
                fatal("detected corruption in my_seg_read_area[" + i + "]\n");
            }
            if (myHeapRead.memory().get(ValueLayout.JAVA_BYTE, myHeapRead.base() + i)
                != VisArea.heapValue(mynode, i)) {
                fatal("detected corruption in my_heap_read_area[" + i + "]\n");
            }
        }
    }

    /** restore_heap_read_area: after a put's source was cleared, its HEAP_VALUEs again. */
    final void restoreHeapReadArea(long offset, long count) {
        final long index = (offset - myHeapRead.base()) / VEC_SZ;
        if (index < 0 || index + count > areasz) {
            fatal("Assertion failure: offset >= 0 && offset + cnt <= areasz");
        }
        for (long i = 0; i < count; i++) {
            myHeapRead.memory().set(ValueLayout.JAVA_BYTE, offset + i, VisArea.heapValue(mynode, index + i));
        }
    }

    /** Clears {@code count} bytes of local memory at {@code offset} (GASNet's memset to 0). */
    static void clear(MemorySegment memory, long offset, long count) {
        memory.asSlice(offset, count).fill((byte) 0);
    }

    // ------------------------------------------------------------------------------------------ test.h

    /** MSG: "node r/n text" on every rank. */
    final void msg(String text) {
        out.print("node " + mynode + "/" + ranks + " " + text + "\n");
        out.flush();
    }

    /** MSG0: the text, on rank 0 only. */
    final void msg0(String text) {
        if (mynode == 0) {
            out.print(text + "\n");
            out.flush();
        }
    }

    /** ERR: "ERROR: node r/n text (at file:line)". */
    final void err(String text) {
        out.print("ERROR: node " + mynode + "/" + ranks + " " + text + " (at " + callSite() + ")\n");
        out.flush();
    }

    /** FATALERR: the error, then the job ends with exit code 1 (GASNet aborts). Never returns. */
    final void fatal(String text) {
        err(text);
        client.exit(1);
        throw new IllegalStateException("unreachable: exit returned");
    }

    /** assert_always. */
    final void check(boolean ok, String expr) {
        if (!ok) {
            fatal("Assertion failure: " + expr);
        }
    }

    /** The file and line of the first caller outside this class (GASNet's __FILE__:__LINE__ of the ERR). */
    static String callSite() {
        return StackWalker.getInstance().walk(s -> s.filter(f -> !f.getClassName().equals(VisRun.class.getName()))
            .findFirst()).map(f -> f.getFileName() + ":" + f.getLineNumber()).orElse("?");
    }

    /** The file and line that called the method calling this (where GASNet's verify macro stands). */
    static String caller() {
        return StackWalker.getInstance().walk(s -> s.skip(2).findFirst())
            .map(f -> f.getFileName() + ":" + f.getLineNumber()).orElse("?");
    }

    /** gasnett_checksum's mixing, over a list's numbers (GASNet checks its lists were not modified). */
    static long checksum(long sum, long[] values, int count) {
        long result = sum;
        for (int i = 0; i < count; i++) {
            result = Long.rotateLeft(result, 8) ^ values[i];
        }
        return result;
    }
}
