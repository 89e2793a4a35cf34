package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.ChildProcess;
import io.idmint.server.harness.Http;
import io.idmint.testkit.TestTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image as scripts/build-image makes it without an engine (on a JDK 25 runtime,
 * which the script finds under /usr/lib/jvm): built twice to the same bytes, class-data archive
 * included, unpacked from its OCI layout, and run the way an engine would run it (its own
 * root, read-only but the data dir, as the image's user, with its entrypoint, command and
 * environment) in a mount namespace with chroot. deploy/Dockerfile must describe the same
 * process.
 */
class ImageIT {

    private static final Path REPO = Path.of("").toAbsolutePath().getParent();
    private static final Pattern BANNER = Pattern.compile("idmint serving "
            + "http://127\\.0\\.0\\.1:(\\d+) grpc .*\\(datacenter 0, worker (\\d+),.*");
    /**
     * Run as root in a new mount namespace: the image root read-only, the data dir and a tmpfs
     * /tmp writable (as {@code docker run --read-only --tmpfs /tmp -v data:/var/lib/idmint}),
     * /proc and /dev from the host, then the command as the image's user in the image's root
     * with only the image's environment ({@code env -i}). exec all the way, so the pid is the
     * JVM's.
     */
    private static final String RUN = """
            set -e
            root=$1; data=$2; shift 2
            mount --bind "$root" "$root"
            mount -o remount,bind,ro "$root"
            mount --bind "$data" "$root/var/lib/idmint"
            mount --rbind /proc "$root/proc"
            mount --rbind /dev "$root/dev"
            mount -t tmpfs tmpfs "$root/tmp"
            cd /
            exec "$@"
            """;

    @TempDir
    Path tmp;

    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void killLeftovers() throws InterruptedException {
        for (Process p : processes) {
            ChildProcess.killTree(p.toHandle());
        }
    }

