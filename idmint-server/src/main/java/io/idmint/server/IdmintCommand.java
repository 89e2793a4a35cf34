package io.idmint.server;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The root command: {@code idmint <command>}. */
@Command(name = "idmint", mixinStandardHelpOptions = true,
        versionProvider = IdmintCommand.Version.class,
        description = "Distributed unique 64-bit IDs.",
        subcommands = HelpCommand.class,
        footer = {"", "Exit codes: 0 success, 2 bad usage or input, 1 runtime failure.",
            "Every option also reads from IDMINT_<OPTION> and from the --config file;",
            "flags win over the environment, the environment over the file."})
final class IdmintCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command: "
                + String.join(", ", spec.subcommands().keySet()));
    }

    /**
     * The version and commit from the build, filtered into {@code version.properties}; a
     * missing one reads "unknown".
     */
    static Properties build() throws IOException {
        Properties p = new Properties();
        try (InputStream in = IdmintCommand.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                p.load(in);
            }
        }
        return p;
    }

    /** The version from the build. */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            Properties p = build();
            return new String[] {"idmint " + p.getProperty("version", "(unknown version)"),
                "Java " + System.getProperty("java.version") + " ("
                        + System.getProperty("java.vm.name") + ")"};
        }
    }
}
