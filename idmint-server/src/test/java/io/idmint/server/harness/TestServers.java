package io.idmint.server.harness;

import io.idmint.server.Server;
import io.idmint.server.config.Config;
import io.idmint.server.config.Config.Key;
import io.idmint.server.config.Config.Setting;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Starts in-process servers the way {@code serve} does, on free loopback ports. */
public final class TestServers {

    private TestServers() {
    }

    /**
     * A configuration with the given data directory, any free ports on 127.0.0.1, and
     * {@code settings} as {@code key=value} pairs (config file names), given as flags.
     */
    public static Config config(Path dataDir, String... settings) {
        Map<String, String> values = new HashMap<>();
        values.put("http-port", "0");
        values.put("grpc-port", "0");
        values.put("bind", "127.0.0.1");
        values.put("data-dir", dataDir.toString());
        values.put("shutdown.grace", "2s");
        for (String s : settings) {
            int eq = s.indexOf('=');
            values.put(s.substring(0, eq), s.substring(eq + 1));
        }
        Map<Key<?>, Setting> flags = new HashMap<>();
        for (Key<?> key : Config.keys()) {
            String v = values.remove(key.name());
            if (v != null) {
                flags.put(key, new Setting(v, "test"));
            }
        }
        if (!values.isEmpty()) {
            throw new IllegalArgumentException("unknown keys " + values.keySet());
        }
        return Config.load(flags, Map.of(), null);
    }

    public static Server start(Path dataDir, String... settings) {
        return Server.start(config(dataDir, settings), line -> System.err.println("idmint: "
                + line));
    }
}
