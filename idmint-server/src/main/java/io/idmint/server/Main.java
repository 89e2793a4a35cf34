package io.idmint.server;

import io.idmint.IdUnavailableException;
import io.idmint.server.cli.ConfigCommand;
import io.idmint.server.cli.ConfigOptions;
import io.idmint.server.cli.DecodeCommand;
import io.idmint.server.cli.ExitCode;
import io.idmint.server.cli.HealthCommand;
import io.idmint.server.cli.IdmintCommand;
import io.idmint.server.cli.Invocation;
import io.idmint.server.cli.LayoutCommand;
import io.idmint.server.cli.MigrateCommand;
import io.idmint.server.cli.NextCommand;
import io.idmint.server.cli.RangeCommand;
import io.idmint.server.cli.RegistryCommand;
import io.idmint.server.cli.SegmentCommand;
import io.idmint.server.cli.SerialCommand;
import io.idmint.server.cli.SqlCommand;
import io.idmint.server.config.Config;
import io.idmint.server.ops.Logs;
import io.idmint.spi.RegistryException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The {@code idmint} executable. Exit codes: 0 success, 2 bad usage or input, 1 runtime failure;
 * every failure is one message on stderr naming the bad value, without a stack trace.
 */
public final class Main {

    public static final int OK = ExitCode.OK;
    public static final int FAILURE = ExitCode.FAILURE;
    public static final int USAGE = ExitCode.USAGE;
    private static final String NETTY_JFR = "io.netty.jfr.enabled";

    private Main() {
    }

    public static void main(String[] args) {
        // Before anything logs: keeps serve's handlers through shutdown (see Logs.Manager).
        if (System.getProperty("java.util.logging.manager") == null) {
            System.setProperty("java.util.logging.manager", Logs.Manager.class.getName());
        }
        // Netty's allocator emits JFR events, and registering their types on its first buffer
        // took ~100 ms of the first request (docs/observability.md, "Start-up"). A flight
        // recording that wants them sets -Dio.netty.jfr.enabled=true.
        if (System.getProperty(NETTY_JFR) == null) {
            System.setProperty(NETTY_JFR, "false");
        }
        // Commands other than serve speak through stdout and their exit code; libraries' INFO
        // lines (connection pools, clients) would only clutter stderr. Logs.Manager reads this
        // when something first logs: setting the root level here would set up logging in every
        // run.
        if (args.length == 0 || !args[0].equals("serve")) {
            System.setProperty(Logs.Manager.QUIET, "true");
        }
        OutputStream stdout = new FileOutputStream(FileDescriptor.out);
        System.exit(run(args, System.getenv(), stdout, System.err, stderrIsTerminal()));
    }

    /**
     * Runs one command line in this process and returns its exit code: what {@link #main} does
     * without exiting (the build's class-data training and the tests call it).
     */
    public static int run(String[] args, Map<String, String> env, OutputStream stdout,
            OutputStream stderr, boolean stderrIsTerminal) {
        PrintWriter out = new PrintWriter(new OutputStreamWriter(stdout, StandardCharsets.UTF_8));
        PrintWriter err = new PrintWriter(new OutputStreamWriter(stderr, StandardCharsets.UTF_8),
                true);
        try {
            return commandLine(new Invocation(env, stdout, stderrIsTerminal),
                    args.length > 0 ? args[0] : null)
                    .setOut(out).setErr(err).execute(args);
        } finally {
            out.flush();
            err.flush();
        }
    }

    static CommandLine commandLine(Invocation invocation) {
        return commandLine(invocation, null);
    }

    /** The commands, in the order of the help. */
    private static final List<String> COMMANDS = List.of("next", "decode", "layout", "range",
            "serve",
            "registry", "segment", "serial", "sql", "migrate", "config", "health");

    /**
     * One command. A switch, not a map of lambdas: the first lambda a run links costs a cold
     * JVM milliseconds, and {@code next} builds one command only.
     */
    private static CommandLine command(String name, Invocation invocation) {
        return switch (name) {
            case "next" -> NextCommand.commandLine(invocation);
            case "decode" -> ConfigOptions.addTo(new CommandLine(new DecodeCommand(invocation)),
                    Config.DECODE_KEYS);
            case "layout" -> ConfigOptions.addTo(new CommandLine(new LayoutCommand(invocation)),
                    LayoutCommand.KEYS);
            case "range" -> ConfigOptions.addTo(new CommandLine(new RangeCommand(invocation)),
                    RangeCommand.KEYS);
            case "serve" -> ServeCommand.commandLine(invocation);
            case "registry" -> ConfigOptions.addTo(new CommandLine(
                    new RegistryCommand(invocation)),
                    List.of(Config.REGISTRY, Config.DATA_DIR, Config.NAMESPACE));
            case "segment" -> SegmentCommand.commandLine(invocation);
            case "serial" -> SerialCommand.commandLine(invocation);
            case "sql" -> SqlCommand.commandLine(invocation);
            case "migrate" -> MigrateCommand.commandLine();
            case "config" -> ConfigOptions.addTo(new CommandLine(new ConfigCommand(invocation)),
                    Config.keys());
            case "health" -> ConfigOptions.addTo(new CommandLine(new HealthCommand(invocation)),
                    HealthCommand.KEYS);
            default -> throw new IllegalArgumentException("no command " + name);
        };
    }

