package org.gexj;

import org.gexj.internal.CoreAccess;
import org.gexj.spi.AttachedSegments;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.JobHealth;

import java.lang.foreign.MemorySegment;
import java.util.function.Function;

/**
 * The library-internal operations on a {@link Client}, handed to GEX/J's own modules through {@link CoreAccess}
 * (installed once, by {@code Client}'s class initialiser): users see none of them.
 */
final class ClientAccess extends CoreAccess {
    @Override
    public Conduit conduit(Client client) {
        return client.conduit;
    }

    @Override
    public JobHealth health(Client client) {
        return client.health;
    }

    @Override
    public <T> T extension(Client client, Class<T> type, Function<Client, T> factory) {
        return client.extension(type, factory);
    }

    @Override
    public MemorySegment registered(Client client, int handle) {
        return client.registrations.memory(handle);
    }

    @Override
    public int registrationOf(Client client, long address, long length) {
        return client.registrations.handleOf(address, length);
    }

    @Override
    public BufferDescriptor registrationDescriptor(Client client, int handle) {
        return client.registrations.descriptor(handle);
    }

    @Override
    public void setProgress(Client client, org.gexj.internal.ClientProgress progress) {
        client.progress.add(progress);
    }

    @Override
    public void setListener(Client client, ConduitListener listener) {
        client.amListener = listener;
    }

    @Override
    public void addStats(Client client, java.util.function.Supplier<java.util.Map<String, Long>> counters) {
        client.layerStats.add(counters);
    }

    @Override
    public void setRmaSink(Client client, int owner, ConduitListener sink) {
        if (client.rmaSinks[owner] != null) {
            throw new IllegalStateException("RMA completions of owner " + owner + " go elsewhere already");
        }
        client.rmaSinks[owner] = sink;
        client.routesRma = true;
    }

    @Override
    public AttachedSegments segments(Client client) {
        return client.segment().attached();
    }

    @Override
    public String enterHandler(Client client, String what) {
        return client.enterHandler(what);
    }

    @Override
    public void exitHandler(Client client, String previous) {
        client.exitHandler(previous);
    }

    @Override
    public void setNpam(Client client, String what) {
        client.npam.set(what);
    }

    @Override
    public String npamContext(Client client) {
        return client.npam.current();
    }

    @Override
    public void checkNotRestricted(Client client, String operation) {
        client.checkNotRestricted(operation);
    }

    @Override
    public void checkOpenAndNotRestricted(Client client, String operation) {
        client.checkOpenAndNotRestricted(operation);
    }

    @Override
    public void checkOpen(Client client) {
        client.checkOpen();
    }

    @Override
    public RuntimeException closedOr(Client client, RuntimeException e) {
        return client.closedOr(e);
    }

    @Override
    public void progressWhileBlocked(Client client) {
        client.progressWhileBlocked();
    }

    @Override
    public void pollBeforeRequest(Client client, int channelMask) {
        client.pollBeforeRequest(channelMask);
    }

    @Override
    public boolean tryHoldDelivery(Client client) {
        return client.tryHoldDelivery();
    }

    @Override
    public boolean closing(Client client) {
        return client.closing();
    }

    @Override
    public void releaseDelivery(Client client) {
        client.releaseDelivery();
    }

    @Override
    public void resetBackoff(Client client) {
        client.idle.get().reset();
    }

    @Override
    public Event nbiEvent(Client client, int category) {
        return client.nbiEvent(category);
    }

    @Override
    public Event newEvent(Client client) {
        return new Event(client, null);
    }

    @Override
    public Event pooledEvent(Client client) {
        return client.events.take();
    }

    @Override
    public void begin(Event event, int n) {
        event.begin(n);
    }

    @Override
    public void beginUnseen(Event event, int n) {
        event.beginUnseen(n);
    }

    @Override
    public void complete(Event event, int n) {
        event.complete(n);
    }

    @Override
    public void completeSole(Event event, Throwable failure) {
        event.completeSole(failure);
    }

    @Override
    public void fail(Event event, int n, Throwable failure) {
        event.fail(n, failure);
    }

    @Override
    public void setLastEvent(Lc lc, Event event) {
        lc.setLastEvent(event);
    }
}
