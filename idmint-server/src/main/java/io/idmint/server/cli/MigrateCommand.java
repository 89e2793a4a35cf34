package io.idmint.server.cli;

import io.idmint.Layout;
import io.idmint.server.cli.MigrationPlan.Plan;
import io.idmint.server.cli.MigrationPlan.Sample;
import io.idmint.server.json.ApiJson;
import io.idmint.spi.support.Durations;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code idmint migrate plan}: how idmint takes over from another snowflake-style generator
 * without issuing an ID at or below one that exists (docs/migration.md). Exit 0 with a plan, 2
 * when the input is bad or no plan is safe (the reason on stderr, nothing on stdout).
 */
@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = {"Plans a move from another ID generator.",
            "  plan  a layout and epoch under which every idmint ID is above every existing one"})
public final class MigrateCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing action: plan");
    }

    public static CommandLine commandLine() {
        return new CommandLine(new MigrateCommand()).addSubcommand(new PlanCommand());
    }

    @Command(name = "plan", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Reads existing IDs, decodes them in the source's layout and prints "
                    + "an idmint layout and epoch under which every future ID is above every "
                    + "existing one, with the config lines and the cut-over steps; or refuses "
                    + "naming the reason."})
    static final class PlanCommand implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Option(names = "--from", required = true, paramLabel = "SOURCE",
                description = "leaf, uid-generator (or uid-generator-2016), twitter, sonyflake "
                        + "(or sonyflake-2014) or discord, each with its real epoch; or the "
                        + "source's layout spec")
        String from;

        @Option(names = "--sample-ids", paramLabel = "FILE",
                description = "existing IDs, one decimal ID a line (unsigned 64-bit allowed)")
        Path sampleIds;

        @Option(names = "--max-id", paramLabel = "N",
                description = "the highest existing ID, e.g. SELECT max(id) of the table")
        String maxId;

        @Option(names = "--horizon", paramLabel = "YEARS", defaultValue = "20",
                description = "years from now the layout must last (default 20)")
        int horizonYears;

        @Option(names = "--max-skew", paramLabel = "DURATION", defaultValue = "1s",
                description = "how far ahead of this clock an ID may be before it counts as "
                        + "from the future (default 1s)")
        String maxSkew;

        @Override
        public Integer call() {
            if ((sampleIds == null) == (maxId == null)) {
                throw new ParameterException(spec.commandLine(), "give exactly one of "
                        + "--sample-ids FILE and --max-id N");
            }
            if (horizonYears < 0 || horizonYears > 1000) {
                throw new ParameterException(spec.commandLine(), "--horizon must be 0..1000 "
                        + "years, got " + horizonYears);
            }
            Duration skew = Durations.parse(maxSkew, Duration.ZERO, Duration.ofDays(1));
            Layout source = MigrationPlan.source(from);
            List<Sample> ids = maxId != null ? List.of(MigrationPlan.parse(maxId, 0))
                    : MigrationPlan.read(lines(sampleIds), sampleIds.toString());
            long now = System.currentTimeMillis();
            long horizon = java.time.Instant.ofEpochMilli(now).atZone(ZoneOffset.UTC)
                    .plusYears(horizonYears).toInstant().toEpochMilli();
            Plan plan = MigrationPlan.plan(source, ids, now, horizon, skew.toMillis());
            PrintWriter out = spec.commandLine().getOut();
            out.print(render(plan, from.trim(), maxId != null));
            out.flush();
            return ExitCode.OK;
        }

        private static List<String> lines(Path file) {
            try {
                return Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (IOException | java.io.UncheckedIOException e) {
                throw new IllegalArgumentException("cannot read --sample-ids " + file + ": "
                        + e.getMessage());
            }
        }
    }

    static String render(Plan p, String from, boolean fromMaxId) {
        StringBuilder sb = new StringBuilder();
        row(sb, "source", p.source() + ": " + p.source().spec());
        if (!fromMaxId) {
            row(sb, "sample", p.count() + " IDs from " + ApiJson.iso(p.lowestMillis()) + ", "
                    + p.nodes() + " distinct datacenter/worker pair(s)");
        }
        row(sb, "highest ID", MigrationPlan.text(p.highest().id()) + (p.highest().line() == 0
                ? "" : " (line " + p.highest().line() + ")"));
        row(sb, "layout", p.target() + (p.keep() ? " (the source's own)" : " (new epoch)")
                + ", runs out " + ApiJson.iso(p.target().exhaustionMillis()));
        row(sb, "not before", ApiJson.iso(p.notBeforeMillis()) + " (idmint's first tick above "
                + "the highest ID)");
        sb.append("\nconfig (idmint.properties)\n");
        sb.append("  layout=").append(p.keep() && !p.target().name().equals("custom")
                ? p.target().name() : p.target().spec()).append('\n');
        sb.append("\ncut-over\n");
        if (p.keep()) {
            sb.append("  1. Stop every ").append(from).append(" generator. Same layout means the "
                    + "same worker IDs,\n     so the two must never run at once.\n");
            sb.append("  2. Start idmint with the config above, on a clock in step with theirs "
                    + "(NTP),\n     no earlier than the later of 'not before' and the stop plus "
                    + "the clock skew.\n     Every idmint tick is then later than every "
                    + from + " tick, so its IDs sort above\n     and cannot repeat any "
                    + from + " ID, whichever worker IDs either side used.\n");
            if (Layout.parse("leaf,epoch=" + p.source().epochMillis()).equals(p.source())) {
                sb.append("  Or run idmint beside Leaf, rolling: add\n"
                        + "    registry=zk://LEAF-ZK-HOSTS/idmint?leaf-name=LEAF_NAME\n"
                        + "  (Leaf's leaf.zk.list and leaf.name). idmint then takes worker IDs "
                        + "no Leaf node\n  holds or will be given, and starts above Leaf's "
                        + "latest reported time.\n");
            }
        } else {
            sb.append("  1. Stop every ").append(from).append(" generator.\n");
            sb.append("  2. ").append(fromMaxId ? "Check that --max-id was read after the stop;"
                    : "Read the highest ID after the stop (SELECT max(id) ...) and plan again "
                            + "with --max-id;")
                    .append("\n     the epoch above is safe only for IDs up to the highest "
                            + "ID.\n");
            sb.append("  3. Start idmint with the config above: its first ID is above the "
                    + "highest ID.\n");
        }
        return sb.toString();
    }

    private static void row(StringBuilder sb, String name, String value) {
        sb.append(String.format(java.util.Locale.ROOT, "%-11s %s%n", name, value));
    }
}
