package io.idmint.spring;

import io.idmint.GeneratorStatus;
import io.idmint.IdGenerator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the health indicators report, the same on every Spring Boot: UP while IDs can be issued
 * (the lease is active or degraded with runway left), DOWN otherwise, with the lease state,
 * runway, clock offset and worker.
 */
final class IdmintHealth {

    private IdmintHealth() {
    }

    static boolean up(GeneratorStatus s) {
        return s.ready();
    }

    static Map<String, Object> details(IdGenerator ids, GeneratorStatus s) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("state", s.state().name());
        d.put("runwayMillis", s.runwayMillis());
        d.put("clockOffsetMillis", s.clockOffsetMillis());
        d.put("fleetSkewMillis", s.fleetSkewMillis());
        if (s.reason() != null) {
            d.put("reason", s.reason().name());
        }
        d.put("datacenter", s.datacenterId());
        d.put("worker", s.workerId());
        d.put("workers", s.workers().size());
        d.put("layout", ids.layout().toString());
        d.put("detail", s.detail());
        return d;
    }
}
