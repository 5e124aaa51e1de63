package org.gexj.testam;

/** The AM category a payload section measures: sections B-F are Medium, G-K Long. */
enum Category {
    MEDIUM,
    LONG
}
