package org.gexj;

import org.agrona.DirectBuffer;
import org.gexj.internal.CoreAccess;
import org.gexj.spi.ConduitListener;
import org.gexj.wire.ControlFrameFlyweight;

/**
 * Routes what the conduit delivers: the core's control frames to the barrier, the rest of the frames and remote
 * writes to the AM layer, RMA completions to the layer that started the operation.
 */
final class ClientDispatch implements ConduitListener {
    private static final int REPORTED_DROPS = 10;
    private final Client client;
    private long dropped;

    ClientDispatch(Client client) {
        this.client = client;
    }

    @Override
    public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
        if (ControlFrameFlyweight.isControl(buffer, offset, length)) {
            final String bad = client.amBarrier == null ? "a control frame on a conduit with its own barrier"
                : client.amBarrier.onFrame(buffer, offset, length);
            if (bad != null) {
                drop(bad);
            }
            return;
        }
        final ConduitListener am = client.amListener;
        if (am == null) {
            drop("an AM frame before this rank created its AM layer (Am.of on every rank before peers send)");
            return;
        }
        am.onFrame(channel, buffer, offset, length);
    }

    @Override
    public void onRemoteWrite(int source, long immediate) {
        final ConduitListener am = client.amListener;
        if (am == null) {
            drop("a remote write from rank " + source + " before this rank created its AM layer");
            return;
        }
        am.onRemoteWrite(source, immediate);
    }

    @Override
    public void onRmaCompletion(long operation, int status) {
        final int owner = (int) (operation >>> CoreAccess.OWNER_SHIFT);
        final ConduitListener sink = owner < client.rmaSinks.length ? client.rmaSinks[owner] : null;
        if (sink == null) {
            drop("a completion of RMA operation 0x" + Long.toHexString(operation) + " nobody started");
            return;
        }
        sink.onRmaCompletion(operation, status);
    }

    private void drop(String why) {
        if (++dropped <= REPORTED_DROPS) {
            System.err.println("gex: rank " + client.rank() + " dropped " + why);
        }
    }
}
