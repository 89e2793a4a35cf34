package io.idmint.hibernate.app;

import io.idmint.hibernate.IdmintId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** An entity whose ID is a Snowflake-family ID. */
@Entity
public class PurchaseOrder {

    @Id
    @IdmintId
    private Long id;
    private String item;

    protected PurchaseOrder() {
    }

    public PurchaseOrder(String item) {
        this.item = item;
    }

    public Long id() {
        return id;
    }

    public String item() {
        return item;
    }
}
