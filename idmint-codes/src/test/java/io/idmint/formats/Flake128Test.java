package io.idmint.formats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.testkit.IdOracle;
import io.idmint.testkit.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class Flake128Test {

    private static final long T0 = 1_763_700_000_000L;
    private static final long MAC = 0x0242_AC11_0002L;

    private final ManualTimeSource clock = new ManualTimeSource(T0);

    private FormatGenerator<Flake128> generator() {
        return Flake128.newGenerator().workerId(MAC).timeSource(clock).build();
    }

    @Test
    void next_layout_timeWorkerSequence() {
        FormatGenerator<Flake128> flakes = generator();
        Flake128 a = flakes.next();
        Flake128 b = flakes.next();

        assertThat(a).isEqualTo(new Flake128(T0, MAC, 0));
        assertThat(b.sequence()).isEqualTo(1);
        assertThat(a.mostSignificantBits()).isEqualTo(T0);
        assertThat(a.leastSignificantBits()).isEqualTo(MAC << 16);
        assertThat(a.toHexString()).isEqualTo(String.format("%016x%012x%04x", T0, MAC, 0))
                .isEqualTo(a.toString());
    }

    @Test
    void next_sequenceUsedUp_waitsForTheNextMillisecond() {
        clock.autoAdvance();
        FormatGenerator<Flake128> flakes = generator();
        for (int i = 0; i <= Flake128.MAX_SEQUENCE; i++) {
            assertThat(flakes.next().timestampMillis()).isEqualTo(T0);
        }

        Flake128 next = flakes.next();

        assertThat(next).isEqualTo(new Flake128(T0 + 1, MAC, 0));
        assertThat(clock.currentTimeMillis()).isEqualTo(T0 + 1);
    }

    @Test
    void next_clockStepsBack_keepsLastMillisecondAndCountsOn() {
        FormatGenerator<Flake128> flakes = generator();
        Flake128 a = flakes.next();
        clock.step(Duration.ofSeconds(-2));

        Flake128 b = flakes.next();

        assertThat(b).isEqualTo(new Flake128(T0, MAC, 1)).isGreaterThan(a);
    }

    @Test
    void next_twoThreads_uniqueAndIncreasingPerThread() throws Exception {
        FormatGenerator<Flake128> flakes = Flake128.newGenerator().workerId(MAC).build();

        List<List<Flake128>> out = Minting.concurrently(flakes, 2, 200_000);

        // The worker is constant, so (time, sequence) as one long must be unique and ordered too.
        long[][] projected = out.stream()
                .map(l -> l.stream().mapToLong(f -> f.timestampMillis() << 16 | f.sequence())
                        .toArray())
                .toArray(long[][]::new);
        IdOracle.assertUnique(projected);
        for (long[] p : projected) {
            IdOracle.assertStrictlyIncreasing(p);
        }
    }

    @Test
    void parse_fromBits_roundTrip() {
        Flake128 f = new Flake128(T0, Flake128.MAX_WORKER_ID, 0xBEEF);

        assertThat(Flake128.parse(f.toHexString())).isEqualTo(f);
        assertThat(Flake128.parse(f.toHexString().toUpperCase())).isEqualTo(f);
        assertThat(Flake128.fromBits(f.mostSignificantBits(), f.leastSignificantBits()))
                .isEqualTo(f);
        assertThat(f.leastSignificantBits()).isNegative();
        assertThat(f).isGreaterThan(new Flake128(T0, 5, 0xFFFF))
                .isLessThan(new Flake128(T0 + 1, 0, 0));
    }

    @Test
    void parse_badInput_rejected() {
        assertThatThrownBy(() -> Flake128.parse("abc"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'abc' is not a 128-bit flake: expected 32 hex digits, got 3 "
                        + "characters");
        String overflow = "8" + "0".repeat(31);
        assertThatThrownBy(() -> Flake128.parse(overflow))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'" + overflow + "' is not a 128-bit flake: its time, "
                        + "9223372036854775808 ms, is past the format's last millisecond "
                        + "140737488355327 (2^47-1, the year 6429), so no generator made it");
        assertThatThrownBy(() -> Flake128.parse("0".repeat(31) + "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith("'x' at position 32 is not a hex digit");
    }

    @Test
    void parse_timeBeyondWhatTheGeneratorMints_rejected() {
        String year3419387 = "017f22e279b07cc398c4dc0c0c07398f";
        assertThatThrownBy(() -> Flake128.parse(year3419387))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'" + year3419387 + "' is not a 128-bit flake: its time, "
                        + "107843272179743939 ms, is past the format's last millisecond "
                        + "140737488355327 (2^47-1, the year 6429), so no generator made it");
        String last = "00007fffffffffff" + "0".repeat(16);
        assertThat(Flake128.parse(last).timestampMillis()).isEqualTo(Flake128.MAX_TIMESTAMP_MILLIS);
        assertThatThrownBy(() -> Flake128.parse("0000800000000000" + "0".repeat(16)))
                .hasMessageContaining("its time, 140737488355328 ms, is past");
        assertThatThrownBy(() -> Flake128.fromBits(Flake128.MAX_TIMESTAMP_MILLIS + 1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("flake time must be 0 to 140737488355327 ms (2^47-1, the year 6429), "
                        + "got 140737488355328");
    }

    @Test
    void builder_workerRequiredAndChecked() {
        assertThatThrownBy(() -> Flake128.newGenerator().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no worker ID for 128-bit flakes: pass one to workerId(), unique per "
                        + "generator, e.g. workerIdOf(a MAC address)");
        assertThatThrownBy(() -> Flake128.newGenerator().workerId(1L << 48))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("flake worker ID must be 0 to 281474976710655 (48 bits), got "
                        + "281474976710656");
        assertThatThrownBy(() -> Flake128.newGenerator().workerId(1).workerId(2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("workerId was already set");
    }

    @Test
    void workerIdOf_mac() {
        byte[] mac = {0x02, 0x42, (byte) 0xAC, 0x11, 0x00, 0x02};

        assertThat(Flake128.workerIdOf(mac)).isEqualTo(MAC);
        assertThat(Flake128.workerIdOf(new byte[] {-1, -1, -1, -1, -1, -1}))
                .isEqualTo(Flake128.MAX_WORKER_ID);
        assertThatThrownBy(() -> Flake128.workerIdOf(new byte[8]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a MAC address is 6 bytes, got 8");
    }
}
