package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import io.idmint.GeneratorStatus;
import io.idmint.IdGenerator;
import io.idmint.IdParts;
import io.idmint.IdRange;
import io.idmint.Layout;
import io.idmint.LeaseState;
import io.idmint.Snowflake;
import io.idmint.TimeSource;
import io.idmint.WorkerRegistries;
import io.idmint.grpc.v1.DecodeRequest;
import io.idmint.grpc.v1.DecodeResponse;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.IdServiceGrpc.IdServiceBlockingStub;
import io.idmint.grpc.v1.NextIdsRequest;
import io.idmint.grpc.v1.NextIdsResponse;
import io.idmint.grpc.v1.RangeRequest;
import io.idmint.grpc.v1.RangeResponse;
import io.idmint.grpc.v1.StreamIdsRequest;
import io.idmint.server.api.Access;
import io.idmint.server.api.IdService;
import io.idmint.server.api.InternalErrors;
import io.idmint.server.api.RequestPipeline;
import io.idmint.server.grpc.GrpcApi;
import io.idmint.server.grpc.GrpcHealth;
import io.idmint.server.grpc.GrpcIdStream;
import io.idmint.server.grpc.GrpcLimits;
import io.idmint.server.mint.CodesAndFormats;
import io.idmint.server.net.ConnectionLimit;
import io.idmint.server.ops.Metrics;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.ManualTimeSource;
import io.idmint.testkit.TestTime;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GrpcApi} over a real Netty server on 127.0.0.1 and a real grpc-java client over a
 * plaintext channel, with real generators on the {@code static:} registry.
 */
class GrpcApiIT {

    private static final int MAX = 10_000;
    private static final Layout SINGLE_WORKER = Layout.parse("time=41,sequence=12");

    @TempDir
    Path tmp;

    /** Closed in reverse order after each test: channels, servers, generators, registries. */
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private final List<Server> servers = new ArrayList<>();
    private Server server;
    private GrpcIdStream.Pauses pauses;
    private ManagedChannel channel;
    private CountingGenerator ids;
    private IdService service;
    private GrpcLimits limits;

