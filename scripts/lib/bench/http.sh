# http: `idmint serve` against the ceiling of its own stack, in one run, on loopback.
#
#   scripts/bench http            # full mode: about 15 minutes; run it on an otherwise idle machine
#   scripts/bench http --quick    # 1 round of 3 s per wrk run, 2 paired rounds of 1 s at 50% and
#                                 # 90%; about a minute (the knobs below still override it)
#
# What it does (issue 3 "Benchmark", issue 6 "HTTP load profile", issue 18 "Tail latency"):
#  1. builds idmint-server and idmint-benchmarks, installs wrk if missing (as root);
#  2. starts `./idmint serve` on 127.0.0.1 (free ports, a temp data dir): the launcher, so the
#     server runs as it ships (its collector settings and its class-data archive), and waits for
#     /health/ready = 200; then BareVertxServer on the same JDK with the same collector settings:
#     Vert.x core with the same event loops and verticle instances (one per core), answering
#     every request with the body and headers of a real idmint /v1/id response
#     (both are printed), so the two send identical bytes;
#  3. warms each target up with wrk until two runs in a row agree (see "warm-up" below), then
#     wrk (closed loop, -c64) against bare `/`, idmint `/v1/id` and `/v1/ids?count=1000` in
#     BENCH_ROUNDS rounds, bare and idmint alternating which goes first (ABAB...); the tables
#     show the median and the spread (min-max) of each figure and of idmint/bare per round;
#  4. the load profile: FixedRateLoad (idmint-benchmarks: a small NIO client, open loop, latency
#     from each request's scheduled send time, so free of coordinated omission, like wrk2 -R:
#     Debian has no wrk2 and its wrk has no -R), in one JVM: first closed loop against both
#     servers, which gives the peak this generator reaches with idmint (the median of idmint's
#     runs), then at BENCH_RATES percent of that peak against idmint /v1/id and bare `/` at the
#     same absolute rates. Per rate, BENCH_RATE_ROUNDS paired rounds: in each, one short run
#     against each server, the first alternating (ABAB...), so the two runs compared are seconds
#     apart and a shared VM whose speed drifts over minutes slows both alike. 50% is the "p99 <
#     1 ms" target, 75% and 90% the "p99 <= 1.5 x bare" one, judged on the median of the
#     rounds' ratios;
#  5. prints the wrk table, the load profile (p99 of idmint and bare and their ratio per rate,
#     then the details of each run), the targets with MET/MISSED (GC pauses included: count
#     and total during each server's single-ID runs <= 2 x bare, from each JVM's -Xlog:gc and
#     gc+phases), and the machine (with the GC pauses over the whole run).
#
# Fairness: wrk (or FixedRateLoad) and both servers share this machine's cores. The load
# generator's threads compete with the server's event loops the same way for both targets, so
# the idmint/bare ratio is fair, but absolute numbers are lower than with a separate load host.
# The idle server (the one not under test) stays up; it uses no CPU between requests. Stalls of
# the machine itself (a VM's host taking its CPUs away) show in FixedRateLoad's hiccup99: how
# late a thread sleeping 1 ms at a time woke up, whatever the servers did.
#
# Knobs: BENCH_DURATION=10 (s per wrk run), BENCH_WARMUP=5 (s per warm-up run),
# BENCH_WARMUP_RUNS=8 (at most, per target), BENCH_WARMUP_TOLERANCE=3 (%), BENCH_ROUNDS=3,
# BENCH_THREADS=2, BENCH_CONNECTIONS=64, BENCH_RATES="10 25 50 75 90" ("" skips the fixed-rate
# part), BENCH_RATE_ROUNDS=10, BENCH_RATE_SECONDS=3 (s per run) and BENCH_RATE_WARMUP=1 (s
# before each run) (quick mode: BENCH_DURATION=3 BENCH_WARMUP=2 BENCH_WARMUP_RUNS=2
# BENCH_ROUNDS=1 BENCH_RATES="50 90" BENCH_RATE_ROUNDS=2 BENCH_RATE_SECONDS=1),
# BENCH_JAVA_OPTS (JVM flags for both servers; a collector named there replaces the launcher's),
# BENCH_NICE (e.g. -10, as root: runs the servers and load generators at that niceness, so that
# a machine busy with other work disturbs the run less), BENCH_SERVER_CPUS and BENCH_LOAD_CPUS
# (taskset lists, e.g. 0 and 1: the servers on the first CPUs, wrk and FixedRateLoad on the
# others, so that the load generator no longer takes its CPU from the server under test; both
# or neither; the servers then run one event loop per CPU of their list, and wrk and
# FixedRateLoad one thread per CPU of theirs, FixedRateLoad spinning between sends, and
# BENCH_NICE applies to the servers only).
# The JDK is the launcher's: $JAVA_HOME/bin/java, else java on the PATH.
# The run fails on a setup failure or any non-2xx/socket error; targets missed are reported.
# --against REF: the whole run again with REF's ./idmint serve (against a new bare server).
# Figures: wrk.{bare,id,ids}.{rps,p50_ms,p99_ms}, wrk.id_over_bare_pct, ids_per_s,
# closed.{id,bare}_rps, rPCT.{id,bare}_p99_ms and rPCT.p99_ratio (PCT: each rate),
# gc.{id,bare}.{pauses,ms} (during the single-ID runs); medians over the rounds.

