package io.idmint.spring;

import io.idmint.GeneratorStatus;
import io.idmint.IdGenerator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/** The idmint health indicator for Spring Boot 3 ({@code /actuator/health/idmint}). */
public class Boot3HealthIndicator implements HealthIndicator {

    private final IdGenerator ids;

    Boot3HealthIndicator(IdGenerator ids) {
        this.ids = ids;
    }

    @Override
    public Health health() {
        GeneratorStatus s = ids.status();
        return (IdmintHealth.up(s) ? Health.up() : Health.down())
                .withDetails(IdmintHealth.details(ids, s)).build();
    }
}
