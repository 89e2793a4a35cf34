package io.idmint.formats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdUnavailableException;
import io.idmint.testkit.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class UuidV7Test {

    private static final long T0 = 1_763_700_000_000L;
    /** Unsigned order of the 128 bits, as RFC 9562 sorts UUIDs. */
    static final Comparator<UUID> UNSIGNED = Comparator
            .comparing(UUID::getMostSignificantBits, Long::compareUnsigned)
            .thenComparing(UUID::getLeastSignificantBits, Long::compareUnsigned);

    private final ManualTimeSource clock = new ManualTimeSource(T0);

    @Test
    void next_isVersion7Variant2_withTheClocksMillis() {
        UUID u = UuidV7.newGenerator().timeSource(clock).build().next();

        assertThat(u.version()).isEqualTo(7);
        assertThat(u.variant()).isEqualTo(2);
        assertThat(UuidV7.timestampMillis(u)).isEqualTo(T0);
        assertThat(u.toString()).startsWith(String.format("%08x-%04x-7", T0 >>> 16, T0 & 0xFFFF));
    }

    @Test
    void next_sameMillisecond_strictlyIncreasing() {
        FormatGenerator<UUID> uuids = UuidV7.newGenerator().timeSource(clock)
                .random(new SplittableRandom(1)).build();
        List<UUID> out = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            out.add(uuids.next());
        }

        assertIncreasing(out);
        assertThat(out).allMatch(u -> UuidV7.timestampMillis(u) == T0);
    }

    @Test
    void next_clockStepsBack_keepsLastMillisecondAndStaysIncreasing() {
        FormatGenerator<UUID> uuids = UuidV7.newGenerator().timeSource(clock).build();
        UUID before = uuids.next();
        clock.step(Duration.ofSeconds(-5));

        UUID after = uuids.next();

        assertThat(UNSIGNED.compare(after, before)).isPositive();
        assertThat(UuidV7.timestampMillis(after)).isEqualTo(T0);
    }

    @Test
    void next_newMillisecond_usesIt() {
        FormatGenerator<UUID> uuids = UuidV7.newGenerator().timeSource(clock).build();
        uuids.next();
        clock.advance(Duration.ofMillis(3));

        assertThat(UuidV7.timestampMillis(uuids.next())).isEqualTo(T0 + 3);
    }

    /** RFC 9562 §6.2: when the counter runs out, the timestamp moves on by one. */
    @Test
    void next_counterRollover_movesTimestampOn() {
        FormatGenerator<UUID> uuids = new UuidV7Generator(clock, () -> -1L, 4);
        List<UUID> out = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            out.add(uuids.next());
        }

        assertIncreasing(out);
        // Seed 7 (4-bit counter, top bit clear), so 7..15 in T0, then T0 + 1.
        assertThat(out.subList(0, 9)).allMatch(u -> UuidV7.timestampMillis(u) == T0);
        assertThat(UuidV7.timestampMillis(out.get(9))).isEqualTo(T0 + 1);
    }

    @Test
    void next_layout_counterInRandAAndTopOfRandB() {
        // Counter seed: the low 41 bits of the random long; tail: 32 random bits.
        long seed = 0x155_5555_5555L;
        FormatGenerator<UUID> uuids = new UuidV7Generator(clock, new FixedRandom(seed, 0xCAFEBABE),
                UuidV7Generator.COUNTER_BITS);

        UUID u = uuids.next();

        assertThat(u.getMostSignificantBits()).isEqualTo(T0 << 16 | 0x7000 | (seed >>> 30));
        assertThat(u.getLeastSignificantBits())
                .isEqualTo(0x8000_0000_0000_0000L | (seed & 0x3FFF_FFFFL) << 32 | 0xCAFEBABEL);
    }

    @Test
    void next_threeThreads_uniqueAndIncreasingPerThread() throws Exception {
        FormatGenerator<UUID> uuids = UuidV7.newGenerator().build();

        List<List<Wrapped>> out = Minting.concurrently(() -> new Wrapped(uuids.next()), 3,
                50_000);

        assertThat(out).hasSize(3).allMatch(l -> l.size() == 50_000);
    }

    @Test
    void next_clockOutsideRange_refuses() {
        FormatGenerator<UUID> uuids = UuidV7.newGenerator()
                .timeSource(new ManualTimeSource(1L << 48)).build();

        assertThatThrownBy(uuids::next)
                .isInstanceOf(IdUnavailableException.class)
                .hasMessage("UUIDv7 generator: the clock reads 281474976710656, outside the "
                        + "format's time range 0 to 2^48-1 ms")
                .extracting(e -> ((IdUnavailableException) e).reason())
                .isEqualTo(IdUnavailableException.Reason.TIME_EXHAUSTED);
    }

    @Test
    void parse_roundTripsToString_eitherCase() {
        UUID u = UuidV7.newGenerator().timeSource(clock).build().next();

        assertThat(UuidV7.parse(u.toString())).isEqualTo(u);
        assertThat(UuidV7.parse(u.toString().toUpperCase())).isEqualTo(u);
    }

    @Test
    void decode_badInput_rejected() {
        UUID v4 = UUID.fromString("123e4567-e89b-42d3-a456-426614174000");
        assertThatThrownBy(() -> UuidV7.timestampMillis(v4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("UUID 123e4567-e89b-42d3-a456-426614174000 is not a UUIDv7: version 4, "
                        + "variant 2 (expected version 7, variant 2, RFC 9562)");
        assertThatThrownBy(() -> UuidV7.parse("123e4567-e89b-42d3-a456-426614174000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a UUIDv7: version 4");
        assertThatThrownBy(() -> UuidV7.parse("1-1-1-1-1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'1-1-1-1-1' is not a UUID: expected 36 characters, 8-4-4-4-12 hex "
                        + "digits");
        assertThatThrownBy(() -> UuidV7.parse("019aa0b5-0c00-7abc-8def-01234567890g"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'019aa0b5-0c00-7abc-8def-01234567890g' is not a UUID: 'g' at "
                        + "position 36 is not a hex digit");
        assertThatThrownBy(() -> UuidV7.parse("019aa0b5+0c00-7abc-8def-01234567890a"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'019aa0b5+0c00-7abc-8def-01234567890a' is not a UUID: expected '-' "
                        + "at position 9");
        assertThatThrownBy(() -> UuidV7.parse(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'' is not a UUID");
    }

    @Test
    void builder_settersTwice_rejected() {
        assertThatThrownBy(() -> UuidV7.newGenerator().timeSource(clock).timeSource(clock))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("timeSource was already set");
        assertThatThrownBy(() -> UuidV7.newGenerator().random(new SplittableRandom())
                .random(new SplittableRandom()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("random was already set");
    }

    /** The class Javadoc example of {@link UuidV7}, compiled. */
    @Test
    void example_fromJavadoc() {
        FormatGenerator<UUID> uuids = UuidV7.newGenerator().build();
        UUID id = uuids.next();
        long millis = UuidV7.timestampMillis(id);

        assertThat(millis).isPositive();
    }

    private static void assertIncreasing(List<UUID> uuids) {
        for (int i = 1; i < uuids.size(); i++) {
            assertThat(UNSIGNED.compare(uuids.get(i), uuids.get(i - 1))).as("#%d", i).isPositive();
        }
    }

    /** A UUID ordered as RFC 9562 orders them (unsigned), for {@link Minting}. */
    record Wrapped(UUID uuid) implements Comparable<Wrapped> {
        @Override
        public int compareTo(Wrapped o) {
            return UNSIGNED.compare(uuid, o.uuid);
        }
    }

    /** Returns {@code first} from nextLong and {@code tail} from nextInt. */
    record FixedRandom(long first, int tail) implements java.util.random.RandomGenerator {
        @Override
        public long nextLong() {
            return first;
        }

        @Override
        public int nextInt() {
            return tail;
        }
    }

    /** Bytewise, as PostgreSQL compares {@code uuid}: unsigned halves. */
    private static int bytewise(UUID a, UUID b) {
        int high = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
        return high != 0 ? high
                : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
    }

    /** Any version 7 UUID of a millisecond: random rand_a and rand_b. */
    private static UUID anyAt(long millis, SplittableRandom random) {
        return new UUID(millis << 16 | 0x7000L | random.nextLong(1 << 12),
                Long.MIN_VALUE | random.nextLong() >>> 2);
    }

    @Test
    void range_holdsEveryUuidOfTheWindow_andNoneOutside() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 2_000; i++) {
            java.time.Instant[] window = Windows.random(random);
            java.time.Instant from = window[0];
            java.time.Instant to = window[1];
            Bounds<UUID> b = UuidV7.range(from, to);
            long first = from.toEpochMilli();
            long last = to.minusNanos(1).toEpochMilli();
            for (long m : new long[] {first, last, first + random.nextLong(last - first + 1)}) {
                UUID u = anyAt(m, random);
                assertThat(bytewise(u, b.from())).as("%s in %s", u, b).isGreaterThanOrEqualTo(0);
                assertThat(bytewise(u, b.to())).as("%s in %s", u, b).isNegative();
                assertThat(UuidV7.timestampMillis(b.from())).isEqualTo(first);
            }
            assertThat(bytewise(anyAt(first - 1, random), b.from())).isNegative();
            assertThat(bytewise(anyAt(last + 1, random), b.to())).isGreaterThanOrEqualTo(0);
        }
        assertThatThrownBy(() -> UuidV7.range(java.time.Instant.EPOCH.minusSeconds(1),
                java.time.Instant.EPOCH)).hasMessageContaining("outside the UUIDv7 millisecond");
        assertThatThrownBy(() -> UuidV7.range(java.time.Instant.EPOCH, java.time.Instant.EPOCH))
                .hasMessageContaining("is not before its end");
    }
}
