package org.gexj.testkit;

import org.gexj.BufferDescriptor;
import org.gexj.Client;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReferenceArray;

/** Each rank's descriptors of every rank, sent in AM Mediums: how a runtime shares them. */
final class DescriptorExchange {
    private final Client client;
    private final Am am;
    private final int handler;
    private final AtomicReferenceArray<BufferDescriptor> received;

    DescriptorExchange(Client client) {
        this.client = client;
        this.am = Am.of(client);
        this.received = new AtomicReferenceArray<>(client.size());
        this.handler = am.register(AmHandler.mediumRequest(0, (token, payload, args) ->
            received.set(token.sourceRank(), BufferDescriptor.fromBytes(payload.toArray()))));
    }

    /** Sends {@code mine} to every rank, this one too, and waits for every rank's. Collective. */
    BufferDescriptor[] allOf(BufferDescriptor mine) {
        client.barrier(); // every rank has registered the handler
        final MemorySegment bytes = MemorySegment.ofArray(mine.toBytes());
        for (int r = 0; r < client.size(); r++) {
            am.requestMedium(r, handler, bytes, 0, bytes.byteSize(), Lc.NOW);
        }
        final BufferDescriptor[] all = new BufferDescriptor[client.size()];
        for (int r = 0; r < all.length; r++) {
            while (received.get(r) == null) {
                client.poll();
            }
            all[r] = received.getAndSet(r, null);
        }
        client.barrier();
        return all;
    }
}
