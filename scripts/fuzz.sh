#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang in build-fuzz and runs them.
#
#   scripts/fuzz.sh regress [RUNS]           every target: each saved input once (its corpus
#                                            and regressions), then RUNS executions of fuzzing
#                                            (default 20000) with a fixed seed, the same on every
#                                            machine however fast; fails on any finding
#   scripts/fuzz.sh long SECONDS [TARGET...] each target (default: all) for SECONDS, one after
#                                            the other; new inputs go to build-fuzz/fuzz-work
#   scripts/fuzz.sh count RUNS [TARGET...]   each target (default: all) for RUNS executions
#                                            from its corpus, work folder and regressions
#                                            (seed 1, or FUZZ_SEED), one after the other;
#                                            prints executions, seconds and executions per
#                                            second per target. Long counts can be run in
#                                            parts with different seeds: the work folder
#                                            carries the corpus from one part to the next
#   scripts/fuzz.sh minimize TARGET FILE     shrinks a crashing input; prints the small one's
#                                            path
#
# Each target has a dictionary of the tokens its parser knows, tests/fuzz/dict/TARGET.dict.
# Findings (crash, abort, sanitizer report, an exception other than InputError, a run over
# 10 s, over 2 GB of memory) are written to build-fuzz/fuzz-artifacts/TARGET/. A minimised
# finding belongs in tests/fuzz/regressions/TARGET/, where every regress run replays it.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(units scenario transformer fabric gpu measurement stream times scaling_table hf_config)
build=build-fuzz
per_input_timeout=10
rss_limit_mb=2048

