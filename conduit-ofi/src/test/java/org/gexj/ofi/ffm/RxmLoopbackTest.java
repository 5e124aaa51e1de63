package org.gexj.ofi.ffm;

import org.gexj.ofi.OfiException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The bindings of org.gexj.ofi.ffm driving real libfabric objects in-process, without the conduit: one tcp;ofi_rxm
 * domain, a CQ per endpoint, one AV, two RDM endpoints that message and RMA each other over loopback. Progress is
 * manual: every wait reads both CQs, and is bounded so that a broken binding fails instead of hanging.
 */
class RxmLoopbackTest {
    private static final long TIMEOUT_NANOS = 10_000_000_000L;
    // enum fi_fclass (fabric.h 1.17)
    private static final long FI_CLASS_FABRIC = 1;
    private static final long FI_CLASS_DOMAIN = 2;
    private static final long FI_CLASS_EP = 3;
    private static final long FI_CLASS_AV = 11;
    private static final long FI_CLASS_MR = 12;
    private static final long FI_CLASS_CQ = 14;
    private static final int BUFFER = 4096;
    private static final long MIN_MULTI_RECV = 1024;
    private static final long CQ_DATA = 0xcafebabe12345678L;

    @BeforeAll
    static void libraryLoads() {
        assertNull(Fabric.loadFailure(), "libfabric.so.1 did not load");
    }

    /** One CQ entry as FI_CQ_FORMAT_DATA gives it. */
    record Completion(long context, long flags, long len, long buf, long data) {
        boolean has(long bits) {
            return (flags & bits) == bits;
        }
    }

    /** One error entry (fi_cq_readerr). */
    record Failure(long context, long flags, int err, int providerErrno, String text) {
    }

    /** An endpoint with its own CQ and what has been read from that CQ, not yet claimed by a check. */
    static final class Side {
        final String name;
        final MemorySegment cq;
        final MemorySegment ep;
        MemorySegment cqRead;
        final List<Completion> completions = new ArrayList<>();
        final List<Failure> failures = new ArrayList<>();

        Side(String name, MemorySegment cq, MemorySegment ep) {
            this.name = name;
            this.cq = cq;
            this.ep = ep;
        }

        void poll(MemorySegment entries, MemorySegment errorEntry) {
            final long n = FiEq.read(cqRead, cq, entries, entries.byteSize() / FiEq.FI_CQ_DATA_ENTRY.byteSize());
            if (n == -FiErrno.FI_EAVAIL) {
                assertEquals(1, FiEq.readError(cq, errorEntry), name + ": fi_cq_readerr after -FI_EAVAIL");
                failures.add(new Failure(errorEntry.get(JAVA_LONG, FiEq.ERR_OP_CONTEXT),
                    errorEntry.get(JAVA_LONG, FiEq.ERR_FLAGS), errorEntry.get(JAVA_INT, FiEq.ERR_ERR),
                    errorEntry.get(JAVA_INT, FiEq.ERR_PROV_ERRNO), FiEq.strerror(cq, errorEntry)));
                return;
            }
            if (n == -FiErrno.FI_EAGAIN) {
                return;
            }
            assertTrue(n > 0, name + ": fi_cq_read returned " + n + " (" + FiErrno.strerror((int) n) + ")");
            for (int i = 0; i < n; i++) {
                final long at = i * FiEq.FI_CQ_DATA_ENTRY.byteSize();
                completions.add(new Completion(entries.get(JAVA_LONG, at + FiEq.ENTRY_OP_CONTEXT),
                    entries.get(JAVA_LONG, at + FiEq.ENTRY_FLAGS), entries.get(JAVA_LONG, at + FiEq.ENTRY_LEN),
                    entries.get(JAVA_LONG, at + FiEq.ENTRY_BUF), entries.get(JAVA_LONG, at + FiEq.ENTRY_DATA)));
            }
        }

        @Override
        public String toString() {
            return name + " " + completions + " " + failures;
        }
    }

