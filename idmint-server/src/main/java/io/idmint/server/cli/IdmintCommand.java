package io.idmint.server.cli;

import io.idmint.server.config.Config;
import io.idmint.server.ops.BuildInfo;
import java.io.IOException;
import picocli.CommandLine;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * The root command: {@code idmint <command>}. Built through picocli's programmatic API, as is
 * {@code next}: reading annotations costs a cold JVM tens of milliseconds in reflection and
 * annotation proxies (docs/observability.md, "Start-up").
 */
public final class IdmintCommand implements Runnable {

    /**
     * The factory of the programmatic models: picocli's default one, made only when asked for an
     * object. Initialising it looks for Groovy on the class path, and that miss reads the 46 MB
     * jar's directory, which {@code next} otherwise never does (docs/observability.md,
     * "Start-up").
     */
    public static final CommandLine.IFactory FACTORY = new CommandLine.IFactory() {
        @Override
        public <K> K create(Class<K> cls) throws Exception {
            return CommandLine.defaultFactory().create(cls);
        }
    };

    private CommandSpec spec;

    private IdmintCommand() {
    }

    /** The root's model, without subcommands. */
    public static CommandSpec spec() {
        IdmintCommand command = new IdmintCommand();
        command.spec = CommandSpec.wrapWithoutInspection(command, FACTORY).name("idmint")
                .versionProvider(new Version());
        command.spec.usageMessage().description("Distributed unique 64-bit IDs.")
                .footer("", "Exit codes: 0 success, 2 bad usage or input, 1 runtime failure.",
                        "Every option also reads from IDMINT_<OPTION> and from the --config file;",
                        "flags win over the environment, the environment over the file.");
        addHelpOptions(command.spec);
        return command.spec;
    }

    /**
     * The model of a command built without annotations ({@code next}, {@code serve}): its name
     * and description; {@link #commandLine} finishes it once its own options are added.
     */
    public static CommandSpec subcommand(Object command, String name, String... description) {
        CommandSpec spec = CommandSpec.wrapWithoutInspection(command, FACTORY).name(name);
        spec.usageMessage().sortOptions(false).description(description);
        return spec;
    }

    /** The command line of {@code spec}: its options, the help options, then {@code keys}. */
    public static CommandLine commandLine(CommandSpec spec, java.util.List<Config.Key<?>> keys) {
        addHelpOptions(spec);
        return ConfigOptions.addTo(new CommandLine(spec, FACTORY), keys);
    }

    /** {@code -h, --help} and {@code -V, --version}, as picocli's standard help options. */
    static void addHelpOptions(CommandSpec spec) {
        spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true)
                .description("Show this help message and exit.").build());
        spec.addOption(OptionSpec.builder("-V", "--version").versionHelp(true)
                .description("Print version information and exit.").build());
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command: "
                + String.join(", ", spec.subcommands().keySet()));
    }

    /** The version from the build. */
    public static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            return new String[] {BuildInfo.versionLine(),
                "Java " + System.getProperty("java.version") + " ("
                        + System.getProperty("java.vm.name") + ")"};
        }
    }
}
