package io.idmint.etcd;

import io.idmint.WorkerRegistries;
import io.idmint.segment.RangeStores;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RangeStore;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.RangeStoreContract;
import io.idmint.testkit.WorkerRegistryContract;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * The registry and range store contracts once over {@code etcds://} with a client certificate
 * and an etcd user whose role covers only the key prefix.
 */
class EtcdSecuredContractIT {

    private static EtcdSecured secured;
    private static String uri;

    @BeforeAll
    static void start() throws Exception {
        secured = new EtcdSecured(true);
        secured.enableAuth("idmint", "contract-pw");
        uri = secured.uri("5s", secured.clientCertificate() + "&user=idmint&password-file="
                + secured.passwordFile("contract", "contract-pw"));
    }

    @AfterAll
    static void stop() {
        secured.close();
    }

    @Nested
    class Registry extends WorkerRegistryContract {

        @Override
        protected WorkerRegistry newClient() {
            return WorkerRegistries.open(uri, Path.of("unused"));
        }

        /** A closed client's lease lives on for its TTL; expire it instead of waiting. */
        @Override
        protected Claim awaitClaim(ClaimRequest request) throws Exception {
            EtcdTestStores.expireLeases(uri, namespace);
            return connect().claim(request);
        }
    }

    @Nested
    class Ranges extends RangeStoreContract {

        @Override
        protected RangeStore newClient() {
            return RangeStores.open(uri, Path.of("unused"));
        }

        /** The plain-text contract races 500 per client already; here TLS and auth count. */
        @Override
        protected int allocationsPerThread() {
            return 100;
        }
    }
}
