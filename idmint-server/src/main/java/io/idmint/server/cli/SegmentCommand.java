package io.idmint.server.cli;

import io.idmint.server.api.LazyRangeStore;
import io.idmint.server.api.SegmentService;
import io.idmint.server.config.Config;
import io.idmint.server.json.Json;
import io.idmint.server.ops.ServeAddress;
import io.idmint.spi.RangeStore;
import io.idmint.spi.TagInfo;
import io.idmint.spi.support.Names;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code idmint segment create|list}: the segment tags of the store {@code serve} uses
 * (segment.store, from the same flags, environment and config file). An existing tag or a bad
 * tag name, start or step exits 2; a store that does not answer exits 1.
 */
@Command(name = "segment", mixinStandardHelpOptions = true,
        description = {"Creates or lists segment tags (dense per-tag sequences).",
            "  create TAG  creates a tag: its first ID is --start, its ranges --step IDs",
            "  list        every tag: the next value a range starts at, and its step"})
public final class SegmentCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing action: create or list");
    }

    /** {@code segment} with its two actions, each with the store's configuration keys. */
    public static CommandLine commandLine(Invocation invocation) {
        CommandLine segment = new CommandLine(new SegmentCommand());
        segment.addSubcommand(ConfigOptions.addTo(new CommandLine(new Create(invocation)),
                Config.SEGMENT_KEYS));
        segment.addSubcommand(ConfigOptions.addTo(new CommandLine(new ListTags(invocation)),
                Config.SEGMENT_KEYS));
        return segment;
    }

    /**
     * Opens the configured store; one that cannot be opened fails on first use, exit 1.
     *
     * @param tag the tag the command is about, for the advice; null for all
     * @throws IllegalStateException saying what to do instead when the store is the embedded
     *     default and another process (a running serve on this data directory) has it open: H2
     *     lets one process open its file
     */
    static RangeStore open(Config config, String tag) {
        String uri = config.get(Config.SEGMENT_STORE);
        Path file = config.get(Config.DATA_DIR).resolve("segments.mv.db");
        if (uri.equals(io.idmint.jdbc.JdbcRangeStores.DEFAULT_URL) && lockedElsewhere(file)) {
            // The server's own address, which it writes beside the store; this command's
            // configured bind and port when it left none.
            String url = ServeAddress.read(config.get(Config.DATA_DIR)).orElseGet(() -> {
                String host = config.get(Config.BIND).equals("0.0.0.0") ? "127.0.0.1"
                        : config.get(Config.BIND);
                return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":"
                        + config.get(Config.HTTP_PORT);
            }) + "/api/v1/segments";
            throw new IllegalStateException("the embedded segment store " + file + " is open in "
                    + "another process, most likely idmint serve on this data directory (one "
                    + "process opens it at a time). " + (tag == null
                    ? "Ask that server instead: curl " + url
                    : "Create the tag through that server instead:" + System.lineSeparator()
                            + "  curl -X POST " + url + " -H 'Content-Type: application/json' "
                            + "-d '{\"tag\":\"" + tag + "\"}'"));
        }
        return LazyRangeStore.open(uri, config.get(Config.DATA_DIR));
    }

    /** Whether another process (or this one) holds the lock H2 takes on its database file. */
    private static boolean lockedElsewhere(Path file) {
        if (!Files.exists(file)) {
            return false;
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ,
                StandardOpenOption.WRITE); FileLock lock = ch.tryLock()) {
            return lock == null;
        } catch (OverlappingFileLockException e) {
            return true;
        } catch (IOException e) {
            return false; // the store names what is wrong when it opens
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Creates a segment tag in the store.")
    static final class Create implements Callable<Integer> {

        private final Invocation invocation;

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "TAG",
                description = "the tag: " + Names.TAG_RULE)
        String tag;

        @Option(names = "--start", paramLabel = "N",
                description = "the tag's first ID, 0 to 2^61 (default: 1)")
        Long start;

        @Option(names = "--step", paramLabel = "N",
                description = "IDs per range fetched from the store, 1 to 2^40, adapted to "
                        + "demand after the first range (default: segment.step)")
        Long step;

        Create(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() {
            Config config = ConfigOptions.load(spec, invocation.env());
            try (RangeStore store = open(config, tag)) {
                TagInfo t = SegmentService.create(store, tag,
                        start != null ? start : SegmentService.DEFAULT_START,
                        step != null ? step : config.get(Config.SEGMENT_STEP));
                spec.commandLine().getErr().println("idmint: created segment tag '" + t.tag()
                        + "': first ID " + t.next() + ", step " + t.step());
            }
            return ExitCode.OK;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Lists the segment tags in the store.")
    static final class ListTags implements Callable<Integer> {

        private final Invocation invocation;

        @Spec
        CommandSpec spec;

        @Option(names = "--json", description = "one JSON object per tag instead of a table")
        boolean json;

        ListTags(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() {
            Config config = ConfigOptions.load(spec, invocation.env());
            List<TagInfo> tags;
            try (RangeStore store = open(config, null)) {
                tags = SegmentService.tags(store);
            }
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                tags.forEach(t -> out.println(new Json().add("tag", t.tag())
                        .add("next", Long.toString(t.next())).add("step", t.step())));
            } else {
                out.println(String.format(Locale.ROOT, "%-24s %-20s %s", "tag", "next", "step"));
                tags.forEach(t -> out.println(String.format(Locale.ROOT, "%-24s %-20d %d",
                        t.tag(), t.next(), t.step())));
            }
            out.flush();
            return ExitCode.OK;
        }
    }
}
