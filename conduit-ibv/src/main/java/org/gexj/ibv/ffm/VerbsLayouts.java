package org.gexj.ibv.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The structs of {@code <infiniband/verbs.h>} (rdma-core 44, x86_64/LP64) that the bindings read or write, as FFM
 * layouts. Each top-level layout is named by its C type ({@code "struct ibv_wc"}) and each member by its C field, so
 * that {@code IbvLayoutTest} can compile {@code offsetof}/{@code sizeof} of every member against the installed header
 * and compare; an anonymous C union is an unnamed union layout. Padding is explicit, as FFM requires.
 *
 * <p>verbs.h is one header, but too big for one class: {@link Verbs} holds its functions, {@link VerbsOps} its inline
 * data path, and this class its structs.
 */
public final class VerbsLayouts {
    private static MemoryLayout pad(long bytes) {
        return MemoryLayout.paddingLayout(bytes);
    }

    private static MemoryLayout bytes(long count, String name) {
        return MemoryLayout.sequenceLayout(count, JAVA_BYTE).withName(name);
    }

    private static MemoryLayout ptr(String name) {
        return ADDRESS.withName(name);
    }

    private static MemoryLayout i32(String name) {
        return JAVA_INT.withName(name);
    }

    private static MemoryLayout i64(String name) {
        return JAVA_LONG.withName(name);
    }

    private static MemoryLayout i16(String name) {
        return JAVA_SHORT.withName(name);
    }

    private static MemoryLayout i8(String name) {
        return JAVA_BYTE.withName(name);
    }

    /** {@code pthread_mutex_t} and {@code pthread_cond_t} (glibc x86_64): opaque, 8-byte aligned in C. */
    private static final long MUTEX_SIZE = 40;
    private static final long COND_SIZE = 48;

    private static final String[] CONTEXT_OPS = {"_compat_query_device", "_compat_query_port", "_compat_alloc_pd",
        "_compat_dealloc_pd", "_compat_reg_mr", "_compat_rereg_mr", "_compat_dereg_mr", "alloc_mw", "bind_mw",
        "dealloc_mw", "_compat_create_cq", "poll_cq", "req_notify_cq", "_compat_cq_event", "_compat_resize_cq",
        "_compat_destroy_cq", "_compat_create_srq", "_compat_modify_srq", "_compat_query_srq", "_compat_destroy_srq",
        "post_srq_recv", "_compat_create_qp", "_compat_query_qp", "_compat_modify_qp", "_compat_destroy_qp",
        "post_send", "post_recv", "_compat_create_ah", "_compat_destroy_ah", "_compat_attach_mcast",
        "_compat_detach_mcast", "_compat_async_event"};

    /** {@code struct ibv_context_ops}: the function pointers behind verbs.h's inline data-path calls. */
    public static final StructLayout IBV_CONTEXT_OPS = MemoryLayout.structLayout(
        java.util.Arrays.stream(CONTEXT_OPS).map(VerbsLayouts::ptr).toArray(MemoryLayout[]::new))
        .withName("struct ibv_context_ops");

    public static final StructLayout IBV_CONTEXT = MemoryLayout.structLayout(
        ptr("device"), IBV_CONTEXT_OPS.withName("ops"), i32("cmd_fd"), i32("async_fd"), i32("num_comp_vectors"),
        pad(4), bytes(MUTEX_SIZE, "mutex"), ptr("abi_compat")).withName("struct ibv_context");

    public static final StructLayout IBV_DEVICE = MemoryLayout.structLayout(
        MemoryLayout.sequenceLayout(2, ADDRESS).withName("_ops"), i32("node_type"), i32("transport_type"),
        bytes(64, "name"), bytes(64, "dev_name"), bytes(256, "dev_path"), bytes(256, "ibdev_path"))
        .withName("struct ibv_device");

