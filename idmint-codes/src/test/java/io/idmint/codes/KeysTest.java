package io.idmint.codes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeysTest {

    private static final String HEX_128 = "2b7e151628aed2a6abf7158809cf4f3c";

    @TempDir
    Path dir;

    @Test
    void fromHex_128And256_eitherCase_whitespaceIgnored() {
        assertThat(Keys.fromHex(HEX_128)).hasSize(16).startsWith((byte) 0x2b, (byte) 0x7e);
        assertThat(Keys.fromHex(" " + HEX_128.toUpperCase() + "\n"))
                .isEqualTo(Keys.fromHex(HEX_128));
        assertThat(Keys.fromHex(HEX_128 + HEX_128)).hasSize(32);
    }

    @Test
    void fromHex_badInput_rejectedWithoutEchoingTheKey() {
        assertThatThrownBy(() -> Keys.fromHex(HEX_128.substring(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hex key has 30 characters; expected 32 or 64 hex digits (AES-128 or "
                        + "AES-256)");
        String bad = "g" + HEX_128.substring(1);
        assertThatThrownBy(() -> Keys.fromHex(bad))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hex key has a non-hex character at position 1; expected 32 or 64 hex "
                        + "digits")
                .message().doesNotContain(HEX_128.substring(1));
        assertThatThrownBy(() -> Keys.fromHex(HEX_128 + "00"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("hex key has 34 characters");
    }

    @Test
    void fromFile_readsHexWithTrailingNewline() throws Exception {
        Path file = dir.resolve("codes.key");
        Files.writeString(file, HEX_128 + "\n");

        assertThat(Keys.fromFile(file)).isEqualTo(Keys.fromHex(HEX_128));
    }

    @Test
    void fromFile_badContent_namesTheFile() throws Exception {
        Path file = dir.resolve("short.key");
        Files.writeString(file, "abcd\n");

        assertThatThrownBy(() -> Keys.fromFile(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key file " + file + " has 4 characters; expected 32 or 64 hex digits "
                        + "(AES-128 or AES-256)");
    }

    @Test
    void fromFile_missing_namesTheFile() {
        Path missing = dir.resolve("missing.key");

        assertThatThrownBy(() -> Keys.fromFile(missing))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageStartingWith("key file " + missing + " cannot be read: ");
    }

    @Test
    void generate_gives32RandomBytes_thatBuildACodec() {
        byte[] a = Keys.generate();
        byte[] b = Keys.generate(new SecureRandom());

        assertThat(a).hasSize(32).isNotEqualTo(b);
        assertThat(Keys.fromHex(Keys.toHex(a))).isEqualTo(a);
        assertThat(Codes.newBuilder().key(0, a).build().encode(1)).startsWith("0");
    }

    @Test
    void toHex_rejectsNonKeys() {
        assertThatThrownBy(() -> Keys.toHex(new byte[3]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key is 3 bytes; an AES key for codes is 16 bytes (AES-128) or "
                        + "32 bytes (AES-256)");
    }
}
