package io.idmint.server.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Node and the npm packages of {@code src/test/node} (pinned in its package-lock.json): clients
 * of another stack for the wire tests. {@link #install()} installs them into {@code target/node}
 * once per lockfile; {@link #run} runs one of the directory's scripts. {@link #installIn} is the
 * one way the tests install npm packages (KubernetesManifestsIT's validator too).
 */
public final class NodeTools {

    private static final Path SOURCE = Path.of("src/test/node");
    private static final Path TARGET = Path.of("target/node");
    /** The lockfile a finished install was made from, kept in what npm ci replaces. */
    private static final String STAMP = "node_modules/.idmint-installed-package-lock.json";

    private NodeTools() {
    }

    /** Installs the locked packages unless this lockfile's are installed already. */
    public static synchronized Path install() throws IOException, InterruptedException {
        Files.createDirectories(TARGET);
        // Test JVMs run at once: one copies and installs while the others wait for it.
        try (FileChannel ch = lockFile(TARGET); FileLock held = ch.lock()) {
            try (var files = Files.list(SOURCE)) {
                for (Path f : files.toList()) {
                    Path to = TARGET.resolve(f.getFileName());
                    if (!Files.exists(to) || Files.mismatch(f, to) != -1) {
                        Files.copy(f, to, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
            installUnlocked(TARGET);
        }
        return TARGET;
    }

    /**
     * Runs {@code npm ci} in {@code dir} unless its node_modules was installed from the same
     * package-lock.json (compared by content, not by time). No install scripts: none of the
     * packages needs one to run, and none should run on a test machine. Test JVMs running at
     * once take turns (a lock file beside {@code dir}, in the build's target directory).
     */
    public static synchronized void installIn(Path dir) throws IOException, InterruptedException {
        try (FileChannel ch = lockFile(dir); FileLock held = ch.lock()) {
            installUnlocked(dir);
        }
    }

    private static FileChannel lockFile(Path dir) throws IOException {
        Path lock = dir.toAbsolutePath().normalize().resolveSibling(dir.getFileName() + ".lock");
        Files.createDirectories(lock.getParent());
        return FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    }

    private static void installUnlocked(Path dir) throws IOException, InterruptedException {
        byte[] lock = Files.readAllBytes(dir.resolve("package-lock.json"));
        Path stamp = dir.resolve(STAMP);
        if (Files.exists(stamp) && Arrays.equals(Files.readAllBytes(stamp), lock)) {
            return;
        }
        exec(dir, 300, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund");
        assertThat(dir.resolve("node_modules")).isDirectory();
        Files.write(stamp, lock);
    }

    /** Runs {@code node script args…} in the installed directory; its stdout, if it exits 0. */
    public static String run(String script, String... args)
            throws IOException, InterruptedException {
        Path dir = install();
        List<String> command = new ArrayList<>(List.of(node(), script));
        command.addAll(List.of(args));
        return exec(dir, 120, command.toArray(String[]::new));
    }

    private static String exec(Path dir, int seconds, String... command)
            throws IOException, InterruptedException {
        ChildProcess.Result r = ChildProcess.run(new ProcessBuilder(command)
                .directory(dir.toFile()), Duration.ofSeconds(seconds));
        assertThat(r.exitCode()).as("%s: %s", String.join(" ", command), r.output()).isZero();
        return r.stdout();
    }

    /** The Node.js binary (Debian's nodejs package). */
    public static String node() {
        for (String p : new String[] {"/usr/bin/node", "/usr/local/bin/node"}) {
            if (Files.isExecutable(Path.of(p))) {
                return p;
            }
        }
        throw new AssertionError("node is not installed: install it (apt-get install nodejs)");
    }
}
