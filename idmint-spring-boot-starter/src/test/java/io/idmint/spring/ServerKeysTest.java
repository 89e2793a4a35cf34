package io.idmint.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The starter's properties against the server's configuration keys, read from the server's key
 * table in docs/configuration.md (which the server's own tests hold equal to {@code idmint config
 * --markdown}): a key that means the same thing has the same name under {@code idmint.} and the
 * same default, and every other key is listed here with the reason it is the server's only. A
 * key added to the server without a decision here fails this test.
 */
class ServerKeysTest {

    /** The server's keys that an application embedding the generator has no use for. */
    private static final Map<String, String> SERVER_ONLY = Map.ofEntries(
            Map.entry("static.peers", "the check asks the other serve processes' HTTP status"),
            Map.entry("http-port", "serve's listener"),
            Map.entry("grpc-port", "serve's listener"),
            Map.entry("bind", "serve's listener"),
            Map.entry("max-count", "a bound on what one caller asks serve for"),
            Map.entry("auth.token", "serve's callers"),
            Map.entry("auth.admin-token", "serve's callers"),
            Map.entry("rate-limit", "serve's callers"),
            Map.entry("tls.cert", "serve's listener"),
            Map.entry("tls.key", "serve's listener"),
            Map.entry("tls.client-ca", "serve's listener"),
            Map.entry("shutdown.grace", "serve's drain; the application has its own"),
            Map.entry("idle-timeout", "serve's connections"),
            Map.entry("http.max-connections", "serve's connections"),
            Map.entry("grpc.max-connections", "serve's connections"),
            Map.entry("grpc.max-calls-per-connection", "serve's connections"),
            Map.entry("grpc.max-waiting-calls", "serve's connections"),
            Map.entry("grpc.max-buffered", "serve's connections"),
            Map.entry("flake.worker", "the starter defines no 128-bit flake generator"),
            Map.entry("codes.segment-bits", "serve's segment codes; an application builds a "
                    + "codec of its width with Codes.bits"),
            Map.entry("segment.max-tags", "a bound on tags serve's callers create; an "
                    + "application names its tags in its code"),
            Map.entry("leaf.compat", "serve's Leaf-compatible HTTP paths"),
            Map.entry("log.format", "the application logs as it is configured to"),
            Map.entry("log.level", "the application logs as it is configured to"),
            Map.entry("log.access", "serve's HTTP requests"));

    /** Keys both have whose defaults differ on purpose. */
    private static final Map<String, String> OWN_DEFAULT = Map.of("segment.store", "none: "
            + "the application's DataSource when it has one, else no segments (the server's "
            + "default is an H2 file under its data directory)");

    /** The starter's properties no server key matches. */
    private static final Set<String> STARTER_ONLY = Set.of("jackson.enabled");

    /** Read apart from {@link IdmintProperties} ({@link IdmintAutoConfiguration}). */
    private static final Map<String, String> FROM_THE_ENVIRONMENT =
            Map.of("datacenter.name", "-");

    @Test
    void everyServerKey_isTheStartersUnderTheSameNameAndDefault_orTheServersOnly()
            throws Exception {
        Map<String, String> server = serverKeys();
        Map<String, String> starter = starterProperties();
        assertThat(server).hasSizeGreaterThan(50).containsKeys("layout", "segment.store");

        Map<String, String> wrong = new TreeMap<>();
        server.forEach((key, serverDefault) -> {
            if (SERVER_ONLY.containsKey(key)) {
                if (starter.containsKey(key)) {
                    wrong.put(key, "listed as the server's only, but the starter has it");
                }
            } else if (!starter.containsKey(key)) {
                wrong.put(key, "the starter has no idmint." + key + " (add it, or list it as "
                        + "the server's only with the reason)");
            } else if (!OWN_DEFAULT.containsKey(key)
                    && !serverDefault.equals(starter.get(key))) {
                wrong.put(key, "default " + starter.get(key) + ", the server's " + serverDefault);
            }
        });
        Set<String> extra = new TreeSet<>(starter.keySet());
        extra.removeAll(server.keySet());
        extra.removeAll(STARTER_ONLY);
        extra.forEach(key -> wrong.put(key, "idmint." + key + " matches no server key"));
        assertThat(wrong).as("starter properties against the server's keys").isEmpty();
        assertThat(SERVER_ONLY.keySet()).as("server-only keys the server no longer has")
                .allMatch(server::containsKey);
    }

    /** Key to default ({@code -} for none) from docs/configuration.md's table. */
    private static Map<String, String> serverKeys() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
        String table = doc.substring(doc.indexOf("<!-- config-keys:start -->"),
                doc.indexOf("<!-- config-keys:end -->"));
        Map<String, String> keys = new HashMap<>();
        for (String row : table.split("\n")) {
            if (row.startsWith("| `")) {
                // Key | Flag | Environment variable | Default | Description; a \| is a value's.
                String[] cells = row.split("(?<!\\\\)\\|");
                keys.put(cells[1].strip().replace("`", ""), cells[4].strip().replace("`", ""));
            }
        }
        return keys;
    }

    /** Property (without {@code idmint.}) to default ({@code -} for none), kebab case. */
    private static Map<String, String> starterProperties() throws Exception {
        Map<String, String> properties = new HashMap<>(FROM_THE_ENVIRONMENT);
        collect("", new IdmintProperties(), properties);
        return properties;
    }

    private static void collect(String prefix, Object bean, Map<String, String> into)
            throws Exception {
        for (PropertyDescriptor p : Introspector.getBeanInfo(bean.getClass(), Object.class)
                .getPropertyDescriptors()) {
            Object value = p.getReadMethod().invoke(bean);
            String name = prefix + p.getName().replaceAll("([A-Z])", "-$1").toLowerCase();
            if (p.getPropertyType() == String.class || p.getPropertyType() == boolean.class) {
                into.put(name, value == null ? "-" : value.toString());
            } else {
                collect(name + ".", value, into);
            }
        }
    }
}