# shellcheck shell=bash
BUILD=idmint-server,idmint-benchmarks
BUILD_AGAINST=idmint-server
TOOLS="curl wrk"
NO_ARGS="another server: --against REF"

bench() {
    local i
    if [ "$QUICK" = 1 ]; then
        : "${BENCH_DURATION:=3}" "${BENCH_WARMUP:=2}" "${BENCH_WARMUP_RUNS:=2}"
        : "${BENCH_ROUNDS:=1}" "${BENCH_RATES=50 90}" "${BENCH_RATE_ROUNDS:=2}"
        : "${BENCH_RATE_SECONDS:=1}"
    fi
    DURATION=${BENCH_DURATION:-10}
    WARMUP=${BENCH_WARMUP:-5}
    ROUNDS=${BENCH_ROUNDS:-3}
    WARMUP_RUNS=${BENCH_WARMUP_RUNS:-8}
    WARMUP_TOLERANCE=${BENCH_WARMUP_TOLERANCE:-3}
    THREADS=${BENCH_THREADS:-2}
    CONNS=${BENCH_CONNECTIONS:-64}
    RATES=${BENCH_RATES-10 25 50 75 90}
    RATE_ROUNDS=${BENCH_RATE_ROUNDS:-10}
    RATE_SECONDS=${BENCH_RATE_SECONDS:-3}
    RATE_WARMUP=${BENCH_RATE_WARMUP:-1}
    # shellcheck disable=SC2206 # word splitting of the flags is intended
    JAVA_OPTS=(${BENCH_JAVA_OPTS:-})
    # SERVER / LOAD: the command prefixes of the servers and of the load generators.
    SERVER=("${NICE[@]}")
    LOAD=("${NICE[@]}")
    # The load generators' threads, and how FixedRateLoad waits between sends.
    LOAD_THREADS=$THREADS
    WAIT=park
    if [ -n "${BENCH_SERVER_CPUS:-}${BENCH_LOAD_CPUS:-}" ]; then
        [ -n "${BENCH_SERVER_CPUS:-}" ] && [ -n "${BENCH_LOAD_CPUS:-}" ] \
            || misuse "set both BENCH_SERVER_CPUS and BENCH_LOAD_CPUS, or neither"
        command -v taskset >/dev/null 2>&1 || die "taskset is missing (Debian: util-linux)"
        SERVER+=(taskset -c "$BENCH_SERVER_CPUS")
        # Not reniced: the load has its CPUs to itself, and in short runs a spinning generator at
        # -10 stalled more often (docs/benchmarks.md, "How a run is made, and why").
        LOAD=(taskset -c "$BENCH_LOAD_CPUS")
        LOAD_THREADS=$(taskset -c "$BENCH_LOAD_CPUS" nproc)
        WAIT=spin
    fi
    for i in "${!TREES[@]}"; do
        http_run "$i"
    done
    say ""
    [ -z "${BENCH_SERVER_CPUS:-}" ] \
        || say "CPUs: servers on $BENCH_SERVER_CPUS, wrk and FixedRateLoad on $BENCH_LOAD_CPUS" \
            "(taskset; the load not reniced)"
    say "wrk: $(wrk -v 2>&1 | head -n1 | cut -d' ' -f1-2); settings: BENCH_NICE=${BENCH_NICE:-}" \
        "BENCH_SERVER_CPUS=${BENCH_SERVER_CPUS:-} BENCH_LOAD_CPUS=${BENCH_LOAD_CPUS:-}" \
        "BENCH_JAVA_OPTS=\"${BENCH_JAVA_OPTS:-}\" BENCH_DURATION=$DURATION" \
        "BENCH_WARMUP=$WARMUP BENCH_WARMUP_RUNS=$WARMUP_RUNS" \
        "BENCH_WARMUP_TOLERANCE=$WARMUP_TOLERANCE BENCH_ROUNDS=$ROUNDS BENCH_THREADS=$THREADS" \
        "BENCH_CONNECTIONS=$CONNS BENCH_RATES=\"$RATES\" BENCH_RATE_ROUNDS=$RATE_ROUNDS" \
        "BENCH_RATE_SECONDS=$RATE_SECONDS BENCH_RATE_WARMUP=$RATE_WARMUP"
}

