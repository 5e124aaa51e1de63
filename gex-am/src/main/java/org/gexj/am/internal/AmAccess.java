package org.gexj.am.internal;

import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Payload;
import org.gexj.am.SrcDesc;
import org.gexj.am.TeamAm;

/**
 * What other GEX/J modules (RMA over AM) need of the AM layer that users must not call: the library's handler indices
 * [1, 127]. This package is exported only to those modules; {@link Am} installs the implementation.
 */
public abstract class AmAccess {
    private static volatile AmAccess instance;

    /** The implementation, installed by {@link Am}'s class initialisation. */
    public static AmAccess get() {
        AmAccess a = instance;
        if (a == null) {
            try {
                Class.forName(Am.class.getName(), true, AmAccess.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            a = instance;
        }
        return a;
    }

    /** Called once, by {@link Am}'s static initialiser; a second call is refused. */
    public static synchronized void install(AmAccess access) {
        if (instance != null) {
            throw new IllegalStateException("AmAccess is installed already");
        }
        instance = access;
    }

    /** Registers a library handler at {@code index} in [1, 127]. */
    public abstract int registerSystem(Am am, int index, AmHandler handler);

    /**
     * Sends the remote writes whose immediate is not an AM Long payload's to {@code sink}; once, before any such write
     * can arrive (a second sink is refused).
     */
    public abstract void setRemoteWriteSink(Am am, RemoteWriteSink sink);

    /**
     * The native address of a delivered Medium payload's first byte, for reads during its handler of up to
     * {@link Payload#length()} bytes, or 0 where its bytes are not in native memory (then read it through the
     * {@link Payload}).
     */
    public abstract long payloadAddress(Payload payload);

    /**
     * The native address where the payload of a prepared negotiated-payload AM is written (its
     * {@link SrcDesc#buffer()}), for writes of up to {@link SrcDesc#size()} bytes before its commit, or 0 where that
     * buffer is not in native memory (then write it through the buffer).
     */
    public abstract long preparedAddress(SrcDesc prepared);

    /** The requests of {@code am} by team rank, for a team whose rank i is job rank {@code jobRanks[i]}. */
    public abstract TeamAm onTeam(Am am, int[] jobRanks);
}
