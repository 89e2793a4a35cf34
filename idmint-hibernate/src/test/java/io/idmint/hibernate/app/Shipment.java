package io.idmint.hibernate.app;

import io.idmint.hibernate.IdmintId;
import io.idmint.hibernate.IdmintSegment;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;

/**
 * An entity whose key the database makes, with idmint values in columns beside it: a dense
 * number per tag, an ID as digits, and a public code a customer may see.
 */
@Entity
public class Shipment {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    @IdmintSegment("shipment")
    private long number;
    @IdmintId
    private String eventId;
    @IdmintId(code = true)
    private String trackingCode;
    private String destination;

    protected Shipment() {
    }

    public Shipment(String destination) {
        this.destination = destination;
    }

    public Long id() {
        return id;
    }

    public long number() {
        return number;
    }

    public String eventId() {
        return eventId;
    }

    public String trackingCode() {
        return trackingCode;
    }

    public void sendTo(String destination) {
        this.destination = destination;
    }
}
