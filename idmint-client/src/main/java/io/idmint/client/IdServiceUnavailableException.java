package io.idmint.client;

import java.time.Duration;
import java.util.Map;

/**
 * No endpoint gave IDs within the caller's deadline (see docs/client.md, "Exceptions"): every
 * endpoint failed, was waiting out its {@code retry-after}, or stayed silent. It carries each
 * endpoint's last failure, by target, in the order the client was given them.
 */
public final class IdServiceUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Each endpoint's last failure by target, in the client's endpoint order. */
    private final transient Map<String, String> failures;

    IdServiceUnavailableException(String what, Duration deadline, Map<String, String> failures) {
        super(what + " within " + deadline.toMillis() + " ms; last failure of each endpoint: "
                + failures);
        this.failures = failures;
    }

    /**
     * Each endpoint's last failure by target ({@code "none"} for one that has not failed),
     * in the order the client was given them.
     */
    public Map<String, String> failures() {
        return failures;
    }
}