    /** Everything opened for one test, closed newest first. */
    static final class Loopback implements AutoCloseable {
        final Arena arena = Arena.ofConfined();
        MemorySegment info;
        int mrMode;
        MemorySegment fabric;
        MemorySegment domain;
        MemorySegment av;
        Side a;
        Side b;
        long addrA;
        long addrB;
        final MemorySegment entries = arena.allocate(FiEq.FI_CQ_DATA_ENTRY.byteSize() * 8, 8);
        final MemorySegment errorEntry = arena.allocate(FiEq.FI_CQ_ERR_ENTRY);
        /** 64-byte operation contexts: the modes we offered include FI_CONTEXT2. */
        final MemorySegment contexts = arena.allocate(64 * 32, 64);
        private final List<Runnable> closers = new ArrayList<>();
        private long nextKey = 0x6e0;

        Loopback() {
            try {
                open();
            } catch (RuntimeException | Error e) {
                close();
                throw e;
            }
        }

        private void open() {
            info = FabricTestSupport.loopbackInfo(FabricTestSupport.PROVIDER);
            closers.add(() -> Fabric.freeInfo(info));
            mrMode = Fabric.attr(info, Fabric.INFO_DOMAIN_ATTR, Fabric.FI_DOMAIN_ATTR).get(JAVA_INT,
                Fabric.DOMAIN_MR_MODE);
            fabric = Fabric.openFabric(Fabric.attr(info, Fabric.INFO_FABRIC_ATTR, Fabric.FI_FABRIC_ATTR));
            closers.add(() -> Fabric.close(fabric, "fabric"));
            domain = Fabric.openDomain(fabric, info);
            closers.add(() -> Fabric.close(domain, "domain"));
            final MemorySegment cqA = openCq();
            final MemorySegment cqB = openCq();
            final MemorySegment avAttr = arena.allocate(FiDomain.FI_AV_ATTR);
            avAttr.set(JAVA_INT, FiDomain.AV_ATTR_TYPE, Fabric.FI_AV_TABLE);
            avAttr.set(JAVA_LONG, FiDomain.AV_ATTR_COUNT, 8);
            av = FiDomain.openAv(domain, avAttr);
            closers.add(() -> Fabric.close(av, "av"));
            a = new Side("A", cqA, openEndpoint(cqA));
            b = new Side("B", cqB, openEndpoint(cqB));
            // the provider may swap ops when an object is bound or enabled: read the pointers now
            a.cqRead = FiEq.readFunction(cqA);
            b.cqRead = FiEq.readFunction(cqB);
            final byte[] nameA = FiCm.getName(a.ep);
            final byte[] nameB = FiCm.getName(b.ep);
            assertTrue(nameA.length > 0, "fi_getname gave an empty name");
            assertFalse(Arrays.equals(nameA, nameB), "two endpoints, one name");
            // an AV table numbers its entries in insertion order
            addrA = FiDomain.insertAddress(av, arena.allocateFrom(JAVA_BYTE, nameA));
            addrB = FiDomain.insertAddress(av, arena.allocateFrom(JAVA_BYTE, nameB));
            assertEquals(0, addrA, "first fi_addr of an FI_AV_TABLE");
            assertEquals(1, addrB, "second fi_addr of an FI_AV_TABLE");
        }

        private MemorySegment openCq() {
            final MemorySegment attr = arena.allocate(FiEq.FI_CQ_ATTR);
            attr.set(JAVA_LONG, FiEq.CQ_ATTR_SIZE, 64);
            attr.set(JAVA_INT, FiEq.CQ_ATTR_FORMAT, FiEq.FI_CQ_FORMAT_DATA);
            attr.set(JAVA_INT, FiEq.CQ_ATTR_WAIT_OBJ, FiEq.FI_WAIT_NONE);
            final MemorySegment cq = FiDomain.openCq(domain, attr);
            closers.add(() -> Fabric.close(cq, "cq"));
            return cq;
        }

        private MemorySegment openEndpoint(MemorySegment cq) {
            final MemorySegment ep = FiDomain.openEndpoint(domain, info);
            closers.add(() -> Fabric.close(ep, "endpoint"));
            FiEndpoint.bind(ep, cq, Fabric.FI_TRANSMIT | Fabric.FI_RECV);
            FiEndpoint.bind(ep, av, 0);
            FiEndpoint.enable(ep);
            FiEndpoint.setSizeOption(ep, FiEndpoint.FI_OPT_ENDPOINT, FiEndpoint.FI_OPT_MIN_MULTI_RECV, MIN_MULTI_RECV,
                "FI_OPT_MIN_MULTI_RECV");
            return ep;
        }

