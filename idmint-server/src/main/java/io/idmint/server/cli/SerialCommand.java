package io.idmint.server.cli;

import io.idmint.segment.SerialDefinition;
import io.idmint.segment.Serials;
import io.idmint.server.api.SegmentService;
import io.idmint.server.config.Config;
import io.idmint.server.json.ApiJson;
import io.idmint.server.mint.CodesAndFormats;
import io.idmint.spi.RangeStore;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code idmint serial define|next|list}: the serials (docs/serials.md) of the segment store
 * {@code serve} uses (segment.store, from the same flags, environment and config file). A bad
 * definition, another definition of a name, or an unknown serial exits 2; a store that does not
 * answer exits 1.
 */
@Command(name = "serial", mixinStandardHelpOptions = true,
        description = {"Defines, mints or lists serials: numbers people read, such as a per-day "
                + "invoice number INV-20261128-000042 (docs/serials.md).",
            "  define NAME  stores a serial's definition (the same one again changes nothing)",
            "  next NAME    prints the serial's next values, one per line",
            "  list         every serial's definition"})
public final class SerialCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing action: define, next or list");
    }

    /** {@code serial} with its actions, each with the store's configuration keys. */
    public static CommandLine commandLine(Invocation invocation) {
        CommandLine serial = new CommandLine(new SerialCommand());
        serial.addSubcommand(ConfigOptions.addTo(new CommandLine(new Define(invocation)),
                Config.SERIAL_KEYS));
        serial.addSubcommand(ConfigOptions.addTo(new CommandLine(new Next(invocation)),
                Config.SERIAL_KEYS));
        serial.addSubcommand(ConfigOptions.addTo(new CommandLine(new ListSerials(invocation)),
                Config.SERIAL_KEYS));
        return serial;
    }

    /** Serials on {@code store}, writing counters' codes with the configured keys. */
    private static Serials serials(RangeStore store, Config config) {
        return SegmentService.serials(store, CodesAndFormats.counterCodecs(config));
    }

    @Command(name = "define", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Defines a serial in the store.")
    static final class Define implements Callable<Integer> {

        private final Invocation invocation;

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "NAME",
                description = "the serial's name: 1 to 48 characters of a segment tag's, no ~")
        String name;

        @Option(names = "--period", paramLabel = "PERIOD",
                description = "none, year, month, week (ISO) or day (default: none)")
        String period;

        @Option(names = "--zone", paramLabel = "ZONE",
                description = "the time zone periods are read in, e.g. Europe/Berlin "
                        + "(default: UTC)")
        String zone;

        @Option(names = "--template", paramLabel = "TEMPLATE", required = true,
                description = "how values are written: text with {date:PATTERN}, {counter} or "
                        + "{counter:N}, and {check}, e.g. INV-{date:yyyyMMdd}-{counter:6}")
        String template;

        @Option(names = "--first", paramLabel = "N",
                description = "each period's first value (default: 1)")
        Long first;

        @Option(names = "--max-rate", paramLabel = "N",
                description = "the most values a second the counter's width must hold "
                        + "(default: 10)")
        Long maxRate;

        @Option(names = "--step", paramLabel = "N",
                description = "values a node takes from the store at once (default: 100)")
        Long step;

        Define(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() {
            Config config = ConfigOptions.load(spec, invocation.env());
            SerialDefinition d = SegmentService.serialDefinition(name, period, zone, template,
                    first, maxRate, step);
            try (RangeStore store = SegmentCommand.open(config, null)) {
                SegmentService.define(serials(store, config), d);
            }
            spec.commandLine().getErr().println("idmint: defined serial '" + d.name() + "': "
                    + d.toString().substring(d.name().length() + 2));
            return ExitCode.OK;
        }
    }

    @Command(name = "next", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Prints a serial's next values, one per line.")
    static final class Next implements Callable<Integer> {

        private final Invocation invocation;

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "NAME", description = "the serial")
        String name;

        @Option(names = "-n", paramLabel = "N", defaultValue = "1",
                description = "how many values, 1 to 1000000 (default: 1)")
        long count;

        Next(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() {
            if (count < 1 || count > 1_000_000) {
                throw new ParameterException(spec.commandLine(), "-n must be from 1 to "
                        + "1000000, got " + count);
            }
            Config config = ConfigOptions.load(spec, invocation.env());
            String[] values;
            try (RangeStore store = SegmentCommand.open(config, null)) {
                values = SegmentService.nextSerials(serials(store, config), name, (int) count);
            }
            PrintWriter out = spec.commandLine().getOut();
            for (String v : values) {
                out.println(v);
            }
            out.flush();
            return ExitCode.OK;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Lists the serials the store defines, one JSON object each.")
    static final class ListSerials implements Callable<Integer> {

        private final Invocation invocation;

        @Spec
        CommandSpec spec;

        ListSerials(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() {
            Config config = ConfigOptions.load(spec, invocation.env());
            List<SerialDefinition> list;
            try (RangeStore store = SegmentCommand.open(config, null)) {
                list = SegmentService.serialDefinitions(Serials.newBuilder().store(store)
                        .build());
            }
            PrintWriter out = spec.commandLine().getOut();
            list.forEach(d -> out.println(ApiJson.serial(d)));
            out.flush();
            return ExitCode.OK;
        }
    }
}
