package io.idmint.server;

import io.idmint.GeneratorStatus;
import io.idmint.IdCodec;
import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code idmint next}: mints IDs locally, with a worker of its own, and prints them. */
@Command(name = "next", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Prints N new IDs, one per line, minted locally.",
            "Safe next to a running server: the registry gives this process its own worker."})
final class NextCommand implements Callable<Integer> {

    static final long MAX_COUNT = 1_000_000_000L;
    /** Below this, a run is too short for progress to help. */
    static final long PROGRESS_FROM = 1_000_000L;
    private static final int BATCH = 4096;
    /** Progress is redrawn every 2^18 IDs: about 16 times a second at full speed. */
    private static final long PROGRESS_MASK = (1 << 18) - 1;
    private static final long RETRY_SLEEP_MILLIS = 50;

    private final Invocation invocation;
    private volatile boolean shuttingDown;

    @Spec
    CommandSpec spec;

    @Option(names = "-n", paramLabel = "N", defaultValue = "1",
            description = "how many IDs, 1 to 1000000000 (default: 1)")
    long count;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "decimal",
            description = "decimal, hex or base32 (default: decimal)")
    String format;

    NextCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (count < 1 || count > MAX_COUNT) {
            throw new ParameterException(spec.commandLine(), "-n must be from 1 to " + MAX_COUNT
                    + ", got " + count);
        }
        IdWriter writer = IdWriter.of(codec(format));
        Config config = ConfigOptions.load(spec, invocation.env());
        Minter minter = Minter.open(config);
        // On Ctrl-C, release the worker with the last issued time: left to lapse, its HWM stays
        // a reservation ahead of the clock and the next run has to wait that out. The hook stays
        // until close() is done, so a shutdown that starts mid-close waits for the release.
        Thread release = new Thread(() -> {
            shuttingDown = true;
            minter.close();
        }, "idmint-release");
        Runtime.getRuntime().addShutdownHook(release);
        try {
            GeneratorStatus status = minter.ids().status();
            if (!status.ready()) {
                throw new IllegalStateException("cannot mint IDs: " + status.detail());
            }
            print(minter.ids(), writer, config.get(Config.LEASE_STORE_TIMEOUT));
        } catch (IdUnavailableException e) {
            if (!shuttingDown) {
                throw e;
            }
        } finally {
            minter.close();
            removeHook(release);
        }
        return Main.OK;
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // Shutting down already: the hook is running or done, and close() is idempotent.
        }
    }

    private IdCodec codec(String name) {
        if (name.equalsIgnoreCase("code")) {
            throw new ParameterException(spec.commandLine(), "--format code needs the codes "
                    + "module, which this build does not have yet; formats are decimal, hex, "
                    + "base32");
        }
        try {
            return IdCodec.named(name);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--format: " + e.getMessage());
        }
    }

    private void print(IdGenerator ids, IdWriter writer, Duration retryBudget)
            throws IOException, InterruptedException {
        OutputStream out = invocation.stdout();
        PrintWriter err = spec.commandLine().getErr();
        boolean progress = invocation.stderrIsTerminal() && count >= PROGRESS_FROM;
        long[] batch = new long[BATCH];
        byte[] buf = new byte[BATCH * writer.maxLineLength()];
        long done = 0;
        try {
            while (done < count) {
                int n = (int) Math.min(BATCH, count - done);
                take(ids, batch, n, retryBudget);
                int len = 0;
                for (int i = 0; i < n; i++) {
                    len = writer.write(batch[i], buf, len);
                }
                out.write(buf, 0, len);
                done += n;
                if (progress && ((done & PROGRESS_MASK) == 0 || done == count)) {
                    err.print(String.format(Locale.ROOT, "\r %d/%d ids", done, count));
                    err.flush();
                }
            }
            out.flush();
        } catch (IOException e) {
            if (!isBrokenPipe(e)) {
                throw new IOException("cannot write IDs to standard output: " + e.getMessage(), e);
            }
            // The reader went away (| head): what it read is all it wanted.
        } finally {
            if (progress) {
                err.println();
            }
        }
    }

    /**
     * Fills {@code batch[0..n)}, waiting out short gaps (a late renewal, the clock catching up)
     * for as long as the lease itself would tolerate an unreachable registry.
     */
    private static void take(IdGenerator ids, long[] batch, int n, Duration retryBudget)
            throws InterruptedException {
        long retries = Math.max(1, retryBudget.toMillis() / RETRY_SLEEP_MILLIS);
        for (long attempt = 0; ; attempt++) {
            try {
                ids.nextIds(batch, 0, n);
                return;
            } catch (IdUnavailableException e) {
                boolean transientReason = switch (e.reason()) {
                    case NO_LEASE, RUNWAY_EXHAUSTED, CLOCK_BEHIND -> true;
                    default -> false;
                };
                if (!transientReason || attempt >= retries) {
                    throw e;
                }
                Thread.sleep(RETRY_SLEEP_MILLIS);
            }
        }
    }

    private static boolean isBrokenPipe(IOException e) {
        String m = e.getMessage();
        return m != null && (m.contains("Broken pipe") || m.contains("Stream closed"));
    }
}
