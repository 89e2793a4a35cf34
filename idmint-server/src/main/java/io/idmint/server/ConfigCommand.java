package io.idmint.server;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idmint config}: the resolved configuration and where each value came from, or with
 * {@code --keys} the table of keys. Hidden: a debugging aid, not part of the CLI contract.
 */
@Command(name = "config", hidden = true, mixinStandardHelpOptions = true,
        description = "Prints the resolved configuration and the source of each value.")
final class ConfigCommand implements Callable<Integer> {

    private final Invocation invocation;

    @Spec
    CommandSpec spec;

    @Option(names = "--keys", description = "print the table of keys instead")
    boolean keys;

    ConfigCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (keys) {
            out.print(Config.describeKeys());
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
        return Main.OK;
    }
}
