#!/usr/bin/env bash
# Installs everything the service and its tests need from the repo's own files.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"
# `npm install --no-save` installs exactly the locked tree. (`npm ci` is stricter but rejects this
# lock on npm 11, which records no entries for other platforms' optional packages of @swc/core.)
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm install --no-audit --no-fund --no-save
fi
# The web app the API serves at / (web/ → web/dist, skipped when already built from these sources).
node scripts/build-web.ts
