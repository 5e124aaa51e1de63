package org.gexj.am;

import org.gexj.am.wire.AmFrameFlyweight;

/**
 * A handler table entry ({@code gex_AM_Entry_t}): the body plus its declared category, direction and arity,
 * checked at registration and at every send and delivery. A null direction or body throws
 * {@link NullPointerException} naming it; an arity outside [0, 16] throws {@link IllegalArgumentException}.
 */
public final class AmHandler {
    private final Category category;
    private final Direction direction;
    private final int nargs;
    private final ShortHandler shortBody;
    private final PayloadHandler payloadBody;
    private final String name;
    /** The {@link AmFrameFlyweight#signature} of the requests and the replies it takes; -1 for none. */
    private final int requestSignature;
    private final int replySignature;

    private AmHandler(Category category, Direction direction, int nargs, ShortHandler shortBody,
                      PayloadHandler payloadBody, String name) {
        if (direction == null) {
            throw new NullPointerException("direction is null; use Direction.REQUEST, REPLY or REQREP");
        }
        if (nargs < 0 || nargs > AmFrameFlyweight.MAX_ARGS) {
            throw new IllegalArgumentException("handler arity " + nargs + " outside [0, "
                + AmFrameFlyweight.MAX_ARGS + "]");
        }
        if (shortBody == null && payloadBody == null) {
            throw new NullPointerException("body is null; a handler needs a lambda or method to run");
        }
        this.category = category;
        this.direction = direction;
        this.nargs = nargs;
        this.shortBody = shortBody;
        this.payloadBody = payloadBody;
        this.name = name;
        this.requestSignature = direction.allowsRequest()
            ? AmFrameFlyweight.signature(category.ordinal(), true, nargs) : -1;
        this.replySignature = direction.allowsReply()
            ? AmFrameFlyweight.signature(category.ordinal(), false, nargs) : -1;
    }

    public static AmHandler ofShort(Direction direction, int nargs, ShortHandler body) {
        return new AmHandler(Category.SHORT, direction, nargs, body, null, null);
    }

    public static AmHandler ofMedium(Direction direction, int nargs, PayloadHandler body) {
        return new AmHandler(Category.MEDIUM, direction, nargs, null, body, null);
    }

    public static AmHandler ofLong(Direction direction, int nargs, PayloadHandler body) {
        return new AmHandler(Category.LONG, direction, nargs, null, body, null);
    }

    public static AmHandler shortRequest(int nargs, ShortHandler body) {
        return ofShort(Direction.REQUEST, nargs, body);
    }

    public static AmHandler shortReply(int nargs, ShortHandler body) {
        return ofShort(Direction.REPLY, nargs, body);
    }

    public static AmHandler mediumRequest(int nargs, PayloadHandler body) {
        return ofMedium(Direction.REQUEST, nargs, body);
    }

    public static AmHandler mediumReply(int nargs, PayloadHandler body) {
        return ofMedium(Direction.REPLY, nargs, body);
    }

    public static AmHandler longRequest(int nargs, PayloadHandler body) {
        return ofLong(Direction.REQUEST, nargs, body);
    }

    public static AmHandler longReply(int nargs, PayloadHandler body) {
        return ofLong(Direction.REPLY, nargs, body);
    }

    /** The same entry with a name for error messages ({@code gex_name}). */
    public AmHandler named(String newName) {
        return new AmHandler(category, direction, nargs, shortBody, payloadBody, newName);
    }

    public Category category() {
        return category;
    }

    public Direction direction() {
        return direction;
    }

    public int nargs() {
        return nargs;
    }

    public String name() {
        return name;
    }

    /** @return whether a frame of this {@link AmFrameFlyweight#signature()} agrees with this registration */
    boolean accepts(int frameSignature) {
        return frameSignature == requestSignature || frameSignature == replySignature;
    }

    ShortHandler shortBody() {
        return shortBody;
    }

    PayloadHandler payloadBody() {
        return payloadBody;
    }

    @Override
    public String toString() {
        return (name == null ? "handler" : name) + "(" + category + " " + direction + ", " + nargs + " args)";
    }
}
