package org.gexj.internal;

import org.gexj.Config;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code GEX_WAIT}: the default, a setting taken as given, and every bad value named with its allowed range. */
class WaitSettingsTest {

    @Test
    void defaultSpinsThenYieldsThenParksFrom10UsTo1Ms() {
        assertEquals(new WaitSettings(1000, 20_000, 10_000, 1_000_000), WaitSettings.of(Config.of(Map.of())));
    }

    @Test
    void aSettingIsTakenAsGivenWithParkTimesInMicroseconds() {
        final WaitSettings w = WaitSettings.of(Config.of(Map.of("GEX_WAIT", "50000, 0, 5, 200")));
        assertEquals(new WaitSettings(50_000, 0, 5_000, 200_000), w);
        assertEquals(new WaitSettings(0, 0, 1_000, 1_000), WaitSettings.parse("0,0,1,1"));
    }

    @Test
    void badValuesAreNamedWithTheAllowedRange() {
        assertMessage("GEX_WAIT=1,2,3: expected SPINS,YIELDS,PARK_MIN_US,PARK_MAX_US", "1,2,3");
        assertMessage("'x' is not a number", "1,x,3,4");
        assertMessage("SPINS -1 outside [0, 1000000000]", "-1,0,10,100");
        assertMessage("YIELDS 2000000000 outside [0, 1000000000]", "0,2000000000,10,100");
        assertMessage("PARK_MAX_US 0 outside [1, 1000000]", "0,0,0,0");
        assertMessage("PARK_MIN_US 200 outside [1, 100]", "0,0,200,100");
    }

    private static void assertMessage(String part, String value) {
        final IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> WaitSettings.parse(value));
        assertTrue(e.getMessage().contains(part), e.getMessage());
        assertTrue(e.getMessage().startsWith("GEX_WAIT=" + value), e.getMessage());
    }
}
