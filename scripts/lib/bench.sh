# What every benchmark of scripts/bench shares, written once: messages, the cleanup on exit,
# starting and stopping processes, waiting for a line, free ports (port 0 and the banner),
# building, the tools a benchmark needs, JMH, and the figures behind the summary line.
# Sourced by scripts/bench (bash), which sets ROOT, NAME, QUICK (1 in quick mode), OUT, TMP,
# TREES and LABELS (see scripts/bench) before it sources the benchmark's file.

HOST=127.0.0.1
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
BENCH_JAR=idmint-benchmarks/target/benchmarks.jar
IDMINT_JAR=idmint-server/target/idmint.jar
# BENCH_NICE (e.g. -10, as root): the benchmark's processes run at that niceness.
NICE=()
[ -z "${BENCH_NICE:-}" ] || NICE=(nice -n "$BENCH_NICE")

say() { printf '%s\n' "$*"; }
die() { printf 'bench %s: %s\n' "$NAME" "$*" >&2; exit 1; }
# misuse MESSAGE: a usage error (exit 2), e.g. an argument the benchmark does not take.
misuse() { printf 'bench %s: %s (scripts/bench %s --help)\n' "$NAME" "$*" "$NAME" >&2; exit 2; }

# The processes started with `spawn`; cleanup stops those still running, then removes TMP and
# the --against worktree, on exit, error or Ctrl-C alike, keeping the exit status.
PIDS=()
cleanup() {
    local status=$? pid
    trap - EXIT INT TERM
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ -n "${AGAINST_DIR:-}" ]; then
        git -C "$ROOT" worktree remove --force "$AGAINST_DIR" >/dev/null 2>&1 || true
    fi
    rm -rf "$TMP"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# spawn FILE COMMAND...: runs COMMAND in the background, its output in FILE and FILE.err; its
# pid in SPAWNED. nice, taskset, env and ./idmint exec one another, so that is the JVM's pid.
spawn() {
    local file=$1
    shift
    "$@" >"$file" 2>"$file.err" &
    SPAWNED=$!
    PIDS+=("$SPAWNED")
}

# finish PID: waits for a process that spawn started to end; returns its exit status.
finish() {
    local pid keep=() status=0
    wait "$1" 2>/dev/null || status=$?
    for pid in "${PIDS[@]}"; do [ "$pid" = "$1" ] || keep+=("$pid"); done
    PIDS=("${keep[@]}")
    return "$status"
}

# stop PID: ends a process that spawn started.
stop() {
    kill "$1" 2>/dev/null || true
    finish "$1" || true
}

# wait_line FILE PATTERN PID [SECONDS]: until FILE has a line matching PATTERN (default 60 s);
# dies, showing FILE and FILE.err, if PID exits first or the time runs out.
wait_line() {
    local i
    for i in $(seq $((${4:-60} * 10))); do
        grep -q "$2" "$1" 2>/dev/null && return 0
        if ! kill -0 "$3" 2>/dev/null; then
            cat "$1" "$1.err" >&2 2>/dev/null
            die "process $3 exited before printing '$2'"
        fi
        sleep 0.1
    done
    cat "$1" "$1.err" >&2 2>/dev/null
    die "no line matching '$2' in $1 after ${4:-60} s"
}

# serve FILE COMMAND...: starts COMMAND (it ends in `serve` and its own options) on HOST with
# free ports (port 0: the banner says which) and a data dir of its own (FILE.data), and waits
# until /health/ready answers 200. Sets SERVE_PID, HTTP_PORT, GRPC_PORT, BASE (its HTTP URL)
# and BANNER.
serve() {
    local file=$1 code i
    shift
    rm -rf "$file.data"
    spawn "$file" "$@" --http-port 0 --grpc-port 0 --bind "$HOST" --data-dir "$file.data"
    SERVE_PID=$SPAWNED
    wait_line "$file" '^idmint serving http://' "$SERVE_PID"
    BANNER=$(grep -m1 '^idmint serving http://' "$file")
    HTTP_PORT=$(sed -n 's|^idmint serving http://[^ ]*:\([0-9][0-9]*\) .*|\1|p' <<<"$BANNER")
    GRPC_PORT=$(sed -n 's|^.* grpc [^ ]*:\([0-9][0-9]*\) .*|\1|p' <<<"$BANNER")
    [ -n "$HTTP_PORT" ] || die "cannot read the HTTP port from: $BANNER"
    BASE="http://$HOST:$HTTP_PORT"
    for i in $(seq 300); do
        code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/health/ready" || true)
        [ "$code" = 200 ] && return 0
        sleep 0.1
    done
    die "$BASE/health/ready still $code after 30 s"
}

