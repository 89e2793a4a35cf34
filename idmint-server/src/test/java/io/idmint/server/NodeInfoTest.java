package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NodeInfoTest {

    @Test
    void redact_hidesPasswordsAndSecretsOnly() {
        assertThat(NodeInfo.redact("static:")).isEqualTo("static:");
        assertThat(NodeInfo.redact("etcd://idmint:s3cr3t@10.0.0.1:2379,10.0.0.2:2379/prod"))
                .isEqualTo("etcd://idmint:***@10.0.0.1:2379,10.0.0.2:2379/prod");
        assertThat(NodeInfo.redact("jdbc:postgresql://db:5432/ids?user=app&password=pw&ssl=1"))
                .isEqualTo("jdbc:postgresql://db:5432/ids?user=app&password=***&ssl=1");
        assertThat(NodeInfo.redact("jdbc:mariadb://db/ids;Password=pw;x=1"))
                .isEqualTo("jdbc:mariadb://db/ids;Password=***;x=1");
        assertThat(NodeInfo.redact("zk://zk1:2181/ns?token=abc"))
                .isEqualTo("zk://zk1:2181/ns?token=***");
    }
}
