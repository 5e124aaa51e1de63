package org.gexj.ofi.ffm;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.gexj.ofi.ffm.FabricTestSupport.flags;
import static org.gexj.ofi.ffm.FabricTestSupport.parse;
import static org.gexj.ofi.ffm.FabricTestSupport.set;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fi_info family of layouts against libfabric itself: values written through our offsets are read back by
 * fi_tostr_r, and values libfabric wrote (fi_getinfo) are read through our offsets and compared with its own text. A
 * field at a wrong offset prints another field's value, so every field gets a value no other field has.
 */
class FabricLayoutTest {
    // enum values libfabric prints by name, for the fields Fabric has no constant for (fabric.h 1.17)
    private static final int FI_SOCKADDR_IN = 2;
    private static final int FI_PROTO_UDP = 5;
    private static final int FI_RM_ENABLED = 2;
    private static final long FI_ORDER_RAW = 1L << 1;
    private static final long FI_ORDER_SAS = 1L << 8;
    private static final long FI_ORDER_STRICT = 0x1ff;
    private static final long FI_ORDER_DATA = 1L << 16;

    @BeforeAll
    static void libraryLoads() {
        // nothing below means anything without the library: fail here, with the reason, rather than 20 times
        assertNull(Fabric.loadFailure(), "libfabric.so.1 did not load");
    }

    // ------------------------------------------------------------------------------------------------ written by us

