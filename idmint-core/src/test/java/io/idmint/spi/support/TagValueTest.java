package io.idmint.spi.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import org.junit.jupiter.api.Test;

class TagValueTest {

    @Test
    void created_checksTheTagTheStartAndTheStep() {
        assertThat(TagValue.created("t", 0, 1)).isEqualTo(new TagValue(0, 1));
        assertThat(TagValue.created("t", 5, RangeStore.MAX_STEP).step())
                .isEqualTo(RangeStore.MAX_STEP);
        assertThatThrownBy(() -> TagValue.created("a/b", 1, 1))
                .hasMessage("segment tag 'a/b' must be " + Names.TAG_RULE);
        assertThatThrownBy(() -> TagValue.created("t", -1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("segment start must be >= 0, got -1");
        assertThatThrownBy(() -> TagValue.created("t", 1, 0))
                .hasMessage("segment step must be between 1 and 2^40, got 0");
        assertThatThrownBy(() -> TagValue.created("t", 1, RangeStore.MAX_STEP + 1))
                .hasMessage("segment step must be between 1 and 2^40, got 1099511627777");
    }

    @Test
    void checkAllocation_refusesBadTagsAndNegativeSizes() {
        TagValue.checkAllocation("t", 0);
        assertThatThrownBy(() -> TagValue.checkAllocation("t", -1))
                .hasMessage("range size must not be negative, got -1");
        assertThatThrownBy(() -> TagValue.checkAllocation(null, 1))
                .hasMessageStartingWith("segment tag 'null'");
    }

    @Test
    void allocate_takesTheSizeOrTheTagStep_andRefusesToOverflow() throws Exception {
        TagValue v = new TagValue(10, 7);
        assertThat(v.allocate("t", RangeStore.TAG_STEP)).isEqualTo(new TagValue(17, 7));
        assertThat(v.allocate("t", 100)).isEqualTo(new TagValue(110, 7));
        TagValue top = new TagValue(Long.MAX_VALUE - 5, 7);
        assertThat(top.allocate("t", 5).next()).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> top.allocate("t", RangeStore.TAG_STEP))
                .isInstanceOfSatisfying(RegistryException.class,
                        e -> assertThat(e.kind()).isEqualTo(RegistryException.Kind.CORRUPT))
                .hasMessage("segment tag 't' at " + (Long.MAX_VALUE - 5)
                        + " cannot take 7 more values without overflow");
    }

    @Test
    void text_isNextSpaceStep_andParsesBack() throws Exception {
        TagValue v = new TagValue(123, 1000);
        assertThat(v.text()).isEqualTo("123 1000");
        assertThat(TagValue.parse(v.text(), "here")).isEqualTo(v);
    }

    @Test
    void parse_refusesAnythingButAValidValue_asCorrupt() {
        String[] bad = {"", "1", "1 2 3", "a 2", "1 b", "-1 5", "1 0", "1 1099511627777",
            " 1 2", "1  2", "1 2 ", "99999999999999999999 1"};
        for (String text : bad) {
            assertThatThrownBy(() -> TagValue.parse(text, "znode /x"))
                    .as("'%s'", text)
                    .isInstanceOfSatisfying(RegistryException.class,
                            e -> assertThat(e.kind()).isEqualTo(RegistryException.Kind.CORRUPT))
                    .hasMessage("znode /x holds '" + text + "', not a segment tag's "
                            + "'<next> <step>'");
        }
    }
}
