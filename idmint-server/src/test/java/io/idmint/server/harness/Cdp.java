package io.idmint.server.harness;

import io.idmint.testkit.TestTime;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A headless Chromium driven over the DevTools protocol (a WebSocket, no library): a viewport
 * width, a page, JavaScript evaluated in it, and screenshots, for checks that need layout (what
 * {@code --dump-dom} cannot show).
 */
public final class Cdp implements AutoCloseable {

    private final Process chromium;
    private final WebSocket ws;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonObject>> calls = new ConcurrentHashMap<>();

    /** Starts Chromium on {@code profile} and attaches to its first page. */
    public Cdp(String chromiumPath, Path profile) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(List.of(chromiumPath, "--headless",
                "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--hide-scrollbars", "--remote-debugging-port=0", "--user-data-dir=" + profile,
                "about:blank"))
                .redirectErrorStream(true).redirectOutput(profile.resolve("chromium.log").toFile());
        // Its singleton socket directory goes in TMPDIR: in the profile, it goes with it.
        pb.environment().put("TMPDIR", profile.toString());
        chromium = pb.start();
        Path active = profile.resolve("DevToolsActivePort");
        long deadline = TestTime.deadline(Duration.ofSeconds(30));
        while (!Files.exists(active) || Files.readAllLines(active).size() < 2) {
            if (System.nanoTime() > deadline || !chromium.isAlive()) {
                throw new IllegalStateException("Chromium gave no DevTools port: "
                        + Files.readString(profile.resolve("chromium.log")));
            }
            Thread.sleep(20);
        }
        int port = Integer.parseInt(Files.readAllLines(active).get(0).trim());
        HttpClient http = HttpClient.newHttpClient();
        String list = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/json/list")).build(), HttpResponse.BodyHandlers.ofString()).body();
        String url = new io.vertx.core.json.JsonArray(list).stream()
                .map(o -> (JsonObject) o).filter(o -> "page".equals(o.getString("type")))
                .findFirst().orElseThrow().getString("webSocketDebuggerUrl");
        ws = http.newWebSocketBuilder().buildAsync(URI.create(url), new WebSocket.Listener() {
            private final StringBuilder text = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
                text.append(data);
                if (last) {
                    JsonObject m = new JsonObject(text.toString());
                    text.setLength(0);
                    CompletableFuture<JsonObject> call = m.containsKey("id")
                            ? calls.remove(m.getInteger("id")) : null;
                    if (call != null) {
                        call.complete(m);
                    }
                }
                socket.request(1);
                return null;
            }
        }).get(30, TimeUnit.SECONDS);
    }

    /** Sends one command and returns its result; a protocol error fails. */
    public JsonObject call(String method, JsonObject params) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonObject> answer = new CompletableFuture<>();
        calls.put(id, answer);
        ws.sendText(new JsonObject().put("id", id).put("method", method).put("params", params)
                .encode(), true).get(30, TimeUnit.SECONDS);
        JsonObject m = answer.get(60, TimeUnit.SECONDS);
        if (m.containsKey("error")) {
            throw new IllegalStateException(method + ": " + m.getJsonObject("error"));
        }
        return m.getJsonObject("result");
    }

    /** Sets the viewport to {@code width} CSS pixels (a phone below 500) and opens {@code url}. */
    public void open(String url, int width) throws Exception {
        call("Emulation.setDeviceMetricsOverride", new JsonObject().put("width", width)
                .put("height", 900).put("deviceScaleFactor", 1).put("mobile", width < 500));
        call("Page.navigate", new JsonObject().put("url", url));
    }

    /** The value of a JavaScript expression in the page. */
    public Object eval(String expression) throws Exception {
        JsonObject r = call("Runtime.evaluate", new JsonObject().put("expression", expression)
                .put("returnByValue", true).put("awaitPromise", true));
        if (r.containsKey("exceptionDetails")) {
            throw new IllegalStateException(expression + ": "
                    + r.getJsonObject("exceptionDetails"));
        }
        return r.getJsonObject("result").getValue("value");
    }

    /**
     * Polls {@code condition} (a JavaScript expression; one that throws, as on a page still
     * loading, counts as false) until it is true, up to 30 s (times {@link TestTime#SCALE}).
     */
    public void await(String condition) throws Exception {
        long deadline = System.nanoTime() + TestTime.scaled(Duration.ofSeconds(30)).toNanos();
        String safe = "(() => { try { return " + condition + "; } catch (e) { return false; } })()";
        while (!Boolean.TRUE.equals(eval(safe))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("never true in the page: " + condition);
            }
            Thread.sleep(50);
        }
    }

    /** A PNG of the whole page. */
    public void screenshot(Path png) throws Exception {
        JsonObject r = call("Page.captureScreenshot", new JsonObject().put("format", "png")
                .put("captureBeyondViewport", true));
        Files.write(png, Base64.getDecoder().decode(r.getString("data")));
    }

    @Override
    public void close() throws IOException, InterruptedException {
        ws.abort();
        // Taken before the browser goes: its helpers are then no longer its descendants.
        Set<ProcessHandle> helpers = new HashSet<>(chromium.descendants().toList());
        chromium.destroy();
        awaitTree(chromium, helpers, Duration.ofSeconds(20));
    }

    /**
     * Waits until {@code root} has exited (collecting the processes it starts meanwhile), then
     * until every process in {@code helpers} has exited too; forces what is left at the
     * deadline. Chromium's helpers (zygote, GPU, network service) outlive the browser for a
     * moment and keep writing to its profile, so a profile deleted before they are gone is not
     * empty when deleted (regression: StatusPageIT's {@code @TempDir} clean-up failed on a
     * "Default" directory written after the browser had exited).
     */
    public static void awaitTree(Process root, Set<ProcessHandle> helpers, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (root.isAlive()) {
            root.descendants().forEach(helpers::add);
            if (System.nanoTime() > deadline) {
                root.destroyForcibly();
                root.waitFor(5, TimeUnit.SECONDS);
                break;
            }
            root.waitFor(20, TimeUnit.MILLISECONDS);
        }
        helpers.removeIf(Cdp::exited);
        while (!helpers.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
            helpers.removeIf(Cdp::exited);
        }
        helpers.forEach(ProcessHandle::destroyForcibly);
    }

    /**
     * Whether a process has ended. A zombie has: its parent (here init, as the browser that
     * started it is gone) may take seconds to reap it, and it writes nothing meanwhile.
     */
    private static boolean exited(ProcessHandle process) {
        if (!process.isAlive()) {
            return true;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
        } catch (IOException e) {
            return true; // no /proc entry: gone
        }
    }
}
