package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.segment.RangeStores;
import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import io.idmint.testkit.RangeStoreContract;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The testkit's range store contract plus what every SQL database must also do. A subclass per
 * database declares it (a fixture of {@code io.idmint.testkit.fixture}) and names its URL; each
 * test uses tags of its own.
 */
abstract class JdbcRangeStoreContract extends RangeStoreContract {

    /** The store URL of the database under test (absolute, so no data directory is needed). */
    abstract String url();

    /** The same URL with more {@code idmint.*} options or driver settings. */
    String url(String option) {
        return url() + (url().startsWith("jdbc:h2:") ? ";" : url().contains("?") ? "&" : "?")
                + option;
    }

    @Override
    protected RangeStore newClient() {
        return JdbcRangeStores.open(url(), null);
    }

    /** The table's {@code tag VARCHAR(64)}. */
    @Override
    protected int maxTagLength() {
        return JdbcRangeStore.MAX_TAG;
    }

    /** Sorts ranges by start and fails on any two that share a value. */
    static List<Range> assertDisjoint(List<Range> ranges) {
        List<Range> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparingLong(Range::start));
        for (int i = 1; i < sorted.size(); i++) {
            assertThat(sorted.get(i).start()).as("%s overlaps %s", sorted.get(i),
                    sorted.get(i - 1)).isGreaterThanOrEqualTo(sorted.get(i - 1).end());
        }
        return sorted;
    }

    @Test
    void allocate_eightThreadsOnOneClient_disjointAndDense() throws Exception {
        RangeStore shared = connect();
        shared.create(tag, 1, 10);
        int threads = 8;
        int per = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<List<Range>>> results = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int seed = t;
                results.add(pool.submit(() -> {
                    go.await();
                    List<Range> mine = new ArrayList<>();
                    for (int i = 0; i < per; i++) {
                        // threads outnumber the pool's 2 connections: they queue for one
                        mine.add(shared.allocate(tag, 1 + (seed * 7 + i) % 11));
                    }
                    return mine;
                }));
            }
            go.countDown();
            List<Range> all = new ArrayList<>();
            for (Future<List<Range>> f : results) {
                all.addAll(f.get(2, TimeUnit.MINUTES));
            }
            List<Range> sorted = assertDisjoint(all);
            long total = all.stream().mapToLong(Range::size).sum();
            assertThat(sorted.get(0).start()).isEqualTo(1);
            assertThat(sorted.get(sorted.size() - 1).end()).isEqualTo(1 + total);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void allocate_unknownTagWithTagStep_isUnknownTag() {
        assertThatThrownBy(() -> connect().allocate(tag, RangeStore.TAG_STEP))
                .isInstanceOf(UnknownTagException.class).hasMessageContaining(tag);
    }

    @Test
    void allocateAndCreate_badTagName_isRejectedNamingIt() {
        RangeStore s = connect();
        assertThatThrownBy(() -> s.create("no spaces", 1, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'no spaces'");
        assertThatThrownBy(() -> s.allocate("x".repeat(129), 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 to 128");
        assertThatThrownBy(() -> s.allocate(null, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void leafTagNames_fitTheTable_upTo64Characters_andLongerAreRefusedNamingTheLimit()
            throws Exception {
        RangeStore s = connect();
        String leaf = "order:2024@" + tag + "+~!$&'()*,;=[]{}|^`\"";
        s.create(leaf, 7, 10);
        assertThat(s.allocate(leaf, RangeStore.TAG_STEP)).isEqualTo(new Range(7, 17));
        String longest = tag + "x".repeat(64 - tag.length());
        s.create(longest, 1, 10);
        assertThat(s.tags()).extracting(TagInfo::tag).contains(leaf, longest);
        for (String tooLong : new String[] {longest + "y", "z".repeat(128)}) {
            assertThatThrownBy(() -> s.create(tooLong, 1, 10))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("segment tag '" + tooLong + "' has " + tooLong.length()
                            + " characters; table idmint_segment holds at most 64 (a Leaf "
                            + "leaf_alloc table holds 128: idmint.table=leaf_alloc)");
            assertThatThrownBy(() -> s.allocate(tooLong, 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at most 64");
        }
    }

    @Test
    void namespaces_shareTheTableButNotTheirTags() throws Exception {
        RangeStore a = JdbcRangeStores.open(url("idmint.namespace=" + tag + "-a"), null);
        RangeStore b = JdbcRangeStores.open(url("idmint.namespace=" + tag + "-b"), null);
        try {
            a.create("order", 1, 10);
            b.create("order", 1000, 20);
            assertThat(a.allocate("order", 5)).isEqualTo(new Range(1, 6));
            assertThat(b.allocate("order", 5)).isEqualTo(new Range(1000, 1005));
            assertThat(a.tags()).containsExactly(new TagInfo("order", 6, 10));
            assertThat(b.tags()).containsExactly(new TagInfo("order", 1005, 20));
            assertThat(connect().tags()).extracting(TagInfo::tag).doesNotContain("order");
        } finally {
            a.close();
            b.close();
        }
    }

    @Test
    void tags_sortLikeJavaStrings_whateverTheCollation() throws Exception {
        RangeStore s = JdbcRangeStores.open(url("idmint.namespace=" + tag), null);
        try {
            for (String t : List.of("b", "B", "a.1", "a-2", "A_3", "_z")) {
                s.create(t, 1, 10);
            }
            assertThat(s.tags()).extracting(TagInfo::tag)
                    .containsExactly("A_3", "B", "_z", "a-2", "a.1", "b");
        } finally {
            s.close();
        }
    }

    @Test
    void open_byUriScheme_findsThisBackend() throws Exception {
        try (RangeStore s = RangeStores.open(url(), Path.of("unused"))) {
            s.create(tag, 7, 3);
            assertThat(s.allocate(tag, RangeStore.TAG_STEP)).isEqualTo(new Range(7, 10));
        }
    }

    @Test
    void initSchema_isIdempotent_andKeepsData() throws Exception {
        RangeStore s = connect();
        s.create(tag, 1, 10);
        s.allocate(tag, 40);
        JdbcRangeStores.initSchema(url(), null);
        JdbcRangeStores.initSchema(url(), null);
        assertThat(connect().allocate(tag, 1)).isEqualTo(new Range(41, 42));
    }
}
