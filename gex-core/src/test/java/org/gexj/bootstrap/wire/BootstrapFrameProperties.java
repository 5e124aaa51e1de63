package org.gexj.bootstrap.wire;

import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

class BootstrapFrameProperties {
    private static final Gen<Byte> ANY_BYTE = Generate.bytes(Byte.MIN_VALUE, Byte.MAX_VALUE, (byte) 0);

    /** One draw in ten is an edge value: random draws alone almost never hit the bounds of a wide range. */
    @SafeVarargs
    private static <T> Gen<T> edgeBiased(Gen<T> values, T... edges) {
        return Generate.frequency(Pair.of(9, values), Pair.of(1, Generate.pick(List.of(edges))));
    }

    private static Gen<byte[]> blobs(int minLength, int maxLength) {
        return Generate.byteArrays(integers().between(minLength, maxLength), ANY_BYTE);
    }

    /**
     * Up to 200 chars of the Basic Multilingual Plane except surrogates (a lone surrogate has no UTF-8 form), shrinking
     * towards 'a' so a shrunk reason is printable.
     */
    private static Gen<String> reasons() {
        final int surrogates = Character.MAX_SURROGATE - Character.MIN_SURROGATE + 1;
        final Gen<Integer> chars = Generate.range(0, Character.MAX_VALUE - surrogates, 'a')
            .map(c -> c < Character.MIN_SURROGATE ? c : c + surrogates);
        return Generate.intArrays(integers().between(0, 200), chars).map(cs -> new String(cs, 0, cs.length));
    }

    private static BootstrapFrame roundTrip(BootstrapFrame f) throws IOException {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        f.write(new DataOutputStream(bytes));
        return BootstrapFrame.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    }

    private interface IoBody {
        void run() throws IOException;
    }

    /** The frame API declares IOException, which a QuickTheories property body cannot throw; it fails the example. */
    private static void io(IoBody body) {
        try {
            body.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void allgatherAndResultRoundTrip() {
        final Gen<Integer> sequences = edgeBiased(integers().all(), 0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE);
        final Gen<List<byte[]>> blobLists = lists().of(blobs(0, 64)).ofType(lists().<byte[], List<byte[]>>arrayList())
            .ofSizeBetween(0, 8);
        qt().withExamples(1000).forAll(sequences, blobLists).checkAssert((sequence, blobs) -> io(() -> {
            final byte[][] array = blobs.toArray(new byte[0][]);
            final BootstrapFrame result = roundTrip(BootstrapFrame.result(sequence, array));
            assertEquals(BootstrapFrame.RESULT, result.type());
            assertEquals(sequence, result.leadingInt());
            final byte[][] back = result.blobs();
            assertEquals(array.length, back.length);
            for (int i = 0; i < array.length; i++) {
                assertArrayEquals(array[i], back[i]);
            }
            final byte[] blob = array.length == 0 ? new byte[0] : array[0];
            final BootstrapFrame ag = roundTrip(BootstrapFrame.allgather(sequence, blob));
            assertEquals(sequence, ag.leadingInt());
            assertArrayEquals(blob, ag.rest());
        }));
    }

    @Test
    void abortAndHelloRoundTrip() {
        final Gen<Integer> ranks = edgeBiased(integers().between(-1, 1 << 20), -1, 0, 1 << 20);
        qt().withExamples(1000).forAll(ranks, reasons(), blobs(32, 32)).checkAssert((rank, reason, mac) -> io(() -> {
            final BootstrapFrame abort = roundTrip(BootstrapFrame.abort(rank, reason));
            assertEquals(rank, abort.leadingInt());
            assertEquals(reason, abort.reason());
            final BootstrapFrame hello = roundTrip(BootstrapFrame.hello(rank, mac));
            assertEquals(rank, hello.leadingInt());
            assertArrayEquals(mac, hello.rest());
        }));
    }

    @Test
    void truncatedOrForeignFramesAreRejected() {
        qt().withExamples(1000).forAll(blobs(1, 20), integers().between(1, 8)).checkAssert((blob, cut) -> {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try {
                BootstrapFrame.allgather(1, blob).write(new DataOutputStream(bytes));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            final byte[] whole = bytes.toByteArray();
            final byte[] truncated = java.util.Arrays.copyOf(whole, whole.length - cut);
            assertThrows(IOException.class,
                () -> BootstrapFrame.read(new DataInputStream(new ByteArrayInputStream(truncated))));
            final byte[] foreign = whole.clone();
            foreign[0] = 7;
            assertThrows(IOException.class,
                () -> BootstrapFrame.read(new DataInputStream(new ByteArrayInputStream(foreign))));
            final byte[] unknownType = whole.clone();
            unknownType[1] = 99;
            assertThrows(IOException.class,
                () -> BootstrapFrame.read(new DataInputStream(new ByteArrayInputStream(unknownType))));
        });
    }

    @Test
    void beforeAuthenticationBodiesAreCapped() {
        qt().withExamples(50)
            .forAll(integers().between(BootstrapFrame.MAX_UNAUTHENTICATED_BODY + 1, BootstrapFrame.MAX_BODY))
            .checkAssert(declared -> {
                // only the 8-byte header: the reader must refuse before it allocates or reads the body
                final byte[] header = java.nio.ByteBuffer.allocate(8).put((byte) 1).put((byte) BootstrapFrame.ALLGATHER)
                    .putShort((short) 0).putInt(declared).array();
                final IOException e = assertThrows(IOException.class, () -> BootstrapFrame.read(
                    new DataInputStream(new ByteArrayInputStream(header)), BootstrapFrame.MAX_UNAUTHENTICATED_BODY));
                assertEquals(true, e.getMessage().contains(Integer.toString(declared)), e.getMessage());
            });
    }

    @Test
    void exitRoundTrips() {
        qt().withExamples(50).forAll(integers().between(0, 4095), integers().between(0, 255))
            .checkAssert((rank, code) -> io(() -> {
                final BootstrapFrame f = roundTrip(BootstrapFrame.exit(rank, code));
                assertEquals(BootstrapFrame.EXIT, f.type());
                assertEquals(rank, f.leadingInt());
                assertEquals(code, f.exitCode());
            }));
    }
}
