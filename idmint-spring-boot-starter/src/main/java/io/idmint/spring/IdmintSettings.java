package io.idmint.spring;

import io.idmint.ClockPolicy;
import io.idmint.GeneratorListener;
import io.idmint.IdGenerator;
import io.idmint.Layout;
import io.idmint.SequenceStart;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.segment.RangeStores;
import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.SegmentOrder;
import io.idmint.segment.Segments;
import io.idmint.spi.RangeStore;
import io.idmint.spi.WorkerRegistry;
import io.idmint.spi.support.Durations;
import io.idmint.spi.support.NodeValues;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Reads the {@code idmint.*} properties into builders. Every value is read on its own, and a bad
 * one fails with {@code idmint.<property> = '<value>': <why>}; a combination the builder refuses
 * fails naming the settings involved.
 */
final class IdmintSettings {

    private final IdmintProperties p;
    /** {@code idmint.datacenter.name}, read apart: {@code idmint.datacenter} is a value too. */
    private final String datacenterName;

    /** @param datacenterName {@code idmint.datacenter.name}, or null */
    IdmintSettings(IdmintProperties properties, String datacenterName) {
        this.p = properties;
        this.datacenterName = datacenterName;
    }

    WorkerRegistry registry() {
        Path dataDir = read("data-dir", p.getDataDir(), IdmintSettings::directory);
        return read("registry", p.getRegistry(), uri -> WorkerRegistries.open(uri, dataDir));
    }

