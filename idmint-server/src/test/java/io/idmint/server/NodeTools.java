package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Node and the npm packages of {@code src/test/node} (pinned in its package-lock.json): clients
 * of another stack for the wire tests. {@link #install()} runs {@code npm ci} into
 * {@code target/node} once per lockfile; {@link #run} runs one of the directory's scripts.
 */
final class NodeTools {

    private static final Path SOURCE = Path.of("src/test/node");
    private static final Path TARGET = Path.of("target/node");

    private NodeTools() {
    }

    /** Installs the locked packages unless this lockfile's are installed already. */
    static synchronized Path install() throws IOException, InterruptedException {
        Files.createDirectories(TARGET);
        byte[] lock = Files.readAllBytes(SOURCE.resolve("package-lock.json"));
        Path installed = TARGET.resolve("node_modules/.package-lock.json");
        Path copy = TARGET.resolve("package-lock.json");
        boolean current = Files.isDirectory(TARGET.resolve("node_modules"))
                && Files.exists(copy) && java.util.Arrays.equals(Files.readAllBytes(copy), lock)
                && Files.exists(installed);
        try (var files = Files.list(SOURCE)) {
            for (Path f : files.toList()) {
                Files.copy(f, TARGET.resolve(f.getFileName()),
                        StandardCopyOption.REPLACE_EXISTING);
            }
        }
        if (!current) {
            // No install scripts: none of the packages needs one to run.
            String out = exec(TARGET, 300, "npm", "ci", "--ignore-scripts", "--no-audit",
                    "--no-fund");
            assertThat(Files.isDirectory(TARGET.resolve("node_modules"))).as(out).isTrue();
        }
        return TARGET;
    }

    /** Runs {@code node script args…} in the installed directory; its stdout, if it exits 0. */
    static String run(String script, String... args) throws IOException, InterruptedException {
        Path dir = install();
        List<String> command = new ArrayList<>(List.of(HttpApiIT.node(), script));
        command.addAll(List.of(args));
        return exec(dir, 120, command.toArray(String[]::new));
    }

    private static String exec(Path dir, int seconds, String... command)
            throws IOException, InterruptedException {
        Path err = Files.createTempFile("node", ".stderr");
        try {
            Process p = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectError(err.toFile()).start();
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertThat(p.waitFor(seconds, TimeUnit.SECONDS)).as("%s finished", command[0])
                    .isTrue();
            assertThat(p.exitValue()).as("%s: %s%s", String.join(" ", command), out,
                    Files.readString(err)).isZero();
            return out;
        } finally {
            Files.delete(err);
        }
    }
}
