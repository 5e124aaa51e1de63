package org.gexj.ibv;

import org.gexj.Config;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The {@code GEX_IBV_*} settings of the data path: defaults, and each bad value named with the allowed range. */
class IbvConduitSettingsTest {
    private static IbvConduitSettings read(Map<String, String> values) {
        return IbvConduitSettings.from(Config.of(values));
    }

    private static String refused(Map<String, String> values) {
        return assertThrows(IllegalArgumentException.class, () -> read(values)).getMessage();
    }

    @Test
    void defaultsAreOnDemandWith32MessageCredits() {
        final IbvConduitSettings s = read(Map.of(IbvConduitSettings.CONNECT, "", IbvConduitSettings.CREDITS, ""));
        assertEquals("ondemand", s.connect());
        assertEquals(false, s.connectsStatically());
        assertEquals(32, s.credits());
        assertEquals(16 << 10, s.frameLength());
        assertEquals(64, s.maxInline());
        assertEquals(30_000_000_000L, s.timeoutNanos());
        assertEquals(false, s.peerKeys());
    }

    @Test
    void peerKeysAreOffUnlessAskedFor() {
        assertEquals(true, read(Map.of("GEX_IBV_PEER_KEYS", "ON")).peerKeys());
        assertEquals(false, read(Map.of("GEX_IBV_PEER_KEYS", "off")).peerKeys());
        assertEquals("GEX_IBV_PEER_KEYS=yes is not one of: off, on", refused(Map.of("GEX_IBV_PEER_KEYS", "yes")));
    }

    @Test
    void valuesInRangeAreTaken() {
        final IbvConduitSettings s = read(Map.of(IbvConduitSettings.CONNECT, "STATIC", IbvConduitSettings.CREDITS,
            "2", IbvConduitSettings.FRAME, "4K", IbvConduitSettings.INLINE, "16", IbvConduitSettings.TIMEOUT, "5"));
        assertEquals("static", s.connect());
        assertEquals(true, s.connectsStatically());
        assertEquals(2, s.credits());
        assertEquals(4096, s.frameLength());
        assertEquals(16, s.maxInline());
        assertEquals(5_000_000_000L, s.timeoutNanos());
    }

    @Test
    void anUnknownConnectModeIsNamedWithTheChoices() {
        assertEquals("ondemand", read(Map.of("GEX_IBV_CONNECT", "OnDemand")).connect());
        assertEquals("GEX_IBV_CONNECT=udqp is not one of: ondemand, static",
            refused(Map.of("GEX_IBV_CONNECT", "udqp")));
    }

    @Test
    void badCreditsAreNamedWithTheRange() {
        assertEquals("GEX_IBV_CREDITS=1 outside [2, 4096]", refused(Map.of("GEX_IBV_CREDITS", "1")));
        assertEquals("GEX_IBV_CREDITS=4097 outside [2, 4096]", refused(Map.of("GEX_IBV_CREDITS", "4097")));
        assertEquals("GEX_IBV_CREDITS=many is not a number (suffixes K, M, G allowed); range [2, 4096]",
            refused(Map.of("GEX_IBV_CREDITS", "many")));
    }

    @Test
    void otherBadValuesAreNamedWithTheirRanges() {
        assertEquals("GEX_IBV_INLINE=8 outside [16, 1024]", refused(Map.of("GEX_IBV_INLINE", "8")));
        assertEquals("GEX_IBV_FRAME=512 outside [1024, 1048576]", refused(Map.of("GEX_IBV_FRAME", "512")));
        assertEquals("GEX_IBV_TIMEOUT=0 outside [1, 3600]", refused(Map.of("GEX_IBV_TIMEOUT", "0")));
        assertEquals("GEX_IBV_RMA_OPS=3 outside [4, 65536]", refused(Map.of("GEX_IBV_RMA_OPS", "3")));
        assertEquals("GEX_IBV_SEND_BUFFERS=3 outside [4, 65536]", refused(Map.of("GEX_IBV_SEND_BUFFERS", "3")));
    }
}
