package io.idmint.client;

import io.idmint.grpc.v1.NextSerialsRequest;
import io.idmint.grpc.v1.NextSerialsResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The values of one serial (docs/serials.md), from {@link IdClient#serial(String)}: each call
 * asks a server (NextSerials), with the client's failover. Unlike IDs and segment values,
 * serial values are not buffered here: a value held in a buffer could outlive its period, and a
 * serial never hands out a value of a period that has ended. Ask for several at once with
 * {@link #next(int)}. Thread-safe.
 */
public final class SerialClient {

    private final String name;
    private final Endpoints endpoints;
    private final Duration deadline;
    private final long callTimeoutNanos;

    SerialClient(String name, Endpoints endpoints, Duration deadline, long callTimeoutNanos) {
        this.name = name;
        this.endpoints = endpoints;
        this.deadline = deadline;
        this.callTimeoutNanos = callTimeoutNanos;
    }

    /** The serial this hands out values of. */
    public String name() {
        return name;
    }

    /**
     * The serial's next value, such as {@code INV-20261128-000042}.
     *
     * @throws IllegalArgumentException when a server does not define the serial (NOT_FOUND)
     * @throws IdServiceUnavailableException when no endpoint answered within the deadline
     */
    public String next() {
        return next(1).get(0);
    }

    /**
     * The serial's next {@code count} values, in the order one server took them.
     *
     * @throws IllegalArgumentException when a server does not define the serial, or refuses
     *     the count (INVALID_ARGUMENT: 1 to the server's max-count)
     * @throws IdServiceUnavailableException when no endpoint answered within the deadline
     */
    public List<String> next(int count) {
        NextSerialsRequest request = NextSerialsRequest.newBuilder().setName(name)
                .setCount(count).build();
        long end = System.nanoTime() + deadline.toNanos();
        NextSerialsResponse r = endpoints.call(end, deadline, callTimeoutNanos,
                "serial '" + name + "'", "no value of serial '" + name + "'",
                (e, timeout) -> e.blocking.withDeadlineAfter(timeout, TimeUnit.NANOSECONDS)
                        .nextSerials(request),
                response -> response.getValuesCount() > 0);
        return r.getValuesList();
    }
}
