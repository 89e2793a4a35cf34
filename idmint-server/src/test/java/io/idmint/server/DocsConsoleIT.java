package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.IdmintProcesses;
import io.idmint.testkit.TestTime;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The docs' terminal sessions run as written: every {@code ```console} block of README.md and
 * docs/*.md, as {@code DocsTest} compiles the {@code ```java} ones. Each block runs in a fresh
 * directory (so {@code ./data} is new), its {@code $ } lines one after another with bash,
 * {@code idmint} and {@code ./idmint} being the built jar; what a command prints (stdout and
 * stderr together) must be the lines under it, where every word with a digit in it (an ID, a
 * time, a count, a code) may differ, and a line {@code ...} stands for any lines. A
 * {@code serve} command is stopped once it has printed the lines shown. A block opts out only
 * with a reason: {@code ```console no-run: why} (one that needs a server on :8080, say).
 * Servers bind ephemeral loopback ports ({@code IDMINT_HTTP_PORT=0}, …).
 */
class DocsConsoleIT {

    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    private static final Pattern FENCE = Pattern.compile("^```(\\S*)\\s*(.*)$");
    private static final Pattern WORD_WITH_DIGIT = Pattern.compile(
            "[0-9A-Za-z_]*[0-9][0-9A-Za-z_]*");
    private static final String NO_RUN = "no-run";

    private static Path jar;

    @TempDir
    Path tmp;

    record Step(String command, List<String> expected, int line) {
    }

    record Block(String file, int line, String options, List<Step> steps) {
    }

    @BeforeAll
    static void findJar() {
        jar = IdmintProcesses.shadedJar();
    }

    @Test
    void consoleBlocks_printWhatTheDocsShow() throws Exception {
        List<Block> blocks = blocks();
        List<Block> run = blocks.stream().filter(b -> !b.options().startsWith(NO_RUN)).toList();
        assertThat(run).as("console blocks that run").hasSizeGreaterThanOrEqualTo(6)
                .anyMatch(b -> b.file().equals("README.md"));
        List<String> failures = new ArrayList<>();
        for (Block b : blocks) {
            if (b.options().startsWith(NO_RUN)) {
                if (!b.options().matches(NO_RUN + ":\\s*\\S.*")) {
                    failures.add(b.file() + ":" + b.line() + ": a ```console no-run block must "
                            + "say why: ```console no-run: <why>");
                }
            } else if (!b.options().isEmpty()) {
                failures.add(b.file() + ":" + b.line() + ": unknown option '" + b.options()
                        + "' on a ```console block (only 'no-run: <why>')");
            } else {
                failures.addAll(run(b));
            }
        }
        System.out.printf("[docs console] %d blocks run, %d commands; %d blocks no-run%n",
                run.size(), run.stream().mapToInt(b -> b.steps().size()).sum(),
                blocks.size() - run.size());
        assertThat(failures).as("console blocks whose commands print something else").isEmpty();
    }

    @Test
    void matching_wordsWithDigitsMayDiffer_ellipsisStandsForAnyLines() {
        assertThat(matches(List.of("id 117675562914283520 at 2026-11-21T17:20:40.505Z"),
                List.of("id 117675562914283999 at 2026-11-28T01:02:03.004Z"))).isTrue();
        assertThat(matches(List.of("first ID 1, step 1000"), List.of("first ID 1, stride 1000")))
                .isFalse();
        assertThat(matches(List.of("...", "IDs per tick 4096"),
                List.of("layout x", "bits y", "IDs per tick 4096"))).isTrue();
        assertThat(matches(List.of("a", "..."), List.of("a"))).isTrue();
        assertThat(matches(List.of("a"), List.of("a", "b"))).as("a line too many").isFalse();
        assertThat(matches(List.of("15KNNCBDN1GQX3X"), List.of("128PQNX62V254YS"))).isTrue();
    }

