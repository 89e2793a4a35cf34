package io.idmint.server.api;

import io.idmint.TimeSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Failures that are no refusal (a bug, a library's surprise), for both transports: each gets an
 * incident id, which the answer names instead of the exception, so a 500 or INTERNAL tells a
 * caller nothing about the code and the log tells the operator everything. The log cannot be
 * flooded: the first failure of each kind (exception class and where it was thrown) is logged
 * with its stack trace, later ones at most once a second as one line naming the ids passed
 * over since the previous line.
 */
public final class InternalErrors {

    private static final System.Logger LOG = System.getLogger(InternalErrors.class.getName());
    private static final long LINE_EVERY_NANOS = 1_000_000_000L;
    /** The most kinds remembered; past it, every failure is a summary line's. */
    private static final int MAX_KINDS = 1000;

    private final TimeSource time;
    private final AtomicLong ids = new AtomicLong();
    private final Map<String, Boolean> kinds = new ConcurrentHashMap<>();
    private long lastLineNanos;
    private boolean lined;
    private long passedOver;
    private long firstPassedOver;

    public InternalErrors(TimeSource time) {
        this.time = time;
    }

    /**
     * Logs {@code e} (or counts it towards the next summary line) under a new incident id.
     *
     * @param answering what was being answered, in words without request content (a route, a
     *     gRPC method)
     * @return the detail to answer with, naming the incident id
     */
    public String report(Throwable e, String answering) {
        long id = ids.incrementAndGet();
        String kind = kind(e);
        if (kinds.size() < MAX_KINDS && kinds.putIfAbsent(kind, Boolean.TRUE) == null) {
            LOG.log(System.Logger.Level.ERROR, "internal error " + id + " answering "
                    + answering + " (the first " + kind + "; more of it are logged in one line "
                    + "a second at most)", e);
            return detail(id);
        }
        String line;
        synchronized (this) {
            long now = time.nanoTime();
            if (lined && now - lastLineNanos < LINE_EVERY_NANOS) {
                if (passedOver++ == 0) {
                    firstPassedOver = id;
                }
                return detail(id);
            }
            lined = true;
            lastLineNanos = now;
            line = "internal error " + id + " answering " + answering + ": " + kind
                    + (passedOver == 0 ? "" : "; " + passedOver + " more since the last line, "
                    + "ids from " + firstPassedOver + ", not logged");
            passedOver = 0;
        }
        LOG.log(System.Logger.Level.ERROR, line);
        return detail(id);
    }

    private static String detail(long id) {
        return "internal error; the server logged it with id " + id;
    }

    /** The exception's class and the frame it was thrown at: no message, which may echo input. */
    private static String kind(Throwable e) {
        StackTraceElement[] trace = e.getStackTrace();
        return e.getClass().getName() + (trace.length == 0 ? "" : " at " + trace[0]);
    }
}
