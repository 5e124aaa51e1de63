package org.gexj;

import java.util.HashMap;
import java.util.Map;

/**
 * Settings named like environment variables ({@code GEX_CONDUIT}, {@code GEX_SMP_RING_BYTES}...). Values come
 * from explicit overrides first, then the process environment. Every typed getter checks its range and throws
 * an {@link IllegalArgumentException} naming the variable, the value and the allowed range.
 */
public final class Config {
    private final Map<String, String> values;

    private Config(Map<String, String> values) {
        this.values = values;
    }

    /** The process environment. */
    public static Config fromEnvironment() {
        return new Config(new HashMap<>(System.getenv()));
    }

    /** The process environment overlaid with {@code overrides}. */
    public static Config of(Map<String, String> overrides) {
        final Map<String, String> m = new HashMap<>(System.getenv());
        m.putAll(overrides);
        return new Config(m);
    }

    /** A copy with {@code key} set to {@code value}. */
    public Config with(String key, String value) {
        final Map<String, String> m = new HashMap<>(values);
        m.put(key, value);
        return new Config(m);
    }

    public String get(String key, String defaultValue) {
        final String v = values.get(key);
        return v == null || v.isBlank() ? defaultValue : v.trim();
    }

    public String require(String key) {
        final String v = get(key, null);
        if (v == null) {
            throw new IllegalArgumentException(key + " is not set");
        }
        return v;
    }

    public boolean getBoolean(String key, boolean defaultValue) {
        final String v = get(key, null);
        if (v == null) {
            return defaultValue;
        }
        return switch (v.toLowerCase()) {
            case "1", "true", "yes", "y", "on" -> true;
            case "0", "false", "no", "n", "off" -> false;
            default -> throw new IllegalArgumentException(key + "=" + v
                + " is not a boolean (1/0, true/false, yes/no)");
        };
    }

    public long getLong(String key, long defaultValue, long min, long max) {
        final String v = get(key, null);
        final long value;
        if (v == null) {
            value = defaultValue;
        } else {
            try {
                value = parseSize(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + "=" + v + " is not a number (suffixes K, M, G allowed);"
                    + " range [" + min + ", " + max + "]");
            }
        }
        if (value < min || value > max) {
            throw new IllegalArgumentException(key + "=" + value + " outside [" + min + ", " + max + "]");
        }
        return value;
    }

    public int getInt(String key, int defaultValue, int min, int max) {
        return (int) getLong(key, defaultValue, min, max);
    }

    /** Parses {@code 123}, {@code 64K}, {@code 16M}, {@code 2G} (powers of 1024). */
    public static long parseSize(String s) {
        final String t = s.trim().toUpperCase();
        long mult = 1;
        String digits = t;
        if (t.endsWith("K") || t.endsWith("KB")) {
            mult = 1L << 10;
        } else if (t.endsWith("M") || t.endsWith("MB")) {
            mult = 1L << 20;
        } else if (t.endsWith("G") || t.endsWith("GB")) {
            mult = 1L << 30;
        }
        if (mult != 1) {
            digits = t.replaceAll("[KMGB]+$", "");
        }
        return Math.multiplyExact(Long.parseLong(digits), mult);
    }
}
