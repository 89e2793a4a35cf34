package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./idmint} and the class-data-sharing archive the build puts beside the jar
 * (docs/observability.md, "Start-up"): the launcher maps it, and a stale, broken or missing
 * archive changes nothing the user sees (no output on stderr, the same ID on stdout).
 */
class LauncherCdsIT {

    private static final Path JAR = Path.of(System.getProperty("idmint.jar"));
    private static final Path ROOT = JAR.getParent().getParent().getParent();

    @TempDir
    Path tmp;

    private record Run(int exit, String out, String err) {
    }

    @Test
    void launcher_withTheBuildsArchive_loadsTheCommandFromIt() throws Exception {
        Path jsa = JAR.resolveSibling("idmint.jsa");
        assertThat(jsa).as("the archive the package phase builds").exists();
        Path log = tmp.resolve("classes.txt");

        // -Xshare:on after the launcher's -Xshare:auto: fails unless the archive maps.
        Run r = run(ROOT.resolve("idmint"), "-Xshare:on -Xlog:class+load=info:file=" + log);

        assertThat(r.err()).as("stderr").isEmpty();
        assertThat(r.exit()).isZero();
        assertThat(r.out()).matches("[1-9][0-9]*\n");
        assertThat(Files.readString(log)).as("class loading of ./idmint next")
                .contains("io.idmint.server.cli.NextCommand source: shared objects file\n")
                .contains("io.idmint.Snowflake source: shared objects file\n")
                // Java 5 bytecode: only a static archive (a class list, -Xshare:dump) has it.
                .contains("picocli.CommandLine source: shared objects file\n");
    }

    @Test
    void next_readsNothingFromTheJar_andSetsUpNoLogging() throws Exception {
        // Each class not in the archive, and each lookup that misses (picocli's for Groovy),
        // reads the directory of a 46 MB jar; java.util.logging, set up, costs tens of ms.
        Path log = tmp.resolve("classes.txt");

        Run r = run(ROOT.resolve("idmint"), "-Xshare:on -Xlog:class+load=info:file=" + log);

        assertThat(r.exit()).isZero();
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).as("classes ./idmint next loaded from the jar")
                .filteredOn(l -> l.contains("source: file:") || l.contains("source: jar:"))
                .isEmpty();
        assertThat(lines).as("./idmint next opened the jar")
                .noneMatch(l -> l.contains("jdk.internal.util.jar.JarIndex "));
        assertThat(lines).as("./idmint next set up java.util.logging")
                .noneMatch(l -> l.contains("java.util.logging.LogManager$RootLogger "));
    }

    @Test
    void launcher_staleBrokenOrMissingArchive_runsTheSameSilently() throws Exception {
        // A tree of its own: the archive was made for the jar at the build's path, so the same
        // archive beside a copy of the jar elsewhere is stale.
        Path target = Files.createDirectories(tmp.resolve("root/idmint-server/target"));
        Path launcher = Files.copy(ROOT.resolve("idmint"), tmp.resolve("root/idmint"));
        Files.copy(JAR, target.resolve("idmint.jar"));
        Path jsa = target.resolve("idmint.jsa");
        Map<String, byte[]> archives = Map.of(
                "stale", Files.readAllBytes(JAR.resolveSibling("idmint.jsa")),
                "broken", "not an archive".getBytes(StandardCharsets.UTF_8));
        for (String kind : List.of("stale", "broken", "missing")) {
            Files.deleteIfExists(jsa);
            if (archives.containsKey(kind)) {
                Files.write(jsa, archives.get(kind));
            }

            Run r = run(launcher, "");

            assertThat(r.err()).as("stderr with a %s archive", kind).isEmpty();
            assertThat(r.exit()).as("exit with a %s archive", kind).isZero();
            assertThat(r.out()).as("stdout with a %s archive", kind).matches("[1-9][0-9]*\n");
        }
    }

    private Run run(Path launcher, String javaOpts) throws IOException, InterruptedException {
        Path out = tmp.resolve("out.txt");
        Path err = tmp.resolve("err.txt");
        ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "next", "-n", "1",
                "--data-dir", tmp.resolve("data").toString())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("IDMINT_JAVA_OPTS", javaOpts);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s exited", launcher).isTrue();
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
