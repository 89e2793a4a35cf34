package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector {@code ./idmint serve} runs with (docs/operations.md, "Runtime"): generational
 * ZGC on a JDK that has it, unless {@code IDMINT_JAVA_OPTS} picks a collector. The launcher reads
 * the JDK's feature version from its {@code release} file; a stand-in JDK (a release file and a
 * {@code bin/java} that prints its arguments) shows what it passes, without starting a JVM.
 */
class LauncherGcIT {

    private static final Path JAR = Path.of(System.getProperty("idmint.jar"));
    private static final Path ROOT = JAR.getParent().getParent().getParent();

    @TempDir
    Path tmp;

    private int jdks;

    /** The arguments the launcher gives a JDK of {@code version} for {@code command}. */
    private String launch(String version, String javaOpts, String command)
            throws IOException, InterruptedException {
        Path home = Files.createDirectories(tmp.resolve("jdk" + jdks++).resolve("bin"))
                .getParent();
        Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"stand-in\"\n"
                + "JAVA_VERSION=\"" + version + "\"\n");
        Path java = home.resolve("bin/java");
        Files.writeString(java, "#!/bin/sh\necho \"$@\"\n");
        assertThat(java.toFile().setExecutable(true)).isTrue();
        Path out = tmp.resolve("out.txt");
        ProcessBuilder pb = new ProcessBuilder(ROOT.resolve("idmint").toString(), command)
                .redirectOutput(out.toFile()).redirectErrorStream(false);
        pb.environment().put("JAVA_HOME", home.toString());
        pb.environment().put("IDMINT_JAVA_OPTS", javaOpts);
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        return Files.readString(out).strip();
    }

    @Test
    void serve_onJdk23OrLater_runsGenerationalZgc() throws Exception {
        for (String version : List.of("25.0.3", "23")) {
            assertThat(launch(version, "", "serve")).as(version).contains("-XX:+UseZGC ")
                    .doesNotContain("ZGenerational").endsWith("io.idmint.server.Main serve");
        }
    }

    @Test
    void serve_onJdk21_asksForTheGenerationalMode() throws Exception {
        assertThat(launch("21.0.5", "", "serve")).contains("-XX:+UseZGC -XX:+ZGenerational ");
    }

    @Test
    void serve_onJdk17_namesG1() throws Exception {
        // Not the JDK's choice: on one CPU or under 1792 MB it would be Serial, whose pauses
        // under load took over 100 ms here (docs/operations.md, "Runtime").
        assertThat(launch("17.0.15", "", "serve")).contains("-XX:+UseG1GC ")
                .doesNotContain("ZGC");
    }

    @Test
    void aCollectorInJavaOpts_wins_andOneShotCommandsKeepTheDefault() throws Exception {
        assertThat(launch("25.0.3", "-Xmx1g -XX:+UseParallelGC", "serve"))
                .contains("-Xmx1g -XX:+UseParallelGC").doesNotContain("ZGC").doesNotContain("G1");
        assertThat(launch("25.0.3", "", "next")).doesNotContain("ZGC");
        assertThat(launch("17.0.15", "", "next")).doesNotContain("G1");
    }
}
