package org.gexj.launch.rendezvous;

import org.gexj.Config;
import org.gexj.bootstrap.JobSecret;
import org.gexj.bootstrap.TcpBootstrap;
import org.gexj.spi.JobHealth;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** GEX_JOB_SECRET=-, as gexrun's ssh spawner sets it: the rank reads the secret from stdin and joins the rendezvous. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StdinSecretTest {
    /**
     * The connect path end to end: a rank told GEX_JOB_SECRET=- proves the secret of its stdin's first line, and the
     * conduits' configuration holds the secret itself. The only test of this JVM that reads System.in (kept after).
     */
    @Test
    void aRankToldMinusProvesTheSecretOnItsStdin() throws Exception {
        final byte[] secret = JobSecret.random(32);
        final InputStream stdin = System.in;
        try (RendezvousServer server = new RendezvousServer(1, secret)) {
            System.setIn(new ByteArrayInputStream((JobSecret.hex(secret) + "\nrest\n")
                .getBytes(StandardCharsets.US_ASCII)));
            final Config config = Config.of(Map.of("GEX_BOOTSTRAP", server.address(), "GEX_JOB_SECRET", "-"));
            assertEquals(JobSecret.hex(secret), JobSecret.resolve(config).get("GEX_JOB_SECRET", null));
            final TcpBootstrap rank = TcpBootstrap.connect(config, 0, 1, new JobHealth());
            assertEquals(1, rank.allgather(new byte[] {7}).length);
            rank.close();
            assertEquals(0, server.rejectedConnections());
            assertEquals("rest\n", new String(System.in.readAllBytes(), StandardCharsets.US_ASCII));
        } finally {
            System.setIn(stdin);
        }
    }
}
