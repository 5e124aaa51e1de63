package org.gexj;

/**
 * Local-completion option of a payload-carrying send (AM Medium/Long, RMA put): when may the source be
 * reused? {@link #NOW}: at return. {@link #GROUP}: after {@code nbiWait} of the operation's category.
 * {@link #DEFER}: RMA only, like GROUP but tracked with the operation. {@link #event()}: an explicit event,
 * retrieved after the call with {@link #lastEvent()}.
 */
public final class Lc {
    public static final Lc NOW = new Lc(0);
    public static final Lc GROUP = new Lc(1);
    public static final Lc DEFER = new Lc(2);

    static final int KIND_NOW = 0;
    static final int KIND_GROUP = 1;
    static final int KIND_DEFER = 2;
    static final int KIND_EVENT = 3;

    private final int kind;
    private Event lastEvent;

    private Lc(int kind) {
        this.kind = kind;
    }

    /** A fresh explicit-event option; reusable, each call overwrites {@link #lastEvent()}. */
    public static Lc event() {
        return new Lc(KIND_EVENT);
    }

    public int kind() {
        return kind;
    }

    public boolean isEvent() {
        return kind == KIND_EVENT;
    }

    /** The local-completion event of the last call that used this option. */
    public Event lastEvent() {
        if (kind != KIND_EVENT) {
            throw new IllegalStateException("only Lc.event() options carry an event");
        }
        return lastEvent;
    }

    /** Records the local-completion event of the call; the shared options carry none and stay immutable. */
    void setLastEvent(Event event) {
        if (kind != KIND_EVENT) {
            throw new IllegalStateException(this + " carries no event");
        }
        if (lastEvent != event) { // mostly Event.DONE again: G1 fences a reference store (DESIGN section 12)
            lastEvent = event;
        }
    }

    @Override
    public String toString() {
        return switch (kind) {
            case KIND_NOW -> "Lc.NOW";
            case KIND_GROUP -> "Lc.GROUP";
            case KIND_DEFER -> "Lc.DEFER";
            default -> "Lc.event()";
        };
    }
}
