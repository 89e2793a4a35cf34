package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.Http;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.IdmintProcesses.Node;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.fixture.EtcdServer;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real {@code serve} processes on one etcd segment store cross midnight under libfaketime
 * (their clocks set to a few seconds before the next UTC midnight) while callers draw a daily
 * serial from both: no value twice, the new day's counter started once (from 1), and no node
 * hands out a value of the old day once it has handed out one of the new.
 */
class SerialMidnightIT {

    /** Seconds of the old day left when the processes start. */
    private static final long BEFORE_MIDNIGHT = 12;

    @RegisterExtension
    static final EtcdServer etcd = EtcdServer.shared();

    @TempDir
    Path tmp;

    @Test
    void twoServesCrossMidnightTogether_noValueTwice_theNewDayStartsOnce() throws Exception {
        Instant now = Instant.now();
        LocalDate today = now.atZone(ZoneOffset.UTC).toLocalDate();
        long toMidnight = today.plusDays(1).atStartOfDay(ZoneOffset.UTC).toEpochSecond()
                - now.getEpochSecond();
        long offset = toMidnight - BEFORE_MIDNIGHT;
        Map<String, String> env = IdmintProcesses.faketime((offset >= 0 ? "+" : "") + offset
                + "s");
        String store = etcd.uri("5s");
        try (IdmintProcesses procs = new IdmintProcesses(tmp)) {
            Node[] started = new Node[2];
            IdOracle.together(2, t -> started[t] = procs.serve(t == 0 ? "a" : "b", env,
                    "--segment-store", store, "--worker", Integer.toString(t + 1)));
            List<Node> nodes = List.of(started);
            Http.Response defined = nodes.get(0).http.send("POST", "/api/v1/serials",
                    HttpRequest.BodyPublishers.ofString("{\"name\":\"daily\",\"period\":\"day\","
                            + "\"template\":\"{date:yyyyMMdd}-{counter:6}\",\"step\":7}"),
                    "Content-Type", "application/json");
            assertThat(defined.status()).as(defined.body()).isEqualTo(201);

            String oldDay = today.toString().replace("-", "");
            String newDay = today.plusDays(1).toString().replace("-", "");
            List<List<String>> got = List.of(new ArrayList<>(), new ArrayList<>(),
                    new ArrayList<>(), new ArrayList<>());
            IdOracle.together(4, t -> {
                Node node = nodes.get(t % 2);
                List<String> mine = got.get(t);
                int afterMidnight = 0;
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (afterMidnight < 200 && System.nanoTime() < deadline) {
                    Http.Response r = node.http.get("/api/v1/serials/daily?count=3");
                    assertThat(r.status()).as(r.body()).isEqualTo(200);
                    @SuppressWarnings("unchecked")
                    List<String> values = (List<String>) r.json().get("values");
                    for (String v : values) {
                        mine.add(v);
                        if (v.startsWith(newDay)) {
                            afterMidnight++;
                        }
                    }
                }
            });
            Set<String> all = new HashSet<>();
            for (List<String> mine : got) {
                boolean crossed = false;
                for (String v : mine) {
                    assertThat(all.add(v)).as("%s issued twice", v).isTrue();
                    assertThat(v).matches("(" + oldDay + "|" + newDay + ")-\\d{6}");
                    if (v.startsWith(newDay)) {
                        crossed = true;
                    } else {
                        assertThat(crossed).as("%s after the new day began on that caller", v)
                                .isFalse();
                    }
                }
                assertThat(crossed).as("a caller reached the new day").isTrue();
            }
            assertThat(all).contains(oldDay + "-000001", newDay + "-000001");
            System.out.printf("[serial midnight] %d values over %s and %s from 2 serves%n",
                    all.size(), oldDay, newDay);
        }
    }
}
