package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.Layout;
import io.idmint.server.harness.IdmintProcesses;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the shaded jar as users do: {@code java -jar idmint.jar …}. */
class CliIT {

    private static Path jar;

    @TempDir
    Path tmp;

    @BeforeAll
    static void findJar() {
        jar = IdmintProcesses.shadedJar();
    }

    @Test
    void next_aMillionIds_areUniqueAndIncreasing() throws Exception {
        Path out = tmp.resolve("ids.txt");
        Process p = start(out, "next", "-n", "1000000", "--data-dir",
                tmp.resolve("data").toString());

        assertThat(waitFor(p)).as(Files.readString(tmp.resolve("stderr.txt"))).isZero();
        long count = 0;
        long prev = 0;
        try (BufferedReader in = Files.newBufferedReader(out)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                long id = Long.parseLong(line);
                assertThat(id).isGreaterThan(prev);
                prev = id;
                count++;
            }
        }
        assertThat(count).isEqualTo(1_000_000);
    }

    /**
     * {@code next -n 1100000} on a pseudo-terminal ({@code script}): once with stdout to a file,
     * which must hold only IDs while stderr shows progress with a rate and an ETA; once with both
     * on the terminal, where every progress line is erased before the IDs go on, so that taking
     * the progress out leaves whole ID lines only.
     */
    @Test
    void next_onATerminal_progressOnItsOwnLineWithRateAndEta_stdoutPureIds() throws Exception {
        String data = tmp.resolve("data").toString();
        Path ids = tmp.resolve("ids.txt");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String next = java + " -jar " + jar + " next -n 1100000 --data-dir " + data;

        String split = script(next + " > " + ids, tmp.resolve("split.typescript"));
        String both = script(next, tmp.resolve("both.typescript"));

        List<String> lines = Files.readAllLines(ids);
        assertThat(lines).hasSize(1_100_000).allMatch(l -> l.matches("\\d{18,19}"));
        assertThat(split).containsPattern("\r\u001b\\[K 262144/1100000 ids, \\d+ ids/s, "
                + "ETA \\d+(ms|s|m)").contains(" 1100000/1100000 ids, ")
                .containsPattern(", done in \\d+(ms|s)\r?\n");
        String[] pieces = both.replace("\r\n", "\n").split("\r\u001b\\[K", -1);
        StringBuilder stdout = new StringBuilder();
        int shown = 0;
        for (int i = 0; i < pieces.length; i++) {
            // After an erase: the progress line, or nothing (the erase before stdout went on).
            String progress = i == 0 ? "" : pieces[i].replaceFirst("(?s)^( \\d+/1100000 ids, "
                    + "[^\n]*)?.*", "$1");
            shown += progress.isEmpty() ? 0 : 1;
            String rest = pieces[i].substring(progress.length());
            boolean last = i == pieces.length - 1;
            assertThat(rest.isEmpty() || rest.endsWith("\n") || last)
                    .as("piece %d ends on a whole line: %s", i, rest).isTrue();
            stdout.append(rest.startsWith("\n") && !progress.isEmpty() ? rest.substring(1) : rest);
        }
        assertThat(shown).isGreaterThanOrEqualTo(4);
        String idsOnly = stdout.toString().replaceFirst("\n+$", "");
        assertThat(idsOnly.split("\n", -1)).hasSize(1_100_000)
                .allMatch(l -> l.matches("\\d{18,19}"));
    }

    /**
     * Runs {@code command} in sh on a pseudo-terminal; returns what the terminal showed (without
     * the typescript's own first and last lines, "Script started/done on …").
     */
    private String script(String command, Path typescript) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("script", "-qfec", command, typescript.toString())
                .directory(tmp.toFile()).redirectError(tmp.resolve("stderr.txt").toFile())
                .redirectOutput(tmp.resolve("script.out").toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("IDMINT_"));
        Process p = pb.start();
        assertThat(waitFor(p)).as(Files.readString(tmp.resolve("stderr.txt"))).isZero();
        String shown = Files.readString(typescript);
        shown = shown.substring(shown.indexOf('\n') + 1);
        int done = shown.lastIndexOf("\nScript done on ");
        return done < 0 ? shown : shown.substring(0, done + 1);
    }

    @Test
    void next_twoProcessesOnOneDataDir_getDifferentWorkersAndNoDuplicates() throws Exception {
        String data = tmp.resolve("data").toString();
        Process a = startPiped("next", "-n", "200000", "--data-dir", data);
        Process b = startPiped("next", "-n", "200000", "--data-dir", data);
        BufferedReader outA = reader(a);
        BufferedReader outB = reader(b);
        // Each holds its worker from before its first line until it exits, and a writer blocks
        // on a full pipe: reading one line of each proves that both held a worker at once.
        List<String> linesA = new ArrayList<>(List.of(outA.readLine()));
        List<String> linesB = new ArrayList<>(List.of(outB.readLine()));
        drain(outA, linesA);
        drain(outB, linesB);

        assertThat(waitFor(a)).isZero();
        assertThat(waitFor(b)).isZero();
        assertThat(linesA).hasSize(200_000);
        assertThat(linesB).hasSize(200_000);
        Set<String> union = new HashSet<>(linesA);
        union.addAll(linesB);
        assertThat(union).hasSize(400_000);
        int workerA = Layout.SNOWFLAKE.decode(Long.parseLong(linesA.get(0))).workerId();
        int workerB = Layout.SNOWFLAKE.decode(Long.parseLong(linesB.get(0))).workerId();
        assertThat(workerA).isNotEqualTo(workerB);
    }

    @Test
    void decode_ofAPrintedId_roundTrips() throws Exception {
        Path out = tmp.resolve("id.txt");
        Process next = start(out, "next", "--datacenter", "7", "--data-dir",
                tmp.resolve("data").toString());
        assertThat(waitFor(next)).isZero();
        String id = Files.readString(out).trim();

        Process decode = start(tmp.resolve("json.txt"), "decode", id);

        assertThat(waitFor(decode)).isZero();
        String json = Files.readString(tmp.resolve("json.txt"));
        assertThat(json).startsWith("{\"id\":\"" + id + "\",\"timestamp_ms\":")
                .contains("\"datacenter_id\":7,").endsWith("}\n");
    }

    @Test
    void badArgument_exits2WithAMessage() throws Exception {
        Process p = start(tmp.resolve("out.txt"), "next", "-n", "0");

        assertThat(waitFor(p)).isEqualTo(2);
        assertThat(Files.readString(tmp.resolve("out.txt"))).isEmpty();
        assertThat(Files.readString(tmp.resolve("stderr.txt"))).contains("-n")
                .doesNotContain("Exception");
    }

    /**
     * A command whose store does not answer says so once, in idmint's words: jetcd's warning
     * at each attempt ("retry failure", 16 lines in the JDK's two-line format) stays out.
     */
    @Test
    void segmentList_etcdUnreachable_oneLineOfIdmintsNotTheClientsRetries() throws Exception {
        int closed = io.idmint.testkit.LocalProcesses.freePort(); // claimed, nothing listens
        Process p = start(tmp.resolve("out.txt"), "segment", "list", "--segment-store",
                "etcd://127.0.0.1:" + closed);

        assertThat(waitFor(p)).isEqualTo(1);
        String err = Files.readString(tmp.resolve("stderr.txt"));
        assertThat(err).startsWith("idmint: the segment store did not answer: etcd ")
                .doesNotContain("WARNING").doesNotContain("retry failure");
        assertThat(err.lines()).hasSize(1);
    }

    @Test
    void next_stdoutClosedEarly_exitsQuietly() throws Exception {
        Process p = startPiped("next", "-n", "100000000", "--data-dir",
                tmp.resolve("data").toString());
        BufferedReader out = reader(p);
        assertThat(out.readLine()).isNotEmpty();
        out.close();

        assertThat(waitFor(p)).isZero();
        assertThat(Files.readString(tmp.resolve("stderr.txt"))).isEmpty();
    }

    @Test
    void next_terminated_releasesItsWorkerForTheNextRun() throws Exception {
        String data = tmp.resolve("data").toString();
        Process p = startPiped("next", "-n", "100000000", "--data-dir", data, "--worker", "0");
        assertThat(reader(p).readLine()).isNotEmpty();
        p.destroy(); // SIGTERM, as Ctrl-C or a service manager would stop it
        waitFor(p);

        String firstErr = Files.readString(tmp.resolve("stderr.txt"));
        String state = Files.readString(tmp.resolve("data/workers/default/worker-0-0.state"));
        long now = System.currentTimeMillis();

        Process again = start(tmp.resolve("again.txt"), "next", "--data-dir", data, "--worker",
                "0");

        // Without the release its HWM stays a reservation (10 s) ahead, and this run would
        // pass worker 0 over for a cold one.
        assertThat(waitFor(again)).as(Files.readString(tmp.resolve("stderr.txt")) + "\nfirst: "
                + firstErr + "\nstate at " + now + ":\n" + state).isZero();
        String id = Files.readString(tmp.resolve("again.txt")).trim();
        assertThat(Layout.SNOWFLAKE.decode(Long.parseLong(id)).workerId()).isZero();
    }

    private Process start(Path stdout, String... args) throws IOException {
        return builder(args).redirectOutput(stdout.toFile()).start();
    }

    private Process startPiped(String... args) throws IOException {
        return builder(args).start();
    }

    private ProcessBuilder builder(String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                jar.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(tmp.toFile())
                .redirectError(tmp.resolve("stderr.txt").toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("IDMINT_"));
        return pb;
    }

    private static BufferedReader reader(Process p) {
        return new BufferedReader(
                new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    }

    private static void drain(BufferedReader in, List<String> lines) throws IOException {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            lines.add(line);
        }
    }

    private static int waitFor(Process p) throws InterruptedException {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("idmint did not exit within 60 s");
        }
        return p.exitValue();
    }
}
