package io.idmint.hibernate.app;

import io.idmint.hibernate.IdmintSegment;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** An entity whose ID is dense per tag: the "invoice" tag, created on first use. */
@Entity
public class Invoice {

    @Id
    @IdmintSegment("invoice")
    private Long id;
    private String ref;

    protected Invoice() {
    }

    public Invoice(String ref) {
        this.ref = ref;
    }

    public Long id() {
        return id;
    }
}
