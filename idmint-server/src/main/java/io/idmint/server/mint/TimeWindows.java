package io.idmint.server.mint;

import io.idmint.IdRange;
import io.idmint.Layout;
import io.idmint.formats.Bounds;
import io.idmint.formats.ObjectId;
import io.idmint.formats.UuidV7;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * The IDs of a time window {@code [from, to)}, for {@code idmint range}, {@code GET
 * /api/v1/range} and gRPC {@code Range}: the layout's IDs ({@link Layout#range}), or any UUIDv7
 * ({@link UuidV7#range}) or ObjectId ({@link ObjectId#range}), as the bounds of {@code WHERE id
 * >= idFrom AND id < idTo}.
 */
public final class TimeWindows {

    private TimeWindows() {
    }

    /**
     * A window's bounds.
     *
     * @param kind snowflake, uuid7 or objectid
     * @param layout the layout's spec, for snowflake; null otherwise
     * @param tickMillis how coarse the bounds are: the layout's tick, 1 ms or 1 s
     */
    public record Window(String kind, String layout, Instant from, Instant to, String idFrom,
            String idTo, long tickMillis) {
    }

    /**
     * The bounds of {@code [from, to)}.
     *
     * @param kind snowflake (null too), uuid7 or objectid, in any case
     * @throws IllegalArgumentException naming the kind, or why the window holds no ID
     */
    public static Window of(Layout layout, String kind, Instant from, Instant to) {
        String k = kind == null ? "snowflake" : kind.toLowerCase(Locale.ROOT);
        switch (k) {
            case "snowflake" -> {
                IdRange r = layout.range(from, to);
                return new Window(k, layout.spec(), from, to, Long.toString(r.from()),
                        Long.toString(r.to()), layout.tickMillis());
            }
            case "uuid7" -> {
                Bounds<java.util.UUID> b = UuidV7.range(from, to);
                return new Window(k, null, from, to, b.from().toString(), b.to().toString(), 1);
            }
            case "objectid" -> {
                Bounds<ObjectId> b = ObjectId.range(from, to);
                return new Window(k, null, from, to, b.from().toHexString(),
                        b.to().toHexString(), 1000);
            }
            default -> throw new IllegalArgumentException("kind must be snowflake, uuid7 or "
                    + "objectid, got '" + kind + "'");
        }
    }

    /**
     * An ISO-8601 instant, or a date for its midnight UTC.
     *
     * @param name how the message names the value, e.g. {@code --from}
     * @throws IllegalArgumentException naming it when it is neither
     */
    public static Instant instant(String name, String text) {
        try {
            return text.length() == 10 ? LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC)
                    .toInstant() : Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(name + " '" + text + "' is neither an instant "
                    + "such as 2026-11-28T00:00:00Z nor a date such as 2026-11-28");
        }
    }
}
