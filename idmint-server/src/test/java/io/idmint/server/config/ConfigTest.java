package io.idmint.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.ClockPolicy;
import io.idmint.segment.SegmentOrder;
import io.idmint.server.Main;
import io.idmint.server.cli.ConfigCommand;
import io.idmint.server.config.Config.Key;
import io.idmint.server.config.Config.Setting;
import io.idmint.server.harness.Cli;
import io.idmint.spi.support.Durations;
import io.idmint.spi.support.NodeValues;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigTest {

    @TempDir
    Path dir;

    @Test
    void keys_eachHasADescriptionAndUniqueFlagAndEnvVar() {
        Set<String> flags = new HashSet<>();
        Set<String> envVars = new HashSet<>();
        for (Key<?> key : Config.keys()) {
            assertThat(key.description()).as(key.name()).isNotBlank();
            assertThat(key.valueLabel()).as(key.name()).isNotBlank();
            assertThat(flags.add(key.flag())).as(key.flag()).isTrue();
            assertThat(envVars.add(key.envVar())).as(key.envVar()).isTrue();
        }
        assertThat(ConfigCommand.describeKeys()).contains("IDMINT_CLOCK_MAX_WAIT");
    }

    @Test
    void keys_defaultsParse() {
        Config config = Config.load(Map.of(), Map.of(), null);

        assertThat(config.get(Config.CLOCK_MAX_WAIT)).isEqualTo(Duration.ofMillis(10));
        assertThat(config.get(Config.CLOCK_POLICY)).isEqualTo(ClockPolicy.FAIL);
        assertThat(config.get(Config.DATA_DIR)).isEqualTo(Path.of("./data"));
        assertThat(config.get(Config.WORKER)).isNull();
        assertThat(config.setting(Config.LAYOUT)).isEqualTo(new Setting("snowflake", "default"));
    }

    @Test
    void workers_aWholeNumberFrom1To1024_orAutoForOnePerProcessor() {
        assertThat(Config.load(Map.of(), Map.of(), null).get(Config.WORKERS)).isEqualTo(1);
        assertThat(NodeValues.workers("auto"))
                .isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(NodeValues.workers(" 8 ")).isEqualTo(8);
        assertThat(NodeValues.workers("1024")).isEqualTo(1024);
        for (String bad : new String[] {"0", "1025", "-1", "two", ""}) {
            assertThatThrownBy(() -> NodeValues.workers(bad)).as(bad)
                    .hasMessage("expected a whole number from 1 to 1024, or auto (one per "
                            + "available processor)");
        }
    }

    @Test
    void key_namesMapToFlagAndEnvVar() {
        assertThat(Config.CLOCK_MAX_WAIT.flag()).isEqualTo("--clock-max-wait");
        assertThat(Config.CLOCK_MAX_WAIT.envVar()).isEqualTo("IDMINT_CLOCK_MAX_WAIT");
        assertThat(Config.DATA_DIR.envVar()).isEqualTo("IDMINT_DATA_DIR");
        assertThat(Config.LEASE_STORE_TIMEOUT.flag()).isEqualTo("--lease-store-timeout");
    }

    @Test
    void load_flagWinsOverEnvWinsOverFile() throws Exception {
        Path file = Files.writeString(dir.resolve("c.properties"),
                "datacenter=1\nworker=1\nnamespace=file\n");
        Map<String, String> env = Map.of("IDMINT_DATACENTER", "2", "IDMINT_WORKER", "2");
        Map<Key<?>, Setting> flags = Map.of(Config.DATACENTER, new Setting("3", "flag"));

        Config config = Config.load(flags, env, file.toString());

        assertThat(config.get(Config.DATACENTER)).isEqualTo(3);
        assertThat(config.get(Config.WORKER)).isEqualTo(2);
        assertThat(config.get(Config.NAMESPACE)).isEqualTo("file");
        assertThat(config.setting(Config.WORKER).source())
                .isEqualTo("environment variable IDMINT_WORKER");
        assertThat(config.setting(Config.NAMESPACE).source()).contains(file.toString());
    }

    @Test
    void load_configFileFromEnv_isRead_andFlagWins() throws Exception {
        Path fromEnv = Files.writeString(dir.resolve("env.properties"), "namespace=env\n");
        Path fromFlag = Files.writeString(dir.resolve("flag.properties"), "namespace=flag\n");
        Map<String, String> env = Map.of("IDMINT_CONFIG", fromEnv.toString());

        assertThat(Config.load(Map.of(), env, null).get(Config.NAMESPACE)).isEqualTo("env");
        assertThat(Config.load(Map.of(), env, fromFlag.toString()).get(Config.NAMESPACE))
                .isEqualTo("flag");
    }

    @Test
    void load_throughTheCli_flagWinsOverEnvWinsOverFile() throws Exception {
        Path file = Files.writeString(dir.resolve("c.properties"),
                "clock.max-wait=1ms\nlease.ttl=40s\nsequence.max-lead=5ms\n");
        Map<String, String> env = Map.of("IDMINT_CONFIG", file.toString(),
                "IDMINT_CLOCK_MAX_WAIT", "2ms", "IDMINT_LEASE_TTL", "50s");

        Cli.Result r = Cli.run(env, "config", "--clock-max-wait", "3ms");

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out())
                .containsPattern("clock.max-wait +3ms +flag --clock-max-wait\n")
                .containsPattern("lease.ttl +50s +environment variable IDMINT_LEASE_TTL\n")
                .containsPattern("sequence.max-lead +5ms +config file .*c.properties\n")
                .containsPattern("lease.keepalive +10s +default\n");
    }

    @Test
    void load_unknownIdmintEnvVars_areIgnored() {
        Config config = Config.load(Map.of(),
                Map.of("IDMINT_JAVA_OPTS", "-Xmx1g", "IDMINT_FOO", "x"), null);

        assertThat(config.get(Config.WORKER)).isNull();
    }

    @Test
    void load_emptyAuthTokenEnvVar_exits2InsteadOfTurningAuthOff() {
        // Regression: IDMINT_AUTH_TOKEN= was skipped as unset, so auth was silently off.
        for (String variable : new String[] {"IDMINT_AUTH_TOKEN", "IDMINT_AUTH_ADMIN_TOKEN"}) {
            for (String blank : new String[] {"", " "}) {
                Cli.Result r = Cli.run(Map.of(variable, blank), "config");

                assertThat(r.exitCode()).as(variable + "='" + blank + "'").isEqualTo(Main.USAGE);
                assertThat(r.err()).isEqualTo("idmint: environment variable " + variable
                        + " is set but empty: unset it or give a value\n");
                assertThat(r.out()).isEmpty();
            }
        }
    }

    @Test
    void load_blankEnvVar_isAnErrorForEveryKeyAndTheConfigFile() {
        for (Key<?> key : Config.keys()) {
            assertThatThrownBy(() -> Config.load(Map.of(), Map.of(key.envVar(), ""), null))
                    .as(key.name()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("environment variable " + key.envVar()
                            + " is set but empty: unset it or give a value");
        }
        assertThatThrownBy(() -> Config.load(Map.of(), Map.of("IDMINT_CONFIG", " "), null))
                .hasMessage("environment variable IDMINT_CONFIG is set but empty: unset it or "
                        + "give a value");
    }

    @Test
    void configFile_aDirectory_exits2SayingSo() {
        // Regression: exit 1 with an IOException's text.
        Cli.Result r = Cli.run("config", "--config", dir.toString());

        assertThat(r.exitCode()).isEqualTo(Main.USAGE);
        assertThat(r.err()).isEqualTo("idmint: config file '" + dir + "' (from --config) is a "
                + "directory\n");
    }

    @Test
    void configFile_binary_exits2SayingItIsNoTextPropertiesFile() throws Exception {
        // Regression: exit 1, or keys read out of binary noise.
        Path nul = Files.write(dir.resolve("nul.properties"), new byte[] {'a', '=', 0, '\n'});
        Path latin1 = Files.write(dir.resolve("latin1.properties"),
                new byte[] {'n', 'a', 'm', 'e', 's', 'p', 'a', 'c', 'e', '=', (byte) 0xe9});

        Cli.Result r = Cli.run("config", "--config", nul.toString());
        assertThat(r.exitCode()).isEqualTo(Main.USAGE);
        assertThat(r.err()).isEqualTo("idmint: config file '" + nul + "' (from --config) is not "
                + "a text properties file: it holds a NUL byte\n");

        r = Cli.run(Map.of("IDMINT_CONFIG", latin1.toString()), "config");
        assertThat(r.exitCode()).isEqualTo(Main.USAGE);
        assertThat(r.err()).isEqualTo("idmint: config file '" + latin1 + "' (from IDMINT_CONFIG) "
                + "is not a text properties file: it is not UTF-8\n");
    }

    @Test
    void configFile_aKeyGivenTwice_exits2NamingKeyAndFile() throws Exception {
        // Regression: the second value won without a word.
        Path file = Files.writeString(dir.resolve("twice.properties"),
                "namespace=a\nlease.ttl=30s\nnamespace : b\n");

        Cli.Result r = Cli.run("config", "--config", file.toString());

        assertThat(r.exitCode()).isEqualTo(Main.USAGE);
        assertThat(r.err()).isEqualTo("idmint: config file '" + file + "' (from --config): key "
                + "namespace is given twice; give each key once\n");
    }

    @Test
    void bind_isCheckedBySyntax_withoutAskingDns() {
        // Regression: 999.1.1.1 went to DNS at bind and exited 1.
        for (String good : new String[] {"127.0.0.1", "0.0.0.0", "255.255.255.255", "::1", "::",
            "fe80::1%1", "2001:db8::8a2e:370:7334", "::ffff:10.0.0.1", "localhost",
            "node-1.example.com", "example.com."}) {
            assertThat(ConfigValues.bind(good)).as(good).isEqualTo(good);
        }
        for (String bad : new String[] {"999.1.1.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1..2.3",
            "256.0.0.0", "::g", "1:2:3:4:5:6:7:8:9", ":::", "-host", "host-", "a..b", "a b",
            "host_name", "x".repeat(64)}) {
            Cli.Result r = Cli.run(Map.of("IDMINT_BIND", bad), "config");
            assertThat(r.exitCode()).as(bad + ": " + r.err()).isEqualTo(Main.USAGE);
            assertThat(r.err()).as(bad).startsWith("idmint: bind '" + bad + "' (from "
                    + "environment variable IDMINT_BIND) is not valid: expected ");
        }
    }

    @Test
    void logAccess_aFileThatCannotBeAppended_exits2() throws Exception {
        // Regression: serve started, then exited 1 when it opened the file.
        Path missing = dir.resolve("no/such/dir/access.log");

        Cli.Result r = Cli.run("config", "--log-access", missing.toString());
        assertThat(r.exitCode()).isEqualTo(Main.USAGE);
        assertThat(r.err()).isEqualTo("idmint: log.access '" + missing + "' (from flag "
                + "--log-access) is not valid: its directory " + missing.getParent()
                + " does not exist\n");

        r = Cli.run("serve", "--log-access", dir.toString());
        assertThat(r.exitCode()).isEqualTo(Main.USAGE);
        assertThat(r.err()).isEqualTo("idmint: log.access '" + dir + "' (from flag --log-access) "
                + "is not valid: is a directory; expected off, on or a file\n");

        assertThat(Cli.run("config", "--log-access", dir.resolve("access.log").toString())
                .exitCode()).isZero();
        assertThat(Cli.run("config", "--log-access", "on").exitCode()).isZero();
    }

    @Test
    void load_launchersJavaOpts_isNoMisspelledKey() {
        // Regression: ./idmint's own variable drew "not an idmint setting" on every run.
        Config config = Config.load(Map.of(), Map.of("IDMINT_JAVA_OPTS", "-Xmx1g"), null);

        assertThat(config.warnings()).isEmpty();
    }

    @Test
    void load_badDurationFromEachSource_namesKeyValueAndSource() throws Exception {
        assertThatThrownBy(() -> Config.load(Map.of(Config.LEASE_TTL,
                new Setting("30", "flag --lease-ttl")), Map.of(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease.ttl '30'").hasMessageContaining("flag --lease-ttl");
        assertThatThrownBy(() -> Config.load(Map.of(), Map.of("IDMINT_CLOCK_MAX_WAIT", "1.5s"),
                null))
                .hasMessageContaining("clock.max-wait '1.5s'")
                .hasMessageContaining("IDMINT_CLOCK_MAX_WAIT");
        Path file = Files.writeString(dir.resolve("c.properties"), "lease.keepalive=ten\n");
        assertThatThrownBy(() -> Config.load(Map.of(), Map.of(), file.toString()))
                .hasMessageContaining("lease.keepalive 'ten'")
                .hasMessageContaining(file.toString());
    }

    @Test
    void cli_badDurationFlag_exits2NamingIt() {
        Cli.Result r = Cli.run("next", "--clock-max-wait", "10 ms");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("clock.max-wait '10 ms'").contains("--clock-max-wait")
                .doesNotContain("Exception");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void cli_unknownKeyInConfigFile_exits2NamingKeyAndFile() throws Exception {
        Path file = Files.writeString(dir.resolve("c.properties"),
                "layout=snowflake\nclock.maxwait=5ms\n");

        Cli.Result r = Cli.run("layout", "--config", file.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("clock.maxwait").contains(file.toString());
        assertThat(r.out()).isEmpty();
    }

    @Test
    void cli_missingConfigFile_exits2NamingIt() {
        Path missing = dir.resolve("nope.properties");

        Cli.Result r = Cli.run(Map.of("IDMINT_CONFIG", missing.toString()), "layout");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains(missing.toString()).contains("IDMINT_CONFIG");
    }

    @Test
    void parsers_areStrict() {
        assertThat(Durations.parse("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(Durations.parse("0ms")).isZero();
        for (String bad : new String[] {"", "10", "ms", "-1s", "1.5s", "10 ms", "10MS", "1d",
            "PT10S", "9999999999999s"}) {
            assertThatThrownBy(() -> Durations.parse(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(ConfigValues.integer(0, Integer.MAX_VALUE).apply("31")).isEqualTo(31);
        for (String bad : new String[] {"", "-1", "+1", "1.0", "2147483648", "abc"}) {
            assertThatThrownBy(() -> ConfigValues.integer(0, Integer.MAX_VALUE).apply(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(ConfigValues.clockPolicy("Continue")).isEqualTo(ClockPolicy.CONTINUE);
        assertThat(ConfigValues.segmentOrder(" Relaxed")).isEqualTo(SegmentOrder.RELAXED);
        assertThatThrownBy(() -> ConfigValues.segmentOrder("sorted"))
                .hasMessage("expected issue or relaxed");
    }

    @Test
    void serveKeys_defaults() {
        Config config = Config.load(Map.of(), Map.of(), null);

        assertThat(config.get(Config.HTTP_PORT)).isEqualTo(8080);
        assertThat(config.get(Config.GRPC_PORT)).isEqualTo(9090);
        assertThat(config.get(Config.BIND)).isEqualTo("0.0.0.0");
        assertThat(config.get(Config.MAX_COUNT)).isEqualTo(10_000);
        assertThat(config.get(Config.SEGMENT_ORDER)).isEqualTo(SegmentOrder.ISSUE);
        assertThat(config.get(Config.AUTH_TOKEN)).isNull();
        assertThat(config.get(Config.AUTH_ADMIN_TOKEN)).isNull();
        assertThat(config.get(Config.RATE_LIMIT)).isZero();
        assertThat(config.get(Config.SHUTDOWN_GRACE)).isEqualTo(Duration.ofSeconds(10));
        assertThat(Config.AUTH_ADMIN_TOKEN.envVar()).isEqualTo("IDMINT_AUTH_ADMIN_TOKEN");
        assertThat(Config.SHUTDOWN_GRACE.flag()).isEqualTo("--shutdown-grace");
    }

    @Test
    void serveParsers_areStrict() {
        assertThat(ConfigValues.PORT.apply("0")).isZero();
        assertThat(ConfigValues.PORT.apply("65535")).isEqualTo(65535);
        for (String bad : new String[] {"", "-1", "65536", "80a", "123456"}) {
            assertThatThrownBy(() -> ConfigValues.PORT.apply(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        var maxCount = Config.MAX_COUNT;
        assertThat(maxCount.parse("1", Map.of())).isEqualTo(1);
        assertThat(maxCount.parse("1000000", Map.of())).isEqualTo(1_000_000);
        for (String bad : new String[] {"0", "1000001", "-5", "1e4", ""}) {
            assertThatThrownBy(() -> maxCount.parse(bad, Map.of())).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(ConfigValues.number(0, 1_000_000_000_000_000_000L).apply("0")).isZero();
        assertThatThrownBy(() -> ConfigValues.number(0, 1_000_000_000_000_000_000L).apply("-1"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void worker_aNumberOrThePodOrdinal_fromPodNameElseHostname() {
        assertThat(NodeValues.worker(" 7 ", Map.of())).isEqualTo(7);
        assertThat(NodeValues.worker("ordinal", Map.of("POD_NAME", "idmint-0",
                "HOSTNAME", "idmint-9"))).isZero();
        assertThat(NodeValues.worker("ordinal", Map.of("HOSTNAME", "idmint-east-12")))
                .isEqualTo(12);
        assertThat(NodeValues.worker("ordinal", Map.of("POD_NAME", " ", "HOSTNAME",
                "a-3"))).isEqualTo(3);
        assertThat(NodeValues.worker("ordinal", Map.of("HOSTNAME", "s-999999999")))
                .isEqualTo(999_999_999);
    }

    @Test
    void worker_badPodNames_failNamingTheVariableAndValue() {
        for (String bad : new String[] {"idmint", "idmint-", "idmint-01", "idmint-x",
            "idmint-3a", "idmint-+1", "idmint-1234567890", "7"}) {
            assertThatThrownBy(() -> NodeValues.worker("ordinal", Map.of("POD_NAME", bad)))
                    .as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("POD_NAME '" + bad + "' does not end in -N");
        }
        assertThatThrownBy(() -> NodeValues.worker("ordinal", Map.of()))
                .hasMessageContaining("neither is set");
        for (String bad : new String[] {"-1", "ordinal-1", "Ordinal", "", "2147483648"}) {
            assertThatThrownBy(() -> NodeValues.worker(bad, Map.of())).as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("or ordinal");
        }
    }

    @Test
    void cli_workerOrdinal_isThePreferredWorker_andOneBeyondTheLayoutFailsClearly(
            @TempDir Path dir) {
        Cli.Result ok = Cli.run(Map.of("POD_NAME", "idmint-5"), "next", "--worker",
                "ordinal", "--data-dir", dir.toString());
        assertThat(ok.exitCode()).as(ok.err()).isZero();
        assertThat(Cli.run(Map.of(), "decode", ok.out().trim()).out())
                .contains("\"worker_id\":5");

        Cli.Result beyond = Cli.run(Map.of("HOSTNAME", "idmint-32"), "next", "--worker",
                "ordinal", "--data-dir", dir.toString());
        assertThat(beyond.exitCode()).isEqualTo(Main.USAGE);
        assertThat(beyond.err()).contains("worker 32 does not fit layout").contains("0..31");

        Cli.Result bad = Cli.run(Map.of("HOSTNAME", "laptop"), "next", "--worker", "ordinal",
                "--data-dir", dir.toString());
        assertThat(bad.exitCode()).isEqualTo(Main.USAGE);
        assertThat(bad.err()).contains("worker 'ordinal' (from flag --worker) is not valid")
                .contains("HOSTNAME 'laptop' does not end in -N");
    }

    @Test
    void cli_configCommand_hidesTokens() {
        Cli.Result r = Cli.run(Map.of("IDMINT_AUTH_TOKEN", "s3cret"), "config");

        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).doesNotContain("s3cret").contains("auth.token").contains("(hidden)");
    }

    @Test
    void number_oneParser_digitsOnlyWithinItsRange() {
        assertThat(ConfigValues.number(" 7 ", 1, 9, "a digit")).isEqualTo(7);
        assertThat(ConfigValues.number("1000000000000000000", 0, 1_000_000_000_000_000_000L,
                "x")).isEqualTo(1_000_000_000_000_000_000L);
        for (String bad : new String[] {"", "0", "10", "+5", "-5", "5.0", "5e0", "0x5", "five",
            "99999999999999999999"}) {
            assertThatThrownBy(() -> ConfigValues.number(bad, 1, 9, "a digit from 1 to 9"))
                    .as(bad).hasMessage("expected a digit from 1 to 9");
        }
    }

    @Test
    void serveKeys_areTheMintKeysAndTheServersOwn_eachOnce() {
        assertThat(Config.SERVE_KEYS).containsAll(Config.MINT_KEYS).doesNotHaveDuplicates()
                .contains(Config.HTTP_PORT, Config.SEGMENT_STORE, Config.WORKERS);
    }

    @Test
    void environment_misspelledVariable_warnsWithTheNearestKey_knownOnesDoNot() {
        Config config = Config.load(Map.of(), Map.of("IDMINT_HTTP_PROT", "1",
                "IDMINT_CLOCK_MAXWAIT", "1s", "IDMINT_WORKER", "3"), null);

        assertThat(config.warnings()).containsExactly(
                "environment variable IDMINT_CLOCK_MAXWAIT is not an idmint setting and is "
                        + "ignored; did you mean IDMINT_CLOCK_MAX_WAIT?",
                "environment variable IDMINT_HTTP_PROT is not an idmint setting and is ignored; "
                        + "did you mean IDMINT_HTTP_PORT?");
    }
}
