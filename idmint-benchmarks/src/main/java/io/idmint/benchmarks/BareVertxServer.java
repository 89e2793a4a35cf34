package io.idmint.benchmarks;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * The ceiling of the HTTP stack on this machine: a Vert.x core server that answers every request,
 * whatever its path or method, with one constant JSON body and no work at all. idmint's
 * {@code /v1/id} is measured against it in the same run by {@code scripts/bench http}; the
 * target is ≥ 90% of this server's requests/s.
 *
 * <p>To be a fair ceiling it does what idmint's HTTP layer does except minting and routing: the
 * same Vert.x, the same event loops and verticle instances (one per core, each with its own
 * {@link HttpServer} on the one shared port, as idmint's {@code Server} deploys {@code HttpApi}),
 * and a response of the same size with the same headers.
 * The body defaults to a 19-digit ID as in {@code {"id":"7269841635818741761"}} with
 * {@code content-type: application/json}; {@code scripts/bench http} passes the body and headers
 * of a real idmint {@code /v1/id} response instead, so both send identical bytes.
 *
 * <p>Run (port 0 picks a free port; the line {@code bare serving http://HOST:PORT (...)} tells
 * which):
 *
 * <pre>
 * ./mvnw -B -q -pl idmint-benchmarks -am package -DskipTests
 * java -cp idmint-benchmarks/target/benchmarks.jar io.idmint.benchmarks.BareVertxServer \
 *     PORT [INSTANCES [BODY [NAME:VALUE ...]]]
 * </pre>
 *
 * <p>{@code INSTANCES} 0 or absent means one per available processor. It binds 127.0.0.1 unless
 * {@code -Dbare.host=...} says otherwise, and runs until killed.
 */
public final class BareVertxServer {

    private static final String DEFAULT_BODY = "{\"id\":\"7269841635818741761\"}";

    private BareVertxServer() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: BareVertxServer PORT [INSTANCES [BODY [NAME:VALUE ...]]]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        int instances = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        if (instances <= 0) {
            instances = Runtime.getRuntime().availableProcessors();
        }
        String body = args.length > 2 ? args[2] : DEFAULT_BODY;
        List<CharSequence[]> headers = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            int colon = args[i].indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("header not NAME:VALUE: " + args[i]);
            }
            headers.add(new CharSequence[] {
                HttpHeaders.createOptimized(args[i].substring(0, colon).trim()),
                HttpHeaders.createOptimized(args[i].substring(colon + 1).trim())});
        }
        if (headers.isEmpty()) {
            headers.add(new CharSequence[] {
                HttpHeaders.CONTENT_TYPE, HttpHeaders.createOptimized("application/json")});
        }
        String host = System.getProperty("bare.host", "127.0.0.1");

        // As idmint's Server does: one event loop per instance, and port 0 asked for as -1,
        // which makes Vert.x share one free port among the instances (0 gives each its own).
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(instances));
        int listen = port == 0 ? -1 : port;
        Buffer payload = Buffer.buffer(body);
        CharSequence[][] fixed = headers.toArray(new CharSequence[0][]);
        int[] bound = new int[1];
        vertx.deployVerticle(
                        () -> new Responder(host, listen, payload, fixed, bound),
                        new DeploymentOptions().setInstances(instances))
                .await();
        System.out.printf("bare serving http://%s:%d (%d instances, %d-byte body)%n",
                host, bound[0], instances, payload.length());
        System.out.flush();
    }

    /** One event-loop verticle with its own server; Vert.x spreads connections across them. */
    private static final class Responder extends VerticleBase {
        private final String host;
        private final int port;
        private final Buffer payload;
        private final CharSequence[][] headers;
        private final int[] bound;

        Responder(String host, int port, Buffer payload, CharSequence[][] headers, int[] bound) {
            this.host = host;
            this.port = port;
            this.payload = payload;
            this.headers = headers;
            this.bound = bound;
        }

        @Override
        public Future<?> start() {
            return vertx.createHttpServer(new HttpServerOptions())
                    .requestHandler(req -> {
                        var response = req.response();
                        for (CharSequence[] h : headers) {
                            response.putHeader(h[0], h[1]);
                        }
                        response.end(payload);
                    })
                    .listen(port, host)
                    .onSuccess(server -> {
                        synchronized (bound) {
                            bound[0] = server.actualPort();
                        }
                    });
        }
    }
}
