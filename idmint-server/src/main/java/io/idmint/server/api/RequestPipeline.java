package io.idmint.server.api;

import io.idmint.server.ops.AccessLog;

/**
 * The steps every request takes, whatever its transport: authorise → parse → charge → mint →
 * render. The transport authorises the call here for its {@link Operation} (the admin token on an
 * admin call, else the API token) before it reads the parameters; {@link Calls} then runs each
 * operation's parse, charge and mint steps, the first two through the ones below, in one order
 * for both transports; the transport renders what that answers, and maps an
 * {@link ApiException} to its status codes. The rules live here, once:
 *
 * <ul>
 *   <li>parse: an absent count is 1; a count is a whole number from 1 to the call's limit; an
 *       absent ID or code is "missing";
 *   <li>authorise: the API token, or the admin token on admin calls (see {@link Access});
 *   <li>charge: the caller's IDs per second, after the request is valid and before anything is
 *       minted, so a refused request issues nothing.
 * </ul>
 *
 * <p>The rate limit counts against what the caller is proven to be ({@link Access#client}):
 * a configured token it bears, else its network (an IPv4 /24, an IPv6 /64). A token that
 * matches none proves nothing, and keying on it would let a client dodge the limit, and grow
 * {@link Access}'s table, with a new one each call. Both transports key the same way, so one
 * {@link Access} limits a client across both.
 */
public final class RequestPipeline {

    /**
     * Who is calling.
     *
     * @param authorization the {@code Authorization} header or {@code authorization} metadata
     *     value, or null
     * @param address the caller's IP address
     * @param authorizations how many {@code Authorization} headers (metadata values) it sent;
     *     more than one is refused, since which one counts would be a guess
     */
    public record Caller(String authorization, String address, int authorizations) {

        /** The caller when the pipeline is not {@link #guarded()}: nobody in particular. */
        public static final Caller NOBODY = new Caller(null, null, 0);

        /** A caller that sent {@code authorizations} (all its values, in order). */
        public static Caller of(java.util.List<String> authorizations, String address) {
            return new Caller(authorizations.isEmpty() ? null : authorizations.get(0), address,
                    authorizations.size());
        }
    }

    private final Access access;
    private final AccessLog log;
    private final InternalErrors errors;

    /** @param log the access log, or null when it is off */
    public RequestPipeline(Access access, AccessLog log, InternalErrors errors) {
        this.access = access;
        this.log = log;
        this.errors = errors;
    }

    /**
     * Whether a request that needs no token may see what admin calls guard (segment tag names
     * and counts): always with authentication off, else only with the token an admin call
     * needs.
     *
     * @param authorization the request's {@code Authorization} value, or null
     */
    public boolean showsTags(String authorization) {
        return !access.authEnabled() || access.check(authorization,
                Operation.LIST_SEGMENTS.admin()) == Access.Verdict.OK;
    }

    /** Where a failure that is no refusal (a bug) is logged, and its incident id taken. */
    public InternalErrors errors() {
        return errors;
    }

    /** The access log, or null when it is off. */
    public AccessLog log() {
        return log;
    }

    /** Whether authorise or charge can refuse anything: else a transport need not read a caller. */
    public boolean guarded() {
        return access.authEnabled() || access.rateLimited();
    }

    /** The most IDs one charge can ever pass: the IDs-per-second limit, if any. */
    public long mostPerCharge() {
        return access.rateLimited() ? access.idsPerSecond() : Long.MAX_VALUE;
    }

    /**
     * Authorise: checks the caller's token for {@code op}: the admin token on an
     * {@linkplain Operation#admin() admin call}, else the API token.
     *
     * @param call names the call in the refusal, as its transport knows it
     * @throws ApiException BAD_REQUEST for more than one token, UNAUTHORIZED or FORBIDDEN
     */
    public void authorise(Caller caller, Operation op, String call) {
        if (caller.authorizations() > 1) {
            throw new ApiException(Problem.BAD_REQUEST, "more than one Authorization header");
        }
        if (!access.authEnabled()) {
            return;
        }
        String authorization = caller.authorization();
        switch (access.check(authorization, op.admin())) {
            case OK -> { }
            case FORBIDDEN -> throw new ApiException(Problem.FORBIDDEN, call
                    + " is an admin call: it needs the admin token");
            default -> throw new ApiException(Problem.UNAUTHORIZED, authorization == null
                    ? "this server needs an Authorization: Bearer token"
                    : "the bearer token is not valid here");
        }
    }

