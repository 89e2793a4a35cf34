package io.idmint.etcd;

import static io.idmint.etcd.EtcdStore.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Client;
import io.idmint.Layout;
import io.idmint.WorkerRegistries;
import io.idmint.segment.RangeStores;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRegistry;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * etcd's user authentication over TLS, on a real member: a user whose role may read and write
 * the key prefix runs the registry and the segment store; a wrong password and a user without
 * that permission fail with messages that say so; and a token etcd stops accepting (the auth
 * store changed) is replaced without the caller noticing.
 */
class EtcdAuthIT {

    private static final String PASSWORD = "idmint-secret";

    private static EtcdSecured secured;

    private final String namespace = "t" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void start() throws Exception {
        secured = new EtcdSecured(false);
        secured.enableAuth("idmint", PASSWORD);
    }

    @AfterAll
    static void stop() {
        secured.close();
    }

    @Test
    void userWithPassword_runsRegistryAndSegments() throws Exception {
        String uri = userUri("idmint", PASSWORD);
        try (WorkerRegistry r = WorkerRegistries.open(uri, Path.of("unused"))) {
            Claim c = r.claim(request());
            long token = r.extend(c, System.currentTimeMillis() + 1_000);
            r.release(c.withToken(token), c.hwmMillis());
        }
        try (RangeStore s = RangeStores.open(uri, Path.of("unused"))) {
            s.create(namespace, 1, 10);
            assertThat(s.allocate(namespace, 10).start()).isEqualTo(1);
        }
    }

    @Test
    void wrongPassword_failsSayingEtcdRefusedTheUser() throws Exception {
        try (WorkerRegistry r = WorkerRegistries.open(userUri("idmint", "wrong"), Path.of("."))) {
            assertThatThrownBy(() -> r.claim(request())).isInstanceOf(RegistryException.class)
                    .hasMessageContaining("etcd refused user idmint")
                    .hasMessageContaining("authentication failed");
        }
    }

    @Test
    void userWithoutPermissionOnThePrefix_failsSayingSo() throws Exception {
        try (Client root = secured.admin(EtcdSecured.ROOT_PASSWORD)) {
            EtcdSecured.addUser(root.getAuthClient(), "elsewhere", "pw", "/elsewhere/");
        }
        try (WorkerRegistry r = WorkerRegistries.open(userUri("elsewhere", "pw"), Path.of("."))) {
            assertThatThrownBy(() -> r.claim(request())).isInstanceOf(RegistryException.class)
                    .hasMessageContaining("etcd denied user elsewhere access under "
                            + EtcdSecured.PREFIX)
                    .hasMessageContaining("permission denied");
        }
    }

    @Test
    void tokenRejectedAfterAnAuthChange_isRenewedWithoutAnError() throws Exception {
        try (WorkerRegistry r = WorkerRegistries.open(userUri("idmint", PASSWORD), Path.of("."))) {
            Claim c = r.claim(request());
            try (Client root = secured.admin(EtcdSecured.ROOT_PASSWORD)) {
                // Any change to users or roles moves etcd's auth revision: every token issued
                // before it is refused ("revision of auth store is old").
                root.getAuthClient().userAdd(bytes("u" + namespace), bytes("pw"))
                        .get(10, TimeUnit.SECONDS);
            }
            long token = r.extend(c, System.currentTimeMillis() + 1_000);
            assertThat(r.list(namespace)).hasSize(1);
            r.release(c.withToken(token), c.hwmMillis());
        }
    }

    private String userUri(String user, String password) throws Exception {
        return secured.uri("3s", "&user=" + user + "&password-file="
                + secured.passwordFile(user + "-" + password, password));
    }

    private ClaimRequest request() {
        return new ClaimRequest(namespace, Layout.SNOWFLAKE.spec(), 1, "", 31, -1, 30_000,
                "auth-test");
    }
}
