package io.idmint.server.http;

import io.idmint.TimeSource;
import io.netty.handler.codec.DateFormatter;
import io.vertx.core.http.HttpHeaders;
import java.util.Date;

/**
 * The {@code Date} header every response carries (RFC 9110, section 6.6.1: an origin server with
 * a clock sends one), in IMF-fixdate form ({@code Sun, 06 Nov 1994 08:49:37 GMT}). One per event
 * loop, touched by that loop only: the value is made once a second, so a response allocates
 * nothing for it.
 */
final class DateHeader {

    private final TimeSource time;
    private long second = Long.MIN_VALUE;
    private CharSequence value;

    DateHeader(TimeSource time) {
        this.time = time;
    }

    /** The header's value for the current second. */
    CharSequence now() {
        long s = Math.floorDiv(time.currentTimeMillis(), 1000);
        if (s != second) {
            value = HttpHeaders.createOptimized(DateFormatter.format(new Date(s * 1000)));
            second = s;
        }
        return value;
    }
}
