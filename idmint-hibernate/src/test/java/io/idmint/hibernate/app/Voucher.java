package io.idmint.hibernate.app;

import io.idmint.hibernate.IdmintId;
import io.idmint.hibernate.IdmintSerial;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** An entity with a number people read beside its key: the serial "voucher". */
@Entity
public class Voucher {

    @Id
    @IdmintId
    private Long id;
    @IdmintSerial("voucher")
    private String number;

    protected Voucher() {
    }

    public static Voucher create() {
        return new Voucher();
    }

    public String number() {
        return number;
    }
}
