package org.gexj.testam;

/**
 * GASNet's test sections (test.h): each {@link #begin()} moves to the next letter, and a test runs only if its
 * letter was selected on the command line.
 */
final class Sections {
    private final TestAmOptions options;
    private char current = 'A' - 1;

    Sections(TestAmOptions options) {
        this.options = options;
    }

    /** TEST_SECTION_BEGIN_ENABLED: next section; is it enabled? */
    boolean begin() {
        current++;
        return enabled();
    }

    /** TEST_SECTION_ENABLED: is the current section enabled? */
    boolean enabled() {
        return options.sectionEnabled(current);
    }

    char name() {
        return current;
    }
}
