package org.gexj.ibv.ffm;

import org.gexj.testkit.AllocationMeasureKit;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The data path's structs allocate nothing once written: the work-request setters and the completion getters, run
 * in windows after a warm-up, the least window kept (the JVM's one-time work may land in one). The calls through the
 * ops table themselves need a device: {@code IbvLoopbackOnDevice} measures those.
 */
class IbvDataPathAllocationTest {
    private static final int OPERATIONS = 100_000;

    @Test
    void settingWorkRequestsAndReadingCompletionsAllocatesNothing() {
        try (Arena arena = Arena.ofConfined()) {
            final SendWr send = new SendWr(arena);
            final RecvWr recv = new RecvWr(arena);
            final WorkCompletions wc = new WorkCompletions(arena, 4);
            wc.segment().set(JAVA_INT, WorkCompletions.IMM_DATA, 0x78563412);
            // an address handle is only stored: any address does
            final MemorySegment ah = MemorySegment.ofAddress(0x10000);
            long least = Long.MAX_VALUE;
            long sink = 0;
            for (int window = 0; window < 4; window++) {
                final long before = AllocationMeasureKit.allocatedBytes();
                for (int i = 0; i < OPERATIONS; i++) {
                    send.send(i, 4096L * i, 64, 7, Verbs.IBV_SEND_SIGNALED | Verbs.IBV_SEND_INLINE);
                    send.rdmaWriteWithImm(i, 4096L * i, 128, 7, 8192L * i, 9, Verbs.IBV_SEND_SIGNALED, i);
                    send.rdmaRead(i, 4096L * i, 128, 7, 8192L * i, 9, 0);
                    send.sendUd(i, 4096L * i, 256, 7, Verbs.IBV_SEND_SIGNALED, ah, i, 0x11111111);
                    recv.set(i, 4096L * i, 4096, 7);
                    final int k = i & 3;
                    sink += wc.wrId(k) + wc.status(k) + wc.opcode(k) + wc.byteLen(k) + wc.immData(k) + wc.qpNum(k)
                        + wc.wcFlags(k) + wc.vendorErr(k) + wc.srcQp(k);
                }
                final long bytes = AllocationMeasureKit.allocatedBytes() - before;
                if (window > 0) {
                    least = Math.min(least, bytes);
                }
            }
            assertEquals(0, least, "bytes allocated by " + OPERATIONS + " rounds of setters and getters (sink "
                + sink + ")");
            // the immediate is stored in network order and read back in host order
            assertEquals(0x12345678, wc.immData(0));
        }
    }
}