usage() {
  sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

build_targets() {
  if ! command -v clang++ >/dev/null 2>&1; then
    echo "error: fuzzing needs clang++ and libFuzzer (packages clang, libclang-rt-14-dev)" >&2
    exit 1
  fi
  local launcher=()
  if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  if [ ! -f "$build/CMakeCache.txt" ]; then
    CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
      -DSCALEWALL_BUILD_FUZZ=ON -DSCALEWALL_WERROR=ON -DSCALEWALL_BUILD_TESTS=OFF -DSCALEWALL_BUILD_BENCH=OFF \
      -DSCALEWALL_BUILD_MPI=OFF "${launcher[@]}" >/dev/null
  fi
  local jobs
  jobs=$(nproc 2>/dev/null || echo 2)
  local names=()
  for t in "$@"; do names+=("scalewall_fuzz_$t"); done
  cmake --build "$build" -j "$jobs" --target "${names[@]}"
}

check_target() {
  local t
  for t in "${targets[@]}"; do [ "$t" = "$1" ] && return 0; done
  echo "error: unknown fuzz target '$1' (expected one of: ${targets[*]})" >&2
  exit 2
}

# The common libFuzzer flags for target $1.
flags() {
  mkdir -p "$build/fuzz-artifacts/$1"
  echo "-timeout=$per_input_timeout -rss_limit_mb=$rss_limit_mb -print_final_stats=1" \
    "-artifact_prefix=$build/fuzz-artifacts/$1/ -dict=tests/fuzz/dict/$1.dict"
}

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

mode="${1:-}"
case "$mode" in
  regress)
    runs="${2:-20000}"
    build_targets "${targets[@]}"
    failed=()
    for t in "${targets[@]}"; do
      echo "== fuzz $t: replay of tests/fuzz/corpus/$t and tests/fuzz/regressions/$t" >&2
      saved_dirs=("tests/fuzz/corpus/$t")
      [ -d "tests/fuzz/regressions/$t" ] && saved_dirs+=("tests/fuzz/regressions/$t")
      mapfile -t saved < <(find "${saved_dirs[@]}" -type f ! -name '.*' | sort)
      # shellcheck disable=SC2046
      if ! "$build/scalewall_fuzz_$t" $(flags "$t") "${saved[@]}" > "$build/fuzz-$t.log" 2>&1; then
        grep -E "^Running: " "$build/fuzz-$t.log" | tail -n 1 >&2 || true
        tail -n 40 "$build/fuzz-$t.log" >&2
        failed+=("$t (a saved input)")
        continue
      fi
      echo "== fuzz $t: ${runs} executions from the corpus (seed 1)" >&2
      work="$build/fuzz-work/$t"
      rm -rf "$work"
      mkdir -p "$work"
      # shellcheck disable=SC2046
      if ! "$build/scalewall_fuzz_$t" $(flags "$t") -seed=1 -runs="$runs" \
          "$work" "tests/fuzz/corpus/$t" > "$build/fuzz-$t.log" 2>&1; then
        tail -n 40 "$build/fuzz-$t.log" >&2
        failed+=("$t (a new finding, in $build/fuzz-artifacts/$t)")
        continue
      fi
      grep -E "^stat::number_of_executed_units" "$build/fuzz-$t.log" >&2 || true
    done
    if [ ${#failed[@]} -gt 0 ]; then
      printf 'error: fuzz target failed: %s\n' "${failed[@]}" >&2
      exit 1
    fi
    echo "fuzz: all ${#targets[@]} targets passed" >&2
    ;;
  long | count)
    [ $# -ge 2 ] || usage
    limit="$2"
    shift 2
    chosen=("$@")
    [ ${#chosen[@]} -gt 0 ] || chosen=("${targets[@]}")
    for t in "${chosen[@]}"; do check_target "$t"; done
    build_targets "${chosen[@]}"
    if [ "$mode" = long ]; then
      what="${limit} s"
      limit_flags=(-max_total_time="$limit")
    else
      seed="${FUZZ_SEED:-1}"
      case "$seed" in '' | *[!0-9]*) echo "error: FUZZ_SEED '$seed' must be a positive integer" >&2; exit 2 ;; esac
      what="${limit} executions (seed $seed)"
      limit_flags=(-seed="$seed" -runs="$limit")
    fi
    status=0
    summary=()
    for t in "${chosen[@]}"; do
      work="$build/fuzz-work/$t"
      mkdir -p "$work"
      echo "== fuzz $t: $what" >&2
      dirs=("$work" "tests/fuzz/corpus/$t")
      [ -d "tests/fuzz/regressions/$t" ] && dirs+=("tests/fuzz/regressions/$t")
      result="no finding"
      start=$(date +%s)
      # shellcheck disable=SC2046
      if ! "$build/scalewall_fuzz_$t" $(flags "$t") "${limit_flags[@]}" \
          "${dirs[@]}" > "$build/fuzz-$t.log" 2>&1; then
        status=1
        result="FINDING (see $build/fuzz-$t.log and $build/fuzz-artifacts/$t/)"
        tail -n 60 "$build/fuzz-$t.log" >&2
      fi
      seconds=$(( $(date +%s) - start ))
      runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz-$t.log" | tail -n 1)
      if [ "$mode" = long ]; then
        summary+=("$(printf '%-14s %12s executions  %s' "$t" "${runs:-?}" "$result")")
      else
        summary+=("$(printf '%-14s %12s executions  %6s s  %8s per s  %s' "$t" "${runs:-?}" \
          "$seconds" "$(( ${runs:-0} / (seconds > 0 ? seconds : 1) ))" "$result")")
      fi
    done
    printf '%s\n' "${summary[@]}"
    exit "$status"
    ;;
  minimize)
    [ $# -eq 3 ] || usage
    check_target "$2"
    build_targets "$2"
    out="$build/fuzz-artifacts/$2/minimized-$(basename "$3")"
    # shellcheck disable=SC2046
    "$build/scalewall_fuzz_$2" $(flags "$2") -minimize_crash=1 -runs=20000 \
      -exact_artifact_path="$out" "$3" > "$build/fuzz-$2-minimize.log" 2>&1 || true
    [ -f "$out" ] || { tail -n 30 "$build/fuzz-$2-minimize.log" >&2; exit 1; }
    echo "$out"
    ;;
  *)
    usage
    ;;
esac
