package io.idmint.codes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The builder: each setting checked at once, set once, defaults resolved at build. */
class CodesTest {

    private static final byte[] KEY = CodeCodecTest.KEY_1;

    @Test
    void build_withoutKey_refuses() {
        assertThatThrownBy(() -> Codes.newBuilder().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no key for codes: pass one to key(version, bytes), e.g. from "
                        + "Keys.fromFile(path) or Keys.fromHex(hex); there is no default key");
    }

    @Test
    void key_badVersion_rejected() {
        assertThatThrownBy(() -> Codes.newBuilder().key(32, KEY))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key version must be 0 to 31, got 32");
        assertThatThrownBy(() -> Codes.newBuilder().key(-1, KEY))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key version must be 0 to 31, got -1");
    }

    @Test
    void key_badLength_rejected() {
        assertThatThrownBy(() -> Codes.newBuilder().key(3, new byte[24]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key version 3 is 24 bytes; an AES key for codes is 16 bytes (AES-128) "
                        + "or 32 bytes (AES-256)");
        assertThatThrownBy(() -> Codes.newBuilder().key(3, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("key version 3 is 0 bytes");
    }

    @Test
    void key_allZeros_rejectedAsPlaceholder() {
        assertThatThrownBy(() -> Codes.newBuilder().key(0, new byte[16]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key version 0 is all zeros: a placeholder, not a key");
    }

    @Test
    void key_sameVersionTwice_rejected() {
        assertThatThrownBy(() -> Codes.newBuilder().key(1, KEY).key(1, KEY))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("key version 1 was already set");
    }

    @Test
    void key_isCopied_laterChangesToTheArrayDoNotMatter() {
        byte[] key = KEY.clone();
        Codes builder = Codes.newBuilder().key(1, key);
        key[0] ^= 1;

        assertThat(builder.build().encode(5)).isEqualTo(CodeCodecTest.CODES.encode(5));
    }

    @Test
    void currentVersion_requiredWithSeveralKeys() {
        assertThatThrownBy(() -> Codes.newBuilder().key(1, KEY).key(4, CodeCodecTest.KEY_2)
                .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys for versions 1, 4: say which one makes new codes with "
                        + "currentVersion()");
    }

    @Test
    void currentVersion_withoutKey_rejected() {
        assertThatThrownBy(() -> Codes.newBuilder().key(1, KEY).currentVersion(2).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("current key version 2 has no key (keys: 1)");
        assertThatThrownBy(() -> Codes.newBuilder().currentVersion(40))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("current key version must be 0 to 31, got 40");
    }

    @Test
    void settersTwice_rejected() {
        assertThatThrownBy(() -> Codes.newBuilder().currentVersion(1).currentVersion(1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("currentVersion was already set");
        assertThatThrownBy(() -> Codes.newBuilder().tweak(new byte[1]).tweak(new byte[1]))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("tweak was already set");
    }

    @Test
    void tweak_tooLong_rejected() {
        assertThatThrownBy(() -> Codes.newBuilder().tweak(new byte[256]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tweak must be at most 255 bytes, got 256");
        assertThat(Codes.newBuilder().key(1, KEY).tweak(new byte[255]).build().encode(1))
                .hasSize(15);
    }

    @Test
    void aes256Key_works() {
        CodeCodec codes = Codes.newBuilder().key(31, CodeCodecTest.KEY_2).build();

        assertThat(codes.encode(3)).startsWith("Z");
        assertThat(codes.decode(codes.encode(3))).isEqualTo(3);
        assertThat(codes.toString()).isEqualTo("CodeCodec[FF1-AES, current key version 31, "
                + "versions 31]");
    }
}