    @AfterEach
    void closeAll() throws Exception {
        while (!resources.isEmpty()) {
            resources.pop().close();
        }
        for (Server s : servers) {
            assertThat(s.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    // ---------------------------------------------------------------- NextIds

    @Test
    void nextIds_one_returnsOneId() throws Exception {
        serve(Layout.SNOWFLAKE, noAccess(), MAX);

        NextIdsResponse r = blocking().nextIds(next(1));

        assertThat(r.getIdsList()).hasSize(1);
        assertThat(r.getIds(0)).isPositive();
        assertThat(ids.issued()).isEqualTo(1);
    }

    @Test
    void nextIds_maxCount_returnsMaxIncreasingIds() throws Exception {
        serve(Layout.SNOWFLAKE, noAccess(), MAX);

        NextIdsResponse r = blocking().nextIds(next(MAX));

        assertThat(r.getIdsList()).hasSize(MAX).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void nextIds_countOutOfRange_isInvalidArgumentNamingTheValueAndIssuesNothing()
            throws Exception {
        serve(Layout.SNOWFLAKE, noAccess(), MAX);

        for (int count : new int[] {0, -5, MAX + 1}) {
            StatusRuntimeException e = failure(() -> blocking().nextIds(next(count)));

            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(e.getStatus().getDescription()).contains("got " + count);
        }
        assertThat(ids.issued()).isZero();
    }

    @Test
    void absentFields_countIsOneAsInHttp_idIsMissing() throws Exception {
        serve(Layout.SNOWFLAKE, noAccess(), MAX);

        NextIdsResponse one = blocking().nextIds(NextIdsRequest.getDefaultInstance());
        List<NextIdsResponse> streamed = new ArrayList<>();
        blocking().streamIds(StreamIdsRequest.getDefaultInstance())
                .forEachRemaining(streamed::add);
        StatusRuntimeException decode =
                failure(() -> blocking().decode(DecodeRequest.getDefaultInstance()));

        assertThat(one.getIdsCount()).isEqualTo(1);
        assertThat(streamed).hasSize(1);
        assertThat(streamed.get(0).getIdsCount()).isEqualTo(1);
        assertThat(decode.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(decode.getStatus().getDescription()).startsWith("missing id");
        // An ID given as 0 is still decoded: only an absent field is missing.
        assertThat(blocking().decode(DecodeRequest.newBuilder().setId(0).build()).getId())
                .isZero();
    }

    @Test
    void nextIds_replyOverFourMiB_isRefusedNamingTheCapAndStreamIds() throws Exception {
        serve(Layout.SNOWFLAKE, noAccess(), IdService.MAX_COUNT_LIMIT);
        // (4 MiB - 5) / 9 bytes per ID: the most a stock client (4 MiB inbound) always takes.
        int most = 466_033;

        NextIdsResponse largest = blocking().nextIds(next(most));
        StatusRuntimeException over = failure(() -> blocking().nextIds(next(most + 1)));
        StatusRuntimeException max =
                failure(() -> blocking().nextIds(next(IdService.MAX_COUNT_LIMIT)));

        assertThat(largest.getIdsList()).hasSize(most).isSorted().doesNotHaveDuplicates();
        assertThat(largest.getSerializedSize()).isLessThanOrEqualTo(GrpcApi.MAX_REPLY_BYTES);
        for (StatusRuntimeException e : List.of(over, max)) {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(e.getStatus().getDescription()).contains("4 MiB")
                    .contains("at most " + most).contains("StreamIds");
        }
        assertThat(ids.issued()).isEqualTo(most);
    }

    // ---------------------------------------------------------------- StreamIds

    @Test
    void streamIds_quarterMillion_allIncreasingInBatchesOfAThousand() throws Exception {
        serve(Layout.SNOWFLAKE, noAccess(), MAX);

        Iterator<NextIdsResponse> it = blocking().streamIds(stream(250_000));
        int batches = 0;
        long count = 0;
        long prev = 0;
        while (it.hasNext()) {
            NextIdsResponse r = it.next();
            assertThat(r.getIdsCount()).isEqualTo(1000);
            for (long id : r.getIdsList()) {
                assertThat(id).isGreaterThan(prev); // increasing, so unique
                prev = id;
            }
            batches++;
            count += r.getIdsCount();
        }

        assertThat(batches).isEqualTo(250);
        assertThat(count).isEqualTo(250_000);
        assertThat(ids.issued()).isEqualTo(250_000);
    }

    @Test
    void streamIds_maxCountBelowBatch_sendsBatchesOfMaxCount() throws Exception {
        serve(Layout.SNOWFLAKE, noAccess(), 100);

        List<Integer> sizes = new ArrayList<>();
        blocking().streamIds(stream(250)).forEachRemaining(r -> sizes.add(r.getIdsCount()));

        assertThat(sizes).containsExactly(100, 100, 50);
    }

    @Test
    void streamIds_countOutOfRange_isInvalidArgumentAndIssuesNothing() throws Exception {
        serve(Layout.SNOWFLAKE, noAccess(), MAX);

        for (long count : new long[] {0, -1, GrpcApi.MAX_STREAM_COUNT + 1}) {
            StatusRuntimeException e =
                    failure(() -> blocking().streamIds(stream(count)).hasNext());

            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(e.getStatus().getDescription()).contains("got " + count);
        }
        assertThat(ids.issued()).isZero();
    }

    @Test
    void streamIds_clientCancels_serverStopsMinting() throws Exception {
        serve(Layout.SNOWFLAKE, noAccess(), MAX);
        Context.CancellableContext call = Context.current().withCancellation();
        Iterator<NextIdsResponse> it = call.call(
                () -> blocking().streamIds(stream(GrpcApi.MAX_STREAM_COUNT)));
        for (int i = 0; i < 10; i++) {
            assertThat(it.next().getIdsCount()).isEqualTo(1000);
        }

        call.cancel(null);
        long issued = awaitQuiet(ids::issued);

        // At most a flow-control window beyond what the client read, never the 100 million asked.
        assertThat(issued).isBetween(10_000L, 2_000_000L);
        // The server is still fine.
        assertThat(blocking().nextIds(next(1)).getIdsCount()).isEqualTo(1);
    }

    @Test
    void streamIds_slowClient_serverMintsOnlyAFlowControlWindowAhead() throws Exception {
        serve(Layout.SNOWFLAKE, noAccess(), MAX);
        AtomicInteger received = new AtomicInteger();
        AtomicReference<ClientCallStreamObserver<StreamIdsRequest>> handle =
                new AtomicReference<>();
        CompletableFuture<Status> done = new CompletableFuture<>();
        IdServiceGrpc.newStub(channel).streamIds(stream(GrpcApi.MAX_STREAM_COUNT),
                new ClientResponseObserver<StreamIdsRequest, NextIdsResponse>() {
                    @Override
                    public void beforeStart(ClientCallStreamObserver<StreamIdsRequest> call) {
                        handle.set(call);
                        call.disableAutoRequestWithInitial(1);
                    }

                    @Override
                    public void onNext(NextIdsResponse value) {
                        received.incrementAndGet();
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.complete(Status.fromThrowable(t));
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(Status.OK);
                    }
                });

        long stalled = awaitQuiet(ids::issued);
        assertThat(received).hasValue(1);
        assertThat(stalled).isBetween(1000L, 2_000_000L);

        handle.get().request(500); // reading on lets the server mint on
        long resumed = awaitQuiet(ids::issued);
        awaitQuiet(() -> (long) received.get());
        assertThat(received).hasValue(501);
        assertThat(resumed).isGreaterThan(stalled).isLessThan(stalled + 2_500_000L);

        handle.get().cancel("test done", null);
        assertThat(done.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    }

    // ---------------------------------------------------------------- Decode

    @Test
    void decode_idFromNextIds_matchesIdService() throws Exception {
        serve(Layout.SNOWFLAKE, noAccess(), MAX);
        long id = blocking().nextIds(next(1)).getIds(0);

        DecodeResponse r = blocking().decode(DecodeRequest.newBuilder().setId(id).build());

        IdParts p = service.decode(id);
        assertThat(r.getId()).isEqualTo(id);
        assertThat(r.getTimestampMs()).isEqualTo(p.timestampMillis());
        assertThat(r.getDatacenterId()).isEqualTo(p.datacenterId());
        assertThat(r.getWorkerId()).isEqualTo(p.workerId());
        assertThat(r.getSequenceNumber()).isEqualTo(p.sequence());
        assertThat(r.getShardId()).isEqualTo(p.shardId());
    }

    @Test
    void decode_negativeOrOutsideTheLayout_isInvalidArgument() throws Exception {
        serve(SINGLE_WORKER, noAccess(), MAX); // 53 bits

        for (long id : new long[] {-1, 1L << 60}) {
            StatusRuntimeException e = failure(
                    () -> blocking().decode(DecodeRequest.newBuilder().setId(id).build()));

            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(e.getStatus().getDescription()).startsWith("ID ");
        }
    }

    @Test
    void range_boundsAWindow_asIdmintRange_andRefusesBadTimesNamingTheField() throws Exception {
        serve(Layout.SNOWFLAKE, noAccess(), MAX);

        RangeResponse r = blocking().range(RangeRequest.newBuilder().setFrom("2026-11-24")
                .setTo("2026-11-25").build());
        IdRange expected = Layout.SNOWFLAKE.range(java.time.Instant.parse(
                "2026-11-24T00:00:00Z"), java.time.Instant.parse("2026-11-25T00:00:00Z"));
        assertThat(r.getKind()).isEqualTo("snowflake");
        assertThat(r.getLayout()).isEqualTo(Layout.SNOWFLAKE.spec());
        assertThat(r.getIdFrom()).isEqualTo(Long.toString(expected.from()));
        assertThat(r.getIdTo()).isEqualTo(Long.toString(expected.to()));
        RangeResponse u = blocking().range(RangeRequest.newBuilder().setFrom("2026-11-24")
                .setTo("2026-11-25").setKind("uuid7").build());
        assertThat(u.getIdFrom()).isEqualTo("01a20ada-2c00-7000-8000-000000000000");
        assertThat(u.getLayout()).isEmpty();

        StatusRuntimeException missing = failure(() -> blocking().range(
                RangeRequest.newBuilder().setFrom("2026-11-24").build()));
        assertThat(missing.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(missing.getStatus().getDescription()).contains("missing RangeRequest.to");
        StatusRuntimeException early = failure(() -> blocking().range(RangeRequest.newBuilder()
                .setFrom("2020-01-01").setTo("2020-01-02").build()));
        assertThat(early.getStatus().getDescription()).contains("is before layout");
    }

    // ---------------------------------------------------------------- Not ready

    @Test
    void notReady_nextIdsAndStreamIds_areUnavailableWithRetryAfter() throws Exception {
        IdGenerator holder = generator(SINGLE_WORKER); // takes the only worker ID
        resources.push(holder);
        serve(SINGLE_WORKER, noAccess(), MAX);
        assertThat(ids.status().state()).isEqualTo(LeaseState.ACQUIRING);

        StatusRuntimeException next = failure(() -> blocking().nextIds(next(5)));
        StatusRuntimeException streamed =
                failure(() -> blocking().streamIds(stream(5000)).hasNext());

        for (StatusRuntimeException e : List.of(next, streamed)) {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(e.getStatus().getDescription())
                    .isEqualTo("no worker ID held yet (NO_LEASE)");
            assertThat(e.getTrailers().get(GrpcApi.RETRY_AFTER)).isEqualTo("1");
        }
        assertThat(ids.issued()).isZero();
    }

    @Test
    void nextIds_withTheMostCallsWaitingForAThread_isUnavailableWithRetryAfter_thenServed()
            throws Exception {
        serve(Layout.SNOWFLAKE, noAccess(), MAX);
        ThreadPoolExecutor calls = (ThreadPoolExecutor) limits.calls();
        CountDownLatch busy = new CountDownLatch(1);
        for (int i = 0; i < calls.getMaximumPoolSize(); i++) {
            calls.execute(() -> {
                try {
                    busy.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        for (int i = 0; i < 1000; i++) { // grpc.max-waiting-calls
            calls.execute(() -> { });
        }
        StatusRuntimeException e;
        try {
            e = failure(() -> blocking().nextIds(next(5)));
            // A probe still answers: health checks take no thread and are never refused.
            assertThat(HealthGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.getDefaultInstance()).getStatus())
                    .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        } finally {
            busy.countDown();
        }
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(e.getStatus().getDescription()).isEqualTo(
                "this server has 1000 calls waiting for a thread, its most "
                        + "(grpc.max-waiting-calls); retry");
        assertThat(e.getTrailers().get(GrpcApi.RETRY_AFTER)).isEqualTo("1");
        assertThat(limits.refusedWaiting()).isEqualTo(1);
        assertThat(ids.issued()).isZero();

        // Served once the threads are free (the 1000 queued tasks drained: a call sent while
        // they still wait is refused as the first was); a caller cannot mark itself refused.
        io.idmint.testkit.Poll.until(Duration.ofSeconds(30), "the waiting calls drained",
                () -> calls.getQueue().isEmpty());
        Metadata forged = new Metadata();
        forged.put(Metadata.Key.of("idmint-refused", Metadata.ASCII_STRING_MARSHALLER), "1");
        assertThat(blocking().withInterceptors(MetadataUtils.newAttachHeadersInterceptor(forged))
                .nextIds(next(5)).getIdsCount()).isEqualTo(5);
        assertThat(limits.refusedWaiting()).isEqualTo(1);
    }

    // ---------------------------------------------------------------- Auth

    @Test
    void auth_noOrWrongToken_isUnauthenticatedOnEveryCall() throws Exception {
        serve(Layout.SNOWFLAKE, tokens(), MAX);

        List<IdServiceBlockingStub> stubs =
                List.of(blocking(), as("wrong"), withHeader("api-secret")); // no "Bearer "
        for (IdServiceBlockingStub stub : stubs) {
            assertThat(failure(() -> stub.nextIds(next(1))).getStatus().getCode())
                    .isEqualTo(Status.Code.UNAUTHENTICATED);
            assertThat(failure(() -> stub.streamIds(stream(10)).hasNext()).getStatus().getCode())
                    .isEqualTo(Status.Code.UNAUTHENTICATED);
            assertThat(failure(() -> stub.decode(DecodeRequest.newBuilder().setId(1).build()))
                    .getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
        }
        assertThat(ids.issued()).isZero();
    }

    @Test
    void auth_apiToken_mintsButMayNotDecode() throws Exception {
        serve(Layout.SNOWFLAKE, tokens(), MAX);
        IdServiceBlockingStub api = as("api-secret");

        long id = api.nextIds(next(3)).getIds(2);
        assertThat(api.streamIds(stream(10)).next().getIdsCount()).isEqualTo(10);
        StatusRuntimeException e =
                failure(() -> api.decode(DecodeRequest.newBuilder().setId(id).build()));

        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    }

    @Test
    void auth_adminToken_decodesAndMints() throws Exception {
        serve(Layout.SNOWFLAKE, tokens(), MAX);
        IdServiceBlockingStub admin = as("admin-secret");

        long id = admin.nextIds(next(1)).getIds(0);
        DecodeResponse r = admin.decode(DecodeRequest.newBuilder().setId(id).build());

        assertThat(r.getTimestampMs()).isEqualTo(service.decode(id).timestampMillis());
    }

    // ---------------------------------------------------------------- Rate limit

    @Test
    void rateLimit_overTheClientsIdsPerSecond_isResourceExhaustedAndIssuesNothing()
            throws Exception {
        ManualTimeSource time = new ManualTimeSource(0);
        serve(Layout.SNOWFLAKE, new Access(null, null, 100, time), MAX);

        assertThat(blocking().nextIds(next(100)).getIdsCount()).isEqualTo(100);
        StatusRuntimeException e = failure(() -> blocking().nextIds(next(1)));

        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(e.getTrailers().get(GrpcApi.RETRY_AFTER)).isEqualTo("1");
        assertThat(ids.issued()).isEqualTo(100);

        time.advance(Duration.ofSeconds(1));
        assertThat(blocking().nextIds(next(100)).getIdsCount()).isEqualTo(100);
    }

    @Test
    void rateLimit_streamOverTheLimit_pausesUntilTheAllowanceRefills_thenEnds() throws Exception {
        ManualTimeSource time = new ManualTimeSource(0);
        serve(Layout.SNOWFLAKE, new Access(null, null, 2500, time), MAX);

        Iterator<NextIdsResponse> it = blocking().streamIds(stream(5000));
        Set<Long> seen = new HashSet<>();
        read(it, 2, seen);
        // The third batch needs 1000 and the allowance holds 500: the stream pauses, unrefused.
        assertThat(ids.issued()).isEqualTo(2000);
        time.advance(Duration.ofSeconds(1));
        read(it, 2, seen);
        assertThat(ids.issued()).isEqualTo(4000);
        time.advance(Duration.ofSeconds(1));
        read(it, 1, seen);

        assertThat(it.hasNext()).isFalse();
        assertThat(seen).hasSize(5000);
        assertThat(ids.issued()).isEqualTo(5000);
    }

    @Test
    void rateLimit_belowTheBatchSize_streamsBatchesOfTheLimit() throws Exception {
        ManualTimeSource time = new ManualTimeSource(0);
        serve(Layout.SNOWFLAKE, new Access(null, null, 300, time), MAX);

        Iterator<NextIdsResponse> it = blocking().streamIds(stream(1000));
        List<Integer> sizes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            sizes.add(it.next().getIdsCount());
            time.advance(Duration.ofSeconds(1));
        }

        assertThat(it.hasNext()).isFalse();
        assertThat(sizes).containsExactly(300, 300, 300, 100);
    }

    @Test
    void rateLimit_streamOnTheSystemClock_getsTheLimitPerSecondWithoutError() throws Exception {
        long limit = 2000;
        long count = 7000;
        serve(Layout.SNOWFLAKE, new Access(null, null, limit, TimeSource.system()), MAX);

        long start = System.nanoTime();
        Iterator<NextIdsResponse> it = blocking().streamIds(stream(count));
        Set<Long> seen = new HashSet<>();
        while (it.hasNext()) {
            seen.addAll(it.next().getIdsList());
            double seconds = (System.nanoTime() - start) / 1e9;
            // A full bucket (one second's worth) at once, then the limit per second.
            assertThat((double) seen.size()).isLessThanOrEqualTo(limit + limit * seconds);
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        assertThat(seen).hasSize((int) count);
        // The bucket starts full; the rest cannot come faster than the limit.
        assertThat(seconds).isGreaterThanOrEqualTo((count - limit) / (double) limit);
    }

    /** Reads {@code messages} replies of a stream into {@code seen}, each ID once. */
    private static void read(Iterator<NextIdsResponse> it, int messages, Set<Long> seen) {
        for (int i = 0; i < messages; i++) {
            for (long id : it.next().getIdsList()) {
                assertThat(seen.add(id)).as("duplicate %d", id).isTrue();
            }
        }
    }

    @Test
    void rateLimit_withAuthOn_eachTokenHasItsOwnAllowance() throws Exception {
        ManualTimeSource time = new ManualTimeSource(0);
        serve(Layout.SNOWFLAKE, new Access("api-secret", "admin-secret", 100, time), MAX);

        assertThat(as("api-secret").nextIds(next(100)).getIdsCount()).isEqualTo(100);
        assertThat(failure(() -> as("api-secret").nextIds(next(1))).getStatus().getCode())
                .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

        assertThat(as("admin-secret").nextIds(next(100)).getIdsCount()).isEqualTo(100);
    }

    // ---------------------------------------------------------------- Shutdown

    @Test
    void shutdown_awaitTermination_stopsTheServer() throws Exception {
        serve(Layout.SNOWFLAKE, noAccess(), MAX);
        assertThat(blocking().nextIds(next(1)).getIdsCount()).isEqualTo(1);

        server.shutdown();

        assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(server.isTerminated()).isTrue();
        assertThat(failure(() -> blocking().nextIds(next(1))).getStatus().getCode())
                .isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(ids.issued()).isEqualTo(1);
    }

    @Test
    void shutdown_streamPausedByTheRateLimit_endsUnavailableAndTheServerTerminates()
            throws Exception {
        ManualTimeSource time = new ManualTimeSource(0);
        serve(Layout.SNOWFLAKE, new Access(null, null, 1000, time), MAX);
        Iterator<NextIdsResponse> it = blocking().streamIds(stream(5000));
        read(it, 1, new HashSet<>());

        // The allowance is spent and the manual clock never moves: the stream stays paused.
        server.shutdown();
        pauses.drain();

        assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        StatusRuntimeException e = failure(it::hasNext);
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(e.getStatus().getDescription()).isEqualTo("the server is shutting down; "
                + "4000 IDs of this stream were not sent: ask another server for them");
        assertThat(ids.issued()).isEqualTo(1000);
    }

    // ---------------------------------------------------------------- Helpers

    /**
     * Starts a generator (the second on {@link #tmp} when another holds the only worker ID), the
     * service, a server on a free port and a channel to it.
     */
    private void serve(Layout layout, Access access, int maxCount) throws Exception {
        ids = new CountingGenerator(generator(layout));
        resources.push(ids);
        service = new IdService(ids, maxCount, n -> { }, e -> { });
        GrpcHealth health = new GrpcHealth(() -> service.status().ready());
        resources.push(health::drain);
        pauses = new GrpcIdStream.Pauses();
        resources.push(pauses::drain);
        Vertx loops = Vertx.vertx();
        resources.push(() -> loops.close().await());
        Metrics metrics = new Metrics(java.util.Map.of());
        resources.push(metrics::close);
        limits = new GrpcLimits(new ConnectionLimit("grpc", 100, Duration.ofMinutes(1),
                TimeSource.system(), (transport, reason) -> { }), 100, 1000, 64 << 20,
                (VertxInternal) loops);
        server = GrpcApi.start(service, new CodesAndFormats(null, null), null,
                new RequestPipeline(access, null, new InternalErrors(TimeSource.system())),
                health, pauses, "127.0.0.1", 0, null, limits, metrics);
        servers.add(server);
        resources.push(server::shutdownNow);
        channel = ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .usePlaintext()
                .build();
        resources.push(() -> {
            channel.shutdownNow();
            assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        });
    }

    private IdGenerator generator(Layout layout) {
        WorkerRegistry registry = WorkerRegistries.local(tmp.resolve("data"));
        resources.push(registry);
        return Snowflake.newBuilder().layout(layout).registry(registry).build();
    }

    private static Access noAccess() {
        return new Access(null, null, 0, TimeSource.system());
    }

    private static Access tokens() {
        return new Access("api-secret", "admin-secret", 0, TimeSource.system());
    }

    private IdServiceBlockingStub blocking() {
        return IdServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    private IdServiceBlockingStub as(String token) {
        return withHeader("Bearer " + token);
    }

    private IdServiceBlockingStub withHeader(String authorization) {
        Metadata headers = new Metadata();
        headers.put(GrpcApi.AUTHORIZATION, authorization);
        return blocking().withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    }

    private static NextIdsRequest next(int count) {
        return NextIdsRequest.newBuilder().setCount(count).build();
    }

    private static StreamIdsRequest stream(long count) {
        return StreamIdsRequest.newBuilder().setCount(count).build();
    }

    private static StatusRuntimeException failure(Supplier<?> call) {
        StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, call::get);
        assertThat(e).as("the call should have failed").isNotNull();
        return e;
    }

    /**
     * Waits until the server stops minting: the count is unchanged over 300 ms. This waits for
     * another thread's work to settle, not for time, so there is no clock to drive instead.
     */
    private static long awaitQuiet(Supplier<Long> counter) throws InterruptedException {
        long deadline = TestTime.deadline(Duration.ofSeconds(30));
        // Settled = unchanged over four samples in a row (1.2 s): on a loaded machine the
        // server's thread can pause for longer than one sample while it is still minting.
        long now = counter.get();
        int unchanged = 0;
        while (unchanged < 4) {
            assertThat(System.nanoTime()).as("minting never settled").isLessThan(deadline);
            Thread.sleep(300);
            long next = counter.get();
            unchanged = next == now ? unchanged + 1 : 0;
            now = next;
        }
        return now;
    }

    /** Counts the IDs the server really minted, to show what rejected and cancelled calls cost. */
    private static final class CountingGenerator implements IdGenerator {
        private final IdGenerator delegate;
        private final AtomicLong issued = new AtomicLong();

        CountingGenerator(IdGenerator delegate) {
            this.delegate = delegate;
        }

        long issued() {
            return issued.get();
        }

        @Override
        public long nextId() {
            long id = delegate.nextId();
            issued.incrementAndGet();
            return id;
        }

        @Override
        public long nextId(long shardKey) {
            long id = delegate.nextId(shardKey);
            issued.incrementAndGet();
            return id;
        }

        @Override
        public void nextIds(long[] out, int from, int to) {
            delegate.nextIds(out, from, to);
            issued.addAndGet(to - from);
        }

        @Override
        public Layout layout() {
            return delegate.layout();
        }

        @Override
        public GeneratorStatus status() {
            return delegate.status();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
