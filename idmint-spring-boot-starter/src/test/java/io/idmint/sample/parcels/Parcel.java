package io.idmint.sample.parcels;

import io.idmint.entity.IdmintId;
import io.idmint.entity.IdmintSegment;
import org.springframework.data.annotation.Id;

/**
 * A mutable aggregate: its key, a public tracking code and a dense label number, all filled by
 * idmint before its first insert.
 */
public class Parcel {

    @Id
    @IdmintId
    public Long id;

    @IdmintId(code = true)
    public String trackingCode;

    @IdmintSegment("parcel-label")
    public long label;

    public String note;

    public Parcel(String note) {
        this.note = note;
    }

    /** For Spring Data JDBC. */
    Parcel() {
    }
}