    public static final StructLayout IBV_DEVICE_ATTR = MemoryLayout.structLayout(
        bytes(64, "fw_ver"), i64("node_guid"), i64("sys_image_guid"), i64("max_mr_size"), i64("page_size_cap"),
        i32("vendor_id"), i32("vendor_part_id"), i32("hw_ver"), i32("max_qp"), i32("max_qp_wr"),
        i32("device_cap_flags"), i32("max_sge"), i32("max_sge_rd"), i32("max_cq"), i32("max_cqe"), i32("max_mr"),
        i32("max_pd"), i32("max_qp_rd_atom"), i32("max_ee_rd_atom"), i32("max_res_rd_atom"),
        i32("max_qp_init_rd_atom"), i32("max_ee_init_rd_atom"), i32("atomic_cap"), i32("max_ee"), i32("max_rdd"),
        i32("max_mw"), i32("max_raw_ipv6_qp"), i32("max_raw_ethy_qp"), i32("max_mcast_grp"),
        i32("max_mcast_qp_attach"), i32("max_total_mcast_qp_attach"), i32("max_ah"), i32("max_fmr"),
        i32("max_map_per_fmr"), i32("max_srq"), i32("max_srq_wr"), i32("max_srq_sge"), i16("max_pkeys"),
        i8("local_ca_ack_delay"), i8("phys_port_cnt"), pad(4)).withName("struct ibv_device_attr");

    /**
     * {@code struct ibv_port_attr}. {@code ibv_query_port} is a macro; the exported symbol is the compat version, which
     * fills everything but {@code port_cap_flags2}: callers zero the struct first.
     */
    public static final StructLayout IBV_PORT_ATTR = MemoryLayout.structLayout(
        i32("state"), i32("max_mtu"), i32("active_mtu"), i32("gid_tbl_len"), i32("port_cap_flags"),
        i32("max_msg_sz"), i32("bad_pkey_cntr"), i32("qkey_viol_cntr"), i16("pkey_tbl_len"), i16("lid"),
        i16("sm_lid"), i8("lmc"), i8("max_vl_num"), i8("sm_sl"), i8("subnet_timeout"), i8("init_type_reply"),
        i8("active_width"), i8("active_speed"), i8("phys_state"), i8("link_layer"), i8("flags"),
        i16("port_cap_flags2"), pad(2)).withName("struct ibv_port_attr");

    /** {@code union ibv_gid}: 16 bytes, network order. */
    public static final UnionLayout IBV_GID = MemoryLayout.unionLayout(
        bytes(16, "raw"), MemoryLayout.structLayout(i64("subnet_prefix"), i64("interface_id")).withName("global"))
        .withName("union ibv_gid");

    public static final StructLayout IBV_GID_ENTRY = MemoryLayout.structLayout(
        IBV_GID.withName("gid"), i32("gid_index"), i32("port_num"), i32("gid_type"), i32("ndev_ifindex"))
        .withName("struct ibv_gid_entry");

    public static final StructLayout IBV_PD = MemoryLayout.structLayout(ptr("context"), i32("handle"), pad(4))
        .withName("struct ibv_pd");

    public static final StructLayout IBV_MR = MemoryLayout.structLayout(
        ptr("context"), ptr("pd"), ptr("addr"), i64("length"), i32("handle"), i32("lkey"), i32("rkey"), pad(4))
        .withName("struct ibv_mr");

    public static final StructLayout IBV_CQ = MemoryLayout.structLayout(
        ptr("context"), ptr("channel"), ptr("cq_context"), i32("handle"), i32("cqe"), bytes(MUTEX_SIZE, "mutex"),
        bytes(COND_SIZE, "cond"), i32("comp_events_completed"), i32("async_events_completed"))
        .withName("struct ibv_cq");

    public static final StructLayout IBV_SRQ_ATTR = MemoryLayout.structLayout(
        i32("max_wr"), i32("max_sge"), i32("srq_limit")).withName("struct ibv_srq_attr");

    public static final StructLayout IBV_SRQ_INIT_ATTR = MemoryLayout.structLayout(
        ptr("srq_context"), IBV_SRQ_ATTR.withName("attr"), pad(4)).withName("struct ibv_srq_init_attr");

    public static final StructLayout IBV_SRQ = MemoryLayout.structLayout(
        ptr("context"), ptr("srq_context"), ptr("pd"), i32("handle"), pad(4), bytes(MUTEX_SIZE, "mutex"),
        bytes(COND_SIZE, "cond"), i32("events_completed"), pad(4)).withName("struct ibv_srq");

    public static final StructLayout IBV_QP_CAP = MemoryLayout.structLayout(
        i32("max_send_wr"), i32("max_recv_wr"), i32("max_send_sge"), i32("max_recv_sge"), i32("max_inline_data"))
        .withName("struct ibv_qp_cap");

