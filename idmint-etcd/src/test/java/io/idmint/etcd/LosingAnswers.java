package io.idmint.etcd;

import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;

/** A store whose next Txn commits and then reports a timeout, as when the answer is lost. */
final class LosingAnswers extends EtcdStore {

    volatile boolean loseNext;

    LosingAnswers(EtcdUri uri) {
        super(uri);
    }

    @Override
    TxnResponse txn(String what, Cmp[] compare, Op[] then, Op[] otherwise)
            throws RegistryException {
        TxnResponse r = super.txn(what, compare, then, otherwise);
        if (loseNext) {
            loseNext = false;
            throw new RegistryException(Kind.UNAVAILABLE, "answer to " + what + " lost");
        }
        return r;
    }
}
