package io.idmint.zookeeper;

import io.idmint.spi.Claim;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.support.Names;
import java.nio.charset.StandardCharsets;

/**
 * Where things live under the chroot, and what the znodes hold:
 *
 * <pre>
 * {chroot}/{namespace}/layout             persistent   layout spec, written on first use
 * {chroot}/{namespace}/dc/{d}/name        persistent   datacenter name, written on first use
 * {chroot}/{namespace}/dc/{d}/hwm/{w}     persistent   HWM, decimal Unix ms; Stat.version = token
 * {chroot}/{namespace}/dc/{d}/owner/{w}   EPHEMERAL    "{nonce} {sessionTimeoutMs} {holder}"
 * {chroot}/segments/{tag}                 persistent   a segment tag: "{next} {step}", decimal;
 *                                                       Stat.version guards each allocation
 * {chroot}/@clock                         persistent   empty; written to read the leader's clock
 *                                                       (its mtime); no namespace has an '@'
 * </pre>
 *
 * HWM znodes are never deleted: losing one would let the next holder start from zero.
 */
final class ZkNodes {

    /**
     * What an owner znode holds.
     *
     * @param nonce unique per claim, so a registry recognises an owner znode it created itself
     *     (after a lost answer) and never mistakes another claim's for its own
     * @param sessionTimeoutMillis the session timeout the claimer's server granted
     * @param holder who holds the worker, for operators
     */
    record Owner(String nonce, long sessionTimeoutMillis, String holder) {

        byte[] encode() {
            return (nonce + " " + sessionTimeoutMillis + " " + holder)
                    .getBytes(StandardCharsets.UTF_8);
        }

        static Owner decode(String path, byte[] data) throws RegistryException {
            String[] parts = new String(data, StandardCharsets.UTF_8).split(" ", 3);
            try {
                return new Owner(parts[0], Long.parseLong(parts[1]),
                        parts.length > 2 ? parts[2] : "");
            } catch (RuntimeException e) {
                throw new RegistryException(Kind.CORRUPT, "owner znode " + path + " holds '"
                        + new String(data, StandardCharsets.UTF_8)
                        + "', not '{nonce} {ttl} {holder}'", e);
            }
        }
    }

    /** The range store's znode under the chroot; no worker namespace may have this name. */
    static final String SEGMENTS = "segments";
    /** The range store's serial definitions; no worker namespace may have this name either. */
    static final String SERIALS = "serials";

    private final String chroot;

    ZkNodes(String chroot) {
        this.chroot = chroot;
    }

    /**
     * The namespace's znode. The core accepts {@code A-Z a-z 0-9 . _ -}; ZooKeeper also refuses
     * the path components {@code .} and {@code ..}, and {@link #SEGMENTS} is the range store's.
     */
    String namespace(String ns) {
        if (ns.equals(".") || ns.equals("..")) {
            throw new IllegalArgumentException("namespace '" + ns + "' cannot be a ZooKeeper "
                    + "znode name; choose another");
        }
        if (ns.equals(SEGMENTS) || ns.equals(SERIALS)) {
            throw new IllegalArgumentException("namespace '" + ns + "' is where the segment "
                    + "range store keeps its " + (ns.equals(SEGMENTS) ? "tags" : "serials")
                    + " (" + chroot + "/" + ns + "); choose another");
        }
        return chroot + "/" + ns;
    }

    /** The parent of every segment tag's znode. */
    /** The znode written to read ZooKeeper's clock. */
    String clock() {
        return chroot + "/@clock";
    }

    String segments() {
        return chroot + "/" + SEGMENTS;
    }

    /**
     * A segment tag's znode. Every valid tag ({@link Names#isValidTag}: printable ASCII, no
     * {@code /}, not {@code .} or {@code ..}) is a valid znode name.
     */
    String segment(String tag) {
        return segments() + "/" + Names.requireTag(tag);
    }

    String serials() {
        return chroot + "/" + SERIALS;
    }

    /** A serial's definition znode (a valid tag name is a valid znode name). */
    String serial(String name) {
        return serials() + "/" + Names.requireTag(name);
    }

    String layout(String ns) {
        return namespace(ns) + "/layout";
    }

    String datacenters(String ns) {
        return namespace(ns) + "/dc";
    }

    String datacenter(String ns, int dc) {
        return datacenters(ns) + "/" + dc;
    }

    String name(String ns, int dc) {
        return datacenter(ns, dc) + "/name";
    }

    String hwms(String ns, int dc) {
        return datacenter(ns, dc) + "/hwm";
    }

    String owners(String ns, int dc) {
        return datacenter(ns, dc) + "/owner";
    }

    String hwm(String ns, int dc, int worker) {
        return hwms(ns, dc) + "/" + worker;
    }

    String owner(String ns, int dc, int worker) {
        return owners(ns, dc) + "/" + worker;
    }

    /** The HWM znode of a claim's worker. */
    String hwm(Claim c) {
        return hwm(c.namespace(), c.datacenterId(), c.workerId());
    }

    /** The owner znode of a claim's worker. */
    String owner(Claim c) {
        return owner(c.namespace(), c.datacenterId(), c.workerId());
    }

    /** The HWM znode of the worker whose owner znode is {@code ownerPath}. */
    static String hwmOfOwner(String ownerPath) {
        int cut = ownerPath.lastIndexOf("/owner/");
        return ownerPath.substring(0, cut) + "/hwm/"
                + ownerPath.substring(cut + "/owner/".length());
    }

    static byte[] encodeHwm(long millis) {
        return Long.toString(millis).getBytes(StandardCharsets.US_ASCII);
    }

    static long decodeHwm(String path, byte[] data) throws RegistryException {
        String s = new String(data, StandardCharsets.US_ASCII);
        try {
            long v = Long.parseLong(s);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new RegistryException(Kind.CORRUPT, "HWM znode " + path + " holds '" + s
                + "', not a non-negative Unix time in ms");
    }

    static String text(byte[] data) {
        return new String(data, StandardCharsets.UTF_8);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
