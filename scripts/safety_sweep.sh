#!/usr/bin/env bash
# Runs every bad input of tests/data/safety/ against a build, in a scratch copy, and prints per
# command its exit status, wall time, peak memory and the first line of its stderr.
#
#   bash scripts/safety_sweep.sh [BUILD_DIR [LIMIT_S]]   (default: build, 10 s)
#
# It also writes the two large inputs (a 60 MB TOML array, a 99 MB OSU latency log) and, when
# mpirun is on the PATH, checks scalewall-mpi's empty output names. It fails when a command
# ends with status 124 or more (a signal, or killed after 60 s), takes LIMIT_S or more, or
# changes any file of the scratch copy it was not asked to write. Every command here is bad
# input or a warning: a status of 0 is allowed only where the input is merely suspicious (the
# run says so on stderr).
set -uo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build}" && pwd) || exit 2
sw="$build/scalewall"
swmpi="$build/scalewall-mpi"
[ -x "$sw" ] || { echo "error: no scalewall in $build" >&2; exit 2; }
limit_s=${2:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$here/tests/data/safety/." "$work/"
cd "$work" || exit 1

failures=0
sums() { find . -type f ! -name '.run-*' -print0 | xargs -0 md5sum | sort; }

# run LABEL EXPECT DIR STDIN -- command...: runs the command in DIR with STDIN (a file, or
# /dev/null); EXPECT is the exit status it must end with (2: bad input; 0: a warning).
run() {
  local label=$1 expect=$2 dir=$3 input=$4
  shift 5
  local before after rc secs rss
  before=$(cd "$work" && sums)
  (cd "$dir" && /usr/bin/time -f '%e %M' -o "$work/.run-time" timeout 60 "$@" \
     >"$work/.run-out" 2>"$work/.run-err" <"$input")
  rc=$?
  read -r secs rss < <(tail -n 1 "$work/.run-time")
  after=$(cd "$work" && sums)
  local verdict=ok
  if [ "$rc" != "$expect" ]; then verdict="FAIL: exit $rc, not $expect"; fi
  if awk -v s="$secs" -v l="$limit_s" 'BEGIN { exit !(s >= l) }'; then verdict="FAIL: ${secs} s"; fi
  local changed
  changed=$(comm -23 <(echo "$before") <(echo "$after") | head -n 1)
  if [ -n "$changed" ]; then verdict="FAIL: changed or removed: ${changed#*  }"; fi
  [ "$verdict" = ok ] || failures=$((failures + 1))
  printf '%-4s %-28s exit %3s  %6s s  %8s KB  %s\n' "$label" "$verdict" "$rc" "$secs" "$rss" "$*"
  grep -v '^Command terminated' "$work/.run-err" | head -n 1 | cut -c1-160 | sed 's/^/       /'
}

# expect LABEL FILE TEXT: FILE (the last command's stdout when FILE is -) holds TEXT.
expect() {
  local file=$2
  [ "$file" = - ] && file="$work/.run-out"
  if ! grep -qF -- "$3" "$file"; then
    echo "$1   FAIL: '$3' is not in $2"; failures=$((failures + 1))
  fi
}

w=$work
echo "== transformer scenarios: overflow, the split search, memory, --sigma, fp8"
run B1 2 "$w" /dev/null -- "$sw" predict fpe_dp_x_microbatch.toml
run B1 2 "$w" /dev/null -- "$sw" plan fpe_dp_x_microbatch.toml
run B1 2 "$w" /dev/null -- "$sw" predict fpe_pp_x_interleave.toml
run B1 0 "$w" /dev/null -- "$sw" report fpe_pp_x_interleave.toml -o rep_fpe
expect B1 rep_fpe/index.html "pp x interleave does not divide the layers"
run D1 2 "$w" /dev/null -- "$sw" predict overflow_tp_pp_dp_product.toml
run D1 2 "$w" /dev/null -- "$sw" plan overflow_tp_pp_dp_product.toml
run D1 2 "$w" /dev/null -- "$sw" report overflow_tp_pp_dp_product.toml -o rep_overflow
run D1 2 "$w" /dev/null -- "$sw" predict overflow_tp_pp_no_gpus.toml
run C1 2 "$w" /dev/null -- "$sw" plan plan_hang_composite_gpus.toml
run C1 2 "$w" /dev/null -- "$sw" predict plan_hang_composite_gpus.toml
run C1 2 "$w" /dev/null -- "$sw" report plan_hang_composite_gpus.toml -o rep_hang
run C1 2 "$w" /dev/null -- "$sw" predict predict_slow_ranks_list.toml \
  --ranks 720720,1441440,2162160,2882880,3603600
run D2 0 "$w" /dev/null -- "$sw" predict pp_last_stage_logits_not_counted.toml
expect D2 - "memory per GPU (last stage):                     41.7 GB"
expect D2 - "fits in memory:                                  no"
run D6 2 "$w" /dev/null -- "$sw" predict transformer_for_sigma_flag.toml --sigma 1e308
run D6 2 "$w" /dev/null -- "$sw" predict transformer_for_sigma_flag.toml --sigma 1.5
run D6 2 "$w" /dev/null -- "$sw" plan transformer_for_sigma_flag.toml --sigma 150%
run F 2 "$w" /dev/null -- "$sw" predict fp8_on_a100.toml
leftover=$(ls -a "$w" | grep -c -- '-report-' || true)
if [ "$leftover" -ne 0 ]; then
  echo "FAIL: report left $leftover staging directories"; failures=$((failures + 1))
fi

echo "== TOML: nesting and size"
run B2 2 "$w" /dev/null -- "$sw" predict toml_deep_table_header.toml
run B2 2 "$w" /dev/null -- "$sw" collective --fabric toml_deep_dotted_key.toml -n 8 -m 1MB
run B2 2 "$w" toml_deep_table_header.toml -- "$sw" predict -
{ printf 'name="b"\nx=['; yes 0 | head -n 30000000 | paste -sd, -; printf ']\n'; } > big_array.toml
run C2 2 "$w" /dev/null -- "$sw" collective --fabric big_array.toml -n 8 -m 1MB
rm -f big_array.toml

echo "== fabrics, NCCL keys and compare"
run B3 2 "$w" /dev/null -- "$sw" collective --fabric fabric_nccl_net_latency_1e308.toml -n 16 -m 1GiB
run B3 2 "$w" /dev/null -- "$sw" collective --fabric fabric_nccl_net_hop_1e308.toml -n 16 -m 1GiB
run B3 2 "$w" /dev/null -- "$sw" select --fabric fabric_nccl_net_latency_1e308.toml
run B3 2 "$w" /dev/null -- "$sw" predict transformer_uses_nccl_net_latency_1e308.toml
run B3 2 "$w" /dev/null -- "$sw" plan transformer_uses_nccl_net_latency_1e308.toml
run B3 2 "$w" /dev/null -- "$sw" predict dp_scenario_uses_nccl_net_latency_1e308.toml
run B3 2 "$w" /dev/null -- "$sw" compare compare_baseline_fabric.toml compare_fabric_alpha_1e308.toml
run B3 2 "$w" /dev/null -- "$sw" compare compare_fabric_alpha_denormal.toml compare_baseline_fabric.toml
run F 2 "$w" /dev/null -- "$sw" collective --fabric compare_fabric_alpha_1e308.toml -n 16 -m 1MB

echo "== measurement logs and tables"
run D3 0 "$w" /dev/null -- "$sw" calibrate osu_latency_truncated_last_row.txt
expect D3 - "incomplete last line"
run D4 2 "$w" /dev/null -- "$sw" calibrate nccl_size_nan_row_dropped.txt
run D4 2 "$w" /dev/null -- "$sw" calibrate osu_size_1e19_row_dropped.txt
run D5 2 "$w" /dev/null -- "$sw" calibrate nccl_time_1e-320us_as_zero.txt
run D5 2 "$w" /dev/null -- "$sw" calibrate nccl_algbw_1e308_accepted.txt
run D5 2 "$w" /dev/null -- "$sw" diagnose scaling_table_step_1e308.csv
run D7 2 "$w" /dev/null -- "$sw" validate nccl_ngpus_above_ranks.txt --fabric dgx-h100
awk 'BEGIN { print "# OSU MPI Latency Test v7.3"; print "# Datatype: MPI_CHAR."; \
  print "# Size       Latency (us)"; for (i = 0; i < 7500000; i++) { s = 2 ^ (i % 23); \
  printf "%d    %.2f\n", s, 1.6 + s / 11e3 } }' > big_osu_latency.txt
run C2 2 "$w" /dev/null -- "$sw" calibrate big_osu_latency.txt
rm -f big_osu_latency.txt

echo "== outputs never replace an input"
run A1 2 "$w/stdin_input_overwritten" "$w/stdin_input_overwritten/p.jsonl" -- \
  "$sw" calibrate - --out p.jsonl
run A1 2 "$w/stdin_input_overwritten" "$w/stdin_input_overwritten/p.jsonl" -- \
  "$sw" calibrate - --out /dev/stdin
run A1 2 "$w/stdin_input_overwritten" "$w/stdin_input_overwritten/r.svg" -- \
  "$sw" diagnose - --plot r.svg
run A2 2 "$w/report_overwrites_fabric" /dev/null -- "$sw" report job.toml -o .
run A2 2 "$w/report_overwrites_fabric" /dev/null -- "$sw" report transformer.toml -o .
run A3 2 "$w/predict_plot_overwrites_fabric" /dev/null -- "$sw" predict job.toml --plot fab.svg
run A3 2 "$w/diagnose_plot_overwrites_fabric" /dev/null -- \
  "$sw" diagnose runs.csv --scenario s.toml --plot fab.svg

echo "== names from input"
run E1 0 "$w" /dev/null -- "$sw" calibrate jsonl_algorithm_terminal_escape.jsonl
escapes=$("$sw" calibrate jsonl_algorithm_terminal_escape.jsonl 2>/dev/null | grep -c $'\x1b')
escapes=$((escapes + $("$sw" predict scenario_name_terminal_escape.toml 2>/dev/null | grep -c $'\x1b')))
if [ "$escapes" -ne 0 ]; then
  echo "FAIL: $escapes lines of stdout hold an escape byte"; failures=$((failures + 1))
fi

if command -v mpirun >/dev/null 2>&1 && [ -x "$swmpi" ]; then
  echo "== scalewall-mpi: empty output names"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mkdir -p mpi
  run D9 2 "$w/mpi" /dev/null -- mpirun --oversubscribe -np 2 "$swmpi" pingpong -e 8 -n 1 -q -o ''
  run D9 2 "$w/mpi" /dev/null -- mpirun --oversubscribe -np 2 "$swmpi" suite -e 4KiB -q \
    --pingpong-iterations 2 --reduce-iterations 2 --collective-iterations 2 -o ''
  if [ -n "$(ls "$w/mpi")" ]; then
    echo "FAIL: scalewall-mpi wrote $(ls "$w/mpi" | tr '\n' ' ')"; failures=$((failures + 1))
  fi
fi

echo
if [ "$failures" -ne 0 ]; then
  echo "safety sweep: $failures failures" >&2
  exit 1
fi
echo "safety sweep: every command ended with an error or a warning, under ${limit_s} s, inputs unchanged"
