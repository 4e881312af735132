#!/usr/bin/env bash
# ditto vs libtorch, side by side (bench/README.md): installs the Debian packages if missing,
# builds bench_vs_libtorch in build-bench (Release), runs it PROCESSES times with repetitions
# interleaved at random (ditto and libtorch alternate in one process), and prints the Markdown
# table of medians over every repetition of every process (bench/compare.py).
#   bench/run-vs-libtorch.sh [--processes N] [--repetitions N] [--min-time SECONDS] [--filter REGEX]
#                            [--wait-idle SECONDS] [--jobs N] [--busy-neighbour]
# --wait-idle: before each process, wait (at most SECONDS) until no other task has been runnable
# for 5 s in a row; 2-thread timings on a 2-core machine mean nothing while someone compiles.
# --busy-neighbour: run a process that keeps one core busy (a spinning loop) beside every
# benchmark process, as a shared machine does: how much slower 2 threads get than 1 under load.
# The raw JSON is kept in build-bench/vs-libtorch-<i>.json. OPENBLAS_CORETYPE is not set for the
# main runs; libtorch then runs again with each OpenBLAS core family this CPU can run (AVX-512,
# AVX2) other than the one it picked forced (build-bench/vs-libtorch-forced-<core>-<i>.json), and
# the table also compares ditto with the fastest of them.
set -euo pipefail
cd "$(dirname "$0")/.."

processes=3 repetitions=5 min_time=0.5 filter="" wait_idle=0 jobs=2 busy=0
while [ $# -gt 0 ]; do
  case "$1" in
    --processes) processes="$2"; shift 2 ;;
    --repetitions) repetitions="$2"; shift 2 ;;
    --min-time) min_time="$2"; shift 2 ;;
    --filter) filter="$2"; shift 2 ;;
    --wait-idle) wait_idle="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --busy-neighbour) busy=1; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "run-vs-libtorch.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

bash scripts/install-deps.sh libtorch-dev libopenblas-dev

cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DDITTO_BUILD_BENCH=ON -DDITTO_BUILD_EXAMPLES=OFF \
  -DDITTO_BUILD_TESTS=OFF >/dev/null
cmake --build build-bench --target bench_vs_libtorch -j "$jobs"

echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# Runnable tasks other than the reader itself, from /proc/loadavg's "running/total" field.
others_running() { echo $(( $(cut -d' ' -f4 /proc/loadavg | cut -d/ -f1) - 1 )); }
wait_for_idle() {
  local quiet=0 waited=0
  while [ "$quiet" -lt 5 ] && [ "$waited" -lt "$wait_idle" ]; do
    if [ "$(others_running)" -eq 0 ]; then quiet=$((quiet + 1)); else quiet=0; fi
    sleep 1; waited=$((waited + 1))
  done
  [ "$quiet" -ge 5 ] || echo "  (machine not idle after ${wait_idle}s; running anyway)" >&2
}

neighbour=""
stop_neighbour() { [ -z "$neighbour" ] || kill "$neighbour" 2>/dev/null || true; neighbour=""; }
trap stop_neighbour EXIT
files=()
for i in $(seq 1 "$processes"); do
  out="build-bench/vs-libtorch-$i.json"
  [ "$wait_idle" -eq 0 ] || wait_for_idle
  if [ "$busy" -eq 1 ]; then
    sh -c 'while :; do :; done' &
    neighbour=$!
  fi
  echo "process $i/$processes, load average $(cut -d" " -f1-3 /proc/loadavg)${neighbour:+, a busy neighbour beside it} ..." >&2
  build-bench/bench/bench_vs_libtorch --benchmark_repetitions="$repetitions" \
    --benchmark_enable_random_interleaving=true --benchmark_min_time="$min_time" \
    ${filter:+--benchmark_filter="$filter"} --benchmark_format=json >"$out"
  stop_neighbour
  files+=("$out")
done
# OpenBLAS picks its kernels from a table of CPUs it knows; on a newer CPU it falls back to an
# older core (an AVX-512 Xeon ran "Prescott", SSE3, at a fifth of its speed), and on an AVX-512 CPU
# its AVX-512 core is not always its fastest (on Zen 4, whose AVX-512 runs on 256-bit halves, its
# Haswell core reached 94 % of the FMA peak and its Cooperlake core 87 %). So libtorch runs again
# with each core family this CPU can run forced, other than the one OpenBLAS picked, and the table
# reports ditto against libtorch as installed and against the fastest of those cores.
cores=""
if grep -qw avx512f /proc/cpuinfo; then cores="SkylakeX Haswell"
elif grep -qw avx2 /proc/cpuinfo; then cores="Haswell"; fi
family() {  # a core's kernel family: avx512, avx2 or other
  case "$1" in
    SkylakeX|Cooperlake|SapphireRapids) echo avx512 ;;
    Haswell|Zen) echo avx2 ;;
    *) echo other ;;
  esac
}
picked=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("context",{}).get("openblas_core",""))' "${files[0]}")
forced=()
if [ -n "$picked" ] && [ "$picked" != "not loaded" ]; then
  for core in $cores; do
    [ "$(family "$core")" != "$(family "$picked")" ] || continue
    echo "OpenBLAS picked core '$picked': libtorch again with OPENBLAS_CORETYPE=$core" >&2
    for i in $(seq 1 "$processes"); do
      out="build-bench/vs-libtorch-forced-$core-$i.json"
      [ "$wait_idle" -eq 0 ] || wait_for_idle
      OPENBLAS_CORETYPE="$core" DITTO_BENCH_NO_LIMITS=1 build-bench/bench/bench_vs_libtorch \
        --benchmark_repetitions="$repetitions" --benchmark_min_time="$min_time" \
        --benchmark_filter="^libtorch/${filter:+.*(}${filter}${filter:+)}" --benchmark_format=json >"$out"
      forced+=("$out")
    done
  done
fi
python3 bench/compare.py "${files[@]}" ${forced[@]:+--forced "${forced[@]}"}
