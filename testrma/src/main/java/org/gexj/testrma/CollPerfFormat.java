package org.gexj.testrma;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * C's printf conversions that {@link TestCollPerf} prints and Java's Formatter prints differently: {@code %g}, which
 * Java has without C's removal of trailing zeros and choice of style, and {@code %.2f}, which Java rounds half up from
 * the shortest decimal form where C rounds the exact binary value to nearest, ties to even (glibc's rounding: 2.675
 * is 2.67 in C and 2.68 in Java). Both work on the double's exact value, as glibc does.
 */
final class CollPerfFormat {
    /** %g's default precision: significant digits. */
    private static final int G_PRECISION = 6;
    private static final MathContext G_DIGITS = new MathContext(G_PRECISION, RoundingMode.HALF_EVEN);

    private CollPerfFormat() {
    }

    /**
     * C's {@code %g}: {@code v} rounded to 6 significant digits, in {@code %f} style if its decimal exponent X is in
     * [-4, 6), else in {@code %e} style (an exponent of at least two digits), trailing zeros and a trailing point
     * removed; "inf", "-inf", "nan", "-nan", "-0" as glibc prints them.
     */
    static String g(double v) {
        if (Double.isNaN(v)) {
            return Double.doubleToRawLongBits(v) < 0 ? "-nan" : "nan";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        if (v == 0) {
            return 1 / v < 0 ? "-0" : "0";
        }
        final BigDecimal rounded = new BigDecimal(v).round(G_DIGITS);
        final int exponent = rounded.precision() - rounded.scale() - 1;
        final BigDecimal stripped = rounded.stripTrailingZeros();
        if (exponent >= -4 && exponent < G_PRECISION) {
            return stripped.toPlainString();
        }
        final String digits = stripped.unscaledValue().abs().toString();
        final StringBuilder s = new StringBuilder(digits.length() + 8);
        if (stripped.signum() < 0) {
            s.append('-');
        }
        s.append(digits.charAt(0));
        if (digits.length() > 1) {
            s.append('.').append(digits, 1, digits.length());
        }
        s.append(exponent < 0 ? "e-" : "e+");
        if (Math.abs(exponent) < 10) {
            s.append('0');
        }
        return s.append(Math.abs(exponent)).toString();
    }

    /** C's {@code %.2f} of a finite {@code v}. */
    static String fixed2(double v) {
        final String s = new BigDecimal(v).setScale(2, RoundingMode.HALF_EVEN).toPlainString();
        return v < 0 || 1 / v < 0 ? (s.startsWith("-") ? s : "-" + s) : s;
    }
}
