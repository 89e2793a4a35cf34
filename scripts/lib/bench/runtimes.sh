# runtimes: which runtime `idmint serve` should ship with (docs/operations.md, "Runtime"): one
# idmint server per runtime, all up at once, and FixedRateLoad against them in paired rounds
# (each round one short run per server, the first rotating), so that every runtime sees the
# machine in the same state, which on a shared VM drifts by 2x within a minute.
#
#   scripts/bench runtimes                   # the three runtimes below; about 8 minutes
#   scripts/bench runtimes --quick           # 2 rounds of 1 s at 50% only
#   scripts/bench runtimes JDK[:FLAGS] ...   # others: a JDK home and IDMINT_JAVA_OPTS
#
# Default runtimes: the launcher's settings (no flags) on OpenJDK 17 and on Temurin 25, and
# Temurin 25 with generational ZGC (-XX:+UseZGC). Each server is `./idmint serve` with that JDK
# as JAVA_HOME and the flags as IDMINT_JAVA_OPTS, on a worker of its own, with its GC log.
# FixedRateLoad runs closed loop first (each connection asks again as soon as it is answered),
# then at BENCH_RATES percent of the first runtime's median there, the same absolute rates for
# all. It prints every run, then per runtime: the closed-loop median, the p99 and svc99 (p99 from
# send to answer) at each rate, and the GC pauses over the whole run.
#
# Knobs: BENCH_RATES="10 50 75 90" (quick "50"), BENCH_ROUNDS=8 (quick 2), BENCH_SECONDS=2 (per
# run; quick 1), BENCH_WARMUP=1 (s before each run), BENCH_CONNECTIONS=64.
# --against REF: REF's ./idmint serve on each runtime too, all servers up at once and in the
# same rounds (servers 0..R-1 this checkout's, then REF's).
# Figures: rtJ.closed_rps, rtJ.rPCT.p99_ms, rtJ.rPCT.svc99_ms, rtJ.gc_pauses, rtJ.gc_ms (J: the
# runtime's index in the list, PCT: the rate).

# shellcheck shell=bash
BUILD=idmint-server,idmint-benchmarks
BUILD_AGAINST=idmint-server
TOOLS="curl wrk"

