package io.idmint.server.cli;

import io.idmint.server.config.Config;
import io.idmint.server.tls.TlsMaterial;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idmint health}: asks a local server's {@code /health/ready} (or {@code /health/live}),
 * on its bind address (loopback when that is a wildcard), and exits 0 when it answers 200, 1
 * otherwise. A container image without a shell or curl uses
 * it as its health check. With {@code tls.cert} it asks over https, trusting only the first
 * certificate of that file (the node's own) and, with {@code tls.client-ca}, presenting them with
 * {@code tls.key} as its client certificate (docs/http-grpc.md, "TLS").
 */
@Command(name = "health", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Asks the server on <bind>:<http-port> (127.0.0.1 when bind is a "
                + "wildcard such as 0.0.0.0 or ::) whether it is ready (exit 0) or not (exit 1), "
                + "and prints its answer.",
            "For container health checks: it needs neither a shell nor curl.",
            "With --tls-cert it asks over https and trusts that certificate; with "
                    + "--tls-client-ca it presents it (and --tls-key) as its own."})
public final class HealthCommand implements Callable<Integer> {

    /** The keys it reads: the address and port to ask. */
    public static final List<Config.Key<?>> KEYS = List.of(Config.HTTP_PORT, Config.BIND,
            Config.TLS_CERT, Config.TLS_KEY, Config.TLS_CLIENT_CA);

    private static final int TIMEOUT_MILLIS = 2_000;

    private final Invocation invocation;

    @Spec
    CommandSpec spec;

    @Option(names = "--live", description = "ask /health/live (the process answers) instead of "
            + "/health/ready (it can issue IDs)")
    boolean live;

    public HealthCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() throws IOException {
        Config config = ConfigOptions.load(spec, invocation.env(), Map.of());
        Path cert = config.get(Config.TLS_CERT);
        URI uri = URI.create((cert == null ? "http" : "https") + "://"
                + host(config.get(Config.BIND)) + ":"
                + config.get(Config.HTTP_PORT)
                + (live ? "/health/live" : "/health/ready"));
        PrintWriter out = spec.commandLine().getOut();
        HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
        c.setConnectTimeout(TIMEOUT_MILLIS);
        c.setReadTimeout(TIMEOUT_MILLIS);
        if (c instanceof HttpsURLConnection https) {
            https.setSSLSocketFactory(tls(config).getSocketFactory());
            // It trusts exactly the node's own certificate and asks its own address, which that
            // certificate need not name (it names the service).
            https.setHostnameVerifier((name, session) -> true);
        }
        try {
            int status = c.getResponseCode();
            InputStream body = status < 400 ? c.getInputStream() : c.getErrorStream();
            String text = body == null ? ""
                    : new String(body.readAllBytes(), StandardCharsets.UTF_8).strip();
            out.println(uri + " " + status + (text.isEmpty() ? "" : " " + text));
            out.flush();
            return status == 200 ? ExitCode.OK : ExitCode.FAILURE;
        } catch (IOException e) {
            // A node serving TLS drops a plain request: the JDK then says only "Unexpected end of
            // file from server". Nothing listening is a ConnectException, and needs no hint.
            String hint = cert != null || e instanceof ConnectException ? ""
                    : " (if the node serves TLS, give its certificate: --tls-cert or "
                            + Config.TLS_CERT.envVar() + ")";
            throw new IOException(uri + ": no answer: " + e.getMessage() + hint, e);
        } finally {
            c.disconnect();
        }
    }

    /**
     * Trusts the first certificate of {@code tls.cert}; with {@code tls.client-ca}, presents the
     * file's chain and {@code tls.key} as the client's own.
     */
    private static SSLContext tls(Config config) {
        // As serve reads them; the client CA only says whether to present the certificate.
        TlsMaterial.Files files = TlsMaterial.Files.of(config.get(Config.TLS_CERT),
                config.get(Config.TLS_KEY), null);
        return TlsMaterial.read(files, Instant.now())
                .clientOfSelf(config.get(Config.TLS_CLIENT_CA) != null);
    }

    /**
     * Where a server bound to {@code bind} answers from this host: loopback when it listens on
     * every address (0.0.0.0, ::), else that address, as a server bound to one address does not
     * answer on 127.0.0.1.
     */
    static String host(String bind) throws UnknownHostException {
        if (InetAddress.getByName(bind).isAnyLocalAddress()) {
            return "127.0.0.1";
        }
        return bind.contains(":") && !bind.startsWith("[") ? "[" + bind + "]" : bind;
    }
}
