package io.idmint.server.ops;

import java.io.PrintStream;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;

/**
 * The server's one logging backend: java.util.logging. idmint's own classes log through
 * {@link System.Logger} (which the JDK backs with it), gRPC logs to it directly, and Vert.x,
 * Netty, jetcd and Curator log through SLF4J, bound to it by {@code slf4j-jdk14}: every line
 * ends in the one handler installed here, once. No Logback: it would add jars and start-up
 * time for nothing the JDK cannot do (docs/observability.md, "Logs").
 *
 * <p>{@code log.format} picks the line format (text, or json: one object per line), and
 * {@code log.level} the levels, e.g. {@code info,io.netty=warn,io.idmint=debug}. An event with
 * structured fields ({@link #event}) carries them as its one parameter, a map.
 */
public final class Logs {

    /** The loggers configured here, held so that the JDK cannot collect their levels. */
    private static final Map<String, Logger> CONFIGURED = new LinkedHashMap<>();
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Logs() {
    }

    /**
     * The log manager of {@code serve}, named in {@code io.idmint.server.Main} before anything
     * logs. The JDK's resets every logger in a shutdown hook of its own, which would drop the lines
     * of the drain (the worker's release) logged by {@code serve}'s shutdown hook; this one keeps
     * its handlers until the JVM is gone (they flush every line).
     *
     * <p>Commands other than {@code serve} set {@link #QUIET}: the root level is then WARNING,
     * read when the JDK first sets the manager up, which is when something logs. Setting the
     * level at start would set it up in every run, at a cost of tens of milliseconds that
     * {@code idmint next} cannot spare (docs/observability.md, "Start-up"). Store clients that
     * warn at every failed attempt (jetcd: "retry failure", "maximum number of auto retries")
     * say only errors then: the command names the failure once, in its own words; and what
     * logs at all is written in idmint's text format, not the JDK's two-line one.
     */
    public static final class Manager extends java.util.logging.LogManager {
        /** A system property: when {@code true}, the root level is WARNING. */
        public static final String QUIET = "idmint.log.quiet";
        /** Loggers that warn at each attempt a command then reports itself as one failure. */
        static final java.util.Set<String> RETRY_NOISE = java.util.Set.of("io.etcd");
        private volatile boolean configured;

        @Override
        public String getProperty(String name) {
            if (Boolean.getBoolean(QUIET)) {
                if (name.equals(".level")) {
                    return Level.WARNING.getName();
                }
                if (name.endsWith(".level")
                        && RETRY_NOISE.contains(name.substring(0, name.length() - 6))) {
                    return Level.SEVERE.getName();
                }
                if (name.equals("java.util.logging.ConsoleHandler.formatter")) {
                    return TextFormat.class.getName();
                }
            }
            return super.getProperty(name);
        }

        @Override
        public void reset() {
            if (!configured) {
                super.reset();
            }
        }
    }

    /**
     * Loggers whose warnings a caller causes at will, one per stream or connection (grpc-java's
     * "Stream Error" when a client that never read its replies goes away): quiet unless
     * log.level names them. What a caller does to the server is counted in metrics instead.
     */
    private static final Map<String, Level> CALLER_NOISE =
            Map.of("io.grpc.netty.NettyServerHandler", Level.SEVERE);

