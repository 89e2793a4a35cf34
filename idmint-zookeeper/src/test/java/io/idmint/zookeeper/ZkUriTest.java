package io.idmint.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ZkUriTest {

    @Test
    void parse_everything() {
        ZkUri u = ZkUri.parse("zk://10.0.0.1:2181,zk-2.example:2182,[::1]:2183/ids/prod"
                + "?timeout=2s&session=500ms");
        assertThat(u.connectString()).isEqualTo("10.0.0.1:2181,zk-2.example:2182,[::1]:2183");
        assertThat(u.chroot()).isEqualTo("/ids/prod");
        assertThat(u.timeoutMillis()).isEqualTo(2_000);
        assertThat(u.sessionMillis()).isEqualTo(500);
        assertThat(u.sessionFromLease()).isFalse();
    }

    @Test
    void parse_defaults() {
        ZkUri u = ZkUri.parse("ZK://zk1");
        assertThat(u.connectString()).isEqualTo("zk1:2181");
        assertThat(u.chroot()).isEqualTo("/idmint");
        assertThat(u.timeoutMillis()).isEqualTo(5_000);
        assertThat(u.sessionFromLease()).isTrue();
        assertThat(ZkUri.parse("zk://zk1/").chroot()).isEqualTo("/idmint");
        assertThat(ZkUri.parse("zk://zk1/a/").chroot()).isEqualTo("/a");
        assertThat(ZkUri.parse("zk://zk1?session=1m").sessionMillis()).isEqualTo(60_000);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "etcd://h:1/x|must start with zk://",
        "zk:///x|names no host",
        "zk://h:1/x?auth=sasl&user=u&password-file=/p|auth 'sasl' is not supported",
        "zk://h:1/x?user=u&password-file=/p|need auth=digest",
        "zk://h:1/x?auth=digest&user=u|needs user= and password-file=",
        "zk://h:1/x?auth=digest&user=u&password-file=/p&password-env=P|keep one",
        "zk://h:1/x?auth=digest&user=u&password-env=1P|password-env '1P'",
        "zk://h:1/x?auth=digest&user=a b&password-env=P|user 'a b'",
        "zk://h:1/x?ca-file=/ca.pem|need TLS; write zks://",
        "zks://h:1/x?cert-file=/c.pem|needs both cert-file and key-file",
        "zk://h:99999/x|port 99999",
        "zk://h:1,,h:2/x|host ''",
        "zk://h:1/a/../b|segment '..'",
        "zk://h:1/a//b|segment ''",
        "zk://h:1/zookeeper/x|/zookeeper",
        "zk://h:1/x?ttl=3s|unknown option 'ttl'",
        "zk://h:1/x?timeout|option 'timeout' has no value",
        "zk://h:1/x?timeout=1s&timeout=2s|given twice",
        "zk://h:1/x?timeout=2|timeout '2' is not a duration",
        "zk://h:1/x?session=0s|between 1ms and 1h",
        "zk://h:1/x?session=2h|session '2h' must be between 1ms and 1h",
        "zk://h:1/x?leaf-name=a/b|leaf-name 'a/b' must be A-Z a-z 0-9 . _ -",
    })
    void parse_badUri_namesTheBadPart(String uri, String message) {
        assertThatThrownBy(() -> ZkUri.parse(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(uri)
                .hasMessageContaining(message);
    }

    @Test
    void parse_userInformationOrPassword_isRefusedWithoutQuotingThePassword() {
        assertThatThrownBy(() -> ZkUri.parse("zk://u:hunter2@h:1/x"))
                .hasMessageContaining("zk://u:***@h:1/x").hasMessageContaining("user information")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> ZkUri.parse("zk://h:1/x?auth=digest&user=u&password=hunter2"))
                .hasMessageContaining("password=***")
                .hasMessageContaining("password goes in a file (password-file=)")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void parse_tlsAndDigest() {
        ZkUri u = ZkUri.parse("zks://h:2281/x?ca-file=/etc/ca.pem&cert-file=/c.pem&key-file=/k.pem"
                + "&auth=digest&user=idmint&password-env=ZK_PASSWORD");
        assertThat(u.tls()).isTrue();
        assertThat(u.security().caFile()).hasToString("/etc/ca.pem");
        assertThat(u.security().certFile()).hasToString("/c.pem");
        assertThat(u.security().keyFile()).hasToString("/k.pem");
        assertThat(u.security().user()).isEqualTo("idmint");
        assertThat(u.security().passwordEnv()).isEqualTo("ZK_PASSWORD");
        assertThat(u).hasToString("zks://h:2281/x (user idmint)");
        assertThat(ZkUri.parse("ZKS://h").tls()).isTrue();
        assertThat(ZkUri.parse("zk://h").tls()).isFalse();
    }

    @Test
    void password_unsetVariable_namesIt() {
        ZkUri u = ZkUri.parse("zk://h:1/x?auth=digest&user=u&password-env=IDMINT_UNSET_VAR_1");
        assertThatThrownBy(u::password).hasMessageContaining("IDMINT_UNSET_VAR_1")
                .hasMessageContaining("is not set");
    }

    @Test
    void parse_leafName_isKeptForTheRegistryAndRefusedByTheSegmentStore() {
        assertThat(ZkUri.parse("zk://h:1/x?leaf-name=leaf-prod.1").leafName())
                .isEqualTo("leaf-prod.1");
        assertThat(ZkUri.parse("zk://h:1/x").leafName()).isNull();
        assertThatThrownBy(() -> new ZkRangeStoreProvider().open("zk://h:1/x?leaf-name=a",
                java.nio.file.Path.of("unused")))
                .hasMessageContaining("leaf-name is an option of the worker registry");
    }
}
