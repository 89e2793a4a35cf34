package io.idmint.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The etcd calls the registry makes, each bounded by the URI's timeout. A call that does not
 * answer in time, or fails, is {@link Kind#UNAVAILABLE}: its outcome is unknown. Every gRPC call
 * also carries that deadline, so a request queued while the store is away is dropped instead of
 * being sent, stale, once it is back. (Not final only so that a test can make a committed
 * write look timed out.)
 */
class EtcdStore implements AutoCloseable {

    private final EtcdUri uri;
    private final Client client;

    EtcdStore(EtcdUri uri) {
        this.uri = uri;
        // jetcd builds its channel, executor and Vert.x instance lazily, on the first call.
        this.client = EtcdClients.build(uri, new Deadline(uri.timeout().toNanos()));
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    static String string(ByteSequence b) {
        return b.toString(StandardCharsets.UTF_8);
    }

    GetResponse get(String key) throws RegistryException {
        return await("get " + key, () -> client.getKVClient().get(bytes(key)));
    }

    GetResponse getPrefix(String prefix) throws RegistryException {
        return await("get " + prefix + "*", () -> client.getKVClient().get(bytes(prefix),
                GetOption.builder().isPrefix(true).build()));
    }

    TxnResponse txn(String what, Cmp[] compare, Op[] then, Op[] otherwise)
            throws RegistryException {
        return await(what, () -> client.getKVClient().txn().If(compare).Then(then)
                .Else(otherwise).commit());
    }

    /** Grants a lease; returns its ID and granted TTL (seconds). */
    long[] grant(long ttlSeconds) throws RegistryException {
        var r = await("lease grant", () -> client.getLeaseClient().grant(ttlSeconds));
        return new long[] {r.getID(), r.getTTL()};
    }

    /** Renews a lease once; false when the lease no longer exists (it expired or was revoked). */
    boolean keepAliveOnce(long leaseId) throws RegistryException {
        CompletableFuture<?> f = client.getLeaseClient().keepAliveOnce(leaseId);
        try {
            f.get(uri.timeout().toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (ExecutionException e) {
            if (leaseNotFound(e.getCause())) {
                return false;
            }
            throw unavailable("lease keepalive", e.getCause());
        } catch (TimeoutException | InterruptedException | CancellationException e) {
            throw timedOut("lease keepalive", f, e);
        }
    }

    /** Remaining TTL of a lease in seconds, or -1 when it is gone. */
    long timeToLive(long leaseId) throws RegistryException {
        return await("lease ttl", () -> client.getLeaseClient().timeToLive(leaseId,
                LeaseOption.DEFAULT)).getTTL();
    }

    /** Revokes a lease, ignoring failure: an unrevoked lease still expires with its TTL. */
    void revokeQuietly(long leaseId) {
        try {
            await("lease revoke", () -> client.getLeaseClient().revoke(leaseId));
        } catch (RegistryException e) {
            // expires by itself
        }
    }

    private <T> T await(String what, Supplier<CompletableFuture<T>> call) throws RegistryException {
        CompletableFuture<T> f;
        try {
            f = call.get();
        } catch (RuntimeException e) {
            throw unavailable(what, e);
        }
        try {
            return f.get(uri.timeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw unavailable(what, e.getCause());
        } catch (TimeoutException | InterruptedException | CancellationException e) {
            throw timedOut(what, f, e);
        }
    }

    private RegistryException timedOut(String what, CompletableFuture<?> f, Exception e) {
        f.cancel(true);
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return new RegistryException(Kind.UNAVAILABLE, where() + ": interrupted during "
                    + what);
        }
        return new RegistryException(Kind.UNAVAILABLE, where() + " did not answer " + what
                + " within " + uri.timeout().toMillis() + " ms");
    }

    private RegistryException unavailable(String what, Throwable cause) {
        String explained = EtcdClients.explain(uri, cause);
        return new RegistryException(Kind.UNAVAILABLE, where() + " failed " + what + ": "
                + (explained != null ? explained : shortMessage(cause)), cause);
    }

    /** The members, for messages. */
    private String where() {
        return "etcd " + String.join(",", uri.endpoints());
    }

    private static boolean leaseNotFound(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof EtcdException ee && ee.getErrorCode() == ErrorCode.NOT_FOUND) {
                return true;
            }
        }
        return false;
    }

    private static String shortMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getMessage() == null) {
            root = root.getCause();
        }
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return m.length() > 200 ? m.substring(0, 200) + "…" : m;
    }

    @Override
    public void close() {
        client.close();
    }

    /** Puts the registry's timeout on every gRPC call that has no deadline of its own. */
    private static final class Deadline implements ClientInterceptor {
        private final long nanos;

        Deadline(long nanos) {
            this.nanos = nanos;
        }

        @Override
        public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method,
                CallOptions options, Channel next) {
            return next.newCall(method, options.getDeadline() != null ? options
                    : options.withDeadlineAfter(nanos, TimeUnit.NANOSECONDS));
        }
    }
}
