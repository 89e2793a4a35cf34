package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.idmint.FencedUuidV7;
import io.idmint.Layout;
import io.idmint.TypedId;
import io.idmint.codes.CodeCodec;
import io.idmint.codes.Codes;
import io.idmint.codes.Keys;
import io.idmint.formats.TypeId;
import io.idmint.formats.UuidV7;
import io.idmint.grpc.v1.DecodeCodeRequest;
import io.idmint.grpc.v1.DecodeResponse;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.IdServiceGrpc.IdServiceBlockingStub;
import io.idmint.grpc.v1.NextCodesRequest;
import io.idmint.grpc.v1.NextFencedUuidsRequest;
import io.idmint.grpc.v1.NextFlakesRequest;
import io.idmint.grpc.v1.NextObjectIdsRequest;
import io.idmint.grpc.v1.NextTypedIdsRequest;
import io.idmint.grpc.v1.NextUuidsRequest;
import io.idmint.server.cli.CodesCliTest;
import io.idmint.server.grpc.GrpcApi;
import io.idmint.server.harness.TestServers;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Codes and the other formats over gRPC, on real in-process servers, as serve starts them. */
class CodesGrpcIT {

    private static final CodeCodec CODEC =
            Codes.newBuilder().key(1, Keys.fromHex(CodesCliTest.KEY)).build();

    @TempDir
    static Path data;

    private static Server server;
    private static Server bare;
    private static Server secured;
    private static ManagedChannel channel;
    private static ManagedChannel bareChannel;
    private static ManagedChannel securedChannel;

    @BeforeAll
    static void start() {
        server = TestServers.start(data.resolve("a"), "codes.key=" + CodesCliTest.KEY,
                "flake.worker=42");
        bare = TestServers.start(data.resolve("b"));
        secured = TestServers.start(data.resolve("c"), "codes.key=" + CodesCliTest.KEY,
                "auth.token=api", "auth.admin-token=admin");
        channel = channel(server);
        bareChannel = channel(bare);
        securedChannel = channel(secured);
    }

