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

/**
 * {@code <rdma/fi_domain.h>}: {@code fid_domain} and its ops ({@code fi_av_open}, {@code fi_cq_open},
 * {@code fi_endpoint}), memory registration ({@code fi_mr_reg}, {@code fi_mr_desc}, {@code fi_mr_key},
 * {@code fi_mr_bind}, {@code fi_mr_enable}) and the address vector ({@code fi_av_insert}). All of them are
 * {@code static inline} calls through ops tables.
 */
public final class FiDomain {
    public static final StructLayout FID_DOMAIN = MemoryLayout.structLayout(
        Fabric.FID.withName("fid"), ADDRESS.withName("ops"), ADDRESS.withName("mr")).withName("fid_domain");

    public static final StructLayout FI_OPS_DOMAIN = MemoryLayout.structLayout(
        JAVA_LONG.withName("size"), ADDRESS.withName("av_open"), ADDRESS.withName("cq_open"),
        ADDRESS.withName("endpoint"), ADDRESS.withName("scalable_ep"), ADDRESS.withName("cntr_open"),
        ADDRESS.withName("poll_open"), ADDRESS.withName("stx_ctx"), ADDRESS.withName("srx_ctx"),
        ADDRESS.withName("query_atomic"), ADDRESS.withName("query_collective"), ADDRESS.withName("endpoint2"))
        .withName("fi_ops_domain");

    public static final StructLayout FI_OPS_MR = MemoryLayout.structLayout(
        JAVA_LONG.withName("size"), ADDRESS.withName("reg"), ADDRESS.withName("regv"), ADDRESS.withName("regattr"))
        .withName("fi_ops_mr");

    public static final StructLayout FID_MR = MemoryLayout.structLayout(
        Fabric.FID.withName("fid"), ADDRESS.withName("mem_desc"), JAVA_LONG.withName("key")).withName("fid_mr");

    public static final StructLayout FID_AV = MemoryLayout.structLayout(
        Fabric.FID.withName("fid"), ADDRESS.withName("ops")).withName("fid_av");

    public static final StructLayout FI_OPS_AV = MemoryLayout.structLayout(
        JAVA_LONG.withName("size"), ADDRESS.withName("insert"), ADDRESS.withName("insertsvc"),
        ADDRESS.withName("insertsym"), ADDRESS.withName("remove"), ADDRESS.withName("lookup"),
        ADDRESS.withName("straddr"), ADDRESS.withName("av_set")).withName("fi_ops_av");

    public static final StructLayout FI_AV_ATTR = MemoryLayout.structLayout(
        JAVA_INT.withName("type"), JAVA_INT.withName("rx_ctx_bits"), JAVA_LONG.withName("count"),
        JAVA_LONG.withName("ep_per_node"), ADDRESS.withName("name"), ADDRESS.withName("map_addr"),
        JAVA_LONG.withName("flags")).withName("fi_av_attr");

    static final long DOMAIN_OPS = Fabric.offset(FID_DOMAIN, "ops");
    static final long DOMAIN_MR = Fabric.offset(FID_DOMAIN, "mr");
    static final long OPS_AV_OPEN = Fabric.offset(FI_OPS_DOMAIN, "av_open");
    static final long OPS_CQ_OPEN = Fabric.offset(FI_OPS_DOMAIN, "cq_open");
    static final long OPS_ENDPOINT = Fabric.offset(FI_OPS_DOMAIN, "endpoint");
    static final long OPS_MR_REG = Fabric.offset(FI_OPS_MR, "reg");
    public static final long MR_DESC = Fabric.offset(FID_MR, "mem_desc");
    public static final long MR_KEY = Fabric.offset(FID_MR, "key");
    static final long AV_OPS = Fabric.offset(FID_AV, "ops");
    static final long OPS_AV_INSERT = Fabric.offset(FI_OPS_AV, "insert");
    public static final long AV_ATTR_TYPE = Fabric.offset(FI_AV_ATTR, "type");
    public static final long AV_ATTR_COUNT = Fabric.offset(FI_AV_ATTR, "count");

    /** {@code uint64_t} access flags of {@code fi_mr_reg}. */
    public static final long FI_MR_ACCESS_ALL = Fabric.FI_SEND | Fabric.FI_RECV | Fabric.FI_READ | Fabric.FI_WRITE
        | Fabric.FI_REMOTE_READ | Fabric.FI_REMOTE_WRITE;