    @Test
    void everyFieldWrittenThroughOurOffsetsIsPrintedByLibfabricUnderItsName() {
        final MemorySegment info = Fabric.dupInfo(MemorySegment.NULL);
        try (Arena arena = Arena.ofConfined()) {
            final Map<String, String> expected = new LinkedHashMap<>();
            final Map<String, Set<String>> expectedFlags = new LinkedHashMap<>();
            final MemorySegment fakeHandle = arena.allocate(Fabric.FID); // ops NULL: fi_tostr prints the pointer
            final MemorySegment fakeNic = arena.allocate(Fabric.FID);

            long at = Fabric.offset(Fabric.FI_INFO, "caps");
            info.set(JAVA_LONG, at, Fabric.FI_MSG | Fabric.FI_RMA | Fabric.FI_MULTI_RECV | Fabric.FI_SOURCE);
            expectedFlags.put("fi_info.caps", set("FI_MSG", "FI_RMA", "FI_MULTI_RECV", "FI_SOURCE"));
            info.set(JAVA_LONG, Fabric.offset(Fabric.FI_INFO, "mode"),
                Fabric.FI_CONTEXT | Fabric.FI_CONTEXT2 | Fabric.FI_BUFFERED_RECV);
            expectedFlags.put("fi_info.mode", set("FI_CONTEXT", "FI_CONTEXT2", "FI_BUFFERED_RECV"));
            info.set(JAVA_INT, Fabric.offset(Fabric.FI_INFO, "addr_format"), FI_SOCKADDR_IN);
            expected.put("fi_info.addr_format", "FI_SOCKADDR_IN");
            info.set(JAVA_LONG, Fabric.offset(Fabric.FI_INFO, "src_addrlen"), 16);
            expected.put("fi_info.src_addrlen", "16");
            info.set(JAVA_LONG, Fabric.offset(Fabric.FI_INFO, "dest_addrlen"), 17);
            expected.put("fi_info.dest_addrlen", "17");
            info.set(ADDRESS, Fabric.offset(Fabric.FI_INFO, "src_addr"), sockaddrIn(127, 0, 0, 1, 4242));
            expected.put("fi_info.src_addr", "fi_sockaddr_in://127.0.0.1:4242");
            info.set(ADDRESS, Fabric.offset(Fabric.FI_INFO, "dest_addr"), sockaddrIn(10, 1, 2, 3, 5353));
            expected.put("fi_info.dest_addr", "fi_sockaddr_in://10.1.2.3:5353");
            info.set(ADDRESS, Fabric.offset(Fabric.FI_INFO, "handle"), fakeHandle);
            expected.put("fi_info.handle", "0x" + Long.toHexString(fakeHandle.address()));
            info.set(ADDRESS, Fabric.offset(Fabric.FI_INFO, "nic"), fakeNic);
            expected.put("fi_info.nic", "0x" + Long.toHexString(fakeNic.address()));

            final MemorySegment tx = Fabric.attr(info, Fabric.INFO_TX_ATTR, Fabric.FI_TX_ATTR);
            tx.set(JAVA_LONG, Fabric.TX_CAPS, Fabric.FI_MSG | Fabric.FI_WRITE | Fabric.FI_SEND);
            expectedFlags.put("fi_tx_attr.caps", set("FI_MSG", "FI_WRITE", "FI_SEND"));
            tx.set(JAVA_LONG, Fabric.TX_MODE, Fabric.FI_MSG_PREFIX);
            expectedFlags.put("fi_tx_attr.mode", set("FI_MSG_PREFIX"));
            tx.set(JAVA_LONG, Fabric.offset(Fabric.FI_TX_ATTR, "op_flags"), Fabric.FI_COMPLETION | Fabric.FI_INJECT
                | Fabric.FI_TRANSMIT_COMPLETE | Fabric.FI_DELIVERY_COMPLETE);
            expectedFlags.put("fi_tx_attr.op_flags", set("FI_COMPLETION", "FI_INJECT", "FI_TRANSMIT_COMPLETE",
                "FI_DELIVERY_COMPLETE"));
            tx.set(JAVA_LONG, Fabric.offset(Fabric.FI_TX_ATTR, "msg_order"), FI_ORDER_SAS);
            expectedFlags.put("fi_tx_attr.msg_order", set("FI_ORDER_SAS"));
            tx.set(JAVA_LONG, Fabric.offset(Fabric.FI_TX_ATTR, "comp_order"), FI_ORDER_STRICT);
            expectedFlags.put("fi_tx_attr.comp_order", set("FI_ORDER_STRICT"));
            tx.set(JAVA_LONG, Fabric.TX_INJECT_SIZE, 12345);
            expected.put("fi_tx_attr.inject_size", "12345");
            tx.set(JAVA_LONG, Fabric.TX_SIZE, 2222);
            expected.put("fi_tx_attr.size", "2222");
            tx.set(JAVA_LONG, Fabric.offset(Fabric.FI_TX_ATTR, "iov_limit"), 3);
            expected.put("fi_tx_attr.iov_limit", "3");
            tx.set(JAVA_LONG, Fabric.offset(Fabric.FI_TX_ATTR, "rma_iov_limit"), 5);
            expected.put("fi_tx_attr.rma_iov_limit", "5");
            tx.set(JAVA_INT, Fabric.offset(Fabric.FI_TX_ATTR, "tclass"), 0x1a2b);
            expected.put("fi_tx_attr.tclass", "0x1a2b");

            final MemorySegment rx = Fabric.attr(info, Fabric.INFO_RX_ATTR, Fabric.FI_RX_ATTR);
            rx.set(JAVA_LONG, Fabric.RX_CAPS, Fabric.FI_RECV | Fabric.FI_REMOTE_WRITE | Fabric.FI_TAGGED);
            expectedFlags.put("fi_rx_attr.caps", set("FI_RECV", "FI_REMOTE_WRITE", "FI_TAGGED"));
            rx.set(JAVA_LONG, Fabric.RX_MODE, Fabric.FI_RX_CQ_DATA);
            expectedFlags.put("fi_rx_attr.mode", set("FI_RX_CQ_DATA"));
            rx.set(JAVA_LONG, Fabric.offset(Fabric.FI_RX_ATTR, "op_flags"), Fabric.FI_MULTI_RECV);
            expectedFlags.put("fi_rx_attr.op_flags", set("FI_MULTI_RECV"));
            rx.set(JAVA_LONG, Fabric.offset(Fabric.FI_RX_ATTR, "msg_order"), FI_ORDER_RAW);
            expectedFlags.put("fi_rx_attr.msg_order", set("FI_ORDER_RAW"));
            // without FI_ORDER_STRICT's bits libfabric prints FI_ORDER_NONE as well
            rx.set(JAVA_LONG, Fabric.offset(Fabric.FI_RX_ATTR, "comp_order"), FI_ORDER_STRICT | FI_ORDER_DATA);
            expectedFlags.put("fi_rx_attr.comp_order", set("FI_ORDER_STRICT", "FI_ORDER_DATA"));
            rx.set(JAVA_LONG, Fabric.offset(Fabric.FI_RX_ATTR, "total_buffered_recv"), 4444);
            expected.put("fi_rx_attr.total_buffered_recv", "4444");
            rx.set(JAVA_LONG, Fabric.RX_SIZE, 5555);
            expected.put("fi_rx_attr.size", "5555");
            rx.set(JAVA_LONG, Fabric.offset(Fabric.FI_RX_ATTR, "iov_limit"), 6);
            expected.put("fi_rx_attr.iov_limit", "6");

            final MemorySegment ep = Fabric.attr(info, Fabric.INFO_EP_ATTR, Fabric.FI_EP_ATTR);
            ep.set(JAVA_INT, Fabric.EP_TYPE, Fabric.FI_EP_RDM);
            expected.put("fi_ep_attr.type", "FI_EP_RDM");
            ep.set(JAVA_INT, Fabric.offset(Fabric.FI_EP_ATTR, "protocol"), FI_PROTO_UDP);
            expected.put("fi_ep_attr.protocol", "FI_PROTO_UDP");
            ep.set(JAVA_INT, Fabric.offset(Fabric.FI_EP_ATTR, "protocol_version"), 7);
            expected.put("fi_ep_attr.protocol_version", "7");
            ep.set(JAVA_LONG, Fabric.EP_MAX_MSG_SIZE, 1L << 40);
            expected.put("fi_ep_attr.max_msg_size", Long.toString(1L << 40));
            ep.set(JAVA_LONG, Fabric.offset(Fabric.FI_EP_ATTR, "msg_prefix_size"), 8);
            expected.put("fi_ep_attr.msg_prefix_size", "8");
            ep.set(JAVA_LONG, Fabric.offset(Fabric.FI_EP_ATTR, "max_order_raw_size"), 101);
            expected.put("fi_ep_attr.max_order_raw_size", "101");
            ep.set(JAVA_LONG, Fabric.offset(Fabric.FI_EP_ATTR, "max_order_war_size"), 102);
            expected.put("fi_ep_attr.max_order_war_size", "102");
            ep.set(JAVA_LONG, Fabric.offset(Fabric.FI_EP_ATTR, "max_order_waw_size"), 103);
            expected.put("fi_ep_attr.max_order_waw_size", "103");
            ep.set(JAVA_LONG, Fabric.offset(Fabric.FI_EP_ATTR, "mem_tag_format"), 0x0123456789abcdefL);
            expected.put("fi_ep_attr.mem_tag_format", "0x0123456789abcdef");
            ep.set(JAVA_LONG, Fabric.offset(Fabric.FI_EP_ATTR, "tx_ctx_cnt"), 9);
            expected.put("fi_ep_attr.tx_ctx_cnt", "9");
            ep.set(JAVA_LONG, Fabric.offset(Fabric.FI_EP_ATTR, "rx_ctx_cnt"), 10);
            expected.put("fi_ep_attr.rx_ctx_cnt", "10");
            final byte[] epKey = {1, 2, 3, 4};
            ep.set(JAVA_LONG, Fabric.offset(Fabric.FI_EP_ATTR, "auth_key_size"), epKey.length);
            expected.put("fi_ep_attr.auth_key_size", "4");
            ep.set(ADDRESS, Fabric.offset(Fabric.FI_EP_ATTR, "auth_key"), FabricTestSupport.malloc(epKey));

            final MemorySegment domain = Fabric.attr(info, Fabric.INFO_DOMAIN_ATTR, Fabric.FI_DOMAIN_ATTR);
            // printed with %x: a value below 2^32 prints whole
            domain.set(ADDRESS, Fabric.offset(Fabric.FI_DOMAIN_ATTR, "domain"), MemorySegment.ofAddress(0x2468ace0L));
            expected.put("fi_domain_attr.domain", "0x2468ace0");
            domain.set(ADDRESS, Fabric.DOMAIN_NAME, FabricTestSupport.strdup("gexj-domain"));
            expected.put("fi_domain_attr.name", "gexj-domain");
            domain.set(JAVA_INT, Fabric.DOMAIN_THREADING, Fabric.FI_THREAD_DOMAIN);
            expected.put("fi_domain_attr.threading", "FI_THREAD_DOMAIN");
            domain.set(JAVA_INT, Fabric.DOMAIN_CONTROL_PROGRESS, Fabric.FI_PROGRESS_AUTO);
            expected.put("fi_domain_attr.control_progress", "FI_PROGRESS_AUTO");
            domain.set(JAVA_INT, Fabric.DOMAIN_DATA_PROGRESS, Fabric.FI_PROGRESS_MANUAL);
            expected.put("fi_domain_attr.data_progress", "FI_PROGRESS_MANUAL");
            domain.set(JAVA_INT, Fabric.offset(Fabric.FI_DOMAIN_ATTR, "resource_mgmt"), FI_RM_ENABLED);
            expected.put("fi_domain_attr.resource_mgmt", "FI_RM_ENABLED");
            domain.set(JAVA_INT, Fabric.DOMAIN_AV_TYPE, Fabric.FI_AV_TABLE);
            expected.put("fi_domain_attr.av_type", "FI_AV_TABLE");
            domain.set(JAVA_INT, Fabric.DOMAIN_MR_MODE, Fabric.FI_MR_LOCAL | Fabric.FI_MR_PROV_KEY
                | Fabric.FI_MR_ENDPOINT);
            expectedFlags.put("fi_domain_attr.mr_mode", set("FI_MR_LOCAL", "FI_MR_PROV_KEY", "FI_MR_ENDPOINT"));
            final String[] sizes = {"mr_key_size", "cq_data_size", "cq_cnt", "ep_cnt", "tx_ctx_cnt", "rx_ctx_cnt",
                "max_ep_tx_ctx", "max_ep_rx_ctx", "max_ep_stx_ctx", "max_ep_srx_ctx", "cntr_cnt", "mr_iov_limit",
                "max_err_data", "mr_cnt"};
            for (int i = 0; i < sizes.length; i++) {
                // 201, 202, ...: a field read one slot off prints its neighbour's number
                domain.set(JAVA_LONG, Fabric.offset(Fabric.FI_DOMAIN_ATTR, sizes[i]), 201 + i);
                expected.put("fi_domain_attr." + sizes[i], Integer.toString(201 + i));
            }
            domain.set(JAVA_LONG, Fabric.offset(Fabric.FI_DOMAIN_ATTR, "caps"), Fabric.FI_REMOTE_READ);
            expectedFlags.put("fi_domain_attr.caps", set("FI_REMOTE_READ"));
            domain.set(JAVA_LONG, Fabric.offset(Fabric.FI_DOMAIN_ATTR, "mode"), Fabric.FI_CONTEXT2);
            expectedFlags.put("fi_domain_attr.mode", set("FI_CONTEXT2"));
            final byte[] domainKey = {9, 8, 7, 6, 5, 4, 3, 2};
            domain.set(JAVA_LONG, Fabric.offset(Fabric.FI_DOMAIN_ATTR, "auth_key_size"), domainKey.length);
            expected.put("fi_domain_attr.auth_key_size", "8");
            domain.set(ADDRESS, Fabric.offset(Fabric.FI_DOMAIN_ATTR, "auth_key"), FabricTestSupport.malloc(domainKey));
            domain.set(JAVA_INT, Fabric.offset(Fabric.FI_DOMAIN_ATTR, "tclass"), 0x5c);
            expected.put("fi_domain_attr.tclass", "0x5c");

            final MemorySegment fabric = Fabric.attr(info, Fabric.INFO_FABRIC_ATTR, Fabric.FI_FABRIC_ATTR);
            fabric.set(ADDRESS, Fabric.FABRIC_NAME, FabricTestSupport.strdup("gexj-fabric"));
            expected.put("fi_fabric_attr.name", "gexj-fabric");
            fabric.set(ADDRESS, Fabric.FABRIC_PROV_NAME, FabricTestSupport.strdup("gexj;prov"));
            expected.put("fi_fabric_attr.prov_name", "gexj;prov");
            fabric.set(JAVA_INT, Fabric.offset(Fabric.FI_FABRIC_ATTR, "prov_version"), Fabric.version(3, 14));
            expected.put("fi_fabric_attr.prov_version", "3.14");
            fabric.set(JAVA_INT, Fabric.offset(Fabric.FI_FABRIC_ATTR, "api_version"), Fabric.version(1, 17));
            expected.put("fi_fabric_attr.api_version", "1.17");

            final String text = Fabric.toStr(info, Fabric.FI_TYPE_INFO);
            final Map<String, String> printed = parse(text);
            final List<Executable> checks = new ArrayList<>();
            expected.forEach((field, value) -> checks.add(
                () -> assertEquals(value, printed.get(field), field + " in\n" + text)));
            expectedFlags.forEach((field, value) -> checks.add(
                () -> assertEquals(value, flags(printed.getOrDefault(field, "[ <absent> ]")), field + " in\n" + text)));
            assertAll(checks);

            // every field of our layouts is either printed above or checked below (coverage, so that a field added
            // to a layout without a check fails here)
            final Set<String> covered = new TreeSet<>(expected.keySet());
            covered.addAll(expectedFlags.keySet());
            covered.addAll(List.of("fi_info.next", "fi_info.tx_attr", "fi_info.rx_attr", "fi_info.ep_attr",
                "fi_info.domain_attr", "fi_info.fabric_attr", "fi_ep_attr.auth_key", "fi_domain_attr.auth_key",
                "fi_fabric_attr.fabric"));
            final Set<String> declared = new TreeSet<>();
            for (StructLayout layout : List.of(Fabric.FI_INFO, Fabric.FI_TX_ATTR, Fabric.FI_RX_ATTR,
                Fabric.FI_EP_ATTR, Fabric.FI_DOMAIN_ATTR, Fabric.FI_FABRIC_ATTR)) {
                for (MemoryLayout member : layout.memberLayouts()) {
                    if (!(member instanceof PaddingLayout)) {
                        declared.add(layout.name().orElseThrow() + "." + member.name().orElseThrow());
                    }
                }
            }
            assertEquals(declared, covered, "fields of our layouts vs fields this test checks");

            // the auth keys are not printed: fi_dupinfo copies them by (pointer, size) through our offsets, so the
            // copy has the bytes at another address; a wrong offset would copy the pointer verbatim or crash
            info.set(ADDRESS, Fabric.offset(Fabric.FI_INFO, "handle"), MemorySegment.NULL);
            info.set(ADDRESS, Fabric.offset(Fabric.FI_INFO, "nic"), MemorySegment.NULL); // dupinfo would fi_control it
            final MemorySegment dup = Fabric.dupInfo(info);
            try {
                assertKeyCopied(ep, Fabric.attr(dup, Fabric.INFO_EP_ATTR, Fabric.FI_EP_ATTR),
                    Fabric.offset(Fabric.FI_EP_ATTR, "auth_key"), epKey);
                assertKeyCopied(domain, Fabric.attr(dup, Fabric.INFO_DOMAIN_ATTR, Fabric.FI_DOMAIN_ATTR),
                    Fabric.offset(Fabric.FI_DOMAIN_ATTR, "auth_key"), domainKey);
                assertEquals(MemorySegment.NULL, dup.get(ADDRESS, Fabric.INFO_NEXT), "fi_dupinfo's copy ends a list");
                assertEquals(Fabric.toStr(info, Fabric.FI_TYPE_INFO), Fabric.toStr(dup, Fabric.FI_TYPE_INFO),
                    "a copy prints as its original");
            } finally {
                Fabric.freeInfo(dup);
            }
            // fi_fabric_attr.fabric is neither printed nor copied deeply: it is the field before name (offset 0),
            // whose place the name check above fixes
            assertEquals(0, Fabric.offset(Fabric.FI_FABRIC_ATTR, "fabric"));
        } finally {
            info.set(ADDRESS, Fabric.offset(Fabric.FI_INFO, "handle"), MemorySegment.NULL);
            info.set(ADDRESS, Fabric.offset(Fabric.FI_INFO, "nic"), MemorySegment.NULL);
            Fabric.freeInfo(info);
        }
    }

