# peers: idmint against published ID generators and JDK baselines, in one run.
#
#   scripts/bench peers                  # JMH -f 1 -wi 3 -w 2s -i 5 -r 2s; about 8 minutes
#   scripts/bench peers --quick          # JMH -f 1 -wi 1 -w 1s -i 1 -r 1s, 100,000 IDs a thread
#   scripts/bench peers --quick -prof gc # ARGS go to JMH
#
# At 1 and at 2 threads: PeerBenchmark (JMH, every generator as one @Param run, one shared
# instance per generator), which prints each thread's lead after every iteration; then PeerCheck:
# THREADS threads x BENCH_CHECK_IDS IDs from one instance per generator, all IDs sorted and
# scanned for duplicates, and the lead of the last ID after that burst. Then one table per thread
# count: throughput (M IDs/s, JMH score and its 99.9% error), ratio to idmint's single worker,
# lead (largest over all JMH iterations, warm-up included, and after PeerCheck's burst) and
# duplicates.
#
# Lead = the last ID's timestamp, decoded with the library's own layout and epoch, minus
# System.currentTimeMillis(). Positive: the generator minted IDs for a time that has not come
# yet (it borrows future milliseconds when its sequence runs out). '-' for IDs without time.
#
# Knobs: BENCH_IMPLS="idmint tsid" (a subset; default all), BENCH_THREADS="1 2", BENCH_CHECK_IDS
# (IDs per thread in PeerCheck; default 1000000, quick 100000). The run fails if JMH or PeerCheck
# failed, or any generator minted a duplicate.
# --against REF: REF's PeerBenchmark and PeerCheck, right after this checkout's.
# Figures: IMPL.tT.ops_s, IMPL.tT.vs_idmint and IMPL.tT.duplicates (T: threads).

# shellcheck shell=bash
BUILD=idmint-benchmarks
BUILD_AGAINST=idmint-benchmarks

bench() {
    local run check threads impls t i failed=0
    run='-f 1 -wi 3 -w 2s -i 5 -r 2s'
    check=${BENCH_CHECK_IDS:-1000000}
    if [ "$QUICK" = 1 ]; then
        run='-f 1 -wi 1 -w 1s -i 1 -r 1s'
        check=${BENCH_CHECK_IDS:-100000}
    fi
    threads=${BENCH_THREADS:-1 2}
    impls=${BENCH_IMPLS:-}
    if [ -n "$impls" ]; then
        # shellcheck disable=SC2086 # a list of names
        set -- -p "impl=$(echo $impls | tr ' ' ',')" "$@"
    fi
    for t in $threads; do
        for i in "${!TREES[@]}"; do
            say "== PeerBenchmark, $t thread(s), ${LABELS[$i]}: $run"
            # shellcheck disable=SC2086 # run is a list of JMH options
            jmh "${TREES[$i]}/$BENCH_JAR" "$OUT/jmh-t$t-$i.log" PeerBenchmark -t "$t" $run \
                -rf csv -rff "$OUT/jmh-t$t-$i.csv" "$@"
            say "== PeerCheck, $t thread(s) x $check IDs per generator, ${LABELS[$i]}"
            # shellcheck disable=SC2086 # a list of names
            "${NICE[@]}" "$JAVA" -Xmx2g -cp "${TREES[$i]}/$BENCH_JAR" \
                io.idmint.benchmarks.PeerCheck "$t" "$check" $impls \
                >"$OUT/check-t$t-$i.txt" 2>"$OUT/check-t$t-$i.err" || failed=1
            cat "$OUT/check-t$t-$i.txt"
            grep -q . "$OUT/check-t$t-$i.txt" \
                || { cat "$OUT/check-t$t-$i.err" >&2; die "PeerCheck failed"; }
        done
    done
    for t in $threads; do
        for i in "${!TREES[@]}"; do
            say ""
            say "== $t thread(s), ${LABELS[$i]}: PeerBenchmark ($run), PeerCheck $t x $check IDs"
            peers_table "$t-$i" "$t" | record "$i"
        done
    done
    say ""
    say "idmint is one worker: its 12-bit sequence caps it at 4,096,000 IDs/s (4.10 M) by design."
    [ "$failed" = 0 ] || die "PeerCheck found duplicates or failed (see above)"
}

# peers_table SUFFIX T: joins the JMH scores, the lead lines and PeerCheck's lines of one run.
peers_table() {
    grep -o '\[lead\] impl=[A-Za-z0-9]* thread [0-9/]*: [-+0-9]* ms' "$OUT/jmh-t$1.log" \
        | awk '{ sub(/^impl=/, "", $2); print "lead", $2, $5 }' >"$OUT/lead-t$1.txt" || true
    awk -v jmh="$OUT/jmh-t$1.csv" -v leads="$OUT/lead-t$1.txt" -v t="$2" '
        FILENAME == jmh { file = 1; sub(/\r$/, ""); split($0, c, ",") }
        FILENAME == leads { file = 2 }
        FILENAME != jmh && FILENAME != leads { file = 3 }
        file == 1 && FNR > 1 {
            impl = c[8]; gsub(/"/, "", impl); order[++n] = impl
            score[impl] = c[5]; err[impl] = c[6]
        }
        file == 2 {
            v = $3 + 0
            if (!(($2) in lead) || v > lead[$2]) lead[$2] = v
        }
        file == 3 && $1 == "check" { split($0, f, " "); dup[f[2]] = f[8]; burst[f[2]] = f[10] }
        file == 3 && $1 == "check" && $3 == "failed:" { dup[$2] = "FAILED" }
        END {
            base = score["idmint"]
            printf "| generator | M IDs/s | ± (99.9%%) | vs idmint | lead ms (JMH max) |"
            printf " lead ms (burst) | duplicates |\n"
            printf "|---|---:|---:|---:|---:|---:|---:|\n"
            for (i = 1; i <= n; i++) {
                k = order[i]
                e = (err[k] == "NaN") ? "-" : sprintf("%.2f", err[k] / 1e6)
                r = base > 0 ? sprintf("%.2f", score[k] / base) : "-"
                l = (k in lead) ? sprintf("%+d", lead[k]) : "-"
                b = (k in burst) ? burst[k] : "?"
                d = (k in dup) ? dup[k] : "?"
                printf "| %s | %.2f | %s | %s | %s | %s | %s |\n", k, score[k] / 1e6, e, r, l, \
                    b, d
                printf "figure %s.t%d.ops_s %.0f\n", k, t, score[k]
                if (base > 0) printf "figure %s.t%d.vs_idmint %.4f\n", k, t, score[k] / base
                if (d ~ /^[0-9]+$/) printf "figure %s.t%d.duplicates %s\n", k, t, d
            }
        }' "$OUT/jmh-t$1.csv" "$OUT/lead-t$1.txt" "$OUT/check-t$1.txt"
}
