package org.gexj.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * What the udp conduit's default checksum costs: a CRC32C of a whole datagram (80-byte header and fragment, in a direct
 * buffer, as {@code UdpHeaderFlyweight} seals and checks it), next to a copy of the same bytes (what every layer of
 * GASNet's udp-conduit and GEX/J pays per byte) and the header-only CRC of {@code GEX_UDP_CHECKSUM=header}. A round
 * trip of one datagram each way checksums its bytes four times: twice per rank.
 *
 * <pre>bin/gexbench DatagramChecksumBenchmark</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DatagramChecksumBenchmark {
    private static final int HEADER = 80;

    /** Datagram bytes, header included: 4 KiB and 32 KiB fragments, and the largest datagram. */
    @Param({"4176", "32848", "65507"})
    public int datagram;

    private final CRC32C crc = new CRC32C();
    private ByteBuffer bytes;
    private MemorySegment from;
    private MemorySegment to;

    @Setup
    public void setup() {
        bytes = ByteBuffer.allocateDirect(datagram);
        for (int i = 0; i < datagram; i++) {
            bytes.put(i, (byte) (i * 31 + 7));
        }
        from = MemorySegment.ofBuffer(bytes);
        to = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(datagram));
    }

    @Benchmark
    public long crc32cOfTheDatagram() {
        return crc(datagram);
    }

    @Benchmark
    public long crc32cOfTheHeader() {
        return crc(HEADER);
    }

    @Benchmark
    public MemorySegment copyOfTheDatagram() {
        MemorySegment.copy(from, 0, to, 0, datagram);
        return to;
    }

    private long crc(int length) {
        crc.reset();
        bytes.limit(length).position(0);
        crc.update(bytes);
        bytes.clear();
        return crc.getValue();
    }
}
