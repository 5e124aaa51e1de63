package org.gexj.testkit.emu;

import org.junit.jupiter.api.Test;
import java.util.List;

class ScratchLongTest {
    @Test
    void one() throws Exception {
        var m = AmLongEngineProperties.class.getDeclaredMethod("run", Class.forName("org.gexj.testkit.emu.AmLongEngineProperties$Schedule"));
        m.setAccessible(true);
        var ctor = Class.forName("org.gexj.testkit.emu.AmLongEngineProperties$Schedule").getDeclaredConstructors()[0];
        var msgCtor = Class.forName("org.gexj.testkit.emu.AmLongEngineProperties$Msg").getDeclaredConstructors()[0];
        ctor.setAccessible(true); msgCtor.setAccessible(true);
        Object msg = msgCtor.newInstance(0, 1, 111, 8, true);
        Object s = ctor.newInstance(1L, 2, "reassembly", false, List.of(msg));
        m.invoke(null, s);
    }
}
