package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.idmint.grpc.v1.CreateSegmentRequest;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.IdServiceGrpc.IdServiceBlockingStub;
import io.idmint.grpc.v1.ListSegmentsRequest;
import io.idmint.grpc.v1.NextSegmentIdsRequest;
import io.idmint.grpc.v1.SegmentTag;
import io.idmint.server.grpc.GrpcApi;
import io.idmint.server.harness.TestServers;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments over gRPC on real in-process servers, as {@code serve} starts them, on the default
 * store (H2 under the data directory): the calls and every error, mapped to status codes.
 */
class SegmentGrpcIT {

    private static final int MAX = 10_000;

    @TempDir
    static Path data;

    private static Server server;
    private static Server secured;
    private static Server storeDown;
    private static ManagedChannel channel;
    private static ManagedChannel securedChannel;
    private static ManagedChannel downChannel;

    @BeforeAll
    static void start() {
        server = TestServers.start(data.resolve("a"));
        secured = TestServers.start(data.resolve("b"), "auth.token=api",
                "auth.admin-token=admin", "segment.auto-create=true", "segment.step=10",
                "segment.fetch-timeout=10s", "codes.key=000102030405060708090a0b0c0d0e0f");
        storeDown = TestServers.start(data.resolve("c"),
                "segment.store=jdbc:postgresql://127.0.0.1:1/x?idmint.timeout=250ms",
                "segment.fetch-timeout=300ms");
        channel = channel(server);
        securedChannel = channel(secured);
        downChannel = channel(storeDown);
    }