# run_wrk FILE URL SECONDS: wrk with the load's prefix; fails on non-2xx or socket errors.
run_wrk() {
    "${LOAD[@]}" wrk -t"$LOAD_THREADS" -c"$CONNS" -d"$3s" --latency "$2" >"$1"
    if grep -Eq 'Non-2xx|Socket errors' "$1"; then
        cat "$1" >&2
        die "errors in wrk run against $2 (see above)"
    fi
}

# wrk_field FILE: prints "req/s p50ms p99ms" from one wrk --latency output.
wrk_field() {
    awk '
        function ms(v) {
            if (v ~ /us$/) return v / 1000
            if (v ~ /ms$/) return v + 0
            if (v ~ /m$/) return v * 60000
            if (v ~ /s$/) return v * 1000
            return v + 0
        }
        /^ +50%/ { p50 = ms($2) }
        /^ +99%/ { p99 = ms($2) }
        /^Requests\/sec:/ { rps = $2 }
        END { printf "%.0f %.3f %.3f\n", rps, p50, p99 }' "$1"
}

# spread: reads numbers, one a line; prints "median (min-max)", or nothing for no numbers.
spread() {
    sort -n | awk '{ v[NR] = $1 }
        END { if (NR == 0) exit
              m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%g (%g-%g)\n", m, v[1], v[NR] }'
}
# now_ms: the wall clock in milliseconds, as the GC logs' timemillis decoration.
now_ms() { date +%s%3N; }
# within A B PCT: whether A is within PCT percent of B.
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d
    exit !(b > 0 && d <= t / 100 * b) }'; }

