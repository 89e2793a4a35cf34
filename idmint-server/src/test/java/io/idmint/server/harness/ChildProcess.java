package io.idmint.server.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a child process to its end within a deadline. Its stdout and stderr go to files, not
 * pipes, so a child that hangs (or leaves a grandchild holding the output open) cannot hang the
 * test: past the deadline the whole process tree is killed and the test fails with what the
 * child printed.
 */
public final class ChildProcess {

    /** How a child ended: its exit code, its stdout, and its stderr then stdout (for messages). */
    public record Result(int exitCode, String stdout, String output) {
    }

    private ChildProcess() {
    }

    /**
     * Starts {@code builder} (its output redirections are replaced; with
     * {@code redirectErrorStream(true)} stderr is in stdout) and waits for it.
     *
     * @throws AssertionError when it has not ended within {@code timeout}; it is killed then
     */
    public static Result run(ProcessBuilder builder, Duration timeout)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("child", ".stdout");
        Path err = Files.createTempFile("child", ".stderr");
        try {
            Process p = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                killTree(p.toHandle());
                throw new AssertionError(String.join(" ", builder.command()) + " did not end in "
                        + timeout.toSeconds() + " s and was killed; it printed: "
                        + Files.readString(err) + Files.readString(out));
            }
            String stdout = Files.readString(out);
            return new Result(p.exitValue(), stdout, Files.readString(err) + stdout);
        } finally {
            Files.delete(out);
            Files.delete(err);
        }
    }

    /**
     * The lines a running child writes to stdout, read on a daemon thread as they come (a
     * server's banner, then whatever follows); the thread ends with the stream.
     */
    public static BlockingQueue<String> stdoutLines(Process p, String name) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(
                    p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // The process is gone; a test waiting for a line fails on its absence.
            }
        }, "stdout-" + name);
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    /** Kills {@code root} and every process under it, and waits until they are gone. */
    public static void killTree(ProcessHandle root) throws InterruptedException {
        // Taken first: once a parent dies its children are no longer its descendants.
        List<ProcessHandle> tree = new java.util.ArrayList<>(root.descendants().toList());
        tree.add(root);
        tree.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle h : tree) {
            try {
                h.onExit().get(10, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new AssertionError("process " + h.pid() + " did not die when killed", e);
            }
        }
    }
}
