package org.gexj.ofi.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** {@code <rdma/fi_cm.h>}: {@code fi_getname}, through the endpoint's {@code cm} ops. */
public final class FiCm {
    public static final StructLayout FI_OPS_CM = MemoryLayout.structLayout(
        JAVA_LONG.withName("size"), ADDRESS.withName("setname"), ADDRESS.withName("getname"),
        ADDRESS.withName("getpeer"), ADDRESS.withName("connect"), ADDRESS.withName("listen"),
        ADDRESS.withName("accept"), ADDRESS.withName("reject"), ADDRESS.withName("shutdown"),
        ADDRESS.withName("join")).withName("fi_ops_cm");

    private static final MethodHandle GETNAME = Fabric.pointer(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
        ADDRESS, ADDRESS));

    private FiCm() {
    }

    /** {@code fi_getname(&ep->fid, addr, &len)}: the endpoint's address, as the peers insert it in their AV. */
    public static byte[] getName(MemorySegment ep) {
        final MemorySegment fn = Fabric.function(ep, Fabric.offset(FiEndpoint.FID_EP, "cm"),
            Fabric.offset(FI_OPS_CM, "getname"));
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment length = arena.allocate(JAVA_LONG);
            MemorySegment name = arena.allocate(256);
            length.set(JAVA_LONG, 0, name.byteSize());
            int rc = (int) GETNAME.invokeExact(fn, ep, name, length);
            if (rc == -FiErrno.FI_ETRUNC) {
                name = arena.allocate(length.get(JAVA_LONG, 0));
                rc = (int) GETNAME.invokeExact(fn, ep, name, length);
            }
            FiErrno.check("fi_getname", rc);
            return name.asSlice(0, length.get(JAVA_LONG, 0)).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_getname", t);
        }
    }
}
