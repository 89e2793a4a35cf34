package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector {@code ./idmint serve} runs with (docs/operations.md, "Runtime"): G1, named, with
 * its heap never handed back, unless {@code IDMINT_JAVA_OPTS} picks a collector. A stand-in JDK
 * (a {@code bin/java} that prints its arguments) shows what the launcher passes, without starting
 * a JVM.
 */
class LauncherGcIT {

    private static final Path JAR = Path.of(System.getProperty("idmint.jar"));
    private static final Path ROOT = JAR.getParent().getParent().getParent();
    private static final String G1 = "-XX:+UseG1GC -XX:MaxHeapFreeRatio=100 ";

    @TempDir
    Path tmp;

    /** The arguments the launcher gives the JDK for {@code command}. */
    private String launch(String javaOpts, String command)
            throws IOException, InterruptedException {
        Path java = Files.createDirectories(tmp.resolve("jdk/bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\necho \"$@\"\n");
        assertThat(java.toFile().setExecutable(true)).isTrue();
        Path out = tmp.resolve("out.txt");
        ProcessBuilder pb = new ProcessBuilder(ROOT.resolve("idmint").toString(), command)
                .redirectOutput(out.toFile()).redirectErrorStream(false);
        pb.environment().put("JAVA_HOME", tmp.resolve("jdk").toString());
        pb.environment().put("IDMINT_JAVA_OPTS", javaOpts);
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        return Files.readString(out).strip();
    }

    @Test
    void serve_runsG1_keepingItsHeap() throws Exception {
        assertThat(launch("", "serve")).contains(G1).doesNotContain("ZGC")
                .endsWith("io.idmint.server.Main serve");
    }

    @Test
    void serve_withJavaOptsAfterTheLaunchers_canOverrideThem() throws Exception {
        assertThat(launch("-Xmx1g -XX:MaxHeapFreeRatio=70", "serve"))
                .contains(G1 + "-Xmx1g -XX:MaxHeapFreeRatio=70 ");
    }

    @Test
    void aCollectorInJavaOpts_wins_andOneShotCommandsKeepTheDefault() throws Exception {
        assertThat(launch("-Xmx1g -XX:+UseParallelGC", "serve"))
                .contains("-Xmx1g -XX:+UseParallelGC").doesNotContain("G1")
                .doesNotContain("MaxHeapFreeRatio");
        assertThat(launch("", "next")).doesNotContain("G1").doesNotContain("MaxHeapFreeRatio");
    }
}
