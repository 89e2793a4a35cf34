package io.idmint.etcd;

import io.etcd.jetcd.KeyValue;
import io.idmint.WorkerRegistries;
import io.idmint.segment.RangeStores;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.EtcdCluster;
import java.nio.file.Path;

/**
 * Opening registries and range stores on a test cluster, and what tests do to etcd behind their
 * backs.
 */
final class EtcdTestStores {

    static final String PREFIX = "/idmint-test";

    private EtcdTestStores() {
    }

    static String uri(EtcdCluster etcd, String timeout) {
        return "etcd://" + etcd.endpoints() + PREFIX + "?timeout=" + timeout;
    }

    /** A new client, through the URI and ServiceLoader as a node would open it. */
    static WorkerRegistry open(EtcdCluster etcd) {
        return WorkerRegistries.open(uri(etcd, "5s"), Path.of("unused"));
    }

    /** A new range store client, through the URI and ServiceLoader as a node would open it. */
    static RangeStore openRangeStore(EtcdCluster etcd, String timeout) {
        return RangeStores.open(uri(etcd, timeout), Path.of("unused"));
    }

    /** Revokes every lease holding a worker of the namespace, as if each had expired. */
    static int expireLeases(EtcdCluster etcd, String namespace) throws RegistryException {
        return expireLeases(uri(etcd, "5s"), namespace);
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
