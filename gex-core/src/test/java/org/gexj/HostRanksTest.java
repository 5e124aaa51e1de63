package org.gexj;

import org.gexj.spi.Bootstrap;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The count of the job's ranks on this host: those whose host id, gathered at init, is this one's. */
class HostRanksTest {
    @Test
    void countsTheRanksWhoseHostIdIsThisOnes() {
        final byte[] here = HostRanks.hostId();
        final byte[] there = "another kernel".getBytes(StandardCharsets.UTF_8);
        assertEquals(3, HostRanks.count(gathering(here, there, here, here, there)));
        assertEquals(1, HostRanks.count(gathering(there, here, there)));
    }

    @Test
    void theHostIdIsTheKernelsBootIdOnLinux() throws Exception {
        final Path bootId = Path.of("/proc/sys/kernel/random/boot_id");
        assumeTrue(Files.isReadable(bootId), "no boot id here");
        assertEquals(Files.readString(bootId).trim(), new String(HostRanks.hostId(), StandardCharsets.UTF_8));
    }

    /** A bootstrap whose allgather answers {@code all}, whatever this rank gives. */
    private static Bootstrap gathering(byte[]... all) {
        return new Bootstrap() {
            @Override
            public int rank() {
                return 0;
            }

            @Override
            public int size() {
                return all.length;
            }

            @Override
            public byte[][] allgather(byte[] mine) {
                return all;
            }

            @Override
            public void abort(String reason) {
                throw new AssertionError(reason);
            }

            @Override
            public void close() {
            }
        };
    }
}
