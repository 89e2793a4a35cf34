package io.idmint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Typed 64-bit IDs: the form, its order, the base32 codec reading it, every refusal. */
class TypedIdTest {

    @Test
    void typedId_64bit_roundTrips_sortsAsTheIds_andIsReadByTheBase32Codec() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(5);
        String last = null;
        long lastId = -1;
        for (int i = 0; i < 10_000; i++) {
            long id = i == 0 ? 0 : i == 1 ? Long.MAX_VALUE : random.nextLong(Long.MAX_VALUE);
            TypedId t = new TypedId("ord", id);
            String text = t.toString();
            assertThat(text).hasSize(4 + 13).startsWith("ord_");
            assertThat(TypedId.parse(text, "ord")).isEqualTo(t);
            assertThat(IdCodec.BASE32.parse(text.substring(4))).isEqualTo(id);
            if (last != null) {
                assertThat(Integer.signum(text.compareTo(last)))
                        .isEqualTo(Long.signum(Long.compare(id, lastId)));
            }
            last = text;
            lastId = id;
        }
        assertThat(new TypedId("", 42).toString()).isEqualTo("000000000001a");
        assertThatThrownBy(() -> TypedId.parse("inv_000000000001a", "ord"))
                .hasMessage("'inv_000000000001a' is an 'inv' ID where an 'ord' one is expected");
        assertThatThrownBy(() -> TypedId.parse("ord_800000000001a"))
                .hasMessageContaining("above 7");
        assertThatThrownBy(() -> TypedId.parse("ord_000000000001A"))
                .hasMessageContaining("'A' at ID position 13");
        assertThatThrownBy(() -> TypedId.parse("ord_00001a")).hasMessageContaining("6 symbols");
        assertThatThrownBy(() -> new TypedId("ord", -1)).hasMessage("ID -1 is negative");
    }
}
