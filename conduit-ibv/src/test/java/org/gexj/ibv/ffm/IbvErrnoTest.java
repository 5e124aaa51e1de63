package org.gexj.ibv.ffm;

import org.gexj.ibv.IbvException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The control path's exception: the call, the C library's text for the errno, and the number. */
class IbvErrnoTest {
    @Test
    void anErrnoIsNamedWithItsText() {
        final IbvException e = Errno.failure("ibv_create_qp", Errno.ENOMEM);
        assertEquals("ibv_create_qp: Cannot allocate memory (errno 12)", e.getMessage());
        assertEquals("ibv_create_qp", e.call());
        assertEquals(12, e.errno());
        assertEquals("ibv_modify_qp(RTR): Invalid argument (errno 22)",
            Errno.failure("ibv_modify_qp(RTR)", Errno.EINVAL).getMessage());
        assertEquals("ibv_reg_mr: failed without an errno (errno 0)", Errno.failure("ibv_reg_mr", 0).getMessage());
    }
}
