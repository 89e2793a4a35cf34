package io.idmint.etcd;

import static io.idmint.etcd.EtcdStore.string;

import io.etcd.jetcd.KeyValue;
import io.idmint.spi.Claim;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;

/** The registry's key names under its prefix (layout in {@link io.idmint.etcd}), and values. */
record EtcdKeys(String prefix) {

    String layout(String ns) {
        return prefix + "/" + ns + "/layout";
    }

    /** Everything of a namespace's datacenters: names, HWMs and owners. */
    String datacenters(String ns) {
        return prefix + "/" + ns + "/dc/";
    }

    /** Everything of one datacenter. */
    String datacenter(String ns, int dc) {
        return datacenters(ns) + dc + "/";
    }

    String name(String ns, int dc) {
        return datacenter(ns, dc) + "name";
    }

    String hwm(String ns, int dc, int worker) {
        return datacenter(ns, dc) + "hwm/" + worker;
    }

    String hwm(Claim c) {
        return hwm(c.namespace(), c.datacenterId(), c.workerId());
    }

    String owner(String ns, int dc, int worker) {
        return datacenter(ns, dc) + "owner/" + worker;
    }

    String owner(Claim c) {
        return owner(c.namespace(), c.datacenterId(), c.workerId());
    }

    /** A stored high-water mark: decimal Unix ms. */
    static long hwmValue(KeyValue kv) throws RegistryException {
        String s = string(kv.getValue());
        try {
            long v = Long.parseLong(s);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new RegistryException(Kind.CORRUPT, "etcd key " + string(kv.getKey())
                + " holds '" + s + "', not a high-water mark in Unix ms");
    }

    /** A datacenter or worker ID in a key name. */
    static int number(String s, KeyValue kv) throws RegistryException {
        try {
            int n = Integer.parseInt(s);
            if (n >= 0 && s.equals(Integer.toString(n))) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new RegistryException(Kind.CORRUPT, "unexpected etcd key " + string(kv.getKey())
                + " in the registry's key space");
    }
}