    public static final StructLayout IBV_QP_INIT_ATTR = MemoryLayout.structLayout(
        ptr("qp_context"), ptr("send_cq"), ptr("recv_cq"), ptr("srq"), IBV_QP_CAP.withName("cap"), i32("qp_type"),
        i32("sq_sig_all"), pad(4)).withName("struct ibv_qp_init_attr");

    public static final StructLayout IBV_QP = MemoryLayout.structLayout(
        ptr("context"), ptr("qp_context"), ptr("pd"), ptr("send_cq"), ptr("recv_cq"), ptr("srq"), i32("handle"),
        i32("qp_num"), i32("state"), i32("qp_type"), bytes(MUTEX_SIZE, "mutex"), bytes(COND_SIZE, "cond"),
        i32("events_completed"), pad(4)).withName("struct ibv_qp");

    public static final StructLayout IBV_GLOBAL_ROUTE = MemoryLayout.structLayout(
        IBV_GID.withName("dgid"), i32("flow_label"), i8("sgid_index"), i8("hop_limit"), i8("traffic_class"), pad(1))
        .withName("struct ibv_global_route");

    public static final StructLayout IBV_AH_ATTR = MemoryLayout.structLayout(
        IBV_GLOBAL_ROUTE.withName("grh"), i16("dlid"), i8("sl"), i8("src_path_bits"), i8("static_rate"),
        i8("is_global"), i8("port_num"), pad(1)).withName("struct ibv_ah_attr");

    /** {@code struct ibv_ah}: what {@code ibv_create_ah} returns; only passed back (in a UD send, to destroy). */
    public static final StructLayout IBV_AH = MemoryLayout.structLayout(ptr("context"), ptr("pd"), i32("handle"),
        pad(4)).withName("struct ibv_ah");

    /**
     * {@code struct ibv_grh}: the 40 bytes a UD receive buffer starts with, before the payload. On RoCE v2 over IPv4
     * the first 20 are undefined and the last 20 hold the IPv4 header.
     */
    public static final StructLayout IBV_GRH = MemoryLayout.structLayout(
        i32("version_tclass_flow"), i16("paylen"), i8("next_hdr"), i8("hop_limit"), IBV_GID.withName("sgid"),
        IBV_GID.withName("dgid")).withName("struct ibv_grh");

    public static final StructLayout IBV_QP_ATTR = MemoryLayout.structLayout(
        i32("qp_state"), i32("cur_qp_state"), i32("path_mtu"), i32("path_mig_state"), i32("qkey"), i32("rq_psn"),
        i32("sq_psn"), i32("dest_qp_num"), i32("qp_access_flags"), IBV_QP_CAP.withName("cap"),
        IBV_AH_ATTR.withName("ah_attr"), IBV_AH_ATTR.withName("alt_ah_attr"), i16("pkey_index"),
        i16("alt_pkey_index"), i8("en_sqd_async_notify"), i8("sq_draining"), i8("max_rd_atomic"),
        i8("max_dest_rd_atomic"), i8("min_rnr_timer"), i8("port_num"), i8("timeout"), i8("retry_cnt"),
        i8("rnr_retry"), i8("alt_port_num"), i8("alt_timeout"), pad(1), i32("rate_limit"), pad(4))
        .withName("struct ibv_qp_attr");

    public static final StructLayout IBV_SGE = MemoryLayout.structLayout(i64("addr"), i32("length"), i32("lkey"))
        .withName("struct ibv_sge");

    private static final StructLayout IBV_MW_BIND_INFO = MemoryLayout.structLayout(
        ptr("mr"), i64("addr"), i64("length"), i32("mw_access_flags"), pad(4));

