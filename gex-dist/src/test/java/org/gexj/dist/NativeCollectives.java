package org.gexj.dist;

import org.gexj.Client;
import org.gexj.Gex;
import org.gexj.coll.Coll;
import org.gexj.coll.ReduceOp;
import org.gexj.coll.Team;
import org.gexj.rma.AtomicType;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A rank program for {@link CollectivesLoadNoHeapSegmentsIT}: {@code NativeCollectives [heap]} — a barrier, a
 * broadcast, reduce-to-one and reduce-to-all, and a team split, every buffer native, then "done RANK". With
 * {@code heap}, it first makes one heap segment itself, which the test uses to see that the class-load log it reads
 * would show one.
 */
public final class NativeCollectives {
    private NativeCollectives() {
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("heap")) {
            System.out.println("heap segment of " + MemorySegment.ofArray(new byte[1]).byteSize() + " byte");
        }
        try (Client client = Gex.init("NATIVECOLL")) {
            client.attachSegment(1 << 20);
            final Coll coll = Coll.of(client);
            final Team job = Team.job(client);
            final Arena arena = Arena.ofAuto();
            final MemorySegment src = arena.allocate(ValueLayout.JAVA_LONG);
            final MemorySegment dst = arena.allocate(ValueLayout.JAVA_LONG);
            src.set(ValueLayout.JAVA_LONG, 0, client.rank() + 1);
            coll.barrier(job);
            coll.broadcastNb(job, 0, dst, src, Long.BYTES).await();
            if (dst.get(ValueLayout.JAVA_LONG, 0) != 1) {
                throw new AssertionError("broadcast gave " + dst.get(ValueLayout.JAVA_LONG, 0));
            }
            coll.reduceToOneNb(job, 0, dst, src, AtomicType.INT64, 1, ReduceOp.ADD).await();
            coll.reduceToAllNb(job, dst, src, AtomicType.INT64, 1, ReduceOp.MAX).await();
            if (dst.get(ValueLayout.JAVA_LONG, 0) != client.size()) {
                throw new AssertionError("max gave " + dst.get(ValueLayout.JAVA_LONG, 0));
            }
            final Team half = job.split(client.rank() % 2, client.rank());
            coll.barrier(half);
            System.out.println("done " + client.rank());
        }
    }
}
