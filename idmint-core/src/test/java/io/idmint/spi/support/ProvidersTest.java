package io.idmint.spi.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.spi.RangeStoreProvider;
import io.idmint.spi.WorkerRegistryProvider;
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
                WorkerRegistryProvider::schemes, "nope", List.of("static"), "registry",
                "nope://h:2379/ns"))
                .hasMessage("registry 'nope://h:2379/ns': no backend for scheme 'nope' on the "
                        + "class path; available: static");
        assertThatThrownBy(() -> Providers.find(RangeStoreProvider.class,
                RangeStoreProvider::schemes, "nope", List.of(), "segment store", "nope://h/ns"))
                .hasMessage("segment store 'nope://h/ns': no backend for scheme 'nope' on the "
                        + "class path; available: none");
    }

    @Test
    void find_namesTheArtifactToAdd_whenNoProviderServesAnIdmintScheme() {
        assertThatThrownBy(() -> Providers.find(RangeStoreProvider.class,
                RangeStoreProvider::schemes, "jdbc", List.of(), "segment store",
                "jdbc:postgresql://db/ids"))
                .hasMessage("segment store 'jdbc:postgresql://db/ids': no backend for scheme "
                        + "'jdbc' on the class path; add the dependency io.idmint:idmint-jdbc; "
                        + "available: none");
        String[][] cases = {
            {"jdbc", "io.idmint:idmint-jdbc"}, {"etcd", "io.idmint:idmint-etcd"},
            {"etcds", "io.idmint:idmint-etcd"}, {"zk", "io.idmint:idmint-zookeeper"},
            {"zks", "io.idmint:idmint-zookeeper"}, {"redis", "io.idmint:idmint-redis"},
            {"rediss", "io.idmint:idmint-redis"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> Providers.find(RangeStoreProvider.class,
                    RangeStoreProvider::schemes, c[0], List.of(), "segment store", c[0] + ":x"))
                    .hasMessageContaining("; add the dependency " + c[1] + "; available: none");
        }
        for (String[] c : cases) {
            if (!c[0].startsWith("redis")) {
                assertThatThrownBy(() -> Providers.find(WorkerRegistryProvider.class,
                        WorkerRegistryProvider::schemes, c[0], List.of("static"), "registry",
                        c[0] + ":x"))
                        .hasMessageContaining("; add the dependency " + c[1]
                                + "; available: static");
            }
        }
    }

    @Test
    void find_redisRegistry_saysRedisServesSegmentStoresOnly() {
        assertThatThrownBy(() -> Providers.find(WorkerRegistryProvider.class,
                WorkerRegistryProvider::schemes, "redis", List.of("static"), "registry",
                "redis://h:6379"))
                .hasMessage("registry 'redis://h:6379': no backend for scheme 'redis' on the "
                        + "class path; io.idmint:idmint-redis serves segment stores only, not "
                        + "worker registries; available: static");
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
