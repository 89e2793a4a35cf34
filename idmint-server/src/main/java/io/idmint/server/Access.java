package io.idmint.server;

import io.idmint.TimeSource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Optional security, shared by HTTP and gRPC: bearer tokens (one for the API, a separate one for
 * admin calls such as decode) and a per-client limit on IDs per second. Everything is off by
 * default.
 */
final class Access {

    /** The outcome of a check, by what the transport answers. */
    enum Verdict {
        /** Go on. */
        OK,
        /** No or wrong token: HTTP 401, gRPC UNAUTHENTICATED. */
        UNAUTHORIZED,
        /** A valid API token on an admin call: HTTP 403, gRPC PERMISSION_DENIED. */
        FORBIDDEN
    }

    private final byte[] apiToken;
    private final byte[] adminToken;
    private final long idsPerSecond;
    private final TimeSource time;
    /** Above this many clients, idle ones are swept out. */
    private static final int MAX_CLIENTS = 10_000;

    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

    /**
     * @param apiToken the token API calls must bear, or null for none
     * @param adminToken the token admin calls must bear, or null for none (then admin calls need
     *     the API token, if any)
     * @param idsPerSecond IDs per second per client, or 0 for no limit
     */
    Access(String apiToken, String adminToken, long idsPerSecond, TimeSource time) {
        this.apiToken = apiToken == null ? null : apiToken.getBytes(StandardCharsets.UTF_8);
        this.adminToken = adminToken == null ? null : adminToken.getBytes(StandardCharsets.UTF_8);
        this.idsPerSecond = idsPerSecond;
        this.time = time;
    }

    boolean authEnabled() {
        return apiToken != null || adminToken != null;
    }

    /** Whether IDs per second are limited per client. */
    boolean rateLimited() {
        return idsPerSecond > 0;
    }

    /** The limit per client, 0 when there is none. */
    long idsPerSecond() {
        return idsPerSecond;
    }

    /**
     * Checks one call's token.
     *
     * @param authorization the {@code Authorization} header or metadata value, or null
     * @param admin whether the call is an admin call (decode, codes lookup)
     */
    Verdict check(String authorization, boolean admin) {
        byte[] presented = bearer(authorization);
        if (admin && adminToken != null) {
            if (!matches(presented, adminToken)) {
                return matches(presented, apiToken) ? Verdict.FORBIDDEN : Verdict.UNAUTHORIZED;
            }
        } else if (apiToken != null && !matches(presented, apiToken)
                && !matches(presented, adminToken)) {
            return Verdict.UNAUTHORIZED;
        }
        return Verdict.OK;
    }

    /**
     * Takes {@code ids} from {@code client}'s allowance (the token, else the remote address) if
     * it holds them. The token was checked already.
     *
     * @return 0 when taken, else the nanoseconds until the allowance holds them (nothing taken)
     */
    long take(String client, long ids) {
        if (buckets.size() > MAX_CLIENTS) {
            sweep(time.nanoTime());
        }
        Bucket b = buckets.computeIfAbsent(client,
                k -> new Bucket(idsPerSecond, time.nanoTime()));
        return b.take(ids, idsPerSecond, time.nanoTime());
    }

    /**
     * Forgets clients idle for over a second: their buckets are full again, so forgetting them
     * changes no verdict, and the table cannot grow without bound.
     */
    private void sweep(long nowNanos) {
        buckets.values().removeIf(b -> b.idleSince(nowNanos) > 1_000_000_000L);
    }

    /** Seconds to wait after {@link #take} refused: HTTP Retry-After, gRPC retry-after. */
    long retryAfterSeconds() {
        return 1;
    }

    private static byte[] bearer(String authorization) {
        String token = token(authorization);
        return token == null ? null : token.getBytes(StandardCharsets.UTF_8);
    }

    /** The token of a {@code Bearer} authorization, or null when it is not one. */
    static String token(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        return authorization.substring(7).trim();
    }

    private static boolean matches(byte[] presented, byte[] expected) {
        // Constant time, so a token cannot be guessed byte by byte from response times.
        return presented != null && expected != null && MessageDigest.isEqual(presented, expected);
    }

    /** A token bucket: holds up to one second of IDs, refilled continuously. */
    private static final class Bucket {
        private double tokens;
        private long lastNanos;

        Bucket(long capacity, long nowNanos) {
            this.tokens = capacity;
            this.lastNanos = nowNanos;
        }

        synchronized long idleSince(long nowNanos) {
            return nowNanos - lastNanos;
        }

        /** Takes n and returns 0, or returns the nanoseconds until it holds n (at least 1). */
        synchronized long take(long n, long perSecond, long nowNanos) {
            tokens = Math.min(perSecond, tokens + (nowNanos - lastNanos) * perSecond / 1e9);
            lastNanos = nowNanos;
            if (n > tokens) {
                return Math.max(1, (long) Math.ceil((n - tokens) * 1e9 / perSecond));
            }
            tokens -= n;
            return 0;
        }
    }
}