bench() {
    local rates rounds seconds warmup conns runtimes=() urls= r i j s home flags u
    rates=${BENCH_RATES:-$([ "$QUICK" = 1 ] && echo 50 || echo 10 50 75 90)}
    rounds=${BENCH_ROUNDS:-$([ "$QUICK" = 1 ] && echo 2 || echo 8)}
    seconds=${BENCH_SECONDS:-$([ "$QUICK" = 1 ] && echo 1 || echo 2)}
    warmup=${BENCH_WARMUP:-1}
    conns=${BENCH_CONNECTIONS:-64}
    if [ $# -gt 0 ]; then
        runtimes=("$@")
    else
        runtimes=(/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64
            "/usr/lib/jvm/temurin-25-jdk-amd64:-XX:+UseZGC")
    fi
    for r in "${runtimes[@]}"; do
        [ -x "${r%%:*}/bin/java" ] || misuse "no JDK at ${r%%:*} (give JDK[:FLAGS] arguments)"
    done

    # Server s = i * R + j: tree i on runtime j.
    s=0
    for i in "${!TREES[@]}"; do
        for j in "${!runtimes[@]}"; do
            r=${runtimes[$j]}
            home=${r%%:*}
            flags=
            [ "$r" = "$home" ] || flags=${r#*:}
            serve "$TMP/out-$s" env JAVA_HOME="$home" \
                IDMINT_JAVA_OPTS="$flags -Xlog:gc,gc+phases=info:file=$OUT/gc-$s.log" \
                "${NICE[@]}" "${TREES[$i]}/idmint" serve --worker "$s"
            say "server $s (${LABELS[$i]}, runtime $j): $("$home/bin/java" -version 2>&1 \
                | head -n1), flags: $(tr '\0' ' ' </proc/"$SERVE_PID"/cmdline \
                | grep -o -- '-XX:[^ ]*GC[^ ]*\|-XX:[^ ]*HeapFreeRatio[^ ]*' | paste -sd' ' -)" \
                "on port $HTTP_PORT"
            urls=${urls:+$urls,}$BASE/v1/id
            s=$((s + 1))
        done
    done

    say "== warm-up: wrk, $([ "$QUICK" = 1 ] && echo '1 x 2' || echo '3 x 4') s per server"
    for _ in $([ "$QUICK" = 1 ] && echo 1 || echo 1 2 3); do
        for u in ${urls//,/ }; do
            wrk_run "$TMP/wrk" -t2 -c"$conns" -d"$([ "$QUICK" = 1 ] && echo 2 || echo 4)s" "$u"
        done
    done

    # shellcheck disable=SC2086 # a list of numbers
    say "== FixedRateLoad: closed loop, then$(printf ' %s%%' $rates) of server 0's peak;" \
        "$rounds paired rounds of ${warmup}s + ${seconds}s per server"
    # shellcheck disable=SC2086 # a list of numbers
    "${NICE[@]}" "$JAVA" -cp "$BENCH_JAR" io.idmint.benchmarks.FixedRateLoad "$urls" \
        "max$(printf ',%s%%' $rates)" "$seconds" "$warmup" "$conns" 2 park "$rounds" \
        2>"$OUT/load.err" | tee "$OUT/load.txt" | sed 's/^/  /' \
        || { cat "$OUT/load.err" >&2; die "FixedRateLoad failed"; }

    # load.txt: round K target T rate R achieved A ... p99 P ... svc99 S ...; one block per rate.
    say ""
    say "== Per server: median of $rounds rounds (closed loop: requests/s; rates: p99 / svc99 ms)"
    awk -v labels="max $rates" -v n="$s" -v per="${#runtimes[@]}" '
        function median(key,   k, m, v, i, j, t) {
            m = cnt[key]; for (i = 1; i <= m; i++) v[i] = val[key, i]
            for (i = 1; i <= m; i++)
                for (j = i + 1; j <= m; j++)
                    if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
            return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
        }
        $2 == "all" { next }
        $1 == "round" {
            if (!($6 in block)) { block[$6] = nb++ }
            b = block[$6]; t = $4
            key = b SUBSEP t "a"; cnt[key]++; val[key, cnt[key]] = $8
            key = b SUBSEP t "p"; cnt[key]++; val[key, cnt[key]] = $18
            key = b SUBSEP t "s"; cnt[key]++; val[key, cnt[key]] = $26
        }
        END {
            split(labels, label, " ")
            for (t = 0; t < n; t++) {
                a = median(0 SUBSEP t "a")
                line = sprintf("server %d: closed loop %.0f", t, a)
                fig = sprintf("figure rt%d.closed_rps %.0f %d\n", t % per, a, int(t / per))
                for (b = 1; b < nb; b++) {
                    p = median(b SUBSEP t "p"); q = median(b SUBSEP t "s")
                    line = line sprintf(" | %s%%: %.2f / %.2f", label[b + 1], p, q)
                    fig = fig sprintf("figure rt%d.r%s.p99_ms %.2f %d\n", t % per, label[b + 1],
                        p, int(t / per))
                    fig = fig sprintf("figure rt%d.r%s.svc99_ms %.2f %d\n", t % per,
                        label[b + 1], q, int(t / per))
                }
                print line
                printf "%s", fig
            }
        }' "$OUT/load.txt" | record
    for j in $(seq 0 $((s - 1))); do
        awk -v j="$j" -v per="${#runtimes[@]}" '/Pause/ && / [0-9.]+ms$/ {
                v = $NF; sub(/ms$/, "", v); v += 0; n++; t += v; if (v > m) m = v }
            END { printf "server %d: GC %d pauses, %.1f ms in all, longest %.2f ms\n", j, n, t, m
                printf "figure rt%d.gc_pauses %d %d\n", j % per, n, int(j / per)
                printf "figure rt%d.gc_ms %.1f %d\n", j % per, t, int(j / per) }' \
            "$OUT/gc-$j.log" | record
    done
}