    public static final StructLayout IBV_SEND_WR = MemoryLayout.structLayout(
        i64("wr_id"), ptr("next"), ptr("sg_list"), i32("num_sge"), i32("opcode"), i32("send_flags"),
        MemoryLayout.unionLayout(i32("imm_data"), i32("invalidate_rkey")),
        MemoryLayout.unionLayout(
            MemoryLayout.structLayout(i64("remote_addr"), i32("rkey"), pad(4)).withName("rdma"),
            MemoryLayout.structLayout(i64("remote_addr"), i64("compare_add"), i64("swap"), i32("rkey"), pad(4))
                .withName("atomic"),
            MemoryLayout.structLayout(ptr("ah"), i32("remote_qpn"), i32("remote_qkey")).withName("ud"))
            .withName("wr"),
        MemoryLayout.unionLayout(MemoryLayout.structLayout(i32("remote_srqn")).withName("xrc")).withName("qp_type"),
        pad(4),
        MemoryLayout.unionLayout(
            MemoryLayout.structLayout(ptr("mw"), i32("rkey"), pad(4), IBV_MW_BIND_INFO.withName("bind_info"))
                .withName("bind_mw"),
            MemoryLayout.structLayout(ptr("hdr"), i16("hdr_sz"), i16("mss"), pad(4)).withName("tso")))
        .withName("struct ibv_send_wr");

    public static final StructLayout IBV_RECV_WR = MemoryLayout.structLayout(
        i64("wr_id"), ptr("next"), ptr("sg_list"), i32("num_sge"), pad(4)).withName("struct ibv_recv_wr");

    public static final StructLayout IBV_WC = MemoryLayout.structLayout(
        i64("wr_id"), i32("status"), i32("opcode"), i32("vendor_err"), i32("byte_len"),
        MemoryLayout.unionLayout(i32("imm_data"), i32("invalidated_rkey")), i32("qp_num"), i32("src_qp"),
        i32("wc_flags"), i16("pkey_index"), i16("slid"), i8("sl"), i8("dlid_path_bits"), pad(2))
        .withName("struct ibv_wc");

    /** Every top-level layout above: what {@code IbvLayoutTest} compares with the header. */
    public static final java.util.List<GroupLayout> ALL = java.util.List.of(IBV_CONTEXT_OPS, IBV_CONTEXT, IBV_DEVICE,
        IBV_DEVICE_ATTR, IBV_PORT_ATTR, IBV_GID, IBV_GID_ENTRY, IBV_PD, IBV_MR, IBV_CQ, IBV_SRQ_ATTR,
        IBV_SRQ_INIT_ATTR, IBV_SRQ, IBV_QP_CAP, IBV_QP_INIT_ATTR, IBV_QP, IBV_GLOBAL_ROUTE, IBV_AH_ATTR, IBV_AH,
        IBV_GRH, IBV_QP_ATTR, IBV_SGE, IBV_SEND_WR, IBV_RECV_WR, IBV_WC);

    /**
     * Byte offset of a member, by its C path: {@code offset(IBV_QP_ATTR, "ah_attr", "grh", "sgid_index")}. Members of
     * an anonymous union are named directly ({@code offset(IBV_WC, "imm_data")}).
     */
    public static long offset(GroupLayout layout, String... path) {
        return layout.byteOffset(resolve(layout, path));
    }

    private static MemoryLayout.PathElement[] resolve(GroupLayout layout, String... path) {
        final java.util.List<MemoryLayout.PathElement> elements = new java.util.ArrayList<>();
        MemoryLayout at = layout;
        for (String name : path) {
            at = step((GroupLayout) at, name, elements);
        }
        return elements.toArray(MemoryLayout.PathElement[]::new);
    }

    // one C name: a member of this group, or of an anonymous union in it
    private static MemoryLayout step(GroupLayout group, String name, java.util.List<MemoryLayout.PathElement> out) {
        for (int i = 0; i < group.memberLayouts().size(); i++) {
            final MemoryLayout m = group.memberLayouts().get(i);
            if (m.name().filter(name::equals).isPresent()) {
                out.add(groupElement(name));
                return m;
            }
            if (m.name().isEmpty() && m instanceof GroupLayout anonymous && has(anonymous, name)) {
                out.add(groupElement((long) i));
                return step(anonymous, name, out);
            }
        }
        throw new IllegalArgumentException(group.name().orElse("anonymous group") + " has no member " + name);
    }

    private static boolean has(GroupLayout group, String name) {
        return group.memberLayouts().stream().anyMatch(m -> m.name().filter(name::equals).isPresent()
            || m.name().isEmpty() && m instanceof GroupLayout g && has(g, name));
    }

    private VerbsLayouts() {
    }
}
