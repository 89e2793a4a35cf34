package io.idmint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.NextIdsResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class GrpcIdBatchTest {

    /** The bytes protobuf writes for the first {@code n} of {@code ids}. */
    private static byte[] protobuf(long[] ids, int n) {
        NextIdsResponse.Builder b = NextIdsResponse.newBuilder();
        for (int i = 0; i < n; i++) {
            b.addIds(ids[i]);
        }
        return b.build().toByteArray();
    }

    private static byte[] drained(long[] ids, int n) throws Exception {
        InputStream in = GrpcIdBatch.MARSHALLER.stream(new GrpcIdBatch(ids, n));
        int size = ((KnownLength) in).available();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int written = ((Drainable) in).drainTo(out);
        assertThat(written).isEqualTo(size).isEqualTo(out.size());
        assertThat(in.available()).isZero();
        return out.toByteArray();
    }

    @Test
    void drainTo_writesTheBytesProtobufWrites() throws Exception {
        long[] edges = {0, 1, 127, 128, 16_383, 16_384, (1L << 56) - 1, 1L << 56,
            Long.MAX_VALUE, -1, Long.MIN_VALUE, 178294819283726336L};
        for (int n = 0; n <= edges.length; n++) {
            assertThat(drained(edges, n)).isEqualTo(protobuf(edges, n));
        }
        // Many chunks of the scratch buffer, with a length of three varint bytes.
        long[] ids = new SplittableRandom(18).longs(20_000, 0, Long.MAX_VALUE).toArray();
        for (int n : new int[] {1, 100, 910, 911, 1000, 20_000}) {
            byte[] bytes = drained(ids, n);
            assertThat(bytes).isEqualTo(protobuf(ids, n));
            assertThat(NextIdsResponse.parseFrom(bytes).getIdsList())
                    .containsExactlyElementsOf(Arrays.stream(ids, 0, n).boxed().toList());
        }
    }

    @Test
    void read_givesTheSameBytesAsDrainTo() throws Exception {
        long[] ids = new SplittableRandom(7).longs(3000, 0, Long.MAX_VALUE).toArray();
        InputStream in = GrpcIdBatch.MARSHALLER.stream(new GrpcIdBatch(ids, 2500));
        int first = in.read();
        byte[] rest = in.readAllBytes();
        byte[] all = new byte[rest.length + 1];
        all[0] = (byte) first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        assertThat(all).isEqualTo(protobuf(ids, 2500));
    }

    @Test
    void parse_isRefused() {
        assertThatThrownBy(() -> GrpcIdBatch.MARSHALLER.parse(new ByteArrayInputStream(
                new byte[0]))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void bind_replacesTheThreeIdCallsAndKeepsTheRest() {
        var generated = new IdServiceGrpc.IdServiceImplBase() { }.bindService();
        var bound = GrpcIdBatch.bind(generated, (call, headers) -> null,
                (call, headers) -> null, (call, headers) -> null);
        assertThat(bound.getServiceDescriptor().getSchemaDescriptor())
                .isSameAs(generated.getServiceDescriptor().getSchemaDescriptor());
        assertThat(bound.getMethods()).hasSameSizeAs(generated.getMethods());
        for (var m : bound.getMethods()) {
            String name = m.getMethodDescriptor().getBareMethodName();
            boolean batched = m.getMethodDescriptor().getResponseMarshaller()
                    == GrpcIdBatch.MARSHALLER;
            assertThat(batched).as(name).isEqualTo(name.equals("NextIds")
                    || name.equals("StreamIds") || name.equals("NextSegmentIds"));
            assertThat(m.getMethodDescriptor().getSchemaDescriptor()).as(name).isSameAs(
                    generated.getMethod(m.getMethodDescriptor().getFullMethodName())
                            .getMethodDescriptor().getSchemaDescriptor());
        }
    }
}