    private static ManagedChannel channel(Server s) {
        return ManagedChannelBuilder.forAddress("127.0.0.1", s.grpcPort()).usePlaintext().build();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        for (ManagedChannel c : new ManagedChannel[] {channel, bareChannel, securedChannel}) {
            if (c != null) {
                c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
        for (Server s : new Server[] {server, bare, secured}) {
            if (s != null) {
                s.close();
            }
        }
    }

    private static IdServiceBlockingStub stub(ManagedChannel c) {
        return IdServiceGrpc.newBlockingStub(c).withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    private static IdServiceBlockingStub stub(ManagedChannel c, String token) {
        Metadata m = new Metadata();
        m.put(GrpcApi.AUTHORIZATION, "Bearer " + token);
        return stub(c).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(m));
    }

    @Test
    void nextCodes_areUniqueAndDecodeToIncreasingIds() {
        List<String> codes = stub(channel).nextCodes(NextCodesRequest.newBuilder().setCount(1000)
                .build()).getCodesList();

        assertThat(codes).hasSize(1000).allMatch(c -> c.matches("1[0-9A-HJKMNP-TV-Z]{14}"));
        assertThat(new HashSet<>(codes)).hasSize(1000);
        long prev = 0;
        for (String c : codes) {
            assertThat(CODEC.decode(c)).isGreaterThan(prev);
            prev = CODEC.decode(c);
        }
    }

    @Test
    void decodeCode_givesTheIdsPartsWithCodeAndVersion() {
        String code = stub(channel).nextCodes(NextCodesRequest.newBuilder().setCount(1).build())
                .getCodes(0);
        long id = CODEC.decode(code);

        DecodeResponse r = stub(channel).decodeCode(DecodeCodeRequest.newBuilder()
                .setCode(code.substring(0, 5) + "-" + code.substring(5).toLowerCase()).build());

        assertThat(r.getId()).isEqualTo(id);
        assertThat(r.getCode()).isEqualTo(code);
        assertThat(r.getKeyVersion()).isEqualTo(1);
        assertThat(r.getTimestampMs()).isEqualTo(Layout.SNOWFLAKE.decode(id).timestampMillis());
        assertThat(r.getWorkerId()).isZero();
    }

    @Test
    void absentFields_countIsOne_codeIsMissing() {
        StatusRuntimeException missing = catchThrowableOfType(StatusRuntimeException.class,
                () -> stub(channel).decodeCode(DecodeCodeRequest.getDefaultInstance()));

        assertThat(stub(channel).nextCodes(NextCodesRequest.getDefaultInstance()).getCodesCount())
                .isEqualTo(1);
        assertThat(stub(channel).nextUuids(NextUuidsRequest.getDefaultInstance()).getUuidsCount())
                .isEqualTo(1);
        assertThat(missing.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(missing.getStatus().getDescription()).startsWith("missing code");
    }

    @Test
    void badInput_isInvalidArgumentNamingIt() {
        String code = stub(channel).nextCodes(NextCodesRequest.newBuilder().setCount(1).build())
                .getCodes(0);
        String bad = code.substring(0, 14) + (code.charAt(14) == 'A' ? 'B' : 'A');

        StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class,
                () -> stub(channel).decodeCode(DecodeCodeRequest.newBuilder().setCode(bad)
                        .build()));
        StatusRuntimeException count = catchThrowableOfType(StatusRuntimeException.class,
                () -> stub(channel).nextCodes(NextCodesRequest.newBuilder().setCount(0).build()));
        StatusRuntimeException uuids = catchThrowableOfType(StatusRuntimeException.class,
                () -> stub(channel).nextUuids(NextUuidsRequest.newBuilder().setCount(10_001)
                        .build()));

        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(e.getStatus().getDescription()).contains(bad);
        assertThat(count.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(count.getStatus().getDescription()).contains("count");
        assertThat(uuids.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    }

    @Test
    void nextUuidsObjectIdsFlakes_haveTheirShapes() {
        List<String> uuids = stub(channel).nextUuids(NextUuidsRequest.newBuilder().setCount(100)
                .build()).getUuidsList();
        List<String> oids = stub(channel).nextObjectIds(NextObjectIdsRequest.newBuilder()
                .setCount(100).build()).getObjectIdsList();
        List<String> flakes = stub(channel).nextFlakes(NextFlakesRequest.newBuilder()
                .setCount(100).build()).getFlakesList();

        assertThat(uuids).hasSize(100).isSorted().doesNotHaveDuplicates();
        uuids.forEach(UuidV7::parse);
        assertThat(oids).hasSize(100).doesNotHaveDuplicates()
                .allMatch(s -> s.matches("[0-9a-f]{24}"));
        assertThat(flakes).hasSize(100).isSorted().doesNotHaveDuplicates()
                .allMatch(s -> s.matches("[0-9a-f]{16}00000000002a[0-9a-f]{4}"));
    }

    @Test
    void nextFencedUuids_andTypedIds_carryIncreasingIdsOfThisServer() {
        List<String> uuids = stub(channel).nextFencedUuids(NextFencedUuidsRequest.newBuilder()
                .setCount(5000).build()).getUuidsList();
        List<String> typeIds = stub(channel).nextFencedUuids(NextFencedUuidsRequest.newBuilder()
                .setCount(10).setPrefix("user").build()).getUuidsList();
        List<String> typed = stub(channel).nextTypedIds(NextTypedIdsRequest.newBuilder()
                .setCount(10).setPrefix("ord").build()).getIdsList();

        assertThat(uuids).hasSize(5000).isSorted();
        long prev = 0;
        for (String u : uuids) {
            long id = FencedUuidV7.idOf(UuidV7.parse(u), Layout.SNOWFLAKE);
            assertThat(id).isGreaterThan(prev);
            prev = id;
        }
        for (String t : typeIds) {
            long id = FencedUuidV7.idOf(TypeId.parse(t, "user").uuid(), Layout.SNOWFLAKE);
            assertThat(id).isGreaterThan(prev);
            prev = id;
        }
        for (String t : typed) {
            long id = TypedId.parse(t, "ord").id();
            assertThat(id).isGreaterThan(prev);
            prev = id;
        }
        assertThat(stub(channel).nextFencedUuids(NextFencedUuidsRequest.getDefaultInstance())
                .getUuidsCount()).isEqualTo(1);
    }

    @Test
    void nextFencedUuidsAndTypedIds_badPrefixOrCount_isInvalidArgumentNamingIt() {
        StatusRuntimeException missing = catchThrowableOfType(StatusRuntimeException.class,
                () -> stub(channel).nextTypedIds(NextTypedIdsRequest.getDefaultInstance()));
        StatusRuntimeException capital = catchThrowableOfType(StatusRuntimeException.class,
                () -> stub(channel).nextFencedUuids(NextFencedUuidsRequest.newBuilder()
                        .setPrefix("User").build()));
        StatusRuntimeException tooMany = catchThrowableOfType(StatusRuntimeException.class,
                () -> stub(channel).nextTypedIds(NextTypedIdsRequest.newBuilder()
                        .setPrefix("ord").setCount(10_001).build()));

        assertThat(missing.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(missing.getStatus().getDescription()).isEqualTo("missing prefix: set "
                + "NextTypedIdsRequest.prefix to the type prefix, such as \"ord\"");
        assertThat(capital.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(capital.getStatus().getDescription()).isEqualTo("type prefix 'User' has "
                + "'U': only lowercase letters a-z and '_' may be in a prefix");
        assertThat(tooMany.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(tooMany.getStatus().getDescription()).contains("count");
    }

    @Test
    void notConfigured_isFailedPreconditionNamingTheKeys() {
        StatusRuntimeException codes = catchThrowableOfType(StatusRuntimeException.class,
                () -> stub(bareChannel).nextCodes(NextCodesRequest.newBuilder().setCount(1)
                        .build()));
        StatusRuntimeException decode = catchThrowableOfType(StatusRuntimeException.class,
                () -> stub(bareChannel).decodeCode(DecodeCodeRequest.newBuilder()
                        .setCode("10TV5WV06VX97ET").build()));
        StatusRuntimeException flakes = catchThrowableOfType(StatusRuntimeException.class,
                () -> stub(bareChannel).nextFlakes(NextFlakesRequest.newBuilder().setCount(1)
                        .build()));

        assertThat(codes.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(codes.getStatus().getDescription()).contains("codes.key");
        assertThat(decode.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(flakes.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(flakes.getStatus().getDescription()).contains("flake.worker");
        assertThat(stub(bareChannel).nextUuids(NextUuidsRequest.newBuilder().setCount(1).build())
                .getUuidsCount()).isEqualTo(1);
    }

    @Test
    void auth_decodeCodeIsAnAdminCall() {
        String code = stub(securedChannel, "api").nextCodes(NextCodesRequest.newBuilder()
                .setCount(1).build()).getCodes(0);
        DecodeCodeRequest req = DecodeCodeRequest.newBuilder().setCode(code).build();

        StatusRuntimeException api = catchThrowableOfType(StatusRuntimeException.class,
                () -> stub(securedChannel, "api").decodeCode(req));
        StatusRuntimeException none = catchThrowableOfType(StatusRuntimeException.class,
                () -> stub(securedChannel).nextCodes(NextCodesRequest.newBuilder().setCount(1)
                        .build()));

        assertThat(api.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(none.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
        assertThat(stub(securedChannel, "admin").decodeCode(req).getCode()).isEqualTo(code);
    }
}