    // Two jlink builds and a server run: about a minute alone, more on a busy machine.
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void image_isReproducible_andServesReadOnlyAsUid10001_andSigtermReleasesTheWorker()
            throws Exception {
        Path first = buildImage("image-a");
        Path second = buildImage("image-b");
        assertThat(sha256(second.resolve("idmint-oci.tar")))
                .as("two builds of the same jar: the same OCI tarball")
                .isEqualTo(sha256(first.resolve("idmint-oci.tar")));

        Path oci = tmp.resolve("oci");
        Files.createDirectories(oci);
        run(REPO, "tar", "-xf", first.resolve("idmint-oci.tar").toString(), "-C", oci.toString());
        Map<String, Object> manifest = blob(oci, (String) ((Map<?, ?>) ((List<?>) json(
                oci.resolve("index.json")).get("manifests")).get(0)).get("digest"));
        Map<?, ?> config = (Map<?, ?>) blob(oci, (String) ((Map<?, ?>) manifest.get("config"))
                .get("digest")).get("config");
        List<?> layers = (List<?>) manifest.get("layers");
        assertThat(layers).hasSize(1);
        Path rootfs = tmp.resolve("rootfs");
        Files.createDirectories(rootfs);
        Path layer = blobPath(oci, (String) ((Map<?, ?>) layers.get(0)).get("digest"));
        run(REPO, "tar", "-xzf", layer.toString(), "-C", rootfs.toString());
        assertThat(Files.getAttribute(rootfs.resolve("opt/idmint/lib/idmint.jar"), "unix:uid"))
                .isEqualTo(0);
        assertThat(Files.getAttribute(rootfs.resolve("var/lib/idmint"), "unix:uid"))
                .isEqualTo(10001);

        assertThat(dockerfile()).as("deploy/Dockerfile and the image config")
                .isEqualTo(expectedDockerfile(config));

        Path data = tmp.resolve("data");
        Files.createDirectories(data);
        run(REPO, "chown", "10001:10001", data.toString());
        List<String> serve = new ArrayList<>(strings(config.get("Entrypoint")));
        serve.addAll(strings(config.get("Cmd")));
        serve.addAll(List.of("--http-port", "0", "--grpc-port", "0", "--bind", "127.0.0.1"));
        Path stderr = tmp.resolve("serve.stderr");
        Process server = inImage(rootfs, data, config, serve).redirectError(stderr.toFile())
                .start();
        processes.add(server);
        Matcher banner = BANNER.matcher(firstLine(server, stderr));
        assertThat(banner.matches()).as(banner.toString()).isTrue();
        Http http = new Http(Integer.parseInt(banner.group(1)));

        long deadline = TestTime.deadline(Duration.ofSeconds(30));
        while (http.get("/health/ready").status() != 200 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(http.get("/health/ready").status()).as(Files.readString(stderr))
                .isEqualTo(200);
        assertThat(http.get("/v1/id").json().get("id")).asString().matches("\\d+");
        String status = Files.readString(Path.of("/proc", Long.toString(server.pid()),
                "status"));
        assertThat(status).as("the JVM runs as the image's user").containsPattern(
                "(?m)^Uid:\\s+10001\\s+10001\\s+10001\\s+10001$");
        assertThat(Files.readAllLines(Path.of("/proc", Long.toString(server.pid()),
                "mountinfo"))).as("its / is read-only, its data dir writable")
                .anyMatch(l -> l.split(" ")[4].equals("/") && l.split(" ")[5].startsWith("ro,"))
                .anyMatch(l -> l.split(" ")[4].equals("/var/lib/idmint")
                        && l.split(" ")[5].startsWith("rw,"));

        List<String> health = new ArrayList<>(strings(((Map<?, ?>) config.get("Healthcheck"))
                .get("Test")));
        health.remove(0);
        health.addAll(List.of("--http-port", banner.group(1)));
        ChildProcess.Result probe = runInImage(rootfs, data, config, health);
        assertThat(probe.exitCode()).as(probe.output()).isZero();
        assertThat(probe.output()).contains("/health/ready 200 ").contains("\"state\":\"ACTIVE\"");

        // The image's class-data archive maps: with -Xshare:on a JVM that cannot map it fails.
        List<String> next = new ArrayList<>(strings(config.get("Entrypoint")));
        assertThat(next).contains("-XX:SharedArchiveFile=/opt/idmint/lib/idmint.jsa");
        next.add(1, "-Xshare:on");
        next.addAll(List.of("next", "-n", "1", "--data-dir", "/tmp/next"));
        ChildProcess.Result minted = runInImage(rootfs, data, config, next);
        assertThat(minted.exitCode()).as(minted.output()).isZero();
        assertThat(minted.output().trim()).as("next in the image").matches("[1-9][0-9]*");

        server.destroy();
        assertThat(server.waitFor(20, TimeUnit.SECONDS)).as("exit after SIGTERM").isTrue();
        assertThat(server.exitValue()).as(Files.readString(stderr)).isZero();
        assertThat(Files.readString(stderr)).contains("idmint: stopped; worker released");
        List<String> list = new ArrayList<>(strings(config.get("Entrypoint")));
        list.addAll(List.of("registry", "list"));
        ChildProcess.Result registry = runInImage(rootfs, data, config, list);
        assertThat(registry.exitCode()).as(registry.output()).isZero();
        assertThat(registry.output()).as("worker 0 released in the static registry")
                .containsPattern("(?m)^0\\s+0\\s+\\S+\\s+-\\s+\\(free\\)$");
        ChildProcess.Result after = runInImage(rootfs, data, config, health);
        assertThat(after.exitCode()).as("the probe fails when nothing answers: " + after.output())
                .isEqualTo(Main.FAILURE);
    }

    /** The Dockerfile's runtime lines as they must read for the image config. */
    private static List<String> expectedDockerfile(Map<?, ?> config) {
        Map<?, ?> check = (Map<?, ?>) config.get("Healthcheck");
        List<String> probe = strings(check.get("Test"));
        assertThat(probe.get(0)).isEqualTo("CMD");
        return List.of("COPY --from=build /image/rootfs/ /",
                "COPY --from=build --chown=" + config.get("User") + " /image/rootfs"
                        + config.get("WorkingDir") + " " + config.get("WorkingDir"),
                "ENV " + String.join(" ", strings(config.get("Env"))),
                "USER " + config.get("User"),
                "WORKDIR " + config.get("WorkingDir"),
                "VOLUME " + jsonArray(List.copyOf(((Map<?, ?>) config.get("Volumes")).keySet())),
                "EXPOSE " + ((Map<?, ?>) config.get("ExposedPorts")).keySet().stream()
                        .map(p -> ((String) p).replace("/tcp", "")).sorted()
                        .collect(Collectors.joining(" ")),
                "STOPSIGNAL " + config.get("StopSignal"),
                "HEALTHCHECK --interval=" + seconds(check.get("Interval")) + " --timeout="
                        + seconds(check.get("Timeout")) + " --retries=" + check.get("Retries")
                        + " CMD " + jsonArray(probe.subList(1, probe.size())),
                "ENTRYPOINT " + jsonArray(strings(config.get("Entrypoint"))),
                "CMD " + jsonArray(strings(config.get("Cmd"))));
    }

    /** deploy/Dockerfile from its final FROM on, one instruction per line, as written. */
    private static List<String> dockerfile() throws IOException {
        List<String> lines = Files.readAllLines(REPO.resolve("deploy/Dockerfile"));
        assertThat(lines).as("the build stage runs the script the test runs")
                .anyMatch(l -> l.contains("scripts/build-image /image"));
        int last = lines.lastIndexOf("FROM scratch");
        assertThat(last).as("a final FROM scratch stage").isPositive();
        return lines.subList(last + 1, lines.size()).stream().filter(l -> !l.isBlank())
                .toList();
    }

    private static String seconds(Object nanos) {
        return ((Number) nanos).longValue() / 1_000_000_000L + "s";
    }

    private static String jsonArray(List<?> items) {
        return items.stream().map(i -> "\"" + i + "\"")
                .collect(Collectors.joining(", ", "[", "]"));
    }

    private Path buildImage(String name) throws Exception {
        Path out = tmp.resolve(name);
        ChildProcess.Result r = run(REPO, "sh", REPO.resolve("scripts/build-image").toString(),
                out.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        return out;
    }

    private static ProcessBuilder inImage(Path rootfs, Path data, Map<?, ?> config,
            List<String> command) {
        List<String> argv = new ArrayList<>(List.of("unshare", "--mount", "sh", "-c", RUN, "sh",
                rootfs.toString(), data.toString(), "/usr/bin/env", "-i"));
        argv.addAll(strings(config.get("Env")));
        argv.addAll(List.of("/usr/sbin/chroot", "--userspec=" + config.get("User"),
                rootfs.toString()));
        argv.addAll(command);
        return new ProcessBuilder(argv);
    }

    private static ChildProcess.Result runInImage(Path rootfs, Path data, Map<?, ?> config,
            List<String> command) throws Exception {
        return ChildProcess.run(inImage(rootfs, data, config, command).redirectErrorStream(true),
                Duration.ofSeconds(60));
    }

    private static ChildProcess.Result run(Path dir, String... command) throws Exception {
        ChildProcess.Result r = ChildProcess.run(new ProcessBuilder(command)
                .directory(dir.toFile()).redirectErrorStream(true), Duration.ofSeconds(300));
        assertThat(r.exitCode()).as(String.join(" ", command) + ": " + r.output()).isZero();
        return r;
    }

    private static String firstLine(Process p, Path stderr) throws Exception {
        BlockingQueue<String> lines = ChildProcess.stdoutLines(p, "image");
        String line = null;
        long deadline = TestTime.deadline(Duration.ofSeconds(60));
        while (line == null && p.isAlive() && System.nanoTime() < deadline) {
            line = lines.poll(1, TimeUnit.SECONDS);
        }
        assertThat(line).as("banner; stderr: %s", Files.readString(stderr)).isNotNull();
        return line;
    }

    private static Map<String, Object> json(Path file) throws IOException {
        return Http.object(Files.readString(file));
    }

    /** A blob of the layout, read after checking that its bytes hash to its name. */
    private static Map<String, Object> blob(Path oci, String digest) throws IOException {
        return json(blobPath(oci, digest));
    }

    private static Path blobPath(Path oci, String digest) throws IOException {
        assertThat(digest).startsWith("sha256:");
        Path p = oci.resolve("blobs/sha256").resolve(digest.substring(7));
        assertThat(sha256(p)).as("content of " + p).isEqualTo(digest.substring(7));
        return p;
    }

    private static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private static List<String> strings(Object list) {
        return ((List<?>) list).stream().map(String.class::cast).toList();
    }
}