    private static void assertKeyCopied(MemorySegment original, MemorySegment copy, long offset, byte[] key) {
        final MemorySegment a = original.get(ADDRESS, offset);
        final MemorySegment b = copy.get(ADDRESS, offset);
        assertNotEquals(a.address(), b.address(), "fi_dupinfo allocates its own auth_key");
        assertNotEquals(0, b.address(), "fi_dupinfo copied no auth_key");
        assertArrayEquals(key, b.reinterpret(key.length).toArray(JAVA_BYTE));
    }

    /** A malloc'd struct sockaddr_in (fi_freeinfo frees src_addr and dest_addr). */
    private static MemorySegment sockaddrIn(int a, int b, int c, int d, int port) {
        final ByteBuffer s = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        s.putShort((short) 2); // AF_INET
        s.order(ByteOrder.BIG_ENDIAN).putShort((short) port).put((byte) a).put((byte) b).put((byte) c).put((byte) d);
        return FabricTestSupport.malloc(s.array());
    }

    @Test
    void enumConstantsArePrintedUnderTheirNames() {
        // values the distinct-value test above does not use
        final MemorySegment info = Fabric.dupInfo(MemorySegment.NULL);
        try {
            Fabric.attr(info, Fabric.INFO_EP_ATTR, Fabric.FI_EP_ATTR).set(JAVA_INT, Fabric.EP_TYPE, Fabric.FI_EP_MSG);
            final MemorySegment domain = Fabric.attr(info, Fabric.INFO_DOMAIN_ATTR, Fabric.FI_DOMAIN_ATTR);
            domain.set(JAVA_INT, Fabric.DOMAIN_THREADING, Fabric.FI_THREAD_SAFE);
            domain.set(JAVA_INT, Fabric.DOMAIN_CONTROL_PROGRESS, Fabric.FI_PROGRESS_MANUAL);
            domain.set(JAVA_INT, Fabric.DOMAIN_DATA_PROGRESS, Fabric.FI_PROGRESS_AUTO);
            final String text = Fabric.toStr(info, Fabric.FI_TYPE_INFO);
            final Map<String, String> printed = parse(text);
            assertAll(
                () -> assertEquals("FI_EP_MSG", printed.get("fi_ep_attr.type"), text),
                () -> assertEquals("FI_THREAD_SAFE", printed.get("fi_domain_attr.threading"), text),
                () -> assertEquals("FI_PROGRESS_MANUAL", printed.get("fi_domain_attr.control_progress"), text),
                () -> assertEquals("FI_PROGRESS_AUTO", printed.get("fi_domain_attr.data_progress"), text));
        } finally {
            Fabric.freeInfo(info);
        }
    }

