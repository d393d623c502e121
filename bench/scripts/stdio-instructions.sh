#!/usr/bin/env bash
# Instructions per `add` call of a stdio server, counted by callgrind (so
# the machine's load does not move it): the count for 4,000 pipelined calls
# minus the one for 1,000, over 3,000 (startup and shutdown cancel out).
#
#   bench/scripts/stdio-instructions.sh BINARY [BINARY ...]
#
# Each server gets a 2025-06-18 `initialize`, `notifications/initialized`,
# `tools/list`, then the calls, all written at once to its stdin; it exits
# at end of input. With ERA=2026-07-28 there is no handshake: `tools/list`
# and every call carry the 2026-07-28 `_meta` envelope (the hand-written
# ceiling speaks only the legacy era). Needs valgrind.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: [ERA=2026-07-28] $0 BINARY [BINARY ...]" >&2; exit 2; }
era=${ERA:-2025-06-18}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
envelope='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}'
feed() {
  if [ "$era" = 2026-07-28 ]; then
    printf '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{%s}}\n' "$envelope"
    for ((i = 2; i < $1 + 2; i++)); do
      printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":0.25},%s}}\n' "$i" "$i" "$envelope"
    done
    return
  fi
  printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}'
  printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
  for ((i = 2; i < $1 + 2; i++)); do
    printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":0.25}}}\n' "$i" "$i"
  done
}
feed 1000 >"$work/1000.jsonl"
feed 4000 >"$work/4000.jsonl"
count() { # binary calls -> total instructions
  RATE_LIMIT=off valgrind --tool=callgrind --callgrind-out-file="$work/out" "$1" \
    <"$work/$2.jsonl" >"$work/answers" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  local answered
  answered=$(grep -c '"result"' "$work/answers")
  expected=$(($2 + 2))
  [ "$era" = 2026-07-28 ] && expected=$(($2 + 1))
  [ "$answered" -eq "$expected" ] || { echo "$1: $answered answers for $expected requests" >&2; exit 1; }
  grep '^summary:' "$work/out" | awk '{print $2}'
}
for binary in "$@"; do
  small=$(count "$binary" 1000)
  large=$(count "$binary" 4000)
  echo "$binary: $(( (large - small) / 3000 )) instructions per call"
done
