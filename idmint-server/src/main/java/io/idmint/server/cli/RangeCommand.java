package io.idmint.server.cli;

import io.idmint.IdRange;
import io.idmint.Layout;
import io.idmint.formats.Bounds;
import io.idmint.formats.ObjectId;
import io.idmint.formats.UuidV7;
import io.idmint.server.config.Config;
import io.idmint.server.config.Config.Setting;
import io.idmint.server.json.Json;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idmint range --from T --to T [--kind K]}: the IDs of a time window, as the bounds of a
 * query on the ID's own index ({@link Layout#range}, {@link UuidV7#range}, {@link
 * ObjectId#range}).
 */
@Command(name = "range", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Prints the IDs of a time window [from, to): WHERE id >= FROM AND id < TO "
                + "misses none of the IDs of that time.")
public final class RangeCommand implements Callable<Integer> {

    /** The keys it reads: the layout. */
    public static final List<Config.Key<?>> KEYS = List.of(Config.LAYOUT);

    private final Invocation invocation;

    @Spec
    CommandSpec spec;

    @Option(names = "--from", required = true, paramLabel = "TIME",
            description = "the window's start, inclusive: an instant such as "
                    + "2026-11-28T00:00:00Z, or a date (midnight UTC)")
    String from;

    @Option(names = "--to", required = true, paramLabel = "TIME",
            description = "the window's end, exclusive, written as --from")
    String to;

    @Option(names = "--kind", paramLabel = "KIND", defaultValue = "snowflake",
            description = "snowflake (the layout's IDs, default), uuid7 (any RFC 9562 version 7 "
                    + "UUID) or objectid (any MongoDB ObjectId)")
    String kind;

    @Option(names = "--json", description = "print one JSON object instead, for scripts")
    boolean json;

    public RangeCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        Config config = ConfigOptions.load(spec, invocation.env(),
                Map.<Config.Key<?>, Setting>of());
        Instant start = instant("--from", from);
        Instant end = instant("--to", to);
        PrintWriter out = spec.commandLine().getOut();
        String k = kind.toLowerCase(Locale.ROOT);
        if (!k.equals("snowflake")) {
            Bounds<?> b = switch (k) {
                case "uuid7" -> UuidV7.range(start, end);
                case "objectid" -> ObjectId.range(start, end);
                default -> throw new IllegalArgumentException("--kind must be snowflake, uuid7 "
                        + "or objectid, got '" + kind + "'");
            };
            String lo = b.from() instanceof ObjectId o ? o.toHexString() : b.from().toString();
            String hi = b.to() instanceof ObjectId o ? o.toHexString() : b.to().toString();
            if (json) {
                out.println(new Json().add("kind", k).add("from", start.toString())
                        .add("to", end.toString()).add("id_from", lo).add("id_to", hi));
            } else {
                out.println("kind    " + k);
                out.println("window  [" + start + ", " + end + ")");
                out.println("ids     [" + lo + ", " + hi + ")");
                if (k.equals("uuid7")) {
                    out.println("sql     WHERE id >= '" + lo + "' AND id < '" + hi + "'");
                    out.println("note    bounds are whole milliseconds, compared bytewise as "
                            + "PostgreSQL's uuid does");
                } else {
                    out.println("query   {_id: {$gte: ObjectId('" + lo + "'), $lt: ObjectId('"
                            + hi + "')}}");
                    out.println("note    bounds are whole seconds, the ObjectId's tick");
                }
            }
            out.flush();
            return ExitCode.OK;
        }
        Layout layout = config.get(Config.LAYOUT);
        IdRange r = layout.range(start, end);
        if (json) {
            out.println(new Json().add("layout", layout.spec()).add("from", start.toString())
                    .add("to", end.toString()).add("id_from", Long.toString(r.from()))
                    .add("id_to", Long.toString(r.to())));
        } else {
            out.println("layout  " + layout.spec());
            out.println("window  [" + start + ", " + end + ")");
            out.println("ids     [" + r.from() + ", " + r.to() + ")");
            out.println("sql     WHERE id >= " + r.from() + " AND id < " + r.to());
            if (layout.tickMillis() > 1) {
                out.println("note    bounds are whole " + layout.tickMillis() + " ms ticks: IDs "
                        + "of that tick just outside the window match too");
            }
        }
        out.flush();
        return ExitCode.OK;
    }

    /** An ISO-8601 instant, or a date for its midnight UTC. */
    private static Instant instant(String option, String text) {
        try {
            return text.length() == 10 ? LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC)
                    .toInstant() : Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(option + " '" + text + "' is neither an instant "
                    + "such as 2026-11-28T00:00:00Z nor a date such as 2026-11-28");
        }
    }
}
