# event-loop: whether batches at a worker's cap hold up an HTTP event loop (docs/benchmarks.md,
# "Batches at the cap and the event loop").
#
#   scripts/bench event-loop                   # 3 rounds of 10 s per probe; about 2 minutes
#   scripts/bench event-loop --quick           # 1 round of 3 s
#   scripts/bench event-loop --against c28c539 # A/B: this checkout and c28c539, alternating
#
# For each tree and round: starts `idmint serve` (java -jar, one worker, free ports, a temp data
# dir), keeps wrk on GET /v1/ids?count=1000 (8 connections: the worker at its cap of 4,096 IDs a
# millisecond, so most batches wait for a later tick), and meanwhile runs FixedRateLoad at 2,000
# requests/s on a probe route (BENCH_PROBE, default /health/live: it mints nothing, so any wait
# it sees is the event loop's) after it ran alone for the same time. Prints one line per run:
# the probe's latency alone and beside the batches, and the batches' requests/s.
#
# Knobs: BENCH_PROBE=/health/live, BENCH_ROUNDS=3 (quick 1), BENCH_SECONDS=10 (probe, per run;
# quick 3).
# --against REF: REF's idmint-server in every round, after this checkout's (this replaces the
# OLD.jar argument).
# Figures: medians over the rounds: alone.p50_ms, .p99_ms, .max_ms, the same for beside, and
# batches_rps.

# shellcheck shell=bash
BUILD=idmint-server,idmint-benchmarks
BUILD_AGAINST=idmint-server
TOOLS="curl wrk"
NO_ARGS="another server: --against REF"

bench() {
    local probe rounds seconds warmup r i k
    probe=${BENCH_PROBE:-/health/live}
    rounds=${BENCH_ROUNDS:-$([ "$QUICK" = 1 ] && echo 1 || echo 3)}
    seconds=${BENCH_SECONDS:-$([ "$QUICK" = 1 ] && echo 3 || echo 10)}
    warmup=$([ "$QUICK" = 1 ] && echo 2 || echo 5)
    say "== $probe at 2,000/s, alone and beside wrk -t1 -c8 on /v1/ids?count=1000," \
        "$rounds round(s) of ${seconds}s"
    for r in $(seq "$rounds"); do
        say "round $r"
        for i in "${!TREES[@]}"; do
            event_loop_run "$i" "$probe" "$seconds" "$warmup"
        done
    done
    for i in "${!TREES[@]}"; do
        # p50 A p99 A max A | p50 B p99 B max B | rps: one line per round
        for k in alone.p50_ms:2 alone.p99_ms:4 alone.max_ms:6 beside.p50_ms:9 beside.p99_ms:11 \
            beside.max_ms:13 batches_rps:15; do
            figure "$i" "${k%:*}" "$(cut -d' ' -f"${k#*:}" "$OUT/runs-$i.txt" | median)"
        done
    done
}

# event_loop_probe URL SECONDS: FixedRateLoad at 2,000/s; prints "p50 .. p99 .. max ..".
event_loop_probe() {
    "${NICE[@]}" "$JAVA" -cp "$BENCH_JAR" io.idmint.benchmarks.FixedRateLoad "$1" 2000 "$2" 3 8 1 \
        | sed -n 's/.*\(p50 [0-9.]*\) p90 [0-9.]* \(p99 [0-9.]*\).*\(max [0-9.]*\).*/\1 \2 \3/p'
}

# event_loop_run TREE PROBE SECONDS WARMUP: one server, the probe alone, then beside the batches.
event_loop_run() {
    local alone beside rps
    serve "$TMP/idmint" "${NICE[@]}" "$JAVA" -jar "${TREES[$1]}/$IDMINT_JAR" serve
    wrk_run "$TMP/warmup" -t1 -c8 -d"$4s" "$BASE/v1/ids?count=1000"
    alone=$(event_loop_probe "$BASE$2" "$3")
    spawn "$TMP/wrk" "${NICE[@]}" wrk -t1 -c8 -d"$(($3 + 6))s" "$BASE/v1/ids?count=1000"
    sleep 1
    beside=$(event_loop_probe "$BASE$2" "$3")
    finish "$SPAWNED" || { cat "$TMP/wrk.err" >&2; die "wrk failed"; }
    grep -Eq 'Non-2xx|Socket errors' "$TMP/wrk" && { cat "$TMP/wrk" >&2; die "wrk saw errors"; }
    rps=$(awk '/Requests\/sec/ { print $2 }' "$TMP/wrk")
    say "  ${LABELS[$1]}: $2 alone: $alone ms | beside batches: $beside ms | batches $rps/s"
    echo "$alone | $beside | $rps" >>"$OUT/runs-$1.txt"
    stop "$SERVE_PID"
}
