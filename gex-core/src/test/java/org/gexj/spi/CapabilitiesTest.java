package org.gexj.spi;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The packed-Long default: 4096 unless the conduit says otherwise, never above what a frame packs. */
class CapabilitiesTest {
    @Test
    void packedLongDefaultIs4096OrTheLimitIfSmallerUnlessSet() {
        assertEquals(4096, Capabilities.builder("c").maxFrameLength(1 << 16).maxPackedLong(1 << 16).build()
            .packedLongDefault());
        assertEquals(2000, Capabilities.builder("c").maxFrameLength(2048).maxPackedLong(2000).build()
            .packedLongDefault());
        assertEquals(1 << 16, Capabilities.builder("c").maxFrameLength(1 << 16).maxPackedLong(1 << 16)
            .packedLongDefault(1 << 16).build().packedLongDefault());
    }

    @Test
    void aPackedLongDefaultAboveTheLimitIsRefusedNamingBoth() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Capabilities.builder("c").maxFrameLength(8192).maxPackedLong(8192).packedLongDefault(8193).build());
        assertTrue(e.getMessage().contains("8193") && e.getMessage().contains("[0, 8192]"), e.getMessage());
    }
}
