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

    /** TEST_SECTION_ENABLED_FWD(n) for n in 1..count: is one of the next {@code count} sections enabled? */
    boolean anyOfNext(int count) {
        for (int n = 1; n <= count; n++) {
            if (options.sectionEnabled((char) (current + n))) {
                return true;
            }
        }
        return false;
    }

    char name() {
        return current;
    }
}