        /** Page-aligned memory, registered for every access with a key of our choosing. */
        MemorySegment register(MemorySegment memory) {
            final long requested = nextKey++;
            final MemorySegment mr = FiDomain.registerMemory(domain, memory, FiDomain.FI_MR_ACCESS_ALL, requested);
            closers.add(() -> Fabric.close(mr, "mr"));
            assertEquals(FI_CLASS_MR, mr.get(JAVA_LONG, 0), "fid_mr.fid.fclass");
            if ((mrMode & Fabric.FI_MR_PROV_KEY) == 0) {
                assertEquals(requested, FiDomain.key(mr), "fi_mr_key: the key we asked for");
            }
            return mr;
        }

        long context(int i) {
            return contexts.address() + 64L * i;
        }

        /** The remote address of {@code offset} into registered {@code memory}, as the registration mode wants it. */
        long remote(MemorySegment memory, long offset) {
            return ((mrMode & Fabric.FI_MR_VIRT_ADDR) != 0 ? memory.address() : 0) + offset;
        }

        void progress() {
            a.poll(entries, errorEntry);
            b.poll(entries, errorEntry);
        }

        void await(BooleanSupplier condition, String what) {
            final long deadline = System.nanoTime() + TIMEOUT_NANOS;
            while (!condition.getAsBoolean()) {
                if (System.nanoTime() - deadline > 0) {
                    fail("timed out waiting for " + what + "; read so far: " + a + "; " + b);
                }
                progress();
            }
        }

        /** Submits until the provider takes it: -FI_EAGAIN means "progress and retry" under manual progress. */
        void submit(LongSupplier call, String what) {
            final long deadline = System.nanoTime() + TIMEOUT_NANOS;
            long rc;
            while ((rc = call.getAsLong()) == -FiErrno.FI_EAGAIN) {
                if (System.nanoTime() - deadline > 0) {
                    fail(what + " stayed -FI_EAGAIN; read so far: " + a + "; " + b);
                }
                progress();
            }
            assertEquals(0, rc, what + ": " + FiErrno.strerror((int) rc));
        }

        /** Waits for and removes the first completion of {@code side} that matches. */
        Completion take(Side side, Predicate<Completion> match, String what) {
            final Completion[] found = new Completion[1];
            await(() -> {
                for (int i = 0; i < side.completions.size(); i++) {
                    if (match.test(side.completions.get(i))) {
                        found[0] = side.completions.remove(i);
                        return true;
                    }
                }
                return false;
            }, side.name + ": " + what);
            return found[0];
        }

        Failure takeFailure(Side side, long context, String what) {
            final Failure[] found = new Failure[1];
            await(() -> {
                for (int i = 0; i < side.failures.size(); i++) {
                    if (side.failures.get(i).context() == context) {
                        found[0] = side.failures.remove(i);
                        return true;
                    }
                }
                return false;
            }, side.name + ": " + what);
            return found[0];
        }

        /** Closes newest first. @return the failures */
        List<Throwable> closeAll() {
            final List<Throwable> failures = new ArrayList<>();
            for (int i = closers.size() - 1; i >= 0; i--) {
                try {
                    closers.get(i).run();
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }
            closers.clear();
            return failures;
        }

        @Override
        public void close() {
            closeAll();
            arena.close();
        }
    }