    // -------------------------------------------------------------------------------------------- written by libfabric

    @Test
    void getInfoEntriesReadThroughOurOffsetsMatchLibfabricsText() {
        final MemorySegment list = FabricTestSupport.loopbackInfo(FabricTestSupport.PROVIDER);
        try {
            int entries = 0;
            for (MemorySegment i = list; !i.equals(MemorySegment.NULL);
                 i = i.get(ADDRESS, Fabric.INFO_NEXT).reinterpret(Fabric.FI_INFO.byteSize())) {
                entries++;
                final MemorySegment entry = i;
                final String text = Fabric.toStr(i, Fabric.FI_TYPE_INFO);
                final Map<String, String> printed = parse(text);
                final MemorySegment fabric = Fabric.attr(i, Fabric.INFO_FABRIC_ATTR, Fabric.FI_FABRIC_ATTR);
                final MemorySegment domain = Fabric.attr(i, Fabric.INFO_DOMAIN_ATTR, Fabric.FI_DOMAIN_ATTR);
                final MemorySegment ep = Fabric.attr(i, Fabric.INFO_EP_ATTR, Fabric.FI_EP_ATTR);
                final MemorySegment tx = Fabric.attr(i, Fabric.INFO_TX_ATTR, Fabric.FI_TX_ATTR);
                final MemorySegment rx = Fabric.attr(i, Fabric.INFO_RX_ATTR, Fabric.FI_RX_ATTR);
                final int mrMode = domain.get(JAVA_INT, Fabric.DOMAIN_MR_MODE);
                assertAll("entry " + entries + ":\n" + text,
                    () -> assertEquals(FabricTestSupport.PROVIDER,
                        Fabric.string(fabric.get(ADDRESS, Fabric.FABRIC_PROV_NAME))),
                    () -> assertEquals(printed.get("fi_fabric_attr.prov_name"),
                        Fabric.string(fabric.get(ADDRESS, Fabric.FABRIC_PROV_NAME))),
                    () -> assertEquals(printed.get("fi_fabric_attr.name"),
                        Fabric.string(fabric.get(ADDRESS, Fabric.FABRIC_NAME))),
                    () -> assertEquals(printed.get("fi_domain_attr.name"),
                        Fabric.string(domain.get(ADDRESS, Fabric.DOMAIN_NAME))),
                    () -> assertEquals(printed.get("fi_domain_attr.cq_data_size"),
                        Long.toUnsignedString(domain.get(JAVA_LONG, Fabric.DOMAIN_CQ_DATA_SIZE))),
                    () -> assertEquals(printed.get("fi_domain_attr.mr_key_size"),
                        Long.toUnsignedString(domain.get(JAVA_LONG, Fabric.DOMAIN_MR_KEY_SIZE))),
                    () -> assertEquals(flags(printed.get("fi_domain_attr.mr_mode")), mrModeNames(mrMode)),
                    () -> assertEquals(printed.get("fi_domain_attr.threading"),
                        domain.get(JAVA_INT, Fabric.DOMAIN_THREADING) == Fabric.FI_THREAD_SAFE ? "FI_THREAD_SAFE"
                            : "threading " + domain.get(JAVA_INT, Fabric.DOMAIN_THREADING)),
                    () -> assertEquals(printed.get("fi_domain_attr.av_type"),
                        domain.get(JAVA_INT, Fabric.DOMAIN_AV_TYPE) == Fabric.FI_AV_TABLE ? "FI_AV_TABLE"
                            : "av_type " + domain.get(JAVA_INT, Fabric.DOMAIN_AV_TYPE)),
                    () -> assertEquals(printed.get("fi_domain_attr.data_progress"),
                        progressName(domain.get(JAVA_INT, Fabric.DOMAIN_DATA_PROGRESS))),
                    () -> assertEquals(printed.get("fi_domain_attr.control_progress"),
                        progressName(domain.get(JAVA_INT, Fabric.DOMAIN_CONTROL_PROGRESS))),
                    () -> assertEquals(printed.get("fi_tx_attr.inject_size"),
                        Long.toUnsignedString(tx.get(JAVA_LONG, Fabric.TX_INJECT_SIZE))),
                    () -> assertEquals(printed.get("fi_tx_attr.size"),
                        Long.toUnsignedString(tx.get(JAVA_LONG, Fabric.TX_SIZE))),
                    () -> assertEquals(printed.get("fi_rx_attr.size"),
                        Long.toUnsignedString(rx.get(JAVA_LONG, Fabric.RX_SIZE))),
                    () -> assertEquals(printed.get("fi_ep_attr.max_msg_size"),
                        Long.toUnsignedString(ep.get(JAVA_LONG, Fabric.EP_MAX_MSG_SIZE))),
                    () -> assertEquals("FI_EP_RDM", printed.get("fi_ep_attr.type")),
                    () -> assertEquals(Fabric.FI_EP_RDM, ep.get(JAVA_INT, Fabric.EP_TYPE)),
                    () -> assertEquals(flags(printed.get("fi_info.caps")),
                        capNames(entry.get(JAVA_LONG, Fabric.INFO_CAPS), flags(printed.get("fi_info.caps")))),
                    () -> assertEquals(flags(printed.get("fi_tx_attr.caps")),
                        capNames(tx.get(JAVA_LONG, Fabric.TX_CAPS), flags(printed.get("fi_tx_attr.caps")))),
                    () -> assertEquals(flags(printed.get("fi_rx_attr.caps")),
                        capNames(rx.get(JAVA_LONG, Fabric.RX_CAPS), flags(printed.get("fi_rx_attr.caps")))),
                    // what we asked for, read both ways
                    () -> assertTrue(flags(printed.get("fi_info.caps")).containsAll(
                        set("FI_MSG", "FI_RMA", "FI_MULTI_RECV"))),
                    () -> assertEquals(Fabric.FI_MSG | Fabric.FI_RMA | Fabric.FI_MULTI_RECV,
                        entry.get(JAVA_LONG, Fabric.INFO_CAPS)
                            & (Fabric.FI_MSG | Fabric.FI_RMA | Fabric.FI_MULTI_RECV)),
                    // tcp;ofi_rxm's own numbers (facts file, section 1.3): cq data 8 B, inject 64 B, no MR bits
                    () -> assertEquals(8, domain.get(JAVA_LONG, Fabric.DOMAIN_CQ_DATA_SIZE)),
                    () -> assertEquals(64, tx.get(JAVA_LONG, Fabric.TX_INJECT_SIZE)),
                    () -> assertEquals(-1L, ep.get(JAVA_LONG, Fabric.EP_MAX_MSG_SIZE), "2^64-1: unlimited"),
                    () -> assertEquals(0, mrMode));
            }
            assertTrue(entries > 0);
        } finally {
            Fabric.freeInfo(list);
        }
    }

