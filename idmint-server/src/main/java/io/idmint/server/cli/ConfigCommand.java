package io.idmint.server.cli;

import io.idmint.server.config.Config;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idmint config}: the resolved configuration and where each value came from; with
 * {@code --keys} the table of keys, with {@code --markdown} the same table as the Markdown that
 * docs/configuration.md holds (a test keeps the two equal). Every table comes from the one list
 * of keys in {@link Config}, as do the flags, the environment variables and the config-file check.
 */
@Command(name = "config", mixinStandardHelpOptions = true,
        description = "Prints the resolved configuration and the source of each value, or the "
                + "table of keys.")
public final class ConfigCommand implements Callable<Integer> {

    /** The lines around the generated table in docs/configuration.md. */
    public static final String TABLE_START = "<!-- config-keys:start -->";
    public static final String TABLE_END = "<!-- config-keys:end -->";

    private final Invocation invocation;

    @Spec
    CommandSpec spec;

    @ArgGroup(exclusive = true)
    Table table;

    /** Which table to print instead of the configuration. */
    static final class Table {
        @Option(names = "--keys", description = "print the table of keys instead")
        boolean keys;

        @Option(names = "--markdown",
                description = "print the table of keys as Markdown (docs/configuration.md)")
        boolean markdown;
    }

    public ConfigCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (table != null) {
            out.print(table.keys ? describeKeys() : markdown());
        } else {
            Config config = ConfigOptions.load(spec, invocation.env());
            for (Config.Key<?> key : Config.keys()) {
                Config.Setting s = config.setting(key);
                String value = s == null ? "-"
                        : Config.secret(key) ? "(hidden)" : s.value();
                out.print(String.format(Locale.ROOT, "%-20s %-30s %s%n", key.name(), value,
                        s == null ? "not set" : s.source()));
            }
        }
        out.flush();
        return ExitCode.OK;
    }

    /** The table of keys as text, for {@code idmint config --keys}. */
    public static String describeKeys() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-20s %-10s %-29s %s%n",
                "key", "default", "environment variable", "description"));
        for (Config.Key<?> k : Config.keys()) {
            sb.append(String.format(Locale.ROOT, "%-20s %-10s %-29s %s%n", k.name(),
                    k.defaultValue() == null ? "-" : k.defaultValue(), k.envVar(),
                    k.description()));
        }
        return sb.toString();
    }

    /**
     * The table of keys as Markdown, between its marker lines, for {@code idmint config
     * --markdown} and docs/configuration.md.
     */
    public static String markdown() {
        StringBuilder sb = new StringBuilder(TABLE_START).append('\n')
                .append("| Key | Flag | Environment variable | Default | Description |\n")
                .append("|---|---|---|---|---|\n");
        for (Config.Key<?> k : Config.keys()) {
            sb.append(row("`" + k.name() + "`", "`" + k.flag() + " " + k.valueLabel() + "`",
                    "`" + k.envVar() + "`",
                    k.defaultValue() == null ? "-" : "`" + k.defaultValue() + "`",
                    k.description()));
        }
        return sb.append(TABLE_END).append('\n').toString();
    }

    /** One table row; a {@code |} inside a cell is escaped, as GitHub's tables need. */
    private static String row(String... cells) {
        StringBuilder sb = new StringBuilder("|");
        for (String c : cells) {
            sb.append(' ').append(c.replace("|", "\\|")).append(" |");
        }
        return sb.append('\n').toString();
    }
}
