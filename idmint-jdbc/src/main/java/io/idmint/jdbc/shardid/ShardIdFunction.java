package io.idmint.jdbc.shardid;

import io.idmint.Layout;
import io.idmint.Layout.Field;
import io.idmint.spi.support.Durations;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One PL/pgSQL function {@code <schema>.next_id()} that mints Instagram-style IDs for one shard:
 * {@code time | shard | nextval % modulus} in the bit positions of a layout, so that
 * {@code idmint decode} with the same layout reads them back.
 *
 * <p>Uniqueness does not rest on the sequence or on the clock. Every call takes the shard's row
 * lock in {@code idmint.shard} (held to the end of the transaction), reads the shard's
 * high-water mark (the sequence {@code idmint.shard_<N>_hwm}, so a rolled-back transaction
 * cannot lower it), and issues only an ID above it, then raises the mark to that ID. A sequence
 * that wraps within one tick waits for the next tick; a clock more than the maximum wait behind
 * the mark (stepped back, or a promoted replica whose clock is behind) raises SQLSTATE
 * {@code IDM01} instead of issuing. IDs are therefore strictly increasing per shard per database.
 *
 * <p>Shards differ in the shard field only if they share a layout: {@code instagram} shard 0
 * sequence 41 and {@code time=41,sequence=10,shard=12} shard 41 sequence 0 are one ID. So the
 * registry holds one layout per database (epoch and tick included), and the install refuses
 * any other ({@code docs/design.md}, "IDs minted in PostgreSQL").
 *
 * <p>A value: validation happens in {@link #of}, and {@link #statements()} is the whole install,
 * to run in one transaction.
 */
public final class ShardIdFunction {

    /** The schema of the shard registry and the high-water marks. */
    public static final String REGISTRY_SCHEMA = "idmint";
    /** SQLSTATE raised when the database clock is behind the shard's high-water mark. */
    public static final String CLOCK_BEHIND = "IDM01";
    /** SQLSTATE raised when the clock is before the epoch or past the time field's end. */
    public static final String TIME_OUT_OF_RANGE = "IDM02";
    /** SQLSTATE raised when the schema's shard is not registered as the function expects. */
    public static final String NOT_REGISTERED = "IDM03";
    /**
     * The transaction-level advisory lock every install takes first: "idmint" in ASCII, a key
     * another application is unlikely to use.
     */
    public static final long INSTALL_LOCK = 0x69646d696e74L;

    private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final Duration MAX_WAIT_LIMIT = Duration.ofSeconds(10);

    private final Layout layout;
    private final String schema;
    private final int shard;
    private final long modulus;
    private final long maxWaitMillis;

    private ShardIdFunction(Layout layout, String schema, int shard, long modulus,
            long maxWaitMillis) {
        this.layout = layout;
        this.schema = schema;
        this.shard = shard;
        this.modulus = modulus;
        this.maxWaitMillis = maxWaitMillis;
    }

    /**
     * Validates and builds the function.
     *
     * @param modulus the {@code nextval} modulus, 2 to the sequence field's size
     *     ({@link #defaultModulus(Layout)} fills the field)
     * @param maxWait how long a call waits for a clock that is behind the shard's high-water
     *     mark before it raises, 0 to 10 s
     * @throws IllegalArgumentException naming the reason: a 64-bit layout, a layout without a
     *     shard field, with fields the function cannot fill, a sequence field narrower than the
     *     modulus, a shard beyond the field, or a schema name that is not a plain lower-case
     *     identifier
     */
    public static ShardIdFunction of(Layout layout, String schema, int shard, long modulus,
            Duration maxWait) {
        Objects.requireNonNull(layout, "layout");
        Objects.requireNonNull(maxWait, "maxWait");
        if (layout.unsigned()) {
            throw new IllegalArgumentException("layout " + layout.spec() + " uses all 64 bits; "
                    + "idmint mints at most 63, so that every ID is a positive bigint");
        }
        if (layout.bits(Field.SHARD) == 0) {
            throw new IllegalArgumentException("layout " + layout.spec() + " has no shard field; "
                    + "the function puts its shard there (use instagram or fields such as "
                    + "time=41,shard=13,sequence=9)");
        }
        for (Field f : List.of(Field.DATACENTER, Field.WORKER)) {
            if (layout.bits(f) > 0) {
                throw new IllegalArgumentException("layout " + layout.spec() + " has a "
                        + f.key() + " field, which a database function cannot fill; use only "
                        + "time, shard and sequence");
            }
        }
        long seqValues = layout.maxValue(Field.SEQUENCE) + 1;
        if (modulus < 2 || modulus > seqValues) {
            throw new IllegalArgumentException("nextval modulus " + modulus + " does not fit: the "
                    + "sequence field of layout " + layout.spec() + " has "
                    + layout.bits(Field.SEQUENCE) + " bits (values 0.." + (seqValues - 1)
                    + "), so the modulus must be from 2 to " + seqValues
                    + (modulus > seqValues ? "; a wider one would spill into the shard field"
                            : ""));
        }
        if (shard < 0 || shard > layout.maxShardId()) {
            throw new IllegalArgumentException("shard " + shard + " does not fit layout "
                    + layout.spec() + " (0.." + layout.maxShardId() + ")");
        }
        if (schema == null || !SCHEMA.matcher(schema).matches() || schema.startsWith("pg_")
                || schema.equals(REGISTRY_SCHEMA)) {
            throw new IllegalArgumentException("schema '" + schema + "' must be a plain "
                    + "lower-case identifier ([a-z_][a-z0-9_]*, at most 63 characters), not "
                    + "pg_* nor '" + REGISTRY_SCHEMA + "' (idmint's shard registry)");
        }
        if (maxWait.isNegative() || maxWait.compareTo(MAX_WAIT_LIMIT) > 0) {
            throw new IllegalArgumentException("clock.max-wait must be between 0 and 10s, got "
                    + Durations.format(maxWait));
        }
        return new ShardIdFunction(layout, schema, shard, modulus, maxWait.toMillis());
    }

    /** The modulus that fills the layout's sequence field: 2^bits. */
    public static long defaultModulus(Layout layout) {
        return layout.maxValue(Field.SEQUENCE) + 1;
    }

    public Layout layout() {
        return layout;
    }

    public String schema() {
        return schema;
    }

    public int shard() {
        return shard;
    }

    public long modulus() {
        return modulus;
    }

    public long maxWaitMillis() {
        return maxWaitMillis;
    }

    /** {@code <schema>.next_id}. */
    public String functionName() {
        return schema + ".next_id";
    }

    /** The sequence whose {@code nextval % modulus} fills the sequence field. */
    public String sequenceName() {
        return schema + ".next_id_seq";
    }

    /** The shard's high-water mark: the last ID issued on it, as a sequence's last value. */
    public String hwmName() {
        return REGISTRY_SCHEMA + ".shard_" + shard + "_hwm";
    }

    /** The install, statement by statement, to run in one transaction; idempotent. */
    public List<String> statements() {
        String spec = layout.spec();
        return List.of(
                // Every install, first: the next one waits for this transaction to end, then
                // sees what it made. CREATE ... IF NOT EXISTS alone is not safe between two
                // transactions (the second fails on a duplicate catalog row), and a lock on
                // idmint.shard needs the table to exist first.
                "SELECT pg_advisory_xact_lock(" + INSTALL_LOCK + ")",
                "CREATE SCHEMA IF NOT EXISTS " + REGISTRY_SCHEMA,
                "CREATE TABLE IF NOT EXISTS " + REGISTRY_SCHEMA + ".shard (\n"
                        + "    shard integer PRIMARY KEY CHECK (shard >= 0),\n"
                        + "    schema_name text NOT NULL UNIQUE,\n"
                        + "    layout text NOT NULL,\n"
                        + "    installed_at timestamptz NOT NULL DEFAULT now())",
                "INSERT INTO " + REGISTRY_SCHEMA + ".shard (shard, schema_name, layout)\n"
                        + "    VALUES (" + shard + ", '" + schema + "', '" + spec + "')\n"
                        + "    ON CONFLICT DO NOTHING",
                "DO $check$\nDECLARE\n    r record;\nBEGIN\n"
                        // One layout per database: shards of two layouts can mint one ID.
                        + "    SELECT * INTO r FROM " + REGISTRY_SCHEMA + ".shard\n"
                        + "        WHERE layout <> '" + spec + "' ORDER BY shard LIMIT 1;\n"
                        + "    IF FOUND THEN\n"
                        + "        RAISE EXCEPTION 'idmint: cannot register shard " + shard
                        + " for schema " + schema + " with layout " + spec
                        + ": this database''s shards use layout % (shard % in schema %), and "
                        + "shards of two layouts in one database can mint the same ID; install "
                        + "this layout in another database, or use layout %',\n"
                        + "            r.layout, r.shard, r.schema_name, r.layout\n"
                        + "            USING ERRCODE = '" + NOT_REGISTERED + "';\n"
                        + "    END IF;\n"
                        + "    SELECT * INTO r FROM " + REGISTRY_SCHEMA + ".shard\n"
                        + "        WHERE (shard = " + shard + " OR schema_name = '" + schema
                        + "')\n"
                        + "        AND NOT (shard = " + shard + " AND schema_name = '" + schema
                        + "' AND layout = '" + spec + "')\n"
                        + "        LIMIT 1;\n"
                        + "    IF FOUND THEN\n"
                        + "        RAISE EXCEPTION 'idmint: cannot register shard " + shard
                        + " for schema " + schema + " with layout " + spec
                        + ": shard % is registered to schema % with layout %',\n"
                        + "            r.shard, r.schema_name, r.layout\n"
                        + "            USING ERRCODE = '" + NOT_REGISTERED + "';\n"
                        + "    END IF;\nEND\n$check$",
                "CREATE SCHEMA IF NOT EXISTS " + schema,
                "CREATE SEQUENCE IF NOT EXISTS " + sequenceName() + " AS bigint CACHE 1",
                "CREATE SEQUENCE IF NOT EXISTS " + hwmName()
                        + " AS bigint MINVALUE 0 START WITH 0 CACHE 1",
                "CREATE OR REPLACE FUNCTION " + functionName() + "() RETURNS bigint\n"
                        + "    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE\n"
                        + "    AS $idmint$" + body() + "$idmint$");
    }

    /** The install as one script for review ({@code idmint sql install --print}). */
    public String script() {
        StringBuilder sb = new StringBuilder("-- idmint sql install: ").append(functionName())
                .append("() for shard ").append(shard).append(", layout ").append(layout.spec())
                .append("\nBEGIN;\n\n");
        for (String s : statements()) {
            sb.append(s).append(";\n\n");
        }
        return sb.append("COMMIT;\n").toString();
    }

    /** The function's source as PostgreSQL stores it ({@code pg_proc.prosrc}). */
    public String body() {
        return "\n-- Generated by idmint sql install; idmint sql verify compares it with "
                + "this text.\n"
                + "-- layout " + layout.spec() + "\n"
                + "DECLARE\n"
                + constant("epoch_ms", layout.epochMillis())
                + constant("tick_ms", layout.tickMillis())
                + constant("max_tick", layout.maxTick())
                + constant("shard_id", shard)
                + constant("modulus", modulus)
                + shift("time_shift", layout.shift(Field.TIME))
                + shift("shard_shift", layout.shift(Field.SHARD))
                + shift("seq_shift", layout.shift(Field.SEQUENCE))
                + constant("max_wait_ms", maxWaitMillis)
                + "    hwm bigint;\n"
                + "    seq bigint;\n"
                + "    now_ms bigint;\n"
                + "    tick bigint;\n"
                + "    id bigint;\n"
                + "    behind_ms bigint;\n"
                + "BEGIN\n"
                + "    -- One call per shard at a time: the shard's row lock, held to the end of\n"
                + "    -- the transaction.\n"
                + "    PERFORM 1 FROM " + REGISTRY_SCHEMA + ".shard\n"
                + "        WHERE shard = shard_id AND schema_name = '" + schema + "'\n"
                + "        AND layout = '" + layout.spec() + "' FOR UPDATE;\n"
                + "    IF NOT FOUND THEN\n"
                + "        RAISE EXCEPTION 'idmint: shard % is not registered to schema "
                + schema + " with this layout', shard_id\n"
                + "            USING ERRCODE = '" + NOT_REGISTERED + "';\n"
                + "    END IF;\n"
                + "    -- The last ID issued on this shard; a sequence, so rollbacks keep it.\n"
                + "    SELECT last_value INTO hwm FROM " + hwmName() + ";\n"
                + "    seq := nextval('" + sequenceName() + "') % modulus;\n"
                + "    LOOP\n"
                + "        now_ms := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;\n"
                + "        tick := (now_ms - epoch_ms) / tick_ms;\n"
                + "        IF now_ms < epoch_ms OR tick > max_tick THEN\n"
                + "            RAISE EXCEPTION 'idmint: the clock (%) is outside the time field "
                + "of layout " + layout.spec() + "', clock_timestamp()\n"
                + "                USING ERRCODE = '" + TIME_OUT_OF_RANGE + "';\n"
                + "        END IF;\n"
                + "        id := (tick << time_shift) | (shard_id << shard_shift) "
                + "| (seq << seq_shift);\n"
                + "        EXIT WHEN id > hwm;\n"
                + "        -- Not above the mark: the sequence wrapped within this tick (wait\n"
                + "        -- for the next one), or the clock is behind the mark.\n"
                + "        behind_ms := ((hwm >> time_shift) - tick) * tick_ms;\n"
                + "        IF behind_ms > max_wait_ms THEN\n"
                + "            RAISE EXCEPTION 'idmint: the clock is % ms behind the last ID "
                + "issued on shard % (%); refusing rather than risk a duplicate', behind_ms,\n"
                + "                shard_id, hwm USING ERRCODE = '" + CLOCK_BEHIND + "';\n"
                + "        END IF;\n"
                + "        PERFORM pg_sleep(0.0005); -- wait without burning a core\n"
                + "    END LOOP;\n"
                + "    PERFORM setval('" + hwmName() + "', id);\n"
                + "    RETURN id;\n"
                + "END\n";
    }

    private static String constant(String name, long value) {
        return "    " + name + " CONSTANT bigint := " + value + ";\n";
    }

    /** PostgreSQL shifts a bigint by an integer only. */
    private static String shift(String name, int value) {
        return "    " + name + " CONSTANT integer := " + value + ";\n";
    }

    @Override
    public String toString() {
        return functionName() + "() shard " + shard + " layout " + layout.spec() + " modulus "
                + modulus;
    }
}
