package io.idmint.mybatis.app;

import io.idmint.entity.IdmintId;
import io.idmint.entity.IdmintSegment;

/** A row whose key, public code and dense number idmint fills before its insert. */
public class Voucher {

    @IdmintId
    public Long id;

    @IdmintId(code = true)
    public String code;

    @IdmintSegment("voucher-number")
    public long number;

    public String note;

    public Voucher(String note) {
        this.note = note;
    }

    /** For MyBatis. */
    public Voucher() {
    }
}
