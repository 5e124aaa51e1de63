package org.gexj.ofi.wire;

import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

class OfiAddressCodecProperties {
    /** Any Unicode text (no lone surrogates, which UTF-8 cannot carry), up to 40 code points. */
    private static Gen<String> providers() {
        final Gen<Integer> codePoint = integers().between(0, Character.MAX_CODE_POINT - 0x800)
            .map(c -> c >= Character.MIN_SURROGATE ? c + 0x800 : c);
        final Gen<String> any = lists().of(codePoint).ofSizeBetween(0, 40).map(cps -> {
            final StringBuilder s = new StringBuilder();
            cps.forEach(s::appendCodePoint);
            return s.toString();
        });
        return Generate.pick(java.util.List.of("tcp;ofi_rxm", "shm", "verbs;ofi_rxm", "udp;ofi_rxd", "")).mix(any);
    }

    private static Gen<byte[]> bytes(int max) {
        return Generate.byteArrays(integers().between(0, max), Generate.bytes(Byte.MIN_VALUE, Byte.MAX_VALUE,
            (byte) 0));
    }

    private static Gen<Integer> ranks() {
        return integers().between(0, 3).mix(integers().between(0, Integer.MAX_VALUE));
    }

    /** The rejection of {@code rank}'s blob names that rank, as a whole number (rank 1 is not rank 12). */
    private static void assertNamesRank(IllegalArgumentException e, int rank) {
        assertTrue(Pattern.compile("\\brank " + rank + "\\b").matcher(e.getMessage()).find(),
            "'" + e.getMessage() + "' does not name rank " + rank);
    }

    @Test
    void endpointsRoundTrip() {
        qt().withExamples(2000).forAll(providers(), bytes(300), ranks()).checkAssert((provider, name, rank) -> {
            final OfiAddressCodec.Endpoint e = new OfiAddressCodec.Endpoint(provider, name.clone());
            final byte[] blob = OfiAddressCodec.encode(e);
            assertEquals(OfiAddressCodec.VERSION, blob[0]);
            assertEquals(1 + 2 + provider.getBytes(StandardCharsets.UTF_8).length + 4 + name.length, blob.length);
            final OfiAddressCodec.Endpoint back = OfiAddressCodec.decodeEndpoint(blob, rank);
            assertEquals(provider, back.provider());
            assertArrayEquals(name, back.name());
            assertEquals(e, back);
            assertEquals(e.hashCode(), back.hashCode());
        });
    }

    @Test
    void truncatedOrExtendedEndpointBlobsAreRejectedNamingTheRank() {
        qt().withExamples(300)
            .forAll(providers(), bytes(64), bytes(3).map(b -> Arrays.copyOf(b, b.length + 1)), ranks())
            .checkAssert((provider, name, tail, rank) -> {
                final byte[] blob = OfiAddressCodec.encode(new OfiAddressCodec.Endpoint(provider, name));
                for (int cut = 0; cut < blob.length; cut++) {
                    final byte[] prefix = Arrays.copyOf(blob, cut);
                    assertNamesRank(assertThrows(IllegalArgumentException.class,
                        () -> OfiAddressCodec.decodeEndpoint(prefix, rank), "cut at " + cut + " of " + blob.length),
                        rank);
                }
                final byte[] longer = Arrays.copyOf(blob, blob.length + tail.length);
                System.arraycopy(tail, 0, longer, blob.length, tail.length);
                assertNamesRank(assertThrows(IllegalArgumentException.class,
                    () -> OfiAddressCodec.decodeEndpoint(longer, rank), "trailing bytes"), rank);
            });
    }

    @Test
    void foreignVersionsAreRejectedNamingTheRank() {
        qt().withExamples(1000).forAll(providers(), bytes(32), integers().between(Byte.MIN_VALUE, Byte.MAX_VALUE)
            .assuming(v -> v != OfiAddressCodec.VERSION), ranks()).checkAssert((provider, name, version, rank) -> {
                final byte[] endpoint = OfiAddressCodec.encode(new OfiAddressCodec.Endpoint(provider, name));
                endpoint[0] = (byte) (int) version;
                final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> OfiAddressCodec.decodeEndpoint(endpoint, rank));
                assertNamesRank(e, rank);
                assertTrue(e.getMessage().contains("version " + version), e.getMessage());
            });
    }

    @Test
    void anyBytesEitherDecodeToAnEndpointOrAreRejectedNamingTheRank() {
        // nothing else escapes (no underflow, negative array size or giant allocation from a garbled length)
        final Gen<byte[]> garbage = bytes(80).map(b -> {
            if (b.length > 0) {
                b[0] = OfiAddressCodec.VERSION; // past the version check, into the lengths
            }
            return b;
        });
        qt().withExamples(5000).forAll(garbage, ranks()).checkAssert((blob, rank) -> {
            try {
                final OfiAddressCodec.Endpoint e = OfiAddressCodec.decodeEndpoint(blob, rank);
                // accepted: the lengths in the blob account for every byte
                assertEquals(blob.length, 1 + 2 + (blob[1] & 0xff | (blob[2] & 0xff) << 8) + 4 + e.name().length);
            } catch (IllegalArgumentException e) {
                assertNamesRank(e, rank);
            } catch (RuntimeException e) {
                fail("decodeEndpoint of " + Arrays.toString(blob) + " threw " + e);
            }
        });
    }
}
