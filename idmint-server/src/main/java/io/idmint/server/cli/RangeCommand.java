package io.idmint.server.cli;

import io.idmint.server.config.Config;
import io.idmint.server.config.Config.Setting;
import io.idmint.server.json.ApiJson;
import io.idmint.server.mint.TimeWindows;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idmint range --from T --to T [--kind K]}: the IDs of a time window, as the bounds of a
 * query on the ID's own index ({@link TimeWindows}).
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
        Instant start = TimeWindows.instant("--from", from);
        Instant end = TimeWindows.instant("--to", to);
        TimeWindows.Window w;
        try {
            w = TimeWindows.of(config.get(Config.LAYOUT), kind, start, end);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().startsWith("kind ")
                    ? "--" + e.getMessage() : e.getMessage(), e);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(ApiJson.window(w.kind(), w.layout(), start.toString(), end.toString(),
                    w.idFrom(), w.idTo()));
            out.flush();
            return ExitCode.OK;
        }
        out.println(w.layout() != null ? "layout  " + w.layout() : "kind    " + w.kind());
        out.println("window  [" + start + ", " + end + ")");
        out.println("ids     [" + w.idFrom() + ", " + w.idTo() + ")");
        switch (w.kind()) {
            case "objectid" -> {
                out.println("query   {_id: {$gte: ObjectId('" + w.idFrom() + "'), $lt: "
                        + "ObjectId('" + w.idTo() + "')}}");
                out.println("note    bounds are whole seconds, the ObjectId's tick");
            }
            case "uuid7" -> {
                out.println("sql     WHERE id >= '" + w.idFrom() + "' AND id < '" + w.idTo()
                        + "'");
                out.println("note    bounds are whole milliseconds, compared bytewise as "
                        + "PostgreSQL's uuid does");
            }
            default -> {
                out.println("sql     WHERE id >= " + w.idFrom() + " AND id < " + w.idTo());
                if (w.tickMillis() > 1) {
                    out.println("note    bounds are whole " + w.tickMillis() + " ms ticks: IDs "
                            + "of that tick just outside the window match too");
                }
            }
        }
        out.flush();
        return ExitCode.OK;
    }
}
