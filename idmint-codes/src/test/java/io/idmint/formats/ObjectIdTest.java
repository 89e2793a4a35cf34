package io.idmint.formats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdUnavailableException;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ObjectIdTest {

    private static final long T0 = 1_763_700_000_123L;
    private static final long S0 = T0 / 1000;
    /** Random value 0x0102030405 and counter start 0x000010. */
    private static final long SEED = 0x01_0203_0405L << 24 | 0x10;

    private final ManualTimeSource clock = new ManualTimeSource(T0);

    private FormatGenerator<ObjectId> generator(long seed) {
        return ObjectId.newGenerator().timeSource(clock).random(() -> seed).build();
    }

    @Test
    void next_layout_secondsRandomCounter() {
        ObjectId id = generator(SEED).next();

        assertThat(id).isEqualTo(new ObjectId(S0, 0x01_0203_0405L, 0x10));
        assertThat(id.toHexString()).isEqualTo(Long.toHexString(S0) + "0102030405" + "000010");
        assertThat(id.toString()).isEqualTo(id.toHexString()).hasSize(24);
        assertThat(id.timestampMillis()).isEqualTo(S0 * 1000);
    }

    @Test
    void next_counterCountsOnAcrossSeconds() {
        FormatGenerator<ObjectId> ids = generator(SEED);
        ObjectId a = ids.next();
        ObjectId b = ids.next();
        clock.advance(Duration.ofSeconds(1));
        ObjectId c = ids.next();

        assertThat(List.of(a.counter(), b.counter(), c.counter()))
                .containsExactly(0x10, 0x11, 0x12);
        assertThat(c.seconds()).isEqualTo(S0 + 1);
        Minting.assertStrictlyIncreasing(List.of(a, b, c));
    }

    @Test
    void next_sameSecond_strictlyIncreasing() {
        FormatGenerator<ObjectId> ids = generator(SEED);
        long[] projected = new long[200_000];
        for (int i = 0; i < projected.length; i++) {
            ObjectId id = ids.next();
            projected[i] = id.seconds() << 24 | id.counter();
        }
        IdOracle.assertStrictlyIncreasing(projected);
    }

    /** The one exception to order, as in every ObjectId generator; uniqueness still holds. */
    @Test
    void next_counterWrapsWithinASecond_uniqueButLower() {
        FormatGenerator<ObjectId> ids = generator(0xFF_FFFEL);
        ObjectId a = ids.next();
        ObjectId b = ids.next();
        ObjectId c = ids.next();

        assertThat(List.of(a.counter(), b.counter(), c.counter()))
                .containsExactly(0xFF_FFFE, 0xFF_FFFF, 0);
        assertThat(c).isLessThan(b).isNotEqualTo(a);
    }

    /**
     * A second's worth used up (2^24 in production, 1000 here): the next waits for the next
     * second rather than repeat a counter value in this one.
     */
    @Test
    void next_counterSpaceUsedUpInASecond_waitsForTheNext() {
        clock.autoAdvance();
        FormatGenerator<ObjectId> ids = new ObjectIdGenerator(clock, SEED, 1000);
        for (int i = 0; i < 1000; i++) {
            assertThat(ids.next().seconds()).isEqualTo(S0);
        }

        ObjectId next = ids.next();

        assertThat(next.seconds()).isEqualTo(S0 + 1);
        assertThat(next.counter()).isEqualTo(0x10 + 1000);
        assertThat(clock.currentTimeMillis()).isEqualTo((S0 + 1) * 1000);
        assertThat(ObjectIdGenerator.PER_SECOND).isEqualTo(1 << 24);
    }

    @Test
    void next_clockStepsBack_keepsLastSecond() {
        FormatGenerator<ObjectId> ids = generator(SEED);
        ObjectId a = ids.next();
        clock.step(Duration.ofMinutes(-1));

        ObjectId b = ids.next();

        assertThat(b.seconds()).isEqualTo(a.seconds());
        assertThat(b).isGreaterThan(a);
    }

    @Test
    void next_twoThreads_uniqueAndIncreasingPerThread() throws Exception {
        FormatGenerator<ObjectId> ids = ObjectId.newGenerator().random(() -> SEED).build();

        List<List<ObjectId>> out = Minting.concurrently(ids, 2, 100_000);

        assertThat(out.get(0).get(0).random()).isEqualTo(out.get(1).get(0).random());
    }

    @Test
    void next_interruptedWhileWaiting_refusesAndKeepsTheFlag() throws Exception {
        FormatGenerator<ObjectId> ids = new ObjectIdGenerator(clock, SEED, 10);
        for (int i = 0; i < 10; i++) {
            ids.next();
        }
        AtomicBoolean flag = new AtomicBoolean();
        Thread t = new Thread(() -> {
            Thread.currentThread().interrupt();
            try {
                ids.next();
            } catch (IdUnavailableException e) {
                flag.set(e.reason() == IdUnavailableException.Reason.INTERRUPTED
                        && Thread.currentThread().isInterrupted());
            }
        });
        t.start();
        t.join();

        assertThat(flag).isTrue();
    }

    @Test
    void parse_andBytes_roundTrip() {
        ObjectId id = new ObjectId(0x6549_1F2AL, 0xA1_B2C3_D4E5L, 0x00_0F10);

        assertThat(ObjectId.parse("65491f2aa1b2c3d4e5000f10")).isEqualTo(id);
        assertThat(ObjectId.parse("65491F2AA1B2C3D4E5000F10")).isEqualTo(id);
        assertThat(id.toHexString()).isEqualTo("65491f2aa1b2c3d4e5000f10");
        assertThat(ObjectId.fromBytes(id.toBytes())).isEqualTo(id);
        assertThat(id.toBytes()).startsWith((byte) 0x65, (byte) 0x49).endsWith((byte) 0x10);
        assertThat(ObjectId.parse("ffffffffffffffffffffffff"))
                .isEqualTo(new ObjectId(ObjectId.MAX_SECONDS, ObjectId.MAX_RANDOM,
                        ObjectId.MAX_COUNTER));
    }

    @Test
    void parse_badInput_rejected() {
        assertThatThrownBy(() -> ObjectId.parse("65491f2a"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'65491f2a' is not an ObjectId: expected 24 hex digits, got 8 "
                        + "characters");
        assertThatThrownBy(() -> ObjectId.parse("65491f2aa1b2c3d4e5000f1z"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'65491f2aa1b2c3d4e5000f1z' is not an ObjectId: 'z' at position 24 is "
                        + "not a hex digit");
        assertThatThrownBy(() -> ObjectId.fromBytes(new byte[11]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an ObjectId is 12 bytes, got 11");
        assertThatThrownBy(() -> new ObjectId(0, 0, 1 << 24))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ObjectId counter must be 0 to 16777215, got 16777216");
    }

    @Test
    void next_clockBeyond2106_refuses() {
        FormatGenerator<ObjectId> ids = ObjectId.newGenerator()
                .timeSource(new ManualTimeSource((ObjectId.MAX_SECONDS + 1) * 1000)).build();

        assertThatThrownBy(ids::next)
                .isInstanceOf(IdUnavailableException.class)
                .hasMessage("ObjectId generator: the clock reads 4294967296, outside the format's "
                        + "time range 0 to 2^32-1 s");
    }

    @Test
    void range_holdsEveryObjectIdOfTheWindow_andNoneOutside() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        for (int i = 0; i < 2_000; i++) {
            java.time.Instant[] window = Windows.random(random);
            java.time.Instant from = window[0];
            java.time.Instant to = window[1];
            Bounds<ObjectId> b = ObjectId.range(from, to);
            long first = from.getEpochSecond();
            long last = to.minusNanos(1).getEpochSecond();
            for (long s : new long[] {first, last, first + random.nextLong(last - first + 1)}) {
                ObjectId o = new ObjectId(s, random.nextLong(ObjectId.MAX_RANDOM + 1),
                        random.nextInt(ObjectId.MAX_COUNTER + 1));
                assertThat(o.toHexString()).isGreaterThanOrEqualTo(b.from().toHexString())
                        .isLessThan(b.to().toHexString());
            }
            assertThat(new ObjectId(first - 1, ObjectId.MAX_RANDOM, ObjectId.MAX_COUNTER))
                    .isLessThan(b.from());
            assertThat(new ObjectId(last + 1, 0, 0)).isEqualTo(b.to());
        }
        assertThatThrownBy(() -> ObjectId.range(java.time.Instant.ofEpochSecond(
                ObjectId.MAX_SECONDS), java.time.Instant.ofEpochSecond(ObjectId.MAX_SECONDS + 1)))
                .hasMessageContaining("outside the ObjectId seconds field");
    }
}
