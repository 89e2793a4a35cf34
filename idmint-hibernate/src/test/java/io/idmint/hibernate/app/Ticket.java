package io.idmint.hibernate.app;

import io.idmint.hibernate.IdmintSegment;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** An entity whose tag must exist already (auto-creation off). */
@Entity
public class Ticket {

    @Id
    @IdmintSegment(value = "ticket", autoCreate = false)
    private Long id;

    public Long id() {
        return id;
    }
}
