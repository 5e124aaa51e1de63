package org.gexj;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigTest {
    @Test
    void sizesAcceptBinarySuffixes() {
        assertEquals(123, Config.parseSize("123"));
        assertEquals(64 << 10, Config.parseSize("64K"));
        assertEquals(16L << 20, Config.parseSize("16m"));
        assertEquals(2L << 30, Config.parseSize("2GB"));
    }

    @Test
    void rangeViolationsNameTheVariableTheValueAndTheRange() {
        final Config c = Config.of(Map.of("GEX_X", "5M", "GEX_BAD", "lots", "GEX_B", "maybe"));
        final IllegalArgumentException range = assertThrows(IllegalArgumentException.class,
            () -> c.getLong("GEX_X", 1, 0, 1024));
        assertTrue(range.getMessage().contains("GEX_X=5242880") && range.getMessage().contains("[0, 1024]"),
            range.getMessage());
        final IllegalArgumentException nan = assertThrows(IllegalArgumentException.class,
            () -> c.getInt("GEX_BAD", 1, 0, 10));
        assertTrue(nan.getMessage().contains("GEX_BAD=lots"), nan.getMessage());
        assertThrows(IllegalArgumentException.class, () -> c.getBoolean("GEX_B", true));
    }

    @Test
    void overridesWinAndDefaultsApply() {
        final Config c = Config.of(Map.of("GEX_ON", "yes", "GEX_OFF", "0")).with("GEX_N", "7");
        assertTrue(c.getBoolean("GEX_ON", false));
        assertFalse(c.getBoolean("GEX_OFF", true));
        assertTrue(c.getBoolean("GEX_UNSET_FOR_TEST", true));
        assertEquals(7, c.getInt("GEX_N", 1, 0, 10));
        assertEquals("d", c.get("GEX_UNSET_FOR_TEST", "d"));
        assertThrows(IllegalArgumentException.class, () -> c.require("GEX_UNSET_FOR_TEST"));
    }
}
