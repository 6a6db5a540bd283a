#!/usr/bin/env bash
# One whole `run --revision all` of a wirecheck binary against a fresh
# real server, for maintainers comparing two builds (docs/official-suite.md,
# session 16): run it alternately with the old and the new binary, many
# times, and compare medians; one run says little on a shared machine.
#
#   test/interop/measure.sh BIN se|gosdk OUTPREFIX
#
# Prints "user sys wall maxrssKB" of wirecheck's process; its JSON report
# is OUTPREFIX.json. WIRECHECK_CPUPROFILE / WIRECHECK_MEMPROFILE in the
# environment profile the run (internal/profiling). Needs the servers
# test/interop/install.sh installs; make bench's officialbench is the
# side-by-side with the official suite.
set -u
bin=$1 server=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
port=$((20000 + RANDOM % 30000))
case $server in
se) (cd "$here" && PORT=$port exec node node_modules/@modelcontextprotocol/server-everything/dist/index.js streamableHttp >/dev/null 2>&1) & ;;
gosdk) "$here/bin/everything" -http "127.0.0.1:$port" >/dev/null 2>&1 & ;;
*) echo "measure.sh: the server is se (server-everything) or gosdk (the Go SDK's example)" >&2; exit 2 ;;
esac
pid=$!
trap 'pkill -P $pid 2>/dev/null; kill $pid 2>/dev/null; wait 2>/dev/null' EXIT
# Listening is enough: a request here would warm the server up for the run.
for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
/usr/bin/time -f "%U %S %e %M" -o "$out.time" "$bin" run --protocol mcp --transport http \
  --url "http://127.0.0.1:$port/mcp" --revision all --report "json=$out.json" >/dev/null 2>"$out.err"
tail -1 "$out.time"