# http_run TREE: the whole run against that tree's ./idmint serve; raw output in OUT/TREE/.
http_run() {
    local tree=$1 d=$OUT/$1 idmint gc_log gc_flags=() gc_name instances arg url t k r name from
    local rps p50 p99 prev runs settled line order ratio file pct next rest f
    mkdir -p "$d"
    say "== ${LABELS[$tree]}: starting idmint serve"
    # Both JVMs log their GC pauses (cheap), summed up at the end: the usual suspect for a tail.
    # gc+phases: ZGC logs its (sub-millisecond) pauses there, not at gc; G1's phase lines there
    # are not pauses and do not match "Pause".
    gc_log="-Xlog:gc,gc+phases=info:file"
    arg="${JAVA_OPTS[*]} $gc_log=$d/gc-idmint.log:timemillis,level,tags"
    serve "$TMP/idmint-$tree" env IDMINT_JAVA_OPTS="$arg" "${SERVER[@]}" "${TREES[$tree]}/idmint" \
        serve
    idmint=$BASE
    say "$BANNER"
    say "ready: GET $idmint/health/ready -> 200"
    r=$(curl -sS "$idmint/v1/ids?count=1000" | grep -o '"[0-9]*"' | wc -l)
    [ "$r" = 1000 ] || die "/v1/ids?count=1000 returned $r IDs, not 1000"

    # The bare server runs with the collector settings the launcher chose for idmint (its JVM's).
    while IFS= read -r -d '' arg; do
        case $arg in
            -XX:+Use*GC | -XX:M*HeapFreeRatio=*) gc_flags+=("$arg") ;;
        esac
    done </proc/"$SERVE_PID"/cmdline
    gc_name=${gc_flags[*]:-"the JDK's default"}
    say "runtime of both servers: $("$JAVA" -version 2>&1 | head -n1), collector $gc_name"
    instances=$("${SERVER[@]}" nproc)
    say "== starting BareVertxServer ($instances instances, as idmint: one per core)"
    bare "$TMP/bare-$tree" "$instances" "${SERVER[@]}" "$JAVA" "${gc_flags[@]}" \
        "${JAVA_OPTS[@]}" "$gc_log=$d/gc-bare.log:timemillis,level,tags"
    say "$(head -n1 "$TMP/bare-$tree")"

    say "response sizes (headers + body bytes) and headers, which must match:"
    for url in "$idmint/v1/id" "$BARE/"; do
        curl -sS -D "$TMP/h" -o /dev/null -w "  %{size_header} + %{size_download}  $url" "$url"
        printf '   [%s]\n' "$(tr -d '\r' <"$TMP/h" | sed 1d | sed '/^$/d' | sort | paste -sd ';' -)"
    done

    # name|url pairs, in the order they run in each round.
    local targets=("bare|$BARE/" "id|$idmint/v1/id" "ids|$idmint/v1/ids?count=1000")

    # Warm-up until the JIT has settled: a first run is mostly interpreted and C1 code, and the
    # server that went first used to show 100-150 ms p99 stalls in the rounds. A fixed warm-up
    # long enough for every machine would waste minutes on a fast one, so each target gets wrk
    # runs until two in a row agree on requests/s within BENCH_WARMUP_TOLERANCE percent,
    # BENCH_WARMUP_RUNS at most (then it says so: the rounds may still include warm-up).
    say "== warm-up: ${WARMUP}s wrk runs per target until two in a row agree within" \
        "${WARMUP_TOLERANCE}% (at most $WARMUP_RUNS)"
    for t in "${targets[@]}"; do
        name=${t%%|*}
        prev=
        runs=
        settled="NOT settled: the rounds may still include warm-up"
        for k in $(seq "$WARMUP_RUNS"); do
            run_wrk "$d/warmup-$name-$k.txt" "${t#*|}" "$WARMUP"
            read -r rps _ _ < <(wrk_field "$d/warmup-$name-$k.txt")
            runs="$runs $rps"
            if [ -n "$prev" ] && within "$rps" "$prev" "$WARMUP_TOLERANCE"; then
                settled="settled"
                break
            fi
            prev=$rps
        done
        say "  $name: req/s of each run:$runs; $settled"
    done

    # Rounds alternate which of bare and idmint goes first (ABAB...), so neither always follows
    # the other or the bulk run; /v1/ids closes each round. Each round's idmint/bare ratio is
    # kept, so the spread of the ratio shows how far one round's figure can be trusted.
    say "== wrk -t$LOAD_THREADS -c$CONNS -d${DURATION}s --latency, $ROUNDS round(s), bare and" \
        "idmint alternating"
    for r in $(seq "$ROUNDS"); do
        line="  round $r:"
        if [ $((r % 2)) = 1 ]; then order=(0 1 2); else order=(1 0 2); fi
        for k in "${order[@]}"; do
            t=${targets[$k]}
            name=${t%%|*}
            from=$(now_ms)
            run_wrk "$d/wrk-$name-$r.txt" "${t#*|}" "$DURATION"
            [ "$name" = ids ] || echo "$from $(now_ms)" >>"$d/$name.windows"
            read -r rps p50 p99 < <(wrk_field "$d/wrk-$name-$r.txt")
            echo "$rps $p50 $p99" >>"$d/$name.txt"
            line="$line  $name $rps req/s"
        done
        tail -n1 "$d/id.txt" | awk -v b="$(tail -n1 "$d/bare.txt" | cut -d' ' -f1)" \
            '{ printf "%.1f\n", 100 * $1 / b }' >>"$d/ratio.txt"
        say "$line  (idmint/bare $(tail -n1 "$d/ratio.txt")%)"
    done
    # col NAME N: median (min-max) of column N over the rounds; colm: the median alone.
    col() { awk -v n="$2" '{ print $n }' "$d/$1.txt" | spread; }
    colm() { col "$1" "$2" | cut -d' ' -f1; }
    ratio=$(spread <"$d/ratio.txt")
    for name in bare id ids; do
        figure "$tree" "wrk.$name.rps" "$(colm "$name" 1)"
        figure "$tree" "wrk.$name.p50_ms" "$(colm "$name" 2)"
        figure "$tree" "wrk.$name.p99_ms" "$(colm "$name" 3)"
    done
    figure "$tree" wrk.id_over_bare_pct "${ratio%% *}"

    # The load profile, in one FixedRateLoad JVM: first its own peak, closed loop ("max": each
    # connection asks again as soon as it is answered), then fixed rates at percentages of
    # idmint's median there. The peak comes from the same generator, not from wrk: on shared
    # cores what the generator costs decides what the server can be given, so a percentage of
    # another tool's peak may be more than this generator gets through. Per rate, RATE_ROUNDS
    # paired rounds of one run per server (fresh connections, RATE_WARMUP s unrecorded, then
    # RATE_SECONDS s), the first alternating. Each rate's p99 is reported as the median over the
    # rounds with its spread, and so is idmint's p99 over bare's in the same round; and the p99
    # of all rounds together, per server.
    PROFILE=()
    ALL=()
    if [ -n "$RATES" ]; then
        # shellcheck disable=SC2086 # a list of numbers
        say "== load profile (FixedRateLoad, $RATE_ROUNDS paired rounds per rate of" \
            "${RATE_WARMUP}s warm-up + ${RATE_SECONDS}s per server, $CONNS connections," \
            "$LOAD_THREADS thread(s), $WAIT between sends): closed loop (max), then$(
            printf ' %s%%' $RATES) of idmint's median there"
        file="$d/rates.txt"
        local servers=(id bare)
        # shellcheck disable=SC2086 # a list of numbers
        "${LOAD[@]}" "$JAVA" -cp "$BENCH_JAR" io.idmint.benchmarks.FixedRateLoad \
            "$idmint/v1/id,$BARE/" "max$(printf ',%s%%' $RATES)" "$RATE_SECONDS" \
            "$RATE_WARMUP" "$CONNS" "$LOAD_THREADS" "$WAIT" "$RATE_ROUNDS" 2>"$file.err" \
            | tee "$file" | sed 's/^/  /' || {
            cat "$file.err" >&2
            die "FixedRateLoad failed against $idmint/v1/id or $BARE/"
        }
        # round K target T rate R ... ms from F to T; round all target T rate R ... ms. The rates
        # come in the order asked, each in a block: max, then one per percentage.
        # shellcheck disable=SC2206 # a list of numbers
        local pcts=(max $RATES)
        local -A pct_of=()
        next=0
        while read -r _ k _ t rest; do
            read -r -a f <<<"$rest"
            if [ -z "${pct_of[${f[1]}]:-}" ]; then
                pct_of[${f[1]}]=${pcts[$next]}
                next=$((next + 1))
            fi
            name=${servers[$t]}
            pct=${pct_of[${f[1]}]}
            if [ "$k" = all ]; then
                ALL+=("$pct $name $rest")
            else
                PROFILE+=("$k $pct $name $rest")
                [ "$pct" = max ] || echo "${f[28]} ${f[30]}" >>"$d/$name.windows"
            fi
        done <"$file"
    fi
    http_report "$tree" "$d" "$gc_name"
    stop "$BARE_PID"
    stop "$SERVE_PID"
}

