package org.gexj.am;

/** AM category: what a message carries. */
public enum Category {
    /** Args only. */
    SHORT,
    /** Args and a payload delivered into a library buffer valid during the handler. */
    MEDIUM,
    /** Args and a payload delivered into the target's segment before the handler runs. */
    LONG
}
