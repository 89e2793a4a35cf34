package io.idmint.server;

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

    private CdsTraining() {
    }

    /** @param args the scratch directory for the data directories */
    public static void main(String[] args) throws Exception {
        // As Main does for every command but serve: the store's pool logs at INFO.
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
            dir.resolve("segment").toString()}, Map.of(), out, new ByteArrayOutputStream(), false);
        if (code != Main.OK) {
            throw new IllegalStateException("training segment list exited " + code);
        }
        Logs.configure("text", "warn", System.err);
        Config config = serveConfig(dir.resolve("serve"));
        try (Server server = Server.start(config, line -> { })) {
            if (!server.banner().startsWith("idmint serving")) {
                throw new IllegalStateException("training serve: " + server.banner());
            }
        }
        System.exit(0);
    }

    /** A serve configuration on loopback, any free ports, a scratch data directory. */
    private static Config serveConfig(Path data) {
        Map<Config.Key<?>, Config.Setting> flags = new java.util.HashMap<>();
        flags.put(Config.HTTP_PORT, new Config.Setting("0", "training"));
        flags.put(Config.GRPC_PORT, new Config.Setting("0", "training"));
        flags.put(Config.BIND, new Config.Setting("127.0.0.1", "training"));
        flags.put(Config.DATA_DIR, new Config.Setting(data.toString(), "training"));
        return Config.load(flags, Map.of(), null);
    }
}
