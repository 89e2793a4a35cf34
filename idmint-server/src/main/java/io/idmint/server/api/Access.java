package io.idmint.server.api;

import io.idmint.TimeSource;
import io.netty.util.NetUtil;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Optional security, shared by HTTP and gRPC: bearer tokens (one for the API, a separate one for
 * admin calls such as decode) and a per-client limit on IDs per second. Everything is off by
 * default.
 */
public final class Access {

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
    /** Counts the charges of new clients that found the table full and took the shared one. */
    private final Runnable shared;
    /**
     * The most clients with an allowance of their own. At the cap, idle ones are swept out (at
     * most once a second, so a flood of new keys cannot make every charge a scan), and a new
     * client that still finds the table full shares {@link #overflow} with every other such.
     */
    static final int MAX_CLIENTS = 10_000;
    private static final long SWEEP_EVERY_NANOS = 1_000_000_000L;

    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();
    private final Bucket overflow;
    private final AtomicLong lastSweep;

    /**
     * @param apiToken the token API calls must bear, or null for none
     * @param adminToken the token admin calls must bear, or null for none (then admin calls need
     *     the API token, if any)
     * @param idsPerSecond IDs per second per client, or 0 for no limit
     */
    public Access(String apiToken, String adminToken, long idsPerSecond, TimeSource time) {
        this(apiToken, adminToken, idsPerSecond, time, () -> { });
    }

    /** @param shared counts each charge of a new client sent to the shared overflow allowance */
    public Access(String apiToken, String adminToken, long idsPerSecond, TimeSource time,
            Runnable shared) {
        this.apiToken = apiToken == null ? null : apiToken.getBytes(StandardCharsets.UTF_8);
        this.adminToken = adminToken == null ? null : adminToken.getBytes(StandardCharsets.UTF_8);
        this.idsPerSecond = idsPerSecond;
        this.time = time;
        this.shared = shared;
        long now = time.nanoTime();
        this.overflow = new Bucket(idsPerSecond, now);
        this.lastSweep = new AtomicLong(now);
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
     * The key of a caller's allowance: who the caller is proven to be. That is the token it bears
     * when the token is one of those configured ({@code api} or {@code admin}, so two spellings
     * of one token are one client), else its network: the IPv4 /24 or the IPv6 /64 of its
     * address (an IPv4-mapped IPv6 address counts as IPv4). Never the raw header: a made-up
     * token, or another address of the same host, would get a full allowance of its own.
     *
     * @param authorization the {@code Authorization} value, or null
     * @param address the caller's IP address as text, or null
     */
    String client(String authorization, String address) {
        byte[] presented = bearer(authorization);
        if (matches(presented, adminToken)) {
            return "token:admin";
        }
        if (matches(presented, apiToken)) {
            return "token:api";
        }
        return network(address);
    }

    /** {@code net:a.b.c} for an IPv4 /24, {@code net:} and 8 bytes in hex for an IPv6 /64. */
    static String network(String address) {
        byte[] ip = address == null ? null : NetUtil.createByteArrayFromIpAddressString(address);
        if (ip == null) {
            return "net:unknown";
        }
        if (ip.length == 16 && isIpv4Mapped(ip)) {
            ip = java.util.Arrays.copyOfRange(ip, 12, 16);
        }
        StringBuilder b = new StringBuilder(24).append("net:");
        if (ip.length == 4) {
            return b.append(ip[0] & 0xff).append('.').append(ip[1] & 0xff).append('.')
                    .append(ip[2] & 0xff).toString();
        }
        for (int i = 0; i < 8; i++) {
            b.append(Character.forDigit((ip[i] >> 4) & 0xf, 16))
                    .append(Character.forDigit(ip[i] & 0xf, 16));
        }
        return b.toString();
    }

    private static boolean isIpv4Mapped(byte[] ip) {
        for (int i = 0; i < 10; i++) {
            if (ip[i] != 0) {
                return false;
            }
        }
        return ip[10] == (byte) 0xff && ip[11] == (byte) 0xff;
    }

    /**
     * Takes {@code ids} from {@code client}'s allowance (a key from {@link #client}) if it holds
     * them. The token was checked already.
     *
     * @return 0 when taken, else the nanoseconds until the allowance holds them (nothing taken)
     */
    long take(String client, long ids) {
        long now = time.nanoTime();
        Bucket b = buckets.get(client);
        if (b == null) {
            b = admit(client, now);
        }
        return b.take(ids, idsPerSecond, now);
    }

    /** The bucket of a client not in the table: a new one, or the overflow when it is full. */
    private Bucket admit(String client, long now) {
        if (buckets.size() >= MAX_CLIENTS) {
            long last = lastSweep.get();
            if (now - last >= SWEEP_EVERY_NANOS && lastSweep.compareAndSet(last, now)) {
                sweep(now);
            }
            if (buckets.size() >= MAX_CLIENTS) {
                shared.run();
                return overflow;
            }
        }
        // Threads racing past the check may add a few more than the cap: still bounded.
        return buckets.computeIfAbsent(client, k -> new Bucket(idsPerSecond, now));
    }

    /** How many clients have an allowance of their own (the overflow aside). */
    int clients() {
        return buckets.size();
    }

    /**
     * Forgets clients idle for over a second: their buckets are full again, so forgetting them
     * changes no verdict.
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
    private static String token(String authorization) {
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