    /** The failures of one block: each a step whose output differs, with both. */
    private List<String> run(Block b) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(tmp.resolve("block-" + b.file().replace('/', '-')
                + "-" + b.line()));
        Path bin = Files.createDirectories(dir.resolve(".bin"));
        String launcher = "#!/bin/sh\nexec '" + Path.of(System.getProperty("java.home"), "bin",
                "java") + "' -XX:TieredStopAtLevel=1 -cp '" + jar
                + "' io.idmint.server.Main \"$@\"\n";
        for (Path p : List.of(bin.resolve("idmint"), dir.resolve("idmint"))) {
            Files.writeString(p, launcher);
            p.toFile().setExecutable(true);
        }
        List<String> failures = new ArrayList<>();
        for (Step s : b.steps()) {
            List<String> got = execute(s, dir, bin);
            if (!matches(s.expected(), got)) {
                failures.add(b.file() + ":" + s.line() + ": $ " + s.command() + "\n  the docs "
                        + "show:\n    " + String.join("\n    ", s.expected()) + "\n  it "
                        + "printed:\n    " + String.join("\n    ", got));
                break; // the steps after it may depend on it
            }
        }
        return failures;
    }

    /**
     * Runs one command; a {@code serve} is stopped once it has printed as many lines as the
     * docs show. Returns what it printed.
     */
    private static List<String> execute(Step s, Path dir, Path bin)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", s.command()).directory(dir.toFile())
                .redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("IDMINT_"));
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("IDMINT_BIND", "127.0.0.1");
        pb.environment().put("IDMINT_HTTP_PORT", "0");
        pb.environment().put("IDMINT_GRPC_PORT", "0");
        Process p = pb.start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        String end = "\u0000end";
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String l = r.readLine(); l != null; l = r.readLine()) {
                    lines.add(l);
                }
            } catch (IOException e) {
                // the process was stopped
            } finally {
                lines.add(end);
            }
        }, "docs-console-output");
        reader.setDaemon(true);
        reader.start();
        boolean server = s.command().matches(".*\\bidmint serve\\b.*");
        long wanted = s.expected().stream().filter(l -> !l.equals("...")).count();
        List<String> got = new ArrayList<>();
        long deadline = TestTime.deadline(Duration.ofSeconds(60));
        try {
            while (!(server && got.size() >= wanted)) {
                String l = lines.poll(Math.max(1, deadline - System.nanoTime()),
                        TimeUnit.NANOSECONDS);
                if (l == null) {
                    got.add("(no more within 60 s)");
                    break;
                }
                if (l.equals(end)) {
                    break;
                }
                got.add(l);
            }
        } finally {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
        return got;
    }

    /** Whether {@code got} is what the docs show: see the class comment. */
    static boolean matches(List<String> shown, List<String> got) {
        return matches(shown, 0, got, 0);
    }

    private static boolean matches(List<String> shown, int i, List<String> got, int j) {
        if (i == shown.size()) {
            return j == got.size();
        }
        if (shown.get(i).equals("...")) {
            for (int k = j; k <= got.size(); k++) {
                if (matches(shown, i + 1, got, k)) {
                    return true;
                }
            }
            return false;
        }
        return j < got.size() && shape(shown.get(i)).equals(shape(got.get(j)))
                && matches(shown, i + 1, got, j + 1);
    }

    private static String shape(String line) {
        Matcher m = WORD_WITH_DIGIT.matcher(line.strip());
        return m.replaceAll("#").replaceAll("\\s+", " ");
    }

    /** Every {@code ```console} block of the README and docs/*.md. */
    private static List<Block> blocks() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<Block> out = new ArrayList<>();
        for (Path page : pages) {
            String name = ROOT.relativize(page).toString();
            List<String> text;
            try {
                text = Files.readAllLines(page, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (int i = 0; i < text.size(); i++) {
                Matcher m = FENCE.matcher(text.get(i));
                if (!m.matches()) {
                    continue;
                }
                int start = i;
                List<String> body = new ArrayList<>();
                for (i++; i < text.size() && !text.get(i).startsWith("```"); i++) {
                    body.add(text.get(i));
                }
                if (m.group(1).equals("console")) {
                    out.add(new Block(name, start + 1, m.group(2).trim(),
                            steps(body, start + 2)));
                }
            }
        }
        return out;
    }

    private static List<Step> steps(List<String> body, int firstLine) {
        List<Step> steps = new ArrayList<>();
        String command = null;
        int line = 0;
        List<String> expected = new ArrayList<>();
        for (int k = 0; k < body.size(); k++) {
            String l = body.get(k);
            if (l.startsWith("$ ")) {
                if (command != null) {
                    steps.add(new Step(command, List.copyOf(expected), line));
                }
                command = l.substring(2);
                line = firstLine + k;
                expected.clear();
            } else if (command != null) {
                expected.add(l);
            }
        }
        if (command != null) {
            steps.add(new Step(command, List.copyOf(expected), line));
        }
        return steps;
    }
}
