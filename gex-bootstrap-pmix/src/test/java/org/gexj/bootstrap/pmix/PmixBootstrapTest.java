package org.gexj.bootstrap.pmix;

import org.gexj.Config;
import org.gexj.GexException;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pure parts of the PMIx bootstrap; the calls themselves run under mpirun in gex-dist's Mpirun*IT. */
class PmixBootstrapTest {
    private static Config env(String... kv) {
        final Map<String, String> m = new HashMap<>();
        // the test JVM's own environment may hold any of them: blank values count as absent
        m.put("GEX_BOOTSTRAP", "");
        m.put("PMIX_NAMESPACE", "");
        m.put("PMIX_RANK", "");
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return Config.of(m);
    }

    @Test
    void chosenOnlyUnderAPmixServerAndNoGexjLauncher() {
        assertTrue(PmixBootstrap.requested(env("PMIX_NAMESPACE", "1234", "PMIX_RANK", "0")));
        assertFalse(PmixBootstrap.requested(env("PMIX_NAMESPACE", "1234")), "no PMIX_RANK");
        assertFalse(PmixBootstrap.requested(env("PMIX_RANK", "0")), "no PMIX_NAMESPACE");
        assertFalse(PmixBootstrap.requested(env("PMIX_NAMESPACE", "1234", "PMIX_RANK", "0",
            "GEX_BOOTSTRAP", "127.0.0.1:5000")), "gexrun inside an mpirun job keeps its own rendezvous");
    }

    @Test
    void localPeersParseSortedAndBadOnesAreNamed() {
        assertArrayEquals(new int[] {0, 1, 2, 3}, PmixBootstrap.parseLocalPeers("0,1,2,3", 4));
        assertArrayEquals(new int[] {1, 5}, PmixBootstrap.parseLocalPeers(" 5, 1 ", 8));
        final IllegalArgumentException outside = assertThrows(IllegalArgumentException.class,
            () -> PmixBootstrap.parseLocalPeers("0,4", 4));
        assertEquals("pmix.lpeers '0,4': rank 4 outside [0, 4)", outside.getMessage());
        final IllegalArgumentException word = assertThrows(IllegalArgumentException.class,
            () -> PmixBootstrap.parseLocalPeers("0,x", 4));
        assertEquals("pmix.lpeers '0,x': 'x' is not a rank", word.getMessage());
        final IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
            () -> PmixBootstrap.parseLocalPeers("2,2", 4));
        assertEquals("pmix.lpeers '2,2': rank 2 twice", twice.getMessage());
    }

    @Test
    void theJobIdIsTheNamespaceMadeFileNameSafePlusFourSecretBytes() {
        final byte[] secret = {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef, 1, 2};
        assertEquals("pmix-3745447937-deadbeef", PmixBootstrap.jobId("3745447937", secret));
        assertEquals("pmix-slurm.pmix.12.0-deadbeef", PmixBootstrap.jobId("slurm.pmix.12.0", secret));
        assertEquals("pmix-prterun-host-1_1-deadbeef", PmixBootstrap.jobId("prterun-host-1@1", secret));
        assertEquals("pmix-" + "a".repeat(64) + "-deadbeef", PmixBootstrap.jobId("a".repeat(200), secret));
        assertFalse(PmixBootstrap.jobId("../../etc/x y", secret).contains("/"));
    }

    @Test
    void valuesCarryAVersionByteSoEvenAnEmptyBlobIsABytesObject() {
        for (byte[] blob : new byte[][] {{}, {0}, {1, 2, 3}, new byte[4096]}) {
            final byte[] value = PmixBootstrap.encode(blob);
            assertEquals(blob.length + 1, value.length);
            assertEquals(PmixBootstrap.VALUE_VERSION, value[0]);
            assertArrayEquals(blob, PmixBootstrap.decode(value, 3));
        }
        final GexException empty = assertThrows(GexException.class, () -> PmixBootstrap.decode(new byte[0], 3));
        assertTrue(empty.getMessage().startsWith("rank 3's bootstrap value has no bytes"), empty.getMessage());
        final GexException other = assertThrows(GexException.class, () -> PmixBootstrap.decode(new byte[] {7, 1}, 2));
        assertTrue(other.getMessage().contains("format version 7"), other.getMessage());
    }
}
