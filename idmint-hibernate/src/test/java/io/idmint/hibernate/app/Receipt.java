package io.idmint.hibernate.app;

import io.idmint.hibernate.IdmintSegment;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** An entity whose key is dense per tag: the "receipt" tag, created on its first insert. */
@Entity
public class Receipt {

    @Id
    @IdmintSegment("receipt")
    private Long id;
    private String note;

    protected Receipt() {
    }

    public Receipt(String note) {
        this.note = note;
    }

    public Long id() {
        return id;
    }
}