    IdGenerator generator(WorkerRegistry registry, GeneratorListener listener) {
        Snowflake b = Snowflake.newBuilder().registry(registry).listener(listener);
        set("layout", p.getLayout(), v -> b.layout(Layout.parse(v)));
        set("namespace", p.getNamespace(), b::namespace);
        set("datacenter", p.getDatacenter(), v -> b.datacenterId(whole(v)));
        if (datacenterName != null) {
            set("datacenter.name", datacenterName, b::datacenterName);
        }
        if (p.getWorker() != null) {
            set("worker", p.getWorker(),
                    v -> b.preferredWorkerId(NodeValues.worker(v, System.getenv())));
        }
        set("workers", p.getWorkers(), v -> b.workers(NodeValues.workers(v)));
        set("clock.policy", p.getClock().getPolicy(),
                v -> b.clockPolicy(oneOf(ClockPolicy.class, v)));
        set("clock.max-wait", p.getClock().getMaxWait(),
                v -> b.maxClockWait(Durations.parse(v)));
        set("clock.max-forward-step", p.getClock().getMaxForwardStep(),
                v -> b.maxForwardStep(Durations.parse(v)));
        set("clock.max-skew", p.getClock().getMaxSkew(),
                v -> b.maxClockSkew(Durations.parse(v)));
        int span = read("sequence.random-span", p.getSequence().getRandomSpan(),
                v -> (int) NodeValues.whole(v, 2, SequenceStart.MAX_SPAN,
                        "a whole number from 2 to " + SequenceStart.MAX_SPAN));
        set("sequence.start", p.getSequence().getStart(), v -> b.sequenceStart(
                oneOf(Start.class, v) == Start.RANDOM
                        ? SequenceStart.random(span, new SecureRandom()) : SequenceStart.zero()));
        set("sequence.max-lead", p.getSequence().getMaxLead(),
                v -> b.maxLead(Durations.parse(v)));
        set("lease.ttl", p.getLease().getTtl(), v -> b.leaseTtl(Durations.parse(v)));
        set("lease.keepalive", p.getLease().getKeepalive(),
                v -> b.keepaliveInterval(Durations.parse(v)));
        set("lease.store-timeout", p.getLease().getStoreTimeout(),
                v -> b.storeTimeout(Durations.parse(v)));
        set("lease.reservation", p.getLease().getReservation(),
                v -> b.reservationWindow(Durations.parse(v)));
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("idmint: " + e.getMessage() + "; from "
                    + quoted("layout", p.getLayout()) + ", "
                    + quoted("datacenter", p.getDatacenter()) + ", "
                    + quoted("worker", p.getWorker()) + ", "
                    + quoted("workers", p.getWorkers()) + ", "
                    + quoted("sequence.start", p.getSequence().getStart()) + ", "
                    + quoted("sequence.random-span", p.getSequence().getRandomSpan()) + ", "
                    + quoted("lease.ttl", p.getLease().getTtl()) + ", "
                    + quoted("lease.keepalive", p.getLease().getKeepalive()) + ", "
                    + quoted("lease.store-timeout", p.getLease().getStoreTimeout()) + ", "
                    + quoted("lease.reservation", p.getLease().getReservation()), e);
        }
    }

    /** The values of {@code idmint.sequence.start}. */
    private enum Start {
        ZERO, RANDOM
    }

    private static String quoted(String property, String value) {
        return "idmint." + property + " = '" + (value == null ? "" : value) + "'";
    }

    /** Whether a segment store is configured. */
    boolean segments() {
        return p.getSegment().getStore() != null && !p.getSegment().getStore().isBlank();
    }

    RangeStore rangeStore() {
        Path dataDir = read("data-dir", p.getDataDir(), IdmintSettings::directory);
        return read("segment.store", p.getSegment().getStore(),
                uri -> RangeStores.open(uri, dataDir));
    }

    SegmentGenerator segmentGenerator(RangeStore store) {
        IdmintProperties.Segment s = p.getSegment();
        Segments b = Segments.newBuilder().store(store);
        set("segment.step", s.getStep(), v -> b.step(wholeLong(v)));
        if (s.getMinStep() != null) {
            set("segment.min-step", s.getMinStep(), v -> b.minStep(wholeLong(v)));
        }
        if (s.getMaxStep() != null) {
            set("segment.max-step", s.getMaxStep(), v -> b.maxStep(wholeLong(v)));
        }
        set("segment.target-duration", s.getTargetDuration(),
                v -> b.targetDuration(Durations.parse(v)));
        set("segment.fetch-timeout", s.getFetchTimeout(),
                v -> b.fetchTimeout(Durations.parse(v)));
        set("segment.auto-create", s.getAutoCreate(), v -> b.autoCreate(bool(v)));
        set("segment.order", s.getOrder(), v -> b.order(oneOf(SegmentOrder.class, v)));
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("idmint: " + e.getMessage() + "; from "
                    + quoted("segment.step", s.getStep()) + ", "
                    + quoted("segment.min-step", s.getMinStep()) + ", "
                    + quoted("segment.max-step", s.getMaxStep()), e);
        }
    }

    /** The value read by {@code parse}, or a failure naming the property and the value. */
    static <T> T read(String property, String value, Function<String, T> parse) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("idmint." + property + " = '"
                    + (value == null ? "" : value) + "': must not be empty");
        }
        try {
            return parse.apply(value.trim());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("idmint." + property + " = '" + value + "': "
                    + e.getMessage(), e);
        }
    }

    /**
     * As {@link #read}, for a value that holds key material ({@code codes.key},
     * {@code codes.old-keys}): the failure names the property, never the value.
     */
    static <T> T readSecret(String property, String value, Function<String, T> parse) {
        try {
            return parse.apply(value.trim());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("idmint." + property + " (not shown): "
                    + e.getMessage(), e);
        }
    }

    /** Reads {@code value} and hands it to a builder setter, which may refuse it too. */
    static void set(String property, String value, Consumer<String> setter) {
        read(property, value, v -> {
            setter.accept(v);
            return v;
        });
    }

    /**
     * The data directory, created when missing. Checked here because the registry would only
     * keep retrying (NOT READY) on a directory it cannot use, and start-up would pass.
     */
    static Path directory(String v) {
        Path dir = Path.of(v);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot create the directory: " + e, e);
        }
        if (!Files.isWritable(dir)) {
            throw new IllegalArgumentException("the directory is not writable");
        }
        return dir;
    }

    static int whole(String v) {
        long n = wholeLong(v);
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("too large");
        }
        return (int) n;
    }

    static long wholeLong(String v) {
        if (!v.matches("-?[0-9]{1,18}")) {
            throw new IllegalArgumentException("not a whole number");
        }
        return Long.parseLong(v);
    }

    static boolean bool(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("must be true or false");
        };
    }

    static <E extends Enum<E>> E oneOf(Class<E> type, String v) {
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(v)) {
                return e;
            }
        }
        throw new IllegalArgumentException("must be one of " + String.join(", ",
                Arrays.stream(type.getEnumConstants())
                        .map(e -> e.name().toLowerCase(Locale.ROOT)).toList()));
    }
}
