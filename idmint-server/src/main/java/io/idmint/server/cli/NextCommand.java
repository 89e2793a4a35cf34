package io.idmint.server.cli;

import io.idmint.GeneratorStatus;
import io.idmint.IdCodec;
import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import io.idmint.server.config.Config;
import io.idmint.server.mint.CodesAndFormats;
import io.idmint.server.mint.LeasedGenerator;
import io.idmint.spi.support.Durations;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * {@code idmint next}: mints IDs locally, with a worker of its own, and prints them. Its model is
 * built through picocli's programmatic API, not read from annotations: this is the command whose
 * start-up matters most (docs/observability.md, "Start-up").
 */
public final class NextCommand implements Callable<Integer> {

    static final long MAX_COUNT = 1_000_000_000L;
    /** Below this, a run is too short for progress to help. */
    static final long PROGRESS_FROM = 1_000_000L;
    private static final int BATCH = 4096;
    /** Progress is redrawn every 2^18 IDs: about 16 times a second at full speed. */
    private static final long PROGRESS_MASK = (1 << 18) - 1;
    private static final long RETRY_SLEEP_MILLIS = 50;
    /** Back to the start of the line and erase it (ANSI: CR, then EL). */
    static final String ERASE_LINE = "\r\033[K";

    private final Invocation invocation;
    private volatile boolean shuttingDown;
    private CommandSpec spec;
    private long count;

    private NextCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    /** The command with its options and the configuration keys it reads. */
    public static CommandLine commandLine(Invocation invocation) {
        NextCommand command = new NextCommand(invocation);
        CommandSpec spec = IdmintCommand.subcommand(command, "next",
                "Prints N new IDs, one per line, minted locally.",
                "Safe next to a running server: the registry gives this process its own worker.");
        spec.addOption(OptionSpec.builder("-n").paramLabel("N").type(long.class)
                .defaultValue("1").description("how many IDs, 1 to 1000000000 (default: 1)")
                .build());
        spec.addOption(OptionSpec.builder("--format").paramLabel("FORMAT").type(String.class)
                .description("decimal, hex, base32, or code: the public code (15 symbols, needs "
                        + "codes.key, codes.key-file or codes.dev) (default: decimal)",
                        "only for --kind snowflake")
                .build());
        spec.addOption(OptionSpec.builder("--kind").paramLabel("KIND").type(String.class)
                .defaultValue("snowflake")
                .description("snowflake (64-bit IDs, default), fenced-uuid7 (RFC 9562 UUIDv7s "
                        + "carrying this process's leased IDs: unique by construction), uuid7 "
                        + "(random-based UUIDv7), objectid (24 hex digits) or flake128 (32 hex "
                        + "digits, needs flake.worker)")
                .build());
        command.spec = spec;
        return IdmintCommand.commandLine(spec, Config.MINT_KEYS);
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        count = spec.findOption("-n").getValue();
        String format = spec.findOption("--format").getValue();
        String kind = spec.findOption("--kind").getValue();
        if (count < 1 || count > MAX_COUNT) {
            throw new ParameterException(spec.commandLine(), "-n must be from 1 to " + MAX_COUNT
                    + ", got " + count);
        }
        String k = kind.toLowerCase(Locale.ROOT);
        boolean fenced = k.equals("fenced-uuid7");
        if (fenced && format != null) {
            throw new ParameterException(spec.commandLine(), "--format applies to --kind "
                    + "snowflake only; fenced-uuid7 has one text form");
        }
        if (!k.equals("snowflake") && !fenced) {
            if (!k.equals("uuid7") && !k.equals("objectid") && !k.equals("flake128")) {
                throw new ParameterException(spec.commandLine(), "--kind must be snowflake, "
                        + "fenced-uuid7, uuid7, objectid or flake128, got '" + kind + "'");
            }
            if (format != null) {
                throw new ParameterException(spec.commandLine(), "--format applies to --kind "
                        + "snowflake only; " + k + " has one text form");
            }
            return printOther(k, ConfigOptions.load(spec, invocation.env()));
        }
        String f = format == null ? "decimal" : format;
        Config config = ConfigOptions.load(spec, invocation.env());
        LineWriter writer;
        if (fenced) {
            writer = uuidWriter(config.get(Config.LAYOUT));
        } else if (f.equalsIgnoreCase("code")) {
            io.idmint.codes.CodeCodec codes = CodesAndFormats.codec(config, line -> {
                spec.commandLine().getErr().println("idmint: " + line);
                spec.commandLine().getErr().flush();
            }, true);
            if (codes == null) {
                throw new IllegalArgumentException("--format code: "
                        + CodesAndFormats.CODES_NOT_CONFIGURED);
            }
            writer = codeWriter(codes);
        } else {
            writer = LineWriter.of(IdWriter.of(codec(f)));
        }
        LeasedGenerator minter = LeasedGenerator.open(config);
        // On Ctrl-C, release the worker with the last issued time: left to lapse, its HWM stays
        // a reservation ahead of the clock and the next run has to wait that out. The hook stays
        // until close() is done, so a shutdown that starts mid-close waits for the release.
        Thread release = new Thread(() -> {
            shuttingDown = true;
            minter.close();
        }, "idmint-release");
        Runtime.getRuntime().addShutdownHook(release);
        try {
            awaitReady(minter.ids(), config.get(Config.LEASE_STORE_TIMEOUT));
            print(minter.ids(), writer, config.get(Config.LEASE_STORE_TIMEOUT));
        } catch (IdUnavailableException e) {
            if (!shuttingDown) {
                throw e;
            }
        } finally {
            minter.close();
            removeHook(release);
        }
        return ExitCode.OK;
    }

