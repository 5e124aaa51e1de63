package org.gexj.coll;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The engine's defaults that depend on the host. */
class CollEngineDefaultsTest {
    @Test
    void reductionsAreReadInPlaceOnlyWhileEveryRankHasACore() {
        assertEquals(1024, CollEngine.defaultInPlaceMin(2, 2));
        assertEquals(1024, CollEngine.defaultInPlaceMin(4, 64));
        assertEquals(Integer.MAX_VALUE, CollEngine.defaultInPlaceMin(3, 2), "3 ranks on 2 cores");
        assertEquals(Integer.MAX_VALUE, CollEngine.defaultInPlaceMin(5, 4));
    }
}
