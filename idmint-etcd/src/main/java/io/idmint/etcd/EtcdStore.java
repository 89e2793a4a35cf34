package io.idmint.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
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
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The etcd calls the registry and the range store make, each bounded by the URI's timeout and
 * made of <em>attempts</em>, each on one member (docs/registries.md, "etcd: deadlines and
 * members"). An attempt that does not answer within a quarter of the timeout, or fails, moves
 * the call to another member ({@link Members}); calls that are safe to send twice are sent again
 * there while the timeout lasts. A call that gets no answer in time, or fails, is
 * {@link Kind#UNAVAILABLE}: its outcome is unknown. Every gRPC call also carries the timeout as
 * its deadline, so a request queued while a member is away is dropped instead of being sent,
 * stale, once it is back. (Not final only so that a test can make a committed write look
 * timed out.)
 */
class EtcdStore implements AutoCloseable {

    /** The pause before another round of attempts when every member failed at once. */
    private static final long ROUND_PAUSE_NANOS = 50_000_000;

    /** For a call that is sent again as it is: a read, or a write that may be repeated. */
    static final Runnable RESEND = () -> { };

    private final EtcdUri uri;
    private final ExecutorService executor;
    /** One client per member, in the URI's order. */
    private final List<Client> clients;
    private final Members members;
    private final long timeoutNanos;
    private final long attemptNanos;

    EtcdStore(EtcdUri uri) {
        this.uri = uri;
        this.timeoutNanos = uri.timeout().toNanos();
        this.attemptNanos = attemptNanos(timeoutNanos);
        this.executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "idmint-etcd");
            t.setDaemon(true);
            return t;
        });
        // jetcd builds each channel lazily, on the first call to its member.
        Deadline deadline = new Deadline(timeoutNanos);
        this.clients = uri.endpoints().stream()
                .map(e -> EtcdClients.build(uri, e, executor, deadline)).toList();
        this.members = new Members(clients.size(), timeoutNanos);
    }

    /** A quarter of the call's timeout, but at least 100 ms (or the whole timeout if less). */
    static long attemptNanos(long timeoutNanos) {
        return Math.max(timeoutNanos / 4, Math.min(timeoutNanos, 100_000_000L));
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    static String string(ByteSequence b) {
        return b.toString(StandardCharsets.UTF_8);
    }

    /** The first key that get number {@code get} of a {@code Txn}'s answer found, or null. */
    static KeyValue first(TxnResponse t, int get) {
        List<KeyValue> kvs = t.getGetResponses().get(get).getKvs();
        return kvs.isEmpty() ? null : kvs.get(0);
    }

    GetResponse get(String key) throws RegistryException {
        return call("get " + key, RESEND, c -> c.getKVClient().get(bytes(key)));
    }

    GetResponse getPrefix(String prefix) throws RegistryException {
        return call("get " + prefix + "*", RESEND, c -> c.getKVClient().get(bytes(prefix),
                GetOption.builder().isPrefix(true).build()));
    }

    /**
     * One {@code Txn}, sent once, with the whole timeout: for writes that could not tell their
     * own earlier attempt from another client's write.
     */
    TxnResponse txn(String what, Cmp[] compare, Op[] then, Op[] otherwise)
            throws RegistryException {
        return call(what, null, c -> send(c, compare, then, otherwise));
    }

    /**
     * A {@code Txn} that is sent again, to another member, when an attempt's outcome is unknown;
     * {@code beforeResend} runs before each re-send. For writes whose caller recognises its own
     * earlier attempt in a failed comparison (docs/registries.md, "etcd: deadlines and
     * members").
     */
    TxnResponse txn(String what, Cmp[] compare, Op[] then, Op[] otherwise, Runnable beforeResend)
            throws RegistryException {
        return call(what, beforeResend, c -> send(c, compare, then, otherwise));
    }

    /** Sends one attempt of a {@code Txn} to one member. */
    CompletableFuture<TxnResponse> send(Client member, Cmp[] compare, Op[] then, Op[] otherwise) {
        return member.getKVClient().txn().If(compare).Then(then).Else(otherwise).commit();
    }

    /**
     * Grants a lease; returns its ID and granted TTL (seconds). Sent again when an attempt's
     * outcome is unknown: a lease granted by a lost attempt holds no key and expires with its TTL.
     */
    long[] grant(long ttlSeconds) throws RegistryException {
        var r = call("lease grant", RESEND, c -> c.getLeaseClient().grant(ttlSeconds));
        return new long[] {r.getID(), r.getTTL()};
    }

    /** Renews a lease once; false when the lease no longer exists (it expired or was revoked). */
    boolean keepAliveOnce(long leaseId) throws RegistryException {
        try {
            call("lease keepalive", RESEND, c -> c.getLeaseClient().keepAliveOnce(leaseId));
            return true;
        } catch (RegistryException e) {
            if (leaseNotFound(e.getCause())) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Remaining TTLs of leases in seconds, -1 for one that is gone, asked all at once: one round
     * trip for a namespace of a thousand held workers rather than a thousand (docs/testing.md,
     * "Scale run").
     */
    long[] timeToLive(long[] leaseIds) throws RegistryException {
        return call("lease ttl", RESEND, c -> {
            List<CompletableFuture<Long>> asked = new java.util.ArrayList<>(leaseIds.length);
            for (long id : leaseIds) {
                asked.add(c.getLeaseClient().timeToLive(id, LeaseOption.DEFAULT)
                        .thenApply(r -> r.getTTL()));
            }
            return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new))
                    .thenApply(done -> asked.stream().mapToLong(CompletableFuture::join)
                            .toArray());
        });
    }

    /** Revokes a lease, ignoring failure: an unrevoked lease still expires with its TTL. */
    void revokeQuietly(long leaseId) {
        try {
            call("lease revoke", RESEND, c -> c.getLeaseClient().revoke(leaseId));
        } catch (RegistryException e) {
            // expires by itself
        }
    }

    /**
     * Sends the call to the current member; when that attempt has not answered within
     * {@code attemptNanos}, or failed, sends it again to the next member ({@link Members}) while
     * the timeout lasts, after running {@code resend}. Attempts are not abandoned: the first
     * answer of any of them is the call's, so a slow member that answers late still counts. With
     * {@code resend} null, one attempt with the whole timeout.
     */
    private <T> T call(String what, Runnable resend, Function<Client, CompletableFuture<T>> send)
            throws RegistryException {
        Map<CompletableFuture<T>, Integer> pending = new LinkedHashMap<>();
        int first = members.current();
        CompletableFuture<T> newest = attempt(send, first);
        pending.put(newest, first);
        int attempts = 1;
        // From the first send on: building a member's channel on its first call is not counted.
        long start = System.nanoTime();
        long end = start + timeoutNanos;
        Throwable failure = null;
        try {
            for (;;) {
                if (newest == null && resend != null
                        && end - System.nanoTime() >= attemptNanos / 2) {
                    if (failure != null && attempts % clients.size() == 0) {
                        pause(ROUND_PAUSE_NANOS); // every member failed at once
                    }
                    resend.run();
                    int m = members.current();
                    newest = attempt(send, m);
                    pending.put(newest, m);
                    attempts++;
                } else if (newest == null && pending.isEmpty()) {
                    throw failed(what, failure, false, attempts, start);
                }
                long left = end - System.nanoTime();
                if (!await(pending.keySet(), newest != null && resend != null
                        ? Math.min(attemptNanos, left) : left)) {
                    if (end - System.nanoTime() <= 0 || newest == null) {
                        throw failed(what, failure, true, attempts, start);
                    }
                    members.failed(pending.get(newest), true, System.nanoTime());
                    newest = null;
                    failure = null;
                    continue;
                }
                for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
                    var attempt = it.next();
                    if (!attempt.getKey().isDone()) {
                        continue;
                    }
                    it.remove();
                    try {
                        T answer = attempt.getKey().join();
                        members.answered(attempt.getValue());
                        return answer;
                    } catch (CompletionException | CancellationException e) {
                        failure = e.getCause() != null ? e.getCause() : e;
                        members.failed(attempt.getValue(),
                                code(failure) == ErrorCode.DEADLINE_EXCEEDED, System.nanoTime());
                        if (!worthAnother(failure)) {
                            throw failed(what, failure, false, attempts, start);
                        }
                        newest = attempt.getKey() == newest ? null : newest;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RegistryException(Kind.UNAVAILABLE, where() + ": interrupted during "
                    + what);
        } finally {
            pending.keySet().forEach(f -> f.cancel(true));
        }
    }

    private <T> CompletableFuture<T> attempt(Function<Client, CompletableFuture<T>> send,
            int member) {
        try {
            return send.apply(clients.get(member));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Waits until one of {@code attempts} completes; false when none did in time. */
    private static boolean await(Collection<? extends CompletableFuture<?>> attempts,
            long nanos) throws InterruptedException {
        if (nanos <= 0) {
            return attempts.stream().anyMatch(CompletableFuture::isDone);
        }
        try {
            CompletableFuture.anyOf(attempts.toArray(CompletableFuture[]::new))
                    .get(nanos, TimeUnit.NANOSECONDS);
        } catch (ExecutionException | CancellationException e) {
            // one failed: the caller looks at it
        } catch (TimeoutException e) {
            return false;
        }
        return true;
    }

    private static void pause(long nanos) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(nanos);
    }

    /**
     * Whether another member may answer where this attempt failed: not for TLS or authentication
     * trouble, a missing lease, or a call etcd refused; yes for no answer, no connection, no
     * leader and overload.
     */
    private boolean worthAnother(Throwable failure) {
        if (EtcdClients.explain(uri, failure) != null) {
            return false;
        }
        ErrorCode code = code(failure);
        return code == null || code == ErrorCode.UNAVAILABLE
                || code == ErrorCode.DEADLINE_EXCEEDED || code == ErrorCode.RESOURCE_EXHAUSTED
                || code == ErrorCode.ABORTED || code == ErrorCode.UNKNOWN;
    }

    /** The etcd or gRPC status code in a failure's chain; null when it has none. */
    private static ErrorCode code(Throwable failure) {
        for (Throwable c = failure; c != null; c = c.getCause()) {
            if (c instanceof EtcdException ee) {
                return ee.getErrorCode();
            }
            if (c instanceof StatusRuntimeException || c instanceof StatusException) {
                return ErrorCode.valueOf(Status.fromThrowable(c).getCode().name());
            }
        }
        return null;
    }

    private RegistryException failed(String what, Throwable failure, boolean hung, int attempts,
            long startNanos) {
        String tries = " (" + attempts + (attempts == 1 ? " attempt, " : " attempts, ")
                + (System.nanoTime() - startNanos) / 1_000_000 + " ms)";
        if (hung || failure == null) {
            return new RegistryException(Kind.UNAVAILABLE, where() + " did not answer " + what
                    + " within " + uri.timeout().toMillis() + " ms" + tries, failure);
        }
        String explained = EtcdClients.explain(uri, failure);
        return new RegistryException(Kind.UNAVAILABLE, where() + " failed " + what + ": "
                + (explained != null ? explained : shortMessage(failure)) + tries, failure);
    }

    /** The members, for messages. */
    private String where() {
        return "etcd " + String.join(",", uri.endpoints());
    }

    private static boolean leaseNotFound(Throwable t) {
        return code(t) == ErrorCode.NOT_FOUND;
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
        clients.forEach(Client::close);
        executor.shutdownNow();
    }

    /**
     * Puts the call's timeout on every gRPC call that has no deadline of its own. (An attempt
     * that runs out earlier is abandoned, not cancelled: jetcd's futures do not reach the gRPC
     * call. It ends with this deadline, and a late answer is not used.)
     */
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
