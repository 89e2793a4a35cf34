package io.idmint.spi.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PasswordsTest {

    @Test
    void read_file_dropsSurroundingBlanksAndTheNewline(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("pw"), "  s3 cret\n");
        assertThat(new String(Passwords.read("store", f, null), StandardCharsets.UTF_8))
                .isEqualTo("s3 cret");
    }

    @Test
    void read_environmentVariable() {
        String name = System.getenv().containsKey("PATH") ? "PATH" : "HOME";
        assertThat(new String(Passwords.read("store", null, name), StandardCharsets.UTF_8))
                .isEqualTo(System.getenv(name).strip());
    }

    @Test
    void read_missingEmptyOrUnset_namesTheSourceNeverAValue(@TempDir Path dir) throws Exception {
        Path empty = Files.writeString(dir.resolve("empty"), "\n");
        assertThatThrownBy(() -> Passwords.read("etcd x", empty, null))
                .hasMessage("etcd x: password-file '" + empty + "' is empty");
        assertThatThrownBy(() -> Passwords.read("etcd x", dir.resolve("none"), null))
                .hasMessageStartingWith("etcd x: cannot read password-file '"
                        + dir.resolve("none") + "'");
        assertThatThrownBy(() -> Passwords.read("zk y", null, "IDMINT_SURELY_UNSET_42"))
                .hasMessage("zk y: environment variable IDMINT_SURELY_UNSET_42 (password-env) "
                        + "is not set");
    }

    @Test
    void isEnvName() {
        assertThat(Passwords.isEnvName("ETCD_PASSWORD")).isTrue();
        assertThat(Passwords.isEnvName("_x1")).isTrue();
        assertThat(Passwords.isEnvName("1X")).isFalse();
        assertThat(Passwords.isEnvName("A-B")).isFalse();
        assertThat(Passwords.isEnvName(null)).isFalse();
    }
}