    /**
     * The names of the bits of {@code caps} that libfabric printed, as our constants name them: the bits we have a
     * constant for must be printed exactly when set; bits we have no constant for are taken from the text as they are
     * (FI_LOCAL_COMM, ...).
     */
    private static Set<String> capNames(long caps, Set<String> printed) {
        final Map<String, Long> ours = new LinkedHashMap<>();
        ours.put("FI_MSG", Fabric.FI_MSG);
        ours.put("FI_RMA", Fabric.FI_RMA);
        ours.put("FI_TAGGED", Fabric.FI_TAGGED);
        ours.put("FI_READ", Fabric.FI_READ);
        ours.put("FI_WRITE", Fabric.FI_WRITE);
        ours.put("FI_RECV", Fabric.FI_RECV);
        ours.put("FI_SEND", Fabric.FI_SEND);
        ours.put("FI_REMOTE_READ", Fabric.FI_REMOTE_READ);
        ours.put("FI_REMOTE_WRITE", Fabric.FI_REMOTE_WRITE);
        ours.put("FI_MULTI_RECV", Fabric.FI_MULTI_RECV);
        ours.put("FI_REMOTE_CQ_DATA", Fabric.FI_REMOTE_CQ_DATA);
        ours.put("FI_SOURCE", Fabric.FI_SOURCE);
        final Set<String> names = new TreeSet<>();
        ours.forEach((name, bit) -> {
            if ((caps & bit) != 0) {
                names.add(name);
            }
        });
        printed.stream().filter(p -> !ours.containsKey(p)).forEach(names::add);
        return names;
    }

