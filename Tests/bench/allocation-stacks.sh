#!/usr/bin/env bash
# Prints the stack of every heap allocation made inside the timed play() calls
# of figure 3 (one call per layer), under gdb: the evidence behind the
# figure's allocation counts. Needs gdb and a built sysound-bench.
#
#   Tests/bench/allocation-stacks.sh [path/to/sysound-bench]
set -euo pipefail
cd "$(dirname "$0")/../.."
bench=${1:-$(swift build -c release --static-swift-stdlib --scratch-path "${SYSOUND_BENCH_SCRATCH:-.build}" --show-bin-path)/sysound-bench}
command -v gdb >/dev/null || { echo "allocation-stacks: gdb is missing (apt-get install gdb)" >&2; exit 2; }
cmds=$(mktemp /tmp/sysound-bench-gdb.XXXXXX)
trap 'rm -f "$cmds"' EXIT
# Stop at the first 12 watched allocations (smoke mode: 5 warm-up + 50 calls per layer).
cat > "$cmds" <<'GDB'
set pagination off
set print thread-events off
break bench_allocation_watched
commands
  silent
  bt 12
  echo ----\n
  continue
end
run
GDB
SYSOUND_BENCH_WATCH_ALLOCATIONS=1 Tests/fixture/with-pulse.sh \
    gdb -q -batch -x "$cmds" --args "$bench" --smoke --figures 3 --json /dev/null 2>&1 \
    | grep -vE '^\[(New|Thread|Inferior)|^Using host|^warning: ' 
