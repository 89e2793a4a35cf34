package io.idmint.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store that loses the answers of {@code Txn} attempts, as when a member hangs right after
 * committing: the attempt takes effect, but never hears back, and runs out of time.
 */
final class LosingAnswers extends EtcdStore {

    /** How many of the next attempts that commit lose their answer. */
    final AtomicInteger loseCommitted = new AtomicInteger();
    /** Whether every attempt loses its answer, committed or not. */
    volatile boolean loseAll;
    /** Attempts sent so far. */
    final AtomicInteger sent = new AtomicInteger();

    LosingAnswers(EtcdUri uri) {
        super(uri);
    }

    @Override
    CompletableFuture<TxnResponse> send(Client member, Cmp[] compare, Op[] then, Op[] otherwise) {
        sent.incrementAndGet();
        return super.send(member, compare, then, otherwise).thenCompose(r -> loseAll
                || r.isSucceeded() && loseCommitted.getAndUpdate(n -> Math.max(0, n - 1)) > 0
                ? new CompletableFuture<>() : CompletableFuture.completedFuture(r));
    }
}
