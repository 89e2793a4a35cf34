package io.idmint.etcd;

import static io.idmint.etcd.EtcdStore.string;

import io.etcd.jetcd.KeyValue;
import io.idmint.spi.Claim;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;

/**
 * The key names of the registry and the range store under their prefix (layout in
 * {@link io.idmint.etcd}), and values.
 */
record EtcdKeys(String prefix) {

    /** The range store's directory; no worker namespace may have this name. */
    static final String SEGMENTS = "segments";
    /** The range store's serial definitions; no worker namespace may have this name either. */
    static final String SERIALS = "serials";

    String layout(String ns) {
        return namespace(ns) + "/layout";
    }

    /** Everything of a namespace's datacenters: names, HWMs and owners. */
    String datacenters(String ns) {
        return namespace(ns) + "/dc/";
    }

    private String namespace(String ns) {
        if (ns.equals(SEGMENTS) || ns.equals(SERIALS)) {
            throw new IllegalArgumentException("namespace '" + ns + "' is where the segment "
                    + "range store keeps its " + (ns.equals(SEGMENTS) ? "tags" : "serials")
                    + " (etcd prefix " + prefix + "); choose another");
        }
        return prefix + "/" + ns;
    }

    /** Every segment tag's key starts with this. */
    String segments() {
        return prefix + "/" + SEGMENTS + "/";
    }

    /** A segment tag's key: its value is {@code "<next> <step>"}, decimal. */
    String segment(String tag) {
        return segments() + tag;
    }

    /** Every serial definition's key starts with this. */
    String serials() {
        return prefix + "/" + SERIALS + "/";
    }

    /** A serial's definition: the text as written. */
    String serial(String name) {
        return serials() + name;
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
