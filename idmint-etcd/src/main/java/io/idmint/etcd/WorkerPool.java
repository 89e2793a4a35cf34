package io.idmint.etcd;

import static io.idmint.etcd.EtcdStore.string;

import io.etcd.jetcd.KeyValue;
import io.idmint.spi.RegistryException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/** The stored workers of one datacenter, as one range read (one revision) returned them. */
final class WorkerPool {

    private final Map<Integer, KeyValue> hwmKeys = new TreeMap<>();
    private final Map<Integer, Long> hwms = new TreeMap<>();
    private final Map<Integer, KeyValue> owners = new TreeMap<>();
    private final Map<Integer, KeyValue> abandoned = new TreeMap<>();

    /**
     * Sorts the keys under {@code base} (a datacenter's prefix) into HWMs and owners; an owner
     * key {@code abandonedHere} accepts counts as free, to be taken over.
     */
    WorkerPool(String base, List<KeyValue> kvs, Predicate<KeyValue> abandonedHere)
            throws RegistryException {
        for (KeyValue kv : kvs) {
            String rest = string(kv.getKey()).substring(base.length());
            if (rest.startsWith("hwm/")) {
                int w = EtcdKeys.number(rest.substring(4), kv);
                hwmKeys.put(w, kv);
                hwms.put(w, EtcdKeys.hwmValue(kv));
            } else if (rest.startsWith("owner/")) {
                int w = EtcdKeys.number(rest.substring(6), kv);
                (abandonedHere.test(kv) ? abandoned : owners).put(w, kv);
            }
        }
    }

    /** The worker's HWM key as read, or null when it was never claimed. */
    KeyValue hwmKey(int worker) {
        return hwmKeys.get(worker);
    }

    /** The owner key of a claim this client abandoned on the worker, as read, or null. */
    KeyValue abandonedOwner(int worker) {
        return abandoned.get(worker);
    }

    /** Whether {@code ownerKey} was read as an abandoned claim's owner key. */
    boolean retakes(String ownerKey) {
        return abandoned.values().stream().anyMatch(kv -> string(kv.getKey()).equals(ownerKey));
    }

    /** The worker's HWM; 0 when it was never claimed. */
    long hwm(int worker) {
        return hwms.getOrDefault(worker, 0L);
    }

    /**
     * The preferred worker when free, else the lowest free one whose HWM is at most
     * {@code nowMillis} (never-claimed ones count as 0), else the coldest free one (lowest HWM,
     * lowest ID on ties), or -1 when all of {@code 0..maxWorkerId} are held.
     */
    int choose(int maxWorkerId, int preferred, long nowMillis) {
        if (preferred >= 0 && !owners.containsKey(preferred)) {
            return preferred;
        }
        int coldest = -1;
        // Stops at the first never-claimed ID: at most |stored| + 1 steps however wide the field.
        for (int w = 0; w >= 0 && w <= maxWorkerId; w++) {
            if (owners.containsKey(w)) {
                continue;
            }
            if (hwm(w) <= nowMillis) {
                return w;
            }
            if (coldest < 0 || hwm(w) < hwm(coldest)) {
                coldest = w;
            }
        }
        return coldest;
    }
}