# p99_of ROUND PCT NAME: the p99 of one fixed-rate run, or nothing.
p99_of() {
    local p rr pct name p99
    for p in "${PROFILE[@]}"; do
        read -r rr pct name _ _ _ _ _ _ _ _ _ _ _ _ _ p99 _ <<<"$p"
        if [ "$rr" = "$1" ] && [ "$pct" = "$2" ] && [ "$name" = "$3" ]; then
            echo "$p99"
        fi
    done
}
# rate_stat PCT NAME FIELD: median (min-max) of a field of one rate over the rounds (NAME "*":
# both servers' runs).
rate_stat() {
    local p f
    for p in "${PROFILE[@]}"; do
        read -r -a f <<<"$p"
        # shellcheck disable=SC2053 # NAME is a pattern
        [ "${f[1]}" = "$1" ] && [[ "${f[2]}" == $2 ]] && echo "${f[$3]}"
    done | spread
}
# all_p99 PCT NAME: the p99 of all rounds of one rate together.
all_p99() {
    local p f
    for p in "${ALL[@]}"; do
        read -r -a f <<<"$p"
        [ "${f[0]}" = "$1" ] && [ "${f[1]}" = "$2" ] && echo "${f[15]}"
    done
}
# achieved_ratio PCT: median (min-max) over the rounds of idmint's achieved rate over bare's.
achieved_ratio() {
    local r a b p f
    for r in $(seq "$RATE_ROUNDS"); do
        a= b=
        for p in "${PROFILE[@]}"; do
            read -r -a f <<<"$p"
            if [ "${f[0]}" = "$r" ] && [ "${f[1]}" = "$1" ]; then
                if [ "${f[2]}" = id ]; then a=${f[6]}; else b=${f[6]}; fi
            fi
        done
        awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.3g\n", a / b }'
    done | spread
}
# p99_ratio PCT: median (min-max) over the rounds of idmint's p99 over bare's.
p99_ratio() {
    local r
    for r in $(seq "$RATE_ROUNDS"); do
        awk -v a="$(p99_of "$r" "$1" id)" -v b="$(p99_of "$r" "$1" bare)" \
            'BEGIN { if (b > 0) printf "%.3g\n", a / b }'
    done | spread
}

