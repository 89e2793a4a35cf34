package io.idmint.spi.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NamesTest {

    @Test
    void isValid_acceptsOneTo64OfTheAllowedCharacters() {
        assertThat(Names.isValid("a")).isTrue();
        assertThat(Names.isValid("AZaz09._-")).isTrue();
        assertThat(Names.isValid("x".repeat(64))).isTrue();
        assertThat(Names.isValid(".")).isTrue(); // a store with path rules refuses it itself
    }

    @Test
    void isValid_refusesEverythingElse() {
        assertThat(Names.isValid(null)).isFalse();
        assertThat(Names.isValid("")).isFalse();
        assertThat(Names.isValid("x".repeat(65))).isFalse();
        for (String bad : new String[] {"a b", "a/b", "a:b", "é", "a\n", "a*", "a@b", "\u0660"}) {
            assertThat(Names.isValid(bad)).as(bad).isFalse();
        }
    }

    @Test
    void isValid_agreesWithTheRegularExpressionItReplaces() {
        for (char c = 0; c < 0x3000; c++) {
            String s = "a" + c;
            assertThat(Names.isValid(s)).as("U+%04X", (int) c)
                    .isEqualTo(s.matches("[A-Za-z0-9._-]{1,64}"));
        }
    }

    @Test
    void isValidTag_acceptsLeafTagsUpTo128PrintableAsciiCharacters() {
        for (String ok : new String[] {"order:2024", "leaf-segment-test", "a.b", "...", "a@b+c",
                "x".repeat(128), "~!$&'()*,;=[]{}|^`\"", "A"}) {
            assertThat(Names.isValidTag(ok)).as(ok).isTrue();
        }
    }

    @Test
    void isValidTag_refusesWhatIsUnsafeInAUrlPathSegment() {
        for (String bad : new String[] {"", ".", "..", "a/b", "a\\b", "a?b", "a#b", "a%20b",
                "a b", "a\tb", "a\nb", "a\u007fb", "\u00e9t\u00e9", "x".repeat(129)}) {
            assertThat(Names.isValidTag(bad)).as(bad).isFalse();
        }
        assertThat(Names.isValidTag(null)).isFalse();
    }

    @Test
    void isValidTag_agreesWithTheRuleInWords() {
        for (char c = 0; c < 0x3000; c++) {
            String s = "a" + c;
            assertThat(Names.isValidTag(s)).as("U+%04X", (int) c)
                    .isEqualTo(s.matches("[!-~&&[^/\\\\?#%]]{1,128}"));
        }
    }

    @Test
    void require_namesTheValueAndTheRule() {
        assertThat(Names.requireTag("order:2024")).isEqualTo("order:2024");
        assertThatThrownBy(() -> Names.requireTag("or der"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("segment tag 'or der' must be 1 to 128 printable ASCII characters "
                        + "(letters, digits and punctuation such as : . _ - @ +), none of "
                        + "/ \\ ? # % and not . or .. (a tag must be one URL path segment as "
                        + "it is)");
        assertThatThrownBy(() -> Names.requireNamespace(null))
                .hasMessage("namespace 'null' must be 1 to 64 of A-Z a-z 0-9 . _ -");
        assertThat(Names.requireDatacenterName("", "datacenter.name")).isEmpty();
        assertThatThrownBy(() -> Names.requireDatacenterName("eu west", "datacenter.name"))
                .hasMessage("datacenter.name 'eu west' must be 0 to 64 of A-Z a-z 0-9 . _ -");
    }
}
