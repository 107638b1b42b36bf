#!/usr/bin/env bash
# The example outputs in the docs, generated from the tool's real output.
#
#   scripts/doc_examples.sh update BIN FILE.md...   rewrite each marked block from BIN's output
#   scripts/doc_examples.sh check  BIN FILE.md...   exit 1, with a diff, when a block has drifted
#
# A marked block is a fenced block preceded by one or more marker lines, each one step:
#   <!-- scalewall: ARGS -->   runs `BIN ARGS`; the block shows "$ scalewall ARGS" and its stdout
#   <!-- cat: PATH -->         the block shows "$ cat PATH" and the file
# The steps of one block run in order. ARGS are split at blanks (no quoting, no globbing, no
# shell). Every step of a file runs in one fresh directory that holds links to the source
# tree's examples/, tests/ and docs/, so that paths read as in the docs and whatever a command
# writes (report -o DIR, calibrate --out FILE) lands there, never in the source tree; a later
# block may show what an earlier one wrote. A command that fails stops the script (exit 2).
# Run from anywhere; FILE paths are relative to the source root.
set -euo pipefail
set -f

usage() {
  echo "usage: $0 update|check BIN FILE.md..." >&2
  exit 2
}
[ $# -ge 3 ] || usage
mode=$1
bin=$(realpath "$2")
shift 2
case "$mode" in update | check) ;; *) usage ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$bin" ] || { echo "error: $bin is not an executable" >&2; exit 2; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Prints one marker's step, run in the current directory: the "$ " line, then the output.
run_step() {
  local kind=$1 rest=$2
  case "$kind" in
    scalewall)
      local -a args
      read -r -a args <<<"$rest"
      printf '$ scalewall %s\n' "$rest"
      if ! "$bin" "${args[@]}"; then
        echo "error: 'scalewall $rest' failed" >&2
        exit 2
      fi
      ;;
    cat)
      printf '$ cat %s\n' "$rest"
      cat -- "$rest"
      ;;
  esac
}

# Writes FILE with every marked block regenerated to stdout.
regenerate() {
  local file=$1 work=$2
  local -a steps=()
  local line in_old_block=0
  while IFS= read -r line || [ -n "$line" ]; do
    if [ "$in_old_block" = 1 ]; then
      # Skip the old block's text up to its closing fence.
      if [ "$line" = '```' ]; then in_old_block=0; fi
      continue
    fi
    if [[ "$line" =~ ^\<\!--\ (scalewall|cat):\ (.*)\ --\>$ ]]; then
      steps+=("${BASH_REMATCH[1]}:${BASH_REMATCH[2]}")
      printf '%s\n' "$line"
      continue
    fi
    if [ ${#steps[@]} -gt 0 ]; then
      if [ "$line" != '```' ]; then
        echo "error: $file: a marker line must be followed by a fenced block, not '$line'" >&2
        exit 2
      fi
      printf '```\n'
      local step
      for step in "${steps[@]}"; do
        (cd "$work" && run_step "${step%%:*}" "${step#*:}")
      done
      printf '```\n'
      steps=()
      in_old_block=1
      continue
    fi
    printf '%s\n' "$line"
  done <"$root/$file"
}

status=0
for file in "$@"; do
  work="$scratch/run-$(basename "$file")"
  mkdir -p "$work"
  for dir in examples tests docs; do ln -s "$root/$dir" "$work/$dir"; done
  generated="$scratch/$(basename "$file").new"
  regenerate "$file" "$work" >"$generated"
  if [ "$mode" = update ]; then
    if ! cmp -s "$generated" "$root/$file"; then
      cp "$generated" "$root/$file"
      echo "updated $file" >&2
    fi
  elif ! diff -u --label "$file (in the tree)" --label "$file (the tool's output)" \
      "$root/$file" "$generated"; then
    echo "error: the examples in $file differ from the tool's real output (diff above);" \
      "regenerate them with: scripts/doc_examples.sh update $bin $file" >&2
    status=1
  fi
done
exit $status
