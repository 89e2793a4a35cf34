# segments: SegmentBenchmark (JMH): idmint in issue and relaxed order and by name, CosId
# SegmentChainId and DefaultSegmentId, a shared AtomicLong, at 1 and 2 threads and steps 100,
# 1,000 and 10,000, in one JMH run (36 forks); then every result as M IDs/s with its ratio to
# CosId SegmentChainId at the same threads and step. Targets: idmint > 1 x cosidChain everywhere;
# idmintRelaxed >= 4 x cosidChain at 2 threads. 2-thread results are only real when both threads
# get a core: on a shared machine, BENCH_NICE=-10 (as root).
#
#   scripts/bench segments                  # -wi 3 -w 1s -i 5 -r 1s; about 6 minutes
#   scripts/bench segments --quick          # -wi 1 -w 1s -i 1 -r 1s, step 1,000 only; ~1 minute
#   scripts/bench segments -p step=1000     # ARGS go to JMH
#
# Knobs: BENCH_RUN replaces the iteration options, e.g. BENCH_RUN='-wi 2 -w 1s -i 3 -r 1s'.
# --against REF: REF's SegmentBenchmark, right after this checkout's.
# Figures: IMPL.tT.stepS.ops_s and IMPL.tT.stepS.vs_cosidchain (T: threads, S: step).

# shellcheck shell=bash
BUILD=idmint-benchmarks
BUILD_AGAINST=idmint-benchmarks

bench() {
    local run i quick=()
    run='-wi 3 -w 1s -i 5 -r 1s'
    if [ "$QUICK" = 1 ]; then
        run='-wi 1 -w 1s -i 1 -r 1s'
        quick=(-p step=1000)
    fi
    run=${BENCH_RUN:-$run}
    for i in "${!TREES[@]}"; do
        say "== SegmentBenchmark, ${LABELS[$i]}: -f 1 $run ${quick[*]} $*"
        # shellcheck disable=SC2086 # run is a list of JMH options
        jmh "${TREES[$i]}/$BENCH_JAR" "$OUT/$i.log" SegmentBenchmark -f 1 $run -foe true \
            -rf csv -rff "$OUT/$i.csv" "${quick[@]}" "$@"
        grep -o '\[stats\].*' "$OUT/$i.log" | sed 's/fetchFailures=0, //; s/, remaining=.*//' \
            || true
        sed -n '/^Benchmark /,$p' "$OUT/$i.log"
    done

    for i in "${!TREES[@]}"; do
        say "== ${LABELS[$i]}: M IDs/s, and the ratio to CosId SegmentChainId (cosidChain) at the" \
            "same threads and step"
        # CSV columns: "Benchmark","Mode","Threads","Samples","Score","Score Error (99.9%)",
        # "Unit", then one "Param: NAME" column per parameter
        awk -F, '{ gsub(/["\r]/, "") }
        NR == 1 {
            for (i = 1; i <= NF; i++) col[$i] = i
            next
        }
        {
            key = $3 "," $col["Param: step"]
            score[$col["Param: impl"] "," key] = $5
            if (!(key in seen)) { seen[key] = 1; keys[++n] = key }
        }
        END {
            m = split("idmint idmintRelaxed idmintByName cosidChain cosidDefault atomicLong", \
                impls, " ")
            printf "%-8s %-7s", "threads", "step"
            for (i = 1; i <= m; i++) printf " %22s", impls[i]
            printf "\n"
            for (k = 1; k <= n; k++) {
                split(keys[k], p, ",")
                base = score["cosidChain," keys[k]]
                printf "%-8s %-7s", p[1], p[2]
                for (i = 1; i <= m; i++) {
                    s = score[impls[i] "," keys[k]]
                    printf " %9.1f M (%5.2f x)", s / 1e6, (base > 0 ? s / base : 0)
                }
                printf "\n"
                for (i = 1; i <= m; i++) {
                    s = score[impls[i] "," keys[k]]
                    if (s == "") continue
                    key = impls[i] ".t" p[1] ".step" p[2]
                    printf "figure %s.ops_s %.0f\n", key, s
                    if (base > 0) printf "figure %s.vs_cosidchain %.4f\n", key, s / base
                }
            }
        }' "$OUT/$i.csv" | record "$i"
    done
}
