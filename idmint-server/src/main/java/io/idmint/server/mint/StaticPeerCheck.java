package io.idmint.server.mint;

import io.idmint.GeneratorStatus;
import io.idmint.IdGenerator;
import io.idmint.IdUnavailableException;
import io.idmint.IdUnavailableException.Reason;
import io.idmint.Layout;
import io.idmint.spi.support.Durations;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The peer check of the {@code static:} registry ({@code static.peers}). {@code static:} keeps a
 * node's worker in its data directory, so it is unique on <em>one host only</em>: two hosts
 * started with a copied configuration hold the same worker and mint the same IDs. With the other
 * nodes' HTTP addresses this generator asks each one's {@code /api/v1/status} at start and every
 * {@link #PERIOD}; while a peer holds a (datacenter, worker) of this node, or uses another
 * layout, it issues nothing and is not ready, and its status names both nodes. It issues nothing
 * either until a check made with its worker held has seen every peer answer with no clash, or
 * until such a check began a full {@link #PERIOD} after start (a peer silent that long is taken
 * to be down, not starting): two nodes started together are not ready before either has
 * listened. A node listed as its own peer is recognised and skipped. See docs/registries.md,
 * "Peer check".
 */
public final class StaticPeerCheck implements IdGenerator {

    public static final Duration PERIOD = Duration.ofSeconds(5);
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final System.Logger LOG = System.getLogger(StaticPeerCheck.class.getName());

    private final IdGenerator ids;
    private final List<String> peers;
    private final String self;
    private final String nodeId;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            r -> {
                Thread t = new Thread(r, "idmint-peer-check");
                t.setDaemon(true);
                return t;
            });
    private final long started = System.nanoTime();
    /** Why this node refuses to issue (a clash, or no check decided yet), or null. */
    private volatile String refusal;
    /** True until a check has decided (every peer answered, or a full period has passed). */
    private volatile boolean pending = true;
    /** When a check first saw this node hold a worker (System.nanoTime()), or 0 before. */
    private long heldSince;

    /**
     * Checks at once (in the background), then every {@link #PERIOD}; not ready until a check
     * decides.
     *
     * @param self how this node is named in messages (host and data directory)
     * @param nodeId this process's ID in {@code /api/v1/status}, to skip itself in the list
     * @param token the auth token to send, or null
     */
    public StaticPeerCheck(IdGenerator ids, List<String> peers, String self, String nodeId,
            String token) {
        this.ids = ids;
        this.peers = List.copyOf(peers);
        this.self = self;
        this.nodeId = nodeId;
        this.token = token;
        this.refusal = "peer check pending: issuing nothing until every peer (" + String.join(
                ", ", this.peers) + ") has answered with no clash, or for "
                + Durations.format(PERIOD) + " after start";
        timer.scheduleWithFixedDelay(this::check, 0, PERIOD.toMillis(), TimeUnit.MILLISECONDS);
    }


    /** Checks now, in the background: the generator has just claimed its worker. */
    public void checkNow() {
        try {
            timer.execute(this::check);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closed meanwhile: nothing to check
        }
    }

    /**
     * Asks every peer; sets or clears the clash and logs when it changes. The same (datacenter,
     * worker) is a clash whatever the layouts, and so is a peer in another layout at all: a
     * fleet shares one layout, and IDs of two layouts can be equal whatever their workers (other
     * widths overlap one worker's bits with another's sequence).
     */
    void check() {
        long began = System.nanoTime();
        GeneratorStatus mine = ids.status();
        String layout = mine.layout().spec();
        Set<String> held = identities(layout, mine.workers().stream()
                .filter(w -> w.workerId() >= 0)
                .map(w -> new int[] {w.datacenterId(), w.workerId()}).toList());
        String found = null;
        List<String> silent = new ArrayList<>();
        for (String peer : peers) {
            JsonObject s = status(peer);
            if (s == null) {
                silent.add(peer);
                continue;
            }
            if (nodeId.equals(s.getString("node"))) {
                continue;
            }
            String theirLayout = s.getString("layout_spec", "");
            String them = "peer " + peer + " (" + s.getString("node_name", "?") + ")";
            if (!theirLayout.equals(layout)) {
                found = "peer clash: " + them + " uses layout " + theirLayout + " and this node ("
                        + self + ") layout " + layout + "; a fleet shares one layout: IDs of two "
                        + "layouts can be equal whatever their workers: give every node the "
                        + "same --layout";
                break;
            }
            List<int[]> theirs = new ArrayList<>();
            JsonArray workers = s.getJsonArray("workers", new JsonArray());
            for (int i = 0; i < workers.size(); i++) {
                JsonObject w = workers.getJsonObject(i);
                if (w.getInteger("worker") != null && w.getInteger("datacenter") != null) {
                    theirs.add(new int[] {w.getInteger("datacenter"), w.getInteger("worker")});
                }
            }
            if (theirs.isEmpty()) {
                // Still claiming (or between leases): "no worker" is no answer yet. Deciding on
                // it let two nodes with one worker, started together, both look clean to the
                // first of them to finish its claim.
                silent.add(peer + " (holding no worker yet)");
                continue;
            }
            Set<String> both = identities(layout, theirs);
            both.retainAll(held);
            if (!both.isEmpty()) {
                found = "peer clash: " + String.join(", ", both) + " is held both by this node ("
                        + self + ") and by " + them + "; the static: registry keeps workers "
                        + "unique on one host only, and two nodes with one worker mint the same "
                        + "IDs: give each node its own --worker (or --datacenter), or use a "
                        + "shared registry (etcd://, zk://, jdbc:)";
                break;
            }
        }
        if (found == null && held.isEmpty()) {
            // No worker held yet (the claim runs, or waits for a free one): there is nothing to
            // compare, and a check that decided now would let the worker claimed next issue
            // unchecked. The check after the claim decides (checkNow()).
            return;
        }
        if (heldSince == 0) {
            heldSince = began;
        }
        // A peer that does not answer, or holds no worker yet, holds the decision for one period
        // from this node's first check with its worker held.
        if (found == null && pending && !silent.isEmpty()
                && began - heldSince < PERIOD.toNanos()) {
            LOG.log(System.Logger.Level.DEBUG, "peer check pending: no answer yet from "
                    + String.join(", ", silent));
            return;
        }
        String was = refusal;
        if (found != null && !found.equals(was)) {
            LOG.log(System.Logger.Level.ERROR, "NOT READY: " + found);
        } else if (found == null && was != null && !pending) {
            LOG.log(System.Logger.Level.INFO, "peer clash resolved: no peer holds this node's "
                    + "worker or uses another layout any more");
        }
        refusal = found;
        pending = false;
    }

    private static Set<String> identities(String layout, List<int[]> workers) {
        Set<String> out = new HashSet<>();
        for (int[] w : workers) {
            out.add("worker " + w[1] + " of datacenter " + w[0] + " in layout " + layout);
        }
        return out;
    }

    /** The peer's status, or null when it does not answer with one. */
    private JsonObject status(String peer) {
        try {
            HttpRequest.Builder req = HttpRequest.newBuilder(
                    URI.create("http://" + peer + "/api/v1/status")).timeout(TIMEOUT);
            if (token != null) {
                req.header("Authorization", "Bearer " + token);
            }
            HttpResponse<String> r = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? new JsonObject(r.body()) : null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (Exception e) {
            LOG.log(System.Logger.Level.DEBUG, "peer " + peer + " did not answer: " + e);
            return null;
        }
    }

    private void refuseOnClash() {
        String why = refusal;
        if (why != null) {
            throw new IdUnavailableException(Reason.NO_LEASE, why, PERIOD);
        }
    }

    @Override
    public long nextId() {
        refuseOnClash();
        return ids.nextId();
    }

    @Override
    public long nextId(long shardKey) {
        refuseOnClash();
        return ids.nextId(shardKey);
    }

    @Override
    public void nextIds(long[] out, int from, int to) {
        refuseOnClash();
        ids.nextIds(out, from, to);
    }

    @Override
    public int nextIdsNow(long[] out, int from, int to) {
        refuseOnClash();
        return ids.nextIdsNow(out, from, to);
    }

    @Override
    public void nextIds(long[] out, int from, int to, long above) {
        refuseOnClash();
        ids.nextIds(out, from, to, above);
    }

    @Override
    public Layout layout() {
        return ids.layout();
    }

    /** The generator's status; not ready (no runway, the reason as detail) while it refuses. */
    @Override
    public GeneratorStatus status() {
        GeneratorStatus s = ids.status();
        String why = refusal;
        if (why == null || pending && s.workerId() < 0) {
            return s; // no worker held yet: it says why itself (a claim under way)
        }
        return new GeneratorStatus(s.state(), s.layout(), s.datacenterId(), s.workerId(), 0,
                s.clockOffsetMillis(), why, s.workers().stream()
                        .map(w -> new GeneratorStatus.Worker(w.datacenterId(), w.workerId(),
                                w.state(), 0, why)).toList(),
                s.reason() != null ? s.reason() : Reason.NO_LEASE,
                s.fleetSkewMillis());
    }

    /** Stops checking; the generator it wraps stays its owner's to close. */
    @Override
    public void close() {
        timer.shutdownNow();
    }
}
