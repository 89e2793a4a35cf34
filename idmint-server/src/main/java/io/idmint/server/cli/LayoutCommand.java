package io.idmint.server.cli;

import io.idmint.Layout;
import io.idmint.Layout.Field;
import io.idmint.server.config.Config;
import io.idmint.server.config.Config.Setting;
import io.idmint.server.json.ApiJson;
import io.idmint.server.json.Json;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code idmint layout [SPEC]}: the bit layout and its capacity arithmetic. */
@Command(name = "layout", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Prints a layout: field widths, max datacenter/worker, IDs per tick, epoch "
                + "and exhaustion date.")
public final class LayoutCommand implements Callable<Integer> {

    /** The keys it reads: the layout, and the sequence start that lowers a tick's capacity. */
    public static final List<Config.Key<?>> KEYS =
            List.of(Config.LAYOUT, Config.SEQUENCE_RANDOM_START,
            Config.SEQUENCE_RANDOM_SPAN);

    private static final double MILLIS_PER_YEAR = 365.2425 * 24 * 3600 * 1000;

    private final Invocation invocation;

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "SPEC",
            description = "the layout (default: the configured one, else snowflake)")
    String layoutArg;

    @Option(names = "--json", description = "print one JSON object instead, for scripts")
    boolean json;

    public LayoutCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        Map<Config.Key<?>, Setting> args = layoutArg == null ? Map.of()
                : Map.of(Config.LAYOUT, new Setting(layoutArg, "argument SPEC"));
        Config config = ConfigOptions.load(spec, invocation.env(), args);
        Layout layout = config.get(Config.LAYOUT);
        int span = config.get(Config.SEQUENCE_RANDOM_START)
                ? config.get(Config.SEQUENCE_RANDOM_SPAN) : 1;
        if (span > layout.idsPerTick()) {
            throw new IllegalArgumentException("sequence.random-span " + span + " exceeds the "
                    + layout.idsPerTick() + " IDs per tick of layout " + layout);
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(json ? json(layout, span) + "\n" : text(layout, span));
        out.flush();
        return ExitCode.OK;
    }

    static String text(Layout l) {
        return text(l, 1);
    }

    /** With {@code span} above 1: the capacity of a tick under a random sequence start. */
    static String text(Layout l, int span) {
        StringBuilder sb = new StringBuilder();
        row(sb, "layout", l.name());
        row(sb, "spec", l.spec());
        row(sb, "bits", diagram(l) + "   (most significant first)");
        sb.append('\n');
        sb.append(String.format(Locale.ROOT, "  %-12s %5s %9s  %s%n", "field", "bits", "position",
                "max value"));
        for (Field f : l.fields()) {
            int lo = l.shift(f);
            String position = l.bits(f) == 0 ? "-" : (lo + l.bits(f) - 1) + ".." + lo;
            sb.append(String.format(Locale.ROOT, "  %-12s %5d %9s  %d%n", f.key(), l.bits(f),
                    position, l.maxValue(f)));
        }
        sb.append('\n');
        row(sb, "max datacenter ID", Integer.toString(l.maxDatacenterId()));
        row(sb, "max worker ID", Integer.toString(l.maxWorkerId()));
        if (hasShard(l)) {
            row(sb, "max shard ID", Integer.toString(l.maxShardId()));
        }
        row(sb, "IDs per tick", l.idsPerTick() + (span == 1 ? "" : " (at least "
                + (l.idsPerTick() - span + 1) + " with sequence.start=random, span " + span
                + ")"));
        row(sb, "IDs per second", l.idsPerSecond() + " per worker");
        row(sb, "tick", l.tickMillis() + "ms");
        row(sb, "epoch", ApiJson.iso(l.epochMillis()));
        row(sb, "exhaustion", ApiJson.iso(l.exhaustionMillis()) + " (" + years(l)
                + " years after the epoch)");
        if (l.unsigned()) {
            row(sb, "unsigned", "all 64 bits: IDs read as unsigned; idmint decodes them but "
                    + "does not mint this layout");
        }
        return sb.toString();
    }

    static String json(Layout l) {
        return json(l, 1);
    }

    static String json(Layout l, int span) {
        List<String> fields = new ArrayList<>();
        for (Field f : l.fields()) {
            fields.add(new Json().add("name", f.key()).add("bits", l.bits(f))
                    .add("shift", l.shift(f)).add("max", l.maxValue(f)).toString());
        }
        Json json = new Json()
                .add("name", l.name())
                .add("spec", l.spec())
                .add("total_bits", l.totalBits())
                .addRaw("fields", "[" + String.join(",", fields) + "]")
                .add("max_datacenter_id", l.maxDatacenterId())
                .add("max_worker_id", l.maxWorkerId());
        if (hasShard(l)) {
            json.add("max_shard_id", l.maxShardId());
        }
        if (l.unsigned()) {
            json.addRaw("unsigned", "true");
        }
        if (span > 1) {
            json.add("sequence_random_span", span)
                    .add("min_ids_per_tick", l.idsPerTick() - span + 1);
        }
        return json.add("ids_per_tick", l.idsPerTick())
                .add("ids_per_second", l.idsPerSecond())
                .add("tick_ms", l.tickMillis())
                .add("epoch", ApiJson.iso(l.epochMillis()))
                .add("epoch_ms", l.epochMillis())
                .add("exhaustion", ApiJson.iso(l.exhaustionMillis()))
                .add("exhaustion_ms", l.exhaustionMillis())
                .addRaw("years", years(l))
                .toString();
    }

    /** E.g. {@code zero 1 | time 41 | datacenter 5 | worker 5 | sequence 12}. */
    private static String diagram(Layout l) {
        StringBuilder sb = new StringBuilder("zero ").append(64 - l.totalBits());
        for (Field f : l.fields()) {
            sb.append(" | ").append(f.key()).append(' ').append(l.bits(f));
        }
        return sb.toString();
    }

    private static String years(Layout l) {
        return String.format(Locale.ROOT, "%.1f",
                (l.exhaustionMillis() - l.epochMillis()) / MILLIS_PER_YEAR);
    }

    private static boolean hasShard(Layout l) {
        return l.bits(Field.SHARD) > 0;
    }

    private static void row(StringBuilder sb, String name, String value) {
        sb.append(String.format(Locale.ROOT, "%-19s %s%n", name, value));
    }
}