    @Test
    void objectsAreWhatOurLayoutsSayTheyAre() {
        try (Loopback l = new Loopback()) {
            // each object's fclass, and each ops table's size field: providers fill it with sizeof(struct fi_ops_*),
            // the size of our layout of that table
            final List<Executable> checks = new ArrayList<>();
            checks.add(() -> assertEquals(FI_CLASS_FABRIC, l.fabric.get(JAVA_LONG, 0), "fabric fclass"));
            checks.add(() -> assertEquals(FI_CLASS_DOMAIN, l.domain.get(JAVA_LONG, 0), "domain fclass"));
            checks.add(() -> assertEquals(FI_CLASS_AV, l.av.get(JAVA_LONG, 0), "av fclass"));
            checks.add(() -> assertEquals(FI_CLASS_CQ, l.a.cq.get(JAVA_LONG, 0), "cq fclass"));
            checks.add(() -> assertEquals(FI_CLASS_EP, l.a.ep.get(JAVA_LONG, 0), "ep fclass"));
            for (MemorySegment fid : List.of(l.fabric, l.domain, l.av, l.a.cq, l.a.ep)) {
                checks.add(() -> assertEquals(Fabric.FI_OPS.byteSize(),
                    opsSize(fid, Fabric.offset(Fabric.FID, "ops")), "fi_ops of fclass " + fid.get(JAVA_LONG, 0)));
            }
            checks.add(() -> assertEquals(Fabric.FI_OPS_FABRIC.byteSize(),
                opsSize(l.fabric, Fabric.offset(Fabric.FID_FABRIC, "ops")), "fi_ops_fabric"));
            checks.add(() -> assertEquals(
                Fabric.attr(l.info, Fabric.INFO_FABRIC_ATTR, Fabric.FI_FABRIC_ATTR).get(JAVA_INT,
                    Fabric.offset(Fabric.FI_FABRIC_ATTR, "api_version")),
                l.fabric.get(JAVA_INT, Fabric.offset(Fabric.FID_FABRIC, "api_version")), "fid_fabric.api_version"));
            checks.add(() -> assertEquals(FiDomain.FI_OPS_DOMAIN.byteSize(),
                opsSize(l.domain, Fabric.offset(FiDomain.FID_DOMAIN, "ops")), "fi_ops_domain"));
            checks.add(() -> assertEquals(FiDomain.FI_OPS_MR.byteSize(),
                opsSize(l.domain, Fabric.offset(FiDomain.FID_DOMAIN, "mr")), "fi_ops_mr"));
            checks.add(() -> assertEquals(FiDomain.FI_OPS_AV.byteSize(),
                opsSize(l.av, Fabric.offset(FiDomain.FID_AV, "ops")), "fi_ops_av"));
            checks.add(() -> assertEquals(FiEq.FI_OPS_CQ.byteSize(),
                opsSize(l.a.cq, Fabric.offset(FiEq.FID_CQ, "ops")), "fi_ops_cq"));
            checks.add(() -> assertEquals(FiEndpoint.FI_OPS_EP.byteSize(),
                opsSize(l.a.ep, Fabric.offset(FiEndpoint.FID_EP, "ops")), "fi_ops_ep"));
            checks.add(() -> assertEquals(FiCm.FI_OPS_CM.byteSize(),
                opsSize(l.a.ep, Fabric.offset(FiEndpoint.FID_EP, "cm")), "fi_ops_cm"));
            checks.add(() -> assertEquals(FiEndpoint.FI_OPS_MSG.byteSize(),
                opsSize(l.a.ep, Fabric.offset(FiEndpoint.FID_EP, "msg")), "fi_ops_msg"));
            checks.add(() -> assertEquals(FiRma.FI_OPS_RMA.byteSize(),
                opsSize(l.a.ep, Fabric.offset(FiEndpoint.FID_EP, "rma")), "fi_ops_rma"));
            final MemorySegment memory = l.arena.allocate(BUFFER, BUFFER);
            final MemorySegment mr = l.register(memory);
            checks.add(() -> assertEquals(Fabric.FI_OPS.byteSize(), opsSize(mr, Fabric.offset(Fabric.FID, "ops")),
                "fi_ops of an mr"));
            assertAll(checks);
            assertEquals(List.of(), l.closeAll(), "closing");
        }
    }

    private static long opsSize(MemorySegment object, long opsOffset) {
        return object.get(ADDRESS, opsOffset).reinterpret(8).get(JAVA_LONG, 0);
    }

