#!/usr/bin/env bash
# Instructions per HTTP `add` call, `everything --http` against the hyper
# ceiling, counted with callgrind (BENCHMARKS.md, "The outside HTTP
# benchmark's gap").
#
#   bench/http/callgrind.sh [--no-build] [--lo N] [--hi N] [--connections N]
#                           [--rate-limit SPEC] [--keep DIR] [--profile NAME]
#                           [--cache] [--everything BINARY]
#
# Each server runs under `valgrind --tool=callgrind` twice: once for `--lo`
# (1,000) calls and once for `--hi` (4,000), driven by `http-load` (not under
# valgrind) over `--connections` (8) keep-alive connections with the
# 2026-07-28 headers and `_meta` envelope. The count for `--lo` is subtracted
# from the count for `--hi`: startup, the connections' setup and shutdown
# cancel out, and what is left, divided by `hi - lo`, is the instructions
# of one call. Wall-clock time on a shared machine moves with the load;
# these counts do not (they repeat to a few instructions per call).
#
# `--cache` runs cachegrind with its cache simulation instead (the host's
# L1 geometry) and prints, per call, the instructions and the first-level
# instruction and data cache misses: what an instruction count does not
# see, and why the CPU ratio under load can be well above the instruction
# ratio (BENCHMARKS.md). `--everything BINARY` measures another build of
# `everything --http` (e.g. an older main's) against the same ceiling.
#
# `everything` runs with `RATE_LIMIT=off` (what the benchmark measures)
# unless `--rate-limit SPEC` gives another value (e.g. `default` for the
# examples' default, 1000/s burst 2000, or `1000000` for a limit
# that never binds). The ceiling gets everything's `serverInfo`
# (`CEILING_SERVER_INFO`), so both answer with the same bytes.
#
# The binaries are the release builds the HTTP command of docs/examples.md makes
# (`cargo build --release -p examples --example everything --features http`)
# and `cargo build --release -p bench-http`; `--no-build` uses what is in
# target/release. With `--keep DIR` the callgrind outputs stay in DIR (for
# callgrind_annotate). `--profile NAME` builds and runs target/NAME instead
# of target/release; for callgrind_annotate, a profile like release with
# symbols, defined from the environment (nothing in Cargo.toml):
#
#   CARGO_PROFILE_PROFILING_INHERITS=release CARGO_PROFILE_PROFILING_STRIP=none \
#   CARGO_PROFILE_PROFILING_DEBUG=line-tables-only \
#   bench/http/callgrind.sh --profile profiling --keep /tmp/cg
#   callgrind_annotate /tmp/cg/callgrind.everything.4000 | head -60
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
lo=1000
hi=4000
connections=8
rate_limit=off
build=1
keep=
profile=release
cache=
everything_binary=
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build= ;;
        --lo) lo=$2; shift ;;
        --hi) hi=$2; shift ;;
        --connections) connections=$2; shift ;;
        --rate-limit) rate_limit=$2; shift ;;
        --keep) keep=$2; shift ;;
        --profile) profile=$2; shift ;;
        --cache) cache=1 ;;
        --everything) everything_binary=$2; shift ;;
        *) echo "usage: $0 [--no-build] [--lo N] [--hi N] [--connections N] [--rate-limit SPEC] [--keep DIR] [--profile NAME] [--cache] [--everything BINARY]" >&2; exit 2 ;;
    esac
    shift
done
[ "$hi" -gt "$lo" ] || { echo "--hi must be larger than --lo" >&2; exit 2; }

if [ -n "$build" ]; then
    (cd "$root" && cargo build --profile "$profile" -q -p examples --example everything --features http \
        && cargo build --profile "$profile" -q -p bench-http)
fi
release="$root/target/$profile"
everything=${everything_binary:-$release/examples/everything}
ceiling="$release/http-ceiling"
load="$release/http-load"
for program in "$everything" "$ceiling" "$load"; do
    [ -x "$program" ] || { echo "missing $program (build it, or drop --no-build)" >&2; exit 1; }
done

