package io.idmint.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.segment.Segments;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import io.idmint.spi.support.Names;
import io.idmint.testkit.InMemoryRangeStore;
import io.idmint.testkit.ManualTimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SegmentServiceTest {

    private final InMemoryRangeStore store = new InMemoryRangeStore();
    private final SegmentService segments = new SegmentService(store, Segments.newBuilder()
            .store(store).timeSource(new ManualTimeSource(1_780_000_000_000L)).build(), 100, 250,
            1000);

    @AfterEach
    void close() {
        segments.close();
    }

    @Test
    void create_defaults_startAtOneWithTheDefaultStep_andNextServesFromThere() throws Exception {
        assertThat(segments.create("order", null, null)).isEqualTo(new TagInfo("order", 1, 250));
        assertThat(segments.create("user.v2", 1000L, 10L))
                .isEqualTo(new TagInfo("user.v2", 1000, 10));

        assertThat(next("order", 3)).containsExactly(1, 2, 3);
        assertThat(segments.next(Tag.of("order"))).isEqualTo(4);
        assertThat(next("user.v2", 2)).containsExactly(1000, 1001);
        assertThat(store.ranges("order").get(0).size()).isEqualTo(250);
        assertThat(segments.tags()).extracting(TagInfo::tag).containsExactly("order", "user.v2");
        assertThat(segments.stats()).extracting(s -> s.tag() + "=" + s.served())
                .containsExactly("order=4", "user.v2=2");
    }

    @Test
    void create_existingTag_isTagExists_andChangesNothing() throws Exception {
        segments.create("order", 5L, 10L);

        assertThatThrownBy(() -> segments.create("order", 1L, 10L))
                .isInstanceOf(SegmentService.TagExistsException.class)
                .hasMessage("segment tag 'order' exists already");
        assertThat(next("order", 1)).containsExactly(5);
    }

    @Test
    void create_badTagStartOrStep_isIllegalArgumentNamingIt_andCreatesNothing() {
        assertThatThrownBy(() -> segments.create("a/b", null, null))
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("segment tag 'a/b' must be " + Names.TAG_RULE);
        assertThatThrownBy(() -> segments.create("x".repeat(129), null, null))
                .hasMessageContaining("must be 1 to 128 printable ASCII characters");
        assertThatThrownBy(() -> segments.create("", null, null))
                .hasMessage("segment tag '' must be " + Names.TAG_RULE);
        assertThatThrownBy(() -> segments.create("t", -1L, null))
                .hasMessage("start must be from 0 to 2305843009213693952 (2^61), got -1");
        assertThatThrownBy(() -> segments.create("t", (1L << 61) + 1, null))
                .hasMessageContaining("got 2305843009213693953");
        assertThatThrownBy(() -> segments.create("t", null, 0L))
                .hasMessage("step must be from 1 to 1099511627776 (2^40), got 0");
        assertThatThrownBy(() -> segments.create("t", null, (1L << 40) + 1))
                .hasMessageContaining("(2^40), got 1099511627777");
        assertThat(segments.tags()).isEmpty();
    }

    @Test
    void next_badTagOrCount_isIllegalArgument_andIssuesNothing() throws Exception {
        segments.create("order", null, null);

        assertThatThrownBy(() -> Tag.of("or der"))
                .hasMessage("segment tag 'or der' must be " + Names.TAG_RULE);
        assertThat(Tag.orNull("or der")).isNull();
        assertThatThrownBy(() -> Count.of(0, segments.maxCount()))
                .hasMessage("count must be from 1 to 100, got 0");
        assertThatThrownBy(() -> Count.of(101, segments.maxCount()))
                .hasMessage("count must be from 1 to 100, got 101");
        assertThat(store.allocateCalls()).isZero();
        assertThat(next("order", 1)).containsExactly(1);
    }

    @Test
    void next_unknownTag_isUnknownTag() {
        assertThatThrownBy(() -> next("nope", 1))
                .isInstanceOf(UnknownTagException.class)
                .hasMessageContaining("segment tag 'nope' does not exist");
    }

    @Test
    void createAndTags_storeDown_isStoreUnavailable() {
        store.setAvailable(false);

        assertThatThrownBy(() -> segments.create("order", null, null))
                .isInstanceOf(SegmentService.StoreUnavailableException.class)
                .hasMessageContaining("the segment store did not answer: in-memory range store "
                        + "is set unavailable");
        assertThatThrownBy(segments::tags)
                .isInstanceOf(SegmentService.StoreUnavailableException.class);
    }

    @Test
    void checkTag_acceptsLeafTags_andRefusesWhatIsUnsafeInAUrlPath() {
        SegmentService.checkTag("AZaz09._-");
        SegmentService.checkTag("order:2024");
        SegmentService.checkTag("a+b@c");
        SegmentService.checkTag("x".repeat(128));
        for (String bad : new String[] {"ä", "a b", "a/b", "a%2Fb", "a?b", "a#b", "\n", "..",
                "x".repeat(129)}) {
            assertThatThrownBy(() -> SegmentService.checkTag(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** {@code n} IDs of {@code tag}, made as the transports make them. */
    private long[] next(String tag, long n) {
        return segments.next(Tag.of(tag), Count.of(n, segments.maxCount()));
    }
}