    @Test
    void sendMultiRecvInjectWriteDataAndReadBetweenTwoEndpoints() {
        try (Loopback l = new Loopback()) {
            assertEquals(0, l.mrMode & Fabric.FI_MR_ENDPOINT, "MRs would need binding to an endpoint");
            final Arena arena = l.arena;
            final MemorySegment send = arena.allocate(BUFFER, BUFFER);
            final MemorySegment receive = arena.allocate(BUFFER, BUFFER);
            final MemorySegment source = arena.allocate(BUFFER, BUFFER);
            final MemorySegment target = arena.allocate(BUFFER, BUFFER);
            final MemorySegment readBack = arena.allocate(BUFFER, BUFFER);
            final MemorySegment inject = arena.allocate(64, 64);
            final MemorySegment sendDesc = FiDomain.descriptor(l.register(send));
            final MemorySegment receiveDesc = FiDomain.descriptor(l.register(receive));
            final MemorySegment sourceDesc = FiDomain.descriptor(l.register(source));
            final MemorySegment targetMr = l.register(target);
            final long targetKey = FiDomain.key(targetMr);
            final MemorySegment readBackDesc = FiDomain.descriptor(l.register(readBack));

            final MemorySegment sendFn = FiEndpoint.sendFunction(l.a.ep);
            final MemorySegment injectFn = FiEndpoint.injectFunction(l.a.ep);
            final MemorySegment recvMsgFn = FiEndpoint.recvMsgFunction(l.b.ep);
            final MemorySegment writeDataFn = FiRma.writeDataFunction(l.a.ep);
            final MemorySegment readFn = FiRma.readFunction(l.a.ep);

            // one multi-receive buffer on B, through fi_recvmsg(FI_MULTI_RECV)
            final long receiveContext = l.context(0);
            final MemorySegment iov = arena.allocate(FiEndpoint.IOVEC);
            iov.set(ADDRESS, FiEndpoint.IOV_BASE, receive);
            iov.set(JAVA_LONG, FiEndpoint.IOV_LEN, receive.byteSize());
            final MemorySegment descs = arena.allocate(ADDRESS);
            descs.set(ADDRESS, 0, receiveDesc);
            final MemorySegment msg = arena.allocate(FiEndpoint.FI_MSG_STRUCT);
            msg.set(ADDRESS, FiEndpoint.MSG_IOV, iov);
            msg.set(ADDRESS, FiEndpoint.MSG_DESC, descs);
            msg.set(JAVA_LONG, FiEndpoint.MSG_IOV_COUNT, 1);
            msg.set(JAVA_LONG, FiEndpoint.MSG_ADDR, FiEndpoint.FI_ADDR_UNSPEC);
            msg.set(JAVA_LONG, FiEndpoint.MSG_CONTEXT, receiveContext);
            final Runnable postReceive = () -> l.submit(() -> FiEndpoint.recvMsg(recvMsgFn, l.b.ep, msg,
                Fabric.FI_MULTI_RECV), "fi_recvmsg");
            postReceive.run();

            // fi_send of growing messages until the buffer has less than FI_OPT_MIN_MULTI_RECV left: each lands
            // after the previous one, intact; the one that leaves too little space releases it (FI_MULTI_RECV)
            long end = receive.address();
            boolean released = false;
            int sent = 0;
            for (int length : new int[] {300, 1000, 1000, 1000, 1000}) {
                final long sendContext = l.context(1 + sent);
                final byte[] payload = pattern(length, 17 + sent);
                MemorySegment.copy(payload, 0, send, JAVA_BYTE, 0, length);
                l.submit(() -> FiEndpoint.send(sendFn, l.a.ep, send.address(), length, sendDesc.address(), l.addrB,
                    sendContext), "fi_send #" + sent);
                final Completion sendDone = l.take(l.a, c -> c.context() == sendContext, "send completion");
                assertTrue(sendDone.has(Fabric.FI_SEND | Fabric.FI_MSG), "send flags 0x"
                    + Long.toHexString(sendDone.flags()));
                final Completion got = l.take(l.b, c -> c.context() == receiveContext && c.len() > 0, "message");
                assertTrue(got.has(Fabric.FI_RECV | Fabric.FI_MSG), "receive flags 0x"
                    + Long.toHexString(got.flags()));
                assertEquals(length, got.len(), "message length");
                assertTrue(got.buf() >= end && got.buf() + length <= receive.address() + BUFFER,
                    "message #" + sent + " at " + (got.buf() - receive.address()) + ", previous ended at "
                        + (end - receive.address()));
                assertArrayEquals(payload, MemorySegment.ofAddress(got.buf()).reinterpret(length).toArray(JAVA_BYTE),
                    "message #" + sent + " bytes");
                end = got.buf() + length;
                sent++;
                final long left = receive.address() + BUFFER - end;
                if (left < MIN_MULTI_RECV) {
                    // released on this message's entry or on an entry of its own
                    if (!got.has(Fabric.FI_MULTI_RECV)) {
                        final Completion release = l.take(l.b, c -> c.context() == receiveContext
                            && c.has(Fabric.FI_MULTI_RECV), "release of the multi-receive buffer");
                        assertEquals(0, release.len(), "a release entry alone carries no message");
                    }
                    released = true;
                    break;
                }
                assertFalse(got.has(Fabric.FI_MULTI_RECV), "released with " + left + " bytes left");
            }
            assertTrue(released, "4 KiB buffer never released after " + sent + " messages");
            assertEquals(4, sent, "300 + 3 x 1000 bytes leave less than 1024 of 4096");

            // fi_inject: no completion, and the buffer is ours again on return
            postReceive.run();
            final long injected = 0x0102030405060708L;
            inject.set(JAVA_LONG, 0, injected);
            l.submit(() -> FiEndpoint.inject(injectFn, l.a.ep, inject.address(), Long.BYTES, l.addrB), "fi_inject");
            inject.set(JAVA_LONG, 0, 0);
            final Completion small = l.take(l.b, c -> c.context() == receiveContext && c.len() > 0, "injected message");
            assertEquals(Long.BYTES, small.len());
            assertEquals(receive.address(), small.buf(), "the first message of a reposted buffer starts it");
            assertEquals(injected, MemorySegment.ofAddress(small.buf()).reinterpret(8).get(JAVA_LONG, 0));
            for (int i = 0; i < 100; i++) {
                l.progress();
            }
            assertEquals(List.of(), l.a.completions, "fi_inject completes nothing");

            // fi_writedata of 1 KiB at offset 256 of B's registered memory: A completes it, B's CQ reports the data
            final byte[] written = pattern(1024, 99);
            MemorySegment.copy(written, 0, source, JAVA_BYTE, 0, written.length);
            final long writeContext = l.context(20);
            l.submit(() -> FiRma.writeData(writeDataFn, l.a.ep, source.address(), written.length, sourceDesc.address(),
                CQ_DATA, l.addrB, l.remote(target, 256), targetKey, writeContext), "fi_writedata");
            final Completion writeDone = l.take(l.a, c -> c.context() == writeContext, "write completion");
            assertTrue(writeDone.has(Fabric.FI_RMA | Fabric.FI_WRITE), "write flags 0x"
                + Long.toHexString(writeDone.flags()));
            final Completion remote = l.take(l.b, c -> c.has(Fabric.FI_REMOTE_CQ_DATA), "remote CQ data");
            assertEquals(CQ_DATA, remote.data(), "remote CQ data");
            assertTrue(remote.has(Fabric.FI_REMOTE_WRITE), "target flags 0x" + Long.toHexString(remote.flags()));
            assertEquals(0, remote.flags() & Fabric.FI_RECV, "the conduit tells writes from messages by FI_RECV");
            assertArrayEquals(written, target.asSlice(256, written.length).toArray(JAVA_BYTE), "written bytes");
            assertArrayEquals(new byte[256], target.asSlice(0, 256).toArray(JAVA_BYTE), "before the write");
            assertArrayEquals(new byte[BUFFER - 256 - written.length],
                target.asSlice(256 + written.length).toArray(JAVA_BYTE), "after the write");

            // fi_read of the same bytes back: completes at A only
            final long readContext = l.context(21);
            l.submit(() -> FiRma.transfer(readFn, l.a.ep, readBack.address(), written.length, readBackDesc.address(),
                l.addrB, l.remote(target, 256), targetKey, readContext), "fi_read");
            final Completion readDone = l.take(l.a, c -> c.context() == readContext, "read completion");
            assertTrue(readDone.has(Fabric.FI_RMA | Fabric.FI_READ), "read flags 0x"
                + Long.toHexString(readDone.flags()));
            assertArrayEquals(written, readBack.asSlice(0, written.length).toArray(JAVA_BYTE), "read bytes");

            for (int i = 0; i < 100; i++) {
                l.progress();
            }
            assertEquals(List.of(), l.a.failures, "A's error entries");
            assertEquals(List.of(), l.b.failures, "B's error entries");
            assertEquals(List.of(), l.a.completions, "A's unexpected entries");
            assertEquals(List.of(), l.b.completions, "B's unexpected entries");
            // everything closes, newest first: MRs, endpoints, AV, CQs, domain, fabric, info
            assertEquals(List.of(), l.closeAll(), "closing");
        }
    }

