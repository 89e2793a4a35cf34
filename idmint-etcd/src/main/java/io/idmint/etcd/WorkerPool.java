package io.idmint.etcd;

import static io.idmint.etcd.EtcdStore.string;

import io.etcd.jetcd.KeyValue;
import io.idmint.spi.RegistryException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The stored workers of one datacenter, as one range read (one revision) returned them. */
final class WorkerPool {

    private final Map<Integer, KeyValue> hwmKeys = new TreeMap<>();
    private final Map<Integer, Long> hwms = new TreeMap<>();
    private final Map<Integer, KeyValue> owners = new TreeMap<>();

    /** Sorts the keys under {@code base} (a datacenter's prefix) into HWMs and owners. */
    WorkerPool(String base, List<KeyValue> kvs) throws RegistryException {
        for (KeyValue kv : kvs) {
            String rest = string(kv.getKey()).substring(base.length());
            if (rest.startsWith("hwm/")) {
                int w = EtcdKeys.number(rest.substring(4), kv);
                hwmKeys.put(w, kv);
                hwms.put(w, EtcdKeys.hwmValue(kv));
            } else if (rest.startsWith("owner/")) {
                owners.put(EtcdKeys.number(rest.substring(6), kv), kv);
            }
        }
    }

    /** The worker's HWM key as read, or null when it was never claimed. */
    KeyValue hwmKey(int worker) {
        return hwmKeys.get(worker);
    }

    /** The worker's HWM; 0 when it was never claimed. */
    long hwm(int worker) {
        return hwms.getOrDefault(worker, 0L);
    }

    /**
     * The preferred worker when free, else the coldest free one (lowest HWM, lowest ID on
     * ties), or -1 when all of {@code 0..maxWorkerId} are held.
     */
    int choose(int maxWorkerId, int preferred) {
        if (preferred >= 0 && !owners.containsKey(preferred)) {
            return preferred;
        }
        int best = -1;
        for (Map.Entry<Integer, Long> e : hwms.entrySet()) {
            int w = e.getKey();
            boolean free = w <= maxWorkerId && !owners.containsKey(w);
            if (free && (best < 0 || e.getValue() < hwm(best))) {
                best = w;
            }
        }
        // Never-claimed workers have HWM 0; this scan ends after at most |stored| + 1 steps.
        for (int w = 0; w >= 0 && w <= maxWorkerId; w++) {
            if (!hwms.containsKey(w) && !owners.containsKey(w)) {
                if (best < 0 || hwm(best) > 0 || w < best) {
                    best = w;
                }
                break;
            }
        }
        return best;
    }
}
