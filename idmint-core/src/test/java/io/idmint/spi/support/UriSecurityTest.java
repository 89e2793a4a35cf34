package io.idmint.spi.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UriSecurityTest {

    private static final Function<String, IllegalArgumentException> BAD =
            why -> new IllegalArgumentException("x URI: " + why);

    @Test
    void of_readsTheSharedOptions() {
        UriSecurity s = UriSecurity.of(true, Map.of("ca-file", "/ca.pem", "cert-file", "/c.pem",
                "key-file", "/k.pem", "user", "u", "password-env", "PW"));
        assertThat(s).isEqualTo(new UriSecurity(true, Path.of("/ca.pem"), Path.of("/c.pem"),
                Path.of("/k.pem"), "u", null, "PW"));
        assertThat(s.hasPassword()).isTrue();
        s.check("xs", BAD);
        assertThat(UriSecurity.of(false, Map.of()).hasPassword()).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "false|ca-file=/ca.pem|x URI: ca-file, cert-file and key-file need TLS; write xs://",
        "false|key-file=/k.pem|x URI: ca-file, cert-file and key-file need TLS; write xs://",
        "true|cert-file=/c.pem|x URI: a client certificate needs both cert-file and key-file",
        "true|password-file=/p&password-env=P|x URI: password-file and password-env are both "
                + "given; keep one",
        "true|user=a b|x URI: bad user 'a b'; use A-Z a-z 0-9 . _ @ -",
        "true|password-env=1P|x URI: password-env '1P' is not an environment variable name",
    })
    void check_refusesOptionsThatDoNotGoTogether(boolean tls, String query, String message) {
        UriSecurity s = UriSecurity.of(tls, UriOptions.parse(query, UriSecurity.OPTIONS, BAD));
        assertThatThrownBy(() -> s.check("xs", BAD)).hasMessage(message);
    }

    @Test
    void checkFiles_namesTheOptionAndFile_thatCannotBeRead(@TempDir Path dir) throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.pem"), "x");
        new UriSecurity(true, ca, null, null, null, null, null).checkFiles("x");
        assertThatThrownBy(() -> new UriSecurity(true, ca, dir.resolve("c.pem"), ca, null, null,
                null).checkFiles("etcd etcds://h/x"))
                .hasMessage("etcd etcds://h/x: cert-file '" + dir.resolve("c.pem")
                        + "' does not exist or is not a readable file");
        assertThatThrownBy(() -> new UriSecurity(true, dir, null, null, null, null, null)
                .checkFiles("x")).hasMessageContaining("ca-file '" + dir + "' does not exist");
    }

    @Test
    void password_isReadFromItsFile(@TempDir Path dir) throws Exception {
        Path pw = Files.writeString(dir.resolve("pw"), " s3cret\n");
        assertThat(new UriSecurity(false, null, null, null, "u", pw, null).password("x"))
                .isEqualTo("s3cret".getBytes(StandardCharsets.UTF_8));
    }
}