    /**
     * The command line; with {@code only} naming a command, the root and that command alone.
     * Picocli reads every command's annotations when it is added: building the one asked for
     * keeps {@code idmint next} from paying for all of them (docs/observability.md,
     * "Start-up"). Help, versions and unknown commands build them all.
     */
    static CommandLine commandLine(Invocation invocation, String only) {
        CommandLine root = new CommandLine(IdmintCommand.spec(), IdmintCommand.FACTORY);
        boolean all = only == null || !COMMANDS.contains(only);
        if (all) {
            root.addSubcommand("help", new CommandLine.HelpCommand());
        }
        for (String name : COMMANDS) {
            if (all || name.equals(only)) {
                root.addSubcommand(command(name, invocation));
            }
        }
        // Every command answers -V / --version with the root's version.
        for (CommandLine sub : root.getSubcommands().values()) {
            sub.getCommandSpec().versionProvider(new IdmintCommand.Version());
        }
        // Classes, not lambdas: JDK 17's archive dump leaves out a Java 5 interface (picocli's)
        // that a lambda implements, and each class missing from it opens the 46 MB jar
        // (docs/observability.md, "Start-up").
        root.setParameterExceptionHandler(new CommandLine.IParameterExceptionHandler() {
            @Override
            public int handleParseException(ParameterException e, String[] args) {
                return usageError(e);
            }
        });
        root.setExecutionExceptionHandler(new CommandLine.IExecutionExceptionHandler() {
            @Override
            public int handleExecutionException(Exception e, CommandLine cl,
                    CommandLine.ParseResult parsed) {
                return failure(e, cl);
            }
        });
        root.setExecutionStrategy(new CommandLine.IExecutionStrategy() {
            @Override
            public int execute(CommandLine.ParseResult parsed) {
                return Main.execute(parsed);
            }
        });
        return root;
    }

    /**
     * Runs what was parsed, except that words no command takes are an error even next to
     * {@code --help}: {@code idmint sql install --help} names {@code sql} and exits 2 rather than
     * print the top-level help as if asked.
     */
    private static int execute(CommandLine.ParseResult parsed) {
        CommandLine.ParseResult last = parsed;
        while (last.hasSubcommand()) {
            last = last.subcommand();
        }
        if (!last.unmatched().isEmpty()) {
            CommandLine cl = last.commandSpec().commandLine();
            throw new CommandLine.UnmatchedArgumentException(cl, last.unmatched());
        }
        return new CommandLine.RunLast().execute(parsed);
    }

    private static int usageError(ParameterException e) {
        CommandLine cl = e.getCommandLine();
        PrintWriter err = cl.getErr();
        boolean unknownCommand = e instanceof CommandLine.UnmatchedArgumentException u
                && cl.getParent() == null && !u.getUnmatched().isEmpty();
        err.println("idmint: " + (unknownCommand ? "unknown command '"
                + ((CommandLine.UnmatchedArgumentException) e).getUnmatched().get(0)
                + "'; the commands are " + String.join(", ", cl.getSubcommands().keySet())
                : e.getMessage()));
        err.println("Try '" + cl.getCommandSpec().qualifiedName()
                + " --help' for more information.");
        return USAGE;
    }

    private static int failure(Exception e, CommandLine cl) {
        PrintWriter err = cl.getErr();
        if (e instanceof IllegalArgumentException || conflict(e)) {
            err.println("idmint: " + e.getMessage());
            return USAGE;
        }
        if (e instanceof IllegalStateException || e instanceof IdUnavailableException
                || e instanceof IOException || e instanceof UncheckedIOException
                || e instanceof RegistryException) {
            err.println("idmint: " + e.getMessage());
            return FAILURE;
        }
        err.println("idmint: internal error, please report it:");
        e.printStackTrace(err);
        return FAILURE;
    }

    /**
     * Whether the registry refused the settings given: the layout or datacenter name differs
     * from what it stored ({@code CONFLICT}), which is bad input as much as a bad value is.
     */
    private static boolean conflict(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RegistryException r && r.kind() == RegistryException.Kind.CONFLICT) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether fd 2 is a terminal. {@link System#console()} on Java 17 also needs stdin and stdout
     * to be terminals, so it would hide progress exactly when stdout goes to a file; read the fd
     * link where /proc has it.
     */
    private static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return System.console() != null;
        }
    }
}
