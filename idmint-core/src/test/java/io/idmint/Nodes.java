package io.idmint;

import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.ManualTimeSource;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;

/** Builds generators driven by a manual clock, with the protocol stepped by the test. */
final class Nodes {

    /** 2026-06-01T00:00:00Z, well after the default epoch. */
    static final long T0 = 1_780_272_000_000L;

    /** Runs no maintenance loop: the test takes each protocol step itself, with {@link #step}. */
    static final Executor NO_LOOP = loop -> { };

    private Nodes() {
    }

    static SnowflakeGenerator manual(WorkerRegistry registry, ManualTimeSource time,
            UnaryOperator<Snowflake> config) {
        Snowflake b = Snowflake.newBuilder().registry(registry).timeSource(time)
                .maintenance(NO_LOOP);
        return (SnowflakeGenerator) config.apply(b).build();
    }

    static SnowflakeGenerator manual(WorkerRegistry registry, ManualTimeSource time) {
        return manual(registry, time, b -> b);
    }

    /** A generator striped over {@code workers} workers, its leases stepped by the test. */
    static StripedGenerator striped(WorkerRegistry registry, ManualTimeSource time, int workers,
            UnaryOperator<Snowflake> config) {
        Snowflake b = Snowflake.newBuilder().registry(registry).timeSource(time).workers(workers)
                .maintenance(NO_LOOP);
        return (StripedGenerator) config.apply(b).build();
    }

    static StripedGenerator striped(WorkerRegistry registry, ManualTimeSource time,
            int workers) {
        return striped(registry, time, workers, b -> b);
    }

    /** One protocol step (of every worker), as the maintenance threads would take it. */
    static void step(IdGenerator g) {
        if (g instanceof StripedGenerator s) {
            s.stripes().forEach(Nodes::step);
        } else {
            ((SnowflakeGenerator) g).lease().maintain();
        }
    }

    static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }
}