    private static ManagedChannel channel(Server s) {
        return ManagedChannelBuilder.forAddress("127.0.0.1", s.grpcPort()).usePlaintext().build();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        for (ManagedChannel c : new ManagedChannel[] {channel, securedChannel, downChannel}) {
            if (c != null) {
                c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
        for (Server s : new Server[] {server, secured, storeDown}) {
            if (s != null) {
                s.close();
            }
        }
    }

    @Test
    void createThenNextSegmentIds_areDenseAndIncreasing() {
        SegmentTag created = stub(channel).createSegment(create("order").setStart(1001)
                .setStep(100).build());

        assertThat(created).isEqualTo(SegmentTag.newBuilder().setTag("order").setNext(1001)
                .setStep(100).build());
        assertThat(stub(channel).nextSegmentIds(next("order", 3)).getIdsList())
                .containsExactly(1001L, 1002L, 1003L);
        List<Long> max = stub(channel).nextSegmentIds(next("order", MAX)).getIdsList();
        assertThat(max).hasSize(MAX).isSorted().doesNotHaveDuplicates();
        assertThat(max.get(0)).isEqualTo(1004);
    }

    @Test
    void leafTagNames_areServed_andTheSqlTablesLimitIsABadArgument() {
        String tag = "order:2024@eu+" + "x".repeat(50);
        stub(channel).createSegment(create(tag).setStart(7).build());
        assertThat(stub(channel).nextSegmentIds(next(tag, 2)).getIdsList()).containsExactly(7L,
                8L);
        assertStatus(() -> stub(channel).createSegment(create(tag + "y").build()),
                Status.Code.INVALID_ARGUMENT, "has 65 characters; table idmint_segment holds at "
                        + "most 64");
        assertStatus(() -> stub(channel).nextSegmentIds(next(tag + "y", 1)),
                Status.Code.INVALID_ARGUMENT, "has 65 characters");
    }

    @Test
    void createDefaults_andListSegments() {
        stub(channel).createSegment(create("list-a").build());
        stub(channel).createSegment(create("list-b").setStart(0).setStep(5).build());

        List<SegmentTag> tags = stub(channel).listSegments(ListSegmentsRequest.newBuilder()
                .build()).getSegmentsList();

        assertThat(tags).contains(
                SegmentTag.newBuilder().setTag("list-a").setNext(1).setStep(1000).build(),
                SegmentTag.newBuilder().setTag("list-b").setNext(0).setStep(5).build());
    }

    @Test
    void serials_defineNextList_andTheirErrorsAsStatusCodes() {
        io.idmint.grpc.v1.Serial defined = stub(channel).defineSerial(io.idmint.grpc.v1.Serial
                .newBuilder().setName("label").setPeriod("year").setZone("Europe/Berlin")
                .setTemplate("{date:yyyy}-ORD-{counter:9}").setFirst(1000).build());
        assertThat(defined.getStep()).isEqualTo(100);
        assertThat(defined.getMaxRate()).isEqualTo(10);

        String year = Integer.toString(java.time.Year.now(java.time.ZoneId.of("Europe/Berlin"))
                .getValue());
        List<String> values = stub(channel).nextSerials(io.idmint.grpc.v1.NextSerialsRequest
                .newBuilder().setName("label").setCount(3).build()).getValuesList();
        if (values.get(2).startsWith(year)) {
            assertThat(values).containsExactly(year + "-ORD-000001000",
                    year + "-ORD-000001001", year + "-ORD-000001002");
        }
        assertThat(stub(channel).listSerials(io.idmint.grpc.v1.ListSerialsRequest
                .getDefaultInstance()).getSerialsList()).contains(defined);

        assertStatus(() -> stub(channel).nextSerials(io.idmint.grpc.v1.NextSerialsRequest
                .newBuilder().setName("nope").build()), Status.Code.NOT_FOUND,
                "serial 'nope' is not defined");
        assertStatus(() -> stub(channel).defineSerial(io.idmint.grpc.v1.Serial.newBuilder()
                .setName("label").setTemplate("{counter}").build()), Status.Code.ALREADY_EXISTS,
                "serial 'label' is defined already");
        assertStatus(() -> stub(channel).defineSerial(io.idmint.grpc.v1.Serial.newBuilder()
                .setName("weekly").setPeriod("fortnight").setTemplate("{counter}").build()),
                Status.Code.INVALID_ARGUMENT, "period 'fortnight' is none of none, year, "
                        + "month, week, day");
        assertStatus(() -> stub(channel).nextSerials(io.idmint.grpc.v1.NextSerialsRequest
                .newBuilder().setName("label").setCount(0).build()),
                Status.Code.INVALID_ARGUMENT, "count must be from 1 to");
        assertStatus(() -> stub(securedChannel, "api").defineSerial(io.idmint.grpc.v1.Serial
                .newBuilder().setName("x").setTemplate("{counter}").build()),
                Status.Code.PERMISSION_DENIED, "DefineSerial is an admin call");
    }

    @Test
    void errors_mapToStatusCodesNamingTheProblem() {
        stub(channel).createSegment(create("errs").build());

        assertStatus(() -> stub(channel).nextSegmentIds(next("nope", 1)), Status.Code.NOT_FOUND,
                "segment tag 'nope' does not exist");
        assertStatus(() -> stub(channel).nextSegmentIds(next("a/b", 1)),
                Status.Code.INVALID_ARGUMENT,
                "segment tag 'a/b' must be 1 to 128 printable ASCII characters");
        assertStatus(() -> stub(channel).nextSegmentIds(next("errs", 0)),
                Status.Code.INVALID_ARGUMENT, "count must be from 1 to 10000, got 0");
        assertStatus(() -> stub(channel).nextSegmentIds(next("errs", MAX + 1)),
                Status.Code.INVALID_ARGUMENT, "got 10001");
        assertStatus(() -> stub(channel).createSegment(create("errs").build()),
                Status.Code.ALREADY_EXISTS, "segment tag 'errs' exists already");
        assertStatus(() -> stub(channel).createSegment(create("bad tag").build()),
                Status.Code.INVALID_ARGUMENT, "segment tag 'bad tag' must be");
        assertStatus(() -> stub(channel).createSegment(create("s").setStart(-1).build()),
                Status.Code.INVALID_ARGUMENT, "start must be from 0 to");
        assertStatus(() -> stub(channel).createSegment(create("s").setStep(0).build()),
                Status.Code.INVALID_ARGUMENT, "step must be from 1 to");
        // Nothing was issued by the refused calls.
        assertThat(stub(channel).nextSegmentIds(next("errs", 1)).getIdsList())
                .containsExactly(1L);
    }

    @Test
    void segmentCodes_roundTripOverGrpc_decodeIsAnAdminCall_withoutAKeyFailedPrecondition() {
        List<String> codes = stub(securedChannel, "api").nextSegmentCodes(next("coded", 20))
                .getCodesList();
        // 40 bits by default: the key version, 8 symbols, the check symbol.
        assertThat(codes).hasSize(20).doesNotHaveDuplicates()
                .allMatch(c -> c.matches("[0-9A-Z]{10}"));
        io.idmint.grpc.v1.DecodeSegmentCodeRequest decode = io.idmint.grpc.v1
                .DecodeSegmentCodeRequest.newBuilder().setTag("coded").setCode(codes.get(3))
                .build();
        io.idmint.grpc.v1.DecodeSegmentCodeResponse d = stub(securedChannel, "admin")
                .decodeSegmentCode(decode);
        assertThat(d.getValue()).isEqualTo(4);
        assertThat(d.getCode()).isEqualTo(codes.get(3));
        assertThat(d.getKeyVersion()).isEqualTo(1);
        assertStatus(() -> stub(securedChannel, "api").decodeSegmentCode(decode),
                Status.Code.PERMISSION_DENIED, "DecodeSegmentCode is an admin call");
        assertStatus(() -> stub(securedChannel, "admin").decodeSegmentCode(decode.toBuilder()
                .setCode("").build()), Status.Code.INVALID_ARGUMENT, "missing code");
        assertStatus(() -> stub(channel).nextSegmentCodes(next("coded", 1)),
                Status.Code.FAILED_PRECONDITION, "codes are not configured");
    }

    @Test
    void nextSegmentIds_absentCount_isOneAsInHttp() {
        stub(channel).createSegment(create("absent").build());

        assertThat(stub(channel).nextSegmentIds(NextSegmentIdsRequest.newBuilder()
                .setTag("absent").build()).getIdsList()).containsExactly(1L);
    }

    @Test
    void storeDown_isUnavailableWithRetryAfter() {
        StatusRuntimeException ids = assertStatus(() -> stub(downChannel).nextSegmentIds(
                next("order", 1)), Status.Code.UNAVAILABLE, "both buffers are empty");
        StatusRuntimeException created = assertStatus(() -> stub(downChannel).createSegment(
                create("order").build()), Status.Code.UNAVAILABLE,
                "the segment store did not answer");

        assertThat(ids.getTrailers().get(GrpcApi.RETRY_AFTER)).isEqualTo("1");
        assertThat(created.getTrailers().get(GrpcApi.RETRY_AFTER)).isEqualTo("1");
    }

    @Test
    void auth_createAndListAreAdminCalls_autoCreateServesNewTags() {
        assertStatus(() -> stub(securedChannel, "api")
                .createSegment(create("sec").build()), Status.Code.PERMISSION_DENIED,
                "CreateSegment is an admin call: it needs the admin token");
        assertStatus(() -> stub(securedChannel, "api").listSegments(
                ListSegmentsRequest.newBuilder().build()), Status.Code.PERMISSION_DENIED, "");
        assertStatus(() -> stub(securedChannel).nextSegmentIds(next("sec", 1)),
                Status.Code.UNAUTHENTICATED, "");

        // segment.auto-create: an unknown tag starts at 1 with segment.step.
        assertThat(stub(securedChannel, "api").nextSegmentIds(next("sec", 2)).getIdsList())
                .containsExactly(1L, 2L);
        // The store is past what was served; the next range (twice as long) may be in too.
        assertThat(stub(securedChannel, "admin").listSegments(ListSegmentsRequest.newBuilder()
                .build()).getSegmentsList()).containsAnyOf(
                        SegmentTag.newBuilder().setTag("sec").setNext(11).setStep(10).build(),
                        SegmentTag.newBuilder().setTag("sec").setNext(31).setStep(10).build());
    }

    private static StatusRuntimeException assertStatus(Supplier<?> call, Status.Code code,
            String description) {
        StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, call::get);
        assertThat(e).as("the call should have failed").isNotNull();
        assertThat(e.getStatus().getCode()).as(e.toString()).isEqualTo(code);
        assertThat(e.getStatus().getDescription()).contains(description);
        return e;
    }

    private static CreateSegmentRequest.Builder create(String tag) {
        return CreateSegmentRequest.newBuilder().setTag(tag);
    }

    private static NextSegmentIdsRequest next(String tag, int count) {
        return NextSegmentIdsRequest.newBuilder().setTag(tag).setCount(count).build();
    }

    private static IdServiceBlockingStub stub(ManagedChannel c) {
        return IdServiceGrpc.newBlockingStub(c).withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    private static IdServiceBlockingStub stub(ManagedChannel c, String token) {
        Metadata m = new Metadata();
        m.put(GrpcApi.AUTHORIZATION, "Bearer " + token);
        return stub(c).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(m));
    }
}