    /** Sends every logger's lines to {@code err} in {@code format}, at {@code levels}. */
    public static synchronized Handler configure(String format, String levels, PrintStream err) {
        Logger root = Logger.getLogger("");
        for (Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        // Not closed with the handler: stderr outlives the log.
        java.io.OutputStream unclosed = new java.io.FilterOutputStream(err) {
            @Override
            public void close() {
                err.flush();
            }
        };
        Handler handler = new StreamHandler(unclosed, formatter(format)) {
            @Override
            public synchronized void publish(LogRecord record) {
                super.publish(record);
                flush();
            }
        };
        handler.setLevel(Level.ALL);
        root.addHandler(handler);
        if (java.util.logging.LogManager.getLogManager() instanceof Manager m) {
            m.configured = true;
        }
        CONFIGURED.clear();
        Map<String, Level> all = new LinkedHashMap<>(CALLER_NOISE);
        all.putAll(levels(levels));
        all.forEach((name, level) -> {
            Logger logger = Logger.getLogger(name);
            logger.setLevel(level);
            CONFIGURED.put(name, logger);
        });
        return handler;
    }

    /** Checks a {@code log.format} value. */
    public static String format(String format) {
        formatter(format);
        return format;
    }

    /** Checks a {@code log.level} value. */
    public static String levelSpec(String spec) {
        levels(spec);
        return spec;
    }

    /** The formatter named by {@code log.format}. */
    public static Formatter formatter(String format) {
        return switch (format) {
            case "text" -> new TextFormat();
            case "json" -> new JsonFormat();
            default -> throw new IllegalArgumentException("log.format must be text or json, got '"
                    + format + "'");
        };
    }

    /**
     * Parses {@code log.level}: a level for every logger, then {@code logger=level} pairs, comma
     * separated. Levels: off, error, warn, info, debug, trace, all.
     *
     * @return the level of each logger name, "" being the root
     * @throws IllegalArgumentException naming the bad part
     */
    static Map<String, Level> levels(String spec) {
        Map<String, Level> levels = new LinkedHashMap<>();
        for (String part : spec.split(",", -1)) {
            String p = part.strip();
            int eq = p.indexOf('=');
            String name = eq < 0 ? "" : p.substring(0, eq).strip();
            if (eq < 0 && !levels.isEmpty() || eq == 0 || p.isEmpty()) {
                throw new IllegalArgumentException("log.level must be a level, then "
                        + "logger=level pairs, comma separated (e.g. info,io.netty=warn), got '"
                        + spec + "'");
            }
            levels.put(name, level(p.substring(eq + 1).strip(), spec));
        }
        return levels;
    }

    private static Level level(String name, String spec) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "off" -> Level.OFF;
            case "error" -> Level.SEVERE;
            case "warn" -> Level.WARNING;
            case "info" -> Level.INFO;
            case "debug" -> Level.FINE;
            case "trace" -> Level.FINEST;
            case "all" -> Level.ALL;
            default -> throw new IllegalArgumentException("log.level: unknown level '" + name
                    + "' in '" + spec + "'; levels are off, error, warn, info, debug, trace, all");
        };
    }

    /** The level's name in lines: error, warn, info, debug or trace. */
    static String name(Level level) {
        int v = level.intValue();
        return v >= Level.SEVERE.intValue() ? "error" : v >= Level.WARNING.intValue() ? "warn"
                : v >= Level.INFO.intValue() ? "info" : v >= Level.FINE.intValue() ? "debug"
                : "trace";
    }

    /** Logs {@code msg} with structured {@code fields} (kept in order). */
    static void event(Logger logger, Level level, String msg, Map<String, Object> fields) {
        if (logger.isLoggable(level)) {
            LogRecord r = new LogRecord(level, msg);
            r.setLoggerName(logger.getName());
            r.setParameters(new Object[] {fields});
            logger.log(r);
        }
    }

    /** The structured fields of a record made by {@link #event}, or an empty map. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> fields(LogRecord r) {
        Object[] p = r.getParameters();
        return p != null && p.length == 1 && p[0] instanceof Map<?, ?> m
                ? (Map<String, Object>) m : Map.of();
    }

    /**
     * Whether {@code c} must not reach a log as it is: a C0 or C1 control or DEL (line feeds,
     * carriage returns, tabs, terminal escapes) or a Unicode line or paragraph separator. Any
     * of them could start a line the server never wrote, or move a terminal's cursor.
     */
    public static boolean isControl(char c) {
        return c < 0x20 || c >= 0x7f && c <= 0x9f || c == '\u2028' || c == '\u2029';
    }

    /**
     * Appends {@code s}, each {@link #isControl} character as a backslash escape: n, r or t,
     * else u and four hex digits (ESC is backslash, u001b), as JSON writes them.
     */
    static StringBuilder escaped(StringBuilder b, CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!isControl(c)) {
                b.append(c);
                continue;
            }
            switch (c) {
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> b.append("\\u").append(HEX[c >> 12 & 0xf]).append(HEX[c >> 8 & 0xf])
                        .append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
            }
        }
        return b;
    }

    /**
     * {@code ts level logger: msg key=value…}, and the stack trace below, if any. This is the
     * one place text lines are made (the access log's too), so the one place that escapes: the
     * message, every field and each exception's text have their {@link #isControl} characters
     * escaped, and every line starts with the timestamp, or with a tab (a stack trace's).
     */
    public static final class TextFormat extends Formatter {
        @Override
        public String format(LogRecord r) {
            StringBuilder b = new StringBuilder(128).append(r.getInstant()).append(' ')
                    .append(name(r.getLevel()).toUpperCase(Locale.ROOT)).append(' ');
            escaped(b, String.valueOf(r.getLoggerName())).append(": ");
            escaped(b, fields(r).isEmpty() ? formatMessage(r) : String.valueOf(r.getMessage()));
            fields(r).forEach((k, v) -> escaped(escaped(b.append(' '), k).append('='),
                    String.valueOf(v)));
            b.append('\n');
            if (r.getThrown() != null) {
                trace(b, r.getThrown(), "", java.util.Collections.newSetFromMap(
                        new java.util.IdentityHashMap<>()));
            }
            return b.toString();
        }

        /**
         * A stack trace as {@link Throwable#printStackTrace()} lays it out, each line indented
         * by a tab, each exception's text escaped: a message may quote input.
         */
        private static void trace(StringBuilder b, Throwable t, String caption,
                java.util.Set<Throwable> seen) {
            if (!seen.add(t)) {
                escaped(b.append('\t').append(caption).append("[circular] "), t.toString())
                        .append('\n');
                return;
            }
            escaped(b.append('\t').append(caption), t.toString()).append('\n');
            for (StackTraceElement frame : t.getStackTrace()) {
                escaped(b.append("\tat "), frame.toString()).append('\n');
            }
            for (Throwable s : t.getSuppressed()) {
                trace(b, s, "Suppressed: ", seen);
            }
            if (t.getCause() != null) {
                trace(b, t.getCause(), "Caused by: ", seen);
            }
        }
    }

    /**
     * One JSON object per line: ts, level, logger, msg, then the event's fields, and error (the
     * stack trace) when there is one. Every {@link #isControl} character (C1 and U+2028/2029
     * included) is escaped, as in text lines.
     */
    public static final class JsonFormat extends Formatter {
        @Override
        public String format(LogRecord r) {
            Map<String, Object> fields = fields(r);
            StringBuilder b = new StringBuilder(192).append("{\"ts\":");
            string(b, Instant.ofEpochMilli(r.getMillis()).toString());
            b.append(",\"level\":");
            string(b, name(r.getLevel()));
            b.append(",\"logger\":");
            string(b, String.valueOf(r.getLoggerName()));
            b.append(",\"msg\":");
            string(b, fields.isEmpty() ? formatMessage(r) : r.getMessage());
            fields.forEach((k, v) -> {
                b.append(',');
                string(b, k);
                b.append(':');
                if (v instanceof Number || v instanceof Boolean) {
                    b.append(v);
                } else {
                    string(b, String.valueOf(v));
                }
            });
            if (r.getThrown() != null) {
                java.io.StringWriter trace = new java.io.StringWriter();
                r.getThrown().printStackTrace(new java.io.PrintWriter(trace));
                b.append(",\"error\":");
                string(b, trace.toString());
            }
            return b.append("}\n").toString();
        }

        private static void string(StringBuilder b, String s) {
            b.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append("\\t");
                    default -> {
                        // C1 and U+2028/2029 too: valid in JSON, but line breaks to some
                        // readers (JavaScript before ES2019, editors, log viewers).
                        if (isControl(c)) {
                            escaped(b, String.valueOf(c));
                        } else {
                            b.append(c);
                        }
                    }
                }
            }
            b.append('"');
        }
    }
}
