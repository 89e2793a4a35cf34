package io.idmint.server.ops;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.StreamHandler;

/**
 * The optional access log ({@code log.access}): one line per HTTP request with method, path,
 * status, duration_ms, count and caller, in the log's format, to the log's handler ({@code on})
 * or appended to a file. The event loop only queues a record; a daemon thread formats and writes
 * it. A full queue drops the record rather than stall a request, and a line the handler fails
 * to write is skipped; both are counted in the line written when the log closes.
 */
public final class AccessLog implements AutoCloseable {

    private static final int QUEUE = 65_536;
    private static final String LOGGER = "io.idmint.server.access";
    /** How long {@link #close()} waits to queue the end marker, then for the writer. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    /** Queued by {@link #close()}: the writer writes the closing line and stops. */
    private static final LogRecord END = new LogRecord(Level.OFF, "end");

    /** The file's handler, or null to log through the server log. */
    private final Handler out;
    private final BlockingQueue<LogRecord> queue = new ArrayBlockingQueue<>(QUEUE);
    private final LongAdder dropped = new LongAdder();
    /** Lines a handler failed to write. */
    private final LongAdder failed = new LongAdder();
    private final Thread writer;

    private AccessLog(Handler out) {
        this.out = out;
        writer = new Thread(this::write, "idmint-access-log");
        writer.setDaemon(true);
        writer.start();
    }

    /**
     * The access log {@code setting} asks for, or null when it is {@code off}.
     *
     * @param format the lines' format in a file
     */
    public static AccessLog open(String setting, Formatter format) {
        return switch (setting) {
            case "off" -> null;
            case "on" -> new AccessLog(null);
            default -> {
                try {
                    FileOutputStream file = new FileOutputStream(Path.of(setting).toFile(), true);
                    yield new AccessLog(new StreamHandler(file, format));
                } catch (IOException e) {
                    throw new UncheckedIOException("log.access: cannot open " + setting + " for "
                            + "appending: " + e.getMessage(), e);
                }
            }
        };
    }

    /** Queues the line of one answered request. */
    public void request(String method, String path, int status, long nanos, String count,
            String caller) {
        Map<String, Object> f = new LinkedHashMap<>(8);
        f.put("method", method);
        f.put("path", path);
        f.put("status", status);
        f.put("duration_ms", nanos / 1_000 / 1_000.0);
        f.put("count", count == null ? "1" : count);
        f.put("caller", caller);
        LogRecord r = new LogRecord(Level.INFO, "request");
        r.setLoggerName(LOGGER);
        r.setParameters(new Object[] {f});
        if (!queue.offer(r)) {
            dropped.increment();
        }
    }

    private void write() {
        try {
            for (LogRecord r = queue.take(); r != END; r = queue.take()) {
                publish(r);
            }
            LogRecord last = new LogRecord(Level.INFO, "access log closed; " + dropped.sum()
                    + " lines dropped on a full queue, " + failed.sum() + " failed to write");
            last.setLoggerName(LOGGER);
            publish(last);
        } catch (InterruptedException e) {
            // close() gave up waiting: the writer is stuck or the queue stayed full.
        }
    }

    /** Writes one line; a line that fails is counted, and the writer goes on with the next. */
    private void publish(LogRecord r) {
        try {
            if (out == null) {
                java.util.logging.Logger.getLogger(LOGGER).log(r);
            } else {
                out.publish(r);
                if (queue.isEmpty()) {
                    out.flush();
                }
            }
        } catch (RuntimeException e) {
            failed.increment();
        }
    }

    /**
     * Writes what is queued and the closing line with the drop counts, then stops. Waits at most
     * {@link #CLOSE_WAIT} for each step, so a stuck writer never holds up shutdown.
     */
    @Override
    public void close() {
        try {
            // The end marker, behind every line queued before it: the writer ends there.
            if (queue.offer(END, CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                writer.join(CLOSE_WAIT.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        writer.interrupt();
        if (out != null) {
            out.close();
        }
    }
}
