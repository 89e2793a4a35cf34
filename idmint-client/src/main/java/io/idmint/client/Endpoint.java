package io.idmint.client;

import io.grpc.ManagedChannel;
import io.idmint.grpc.v1.IdServiceGrpc;

/** One server the client may ask: its target, channel and stubs. */
final class Endpoint {

    final String target;
    final ManagedChannel channel;
    final IdServiceGrpc.IdServiceStub async;
    final IdServiceGrpc.IdServiceBlockingStub blocking;

    Endpoint(String target, ManagedChannel channel) {
        this.target = target;
        this.channel = channel;
        this.async = IdServiceGrpc.newStub(channel);
        this.blocking = IdServiceGrpc.newBlockingStub(channel);
    }

    @Override
    public String toString() {
        return target;
    }
}
