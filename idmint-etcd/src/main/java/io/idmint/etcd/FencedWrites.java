package io.idmint.etcd;

import static io.idmint.etcd.EtcdStore.bytes;
import static io.idmint.etcd.EtcdStore.first;
import static io.idmint.etcd.EtcdStore.string;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.idmint.spi.Claim;
import io.idmint.spi.RegistryException;
import java.util.Map;

/**
 * The fenced writes of {@link EtcdRegistry}'s extend and release, and the recovery of its writes
 * in doubt. A write is one {@code Txn} that puts the HWM only while the HWM key's
 * {@code mod_revision} is the claim's token and the owner key is the one the claim created. A
 * write whose outcome is unknown is marked in doubt in the registry's record of the claim, so
 * that when a later write fails its comparison, {@link #recoverable} can tell this claim's own
 * committed write from the loss of the worker.
 */
final class FencedWrites {

    private final EtcdStore store;
    private final EtcdKeys keys;
    /** The registry's record of its claims, by HWM key (shared with it). */
    private final Map<String, Held> held;

    FencedWrites(EtcdStore store, EtcdKeys keys, Map<String, Held> held) {
        this.store = store;
        this.keys = keys;
        this.held = held;
    }

    /** The conditional write of extend and release. */
    TxnResponse write(Claim c, Held h, long hwm, boolean release)
            throws RegistryException {
        String hwmKey = keys.hwm(c);
        String ownerKey = keys.owner(c);
        Op put = Op.put(bytes(hwmKey), bytes(Long.toString(hwm)), PutOption.DEFAULT);
        String what = (release ? "release" : "extend") + " of worker " + c.workerId();
        Cmp[] compare = {
            new Cmp(bytes(hwmKey), Cmp.Op.EQUAL, CmpTarget.modRevision(c.token())),
            new Cmp(bytes(ownerKey), Cmp.Op.EQUAL, CmpTarget.createRevision(h.ownerRevision())),
        };
        Op[] otherwise = {Op.get(bytes(hwmKey), GetOption.DEFAULT),
            Op.get(bytes(ownerKey), GetOption.DEFAULT)};
        Runnable inDoubt = () -> held.computeIfPresent(hwmKey, (k, cur) ->
                cur.sameClaim(h) ? cur.inDoubt(c.token()) : cur);
        try {
            // An extend is sent again when an attempt's outcome is unknown, after marking it
            // in doubt: the re-sent Txn either commits the same write, or fails the comparison
            // because the first attempt committed, which recoverable() recognises. A release is
            // sent once: a re-sent one could not tell its own deleted owner key from a loss.
            return release ? store.txn(what, compare, new Op[] {put,
                Op.delete(bytes(ownerKey), DeleteOption.DEFAULT)}, otherwise)
                    : store.txn(what, compare, new Op[] {put}, otherwise, inDoubt);
        } catch (RegistryException e) {
            inDoubt.run();
            throw e;
        }
    }

    /**
     * After a failed comparison: the HWM key as it is now, when the only writes since the
     * caller's token were this claim's own timed-out ones (the owner key is still the one it
     * created, so nobody else could write); null when the worker was really lost.
     */
    KeyValue recoverable(Claim c, Held h, TxnResponse failed) {
        Held now = held.get(keys.hwm(c));
        KeyValue hwm = first(failed, 0);
        boolean inDoubt = now != null && now.sameClaim(h)
                && now.inDoubtToken() == c.token();
        return inDoubt && hwm != null && ownedBy(h, owner(failed)) ? hwm : null;
    }

    /** Whether {@code owner} is claim {@code h}'s owner key: its create_revision and lease. */
    static boolean ownedBy(Held h, KeyValue owner) {
        return owner != null && owner.getCreateRevision() == h.ownerRevision()
                && owner.getLease() == h.lease();
    }

    /** The owner key as a failed write read it, or null. */
    static KeyValue owner(TxnResponse failed) {
        return first(failed, 1);
    }

    /** Why a failed write lost the worker: who holds it now. */
    static String describe(TxnResponse failed) {
        KeyValue owner = owner(failed);
        return "its fencing token changed; the worker is "
                + (owner == null ? "free" : "held by " + string(owner.getValue()));
    }
}
