package org.gexj.bootstrap;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;

/** The job's random secret and the proof a rank gives of it: HMAC-SHA256(secret, nonce | rank). */
public final class JobSecret {
    private static final SecureRandom RANDOM = new SecureRandom();

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

    /** Constant-time comparison of a received proof. */
    public static boolean verify(byte[] secret, byte[] nonce, int rank, byte[] proof) {
        return MessageDigest.isEqual(proof(secret, nonce, rank), proof);
    }
}
