package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdCodec;
import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.server.harness.Cdp;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.TestServers;
import io.idmint.server.json.ApiJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The status page in a real headless Chromium (Debian's {@code chromium}, which
 * {@code scripts/test} installs): the page loads, polls the status, and decodes an ID given in
 * its URL ({@code ?decode=}) through the same code as the Decode button; the test reads the DOM
 * Chromium ends with. Layout, the charts and the first render are checked over the DevTools
 * protocol ({@link Cdp}), at a desktop and a phone width.
 */
class StatusPageIT {

    private static final String CHROMIUM = "/usr/bin/chromium";

    @TempDir
    static Path data;

    @TempDir
    Path profile;

    private static Server server;
    private static Http http;

    @BeforeAll
    static void start() {
        assertThat(Path.of(CHROMIUM)).as("Chromium is needed: apt-get install -y chromium "
                + "(scripts/test installs it)").isExecutable();
        server = TestServers.start(data);
        http = new Http(server.httpPort());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void page_showsIdentityLeaseAndRate_andDecodesTheIdFromItsUrl() throws Exception {
        // Issue some IDs, so that the page has a rate to show.
        for (int i = 0; i < 3; i++) {
            http.get("/v1/ids?count=1000");
        }
        long id = Long.parseLong((String) http.get("/v1/id").json().get("id"));
        IdParts p = Layout.SNOWFLAKE.decode(id);
        assertThat(SegmentHttpIT.create(http, "{\"tag\":\"paged\",\"step\":500}").status())
                .isEqualTo(201);
        assertThat(SegmentHttpIT.ids(http.get("/api/v1/segments/paged/ids?count=7"))).hasSize(7);
        assertThat(http.send("POST", "/api/v1/serials", java.net.http.HttpRequest.BodyPublishers
                .ofString("{\"name\":\"paper\",\"template\":\"P-{counter:4}\"}"),
                "Content-Type", "application/json").status()).isEqualTo(201);
        assertThat(http.get("/api/v1/serials/paper?count=3").status()).isEqualTo(200);

        String dom = dumpDom("/?decode=" + IdCodec.BASE32.format(id));

        assertThat(dom).contains("id=\"decode\" data-state=\"ok\"");
        assertThat(dom).contains(dd("d-value", Long.toString(id)),
                dd("d-hex", IdCodec.HEX.format(id)),
                longDd("d-timestamp", ApiJson.iso(p.timestampMillis())),
                dd("d-timestamp-ms", Long.toString(p.timestampMillis())),
                dd("d-datacenter", "0"), dd("d-worker", "0"),
                dd("d-sequence", Long.toString(p.sequence())));
        assertThat(dom).contains("<dl id=\"decode-result\">").contains("<p id=\"decode-error\" "
                + "role=\"alert\" hidden=\"\">");
        assertThat(dom).contains(dd("datacenter", "0"), dd("worker", "0"),
                dd("layout", "snowflake"), longDd("epoch", "2026-01-01T00:00:00.000Z"),
                dd("lease-state", "ACTIVE (issuing)"));
        assertThat(dom).contains("<span id=\"state\" class=\"badge ACTIVE\">ACTIVE</span>");
        assertThat(dom).containsPattern("id=\"runway\">\\d+\\.\\d s<");
        assertThat(dom).containsPattern("id=\"clock-offset\">-?\\d+ ms<");
        assertThat(dom).containsPattern("id=\"rate\">[0-9,]+<");
        assertThat(dom).containsPattern("id=\"issued\">[0-9,]+<");
        // tag, served, step, left in range, next range, ranges, fetch failures
        assertThat(dom).contains("<tr><td>paged</td><td>7</td><td>500</td><td>493</td>"
                + "<td>not yet</td><td>1</td><td>0</td></tr>");
        assertThat(dom).contains("<table id=\"segments-table\">")
                .contains("<p class=\"detail\" id=\"segments-none\" hidden=\"\">");
        // serial, counter, issued, dropped at period end, ranges, held (a range of 100)
        assertThat(dom).contains("<tr><td>paper</td><td>paper~all</td><td>3</td><td>0</td>"
                + "<td>1</td><td>97</td></tr>");
        assertThat(dom).contains("<table id=\"serials-table\">");
    }

    @Test
    void page_withTwoWorkers_listsBoth(@TempDir Path stripedData) throws Exception {
        assertThat(dumpDom("/")).contains("<tr class=\"worker-row\"><td>0</td><td>0</td>"
                + "<td>0</td><td>ACTIVE (issuing)</td>");
        Server striped = TestServers.start(stripedData, "workers=2");
        try {
            Http other = new Http(striped.httpPort());
            String dom = dumpDom(other, "/");

            assertThat(dom).contains("<dt id=\"worker-label\">workers</dt>", dd("worker", "0, 1"));
            assertThat(dom).contains("<tr class=\"worker-row\"><td>0</td><td>0</td><td>0</td>"
                    + "<td>ACTIVE (issuing)</td>", "<tr class=\"worker-row\"><td>1</td><td>0</td>"
                    + "<td>1</td><td>ACTIVE (issuing)</td>");
        } finally {
            striped.close();
        }
    }

    /**
     * Whether a value is broken inside a word: for each visible value ({@code dd}) of the page,
     * the words of its text (runs between spaces, commas and slashes, where a value may wrap)
     * whose characters are not all on one line, and the values that stick out of their card.
     * Each character's line is the top of its own range's box, so it holds however the page
     * splits a value into elements.
     */
    private static final String WORDS_BROKEN = """
            (() => {
              const broken = [];
              for (const dd of document.querySelectorAll('main dd')) {
                if (dd.offsetParent === null) continue;
                const chars = [];
                const walk = document.createTreeWalker(dd, NodeFilter.SHOW_TEXT);
                for (let n = walk.nextNode(); n; n = walk.nextNode()) {
                  for (let i = 0; i < n.length; i++) chars.push([n, i]);
                }
                const line = ([n, i]) => {
                  const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
                  return Math.round(r.getClientRects()[0].top);
                };
                for (const w of dd.textContent.matchAll(/[^\\s,\\/]+/g)) {
                  const lines = new Set(chars.slice(w.index, w.index + w[0].length).map(line));
                  if (lines.size > 1) broken.push(dd.id + ': ' + w[0]);
                }
                const all = document.createRange(); all.selectNodeContents(dd);
                const card = dd.closest('section').getBoundingClientRect();
                if (all.getBoundingClientRect().right > card.right) {
                  broken.push(dd.id + ' sticks out');
                }
              }
              return broken.join(' | ');
            })()""";

    /**
     * At a desktop and a phone width, with IDs being issued: the page shows IDs per second from
     * its first render on; the charts of IDs per second, runway and refusals draw a line through
     * the samples of a few polls, and each names its latest value; no value and no table header
     * breaks inside a word; the server facts and the links are there, and nothing is wider than
     * the screen but a table that scrolls. Screenshots go to target/status-page-WIDTH.png for a
     * person to look at.
     */
    @ParameterizedTest
    @ValueSource(ints = {1280, 390})
    void page_atDesktopAndPhoneWidth_chartsRateAndWholeWords(int width) throws Exception {
        ScheduledExecutorService minting = Executors.newSingleThreadScheduledExecutor();
        try (Cdp chromium = new Cdp(CHROMIUM, profile)) {
            // A steady trickle of IDs for the charts to show, paced (not a wait for anything).
            minting.scheduleAtFixedRate(() -> http.get("/v1/ids?count=500"), 0, 50,
                    TimeUnit.MILLISECONDS);
            chromium.open(http.base() + "/", width);
            chromium.await("document.getElementById('updated').textContent !== 'never'");
            // The first render (regression: it showed "…" until the next poll, a second later).
            assertThat((String) chromium.eval("document.getElementById('rate').textContent"))
                    .as("IDs per second on the first render").matches("[0-9,]+");

            // A line through at least 4 samples in each chart, and its latest value named.
            for (String chart : List.of("chart-rate", "chart-runway", "chart-refused")) {
                chromium.await("document.querySelector('#" + chart + " .line').getAttribute('d')"
                        + ".split(/[ML]/).filter(p => p !== '').length >= 4");
                assertThat((String) chromium.eval("document.querySelector('#" + chart
                        + " svg').getAttribute('role') + ': ' + document.querySelector('#"
                        + chart + " title').textContent"))
                        .matches("img: .*, last 5 minutes: now [0-9.,]+( s)?, peak [0-9.,]+.*");
            }
            chromium.await("/peak [1-9]/.test("
                    + "document.querySelector('#chart-rate title').textContent)");
            assertThat((String) chromium.eval("document.getElementById('rate').textContent"))
                    .matches("[0-9,]+");
            assertThat((String) chromium.eval("document.getElementById('runway-now')"
                    + ".textContent")).matches("\\d+\\.\\d s");
            assertThat((String) chromium.eval("document.getElementById('refused-rate')"
                    + ".textContent")).matches("[0-9.,]+");
            minting.shutdownNow();

            assertThat(chromium.eval(WORDS_BROKEN)).as("values broken inside a word").isEqualTo("");
            // A cell's text that wraps has more than one line box; headers and words never may.
            assertThat(chromium.eval("[...document.querySelectorAll('th, td')].filter(c => {"
                    + " const r = document.createRange(); r.selectNodeContents(c);"
                    + " return c.offsetParent !== null && (c.tagName === 'TH'"
                    + " || !/\\s/.test(c.textContent.trim()))"
                    + " && new Set([...r.getClientRects()].map(b => Math.round(b.top))).size > 1;"
                    + " }).map(c => c.textContent).join('|')"))
                    .as("cells broken inside a word").isEqualTo("");
            assertThat(chromium.eval("document.documentElement.scrollWidth")).as("page width")
                    .isEqualTo(width);
            assertThat(chromium.eval("document.getElementById('registry').textContent"))
                    .isEqualTo("static:");
            assertThat(chromium.eval("document.getElementById('namespace').textContent"))
                    .isEqualTo("default");
            assertThat((String) chromium.eval("document.getElementById('uptime').textContent"))
                    .matches("\\d+(s|m \\d+s) \\(since \\d{4}-.*Z\\)");
            assertThat(chromium.eval("[...document.querySelectorAll('header a')].map(a => "
                    + "a.getAttribute('href')).join(' ')")).isEqualTo("/health/ready /metrics");
            chromium.screenshot(Path.of("target", "status-page-" + width + ".png"));
        } finally {
            minting.shutdownNow();
        }
    }

    @Test
    void page_showsTheProblemDetailForABadId() throws Exception {
        String dom = dumpDom("/?decode=0xzz");

        assertThat(dom).contains("id=\"decode\" data-state=\"error\"");
        assertThat(dom).contains("'0xzz' is not a hex ID");
        assertThat(dom).contains("<dl id=\"decode-result\" hidden=\"\">");
    }

    private static String dd(String id, String text) {
        return "<dd id=\"" + id + "\">" + text + "</dd>";
    }

    /** A value that goes under its label unless it fits beside it on one line. */
    private static String longDd(String id, String text) {
        return "<dd id=\"" + id + "\" class=\"long\">" + text + "</dd>";
    }

    /** Loads the page in headless Chromium, lets its script run, and returns the final DOM. */
    private String dumpDom(String path) throws IOException, InterruptedException {
        return dumpDom(http, path);
    }

    private String dumpDom(Http http, String path) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(CHROMIUM, "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + profile, "--virtual-time-budget=5000", "--dump-dom",
                http.base() + path));
        Path err = profile.resolve("stderr.txt");
        Path out = profile.resolve("dom.html");
        Process chromium = new ProcessBuilder(command).redirectError(err.toFile())
                .redirectOutput(out.toFile()).start();
        Cdp.awaitTree(chromium, new HashSet<>(), Duration.ofSeconds(60));
        assertThat(chromium.exitValue()).as(Files.readString(err)).isZero();
        return Files.readString(out, StandardCharsets.UTF_8);
    }
}
