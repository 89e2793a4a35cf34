package io.idmint.server.mint;

import io.idmint.GeneratorListener;
import io.idmint.GeneratorStatus;
import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import io.idmint.IdUnavailableException.Reason;
import io.idmint.Layout;
import io.idmint.LeaseState;
import io.idmint.WorkerRegistries;
import io.idmint.server.config.Config;
import io.idmint.spi.Claim;
import io.idmint.spi.ClaimRequest;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import io.idmint.spi.support.Providers;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * {@code serve}'s generator, whose worker is claimed off the start path: the server listens
 * first, then {@link #start} claims on a thread of its own, and the generator it builds serves
 * from then on. A claim can take long: a ZooKeeper {@code leaf-name} node restarted after a kill
 * waits for its previous run's session to expire (up to the session timeout), and a registry
 * that is slow to answer takes its call timeout. Meanwhile liveness, segments and the status
 * answer, and ID calls are refused as when no worker is held ({@link Reason#NO_LEASE}: HTTP 503
 * with Retry-After, gRPC UNAVAILABLE), the status saying that a worker is being claimed.
 *
 * <p>The claim answers once: with a generator (holding its workers, or retrying by itself a
 * registry that cannot give one yet, as {@link io.idmint.Snowflake#build()} leaves it), or with
 * the exception of a claim that failed for good (a setting the registry refuses, fewer free
 * workers than {@code workers} asks for); {@link #answered()} completes then. Closing while the
 * claim runs abandons it: the registry is closed under it and the claiming thread interrupted,
 * and a generator built afterwards is closed at once, never used.
 */
public final class ClaimingGenerator implements IdGenerator {

    /** How long {@link #close()} waits for a claim under way to give up. */
    static final Duration ABANDON_WAIT = Duration.ofSeconds(10);

    private final Config config;
    private final int workers;
    private final GeneratorListener listener;
    private final Layout layout;
    private final String registryName;
    private final CompletableFuture<Void> answered = new CompletableFuture<>();
    private final Object lock = new Object();
    /** The generator once claimed; null before. */
    private volatile IdGenerator ids;
    /** Set when {@link #close()} began; read on the hot path only while no generator is set. */
    private volatile boolean closed;
    private volatile long startedNanos;
    // Guarded by lock:
    /** The registry while the claim runs (closed by close() to abandon it), else null. */
    private WorkerRegistry claiming;
    private LeasedGenerator minter;
    private Thread thread;

    /**
     * A generator that will mint from {@code workers} workers of the configured registry, once
     * {@link #start} has claimed them; nothing is opened yet.
     *
     * @param listener hears the generator, as {@link LeasedGenerator#open(Config, int,
     *     GeneratorListener)}'s does
     */
    public ClaimingGenerator(Config config, int workers, GeneratorListener listener) {
        this.config = config;
        this.workers = workers;
        this.listener = listener;
        this.layout = config.get(Config.LAYOUT);
        this.registryName = Providers.redact(config.get(Config.REGISTRY));
    }

    /**
     * Opens the registry and claims, on a thread of its own. Then runs {@code claimed} on that
     * thread once the generator exists (before {@link #answered()} completes), or
     * {@code failed} with the exception of a claim that failed for good; neither runs when the
     * claim was abandoned by {@link #close()}. Called once.
     */
    public void start(Runnable claimed, Consumer<RuntimeException> failed) {
        synchronized (lock) {
            if (thread != null) {
                throw new IllegalStateException("the claim has started already");
            }
            startedNanos = System.nanoTime();
            thread = new Thread(() -> claim(claimed, failed), "idmint-claim");
            thread.setDaemon(true);
            if (closed) {
                answered.cancel(false);
                return;
            }
            thread.start();
        }
    }

    /**
     * Completes normally when the generator exists, exceptionally with the exception of a claim
     * that failed for good, and is cancelled when {@link #close()} abandoned the claim.
     */
    public CompletableFuture<Void> answered() {
        return answered;
    }

    private void claim(Runnable claimed, Consumer<RuntimeException> failed) {
        WorkerRegistry registry = null;
        try {
            registry = new OnceClosed(WorkerRegistries.open(config.get(Config.REGISTRY),
                    config.get(Config.DATA_DIR)));
            synchronized (lock) {
                if (closed) {
                    registry.close();
                    answered.cancel(false);
                    return;
                }
                claiming = registry;
            }
            IdGenerator built = LeasedGenerator.build(config, registry, workers, listener);
            LeasedGenerator m = new LeasedGenerator(registry, built);
            synchronized (lock) {
                claiming = null;
                if (!closed) {
                    minter = m;
                    ids = built;
                }
            }
            if (ids != built) {
                Thread.interrupted(); // close() may have interrupted this thread: release anyway
                m.close();
                answered.cancel(false);
                return;
            }
            claimed.run();
            answered.complete(null);
        } catch (RuntimeException e) {
            synchronized (lock) {
                claiming = null;
            }
            if (registry != null) {
                Thread.interrupted();
                registry.close();
            }
            if (closed) {
                answered.cancel(false);
                return;
            }
            try {
                failed.accept(e);
            } finally {
                answered.completeExceptionally(e);
            }
        }
    }

    private IdGenerator claimed() {
        IdGenerator g = ids;
        if (g == null) {
            throw new IdUnavailableException(Reason.NO_LEASE, closed
                    ? "generator is closed" : claimingDetail(), Duration.ofSeconds(1));
        }
        return g;
    }

    private String claimingDetail() {
        long since = startedNanos;
        long seconds = since == 0 ? 0 : TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - since);
        return "claiming a worker ID from registry " + registryName + " (for " + seconds
                + " s); no ID is issued until one is held";
    }

    @Override
    public long nextId() {
        return claimed().nextId();
    }

    @Override
    public long nextId(long shardKey) {
        return claimed().nextId(shardKey);
    }

    @Override
    public void nextIds(long[] out, int from, int to) {
        claimed().nextIds(out, from, to);
    }

    @Override
    public void nextIds(long[] out, int from, int to, long above) {
        claimed().nextIds(out, from, to, above);
    }

    @Override
    public int nextIdsNow(long[] out, int from, int to) {
        return claimed().nextIdsNow(out, from, to);
    }

    @Override
    public Layout layout() {
        return layout;
    }

    /** The generator's status; before it exists, not ready, claiming (or closed). */
    @Override
    public GeneratorStatus status() {
        IdGenerator g = ids;
        if (g != null) {
            return g.status();
        }
        LeaseState state = closed ? LeaseState.RELEASED : LeaseState.ACQUIRING;
        String detail = closed ? "closed before a worker ID was held" : claimingDetail();
        return new GeneratorStatus(state, layout, -1, -1, 0, 0, detail,
                Collections.nCopies(workers, new GeneratorStatus.Worker(-1, -1, state, 0,
                        detail)), Reason.NO_LEASE, 0);
    }

    /**
     * Releases the workers and closes the registry; a claim still under way is abandoned (its
     * registry closed, its thread interrupted) and waited for up to {@link #ABANDON_WAIT}.
     * Closes once; a second call returns at once.
     */
    @Override
    public void close() {
        LeasedGenerator m;
        WorkerRegistry abandoned;
        Thread t;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            m = minter;
            abandoned = claiming;
            t = thread;
        }
        if (m != null) {
            m.close();
            return;
        }
        if (abandoned != null) {
            abandoned.close(); // the claim's calls fail at once, a maintenance loop's too
        }
        if (t != null && t != Thread.currentThread()) {
            t.interrupt();
            try {
                t.join(ABANDON_WAIT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // Abandoned (or never started): whoever waits for the answer stops waiting.
        answered.cancel(false);
    }

    /**
     * A registry closed once, by whichever of the claim and {@link #close()} comes first: the
     * backends' own close need not be idempotent.
     */
    private static final class OnceClosed implements WorkerRegistry {

        private final WorkerRegistry delegate;
        private final AtomicBoolean closed = new AtomicBoolean();

        OnceClosed(WorkerRegistry delegate) {
            this.delegate = delegate;
        }

        @Override
        public Claim claim(ClaimRequest request) throws RegistryException {
            return delegate.claim(request);
        }

        @Override
        public long extend(Claim claim, long untilMillis) throws RegistryException {
            return delegate.extend(claim, untilMillis);
        }

        @Override
        public void release(Claim claim, long finalHwmMillis) throws RegistryException {
            delegate.release(claim, finalHwmMillis);
        }

        @Override
        public List<WorkerRecord> list(String namespace) throws RegistryException {
            return delegate.list(namespace);
        }

        @Override
        public List<WorkerRecord> heldWorkers(String namespace) throws RegistryException {
            return delegate.heldWorkers(namespace);
        }

        @Override
        public OptionalLong storeTimeMillis() throws RegistryException {
            return delegate.storeTimeMillis();
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                delegate.close();
            }
        }
    }
}