    @Test
    void aReadWithAWrongKeyCompletesInErrorWithItsContext() {
        try (Loopback l = new Loopback()) {
            final MemorySegment target = l.arena.allocate(BUFFER, BUFFER);
            final long key = FiDomain.key(l.register(target));
            final MemorySegment local = l.arena.allocate(BUFFER, BUFFER);
            final MemorySegment localDesc = FiDomain.descriptor(l.register(local));
            final MemorySegment readFn = FiRma.readFunction(l.a.ep);
            final long context = l.context(5);
            l.submit(() -> FiRma.transfer(readFn, l.a.ep, local.address(), 64, localDesc.address(), l.addrB,
                l.remote(target, 0), key + 1000, context), "fi_read");
            // the error entry comes through fi_cq_readerr, read through our fi_cq_err_entry layout
            final Failure failure = l.takeFailure(l.a, context, "the failed read's error entry");
            // tcp;ofi_rxm cancels the read (the target refuses the key): err is the libfabric code, prov_errno
            // the provider's own (ENOENT here), flags the operation's
            assertEquals(FiErrno.FI_ECANCELED, failure.err(), failure.toString());
            assertNotEquals(failure.err(), failure.providerErrno(), failure.toString());
            assertEquals(Fabric.FI_RMA | Fabric.FI_READ, failure.flags(), failure.toString());
            assertNotEquals("", failure.text());
            assertEquals(List.of(), l.a.completions, "a failed read completes only in error");
            assertEquals(List.of(), l.closeAll(), "closing");
        }
    }

