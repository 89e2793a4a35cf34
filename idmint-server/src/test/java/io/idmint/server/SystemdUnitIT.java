package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.config.Config;
import io.idmint.server.harness.ChildProcess;
import io.idmint.spi.support.Durations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/systemd/idmint.service passes {@code systemd-analyze verify} without a word about it,
 * with the hardening and stop timeout idmint needs, and deploy/systemd/idmint.env holds
 * settings the server accepts. verify checks that ExecStart's program exists, so it runs in a
 * mount namespace whose /opt holds /opt/idmint/java as this JDK (where an install puts the
 * image's runtime).
 */
class SystemdUnitIT {

    private static final Path DIR = Path.of("").toAbsolutePath().getParent()
            .resolve("deploy/systemd");
    private static final Path ANALYZE = Path.of("/usr/bin/systemd-analyze");
    private static final String VERIFY = """
            set -e
            mount -t tmpfs tmpfs /opt
            mkdir -p /opt/idmint
            ln -s "$1" /opt/idmint/java
            exec /usr/bin/systemd-analyze verify "$2"
            """;

    @TempDir
    Path tmp;

    @Test
    void unit_verifiesWithoutWarnings() throws Exception {
        Result r = verify(DIR.resolve("idmint.service"));
        assertThat(r.output()).as("systemd-analyze verify output").doesNotContain("idmint");
        assertThat(r.exitCode()).as(r.output()).isZero();
    }

    @Test
    void verify_reportsAMistakeInTheUnit() throws Exception {
        Path unit = tmp.resolve("idmint.service");
        Files.writeString(unit, Files.readString(DIR.resolve("idmint.service"))
                .replace("ProtectSystem=strict", "ProtectSystem=strictly")
                .replace("/opt/idmint/lib/idmint.jar serve", "/opt/idmint/lib/idmint.jar serve\n"
                        + "ExecStartPost=/opt/idmint/bin/missing"));
        Result r = verify(unit);
        assertThat(r.output()).contains("protect system value, ignoring: strictly")
                .contains("/opt/idmint/bin/missing");
    }

    @Test
    void unit_isHardened_outlastsTheDrain_andItsEnvironmentFileIsValidConfig()
            throws Exception {
        Map<String, String> service = section(Files.readAllLines(DIR.resolve("idmint.service")),
                "[Service]");
        assertThat(service).containsEntry("DynamicUser", "yes")
                .containsEntry("StateDirectory", "idmint")
                .containsEntry("ProtectSystem", "strict").containsEntry("NoNewPrivileges", "yes")
                .containsEntry("PrivateTmp", "yes").containsEntry("Restart", "on-failure")
                .containsEntry("EnvironmentFile", "/etc/idmint/idmint.env")
                .containsEntry("Environment", "IDMINT_DATA_DIR=/var/lib/idmint");
        assertThat(service.get("ExecStart")).startsWith("/opt/idmint/java/bin/java ")
                .endsWith(" -jar /opt/idmint/lib/idmint.jar serve");

        Map<String, String> env = new HashMap<>();
        for (String line : Files.readAllLines(DIR.resolve("idmint.env"))) {
            if (!line.isBlank() && !line.startsWith("#")) {
                env.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=')
                        + 1));
            }
        }
        Set<String> known = Config.keys().stream().map(Config.Key::envVar)
                .collect(Collectors.toSet());
        assertThat(env.keySet()).as("every variable names a config key").allMatch(known::contains);
        Config config = Config.load(Map.of(), env, null);
        assertThat(config.get(Config.REGISTRY)).startsWith("etcd://");
        Duration grace = config.get(Config.SHUTDOWN_GRACE);
        assertThat(Durations.parse(service.get("TimeoutStopSec")))
                .as("TimeoutStopSec > shutdown.grace " + grace).isGreaterThan(grace);
    }

    /** The {@code key=value} lines of one section (the last value of a repeated key). */
    private static Map<String, String> section(List<String> lines, String name) {
        Map<String, String> values = new HashMap<>();
        boolean in = false;
        for (String line : lines) {
            if (line.startsWith("[")) {
                in = line.equals(name);
            } else if (in && line.contains("=") && !line.startsWith("#")) {
                values.put(line.substring(0, line.indexOf('=')),
                        line.substring(line.indexOf('=') + 1));
            }
        }
        return values;
    }

    private record Result(int exitCode, String output) {
    }

    private static Result verify(Path unit) throws Exception {
        assertThat(ANALYZE).as("systemd-analyze: install the Debian package systemd "
                + "(scripts/test does)").exists();
        ChildProcess.Result r = ChildProcess.run(new ProcessBuilder("unshare", "--mount", "sh",
                "-c", VERIFY, "sh", System.getProperty("java.home"), unit.toString())
                .redirectErrorStream(true), Duration.ofSeconds(60));
        return new Result(r.exitCode(), r.output());
    }
}
