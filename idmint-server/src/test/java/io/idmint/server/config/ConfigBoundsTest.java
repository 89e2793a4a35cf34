package io.idmint.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.Main;
import io.idmint.server.config.Config.Key;
import io.idmint.server.harness.Cli;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every key of the table, at its extremes, through the real command line ({@code idmint config},
 * which loads the configuration as {@code serve} does and starts nothing): a value is either
 * taken (exit 0), or refused with exit 2 and one message naming the key and the value, never an
 * internal error, an exception's class or an overflow.
 */
class ConfigBoundsTest {

    /** What every key is tried with, besides the value just past its documented max. */
    private static final List<String> EXTREMES = List.of("", " ", "-1", "0",
            "99999999999999999999", "100000000h", "garbage text");

    /** The value just past each bounded key's documented max (docs/configuration.md). */
    private static final Map<String, String> PAST_MAX = Map.ofEntries(
            Map.entry("datacenter", "2147483648"),
            Map.entry("worker", "2147483648"),
            Map.entry("workers", "1025"),
            Map.entry("clock.max-wait", "10001ms"),
            Map.entry("clock.max-forward-step", "60001ms"),
            Map.entry("clock.max-skew", "601s"),
            Map.entry("sequence.max-lead", "61s"),
            Map.entry("sequence.random-span", "1073741825"),
            Map.entry("lease.ttl", "601s"),
            Map.entry("lease.keepalive", "601s"),
            Map.entry("lease.store-timeout", "601s"),
            Map.entry("lease.reservation", "301s"),
            Map.entry("http-port", "65536"),
            Map.entry("grpc-port", "65536"),
            Map.entry("max-count", "1000001"),
            Map.entry("rate-limit", "1000000000000000001"),
            Map.entry("shutdown.grace", "601s"),
            Map.entry("codes.key-version", "32"),
            Map.entry("flake.worker", "281474976710656"),
            Map.entry("segment.step", "1099511627777"),
            Map.entry("segment.min-step", "1099511627777"),
            Map.entry("segment.max-step", "1099511627777"),
            Map.entry("segment.target-duration", "3601s"),
            Map.entry("segment.fetch-timeout", "61s"));

    /**
     * The extremes a key legitimately takes: names, paths and URIs are checked where they are
     * used (the registry, the store), whole numbers from 0 take 0.
     */
    private static final Map<String, Set<String>> ACCEPTED = Map.ofEntries(
            Map.entry("datacenter", Set.of("0")),
            Map.entry("worker", Set.of("0")),
            Map.entry("datacenter.name", Set.of("-1", "0", "99999999999999999999", "100000000h",
                    "garbage text")),
            Map.entry("registry", Set.of("-1", "0", "99999999999999999999", "100000000h",
                    "garbage text")),
            Map.entry("data-dir", Set.of("-1", "0", "99999999999999999999", "100000000h",
                    "garbage text")),
            Map.entry("namespace", Set.of("-1", "0", "99999999999999999999", "100000000h",
                    "garbage text")),
            Map.entry("segment.store", Set.of("-1", "0", "99999999999999999999", "100000000h",
                    "garbage text")),
            Map.entry("bind", Set.of("100000000h")),
            Map.entry("http-port", Set.of("0")),
            Map.entry("grpc-port", Set.of("0")),
            Map.entry("rate-limit", Set.of("0")),
            Map.entry("auth.token", Set.of("-1", "0", "99999999999999999999", "100000000h",
                    "garbage text")),
            Map.entry("auth.admin-token", Set.of("-1", "0", "99999999999999999999",
                    "100000000h", "garbage text")),
            Map.entry("codes.key-version", Set.of("0")),
            Map.entry("codes.dev", Set.of("0")),
            Map.entry("segment.auto-create", Set.of("0")),
            Map.entry("flake.worker", Set.of("0")),
            Map.entry("log.access", Set.of("-1", "0", "99999999999999999999", "100000000h",
                    "garbage text")));