    /**
     * Waits for a worker for up to the store timeout: the registry may be briefly unreachable,
     * or every worker held for a moment. Then fails with the generator's own reason.
     */
    private static void awaitReady(IdGenerator ids, Duration budget) throws InterruptedException {
        long deadline = io.idmint.spi.support.Durations.deadlineNanos(System.nanoTime(), budget);
        GeneratorStatus status = ids.status();
        while (!status.ready() && deadline - System.nanoTime() > 0) {
            Thread.sleep(RETRY_SLEEP_MILLIS);
            status = ids.status();
        }
        if (!status.ready()) {
            throw new IllegalStateException("cannot mint IDs: " + status.detail());
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // Shutting down already: the hook is running or done, and close() is idempotent.
        }
    }

    private IdCodec codec(String name) {
        try {
            return IdCodec.named(name);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--format: " + e.getMessage()
                    + "; or code");
        }
    }

    /** Writes one ID as one line of text into a byte buffer. */
    interface LineWriter {
        /** Bytes one line takes at most, newline included. */
        int maxLineLength();

        /** Writes {@code id} and a newline at {@code pos}; returns the end. */
        int write(long id, byte[] buf, int pos);

        static LineWriter of(IdWriter w) {
            return new LineWriter() {
                @Override
                public int maxLineLength() {
                    return w.maxLineLength();
                }

                @Override
                public int write(long id, byte[] buf, int pos) {
                    return w.write(id, buf, pos);
                }
            };
        }
    }

    /** The compact 15-symbol code, as HTTP and gRPC give it. */
    private static LineWriter codeWriter(io.idmint.codes.CodeCodec codes) {
        return new LineWriter() {
            @Override
            public int maxLineLength() {
                return io.idmint.codes.CodeCodec.LENGTH + 1;
            }

            @Override
            public int write(long id, byte[] buf, int pos) {
                String code = codes.encode(id);
                for (int i = 0; i < code.length(); i++) {
                    buf[pos++] = (byte) code.charAt(i);
                }
                buf[pos] = '\n';
                return pos + 1;
            }
        };
    }

    /**
     * A leased ID as its fenced UUIDv7, in canonical text.
     *
     * @throws IllegalArgumentException when the layout's times do not fit a UUIDv7
     */
    private static LineWriter uuidWriter(io.idmint.Layout layout) {
        try {
            io.idmint.FencedUuidV7.requireFits(layout);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--kind fenced-uuid7: " + e.getMessage(), e);
        }
        return new LineWriter() {
            @Override
            public int maxLineLength() {
                return 37;
            }

            @Override
            public int write(long id, byte[] buf, int pos) {
                String text = io.idmint.FencedUuidV7.of(id, layout).toString();
                for (int i = 0; i < text.length(); i++) {
                    buf[pos++] = (byte) text.charAt(i);
                }
                buf[pos] = '\n';
                return pos + 1;
            }
        };
    }

    /** {@code --kind uuid7|objectid|flake128}: no registry, no worker lease. */
    private int printOther(String k, Config config) throws IOException, InterruptedException {
        java.util.function.Supplier<String> next;
        switch (k) {
            case "uuid7" -> {
                var g = io.idmint.formats.UuidV7.newGenerator().build();
                next = () -> g.next().toString();
            }
            case "objectid" -> {
                var g = io.idmint.formats.ObjectId.newGenerator().build();
                next = () -> g.next().toHexString();
            }
            default -> {
                Long worker = config.get(Config.FLAKE_WORKER);
                if (worker == null) {
                    throw new IllegalArgumentException("--kind flake128: "
                            + CodesAndFormats.FLAKES_NOT_CONFIGURED + " (--flake-worker, "
                            + Config.FLAKE_WORKER.envVar() + ")");
                }
                var g = io.idmint.formats.Flake128.newGenerator().workerId(worker).build();
                next = () -> g.next().toHexString();
            }
        }
        emit(new byte[BATCH * 40], (buf, n) -> {
            int len = 0;
            for (int i = 0; i < n; i++) {
                String s = next.get();
                for (int j = 0; j < s.length(); j++) {
                    buf[len++] = (byte) s.charAt(j);
                }
                buf[len++] = '\n';
            }
            return len;
        });
        return ExitCode.OK;
    }

    private void print(IdGenerator ids, LineWriter writer, Duration retryBudget)
            throws IOException, InterruptedException {
        long[] batch = new long[BATCH];
        emit(new byte[BATCH * writer.maxLineLength()], (buf, n) -> {
            take(ids, batch, n, retryBudget);
            int len = 0;
            for (int i = 0; i < n; i++) {
                len = writer.write(batch[i], buf, len);
            }
            return len;
        });
    }

    /** Writes {@code n} lines into {@code buf} and returns the bytes written. */
    @FunctionalInterface
    private interface Lines {
        int write(byte[] buf, int n) throws InterruptedException;
    }

    /**
     * Writes {@code count} lines in batches to stdout, with progress on a terminal; a reader
     * that goes away ({@code | head}) ends the run quietly, as it has all it wanted.
     *
     * <p>Progress goes to stderr on a line of its own: stdout is flushed first (it ends on a
     * whole line), and the progress line is erased before stdout continues, so that on a terminal
     * that shows both the IDs never share a line with it. The last one stays, on its own line.
     */
    private void emit(byte[] buf, Lines lines) throws IOException, InterruptedException {
        OutputStream out = invocation.stdout();
        PrintWriter err = spec.commandLine().getErr();
        boolean progress = invocation.stderrIsTerminal() && count >= PROGRESS_FROM;
        long startNanos = System.nanoTime();
        boolean shown = false;
        long done = 0;
        try {
            while (done < count) {
                int n = (int) Math.min(BATCH, count - done);
                int len = lines.write(buf, n);
                if (shown) {
                    err.print(ERASE_LINE);
                    err.flush();
                    shown = false;
                }
                out.write(buf, 0, len);
                done += n;
                if (progress && ((done & PROGRESS_MASK) == 0 || done == count)) {
                    out.flush();
                    err.print(ERASE_LINE + progress(done, count, System.nanoTime() - startNanos));
                    err.flush();
                    shown = true;
                }
            }
            out.flush();
        } catch (IOException e) {
            if (!isBrokenPipe(e)) {
                throw new IOException("cannot write IDs to standard output: " + e.getMessage(), e);
            }
        } finally {
            if (shown) {
                err.println();
                err.flush();
            }
        }
    }

    /** {@code 262144/1100000 ids, 850000 ids/s, ETA 1s}: done, rate, time left. */
    static String progress(long done, long count, long elapsedNanos) {
        long perSecond = elapsedNanos <= 0 ? 0 : (long) (done * 1e9 / elapsedNanos);
        String eta = done == count ? "done in " + Durations.format(Duration.ofNanos(elapsedNanos))
                : perSecond == 0 ? "ETA unknown"
                : "ETA " + Durations.format(Duration.ofSeconds(
                        (count - done + perSecond - 1) / perSecond));
        return String.format(Locale.ROOT, " %d/%d ids, %d ids/s, %s", done, count, perSecond,
                eta);
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
                    case NO_LEASE, RUNWAY_EXHAUSTED, CLOCK_BEHIND, CLOCK_BEHIND_FLEET,
                            CLOCK_AHEAD_OF_FLEET -> true;
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
