package org.gexj;

/** Base of GEX/J's control-path errors. */
public class GexException extends RuntimeException {
    public GexException(String message) {
        super(message);
    }

    public GexException(String message, Throwable cause) {
        super(message, cause);
    }
}
