package org.gexj.internal;

import org.gexj.Config;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code GEX_WAIT_*}: the defaults, settings taken as given, and every bad value named with its allowed range. */
class WaitSettingsTest {

    @Test
    void defaultSpinsThenYieldsThenParksFrom10UsTo1Ms() {
        assertEquals(new WaitSettings(1000, 20_000, 10_000, 1_000_000), WaitSettings.of(Config.of(Map.of())));
    }

    /** It spins for them instead, so that it polls about as long before parking as a conduit that yields. */
    @Test
    void aConduitThatGainsNothingFromYieldsSpinsForThemUnlessTheyAreGiven() {
        assertEquals(new WaitSettings(21_000, 0, 10_000, 1_000_000), WaitSettings.of(Config.of(Map.of()), false));
        assertEquals(new WaitSettings(21_000, 7, 10_000, 1_000_000),
            WaitSettings.of(Config.of(Map.of("GEX_WAIT_YIELDS", "7")), false));
        assertEquals(new WaitSettings(300, 0, 10_000, 1_000_000),
            WaitSettings.of(Config.of(Map.of("GEX_WAIT_SPINS", "300")), false));
        assertEquals(new WaitSettings(1000, 20_000, 10_000, 1_000_000), WaitSettings.of(Config.of(Map.of()), true));
    }

    /** Also where the conduit gains nothing from yields: a park per wait cost a wake-up each (4 ofi ranks). */
    @Test
    void ranksSharingCoresYieldWithoutSpinningUnlessSpinsAreGiven() {
        assertEquals(new WaitSettings(0, 20_000, 10_000, 1_000_000), WaitSettings.of(Config.of(Map.of()), false, true),
            "a conduit that does not yield still yields where ranks share the cores");
        assertEquals(new WaitSettings(0, 5, 10_000, 1_000_000),
            WaitSettings.of(Config.of(Map.of("GEX_WAIT_YIELDS", "5")), false, true));
        assertEquals(new WaitSettings(0, 20_000, 10_000, 1_000_000), WaitSettings.of(Config.of(Map.of()), true, true));
        assertEquals(new WaitSettings(30, 20_000, 10_000, 1_000_000),
            WaitSettings.of(Config.of(Map.of("GEX_WAIT_SPINS", "30")), true, true));
        assertEquals(new WaitSettings(1000, 20_000, 10_000, 1_000_000), WaitSettings.of(Config.of(Map.of()), true,
            false));
    }

    @Test
    void settingsAreTakenAsGivenWithParkTimesInMicroseconds() {
        assertEquals(new WaitSettings(50_000, 0, 5_000, 200_000), WaitSettings.of(Config.of(Map.of("GEX_WAIT_SPINS",
            "50000", "GEX_WAIT_YIELDS", "0", "GEX_WAIT_PARK_US", "5", "GEX_WAIT_PARK_MAX_US", "200"))));
        assertEquals(new WaitSettings(1000, 20_000, 5_000, 5_000),
            WaitSettings.of(Config.of(Map.of("GEX_WAIT_PARK_MAX_US", "5"))), "the first park is at most the longest");
    }

    @Test
    void badValuesAreNamedWithTheAllowedRange() {
        assertMessage("GEX_WAIT_SPINS=-1 outside [0, 1000000000]", Map.of("GEX_WAIT_SPINS", "-1"));
        assertMessage("GEX_WAIT_YIELDS=x is not a number", Map.of("GEX_WAIT_YIELDS", "x"));
        assertMessage("GEX_WAIT_PARK_MAX_US=0 outside [1, 1000000]", Map.of("GEX_WAIT_PARK_MAX_US", "0"));
        assertMessage("GEX_WAIT_PARK_US=200 outside [1, 100]",
            Map.of("GEX_WAIT_PARK_US", "200", "GEX_WAIT_PARK_MAX_US", "100"));
    }

    private static void assertMessage(String part, Map<String, String> settings) {
        final IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> WaitSettings.of(Config.of(settings)));
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }
}