    private static final MethodHandle OPEN = Fabric.pointer(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
        ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle MR_REG = Fabric.pointer(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
        ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS));
    private static final MethodHandle AV_INSERT = Fabric.pointer(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
        ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS));

    private FiDomain() {
    }

    /** {@code fi_av_open(domain, attr, &av, NULL)}. */
    public static MemorySegment openAv(MemorySegment domain, MemorySegment attr) {
        return open(domain, OPS_AV_OPEN, attr, "fi_av_open", FID_AV.byteSize());
    }

    /** {@code fi_av_open} of an AV of {@code type} for {@code count} addresses. */
    public static MemorySegment openAv(MemorySegment domain, int type, long count) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(FI_AV_ATTR);
            attr.set(JAVA_INT, AV_ATTR_TYPE, type);
            attr.set(JAVA_LONG, AV_ATTR_COUNT, count);
            return openAv(domain, attr);
        }
    }

    /** {@code fi_cq_open} of a CQ of {@code size} entries of {@code format}, waiting with {@code waitObject}. */
    public static MemorySegment openCq(MemorySegment domain, long size, int format, int waitObject) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(FiEq.FI_CQ_ATTR);
            attr.set(JAVA_LONG, FiEq.CQ_ATTR_SIZE, size);
            attr.set(JAVA_INT, FiEq.CQ_ATTR_FORMAT, format);
            attr.set(JAVA_INT, FiEq.CQ_ATTR_WAIT_OBJ, waitObject);
            return openCq(domain, attr);
        }
    }

    /** {@code fi_cq_open(domain, attr, &cq, NULL)}. */
    public static MemorySegment openCq(MemorySegment domain, MemorySegment attr) {
        return open(domain, OPS_CQ_OPEN, attr, "fi_cq_open", FiEq.FID_CQ.byteSize());
    }

    /** {@code fi_endpoint(domain, info, &ep, NULL)}. */
    public static MemorySegment openEndpoint(MemorySegment domain, MemorySegment info) {
        return open(domain, OPS_ENDPOINT, info, "fi_endpoint", FiEndpoint.FID_EP.byteSize());
    }

    private static MemorySegment open(MemorySegment domain, long function, MemorySegment attr, String call,
                                      long size) {
        final MemorySegment fn = Fabric.function(domain, DOMAIN_OPS, function);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment out = arena.allocate(ADDRESS);
            FiErrno.check(call, (int) OPEN.invokeExact(fn, domain, attr, out, MemorySegment.NULL));
            return Fabric.deref(out).reinterpret(size);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw FiErrno.unexpected(call, t);
        }
    }

    /**
     * {@code fi_mr_reg(domain, buf, len, access, 0, requestedKey, 0, &mr, NULL)}.
     *
     * @return the {@code fid_mr}; its descriptor and key are at {@link #MR_DESC} and {@link #MR_KEY}
     */
    public static MemorySegment registerMemory(MemorySegment domain, MemorySegment memory, long access,
                                               long requestedKey) {
        final MemorySegment fn = Fabric.function(domain, DOMAIN_MR, OPS_MR_REG);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment out = arena.allocate(ADDRESS);
            FiErrno.check("fi_mr_reg", (int) MR_REG.invokeExact(fn, domain, memory, memory.byteSize(), access, 0L,
                requestedKey, 0L, out, MemorySegment.NULL));
            return Fabric.deref(out).reinterpret(FID_MR.byteSize());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_mr_reg", t);
        }
    }

    /** {@code fi_mr_desc(mr)}: the local descriptor a data-path call passes with a registered buffer. */
    public static MemorySegment descriptor(MemorySegment mr) {
        return mr.get(ADDRESS, MR_DESC);
    }

    /** {@code fi_mr_key(mr)}: the key a peer's RMA names this memory with. */
    public static long key(MemorySegment mr) {
        return mr.get(JAVA_LONG, MR_KEY);
    }

    /**
     * {@code fi_av_insert(av, addr, 1, &fiAddr, 0, NULL)}: one endpoint name.
     *
     * @return its {@code fi_addr_t}
     */
    public static long insertAddress(MemorySegment av, MemorySegment name) {
        final MemorySegment fn = Fabric.function(av, AV_OPS, OPS_AV_INSERT);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment out = arena.allocate(JAVA_LONG);
            final int inserted = (int) AV_INSERT.invokeExact(fn, av, name, 1L, out, 0L, MemorySegment.NULL);
            FiErrno.check("fi_av_insert", inserted);
            if (inserted != 1) {
                throw new org.gexj.ofi.OfiException("fi_av_insert", -FiErrno.FI_EINVAL,
                    "inserted " + inserted + " of 1 address");
            }
            return out.get(JAVA_LONG, 0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw FiErrno.unexpected("fi_av_insert", t);
        }
    }
}
