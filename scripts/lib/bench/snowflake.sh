# snowflake: SnowflakeBenchmark (JMH) at 1 and at 2 threads, then idmint's share of the layout's
# cap of 4,096,000 IDs/s: one worker (idmintSnowflake, target >= 99% of the cap) and two workers
# (idmintStriped, workers=2, target >= 1.9 x the cap at 2 threads). Any [lead] failure (an ID
# minted ahead of the wall clock) or duplicate ([unique], checked after each trial) makes JMH,
# and the run, fail.
#
#   scripts/bench snowflake                 # JMH -f 1 -wi 3 -w 2s -i 5 -r 2s; about 3 minutes
#   scripts/bench snowflake --quick         # JMH -f 1 -wi 1 -w 1s -i 2 -r 1s; about a minute
#   scripts/bench snowflake -prof stack     # ARGS go to JMH
#
# Knobs: BENCH_RUN replaces the run lengths, e.g. BENCH_RUN='-f 1 -wi 2 -w 1s -i 3 -r 2s'.
# --against REF: REF's SnowflakeBenchmark, right after this checkout's at each thread count.
# Figures: METHOD.tT.ops_s for every method, METHOD.tT.of_cap for idmint's (T: threads).

# shellcheck shell=bash
BUILD=idmint-benchmarks
BUILD_AGAINST=idmint-benchmarks

bench() {
    local cap=4096000 run t i
    run='-f 1 -wi 3 -w 2s -i 5 -r 2s'
    [ "$QUICK" = 0 ] || run='-f 1 -wi 1 -w 1s -i 2 -r 1s'
    run=${BENCH_RUN:-$run}
    for t in 1 2; do
        for i in "${!TREES[@]}"; do
            say "== SnowflakeBenchmark, $t thread(s), ${LABELS[$i]}: $run"
            # shellcheck disable=SC2086 # run is a list of JMH options
            jmh "${TREES[$i]}/$BENCH_JAR" "$OUT/t$t-$i.log" SnowflakeBenchmark -t "$t" $run \
                -foe true -rf csv -rff "$OUT/t$t-$i.csv" "$@"
            say "idmint lead per iteration (warmup included), count x value:"
            grep -o '\[lead\] [A-Za-z]* thread [0-9/]* ([a-z 0-9]*): last ID at [-+0-9]* ms' \
                "$OUT/t$t-$i.log" | awk '{print $2, $10, $11}' | sort | uniq -c
            grep '^\[unique\]' "$OUT/t$t-$i.log" || true
            sed -n '/^Benchmark /,$p' "$OUT/t$t-$i.log"
        done
    done

    say "== idmint vs the cap of $cap IDs/s (targets: one worker >= 99%, two workers at 2" \
        "threads >= 1.9 x)"
    for i in "${!TREES[@]}"; do
        for t in 1 2; do
            # "Benchmark","Mode","Threads","Samples","Score",...
            awk -F, -v cap="$cap" -v t="$t" -v label="${LABELS[$i]}" 'NR > 1 {
                name = $1; gsub(/.*\.|"/, "", name)
                printf "figure %s.t%d.ops_s %.0f\n", name, t, $5
                if (name !~ /^idmint(Snowflake|Striped)$/) next
                printf "figure %s.t%d.of_cap %.4f\n", name, t, $5 / cap
                printf "%-8s %-16s %d thread(s): %.0f ops/s = %.2f%% of cap (%.3f x)\n",
                    label, name, t, $5, 100 * $5 / cap, $5 / cap
            }' "$OUT/t$t-$i.csv" | record "$i"
        done
    done
}
