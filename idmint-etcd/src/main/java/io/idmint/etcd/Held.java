package io.idmint.etcd;

/**
 * What a client (an {@link EtcdRegistry}) knows of a claim it made: its lease, the owner key's
 * {@code create_revision}, the last token it wrote and the HWM written with it, and the token
 * of a write whose outcome is unknown (it timed out), or 0. Token 0: read from the owner key
 * for a claim this client did not make.
 */
record Held(long lease, long ownerRevision, long token, long hwm, long inDoubtToken) {
    /** Whether this client granted the lease, so may revoke it. */
    boolean ours() {
        return token != 0;
    }

    Held written(long newToken, long newHwm) {
        return new Held(lease, ownerRevision, newToken, newHwm, 0);
    }

    Held inDoubt(long tokenSent) {
        return new Held(lease, ownerRevision, token, hwm, tokenSent);
    }

    /** Whether both are of one claim: a key taken over keeps its create_revision. */
    boolean sameClaim(Held other) {
        return lease == other.lease && ownerRevision == other.ownerRevision;
    }
}
