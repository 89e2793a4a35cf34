package io.idmint.spring;

import io.idmint.GeneratorStatus;
import io.idmint.IdGenerator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** The idmint health indicator for Spring Boot 4 ({@code /actuator/health/idmint}). */
public class Boot4HealthIndicator implements HealthIndicator {

    private final IdGenerator ids;

    Boot4HealthIndicator(IdGenerator ids) {
        this.ids = ids;
    }

    @Override
    public Health health() {
        GeneratorStatus s = ids.status();
        return (IdmintHealth.up(s) ? Health.up() : Health.down())
                .withDetails(IdmintHealth.details(ids, s)).build();
    }
}
