package org.gexj.ofi;

import org.gexj.Registration;
import org.gexj.am.Am;
import org.gexj.launch.InProcessJob;
import org.gexj.testkit.RmaConformanceKit;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RMA, registered memory and PWC conformance over ofi on the sockets provider, where registrations are reached by RDMA
 * with their keys by default ({@link OfiSettings#REFUSING_PROVIDERS}) and Long payloads go put-sync-send, as its writes
 * with remote CQ data never complete ({@link OfiSettings#NO_WRITE_DATA_PROVIDERS}).
 */
class OfiSocketsRmaConformanceTest extends RmaConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "sockets");
    }

    @Override
    protected boolean keyedRegistrations() {
        return true;
    }

    @Test
    void socketsKeysRegistrationsAndSendsLongPayloadsPutSyncSend() {
        InProcessJob.run(2, Duration.ofSeconds(60), environment(), client -> {
            assertEquals("putsyncsend", Am.of(client).longProtocol(1 << 20));
            try (Arena arena = Arena.ofShared(); Registration r = client.register(arena.allocate(4096))) {
                assertTrue(r.descriptor().keyed(), r.descriptor().toString());
            }
            client.barrier();
        });
    }
}
