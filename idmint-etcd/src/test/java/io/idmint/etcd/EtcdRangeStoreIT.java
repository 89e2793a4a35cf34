package io.idmint.etcd;

import static io.idmint.etcd.EtcdStore.bytes;
import static io.idmint.etcd.EtcdStore.string;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.Poll;
import io.idmint.testkit.fixture.EtcdServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The etcd range store on a real 3-member cluster, with real faults: the leader killed while
 * clients allocate, the whole store stopped and started again on its data, an answer lost
 * after the allocation committed; and what it keeps in etcd.
 */
class EtcdRangeStoreIT {

    /** Its own members: tests kill the leader and stop the store. */
    @RegisterExtension
    static final EtcdServer etcd = EtcdServer.dedicated(3);

    private final String tag = "t" + UUID.randomUUID().toString().substring(0, 8);
    private final List<RangeStore> opened = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void cleanUp() {
        opened.forEach(RangeStore::close);
        etcd.cluster().restartAll();
    }

    private RangeStore client() {
        RangeStore s = EtcdTestStores.openRangeStore(etcd, "2s");
        opened.add(s);
        return s;
    }

    private EtcdStore admin() {
        return new EtcdStore(EtcdUri.parse(etcd.uri("5s")));
    }

    @Test
    void allocate_leaderKilledMidAllocations_rangesStayDisjoint_andGoOn() throws Exception {
        client().create(tag, 1, 10);
        int threads = 4;
        List<Range> ranges = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger unavailable = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> workers = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                RangeStore s = client();
                int seed = t;
                workers.add(pool.submit(() -> {
                    for (int i = 0; !stop.get(); i++) {
                        try {
                            ranges.add(s.allocate(tag, 1 + (seed * 31 + i) % 17));
                        } catch (RegistryException e) {
                            assertThat(e.kind()).as(e.getMessage()).isEqualTo(Kind.UNAVAILABLE);
                            unavailable.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            Poll.until(Duration.ofSeconds(10), "allocations run", () -> ranges.size() > 200);
            int leader = etcd.cluster().leader(Duration.ofSeconds(10));
            etcd.cluster().kill(leader);
            int beforeKill = ranges.size();
            assertThat(etcd.cluster().leader(Duration.ofSeconds(10))).isNotEqualTo(leader);
            Poll.until(Duration.ofSeconds(20), "allocations go on under the new leader",
                    () -> ranges.size() > beforeKill + 500);
        } finally {
            stop.set(true);
            pool.shutdown();
        }
        for (Future<?> f : workers) {
            f.get(30, TimeUnit.SECONDS);
        }
        long top = IdOracle.assertDisjointRanges(ranges);
        assertThat(client().allocate(tag, 1).start()).isGreaterThanOrEqualTo(top);
        System.out.println("leader kill: " + ranges.size() + " ranges, " + unavailable.get()
                + " allocations UNAVAILABLE");
    }

    @Test
    void allocate_storeDown_isUnavailable_thenGoesOnAboveEverythingBefore() throws Exception {
        RangeStore s = client();
        s.create(tag, 1, 10);
        List<Range> before = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            before.add(s.allocate(tag, 100));
        }
        long top = IdOracle.assertDisjointRanges(before);

        etcd.cluster().stopAll();
        long start = System.nanoTime();
        assertUnavailable(() -> s.allocate(tag, 100));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));

        etcd.cluster().restartAll();
        Range[] after = new Range[1];
        Poll.until(Duration.ofSeconds(30), "allocations succeed again", () -> {
            try {
                after[0] = s.allocate(tag, 100);
                return true;
            } catch (RegistryException e) {
                return false;
            }
        });
        assertThat(after[0].start()).isGreaterThanOrEqualTo(top);
        assertThat(client().allocate(tag, 100).start()).isGreaterThanOrEqualTo(after[0].end());
    }

    @Test
    void allocate_answerLostAfterCommit_isUnavailable_andThoseValuesAreNeverHandedOut()
            throws Exception {
        try (LosingAnswers store = new LosingAnswers(EtcdUri.parse(etcd.uri("2s")))) {
            RangeStore s = new EtcdRangeStore(store, etcd.prefix());
            s.create(tag, 1, 10);
            assertThat(s.allocate(tag, 10)).isEqualTo(new Range(1, 11));
            store.loseCommitted.set(1);
            int before = store.sent.get();
            assertUnavailable(() -> s.allocate(tag, 10));
            assertThat(store.sent.get() - before).as("an allocation is sent once").isEqualTo(1);
            // It committed: [11, 21) is lost, not reused.
            assertThat(s.allocate(tag, 10)).isEqualTo(new Range(21, 31));
        }
    }

    @Test
    void create_storesNextAndStep_underPrefixSegments_andAllocateMovesNext() throws Exception {
        RangeStore s = client();
        s.create(tag, 7, 100);
        s.allocate(tag, RangeStore.TAG_STEP);
        s.allocate(tag, 3);
        try (EtcdStore admin = admin()) {
            var kvs = admin.get(etcd.prefix() + "/segments/" + tag).getKvs();
            assertThat(kvs).hasSize(1);
            assertThat(string(kvs.get(0).getValue())).isEqualTo("110 100");
        }
    }

    @Test
    void allocate_unreadableValue_isCorrupt_andTagsToo() throws Exception {
        RangeStore s = client();
        s.create(tag, 1, 10);
        try (EtcdStore admin = admin()) {
            admin.txn("test put", new Cmp[0], new Op[] {Op.put(bytes(etcd.prefix()
                    + "/segments/" + tag), bytes("12x 10"), PutOption.DEFAULT)}, new Op[0]);
        }
        assertThatThrownBy(() -> s.allocate(tag, 1))
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("/segments/" + tag).hasMessageContaining("'12x 10'")
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CORRUPT);
        assertThatThrownBy(s::tags)
                .isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CORRUPT);
    }

    @Test
    void registry_namespaceSegments_isRejected_soItCannotMixWithTags() throws Exception {
        try (var registry = EtcdTestStores.open(etcd)) {
            assertThatThrownBy(() -> registry.list("segments"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'segments'");
        }
    }

    @Test
    void allocate_badTag_isRejected() {
        assertThatThrownBy(() -> client().allocate("a/b", 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a/b'");
    }

    private static void assertUnavailable(ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.UNAVAILABLE);
    }
}
