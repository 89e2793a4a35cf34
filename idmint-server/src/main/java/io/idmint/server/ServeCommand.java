package io.idmint.server;

import io.idmint.server.cli.ConfigOptions;
import io.idmint.server.cli.ExitCode;
import io.idmint.server.cli.IdmintCommand;
import io.idmint.server.cli.Invocation;
import io.idmint.server.config.Config;
import io.idmint.server.mint.StaticPeerCheck;
import io.idmint.server.ops.Logs;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code idmint serve}: runs the server until SIGTERM (or Ctrl-C), then stops gracefully and
 * exits 0. Prints one line to stdout once it is listening and its worker claim has answered (see
 * {@link Server#banner()}); it listens, live and not ready, while the claim runs.
 */
final class ServeCommand implements Callable<Integer> {

    /** The rule of the static: registry, in the help and the startup line. */
    static final String ONE_HOST_RULE = "The default registry, static:, keeps workers unique on "
            + "ONE HOST ONLY: two hosts with the same --datacenter and --worker mint the same "
            + "IDs. Give each host its own --worker, list the other nodes in --static-peers "
            + "(not ready on a clash), or use a shared registry (etcd://, zk://, jdbc:).";

    private final Invocation invocation;
    private CommandSpec spec;

    private ServeCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    /**
     * The command and the configuration keys it reads, built through picocli's programmatic API
     * as {@code next} is: reading annotations cost {@code serve} ~50 ms of its start
     * (docs/observability.md, "Start-up").
     */
    static CommandLine commandLine(Invocation invocation) {
        ServeCommand command = new ServeCommand(invocation);
        command.spec = IdmintCommand.subcommand(command, "serve",
                "Runs the server: HTTP/JSON, gRPC, health, metrics and a status page.",
                "Stops gracefully on SIGTERM: in-flight requests finish (up to shutdown.grace),",
                "then the worker is released with its final high-water mark.",
                "",
                ONE_HOST_RULE,
                "");
        return IdmintCommand.commandLine(command.spec, Config.SERVE_KEYS);
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        Config config = ConfigOptions.load(spec, invocation.env());
        Logs.configure(config.get(Config.LOG_FORMAT), config.get(Config.LOG_LEVEL), System.err);
        java.io.PrintWriter err = spec.commandLine().getErr();
        boolean json = config.get(Config.LOG_FORMAT).equals("json");
        java.util.function.BiConsumer<Level, String> say = (level, line) -> {
            if (json) {
                Logger.getLogger(ServeCommand.class.getName()).log(level, line);
            } else {
                err.println("idmint: " + line);
                err.flush();
            }
        };
        // Listening first, claiming after (Server.listen): liveness and segments answer while a
        // claim waits, and SIGTERM during the claim stops the server cleanly.
        Server server = Server.listen(config, line -> say.accept(Level.WARNING, line));
        Thread hook = new Thread(() -> stop(server, say), "idmint-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        boolean answered;
        try {
            answered = server.awaitClaim();
        } catch (RuntimeException e) {
            // The claim failed for good and the server closed: exit as a start that failed,
            // with the claim's message and exit code, not through the hook's exit 0.
            removeHook(hook);
            throw e;
        }
        if (!answered) {
            server.awaitClosed(); // SIGTERM during the claim: the hook stops and exits
            return ExitCode.OK;
        }
        // What start-up made lives as long as the server (its buffers, tables, caches): one
        // full collection now moves it to the old generation, where young pauses stop copying
        // it. JDK 25's G1 kept it in survivor space and copied it at every pause, 11 ms median
        // against 3 (docs/operations.md, "Runtime").
        System.gc();
        OutputStream out = invocation.stdout();
        String registry = config.get(Config.REGISTRY);
        java.util.List<String> peers = config.get(Config.STATIC_PEERS);
        // static.peers asks over plain HTTP, so serve refuses it with TLS: never suggest it there.
        String rule = !registry.startsWith("static:") ? ""
                : "; registry static: is ONE HOST ONLY: another host needs another --worker"
                        + (peers != null ? "; checking " + String.join(",", peers) + " every "
                                + io.idmint.spi.support.Durations.format(StaticPeerCheck.PERIOD)
                                : config.get(Config.TLS_CERT) != null
                                        ? ", or a shared registry (etcd://, zk://, jdbc:)"
                                        : ", or set --static-peers");
        out.write((server.banner() + rule + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        server.awaitClosed();
        return ExitCode.OK;
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // Shutting down already: the hook runs, and closing the server again is harmless.
        }
    }

    /**
     * Runs in the shutdown hook. A signal makes the JVM exit 128 + signal after its hooks;
     * SIGTERM is how a server is meant to stop, so after a clean drain this halts with 0 (1 when
     * the drain failed) instead. Only a signal gets here: serve never calls System.exit itself
     * before the server is closed.
     */
    private static void stop(Server server, java.util.function.BiConsumer<Level, String> say) {
        int code = ExitCode.OK;
        try {
            server.close();
            say.accept(Level.INFO, "stopped; worker released");
        } catch (RuntimeException e) {
            say.accept(Level.SEVERE, "shutdown failed: " + e);
            code = ExitCode.FAILURE;
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(code);
    }
}
