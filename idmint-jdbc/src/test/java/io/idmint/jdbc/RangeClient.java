package io.idmint.jdbc;

import io.idmint.segment.RangeStores;
import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A segment store client in a JVM of its own, for tests across processes. The child opens the
 * store and connects (a failure there prints an {@code error} line), prints {@code ready}, waits
 * for a line on its standard input, takes {@code count} ranges of {@code size} and prints each as
 * {@code range START END} (a failure as {@code error KIND message}), then {@code done}. With
 * {@code halt} it then dies at once, as a killed process would: no close, no shutdown hooks.
 */
final class RangeClient implements AutoCloseable {

    private final Process process;
    private final BufferedReader out;
    private final List<String> lines = new ArrayList<>();

    private RangeClient(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
    }

    /** Child side: {@code url dataDir tag count size [halt]}. */
    public static void main(String[] args) throws Exception {
        String tag = args[2];
        int count = Integer.parseInt(args[3]);
        long size = Long.parseLong(args[4]);
        boolean halt = args.length > 5 && args[5].equals("halt");
        RangeStore store = RangeStores.open(args[0], Path.of(args[1]));
        try {
            store.tags(); // connects, so the race below is between allocations, not JVM starts
        } catch (RegistryException e) {
            System.out.println("error " + e.kind() + " " + e.getMessage().replace('\n', ' '));
        }
        System.out.println("ready");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        StringBuilder report = new StringBuilder();
        for (int i = 0; i < count; i++) {
            try {
                Range r = store.allocate(tag, size);
                report.append("range ").append(r.start()).append(' ').append(r.end()).append('\n');
            } catch (RegistryException e) {
                report.append("error ").append(e.kind()).append(' ')
                        .append(e.getMessage().replace('\n', ' ')).append('\n');
            }
        }
        System.out.print(report.append("done\n"));
        System.out.flush();
        if (halt) {
            Runtime.getRuntime().halt(0);
        }
        store.close();
    }

    /** Starts a child JVM on this test's class path; returns once it printed {@code ready}. */
    static RangeClient start(String url, Path dataDir, String tag, int count, long size,
            boolean halt) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Djava.util.logging.config.file="
                        + System.getProperty("java.util.logging.config.file", ""),
                "-cp", System.getProperty("java.class.path"),
                RangeClient.class.getName(), url, dataDir.toString(), tag,
                String.valueOf(count), String.valueOf(size)));
        if (halt) {
            cmd.add("halt");
        }
        RangeClient c = new RangeClient(new ProcessBuilder(cmd).redirectErrorStream(true)
                .start());
        c.readUntil("ready");
        return c;
    }

    /** Lets the child allocate. */
    void go() throws IOException {
        Writer w = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        w.write("go\n");
        w.flush();
    }

    /** Waits for the child's {@code done} and its exit; returns its ranges. */
    List<Range> ranges() throws IOException, InterruptedException {
        readUntil("done");
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("child " + process.pid() + " did not exit: " + lines);
        }
        List<Range> out = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("range ")) {
                String[] p = line.split(" ");
                out.add(new Range(Long.parseLong(p[1]), Long.parseLong(p[2])));
            }
        }
        return out;
    }

    /** Every {@code error …} line the child printed. */
    List<String> errors() {
        return lines.stream().filter(l -> l.startsWith("error ")).toList();
    }

    private void readUntil(String marker) throws IOException {
        for (String line; (line = out.readLine()) != null;) {
            lines.add(line);
            if (line.equals(marker)) {
                return;
            }
        }
        throw new AssertionError("child " + process.pid() + " ended before '" + marker + "': "
                + String.join("\n", lines));
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
