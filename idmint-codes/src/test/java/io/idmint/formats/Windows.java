package io.idmint.formats;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.SplittableRandom;

/** Random time windows for the range tests: 2017 to 2096, a microsecond to ten days long. */
final class Windows {

    private Windows() {
    }

    /** A window {@code [from, to)}, to the microsecond. */
    static Instant[] random(SplittableRandom random) {
        Instant from = Instant.EPOCH.plus(random.nextLong(1_500_000_000_000_000L,
                4_000_000_000_000_000L), ChronoUnit.MICROS);
        return new Instant[] {from, from.plus(1 + random.nextLong(864_000_000_000L),
                ChronoUnit.MICROS)};
    }
}
