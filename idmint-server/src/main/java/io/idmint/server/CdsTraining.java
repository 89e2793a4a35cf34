package io.idmint.server;

import io.idmint.server.config.Config;
import io.idmint.server.ops.Logs;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The training run of the class-data-sharing archive the build ships beside the jar (see
 * docs/observability.md, "Start-up"): the package phase runs this with
 * {@code -XX:DumpLoadedClassList}, and a static dump ({@code -Xshare:dump}) archives the classes
 * it loaded, parsed and verified, for {@code ./idmint} to map at start. It runs the paths whose
 * start-up matters: {@code next}, the embedded segment store, and {@code serve} up to ready and
 * back down. Not a command; nothing else runs it.
 */
final class CdsTraining {

    /**
     * The default store with a longer wait for its first connection: creating the database took
     * over its default 2 s on a build machine loaded four times over, and failed the build.
     */
    private static final String STORE =
            io.idmint.jdbc.JdbcRangeStores.DEFAULT_URL + ";idmint.timeout=30s";

    private CdsTraining() {
    }

    /** @param args the scratch directory for the data directories */
    public static void main(String[] args) throws Exception {
        System.setProperty("io.netty.jfr.enabled", "false"); // as Main sets it
        // Quiet, as Main makes every command but serve: the store's pool logs at INFO.
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        Path dir = Files.createDirectories(Path.of(args[0]));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"next", "-n", "1", "--data-dir",
            dir.resolve("next").toString()}, Map.of(), out, new ByteArrayOutputStream(), false);
        if (code != Main.OK) {
            throw new IllegalStateException("training next exited " + code);
        }
        // serve connects to its embedded segment store beside start-up, on a thread of its own:
        // the classes of that store come from here, so that every build archives the same ones.
        code = Main.run(new String[] {"segment", "list", "--data-dir",
            dir.resolve("segment").toString(), "--segment-store", STORE}, Map.of(), out,
            new ByteArrayOutputStream(), false);
        if (code != Main.OK) {
            throw new IllegalStateException("training segment list exited " + code);
        }
        Logs.configure("text", "warn", System.err);
        Config config = serveConfig(dir.resolve("serve"));
        try (Server server = Server.start(config, line -> { })) {
            if (!server.banner().startsWith("idmint serving")) {
                throw new IllegalStateException("training serve: " + server.banner());
            }
            // A server's first request ran ~400 classes from the jar, ~200 ms: the readiness
            // probe's and the first IDs'. Raw HTTP/1.1, so the JDK's client stays out.
            for (String path : new String[] {"/health/ready", "/v1/id", "/v1/ids?count=2"}) {
                String status = get(server.httpPort(), path);
                if (!status.startsWith("HTTP/1.1 200")) {
                    throw new IllegalStateException("training GET " + path + ": " + status);
                }
            }
        }
        System.exit(0);
    }

    /** The status line of {@code GET path} on loopback, the connection closed after it. */
    private static String get(int port, String path) throws java.io.IOException {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Connection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets
                            .US_ASCII));
            String response = new String(s.getInputStream().readAllBytes(),
                    java.nio.charset.StandardCharsets.ISO_8859_1);
            int end = response.indexOf('\r');
            return end < 0 ? response : response.substring(0, end);
        }
    }

    /** A serve configuration on loopback, any free ports, a scratch data directory. */
    private static Config serveConfig(Path data) {
        Map<Config.Key<?>, Config.Setting> flags = new java.util.HashMap<>();
        flags.put(Config.HTTP_PORT, new Config.Setting("0", "training"));
        flags.put(Config.GRPC_PORT, new Config.Setting("0", "training"));
        flags.put(Config.BIND, new Config.Setting("127.0.0.1", "training"));
        flags.put(Config.DATA_DIR, new Config.Setting(data.toString(), "training"));
        flags.put(Config.SEGMENT_STORE, new Config.Setting(STORE, "training"));
        return Config.load(flags, Map.of(), null);
    }
}
