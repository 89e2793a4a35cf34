package io.idmint.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.Layout;
import org.junit.jupiter.api.Test;

/** The chaos oracle catches each kind of violation it claims to, and passes a clean run. */
public class ChaosOracleTest {

    private static final Layout L = Layout.SNOWFLAKE;
    private static final long NOW = 1_795_000_000_000L;

    private static long id(long millis, int worker, int sequence) {
        return L.compose(L.tickOf(millis), 0, worker, 0, sequence);
    }

    private static ChaosOracle oracle() {
        return new ChaosOracle(5_000, 3_000);
    }

    @Test
    public void check_cleanRun_noViolation() {
        ChaosOracle o = oracle();
        ChaosOracle.Track a = o.track("a");
        ChaosOracle.Track b = o.track("b");
        int ha = o.holder("a");
        int hb = o.holder("b");
        o.ids(a, ha, new long[] {id(NOW, 1, 0), id(NOW, 1, 1), id(NOW + 1, 1, 0)}, 3, NOW + 2);
        o.ids(b, hb, new long[] {id(NOW, 2, 0), id(NOW + 2, 1, 0)}, 2, NOW + 3);
        assertThat(o.check()).isEmpty();
        assertThat(o.idCount()).isEqualTo(5);
        assertThat(a.workers).containsExactly("0/1");
        assertThat(b.workers).containsExactly("0/1", "0/2");
    }

    @Test
    public void check_duplicate_isAViolation() {
        ChaosOracle o = oracle();
        ChaosOracle.Track a = o.track("a");
        int h = o.holder("a");
        o.ids(a, h, new long[] {id(NOW, 1, 0), id(NOW, 1, 0)}, 2, NOW);
        assertThat(o.check()).anyMatch(v -> v.startsWith("duplicate ID " + id(NOW, 1, 0)));
    }

    @Test
    public void check_twoHoldersInOneMillisecondOfOneWorker_isAViolationWithoutADuplicate() {
        ChaosOracle o = oracle();
        ChaosOracle.Track a = o.track("a");
        ChaosOracle.Track b = o.track("b");
        int ha = o.holder("a");
        int hb = o.holder("b.1");
        o.ids(a, ha, new long[] {id(NOW, 3, 0)}, 1, NOW);
        o.ids(b, hb, new long[] {id(NOW, 3, 7)}, 1, NOW);
        assertThat(o.check()).singleElement().asString()
                .contains("two holders in one millisecond of one worker: a and b.1")
                .contains("worker 0/3");
    }

    @Test
    public void check_idAheadOfTheBound_isAViolation_withinIt_isNot() {
        ChaosOracle o = oracle();
        ChaosOracle.Track a = o.track("a");
        int h = o.holder("a");
        o.ids(a, h, new long[] {id(NOW + 5_000, 1, 0)}, 1, NOW);
        assertThat(o.check()).isEmpty();
        o.ids(a, h, new long[] {id(NOW + 5_002, 1, 0)}, 1, NOW);
        assertThat(o.check()).singleElement().asString().contains("5002 ms ahead");
        assertThat(o.maxAheadMillis()).isEqualTo(5_002);
        assertThat(a.maxAheadMillis).isEqualTo(5_002);
        assertThat(a.beyondBound).isEqualTo(1);
    }

    @Test
    public void check_readyWhileRefusingPastTheGrace_isAViolation() {
        ChaosOracle o = oracle();
        ChaosOracle.Track a = o.track("a");
        for (long t = 0; t <= 10_000; t += 250) {
            a.polls.add(new ChaosOracle.Poll(NOW + t, 200));
        }
        for (long t = 1_000; t < 5_000; t += 100) {
            a.calls.add(new ChaosOracle.Call(0, NOW + t, NOW + t + 10, 503));
        }
        assertThat(o.check()).singleElement().asString().contains("a answered READY");
    }

    @Test
    public void check_readyWhileRefusingWithinTheGrace_isNot() {
        ChaosOracle o = oracle();
        ChaosOracle.Track a = o.track("a");
        for (long t = 0; t <= 10_000; t += 250) {
            a.polls.add(new ChaosOracle.Poll(NOW + t, 200));
        }
        for (long t = 1_000; t < 3_500; t += 100) {
            a.calls.add(new ChaosOracle.Call(0, NOW + t, NOW + t + 10, t < 2_000 ? 503 : 200));
        }
        assertThat(o.check()).isEmpty();
    }

    @Test
    public void check_issuingWhileNotReadyPastTheGrace_isAViolation_withinIt_isNot() {
        ChaosOracle o = oracle();
        ChaosOracle.Track a = o.track("a");
        for (long t = 0; t <= 10_000; t += 250) {
            a.polls.add(new ChaosOracle.Poll(NOW + t, 503));
        }
        a.calls.add(new ChaosOracle.Call(0, NOW + 2_900, NOW + 2_950, 200));
        assertThat(o.check()).isEmpty();
        a.calls.add(new ChaosOracle.Call(0, NOW + 3_100, NOW + 3_150, 200));
        assertThat(o.check()).singleElement().asString().contains("a answered NOT READY");
    }

    @Test
    public void parseIds_readsEveryIdOfTheBody() {
        long[] into = new long[3];
        assertThat(ChaosNode.parseIds("{\"ids\":[\"117679838315151360\",\"2\",\"30\"]}", into))
                .isEqualTo(3);
        assertThat(into).containsExactly(117679838315151360L, 2, 30);
    }

    @Test
    public void parseFencedUuids_readsTheIdEachCarries() {
        long a = io.idmint.Layout.SNOWFLAKE.compose(5_000_000, 1, 2, 0, 3);
        long b = a + 1;
        String body = "{\"uuids\":[\"" + io.idmint.FencedUuidV7.of(a, io.idmint.Layout.SNOWFLAKE)
                + "\",\"" + io.idmint.FencedUuidV7.of(b, io.idmint.Layout.SNOWFLAKE) + "\"]}";
        long[] into = new long[2];
        assertThat(ChaosNode.parseFencedUuids(body, into)).isEqualTo(2);
        assertThat(into).containsExactly(a, b);
    }

    @Test
    public void downtime_episodesFromFirstFailureToNextSuccess_andRecoveryAfterUndo() {
        ChaosOracle.Track t = new ChaosOracle.Track("a");
        t.calls.add(new ChaosOracle.Call(0, 0, 10, 200));
        t.calls.add(new ChaosOracle.Call(0, 100, 110, 503));
        t.calls.add(new ChaosOracle.Call(0, 200, 3_000, 0));
        t.calls.add(new ChaosOracle.Call(0, 3_100, 3_200, 200));
        assertThat(Chaos.downtime(t, 0, 10_000, 1_000)).containsExactly(3_100, 2_200);
        assertThat(Chaos.downtime(t, 0, 10_000, 5_000)).containsExactly(3_100, 0);
        t.calls.add(new ChaosOracle.Call(0, 4_000, 4_100, 503));
        assertThat(Chaos.downtime(t, 0, 10_000, 5_000)).containsExactly(9_100, 5_000);
    }
}
