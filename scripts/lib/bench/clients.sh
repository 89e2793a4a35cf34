# clients: the Node, Python and Go clients (docs/clients.md) against one local `idmint serve
# --workers 2` (java -jar, free ports, a temp data dir), one after another in one run, then the
# Java client's IdClientBenchmark (JMH, which starts its own serve --workers 2) for comparison.
# Each client's own benchmark measures, from one caller (thread, goroutine or event loop):
# nextId() in IDs/s; the raw loop (the same /v1/ids?count=10000 id64 requests, fetched one
# after another on one keep-alive connection and decoded) in IDs/s; their ratio; and the p50,
# p99 and p99.9 of single buffered takes, each timed alone. Targets (issue 32): >= 1,000,000
# IDs/s, ratio >= 0.8, p99 < 5 us. The server, the client and the load share the cores: run it
# on an otherwise idle machine.
#
#   scripts/bench clients                  # each client about 15 s, JMH -f 1 -wi 3 -w 2s -i 5 -r 2s
#   scripts/bench clients --quick          # JMH -f 1 -wi 1 -w 1s -i 2 -r 1s
#
# Knobs: BENCH_RUN replaces JMH's run lengths.
# Figures: LANG.client_ids_s, LANG.raw_ids_s, LANG.ratio, LANG.take_p99_us (LANG: node,
# python, go), java.client_ids_s, java.raw_ids_s, java.ratio.

# shellcheck shell=bash
BUILD=idmint-server,idmint-benchmarks
TOOLS="curl node"
NO_ARGS="the clients' benchmarks take no arguments; JMH options: BENCH_RUN"

bench() {
    local run lang line
    [ "${#TREES[@]}" = 1 ] || die "--against is not supported: the clients are this checkout's"
    run='-f 1 -wi 3 -w 2s -i 5 -r 2s'
    [ "$QUICK" = 0 ] || run='-f 1 -wi 1 -w 1s -i 2 -r 1s'
    run=${BENCH_RUN:-$run}
    need go golang-go
    (cd "$ROOT/clients/node" && npm ci --ignore-scripts --no-audit --no-fund >/dev/null) \
        || die "npm ci in clients/node failed"
    serve "$TMP/idmint" "$JAVA" -jar "$ROOT/$IDMINT_JAR" serve --workers 2
    say "| client | nextId() IDs/s | raw loop IDs/s | client / raw | take p50 | p99 | p99.9 |"
    say "|---|---:|---:|---:|---:|---:|---:|"
    for lang in node python go; do
        case $lang in
            node) line=$("${NICE[@]}" node "$ROOT/clients/node/bench/bench.mjs" "$BASE") ;;
            python) line=$(PYTHONPATH="$ROOT/clients/python/src" "${NICE[@]}" /usr/bin/python3 \
                "$ROOT/clients/python/bench/bench.py" "$BASE") ;;
            go) line=$(cd "$ROOT/clients/go" && GOPROXY=off GOFLAGS=-mod=mod \
                "${NICE[@]}" go run ./internal/bench "$BASE") ;;
        esac
        printf '%s\n' "$line" >"$OUT/$lang.json"
        node -e '
            const r = JSON.parse(process.argv[1]), l = process.argv[2];
            const m = (v) => (v / 1e6).toFixed(2) + " M";
            console.log(`| ${l} | ${m(r.client_ids_per_s)} | ${m(r.raw_ids_per_s)} | ` +
                `${r.ratio.toFixed(2)} | ${r.take_p50_us} us | ${r.take_p99_us} us | ` +
                `${r.take_p999_us} us |`);
            console.log(`figure ${l}.client_ids_s ${Math.round(r.client_ids_per_s)}`);
            console.log(`figure ${l}.raw_ids_s ${Math.round(r.raw_ids_per_s)}`);
            console.log(`figure ${l}.ratio ${r.ratio.toFixed(3)}`);
            console.log(`figure ${l}.take_p99_us ${r.take_p99_us}`);' "$line" "$lang" | record 0
    done
    stop "$SERVE_PID"

    say "== IdClientBenchmark (Java, gRPC), 1 thread: $run"
    # shellcheck disable=SC2086 # run is a list of JMH options
    jmh "$ROOT/$BENCH_JAR" "$OUT/java.log" IdClientBenchmark -t 1 $run -foe true -rf csv \
        -rff "$OUT/java.csv"
    awk -F, 'NR > 1 { name = $1; gsub(/.*\.|"/, "", name); s[name] = $5 }
        END {
            printf "| java | %.2f M | %.2f M | %.2f | (JMH: docs/benchmarks.md) | | |\n",
                s["client"] / 1e6, s["rawStreamIds"] / 1e6, s["client"] / s["rawStreamIds"]
            printf "figure java.client_ids_s %.0f\nfigure java.raw_ids_s %.0f\n", s["client"],
                s["rawStreamIds"]
            printf "figure java.ratio %.3f\n", s["client"] / s["rawStreamIds"]
        }' "$OUT/java.csv" | record 0
}
