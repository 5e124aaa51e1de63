package org.gexj;

import org.gexj.spi.Bootstrap;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * How many of the job's ranks run on this host: one bootstrap allgather of the kernel's boot id at init. Ranks in
 * other network namespaces or containers of the same kernel count as here, as they share its cores; that is what the
 * count is for (ranks that outnumber the cores must not spin while they wait).
 */
final class HostRanks {
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

    private HostRanks() {
    }

    /** Collective over {@code bootstrap}: the ranks whose host is this one's, this one included. */
    static int count(Bootstrap bootstrap) {
        final byte[] mine = hostId();
        int same = 0;
        for (byte[] theirs : bootstrap.allgather(mine)) {
            if (Arrays.equals(mine, theirs)) {
                same++;
            }
        }
        return same;
    }

    /** The kernel's boot id where Linux has one, else the host's name. */
    static byte[] hostId() {
        try {
            return Files.readString(BOOT_ID).trim().getBytes(StandardCharsets.UTF_8);
        } catch (IOException | SecurityException e) {
            try {
                return InetAddress.getLocalHost().getHostName().getBytes(StandardCharsets.UTF_8);
            } catch (IOException | SecurityException e2) {
                return "unknown host".getBytes(StandardCharsets.UTF_8);
            }
        }
    }
}