# bare FILE INSTANCES JAVA_COMMAND...: starts BareVertxServer (this checkout's) with INSTANCES
# verticles, answering every request with the body and headers that the idmint at BASE answers
# to /v1/id (so the two send identical bytes); JAVA_COMMAND is the java command and its flags.
# Sets BARE_PID and BARE (its URL).
bare() {
    local file=$1 instances=$2 line headers=()
    shift 2
    curl -sS -D "$file.head" -o "$file.body" "$BASE/v1/id"
    while IFS= read -r line; do
        line=${line%$'\r'}
        case "$line" in
            HTTP/* | '' | [Cc]ontent-[Ll]ength:*) ;;
            *) headers+=("$line") ;;
        esac
    done <"$file.head"
    spawn "$file" "$@" -cp "$BENCH_JAR" io.idmint.benchmarks.BareVertxServer 0 "$instances" \
        "$(cat "$file.body")" "${headers[@]}"
    BARE_PID=$SPAWNED
    wait_line "$file" '^bare serving http://.*)$' "$BARE_PID"
    BARE=http://$HOST:$(sed -n 's|^bare serving http://[^ ]*:\([0-9][0-9]*\) .*|\1|p' "$file")
}

# build TREE MODULES: packages MODULES (Maven -pl, comma-separated) and what they depend on in
# TREE, no tests; only what the benchmark needs. BENCH_NO_BUILD=1 skips this checkout's build
# (the --against worktree is new, so it is always built). Maven reads more options from
# MAVEN_ARGS, e.g. MAVEN_ARGS=-o to build offline.
build() {
    [ "$1" != "$ROOT" ] || [ "${BENCH_NO_BUILD:-0}" != 1 ] || return 0
    say "== building $2 in $1"
    (cd "$1" && ./mvnw -B -q -DskipTests -Didmint.commit="$(git rev-parse --short HEAD)" \
        -pl "$2" -am package) || die "the build of $2 in $1 failed"
}

# need COMMAND [PACKAGE]: COMMAND must be on the PATH; as root it is installed with apt-get
# (PACKAGE, default COMMAND), otherwise the message gives the command to install it.
need() {
    command -v "$1" >/dev/null 2>&1 && return 0
    [ "$(id -u)" = 0 ] || die "$1 is missing; install it with: sudo apt-get install -y ${2:-$1}"
    say "== installing ${2:-$1}"
    { apt-get install -y -qq "${2:-$1}" \
        || { apt-get update -qq && apt-get install -y -qq "${2:-$1}"; }; } >/dev/null 2>&1 \
        || die "could not install ${2:-$1}"
}

# jmh JAR LOG ARGS...: JMH from JAR (niced), its output in LOG. JMH refuses to start while
# another run holds its machine-wide lock (/tmp/jmh.lock): then this waits for it, up to
# BENCH_LOCK_WAIT seconds (default 1800). Any other failure shows the log's end and dies.
jmh() {
    local jar=$1 log=$2 waited=0
    shift 2
    while ! "${NICE[@]}" "$JAVA" -jar "$jar" "$@" >"$log" 2>&1; do
        if grep -q 'Unable to acquire the JMH lock' "$log" \
            && [ "$waited" -lt "${BENCH_LOCK_WAIT:-1800}" ]; then
            [ "$waited" -gt 0 ] || say "   another JMH run holds /tmp/jmh.lock; waiting for it"
            sleep 10
            waited=$((waited + 10))
            continue
        fi
        tail -n 40 "$log" >&2
        die "JMH failed; log: $log"
    done
}

# wrk_run FILE WRK_ARGS...: wrk (niced), its output in FILE; dies on non-2xx or socket errors.
wrk_run() {
    local file=$1
    shift
    "${NICE[@]}" wrk "$@" >"$file"
    if grep -Eq 'Non-2xx|Socket errors' "$file"; then
        cat "$file" >&2
        die "errors in wrk $* (see above)"
    fi
}

# median: reads numbers, one a line; prints their median, or nothing for none.
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] \
        : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# figure TREE KEY VALUE: one figure of tree TREE (an index into TREES) for the summary line,
# and for the ratio table with --against. KEY: letters, digits and _, dots between its parts;
# VALUE: a number (anything else is left out, with a warning).
figure() {
    if [[ $3 =~ ^-?[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$ ]]; then
        printf '%s %s\n' "$2" "$3" >>"$TMP/figures-$1"
    else
        printf 'bench %s: figure %s is not a number (%s); left out\n' "$NAME" "$2" "$3" >&2
    fi
}

# record [TREE]: passes its input through, but for lines "figure KEY VALUE [TREE]", which it
# records as figures of that tree (default: the argument), so that one awk can print a table and
# its figures.
record() {
    local line key value tree
    while IFS= read -r line; do
        case $line in
            "figure "*)
                read -r _ key value tree <<<"$line"
                figure "${tree:-$1}" "$key" "$value"
                ;;
            *) printf '%s\n' "$line" ;;
        esac
    done
}

# machine: one line on the machine and the run: CPUs, JDK, niceness, load average then and now.
machine() {
    say "machine: $(nproc) x $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1);" \
        "$("$JAVA" -version 2>&1 | head -n1); niceness ${BENCH_NICE:-0}; load average at" \
        "start $LOAD_START, at end $(cut -d' ' -f1-3 /proc/loadavg)"
}