    /**
     * Charge: takes {@code ids} from the caller's allowance (the token was checked already).
     *
     * @throws ApiException RATE_LIMITED, with when to retry
     */
    public void charge(Caller caller, long ids) {
        if (chargeOrWait(caller, ids) > 0) {
            throw new ApiException(Problem.RATE_LIMITED, "over the limit of "
                    + access.idsPerSecond() + " IDs per second for this client; asked for " + ids,
                    access.retryAfterSeconds());
        }
    }

    /**
     * Charge, for a caller that would rather wait than be refused (a StreamIds batch): takes
     * {@code ids} (at most {@link #mostPerCharge()}) from the caller's allowance if it holds
     * them.
     *
     * @return 0 when charged, else the nanoseconds after which the allowance will hold them
     *     (nothing was taken: charge again then)
     */
    public long chargeOrWait(Caller caller, long ids) {
        if (!access.rateLimited()) {
            return 0;
        }
        return access.take(access.client(caller.authorization(), caller.address()), ids);
    }

    /**
     * Parse: a count given as text (a query parameter), or null when absent.
     *
     * @return 1 when absent, else the count
     * @throws ApiException BAD_PARAMETER when it is not a whole number, or naming the value
     *     and the range when it is out of range
     */
    static Count count(String text, int max) {
        if (text == null) {
            return Count.ONE;
        }
        // By hand rather than a regex: HTTP parses a count on every bulk request.
        int start = text.startsWith("-") ? 1 : 0;
        boolean digits = text.length() > start;
        for (int i = start; digits && i < text.length(); i++) {
            char c = text.charAt(i);
            digits = c >= '0' && c <= '9';
        }
        if (!digits) {
            throw new ApiException(Problem.BAD_PARAMETER, "count must be a whole number, got '"
                + text + "'");
        }
        if (text.length() - start > 18) {
            throw ApiException.badParameter(Count.outOfRange(text, max));
        }
        return count(Long.parseLong(text), max);
    }

    /**
     * Parse: a count given as a number (a protobuf field).
     *
     * @param present whether the field is set; an absent count is 1
     * @throws ApiException BAD_PARAMETER naming the value and the range
     */
    public static Count count(boolean present, long value, long max) {
        return present ? count(value, max) : Count.ONE;
    }

    // Without parse(Supplier): a count is parsed on every bulk request, and a capturing lambda
    // there cost 48 bytes of heap a request (scripts/bench alloc).
    private static Count count(long n, long max) {
        try {
            return Count.of(n, max);
        } catch (IllegalArgumentException e) {
            throw ApiException.badParameter(e);
        }
    }

    /**
     * Parse: a check of the caller's input that throws {@link IllegalArgumentException} (a tag
     * name, a format name, a new tag's start and step).
     *
     * @throws ApiException BAD_PARAMETER with the check's message
     */
    static void check(Runnable check) {
        try {
            check.run();
        } catch (IllegalArgumentException e) {
            throw ApiException.badParameter(e);
        }
    }

    /**
     * Parse: a value made from the caller's input by a factory that checks it (a {@link Tag}).
     *
     * @throws ApiException BAD_PARAMETER with the factory's message
     */
    static <T> T parse(java.util.function.Supplier<T> make) {
        try {
            return make.get();
        } catch (IllegalArgumentException e) {
            throw ApiException.badParameter(e);
        }
    }

    /**
     * Parse: a required text value (an ID or a code), or null or empty when absent.
     *
     * @param missing the message when it is absent, naming the field and where it goes
     * @throws ApiException BAD_PARAMETER when it is absent
     */
    static String required(String text, String missing) {
        if (text == null || text.isEmpty()) {
            throw new ApiException(Problem.BAD_PARAMETER, missing);
        }
        return text;
    }
}
