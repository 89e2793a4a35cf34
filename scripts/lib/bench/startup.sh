# startup: start-up and footprint of ./idmint (docs/benchmarks.md, "Start-up"), in one run:
#
#   scripts/bench startup                     # 20 hyperfine runs, 10 serve starts; ~1.5 minutes
#   scripts/bench startup --quick             # 3 hyperfine runs, 2 serve starts
#   scripts/bench startup --against 3a77673   # and that commit's ./idmint, alternating
#
#  1. builds idmint-server (the jar and its class-data-sharing archive idmint.jsa); installs
#     hyperfine if missing (as root);
#  2. hyperfine: `java -version` (the floor), `./idmint next -n 1` (the launcher: its staleness
#     check, then the JVM with the archive) and `java -jar idmint.jar next -n 1` (no archive, no
#     launcher), warm-ups first;
#  3. serve: BENCH_SERVE_RUNS starts of `./idmint serve` (loopback, free ports, a temp data dir),
#     each timed from exec to the first 200 of /health/ready (polled every 5 ms), then its idle
#     RSS from /proc/PID/status (VmRSS) after BENCH_IDLE seconds; prints min/median/max.
#
# Knobs: BENCH_RUNS=20 (hyperfine runs; quick 3), BENCH_SERVE_RUNS=10 (quick 2), BENCH_IDLE=5
# (s; quick 1), BENCH_JAVA_OPTS (JVM flags for every idmint run).
# --against REF: REF's ./idmint too, next beside next in the same hyperfine run and serve start
# for serve start, for an A/B on a machine that is not quiet (this replaces BENCH_AGAINST=DIR).
# Figures: java_version.mean_ms, next.mean_ms, next.user_ms, next_jar.mean_ms,
# serve.ready_median_ms, serve.rss_median_mb.
# Not a timed test: the numbers go to docs/benchmarks.md, taken on an otherwise idle machine.

# shellcheck shell=bash
BUILD=idmint-server
BUILD_AGAINST=idmint-server
TOOLS="curl hyperfine"
NO_ARGS="another tree: --against REF"

bench() {
    local runs serve_runs idle i r hf=()
    runs=${BENCH_RUNS:-$([ "$QUICK" = 1 ] && echo 3 || echo 20)}
    serve_runs=${BENCH_SERVE_RUNS:-$([ "$QUICK" = 1 ] && echo 2 || echo 10)}
    idle=${BENCH_IDLE:-$([ "$QUICK" = 1 ] && echo 1 || echo 5)}
    for i in "${!TREES[@]}"; do
        [ -f "${TREES[$i]}/idmint-server/target/idmint.jsa" ] \
            || die "no ${TREES[$i]}/idmint-server/target/idmint.jsa after the build"
    done
    export IDMINT_JAVA_OPTS="${BENCH_JAVA_OPTS:-}"

    # One hyperfine run, in this order (the CSV's rows): the floor, this checkout's next, the
    # jar without the launcher, then REF's next.
    hf=(-n 'java -version' "$JAVA -version"
        -n "${LABELS[0]}: ./idmint next -n 1 (CDS archive)" "./idmint next -n 1 --data-dir $TMP/n0"
        -n "${LABELS[0]}: java -jar idmint.jar next -n 1 (no app archive or launcher)"
        "$JAVA ${BENCH_JAVA_OPTS:-} -jar $IDMINT_JAR next -n 1 --data-dir $TMP/n0")
    [ ${#TREES[@]} = 1 ] || hf+=(-n "${LABELS[1]}: ./idmint next -n 1"
        "${TREES[1]}/idmint next -n 1 --data-dir $TMP/n1")
    "${NICE[@]}" hyperfine -N --warmup "$([ "$QUICK" = 1 ] && echo 1 || echo 3)" \
        --runs "$runs" --export-csv "$OUT/hyperfine.csv" "${hf[@]}"
    # command,mean,stddev,median,user,system,min,max (s; no name has a comma)
    awk -F, 'NR > 1 {
        key = NR == 2 ? "java_version" : NR == 4 ? "next_jar" : "next"
        tree = NR == 5 ? 1 : 0
        printf "figure %s.mean_ms %.1f %d\n", key, $2 * 1000, tree
        if (key == "next") printf "figure next.user_ms %.1f %d\n", $5 * 1000, tree
    }' "$OUT/hyperfine.csv" | record

    for r in $(seq "$serve_runs"); do
        for i in "${!TREES[@]}"; do
            startup_serve "$i" "$idle"
        done
    done
    for i in "${!TREES[@]}"; do
        say "${LABELS[$i]}: ./idmint serve ready (ms, exec to /health/ready 200, $serve_runs" \
            "runs): $(startup_stats <"$OUT/ready-$i.txt")"
        say "${LABELS[$i]}: ./idmint serve idle RSS (MB after ${idle} s):" \
            "$(startup_stats <"$OUT/rss-$i.txt")"
        figure "$i" serve.ready_median_ms "$(median <"$OUT/ready-$i.txt")"
        figure "$i" serve.rss_median_mb "$(median <"$OUT/rss-$i.txt")"
    done
}

startup_stats() {
    sort -n | awk '{ v[NR] = $1 } END { printf "min %s, median %s, max %s", v[1],
        (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[NR] }'
}

# startup_serve TREE IDLE: one start of that tree's ./idmint serve: its time to ready (ms) to
# ready-TREE.txt and its idle RSS (MB) to rss-TREE.txt. Not `serve`: this polls every 5 ms.
startup_serve() {
    local start port= pid
    rm -rf "$TMP/serve"
    start=$(date +%s%N)
    spawn "$TMP/serve.out" "${NICE[@]}" "${TREES[$1]}/idmint" serve --bind "$HOST" \
        --http-port 0 --grpc-port 0 --data-dir "$TMP/serve"
    pid=$SPAWNED
    while :; do
        [ -n "$port" ] || port=$(sed -n 's|^idmint serving http://[^ ]*:\([0-9]*\) .*|\1|p' \
            "$TMP/serve.out")
        if [ -n "$port" ] && curl -sf -o /dev/null "http://$HOST:$port/health/ready"; then
            break
        fi
        kill -0 "$pid" 2>/dev/null || { cat "$TMP/serve.out.err" >&2; die "serve exited"; }
        sleep 0.005
    done
    echo $((($(date +%s%N) - start) / 1000000)) >>"$OUT/ready-$1.txt"
    sleep "$2"
    awk '/^VmRSS:/ { print int($2 / 1024) }' "/proc/$pid/status" >>"$OUT/rss-$1.txt"
    stop "$pid"
}
