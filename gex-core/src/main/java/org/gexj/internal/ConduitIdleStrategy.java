package org.gexj.internal;

import org.agrona.concurrent.IdleStrategy;
import org.gexj.spi.Conduit;

/**
 * Agrona's back-off (spin, then yield, then park for a time that doubles up to a longest), except that the park is
 * the conduit's {@link Conduit#awaitActivity}: a conduit whose peers need this rank to poll (software RMA at the
 * target) returns from it when there is something to do, and the back-off then starts again from spinning, so a
 * burst of peers' gets after a long quiet spell is served at polling speed after its first one.
 *
 * <p>Not thread-safe: one per waiting thread, as it keeps the thread's back-off state.
 */
public final class ConduitIdleStrategy implements IdleStrategy {
    private final Conduit conduit;
    private final long spins;
    private final long yields;
    private final long parkMinNs;
    private final long parkMaxNs;
    private long spun;
    private long yielded;
    private long parkNs;

    ConduitIdleStrategy(Conduit conduit, WaitSettings settings) {
        this.conduit = conduit;
        this.spins = settings.spins();
        this.yields = settings.yields();
        this.parkMinNs = settings.parkMinNs();
        this.parkMaxNs = settings.parkMaxNs();
        reset();
    }

    /** Resets the back-off when {@code workCount > 0}, else takes its next step. */
    @Override
    public void idle(int workCount) {
        if (workCount > 0) {
            reset();
        } else {
            idle();
        }
    }

    @Override
    public void idle() {
        if (spun < spins) {
            spun++;
            Thread.onSpinWait();
        } else if (yielded < yields) {
            yielded++;
            Thread.yield();
        } else if (conduit.awaitActivity(parkNs)) {
            reset();
        } else {
            parkNs = Math.min(parkNs << 1, parkMaxNs);
        }
    }

    @Override
    public void reset() {
        spun = 0;
        yielded = 0;
        parkNs = parkMinNs;
    }

    @Override
    public String alias() {
        return "conduit-backoff";
    }
}