    @Test
    void attributesAreReadWhereWeWriteThem() {
        // libfabric validates these fields: a value it refuses, written through our offset, must make the open fail;
        // written one field off, it would be ignored or land in a field that takes anything
        try (Loopback l = new Loopback(); Arena arena = Arena.ofConfined()) {
            final MemorySegment av = arena.allocate(FiDomain.FI_AV_ATTR);
            av.set(JAVA_INT, FiDomain.AV_ATTR_TYPE, 99);
            av.set(JAVA_LONG, FiDomain.AV_ATTR_COUNT, 4);
            assertRefused(() -> FiDomain.openAv(l.domain, av), "fi_av_open", "AV type 99");
            av.set(JAVA_INT, FiDomain.AV_ATTR_TYPE, Fabric.FI_AV_TABLE);
            av.set(JAVA_LONG, Fabric.offset(FiDomain.FI_AV_ATTR, "flags"), 1L << 40);
            assertRefused(() -> FiDomain.openAv(l.domain, av), "fi_av_open", "AV flag bit 40");
            final MemorySegment cq = arena.allocate(FiEq.FI_CQ_ATTR);
            cq.set(JAVA_LONG, FiEq.CQ_ATTR_SIZE, 16);
            cq.set(JAVA_INT, FiEq.CQ_ATTR_FORMAT, 99);
            assertRefused(() -> FiDomain.openCq(l.domain, cq), "fi_cq_open", "CQ format 99");
            cq.set(JAVA_INT, FiEq.CQ_ATTR_FORMAT, FiEq.FI_CQ_FORMAT_DATA);
            cq.set(JAVA_INT, FiEq.CQ_ATTR_WAIT_OBJ, 99);
            assertRefused(() -> FiDomain.openCq(l.domain, cq), "fi_cq_open", "CQ wait object 99");
            // and the same attributes with the bad value taken out are fine
            cq.set(JAVA_INT, FiEq.CQ_ATTR_WAIT_OBJ, FiEq.FI_WAIT_NONE);
            Fabric.close(FiDomain.openCq(l.domain, cq), "cq");
            av.set(JAVA_LONG, Fabric.offset(FiDomain.FI_AV_ATTR, "flags"), 0);
            Fabric.close(FiDomain.openAv(l.domain, av), "av");
            assertEquals(List.of(), l.closeAll(), "closing");
        }
    }

    private static void assertRefused(Runnable open, String call, String what) {
        final OfiException e = assertThrows(OfiException.class, open::run, what + " accepted");
        assertEquals(call, e.call(), what);
        assertEquals(-FiErrno.FI_EINVAL, e.code(), what + ": " + e.getMessage());
    }

    private static byte[] pattern(int length, int seed) {
        final byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7 + (i >> 8));
        }
        return b;
    }
}
