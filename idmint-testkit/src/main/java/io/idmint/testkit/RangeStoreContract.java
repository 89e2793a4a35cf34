package io.idmint.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import io.idmint.spi.support.Names;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link RangeStore} must do. A backend's test extends this and supplies
 * {@link #newClient()}: each call is a new client of the same store, standing for another node.
 */
public abstract class RangeStoreContract {

    private final List<RangeStore> opened = new ArrayList<>();
    /** A tag of its own for each test, so tests can share a store. */
    protected final String tag = "t" + UUID.randomUUID().toString().substring(0, 8);

    /** A new client of the store under test. */
    protected abstract RangeStore newClient();

    /** How many allocations each of the 8 threads makes in the concurrency test. */
    protected int allocationsPerThread() {
        return 500;
    }

    /**
     * The longest tag the store holds: {@link Names#MAX_TAG}, unless its storage is narrower
     * (then it must refuse a longer valid tag with an {@link IllegalArgumentException} naming
     * its limit).
     */
    protected int maxTagLength() {
        return Names.MAX_TAG;
    }

    /**
     * Null when the store keeps serial definitions; else a part of the reason its {@link
     * RangeStore#define} gives (then every definition test checks that refusal instead).
     */
    protected String definitionsRefusal() {
        return null;
    }

    /** For a store that keeps no definitions: each definition call refuses, saying why. */
    private boolean refusesDefinitions(RangeStore s) {
        String why = definitionsRefusal();
        if (why == null) {
            return false;
        }
        assertThatThrownBy(() -> s.define(tag, DEFINITION))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining(why);
        assertThatThrownBy(() -> s.definition(tag))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining(why);
        assertThatThrownBy(s::definitions)
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining(why);
        return true;
    }

    protected final RangeStore connect() {
        RangeStore s = newClient();
        opened.add(s);
        return s;
    }

    @AfterEach
    void closeClients() {
        opened.forEach(RangeStore::close);
    }

    /** Leaf's biz_tags and every character the tag rule allows are held as they are. */
    @Test
    void leafTagNames_areHeldAsTheyAre() throws Exception {
        RangeStore s = connect();
        List<String> tags = new ArrayList<>(List.of(tag + ":2024", tag + ".v2", tag + "..",
                tag + "@eu+~!$&'()*,;=[]{}|^`\"<>", tag + "-" + "x".repeat(maxTagLength()
                        - tag.length() - 1)));
        StringBuilder every = new StringBuilder();
        for (char c = '!'; c <= '~'; c++) {
            if (Names.isValidTag(tag + c)) {
                every.append(c);
            }
        }
        tags.add(tag + every.substring(0, Math.min(every.length(), maxTagLength()
                - tag.length())));
        for (String t : tags) {
            s.create(t, 5, 10);
            assertThat(s.allocate(t, RangeStore.TAG_STEP)).as(t).isEqualTo(new Range(5, 15));
            assertThat(connect().allocate(t, 3)).as(t).isEqualTo(new Range(15, 18));
        }
        assertThat(s.tags()).extracting(TagInfo::tag).containsAll(tags);
        if (maxTagLength() < Names.MAX_TAG) {
            String tooLong = tag + "y".repeat(maxTagLength() + 1 - tag.length());
            assertThatThrownBy(() -> s.create(tooLong, 1, 10))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + tooLong + "'")
                    .hasMessageContaining(String.valueOf(maxTagLength()));
        }
    }

    @Test
    void allocate_startsAtCreateStart_andHonoursSizes() throws Exception {
        RangeStore s = connect();
        s.create(tag, 1, 10);
        assertThat(s.allocate(tag, 10)).isEqualTo(new Range(1, 11));
        assertThat(s.allocate(tag, 1)).isEqualTo(new Range(11, 12));
        assertThat(s.allocate(tag, 1000)).isEqualTo(new Range(12, 1012));
    }

    @Test
    void allocate_returnsDisjointIncreasingRanges() throws Exception {
        RangeStore s = connect();
        s.create(tag, 500, 10);
        Range prev = s.allocate(tag, 7);
        for (int i = 0; i < 50; i++) {
            Range r = s.allocate(tag, 1 + i % 13);
            assertThat(r.start()).isGreaterThanOrEqualTo(prev.end());
            assertThat(r.size()).isEqualTo(1 + i % 13);
            prev = r;
        }
    }

    @Test
    void allocate_unknownTag_isUnknownTag() {
        assertThatThrownBy(() -> connect().allocate(tag + "-none", 10))
                .isInstanceOf(UnknownTagException.class)
                .satisfies(e -> assertThat(((UnknownTagException) e).tag())
                        .isEqualTo(tag + "-none"));
    }

    @Test
    void allocate_negativeSize_isRejected() throws Exception {
        RangeStore s = connect();
        s.create(tag, 1, 10);
        assertThatThrownBy(() -> s.allocate(tag, -5)).isInstanceOf(IllegalArgumentException.class);
        assertThat(s.allocate(tag, 1)).isEqualTo(new Range(1, 2));
    }

    @Test
    void allocate_tagStep_takesTheStepStoredWithTheTag() throws Exception {
        RangeStore s = connect();
        s.create(tag, 100, 250);
        assertThat(s.allocate(tag, RangeStore.TAG_STEP)).isEqualTo(new Range(100, 350));
        assertThat(s.allocate(tag, 5)).isEqualTo(new Range(350, 355));
        assertThat(connect().allocate(tag, RangeStore.TAG_STEP)).isEqualTo(new Range(355, 605));
    }

    @Test
    void create_badStartOrStep_isRejected_andCreatesNothing() throws Exception {
        RangeStore s = connect();
        assertThatThrownBy(() -> s.create(tag, -1, 10))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.create(tag, 1, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.create(tag, 1, RangeStore.MAX_STEP + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.allocate(tag, 1)).isInstanceOf(UnknownTagException.class);
    }

    @Test
    /** Exact up to Long.MAX_VALUE (no value goes through a double), then CORRUPT. */
    void allocate_pastLongMax_isCorrupt_andTakesNothing() throws Exception {
        RangeStore s = connect();
        s.create(tag, Long.MAX_VALUE - 10, 100);
        assertThat(s.allocate(tag, 4))
                .isEqualTo(new Range(Long.MAX_VALUE - 10, Long.MAX_VALUE - 6));
        assertThatThrownBy(() -> s.allocate(tag, 7))
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("overflow").hasMessageContaining(tag)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CORRUPT);
        assertThatThrownBy(() -> s.allocate(tag, RangeStore.TAG_STEP))
                .isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CORRUPT);
        assertThat(s.allocate(tag, 6)).isEqualTo(new Range(Long.MAX_VALUE - 6, Long.MAX_VALUE));
        assertThatThrownBy(() -> s.allocate(tag, 1))
                .isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CORRUPT);
    }


    @Test
    void create_existing_isConflict_andKeepsTheValue() throws Exception {
        RangeStore s = connect();
        s.create(tag, 1, 10);
        s.allocate(tag, 100);
        assertThatThrownBy(() -> connect().create(tag, 1, 10))
                .isInstanceOf(RegistryException.class)
                .extracting(e -> ((RegistryException) e).kind()).isEqualTo(Kind.CONFLICT);
        assertThat(s.allocate(tag, 1).start()).isEqualTo(101);
    }

    /** A definition as serials write them: several lines, punctuation, braces. */
    private static final String DEFINITION = "period=day\nzone=Europe/Berlin\n"
            + "template=INV-{date:yyyyMMdd}-{counter:6}{check}\nfirst=1\nmax-rate=1000\n";

    @Test
    void define_isKeptAsWritten_readByEveryClient_andListed() throws Exception {
        RangeStore s = connect();
        if (refusesDefinitions(s)) {
            return;
        }
        assertThat(s.definition(tag)).isNull();
        s.define(tag, DEFINITION);
        s.define(tag + "b", "period=none\ntemplate={counter}\n");

        RangeStore other = connect();
        assertThat(other.definition(tag)).isEqualTo(DEFINITION);
        assertThat(other.definitions().entrySet().stream()
                .filter(e -> e.getKey().startsWith(tag)).map(e -> e.getKey()).toList())
                .containsExactly(tag, tag + "b");
        assertThat(other.definitions().get(tag + "b"))
                .isEqualTo("period=none\ntemplate={counter}\n");
        // A serial's definition and a tag of the same name do not touch.
        s.create(tag, 5, 10);
        assertThat(s.allocate(tag, 1).start()).isEqualTo(5);
        assertThat(s.definition(tag)).isEqualTo(DEFINITION);
    }

    @Test
    void define_again_sameTextChangesNothing_anotherIsConflictKeepingTheFirst() throws Exception {
        RangeStore s = connect();
        if (refusesDefinitions(s)) {
            return;
        }
        s.define(tag, DEFINITION);
        connect().define(tag, DEFINITION);
        assertThatThrownBy(() -> connect().define(tag, "period=month\ntemplate={counter}\n"))
                .isInstanceOf(RegistryException.class)
                .satisfies(e -> assertThat(((RegistryException) e).kind())
                        .isEqualTo(Kind.CONFLICT))
                .hasMessageContaining(tag).hasMessageContaining("period=day");
        assertThat(s.definition(tag)).isEqualTo(DEFINITION);
    }

    @Test
    void define_eightClientsAtOnce_oneTextWins_everyOtherIsConflict() throws Exception {
        if (refusesDefinitions(connect())) {
            return;
        }
        List<RangeStore> clients = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            clients.add(connect());
        }
        java.util.concurrent.atomic.AtomicInteger won =
                new java.util.concurrent.atomic.AtomicInteger();
        IdOracle.together(8, t -> {
            try {
                clients.get(t).define(tag, "period=day\ntemplate=" + t + "-{counter}\n");
                won.incrementAndGet();
            } catch (RegistryException e) {
                assertThat(e.kind()).isEqualTo(Kind.CONFLICT);
            }
        });
        assertThat(won.get()).isEqualTo(1);
        String stored = connect().definition(tag);
        for (RangeStore c : clients) {
            assertThat(c.definition(tag)).isEqualTo(stored);
        }
    }

    @Test
    void define_badNameOrText_isRefused_andStoresNothing() throws Exception {
        RangeStore s = connect();
        if (refusesDefinitions(s)) {
            return;
        }
        assertThatThrownBy(() -> s.define("a/b", DEFINITION))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a/b");
        assertThatThrownBy(() -> s.define(tag, ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to " + RangeStore.MAX_DEFINITION);
        assertThatThrownBy(() -> s.define(tag, "x".repeat(RangeStore.MAX_DEFINITION + 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.define(tag, "template=\u00e9"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("printable ASCII");
        assertThat(s.definition(tag)).isNull();
        s.define(tag, "x".repeat(RangeStore.MAX_DEFINITION));
        assertThat(connect().definition(tag)).hasSize(RangeStore.MAX_DEFINITION);
    }

    /**
     * Serials on this store: three clients (nodes) on three threads each while a manual clock
     * crosses midnight in Berlin: every value once, each day's counter from its first value, and
     * every value the store handed out issued, dropped at its day's end, or still held.
     */
    @Test
    void serials_threeNodesAcrossMidnight_everyValueOnce_eachDayFromItsFirst()
            throws Exception {
        if (refusesDefinitions(connect())) {
            return;
        }
        java.time.ZoneId berlin = java.time.ZoneId.of("Europe/Berlin");
        ManualTimeSource clock = new ManualTimeSource(java.time.LocalDateTime
                .parse("2026-11-28T23:59:59.950").atZone(berlin).toInstant().toEpochMilli());
        io.idmint.segment.SerialDefinition def = io.idmint.segment.SerialDefinition
                .newBuilder(tag).period(io.idmint.segment.SerialPeriod.DAY).zone(berlin)
                .template("{date:yyyyMMdd}-{counter:6}").first(1).step(20).build();
        List<io.idmint.segment.Serial> nodes = new ArrayList<>();
        for (int n = 0; n < 3; n++) {
            io.idmint.segment.Serials serials = io.idmint.segment.Serials.newBuilder()
                    .store(connect()).timeSource(clock).build();
            serials.define(def);
            nodes.add(serials.serial(tag));
        }
        java.util.Set<String> texts = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicLong issued =
                new java.util.concurrent.atomic.AtomicLong();
        IdOracle.together(9, t -> {
            for (int i = 0; i < 200; i++) {
                if (t == 0 && i % 20 == 0) {
                    clock.advance(java.time.Duration.ofMillis(10));
                }
                String v = nodes.get(t % 3).next();
                assertThat(texts.add(v)).as("%s issued twice", v).isTrue();
                issued.incrementAndGet();
            }
        });
        assertThat(texts).anyMatch(v -> v.startsWith("20261128-"))
                .anyMatch(v -> v.startsWith("20261129-"));
        assertThat(texts).contains("20261128-000001", "20261129-000001");
        long dropped = nodes.stream().mapToLong(n -> n.stats().dropped()).sum();
        long held = nodes.stream().mapToLong(n -> n.stats().buffered()).sum();
        long handedOut = 0;
        for (TagInfo t : connect().tags()) {
            if (t.tag().startsWith(tag + "~")) {
                handedOut += t.next() - 1;
            }
        }
        assertThat(handedOut).isEqualTo(issued.get() + dropped + held);
    }

    @Test
    void tags_listsEachTagWithItsNextValue() throws Exception {
        RangeStore s = connect();
        s.create(tag + "a", 1, 10);
        s.create(tag + "b", 1000, 10);
        s.allocate(tag + "a", 5);
        List<TagInfo> mine = s.tags().stream().filter(t -> t.tag().startsWith(tag)).toList();
        assertThat(mine)
                .containsExactly(new TagInfo(tag + "a", 6, 10), new TagInfo(tag + "b", 1000, 10));
    }

    @Test
    void newClient_seesRangesAboveAllEarlierOnes() throws Exception {
        RangeStore a = connect();
        a.create(tag, 1, 10);
        long top = 0;
        for (int i = 0; i < 10; i++) {
            top = a.allocate(tag, 100).end();
        }
        a.close();
        Range r = connect().allocate(tag, 100);
        assertThat(r.start()).isGreaterThanOrEqualTo(top);
    }

    @Test
    void allocate_eightConcurrentClients_noGapNoOverlap() throws Exception {
        connect().create(tag, 1, 10);
        int threads = 8;
        int per = allocationsPerThread();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<Range>>> results = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                RangeStore client = connect();
                int seed = t;
                results.add(pool.submit(() -> {
                    start.await();
                    List<Range> mine = new ArrayList<>();
                    for (int i = 0; i < per; i++) {
                        mine.add(client.allocate(tag, 1 + (seed * 31 + i) % 17));
                    }
                    return mine;
                }));
            }
            start.countDown();
            List<Range> all = new ArrayList<>();
            long total = 0;
            for (Future<List<Range>> f : results) {
                for (Range r : f.get(5, TimeUnit.MINUTES)) {
                    all.add(r);
                    total += r.size();
                }
            }
            all.sort(Comparator.comparingLong(Range::start));
            assertThat(all.get(0).start()).isEqualTo(1);
            for (int i = 1; i < all.size(); i++) {
                // a single store with no failed calls: every value is handed out exactly once
                assertThat(all.get(i).start()).as("range %d", i).isEqualTo(all.get(i - 1).end());
            }
            assertThat(all.get(all.size() - 1).end()).isEqualTo(1 + total);
            assertThat(connect().allocate(tag, 1).start()).isEqualTo(1 + total);
        } finally {
            pool.shutdownNow();
        }
    }
}
