package org.gexj.udp;

import org.gexj.testkit.AllocationKit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The udp conduit's data path allocates nothing: every AM form, Longs packed, and RMA over AM, with the conduit's own
 * acknowledgements in between (see {@link AllocationKit}; udp has no native RMA, so it refuses the kit's other runs);
 * again with small datagrams, where frames are fragmented and the window fills, and over NIO channels.
 */
class UdpAllocationTest extends AllocationKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
    }

    /** udp has no native RMA: Longs cannot be reassembled or put, and Am.of refuses those settings. */
    @Override
    protected Set<Run> refusedRuns() {
        return Set.of(Run.REASSEMBLY, Run.PUT_SYNC_SEND);
    }

    /** An Ethernet MTU's worth and a window of 16: a 4 KiB Long is 4 fragments, a 64 KiB one more than a window. */
    @Test
    @Timeout(value = 170, unit = TimeUnit.SECONDS)
    void fragmentedFramesAllocateNothingOnEitherSide() {
        assertEveryPathAllocatesNothing(Map.of("GEX_UDP_DATAGRAM", "1200", "GEX_UDP_NETWORK_DEPTH", "16"));
    }

    /** The fallback where Netty's epoll does not load. */
    @Test
    @Timeout(value = 170, unit = TimeUnit.SECONDS)
    void nioChannelsAllocateNothingOnEitherSide() {
        assertEveryPathAllocatesNothing(Map.of("GEX_UDP_TRANSPORT", "nio"));
    }
}
