package io.idmint.hibernate.app;

import io.idmint.hibernate.IdmintId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.util.UUID;

/** An entity keyed by a fenced UUIDv7 (a {@code uuid} column): the ID's UUID, not a random one. */
@Entity
public class Reading {

    @Id
    @IdmintId
    private UUID id;
    private String sensor;

    protected Reading() {
    }

    public Reading(String sensor) {
        this.sensor = sensor;
    }

    public UUID id() {
        return id;
    }
}