# gc_summary FILE: pauses, their total and the longest, from -Xlog:gc and gc+phases.
gc_summary() {
    awk '/Pause/ && / [0-9.]+ms$/ { v = $NF; sub(/ms$/, "", v); v += 0; n++; t += v
            if (v > m) m = v }
        END { printf "%d pauses, %.1f ms in all, longest %.3f ms\n", n, t, m }' "$1"
}
# gc_during LOG WINDOWS: "count total_ms" of the pauses logged inside the windows ("from to"
# in ms, one a line): a server's single-ID runs only. The whole run is unfair to idmint, which
# also serves /v1/ids?count=1000 (over 20 KB a response) while the bare server has no such
# route.
gc_during() {
    awk 'NR == FNR { from[NR] = $1; to[NR] = $2; n = NR; next }
        /Pause/ && / [0-9.]+ms$/ {
            t = substr($1, 2) + 0; v = $NF; sub(/ms$/, "", v)
            for (i = 1; i <= n; i++) if (t >= from[i] && t <= to[i]) { c++; s += v; break }
        }
        END { printf "%d %.1f\n", c, s }' "$2" "$1"
}
is() { awk "BEGIN { print ($1) ? \"MET\" : \"MISSED\" }"; }

# http_report TREE DIR GC_NAME: the tables and targets of one run, and its figures.
http_report() {
    local tree=$1 d=$2 ratio ratio_m ids_per_s pct asked p r rr name rate a e p50 p90 p99 p999
    local max lag svc hic half q gi ti gb tb pp
    row() { printf '%-31s %-26s %-22s %-22s\n' "$@"; }
    ratio=$(spread <"$d/ratio.txt")
    ratio_m=${ratio%% *}
    ids_per_s=$(awk -v r="$(colm ids 1)" 'BEGIN { printf "%.0f", r * 1000 }')
    figure "$tree" ids_per_s "$ids_per_s"
    say ""
    say "== Results, ${LABELS[$tree]}: median (min-max) of $ROUNDS round(s)," \
        "wrk -t$LOAD_THREADS -c$CONNS -d${DURATION}s, on $HOST"
    row "target" "requests/s" "p50 ms" "p99 ms"
    row "bare Vert.x GET / (ceiling)" "$(col bare 1)" "$(col bare 2)" "$(col bare 3)"
    row "idmint GET /v1/id" "$(col id 1)" "$(col id 2)" "$(col id 3)"
    row "idmint GET /v1/ids?count=1000" "$(col ids 1)" "$(col ids 2)" "$(col ids 3)"
    say "idmint /v1/id over bare, per round: $ratio %; IDs/s through /v1/ids: $ids_per_s"
    say "(p50/p99 above: wrk's closed loop at saturation with $CONNS connections, mostly queueing)"

    if [ ${#PROFILE[@]} -gt 0 ]; then
        say ""
        say "== Load profile: the generator's own peak, then p99 at fixed rates; median" \
            "(min-max) of $RATE_ROUNDS paired round(s)"
        say "closed loop (max), requests/s: idmint $(rate_stat max id 6)," \
            "bare $(rate_stat max bare 6); idmint/bare per round $(achieved_ratio max)"
        figure "$tree" closed.id_rps "$(rate_stat max id 6 | cut -d' ' -f1)"
        figure "$tree" closed.bare_rps "$(rate_stat max bare 6 | cut -d' ' -f1)"
        say "(FixedRateLoad, open loop, ${RATE_SECONDS}s per server and round, latency from the" \
            "scheduled send time, ms; ratio: idmint's p99 over bare's in the same round; all" \
            "rounds: the p99 of every request of the rate; hiccup99: the machine's own stalls," \
            "both servers' runs)"
        srow() { printf '%-5s %7s | %-22s %-22s | %-18s | %-15s | %-18s\n' "$@"; }
        srow "%peak" "rate" "idmint /v1/id p99" "bare / p99" "p99 ratio" "all rounds" "hiccup99"
        for pct in $RATES; do
            asked=-
            for p in "${PROFILE[@]}"; do
                read -r _ pp _ _ rate _ <<<"$p"
                if [ "$pp" = "$pct" ]; then
                    asked=$rate
                    break
                fi
            done
            srow "$pct" "$asked" "$(rate_stat "$pct" id 16)" "$(rate_stat "$pct" bare 16)" \
                "$(p99_ratio "$pct")" "$(all_p99 "$pct" id) / $(all_p99 "$pct" bare)" \
                "$(rate_stat "$pct" '*' 26)"
            figure "$tree" "r$pct.id_p99_ms" "$(rate_stat "$pct" id 16 | cut -d' ' -f1)"
            figure "$tree" "r$pct.bare_p99_ms" "$(rate_stat "$pct" bare 16 | cut -d' ' -f1)"
            figure "$tree" "r$pct.p99_ratio" "$(p99_ratio "$pct" | cut -d' ' -f1)"
        done
        say ""
        say "== Details of the fixed-rate runs (ms)"
        say "(lag99: how late requests went on the wire; svc99: p99 from send to response;" \
            "hic99: hiccup99)"
        prow() { printf '%-3s %-5s %-4s %7s %8s %7s %7s %8s %8s %8s %8s %7s %7s %3s\n' "$@"; }
        prow "rnd" "%peak" "srv" "rate" "achieved" "p50" "p90" "p99" "p99.9" "max" "lag99" \
            "svc99" "hic99" "err"
        for r in "${PROFILE[@]}"; do
            # ROUND PCT NAME rate R achieved A ok N errors E p50 x p90 x p99 x p999 x max x
            # lag99 x svc99 x hiccup99 x ...
            read -r rr pct name _ rate _ a _ _ _ e _ p50 _ p90 _ p99 _ p999 _ max _ lag _ svc _ \
                hic _ <<<"$r"
            prow "$rr" "$pct" "$name" "$rate" "$a" "$p50" "$p90" "$p99" "$p999" "$max" "$lag" \
                "$svc" "$hic" "$e"
        done
    fi

    say ""
    say "== Targets, ${LABELS[$tree]} (medians over $ROUNDS round(s))"
    say "single-ID throughput vs bare ceiling: $ratio_m% (target >= 90%): $(is "$ratio_m >= 90")"
    say "IDs/s through /v1/ids?count=1000: $ids_per_s (target >= 3,000,000):" \
        "$(is "$ids_per_s >= 3000000")"
    half=$( [ ${#PROFILE[@]} -gt 0 ] && rate_stat 50 id 16 || true)
    if [ -n "$half" ]; then
        say "p99 at half of peak, idmint /v1/id: $half ms (target < 1 ms): $(is "${half%% *} < 1")"
    else
        say "p99 at half of peak: not measured (BENCH_RATES has no 50)"
    fi
    for pct in 75 90; do
        q=$( [ ${#PROFILE[@]} -gt 0 ] && p99_ratio "$pct" || true)
        if [ -n "$q" ]; then
            say "p99 at $pct% of peak, idmint over bare: $q (target <= 1.5):" \
                "$(is "${q%% *} <= 1.5")"
        else
            say "p99 at $pct% of peak: not measured (BENCH_RATES has no $pct)"
        fi
    done
    read -r gi ti < <(gc_during "$d/gc-idmint.log" "$d/id.windows")
    read -r gb tb < <(gc_during "$d/gc-bare.log" "$d/bare.windows")
    say "GC pauses during the single-ID runs (wrk and fixed rates), idmint vs bare: $gi vs $gb" \
        "(target <= 2x): $(is "$gi <= 2 * $gb")"
    say "GC pause time during the single-ID runs, idmint vs bare: $ti vs $tb ms (target <= 2x):" \
        "$(is "$ti <= 2 * $tb")"
    figure "$tree" gc.id.pauses "$gi"
    figure "$tree" gc.id.ms "$ti"
    figure "$tree" gc.bare.pauses "$gb"
    figure "$tree" gc.bare.ms "$tb"
    say "collector: $3; GC over the whole run: idmint $(gc_summary "$d/gc-idmint.log")"
    say "                       bare   $(gc_summary "$d/gc-bare.log")"
}
