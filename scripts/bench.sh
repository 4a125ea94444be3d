#!/usr/bin/env bash
# What `make bench` runs: the benchmarks whose figures BENCHMARKS.md reports, each
# a ratio measured in one run, then a summary of the scale-out figures. Every
# run is short (seconds; the 10,000 pending questions take about a minute and a
# half on two cores). Needs redis-server (scripts/ensure-redis.sh) for the
# instances behind the proxy. Logs go to $BENCH_OUT (default: a temp directory).
#
# After each benchmark it prints its ratios, one a line: the median, the range
# (over the runs of the benchmark) and the load average while it ran; all of
# them again at the end, with the date (scripts/bench-ratios.awk). The whole
# takes a while on a busy machine: BENCH_ONLY="script bench reqstate sdk" runs
# only those sections (call, termsafe, scan, catdiff, script, proxy, reqstate, bench, floor,
# sdk, scaleout, run, allocs), e.g. `make bench BENCH_ONLY=script`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/bin:$PATH"
out="${BENCH_OUT:-$(mktemp -d -t askback-bench-XXXXXX)}"
mkdir -p "$out"
load() { cut -d' ' -f1 /proc/loadavg; }
: >"$out/ratios.txt"
echo "bench: logs in $out; $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(load)"

want() { [ -z "${BENCH_ONLY:-}" ] || [[ " $BENCH_ONLY " == *" $1 "* ]]; }
section() { printf '\n== %s ==\n' "$1"; }
gobench() { # gobench LOG PKG PATTERN [go test flags...]
  local log="$out/$1" pkg="$2" pattern="$3" l0 l1
  shift 3
  echo "\$ go test $pkg -run '^\$' -bench '$pattern' $*"
  l0=$(load)
  go test "$pkg" -run '^$' -bench "$pattern" "$@" 2>&1 | tee "$log" | grep -E '^(Benchmark|ok|FAIL|---|    )' || true
  l1=$(load)
  if grep -q '^FAIL' "$log"; then
    echo "bench: $pkg failed; see $log" >&2
    exit 1
  fi
  echo "ratios (median, range, load average at the start and end of the run):"
  awk -v LOAD="$l0–$l1" -f scripts/bench-ratios.awk "$log" | tee -a "$out/ratios.txt"
}

if want call; then
section "mcp-tester call"
gobench call.txt ./cmd/mcp-tester 'DeployCall|LingeringServer' -benchtime 30x
# What one start of mcp-tester costs (--version) against a Go hello world
# built with the same flags, 100 pairs in turn, CPU time.
gobench start.txt ./cmd/mcp-tester 'Start$' -benchtime 10x
fi
if want termsafe; then
section "neutralising server text"
gobench termsafe.txt ./internal/text/termsafe Neutralise -benchtime 20x -count 3
fi
if want scan; then
section "the scan of what a server tells the model"
gobench scan.txt ./internal/checks/scan 'ScanCorpus|ScanSize' -benchtime 1x -count 3
fi
if want catdiff; then
section "catalog diff at scale"
gobench catdiff.txt ./internal/catalog/catalogdiff CompareScale -benchtime 5x
fi
if want script; then
section ".mcp scripts"
gobench script.txt ./internal/script ScriptVsPlain -benchtime 20x
# The same as whole processes: mcp-tester test against the go-sdk loop.
gobench script-process.txt ./internal/testsupport/fixtures/yardstick ScriptProcess -benchtime 7x -v
# Where a step's time goes.
gobench script-profile.txt ./internal/script ScriptProfile -benchtime 3x -v
fi
if want proxy; then
section "mcp-tester proxy"
gobench proxy-latency.txt ./internal/server/proxy 'AddedLatency|ForwardCost' -benchtime 2000x -count 3 -benchmem
# The proxy against its floor, Go's httputil.ReverseProxy on the same path, run by run.
awk '/^BenchmarkAddedLatency/ { for (i = 2; i <= NF; i++) if ($i ~ /^proxy\/floor/) printf "%s %s  ", $i, $(i-1); print "" }' "$out/proxy-latency.txt"
gobench proxy-memory.txt ./internal/server/proxy SessionMemory -benchtime 1x
fi
if want reqstate; then
section "requestState codec"
gobench reqstate.txt ./reqstate Codec -benchtime 3125x -count 3
# The arguments' canonical form and the payload's reader on jsonscan's scanner against reqstate's former ones.
gobench reqstate-json.txt ./reqstate 'ArgsDigest|PayloadRead' -benchtime 3125x -count 3
# An object of 16,000 keys digested against json.Valid of the same bytes: linear in the keys.
gobench reqstate-keys.txt ./reqstate 'DigestManyKeys' -benchtime 3x -count 3
gobench reqstate-exchange.txt ./reqstate Exchange -benchtime 50x
gobench replay.txt ./replay Memory -benchtime 500x
fi

