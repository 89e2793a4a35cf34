package io.idmint.server.harness;

import io.idmint.server.json.StrictJson;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** A real HTTP/1.1 client (java.net.http) for one server, with the checks tests repeat. */
public final class Http {

    /** One response: status, headers and body as text. */
    public record Response(int status, HttpResponse<String> raw) {
        public String body() {
            return raw.body();
        }

        public String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }

        public Map<String, Object> json() {
            return object(raw.body());
        }
    }

    /** A JSON object, read by the server's own strict reader. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(String text) {
        return (Map<String, Object>) StrictJson.parse(text);
    }

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final String base;

    public Http(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    public String base() {
        return base;
    }

    public Response get(String path, String... headers) {
        return send("GET", path, headers);
    }

    public Response send(String method, String path, String... headers) {
        return send(method, path, HttpRequest.BodyPublishers.noBody(), headers);
    }

    public Response send(String method, String path, HttpRequest.BodyPublisher body,
            String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(10)).method(method, body);
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        try {
            HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(r.statusCode(), r);
        } catch (IOException e) {
            throw new AssertionError(method + " " + path + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