    private static Set<String> mrModeNames(int mrMode) {
        final Map<Integer, String> bits = new HashMap<>();
        bits.put(Fabric.FI_MR_LOCAL, "FI_MR_LOCAL");
        bits.put(Fabric.FI_MR_RAW, "FI_MR_RAW");
        bits.put(Fabric.FI_MR_VIRT_ADDR, "FI_MR_VIRT_ADDR");
        bits.put(Fabric.FI_MR_ALLOCATED, "FI_MR_ALLOCATED");
        bits.put(Fabric.FI_MR_PROV_KEY, "FI_MR_PROV_KEY");
        bits.put(Fabric.FI_MR_MMU_NOTIFY, "FI_MR_MMU_NOTIFY");
        bits.put(Fabric.FI_MR_RMA_EVENT, "FI_MR_RMA_EVENT");
        bits.put(Fabric.FI_MR_ENDPOINT, "FI_MR_ENDPOINT");
        bits.put(Fabric.FI_MR_HMEM, "FI_MR_HMEM");
        final Set<String> names = new TreeSet<>();
        for (int b = 0; b < 32; b++) {
            if ((mrMode & (1 << b)) != 0) {
                names.add(bits.getOrDefault(1 << b, "bit " + b));
            }
        }
        return names;
    }

    private static String progressName(int progress) {
        return progress == Fabric.FI_PROGRESS_AUTO ? "FI_PROGRESS_AUTO"
            : progress == Fabric.FI_PROGRESS_MANUAL ? "FI_PROGRESS_MANUAL" : "progress " + progress;
    }

    // ------------------------------------------------------------------------------------------------ fi_tostr types