if want bench; then
section "bench's own cost"
gobench client.txt ./internal/testsupport/scaleout ClientCost -benchtime 1x -v
# As processes: mcp-tester bench against the minimal go-sdk client.
gobench bench-process.txt ./internal/testsupport/fixtures/yardstick BenchProcess -benchtime 7x -v -timeout 30m
gobench jsonscan.txt ./internal/encoding/jsonscan 'Repeats|Scan' -benchtime 300x
fi
if want floor; then
section "the deployer against its go-sdk floor"
# Server CPU per two-round flow: examples/deployer against the same tool
# written with the go-sdk alone, taking turns.
gobench deployer-floor.txt ./internal/testsupport/scaleout DeployerFloor -benchtime 1x -v
fi
if want sdk; then
section "the go-sdk's share"
# Where the deployer's CPU goes in a two-round flow.
gobench deployer-profile.txt ./examples/deployer DeployerProfile -benchtime 3x -v
# The released go-sdk against a bare handler, and builds against patched copies
# (scripts/sdk-patches, built outside the repository by scripts/sdk-patched.sh).
patched=""
for p in both: parse:scripts/sdk-patches/1-parse-in-place.diff headers:scripts/sdk-patches/2-header-bindings-per-tool.diff; do
  name=${p%%:*} diff=${p#*:}
  if dir=$(SDK_PATCHED_DIR="$out/sdk-$name" bash scripts/sdk-patched.sh $diff 2>"$out/sdk-$name.log"); then
    patched="$patched,$name=$dir"
  else
    echo "bench: the patched go-sdk ($name) did not build; see $out/sdk-$name.log" >&2
  fi
done
patched=${patched#,}
sdkcost="" deployers=""
for e in ${patched//,/ }; do
  sdkcost="$sdkcost,${e%%=*}=${e#*=}/sdkcost/sdkcost"
  deployers="$deployers,${e%%=*}=${e#*=}/deployer"
done
SDKCOST_PATCHED=${sdkcost#,} DEPLOYER_PATCHED=${deployers#,} \
  gobench sdk.txt ./internal/testsupport/scaleout 'SDKShare|DeployerSDK' -benchtime 1x -v
fi

if want scaleout; then
section "Scale-out"
bash scripts/ensure-redis.sh
gobench scaleout.txt ./internal/testsupport/scaleout 'PendingQuestions|Flows|Instances' -benchtime 1x -timeout 15m -v
fi

if want run; then

# One visible run of the load generator, as a user would type it.
export DEPLOY_STATE_KEY="${DEPLOY_STATE_KEY:-bench-key-0123456789abcdef-0123456789}"
addr_file="$out/deployer.addr"
rm -f "$addr_file"
deployer -http 127.0.0.1:0 -addr-file "$addr_file" &
dep_pid=$!
trap 'kill "$dep_pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$addr_file" ] && break; sleep 0.1; done
addr=$(tr -d '\n' <"$addr_file")
echo
echo "\$ mcp-tester bench deploy -u http://$addr/mcp --args '{\"service\":\"auth-service\"}' --elicit 'accept:{\"environment\":\"production\",\"confirm\":true}' --concurrency 8 --duration 3s"
mcp-tester bench deploy -u "http://$addr/mcp" --args '{"service":"auth-service"}' \
  --elicit 'accept:{"environment":"production","confirm":true}' --concurrency 8 --duration 3s | tee "$out/mcp-tester-bench.txt"
kill "$dep_pid" 2>/dev/null || true
fi

if want allocs; then
section "allocations per operation (figures the tests no longer assert)"
gobench allocs-replay.txt ./replay 'ClaimQueueSteadyState' -benchtime 1000x
gobench allocs-session.txt ./internal/client/session 'AnsweredAdd' -benchtime 1000x
gobench allocs-target.txt ./internal/client/target 'TailReadFrom' -benchtime 5x
gobench allocs-reqstate.txt ./reqstate 'IssueOpenAllocations' -benchtime 200x
gobench allocs-script.txt ./internal/script 'RunnerAllocations|StepParsedAgain|ParseAllocations' -benchtime 100x
gobench allocs-cli.txt ./internal/cli 'CommandTree' -benchtime 50x
gobench allocs-strictjson.txt ./internal/encoding/strictjson 'DeepNesting' -benchtime 20x
gobench allocs-start.txt ./internal/testsupport/fixtures/yardstick 'StartInitialisation' -benchtime 5x
gobench allocs-jsonscan.txt ./internal/encoding/jsonscan 'PassAllocations' -benchtime 300x
fi

section "Ratios ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average now $(load))"
cat "$out/ratios.txt"

if want scaleout; then
# metric NAME: the value reported next to NAME in the scale-out log.
metric() { awk -v m="$1" '{ for (i = 2; i <= NF; i++) if ($i == m) { print $(i-1); exit } }' "$out/scaleout.txt"; }
section "Summary: scale-out ($(date -u +%Y-%m-%d), $(nproc) cores)"
printf '%-58s %12s %12s\n' "" "old way" "MRTR"
printf '%-58s %12s %12s\n' "pending questions held at once" "$(metric pending)" "$(metric pending)"
printf '%-58s %12s %12s\n' "server heap in use per pending question (bytes)" "$(metric old-heap-B/pending)" "$(metric mrtr-heap-B/pending)"
printf '%-58s %12s %12s\n' "server goroutines per pending question" "$(metric old-goroutines/pending)" "$(metric mrtr-goroutines/pending)"
printf '%-58s %12s %12s\n' "completed two-step flows/s, loopback HTTP, 8 workers" "$(metric old-flows/s)" "$(metric mrtr-flows/s)"
echo
echo "MRTR / old way, flows/s:                 $(metric mrtr/old)"
echo "two-round MRTR deploy / one-round call:  $(metric mrtr/one-round)   ($(metric one-round-calls/s) one-round calls/s)"
echo "behind the proxy, flows/s: 1 instance $(metric flows/s-1-instances), 2 instances $(metric flows/s-2-instances) (x$(metric x-2/1)), 4 instances $(metric flows/s-4-instances) (x$(metric x-4/1))"
echo "(load generator, proxy, Redis and instances share the machine's $(nproc) cores)"
fi