out=${keep:-$(mktemp -d)}
mkdir -p "$out"
[ -n "$keep" ] || trap 'rm -rf "$out"' EXIT

# A free port: bind port 0 and read it back.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until something accepts on 127.0.0.1:$1 (valgrind starts slowly).
wait_port() {
    for _ in $(seq 1 600); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "nothing listens on port $1" >&2
    return 1
}

# `everything`'s serverInfo, from one call to a plain (not valgrind) run.
port=$(free_port)
RATE_LIMIT=off "$everything" --http "127.0.0.1:$port" 2>"$out/info.stderr" &
info_pid=$!
wait_port "$port"
server_info=$(curl -s "http://127.0.0.1:$port/mcp" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: add' \
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
    | jq -c '.result._meta["io.modelcontextprotocol/serverInfo"]')
kill -TERM "$info_pid"
wait "$info_pid" || true
[ "$server_info" != null ] && [ -n "$server_info" ] || { echo "no serverInfo from everything" >&2; exit 1; }

# Total instructions of one run of server $1 ("everything" or "ceiling")
# answering $2 calls.
count() {
    local name=$1 calls=$2 port pid file vg
    port=$(free_port)
    file="$out/callgrind.$name.$calls"
    if [ -n "$cache" ]; then
        vg=(--tool=cachegrind --cache-sim=yes "--cachegrind-out-file=$file")
    else
        vg=(--tool=callgrind "--callgrind-out-file=$file")
    fi
    if [ "$name" = everything ]; then
        local limit=$rate_limit
        if [ "$limit" = default ]; then
            env -u RATE_LIMIT valgrind "${vg[@]}" \
                "$everything" --http "127.0.0.1:$port" 2>"$file.stderr" &
        else
            RATE_LIMIT=$limit valgrind "${vg[@]}" \
                "$everything" --http "127.0.0.1:$port" 2>"$file.stderr" &
        fi
    else
        CEILING_SERVER_INFO=$server_info valgrind "${vg[@]}" \
            "$ceiling" "127.0.0.1:$port" 2>"$file.stderr" &
    fi
    pid=$!
    wait_port "$port"
    "$load" "http://127.0.0.1:$port/mcp" --connections "$connections" --warm-up 0 --calls "$calls" \
        >"$file.load" || { kill -TERM "$pid"; cat "$file.load" >&2; return 1; }
    kill -TERM "$pid"
    wait "$pid" || true
    # The totals line: "summary: N" (or "totals: N"); cachegrind's has
    # Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw, of which Ir, I1mr, D1mr + D1mw.
    if [ -n "$cache" ]; then
        awk '/^summary:/ { print $2, $3, $6 + $9; exit }' "$file"
    else
        awk '/^(summary|totals):/ { print $2; exit }' "$file"
    fi
}

if [ -n "$cache" ]; then
    printf '%-11s %12s %14s %14s\n' server "Ir/call" "I1 misses/call" "D1 misses/call"
    for name in everything ceiling; do
        read -r -a a <<<"$(count "$name" "$lo")"
        read -r -a b <<<"$(count "$name" "$hi")"
        printf '%-11s %12d %14d %14d\n' "$name" $(( (b[0] - a[0]) / (hi - lo) )) \
            $(( (b[1] - a[1]) / (hi - lo) )) $(( (b[2] - a[2]) / (hi - lo) ))
    done
    echo "(cachegrind's simulation of this host's L1; everything: RATE_LIMIT=$rate_limit; $connections connections)"
    exit 0
fi

printf '%-11s %14s %14s %10s\n' server "Ir($lo)" "Ir($hi)" per-call
declare -A per_call
for name in everything ceiling; do
    a=$(count "$name" "$lo")
    b=$(count "$name" "$hi")
    per_call[$name]=$(( (b - a) / (hi - lo) ))
    printf '%-11s %14d %14d %10d\n' "$name" "$a" "$b" "${per_call[$name]}"
done
awk -v e="${per_call[everything]}" -v c="${per_call[ceiling]}" \
    'BEGIN { printf "everything / ceiling = %.3f\n", e / c }'
echo "(everything: RATE_LIMIT=$rate_limit; $connections connections)"
