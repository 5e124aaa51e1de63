package org.gexj.bootstrap.wire;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BootstrapFrameProperties {
    private static BootstrapFrame roundTrip(BootstrapFrame f) throws IOException {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        f.write(new DataOutputStream(bytes));
        return BootstrapFrame.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    }

    @Property
    void allgatherAndResultRoundTrip(@ForAll int sequence, @ForAll @Size(max = 8) List<@Size(max = 64) byte[]> blobs)
        throws IOException {
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
    }

    @Property
    void abortAndHelloRoundTrip(@ForAll @IntRange(min = -1, max = 1 << 20) int rank, @ForAll @StringLength(max = 200) String reason,
                                @ForAll @Size(32) byte[] mac) throws IOException {
        final BootstrapFrame abort = roundTrip(BootstrapFrame.abort(rank, reason));
        assertEquals(rank, abort.leadingInt());
        assertEquals(reason, abort.reason());
        final BootstrapFrame hello = roundTrip(BootstrapFrame.hello(rank, mac));
        assertEquals(rank, hello.leadingInt());
        assertArrayEquals(mac, hello.rest());
    }

    @Property
    void truncatedOrForeignFramesAreRejected(@ForAll @Size(min = 1, max = 20) byte[] blob, @ForAll @IntRange(min = 1, max = 8) int cut) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            BootstrapFrame.allgather(1, blob).write(new DataOutputStream(bytes));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        final byte[] whole = bytes.toByteArray();
        final byte[] truncated = java.util.Arrays.copyOf(whole, whole.length - cut);
        assertThrows(IOException.class, () -> BootstrapFrame.read(new DataInputStream(new ByteArrayInputStream(truncated))));
        final byte[] foreign = whole.clone();
        foreign[0] = 7;
        assertThrows(IOException.class, () -> BootstrapFrame.read(new DataInputStream(new ByteArrayInputStream(foreign))));
        final byte[] unknownType = whole.clone();
        unknownType[1] = 99;
        assertThrows(IOException.class, () -> BootstrapFrame.read(new DataInputStream(new ByteArrayInputStream(unknownType))));
    }

    @Property(tries = 50)
    void beforeAuthenticationBodiesAreCapped(@ForAll @IntRange(min = BootstrapFrame.MAX_UNAUTHENTICATED_BODY + 1,
        max = BootstrapFrame.MAX_BODY) int declared) {
        // only the 8-byte header: the reader must refuse before it allocates or reads the body
        final byte[] header = java.nio.ByteBuffer.allocate(8).put((byte) 1).put((byte) BootstrapFrame.ALLGATHER)
            .putShort((short) 0).putInt(declared).array();
        final IOException e = assertThrows(IOException.class, () -> BootstrapFrame.read(
            new DataInputStream(new ByteArrayInputStream(header)), BootstrapFrame.MAX_UNAUTHENTICATED_BODY));
        assertEquals(true, e.getMessage().contains(Integer.toString(declared)), e.getMessage());
    }

    @Property(tries = 50)
    void exitRoundTrips(@ForAll @IntRange(min = 0, max = 4095) int rank, @ForAll @IntRange(min = 0, max = 255) int code)
        throws IOException {
        final BootstrapFrame f = roundTrip(BootstrapFrame.exit(rank, code));
        assertEquals(BootstrapFrame.EXIT, f.type());
        assertEquals(rank, f.leadingInt());
        assertEquals(code, f.exitCode());
    }
}
