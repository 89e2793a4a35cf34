package io.idmint.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProvidersTest {

    @Test
    void schemeOf_isTheLowerCasePartBeforeTheFirstColon() {
        assertThat(Providers.schemeOf(" ETCD://h:1/ns", "registry", "e.g.")).isEqualTo("etcd");
        assertThat(Providers.schemeOf("jdbc:h2:mem:x", "registry", "e.g.")).isEqualTo("jdbc");
    }

    @Test
    void schemeOf_refusesAUriWithoutScheme() {
        for (String bad : new String[] {null, "", "host", ":x"}) {
            assertThatThrownBy(() -> Providers.schemeOf(bad, "segment store", "jdbc:h2:…"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("segment store '" + bad + "' is not a URI such as jdbc:h2:…");
        }
    }

    @Test
    void find_namesTheSchemesAvailable_whenNoneServesTheUri() {
        // No backend is on the core's class path: only the built-in schemes are available.
        assertThatThrownBy(() -> Providers.find(WorkerRegistryProvider.class,
                WorkerRegistryProvider::schemes, "etcd", List.of("static"), "registry",
                "etcd://h:2379/ns"))
                .hasMessage("registry 'etcd://h:2379/ns': no backend for scheme 'etcd' on the "
                        + "class path; available: static");
        assertThatThrownBy(() -> Providers.find(RangeStoreProvider.class,
                RangeStoreProvider::schemes, "zk", List.of(), "segment store", "zk://h/ns"))
                .hasMessage("segment store 'zk://h/ns': no backend for scheme 'zk' on the "
                        + "class path; available: none");
    }

    @Test
    void find_unknownScheme_doesNotQuoteAPasswordOfTheUri() {
        assertThatThrownBy(() -> Providers.find(WorkerRegistryProvider.class,
                WorkerRegistryProvider::schemes, "etc", List.of("static"), "registry",
                "etc://u:hunter2@h/ns?password=hunter3"))
                .hasMessageStartingWith("registry 'etc://u:***@h/ns?password=***'")
                .hasMessageNotContaining("hunter");
    }

    @Test
    void redact_hidesPasswordsSecretsAndTokensOnly() {
        assertThat(Providers.redact("jdbc:postgresql://db/ids?user=app&password=pw&ssl=1"))
                .isEqualTo("jdbc:postgresql://db/ids?user=app&password=***&ssl=1");
        assertThat(Providers.redact("etcds://h:2379/p?user=u&password-file=/run/pw"))
                .isEqualTo("etcds://h:2379/p?user=u&password-file=/run/pw");
        assertThat(Providers.redact("redis://:pw@h:6379")).isEqualTo("redis://:***@h:6379");
        assertThat(Providers.redact("static:")).isEqualTo("static:");
        assertThat(Providers.redact("etcd://idmint:s3cr3t@10.0.0.1:2379,10.0.0.2:2379/prod"))
                .isEqualTo("etcd://idmint:***@10.0.0.1:2379,10.0.0.2:2379/prod");
        assertThat(Providers.redact("jdbc:mariadb://db/ids;Password=pw;x=1"))
                .isEqualTo("jdbc:mariadb://db/ids;Password=***;x=1");
        assertThat(Providers.redact("zk://zk1:2181/ns?token=abc"))
                .isEqualTo("zk://zk1:2181/ns?token=***");
    }
}
