package org.gexj.am.wire;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

class AmFrameFlyweightProperties {

    @Property
    void everyFieldRoundTrips(@ForAll @IntRange(min = 0, max = 2) int category,
                              @ForAll boolean request,
                              @ForAll boolean inline,
                              @ForAll @IntRange(min = 1, max = 255) int handler,
                              @ForAll @Size(max = 16) int[] args,
                              @ForAll @IntRange(min = 0, max = 1 << 20) int source,
                              @ForAll @Size(max = 300) byte[] payload,
                              @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long dest,
                              @ForAll @IntRange(min = 0, max = 7) int misalign) {
        final int nargs = args.length;
        final boolean carries = category == AmFrameFlyweight.CATEGORY_MEDIUM
            || (category == AmFrameFlyweight.CATEGORY_LONG && inline);
        final byte[] body = category == AmFrameFlyweight.CATEGORY_SHORT ? new byte[0] : payload;
        final int length = AmFrameFlyweight.frameLength(nargs, carries ? body.length : 0);
        final int at = 8 * misalign;
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(at + length + 16));
        final int type = category | (request ? AmFrameFlyweight.TYPE_REQUEST : 0)
            | (category == AmFrameFlyweight.CATEGORY_LONG && inline ? AmFrameFlyweight.TYPE_INLINE : 0);
        AmFrameFlyweight.encodeHeader(buffer, at, type, handler, nargs, source, body.length, dest);
        for (int i = 0; i < nargs; i++) {
            AmFrameFlyweight.encodeArg(buffer, at, i, args[i]);
        }
        if (carries) {
            buffer.putBytes(at + AmFrameFlyweight.payloadOffset(nargs), body);
        }

        final AmFrameFlyweight frame = new AmFrameFlyweight().wrap(buffer, at, length);
        assertNull(frame.validate());
        assertEquals(AmFrameFlyweight.VERSION, frame.version());
        assertEquals(category, frame.category());
        assertEquals(request, frame.isRequest());
        assertEquals(category == AmFrameFlyweight.CATEGORY_LONG && inline, frame.isInline());
        assertEquals(handler, frame.handler());
        assertEquals(nargs, frame.nargs());
        assertEquals(source, frame.source());
        assertEquals(body.length, frame.payloadLength());
        assertEquals(dest, frame.dest());
        for (int i = 0; i < nargs; i++) {
            assertEquals(args[i], frame.arg(i));
        }
        if (carries) {
            final byte[] back = new byte[body.length];
            buffer.getBytes(frame.payloadIndex(), back);
            assertArrayEquals(body, back);
            assertEquals(0, frame.payloadIndex() % 8, "payload is 8-byte aligned");
        }
    }

    @Property
    void truncatedFramesAreRejected(@ForAll @IntRange(min = 0, max = 16) int nargs,
                                    @ForAll @IntRange(min = 1, max = 64) int payloadLength,
                                    @ForAll @IntRange(min = 1, max = 200) int cut) {
        final int length = AmFrameFlyweight.frameLength(nargs, payloadLength);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length]);
        AmFrameFlyweight.encodeHeader(buffer, 0, AmFrameFlyweight.CATEGORY_MEDIUM, 200, nargs, 0, payloadLength, 0);
        final int shorter = Math.max(0, length - cut);
        assertNotNull(new AmFrameFlyweight().wrap(buffer, 0, shorter).validate());
    }

    @Property
    void wrongVersionIsRejected(@ForAll byte version) {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        AmFrameFlyweight.encodeHeader(buffer, 0, AmFrameFlyweight.CATEGORY_SHORT, 200, 0, 0, 0, 0);
        buffer.putByte(AmFrameFlyweight.VERSION_OFFSET, version);
        final String why = new AmFrameFlyweight().wrap(buffer, 0, 64).validate();
        assertEquals(version == AmFrameFlyweight.VERSION, why == null);
    }
}
