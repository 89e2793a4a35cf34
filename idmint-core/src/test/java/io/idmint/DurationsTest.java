package io.idmint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.spi.support.Durations;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void parse_everyUnit_blanksIgnored() {
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse(" 2s ")).isEqualTo(Duration.ofSeconds(2));
        assertThat(Durations.parse("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(Durations.parse("3h")).isEqualTo(Duration.ofHours(3));
    }

    @Test
    void parse_notADuration_namesTheText() {
        for (String bad : new String[] {"", "2", "1.5s", "-1s", "1d", "s", "1 s", "2S", "PT2S"}) {
            assertThatThrownBy(() -> Durations.parse(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("'" + bad + "' is not a duration");
        }
        assertThatThrownBy(() -> Durations.parse(null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parse_outsideBounds_namesTheBounds() {
        assertThat(Durations.parse("100ms", Duration.ofMillis(100), Duration.ofMinutes(1)))
                .isEqualTo(Duration.ofMillis(100));
        assertThat(Durations.parse("60s", Duration.ofMillis(100), Duration.ofMinutes(1)))
                .isEqualTo(Duration.ofMinutes(1));
        assertThatThrownBy(() -> Durations.parse("99ms", Duration.ofMillis(100),
                Duration.ofMinutes(1))).hasMessage("'99ms' must be between 100ms and 1m");
        assertThatThrownBy(() -> Durations.parse("2h", Duration.ofMillis(1),
                Duration.ofMinutes(90))).hasMessage("'2h' must be between 1ms and 90m");
    }

    @Test
    void deadlineNanos_saturatesInsteadOfOverflowing() {
        // Regression: shutdown.grace 100000000h made SIGTERM throw "long overflow".
        long now = System.nanoTime();
        long far = Durations.deadlineNanos(now, Duration.ofHours(100_000_000));
        assertThat(far - now).isEqualTo(Long.MAX_VALUE / 2);
        assertThat(Durations.deadlineNanos(Long.MAX_VALUE - 5, Duration.ofDays(1))
                - (Long.MAX_VALUE - 5)).isEqualTo(Duration.ofDays(1).toNanos());
        assertThat(Durations.deadlineNanos(now, Duration.ofSeconds(10)) - now)
                .isEqualTo(10_000_000_000L);
    }

    @Test
    void format_writesDurationsAsUsersDoAndParseReadsThemBack() {
        assertThat(Durations.format(Duration.ofMillis(250))).isEqualTo("250ms");
        assertThat(Durations.format(Duration.ofSeconds(1))).isEqualTo("1s");
        assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(Durations.format(Duration.ofMinutes(60))).isEqualTo("1h");
        assertThat(Durations.format(Duration.ofNanos(300_000_000))).isEqualTo("300ms");
        assertThat(Durations.format(Duration.ZERO)).isEqualTo("0ms");
        for (long ms = 0; ms < 200_000; ms += 7) {
            Duration d = Duration.ofMillis(ms * 997);
            assertThat(Durations.parse(Durations.format(d))).isEqualTo(d);
        }
    }
}
