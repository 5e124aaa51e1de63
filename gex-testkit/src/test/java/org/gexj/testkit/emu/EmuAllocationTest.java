package org.gexj.testkit.emu;

import org.gexj.testkit.AllocationKit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The library's data path over emu allocates nothing in steady state, with unordered delivery, hold-backs and pooled
 * send buffers in between: every AM form and native RMA completion style, Longs packed and apart (reassembly by
 * default; put-sync-send beside packed Longs; each protocol for every Long), and RMA over AM (see
 * {@link AllocationKit}). Emu costs no network round trip, so the windows are long.
 */
class EmuAllocationTest extends AllocationKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }

    @Override
    protected int measured() {
        return 20_000;
    }

    @Override
    protected int pathWarmup() {
        return 10_000;
    }

    /** Put-sync-send with its default packed limit: 4 KiB Longs packed and 64 KiB ones put, in one job. */
    @Test
    @Timeout(value = 170, unit = TimeUnit.SECONDS)
    void putSyncSendBesidePackedLongsAllocatesNothingEither() {
        assertEveryPathAllocatesNothing(Map.of("GEX_AMLONG_PROTOCOL", "putsyncsend"));
    }

    /**
     * With a wire latency every item waits on the receiver's wire and each poll reads the clock: still nothing
     * allocated (1 us: the same code as any latency, without slowing the measurement down; 4 KiB Longs packed,
     * 64 KiB ones reassembled).
     */
    @Test
    @Timeout(value = 170, unit = TimeUnit.SECONDS)
    void withAWireLatencyEveryPathAllocatesNothingEither() {
        assertEveryPathAllocatesNothing(Map.of("GEX_EMU_LATENCY_US", "1"));
    }
}
