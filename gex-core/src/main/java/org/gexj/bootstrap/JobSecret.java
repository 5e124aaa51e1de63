package org.gexj.bootstrap;

import org.gexj.Config;
import org.gexj.GexException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The job's random secret and the proof a rank gives of it: HMAC-SHA256(secret, nonce | rank). A rank finds the
 * secret in {@code GEX_JOB_SECRET} (hexadecimal), or, when that is {@value #FROM_STDIN}, on the first line of its
 * stdin: gexrun's ssh spawner sends it there so that it is on no command line.
 */
public final class JobSecret {
    /** {@code GEX_JOB_SECRET}'s value meaning "the first line of stdin holds the secret". */
    public static final String FROM_STDIN = "-";
    /** How long a rank told {@value #FROM_STDIN} waits for the line: the launcher writes it as it starts the rank. */
    static final long STDIN_TIMEOUT_MS = 10_000;
    /** The longest line taken for a secret (64 hex digits are expected), so a wrong stdin is not read to its end. */
    private static final int MAX_LINE = 1024;
    private static final SecureRandom RANDOM = new SecureRandom();
    /** The secret read from stdin: the line is consumed once, and every client of the process needs it. */
    private static String fromStdin;

    private JobSecret() {
    }

    public static byte[] random(int bytes) {
        final byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return b;
    }

    public static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    public static byte[] fromHex(String hex) {
        try {
            return HexFormat.of().parseHex(hex);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("GEX_JOB_SECRET is not hexadecimal", e);
        }
    }

    public static byte[] proof(byte[] secret, byte[] nonce, int rank) {
        try {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(nonce);
            mac.update(ByteBuffer.allocate(4).putInt(rank).array());
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /**
     * {@code config} with {@code GEX_JOB_SECRET} in hexadecimal: as it is, or, when it is {@value #FROM_STDIN}, with
     * the first line of this process's stdin (read once, then kept; the rest of stdin stays for the program).
     *
     * @throws GexException if stdin gives no line within 10 s
     */
    public static Config resolve(Config config) {
        if (!FROM_STDIN.equals(config.get("GEX_JOB_SECRET", null))) {
            return config;
        }
        synchronized (JobSecret.class) {
            if (fromStdin == null) {
                fromStdin = firstLine(System.in, STDIN_TIMEOUT_MS);
            }
            return config.with("GEX_JOB_SECRET", fromStdin);
        }
    }

    /**
     * The first line of {@code in}, read byte by byte so that nothing after it is taken from the stream, within
     * {@code timeoutMillis} (a daemon thread reads: a stream cannot be read with a timeout otherwise).
     *
     * @throws GexException if no line arrives in time, or the stream ends or fails first
     */
    static String firstLine(InputStream in, long timeoutMillis) {
        final CompletableFuture<String> line = new CompletableFuture<>();
        final Thread reader = new Thread(() -> {
            try {
                final ByteArrayOutputStream bytes = new ByteArrayOutputStream(80);
                int c;
                while ((c = in.read()) != -1 && c != '\n') {
                    if (bytes.size() >= MAX_LINE) {
                        throw new IOException("its first line is longer than " + MAX_LINE + " bytes");
                    }
                    bytes.write(c);
                }
                if (c == -1) {
                    throw new IOException("it ended before the first line did");
                }
                line.complete(bytes.toString(StandardCharsets.US_ASCII).strip());
            } catch (IOException e) {
                line.completeExceptionally(e);
            }
        }, "gex-secret-from-stdin");
        reader.setDaemon(true);
        reader.start();
        try {
            return line.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new GexException("GEX_JOB_SECRET=" + FROM_STDIN + ": no line on stdin within " + timeoutMillis
                + " ms (gexrun --hosts writes the job secret there)", e);
        } catch (ExecutionException e) {
            throw new GexException("GEX_JOB_SECRET=" + FROM_STDIN + ": cannot read the secret from stdin: "
                + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GexException("GEX_JOB_SECRET=" + FROM_STDIN + ": interrupted reading stdin", e);
        }
    }

    /** Constant-time comparison of a received proof. */
    public static boolean verify(byte[] secret, byte[] nonce, int rank, byte[] proof) {
        return MessageDigest.isEqual(proof(secret, nonce, rank), proof);
    }
}
