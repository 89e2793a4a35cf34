# cap-cpu: the CPU a one-worker server burns at its cap: `idmint serve` (java -jar, one worker,
# free ports, a temp data dir) under wrk on /v1/ids?count=1000, which holds it at the 12-bit
# sequence's 4,096,000 IDs/s; prints the IDs/s served and the server's CPU seconds (user +
# system, from /proc/PID/stat) per 10 s and per million IDs (docs/benchmarks.md, "CPU at the
# cap"). Not a timed test: wrk shares the cores, so run it on an otherwise idle machine.
#
#   scripts/bench cap-cpu                        # 5 s warm-up, 10 s measured; about 40 s
#   scripts/bench cap-cpu --quick                # 2 s warm-up, 3 s measured
#   scripts/bench cap-cpu --against 3a77673      # and that commit's server, in one run
#
# Knobs: BENCH_DURATION=10 (s measured; quick 3), BENCH_WARMUP=5 (s; quick 2).
# --against REF: REF's idmint-server, measured right after this checkout's (this replaces
# BENCH_AGAINST=DIR, a directory holding another build).
# Figures: ids_s, cpu_s_per_10s, cpu_s_per_million_ids.

# shellcheck shell=bash
BUILD=idmint-server
BUILD_AGAINST=idmint-server
TOOLS="curl wrk"
NO_ARGS="another server: --against REF"

bench() {
    local duration warmup hz i before after url
    duration=${BENCH_DURATION:-$([ "$QUICK" = 1 ] && echo 3 || echo 10)}
    warmup=${BENCH_WARMUP:-$([ "$QUICK" = 1 ] && echo 2 || echo 5)}
    hz=$(getconf CLK_TCK)
    say "| server | IDs/s | CPU s per 10 s | CPU s per million IDs |"
    say "|---|---:|---:|---:|"
    for i in "${!TREES[@]}"; do
        serve "$TMP/idmint-$i" "$JAVA" -jar "${TREES[$i]}/$IDMINT_JAR" serve
        url="$BASE/v1/ids?count=1000"
        wrk_run "$TMP/warmup" -t1 -c8 -d"${warmup}s" "$url"
        # user + system clock ticks of the server so far
        before=$(awk '{ print $14 + $15 }' "/proc/$SERVE_PID/stat")
        wrk_run "$OUT/wrk-$i.txt" -t1 -c8 -d"${duration}s" "$url"
        after=$(awk '{ print $14 + $15 }' "/proc/$SERVE_PID/stat")
        stop "$SERVE_PID"
        awk -v name="${LABELS[$i]}" -v ticks=$((after - before)) -v hz="$hz" -v d="$duration" '
            /Requests\/sec/ { rps = $2 }
            END {
                ids = rps * 1000; cpu = ticks / hz
                printf "| %s | %.2f M | %.1f | %.2f |\n", name, ids / 1e6, cpu * 10 / d, \
                    cpu / (ids * d / 1e6)
                printf "figure ids_s %.0f\nfigure cpu_s_per_10s %.2f\n", ids, cpu * 10 / d
                printf "figure cpu_s_per_million_ids %.4f\n", cpu / (ids * d / 1e6)
            }' "$OUT/wrk-$i.txt" | record "$i"
    done
}
