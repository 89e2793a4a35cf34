package io.idmint.etcd;

import io.etcd.jetcd.KeyValue;
import io.idmint.WorkerRegistries;
import io.idmint.segment.RangeStores;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.fixture.EtcdServer;
import java.nio.file.Path;

/**
 * Opening registries and range stores under a test class's prefix, and what tests do to etcd
 * behind their backs.
 */
final class EtcdTestStores {

    private EtcdTestStores() {
    }

    /** A new client, through the URI and ServiceLoader as a node would open it. */
    static WorkerRegistry open(EtcdServer etcd) {
        return WorkerRegistries.open(etcd.uri("5s"), Path.of("unused"));
    }

    /** A new range store client, through the URI and ServiceLoader as a node would open it. */
    static RangeStore openRangeStore(EtcdServer etcd, String timeout) {
        return RangeStores.open(etcd.uri(timeout), Path.of("unused"));
    }

    /** Revokes every lease holding a worker of the namespace, as if each had expired. */
    static int expireLeases(EtcdServer etcd, String namespace) throws RegistryException {
        return expireLeases(etcd.uri("5s"), namespace);
    }

    /** Revokes every lease holding a worker of the namespace, through the store {@code uri}. */
    static int expireLeases(String uri, String namespace) throws RegistryException {
        int n = 0;
        EtcdUri parsed = EtcdUri.parse(uri);
        try (EtcdStore admin = new EtcdStore(parsed)) {
            for (KeyValue kv : admin.getPrefix(parsed.prefix() + "/" + namespace + "/")
                    .getKvs()) {
                if (kv.getLease() != 0) {
                    admin.revokeQuietly(kv.getLease());
                    n++;
                }
            }
        }
        return n;
    }
}
