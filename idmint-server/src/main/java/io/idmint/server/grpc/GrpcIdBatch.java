package io.idmint.server.grpc;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.idmint.grpc.v1.IdServiceGrpc;
import io.idmint.grpc.v1.NextIdsRequest;
import io.idmint.grpc.v1.NextSegmentIdsRequest;
import io.idmint.grpc.v1.StreamIdsRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.Map;

/**
 * The first {@code n} IDs of an array, sent as a {@code NextIdsResponse}: the reply of NextIds,
 * StreamIds (each batch) and NextSegmentIds, written as protobuf writes it (field 1, packed
 * varints) straight into gRPC's outgoing buffers, with no message, builder or boxed list per
 * reply. gRPC writes a reply during {@code onNext}, so the array may be refilled once that
 * returns (a stream reuses one array for all its batches).
 *
 * @param ids the IDs, of which the first {@code n} are sent
 */
record GrpcIdBatch(long[] ids, int n) {

    /** How replies are written; the server never reads one. */
    static final MethodDescriptor.Marshaller<GrpcIdBatch> MARSHALLER = new Marshaller();

    /** Bytes encoded at a time before they go to gRPC's buffer. */
    private static final int CHUNK = 8192;
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(
            () -> new byte[CHUNK]);

    /**
     * The generated service definition of {@code idmint.v1.IdService} with its three calls that
     * answer {@code NextIdsResponse} bound to these handlers, which answer a batch instead.
     */
    static ServerServiceDefinition bind(ServerServiceDefinition generated,
            ServerCallHandler<NextIdsRequest, GrpcIdBatch> nextIds,
            ServerCallHandler<StreamIdsRequest, GrpcIdBatch> streamIds,
            ServerCallHandler<NextSegmentIdsRequest, GrpcIdBatch> nextSegmentIds) {
        Map<String, ServerMethodDefinition<?, ?>> batched = new HashMap<>();
        for (ServerMethodDefinition<?, ?> m : new ServerMethodDefinition<?, ?>[] {
            batched(IdServiceGrpc.getNextIdsMethod(), nextIds),
            batched(IdServiceGrpc.getStreamIdsMethod(), streamIds),
            batched(IdServiceGrpc.getNextSegmentIdsMethod(), nextSegmentIds)}) {
            batched.put(m.getMethodDescriptor().getFullMethodName(), m);
        }
        ServiceDescriptor old = generated.getServiceDescriptor();
        ServiceDescriptor.Builder service = ServiceDescriptor.newBuilder(old.getName())
                .setSchemaDescriptor(old.getSchemaDescriptor());
        ServerMethodDefinition<?, ?>[] methods = generated.getMethods().stream()
                .map(m -> batched.getOrDefault(m.getMethodDescriptor().getFullMethodName(), m))
                .toArray(ServerMethodDefinition<?, ?>[]::new);
        for (ServerMethodDefinition<?, ?> m : methods) {
            service.addMethod(m.getMethodDescriptor());
        }
        ServerServiceDefinition.Builder out = ServerServiceDefinition.builder(service.build());
        for (ServerMethodDefinition<?, ?> m : methods) {
            out.addMethod(m);
        }
        return out.build();
    }

    private static <Q> ServerMethodDefinition<Q, GrpcIdBatch> batched(
            MethodDescriptor<Q, ?> generated, ServerCallHandler<Q, GrpcIdBatch> handler) {
        return ServerMethodDefinition.create(
                generated.toBuilder(generated.getRequestMarshaller(), MARSHALLER).build(),
                handler);
    }

    /** Bytes the reply takes, given its {@link #bodySize()}: none at all when empty. */
    static int encodedSize(int body) {
        return body == 0 ? 0 : 1 + varintSize(body) + body;
    }

    /** Bytes the packed IDs take, without the field's tag and length. */
    int bodySize() {
        int size = 0;
        for (int i = 0; i < n; i++) {
            size += varintSize(ids[i]);
        }
        return size;
    }

    /**
     * Writes the reply to {@code out}, a chunk at a time; returns the bytes written.
     *
     * @param body the batch's {@link #bodySize()}
     */
    int writeTo(OutputStream out, int body) throws IOException {
        if (body == 0) {
            return 0;
        }
        byte[] buf = SCRATCH.get();
        buf[0] = 0x0a;
        int p = varint(body, buf, 1);
        for (int i = 0; i < n; i++) {
            if (p > CHUNK - 10) {
                out.write(buf, 0, p);
                p = 0;
            }
            p = varint(ids[i], buf, p);
        }
        out.write(buf, 0, p);
        return encodedSize(body);
    }

    private static int varint(long v, byte[] buf, int p) {
        while ((v & ~0x7FL) != 0) {
            buf[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[p++] = (byte) v;
        return p;
    }

    private static int varintSize(long v) {
        // 1 byte per 7 bits; a negative int64 takes 10.
        return v == 0 ? 1 : (63 - Long.numberOfLeadingZeros(v)) / 7 + 1;
    }

    private static final class Marshaller implements MethodDescriptor.Marshaller<GrpcIdBatch> {

        @Override
        public InputStream stream(GrpcIdBatch batch) {
            return new Encoded(batch);
        }

        @Override
        public GrpcIdBatch parse(InputStream in) {
            throw new UnsupportedOperationException("a server sends ID batches, never reads one");
        }
    }

    /**
     * A reply as gRPC takes it: its length known up front, and drained into gRPC's buffer
     * rather than read a byte at a time (read only if gRPC ever asks: then it is encoded once).
     * gRPC asks the length before it drains, so the IDs are sized once per reply, not twice.
     */
    private static final class Encoded extends InputStream implements Drainable, KnownLength {

        private GrpcIdBatch batch;
        private int body = -1;
        private ByteArrayInputStream read;

        Encoded(GrpcIdBatch batch) {
            this.batch = batch;
        }

        @Override
        public int drainTo(OutputStream target) throws IOException {
            if (read != null) {
                return (int) read.transferTo(target);
            }
            int written = batch == null ? 0 : batch.writeTo(target, body());
            batch = null;
            return written;
        }

        @Override
        public int available() {
            return read != null ? read.available() : batch == null ? 0 : encodedSize(body());
        }

        private int body() {
            if (body < 0) {
                body = batch.bodySize();
            }
            return body;
        }

        @Override
        public int read() throws IOException {
            return reader().read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return reader().read(b, off, len);
        }

        private InputStream reader() throws IOException {
            if (read == null) {
                var bytes = new java.io.ByteArrayOutputStream();
                if (batch != null) {
                    batch.writeTo(bytes, body());
                }
                batch = null;
                read = new ByteArrayInputStream(bytes.toByteArray());
            }
            return read;
        }
    }
}