    @Test
    void eachFiTypeConstantSelectsItsKindOfText() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment caps = arena.allocateFrom(JAVA_LONG, Fabric.FI_MSG | Fabric.FI_RMA);
            assertEquals("FI_MSG, FI_RMA", Fabric.toStr(caps, Fabric.FI_TYPE_CAPS).strip());
            final MemorySegment mrMode = arena.allocateFrom(JAVA_INT, Fabric.FI_MR_LOCAL | Fabric.FI_MR_VIRT_ADDR);
            assertEquals("FI_MR_LOCAL, FI_MR_VIRT_ADDR", Fabric.toStr(mrMode, Fabric.FI_TYPE_MR_MODE).strip());
            final MemorySegment info = Fabric.dupInfo(MemorySegment.NULL);
            try {
                final String text = Fabric.toStr(info, Fabric.FI_TYPE_INFO);
                assertTrue(text.startsWith("fi_info:\n"), text);
                assertTrue(text.contains("fi_domain_attr:"), text);
            } finally {
                Fabric.freeInfo(info);
            }
        }
    }

    @Test
    void everyCapabilityConstantIsTheBitLibfabricNamesAfterIt() {
        final Map<String, Long> caps = new LinkedHashMap<>();
        caps.put("FI_MSG", Fabric.FI_MSG);
        caps.put("FI_RMA", Fabric.FI_RMA);
        caps.put("FI_TAGGED", Fabric.FI_TAGGED);
        caps.put("FI_READ", Fabric.FI_READ);
        caps.put("FI_WRITE", Fabric.FI_WRITE);
        caps.put("FI_RECV", Fabric.FI_RECV);
        caps.put("FI_SEND", Fabric.FI_SEND);
        caps.put("FI_REMOTE_READ", Fabric.FI_REMOTE_READ);
        caps.put("FI_REMOTE_WRITE", Fabric.FI_REMOTE_WRITE);
        caps.put("FI_MULTI_RECV", Fabric.FI_MULTI_RECV);
        caps.put("FI_REMOTE_CQ_DATA", Fabric.FI_REMOTE_CQ_DATA);
        caps.put("FI_SOURCE", Fabric.FI_SOURCE);
        final Map<String, Integer> mrModes = new LinkedHashMap<>();
        mrModes.put("FI_MR_LOCAL", Fabric.FI_MR_LOCAL);
        mrModes.put("FI_MR_RAW", Fabric.FI_MR_RAW);
        mrModes.put("FI_MR_VIRT_ADDR", Fabric.FI_MR_VIRT_ADDR);
        mrModes.put("FI_MR_ALLOCATED", Fabric.FI_MR_ALLOCATED);
        mrModes.put("FI_MR_PROV_KEY", Fabric.FI_MR_PROV_KEY);
        mrModes.put("FI_MR_MMU_NOTIFY", Fabric.FI_MR_MMU_NOTIFY);
        mrModes.put("FI_MR_RMA_EVENT", Fabric.FI_MR_RMA_EVENT);
        mrModes.put("FI_MR_ENDPOINT", Fabric.FI_MR_ENDPOINT);
        mrModes.put("FI_MR_HMEM", Fabric.FI_MR_HMEM);
        try (Arena arena = Arena.ofConfined()) {
            final List<Executable> checks = new ArrayList<>();
            caps.forEach((name, bit) -> checks.add(() -> assertEquals(name,
                Fabric.toStr(arena.allocateFrom(JAVA_LONG, bit), Fabric.FI_TYPE_CAPS).strip())));
            mrModes.forEach((name, bit) -> checks.add(() -> assertEquals(name,
                Fabric.toStr(arena.allocateFrom(JAVA_INT, bit), Fabric.FI_TYPE_MR_MODE).strip())));
            assertAll(checks);
        }
        assertEquals(Fabric.FI_SEND, Fabric.FI_TRANSMIT, "fi_ep_bind's FI_TRANSMIT is FI_SEND");
        assertEquals(0x10011, Fabric.version(1, 17), "FI_VERSION(1, 17)");
        assertEquals(Fabric.version(Fabric.FI_MAJOR_VERSION, Fabric.FI_MINOR_VERSION), Fabric.fiVersion(),
            "the library is the 1.17 these bindings were written for");
    }

    // -------------------------------------------------------------------------------------------- sizes (second check)

    /** gcc offsetof/sizeof on x86_64, from the facts file (section 1.6): our layouts must agree field by field. */
    @Test
    void layoutsMatchTheMeasuredOffsetsAndSizes() {
        final Map<StructLayout, String> measured = new LinkedHashMap<>();
        measured.put(Fabric.FI_INFO, "120: next@0, caps@8, mode@16, addr_format@24, src_addrlen@32, dest_addrlen@40,"
            + " src_addr@48, dest_addr@56, handle@64, tx_attr@72, rx_attr@80, ep_attr@88, domain_attr@96,"
            + " fabric_attr@104, nic@112");
        measured.put(Fabric.FI_TX_ATTR, "80: caps@0, mode@8, op_flags@16, msg_order@24, comp_order@32,"
            + " inject_size@40, size@48, iov_limit@56, rma_iov_limit@64, tclass@72");
        measured.put(Fabric.FI_RX_ATTR, "64: caps@0, mode@8, op_flags@16, msg_order@24, comp_order@32,"
            + " total_buffered_recv@40, size@48, iov_limit@56");
        measured.put(Fabric.FI_EP_ATTR, "96: type@0, protocol@4, protocol_version@8, max_msg_size@16,"
            + " msg_prefix_size@24, max_order_raw_size@32, max_order_war_size@40, max_order_waw_size@48,"
            + " mem_tag_format@56, tx_ctx_cnt@64, rx_ctx_cnt@72, auth_key_size@80, auth_key@88");
        measured.put(Fabric.FI_DOMAIN_ATTR, "192: domain@0, name@8, threading@16, control_progress@20,"
            + " data_progress@24, resource_mgmt@28, av_type@32, mr_mode@36, mr_key_size@40, cq_data_size@48,"
            + " cq_cnt@56, ep_cnt@64, tx_ctx_cnt@72, rx_ctx_cnt@80, max_ep_tx_ctx@88, max_ep_rx_ctx@96,"
            + " max_ep_stx_ctx@104, max_ep_srx_ctx@112, cntr_cnt@120, mr_iov_limit@128, caps@136, mode@144,"
            + " auth_key@152, auth_key_size@160, max_err_data@168, mr_cnt@176, tclass@184");
        measured.put(Fabric.FI_FABRIC_ATTR, "32: fabric@0, name@8, prov_name@16, prov_version@24, api_version@28");
        measured.put(Fabric.FID, "24: fclass@0, context@8, ops@16");
        measured.put(Fabric.FI_OPS, "56: size@0, close@8, bind@16, control@24, ops_open@32, tostr@40, ops_set@48");
        measured.put(Fabric.FID_FABRIC, "40: fid@0, ops@24, api_version@32");
        measured.put(Fabric.FI_OPS_FABRIC, "56: size@0, domain@8, passive_ep@16, eq_open@24, wait_open@32,"
            + " trywait@40, domain2@48");
        measured.put(FiDomain.FID_DOMAIN, "40: fid@0, ops@24, mr@32");
        measured.put(FiDomain.FI_OPS_DOMAIN, "96: size@0, av_open@8, cq_open@16, endpoint@24, scalable_ep@32,"
            + " cntr_open@40, poll_open@48, stx_ctx@56, srx_ctx@64, query_atomic@72, query_collective@80,"
            + " endpoint2@88");
        measured.put(FiDomain.FI_OPS_MR, "32: size@0, reg@8, regv@16, regattr@24");
        measured.put(FiDomain.FID_MR, "40: fid@0, mem_desc@24, key@32");
        measured.put(FiDomain.FID_AV, "32: fid@0, ops@24");
        measured.put(FiDomain.FI_OPS_AV, "64: size@0, insert@8, insertsvc@16, insertsym@24, remove@32, lookup@40,"
            + " straddr@48, av_set@56");
        measured.put(FiDomain.FI_AV_ATTR, "48: type@0, rx_ctx_bits@4, count@8, ep_per_node@16, name@24,"
            + " map_addr@32, flags@40");
        measured.put(FiEndpoint.FID_EP, "80: fid@0, ops@24, cm@32, msg@40, rma@48, tagged@56, atomic@64,"
            + " collective@72");
        measured.put(FiEndpoint.FI_OPS_EP, "64: size@0, cancel@8, getopt@16, setopt@24, tx_ctx@32, rx_ctx@40,"
            + " rx_size_left@48, tx_size_left@56");
        measured.put(FiCm.FI_OPS_CM, "80: size@0, setname@8, getname@16, getpeer@24, connect@32, listen@40,"
            + " accept@48, reject@56, shutdown@64, join@72");
        measured.put(FiEndpoint.FI_OPS_MSG, "80: size@0, recv@8, recvv@16, recvmsg@24, send@32, sendv@40,"
            + " sendmsg@48, inject@56, senddata@64, injectdata@72");
        measured.put(FiEndpoint.FI_MSG_STRUCT, "48: msg_iov@0, desc@8, iov_count@16, addr@24, context@32, data@40");
        measured.put(FiEndpoint.IOVEC, "16: iov_base@0, iov_len@8"); // struct iovec, <sys/uio.h>
        measured.put(FiRma.FI_OPS_RMA, "80: size@0, read@8, readv@16, readmsg@24, write@32, writev@40,"
            + " writemsg@48, inject@56, writedata@64, injectdata@72");
        measured.put(FiEq.FID_CQ, "32: fid@0, ops@24");
        measured.put(FiEq.FI_OPS_CQ, "64: size@0, read@8, readfrom@16, readerr@24, sread@32, sreadfrom@40,"
            + " signal@48, strerror@56");
        measured.put(FiEq.FI_CQ_ATTR, "40: size@0, flags@8, format@16, wait_obj@20, signaling_vector@24,"
            + " wait_cond@28, wait_set@32");
        measured.put(FiEq.FI_CQ_DATA_ENTRY, "40: op_context@0, flags@8, len@16, buf@24, data@32");
        measured.put(FiEq.FI_CQ_ERR_ENTRY, "80: op_context@0, flags@8, len@16, buf@24, data@32, tag@40, olen@48,"
            + " err@56, prov_errno@60, err_data@64, err_data_size@72");
        final List<Executable> checks = new ArrayList<>();
        measured.forEach((layout, spec) -> {
            final String name = layout.name().orElseThrow();
            final String[] sizeAndFields = spec.split(": ", 2);
            checks.add(() -> assertEquals(Long.parseLong(sizeAndFields[0]), layout.byteSize(), name + " size"));
            final Set<String> listed = new TreeSet<>();
            for (String field : sizeAndFields[1].split(", ")) {
                final String[] f = field.split("@");
                listed.add(f[0]);
                checks.add(() -> assertEquals(Long.parseLong(f[1]), layout.byteOffset(groupElement(f[0])),
                    name + "." + f[0]));
            }
            final Set<String> declared = new TreeSet<>();
            layout.memberLayouts().stream().filter(m -> !(m instanceof PaddingLayout))
                .forEach(m -> declared.add(m.name().orElseThrow()));
            checks.add(() -> assertEquals(listed, declared, name + ": fields"));
        });
        assertAll(checks);
    }
}
