#!/bin/sh
# Lists the library's functions longer than LIMIT lines (default 80) and exits 1 when there is
# one: ctest runs it as library_function_lengths. A function body is counted from the line where
# the brace depth at namespace scope leaves 0 to the line where it returns; namespace braces do
# not count, and the bodies of types and initialisers are not functions.
# Usage: scripts/function_lengths.sh [LIMIT] [SOURCE_DIR]
limit=${1:-80}
root=${2:-$(dirname "$0")/..}
files=$(find "$root/src" -name '*.cc' ! -name '*_test.cc' | sort)
# shellcheck disable=SC2086
awk -v limit="$limit" '
FNR == 1 { depth = 0; start = 0; sig = "" }
{
  line = $0
  gsub(/\\./, "", line)            # escaped characters
  gsub(/"[^"]*"/, "\"\"", line)    # string literals
  gsub(/'\''[^'\'']*'\''/, "", line)  # character literals
  sub(/\/\/.*/, "", line)          # line comments
  if (line ~ /^[ \t]*namespace[^;]*\{/) next
  if ($0 ~ /^}  \/\/ namespace/) next
  opens = gsub(/\{/, "{", line); closes = gsub(/\}/, "}", line)
  if (depth == 0 && opens > closes) {
    start = FNR
    is_type = (sig ~ /^(struct|class|enum|union)[ \t]/ || line ~ /^(struct|class|enum|union)[ \t]/ ||
               line ~ /=[ \t]*\{/ || sig ~ /=[ \t]*$/)
    name = (sig != "" ? sig : $0)
  }
  depth += opens - closes
  if (depth == 0 && start) {
    n = FNR - start + 1
    if (!is_type && n > limit) { printf "%s:%d: %d lines: %s\n", FILENAME, start, n, name; long++ }
    start = 0
  }
  if (depth == 0) {
    if (line ~ /^[A-Za-z]/) sig = line
    else if (line ~ /;[ \t]*$/ || line ~ /^[ \t]*$/) sig = ""
  }
}
END { if (long) { printf "%d function(s) longer than %d lines\n", long, limit; exit 1 } }
' $files
