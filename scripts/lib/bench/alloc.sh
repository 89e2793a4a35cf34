# alloc: heap bytes allocated per request on the server side, route by route, idmint vs the bare
# Vert.x server (docs/benchmarks.md, "Allocation per request").
#
#   scripts/bench alloc                    # 20,000 requests a round; about 3 minutes
#   scripts/bench alloc --quick            # 2,000 requests a round; about a minute
#
# It starts `idmint serve` (java -jar, free ports, a temp data dir, the default embedded segment
# store) and BareVertxServer (answering every request with idmint's /v1/id bytes, as in the http
# benchmark), then AllocationProbe (idmint-benchmarks) attaches to both JVMs and reads the
# per-thread allocation counters around N requests per route. The counters are exact, so unlike
# a latency the figures do not depend on an idle machine; they move only with the code, the JDK
# and its JIT (a route measured before its warm-up would count the interpreter's garbage).
#
# Knobs: BENCH_ALLOC_REQUESTS=20000 (per round; three rounds after a warm-up of as many; quick
# 2000), BENCH_JAVA_OPTS (JVM flags for both servers).
# --against REF: REF's idmint-server, probed right after this checkout's (the bare server and
# the probe are this checkout's).
# Figures: ROUTE.idmint_bytes and ROUTE.bare_bytes, the medians (ROUTE: the route, in lower case,
# e.g. get_v1_id_bare_get).

# shellcheck shell=bash
BUILD=idmint-server,idmint-benchmarks
BUILD_AGAINST=idmint-server
TOOLS=curl
NO_ARGS="another server: --against REF"

bench() {
    local n i opts=()
    n=${BENCH_ALLOC_REQUESTS:-$([ "$QUICK" = 1 ] && echo 2000 || echo 20000)}
    # shellcheck disable=SC2206 # word splitting of the flags is intended
    opts=(${BENCH_JAVA_OPTS:-})
    for i in "${!TREES[@]}"; do
        serve "$TMP/idmint-$i" "${NICE[@]}" "$JAVA" "${opts[@]}" -jar "${TREES[$i]}/$IDMINT_JAR" \
            serve
        say "${LABELS[$i]}: $BANNER"
        bare "$TMP/bare" "$(nproc)" "${NICE[@]}" "$JAVA" "${opts[@]}"
        say "== AllocationProbe, ${LABELS[$i]}: $n requests per round"
        "$JAVA" -cp "$BENCH_JAR" io.idmint.benchmarks.AllocationProbe "$SERVE_PID" \
            "$HTTP_PORT" "$GRPC_PORT" "$BARE_PID" "${BARE##*:}" "$n" | tee "$OUT/alloc-$i.txt" \
            || die "AllocationProbe failed"
        # ROUTE (up to 34 columns)  IDMINT_MEDIAN (MIN-MAX)  BARE_MEDIAN (MIN-MAX) or -
        awk '/^(GET|gRPC) / {
            route = tolower(substr($0, 1, 34)); gsub(/[^a-z0-9]+/, "_", route)
            gsub(/^_|_$/, "", route)
            split(substr($0, 35), f, " ")
            printf "figure %s.idmint_bytes %s\n", route, f[1]
            if (f[3] ~ /^[0-9]/) printf "figure %s.bare_bytes %s\n", route, f[3]
        }' "$OUT/alloc-$i.txt" | record "$i"
        stop "$BARE_PID"
        stop "$SERVE_PID"
    done
}