    @Test
    void everyKey_atItsExtremes_isTakenOrRefusedWithExit2NamingKeyAndValue() {
        List<String> failures = new ArrayList<>();
        for (Key<?> key : Config.keys()) {
            List<String> values = new ArrayList<>(EXTREMES);
            if (PAST_MAX.containsKey(key.name())) {
                values.add(PAST_MAX.get(key.name()));
            }
            for (String value : values) {
                // The flag=value form: a value may start with a dash.
                Cli.Result r = Cli.run(Map.of(), "config", key.flag() + "=" + value);
                boolean accepted = ACCEPTED.getOrDefault(key.name(), Set.of()).contains(value);
                String shown = Config.secret(key) ? "(hidden)" : value;
                String what = key.name() + " '" + value + "': exit " + r.exitCode() + ", "
                        + r.err();
                if (accepted) {
                    if (r.exitCode() != Main.OK) {
                        failures.add(what + " (expected it taken)");
                    }
                } else if (r.exitCode() != Main.USAGE
                        || !r.err().startsWith("idmint: " + key.name() + " '" + shown + "' (from "
                                + "flag " + key.flag() + ") is not valid: ")
                        || r.err().contains("internal error") || r.err().contains("Exception")
                        || r.err().contains("overflow") || r.err().contains("java.")
                        || (Config.secret(key) && value.length() > 4 && r.err().contains(value))
                        || !r.out().isEmpty()) {
                    failures.add(what);
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void everyBoundedKey_atItsDocumentedMax_isTaken() {
        Map<String, String> max = Map.ofEntries(Map.entry("clock.max-wait", "10s"),
                Map.entry("clock.max-forward-step", "1m"), Map.entry("clock.max-skew", "10m"),
                Map.entry("sequence.max-lead", "1m"), Map.entry("lease.ttl", "10m"),
                Map.entry("lease.keepalive", "10m"), Map.entry("lease.store-timeout", "10m"),
                Map.entry("lease.reservation", "5m"), Map.entry("shutdown.grace", "10m"),
                Map.entry("segment.target-duration", "1h"),
                Map.entry("segment.fetch-timeout", "1m"));
        for (Map.Entry<String, String> e : max.entrySet()) {
            Key<?> key = Config.keys().stream().filter(k -> k.name().equals(e.getKey()))
                    .findFirst().orElseThrow();
            Cli.Result r = Cli.run(Map.of(), "config", key.flag(), e.getValue());

            assertThat(r.exitCode()).as(e + ": " + r.err()).isZero();
            assertThat(key.description()).as("help of " + key.name())
                    .endsWith(" to " + e.getValue());
        }
    }

    @Test
    void outOfRangeDuration_fromEachSource_namesKeyValueSourceAndRange() throws Exception {
        // Regression: each was taken, and broke the node later (CLOCK_BEHIND for good, an
        // overflow on SIGTERM, "internal error").
        Cli.Result flag = Cli.run("config", "--lease-reservation", "100000000h");
        assertThat(flag.exitCode()).isEqualTo(Main.USAGE);
        assertThat(flag.err()).isEqualTo("idmint: lease.reservation '100000000h' (from flag "
                + "--lease-reservation) is not valid: '100000000h' must be between 30ms and 5m\n");

        Cli.Result env = Cli.run(Map.of("IDMINT_SHUTDOWN_GRACE", "100000000h"), "serve");
        assertThat(env.exitCode()).isEqualTo(Main.USAGE);
        assertThat(env.err()).isEqualTo("idmint: shutdown.grace '100000000h' (from environment "
                + "variable IDMINT_SHUTDOWN_GRACE) is not valid: '100000000h' must be between 0ms "
                + "and 10m\n");

        Cli.Result serve = Cli.run("serve", "--segment-target-duration", "100000000h");
        assertThat(serve.exitCode()).isEqualTo(Main.USAGE);
        assertThat(serve.err()).isEqualTo("idmint: segment.target-duration '100000000h' (from "
                + "flag --segment-target-duration) is not valid: '100000000h' must be between "
                + "1ms and 1h\n");
    }
}
