package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdParts;
import io.idmint.IdRange;
import io.idmint.Layout;
import io.idmint.Layout.Field;
import io.idmint.jdbc.shardid.LayoutFunctions;
import io.idmint.jdbc.shardid.LayoutFunctions.Dialect;
import io.idmint.testkit.fixture.MariaDbServer;
import io.idmint.testkit.fixture.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The layout functions on real PostgreSQL and MariaDB, for every preset whose IDs are positive
 * bigints and a custom layout (10 ms ticks, its own epoch): 100,000 random IDs per layout read
 * by {@code idmint_time} and the field functions exactly as the Java decode reads them, and
 * 10,000 random instants (microseconds) bounded by {@code idmint_lo}/{@code idmint_hi} exactly
 * as {@link Layout#range} bounds them; a time before the epoch raises SQLSTATE 22008 naming it,
 * and a value that is no ID reads as NULL.
 */
class LayoutFunctionsIT {

    private static final int IDS = 100_000;
    private static final int INSTANTS = 10_000;
    private static final DateTimeFormatter MYSQL_TIME = DateTimeFormatter
            .ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS").withZone(ZoneOffset.UTC);

    private static final DateTimeFormatter MYSQL_MILLIS = DateTimeFormatter
            .ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    @RegisterExtension
    static final PostgresServer pg = PostgresServer.shared();

    @RegisterExtension
    static final MariaDbServer maria = MariaDbServer.shared();

    static Stream<Layout> layouts() {
        return Stream.concat(Layout.presets().stream().filter(l -> !l.unsigned()),
                Stream.of(Layout.parse("time=40,worker=10,sequence=13,tick=10ms,"
                        + "epoch=2021-06-01T00:00:00Z")));
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void postgres_readsAndBoundsIdsAsJavaDoes(Layout layout) throws SQLException {
        String schema = schema(layout);
        try (Connection c = DriverManager.getConnection(pg.url());
             Statement s = c.createStatement()) {
            s.execute("create schema if not exists " + schema);
            LayoutFunctions.of(layout, Dialect.POSTGRESQL, schema).install(c);

            long[] ids = ids(layout);
            String fields = fieldSelect(layout, schema, "x");
            try (PreparedStatement q = c.prepareStatement("select x, (extract(epoch from "
                    + schema + ".idmint_time(x)) * 1000)::bigint" + fields
                    + " from unnest(?::bigint[]) x")) {
                q.setArray(1, c.createArrayOf("bigint", box(ids)));
                check(layout, q, Long::parseLong);
            }
            List<Instant> instants = instants(layout);
            try (PreparedStatement q = c.prepareStatement("select t, " + schema
                    + ".idmint_lo(t::timestamptz), " + schema + ".idmint_hi(t::timestamptz) "
                    + "from unnest(?::text[]) t")) {
                q.setArray(1, c.createArrayOf("text", instants.stream().map(Instant::toString)
                        .toArray()));
                checkBounds(layout, q, Instant::parse);
            }
            try (ResultSet r = s.executeQuery("select " + schema + ".idmint_time(-1), " + schema
                    + ".idmint_time(null)")) {
                r.next();
                assertThat(r.getObject(1)).isNull();
                assertThat(r.getObject(2)).isNull();
            }
            Instant before = Instant.ofEpochMilli(layout.epochMillis()).minusSeconds(1);
            assertThatThrownBy(() -> s.executeQuery("select " + schema + ".idmint_lo('"
                    + before + "')")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("idmint_lo:").hasMessageContaining("is before the epoch")
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState())
                            .isEqualTo(LayoutFunctions.OUT_OF_RANGE));
        }
    }

    /** {@code UuidV7.range} bounds as PostgreSQL's {@code uuid} type compares. */
    @org.junit.jupiter.api.Test
    void postgres_uuidColumn_uuidV7RangeSelectsExactlyTheWindow() throws SQLException {
        SplittableRandom random = new SplittableRandom(3);
        Instant from = Instant.parse("2026-11-24T00:00:00Z");
        Instant to = Instant.parse("2026-11-25T00:00:00Z");
        List<java.util.UUID> uuids = new ArrayList<>();
        int inside = 0;
        for (int i = 0; i < 10_000; i++) {
            long millis = from.toEpochMilli() - 3_600_000L + random.nextLong(30 * 3_600_000L);
            inside += millis >= from.toEpochMilli() && millis < to.toEpochMilli() ? 1 : 0;
            uuids.add(new java.util.UUID(millis << 16 | 0x7000L | random.nextLong(1 << 12),
                    Long.MIN_VALUE | random.nextLong() >>> 2));
        }
        var bounds = io.idmint.formats.UuidV7.range(from, to);
        try (Connection c = DriverManager.getConnection(pg.url());
             PreparedStatement q = c.prepareStatement("select count(*) from unnest(?::uuid[]) u"
                     + " where u >= ?::uuid and u < ?::uuid")) {
            q.setArray(1, c.createArrayOf("uuid", uuids.toArray()));
            q.setString(2, bounds.from().toString());
            q.setString(3, bounds.to().toString());
            try (ResultSet r = q.executeQuery()) {
                r.next();
                assertThat(r.getLong(1)).isEqualTo(inside).isPositive();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void mariadb_readsAndBoundsIdsAsJavaDoes(Layout layout) throws SQLException {
        String schema = schema(layout);
        try (Connection c = DriverManager.getConnection(maria.url());
             Statement s = c.createStatement()) {
            s.execute("create database if not exists " + schema);
            LayoutFunctions.of(layout, Dialect.MYSQL, schema).install(c);

            long[] ids = ids(layout);
            StringBuilder json = new StringBuilder("[");
            for (int i = 0; i < ids.length; i++) {
                json.append(i == 0 ? "" : ",").append(ids[i]);
            }
            String fields = fieldSelect(layout, schema, "j.x");
            // The time as text, read by Java: no time zone between the function and the check.
            try (PreparedStatement q = c.prepareStatement("select j.x, CAST(" + schema
                    + ".idmint_time(j.x) AS CHAR)" + fields + " from JSON_TABLE(?, '$[*]' "
                    + "COLUMNS(x BIGINT PATH '$')) j")) {
                q.setString(1, json.append(']').toString());
                check(layout, q, text -> Instant.from(MYSQL_MILLIS.parse(text)).toEpochMilli());
            }
            List<Instant> instants = instants(layout);
            StringBuilder times = new StringBuilder("[");
            for (int i = 0; i < instants.size(); i++) {
                times.append(i == 0 ? "\"" : ",\"").append(MYSQL_TIME.format(instants.get(i)))
                        .append('"');
            }
            // Text into the functions' DATETIME(6) parameter: MariaDB 10.11's JSON_TABLE
            // DATETIME columns shift some late-September times by an hour on their way.
            try (PreparedStatement q = c.prepareStatement("select j.t, " + schema
                    + ".idmint_lo(j.t), " + schema + ".idmint_hi(j.t) from JSON_TABLE(?, '$[*]' "
                    + "COLUMNS(t VARCHAR(32) PATH '$')) j")) {
                q.setString(1, times.append(']').toString());
                checkBounds(layout, q, t -> Instant.from(MYSQL_TIME.parse(t)));
            }
            String before = MYSQL_TIME.format(Instant.ofEpochMilli(layout.epochMillis())
                    .minusSeconds(1));
            assertThatThrownBy(() -> s.executeQuery("select " + schema + ".idmint_lo('"
                    + before + "')")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("idmint_lo: the time is before the epoch")
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState())
                            .isEqualTo(LayoutFunctions.OUT_OF_RANGE));
        }
    }

    /** Rows of (id, millis, the layout's fields in order) against the Java decode. */
    private static void check(Layout layout, PreparedStatement q,
            java.util.function.ToLongFunction<String> millis) throws SQLException {
        List<Field> fields = fields(layout);
        int rows = 0;
        try (ResultSet r = q.executeQuery()) {
            while (r.next()) {
                IdParts parts = layout.decode(r.getLong(1));
                assertThat(millis.applyAsLong(r.getString(2))).as("time of %s", parts.id())
                        .isEqualTo(parts.timestampMillis());
                for (int i = 0; i < fields.size(); i++) {
                    assertThat(r.getLong(3 + i)).as("%s of %s", fields.get(i), parts.id())
                            .isEqualTo(layout.get(parts.id(), fields.get(i)));
                }
                rows++;
            }
        }
        assertThat(rows).isEqualTo(IDS);
    }

    /** Rows of (instant, lo, hi) against {@link Layout#range}. */
    private static void checkBounds(Layout layout, PreparedStatement q,
            java.util.function.Function<String, Instant> parse) throws SQLException {
        int rows = 0;
        try (ResultSet r = q.executeQuery()) {
            while (r.next()) {
                Instant t = parse.apply(r.getString(1));
                IdRange from = layout.range(t, t.plus(1, ChronoUnit.HOURS));
                IdRange to = layout.range(t.minus(1, ChronoUnit.HOURS), t);
                assertThat(r.getLong(2)).as("idmint_lo(%s)", t).isEqualTo(from.from());
                assertThat(r.getLong(3)).as("idmint_hi(%s)", t).isEqualTo(to.to());
                rows++;
            }
        }
        assertThat(rows).isEqualTo(INSTANTS);
    }

    /** Random valid IDs: every field drawn from its whole range. */
    private static long[] ids(Layout layout) {
        SplittableRandom random = new SplittableRandom(layout.spec().hashCode());
        long[] ids = new long[IDS];
        for (int i = 0; i < IDS; i++) {
            ids[i] = layout.compose(random.nextLong(layout.maxTick() + 1),
                    random.nextLong(layout.maxValue(Field.DATACENTER) + 1),
                    random.nextLong(layout.maxValue(Field.WORKER) + 1),
                    random.nextLong(layout.maxValue(Field.SHARD) + 1),
                    random.nextLong(layout.maxValue(Field.SEQUENCE) + 1));
        }
        return ids;
    }

    /** Random instants to the microsecond, an hour inside the layout's lifetime at each end. */
    private static List<Instant> instants(Layout layout) {
        SplittableRandom random = new SplittableRandom(~layout.spec().hashCode());
        long lo = (layout.epochMillis() + 3_600_000L) * 1000;
        long hi = (layout.millisOf(layout.maxTick()) - 3_600_000L) * 1000;
        List<Instant> out = new ArrayList<>(INSTANTS);
        for (int i = 0; i < INSTANTS; i++) {
            long micros = lo + random.nextLong(hi - lo);
            // Whole milliseconds too, where the bounds turn.
            if (i % 4 == 0) {
                micros -= Math.floorMod(micros, 1000);
            }
            out.add(Instant.EPOCH.plus(micros, ChronoUnit.MICROS));
        }
        return out;
    }

    private static List<Field> fields(Layout layout) {
        return Stream.of(Field.DATACENTER, Field.WORKER, Field.SHARD, Field.SEQUENCE)
                .filter(f -> layout.bits(f) > 0).toList();
    }

    private static String fieldSelect(Layout layout, String schema, String x) {
        StringBuilder s = new StringBuilder();
        for (Field f : fields(layout)) {
            s.append(", ").append(schema).append(".idmint_").append(f.key()).append('(')
                    .append(x).append(')');
        }
        return s.toString();
    }

    private static String schema(Layout layout) {
        return "l" + Integer.toHexString(layout.spec().hashCode());
    }

    private static Long[] box(long[] ids) {
        Long[] boxed = new Long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            boxed[i] = ids[i];
        }
        return boxed;
    }
}
