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
# The Python 3D worker (chem3d/): RDKit and the Temporal Python SDK in a project venv, reinstalled
# when chem3d/requirements.txt changes (the start command does the same if this step was skipped).
if [ ! -x .tools/chem3d/bin/python ] || ! cmp -s chem3d/requirements.txt .tools/chem3d/requirements.installed.txt; then
  python3 -m venv .tools/chem3d
  .tools/chem3d/bin/pip install --quiet --disable-pip-version-check -r chem3d/requirements.txt
  cp chem3d/requirements.txt .tools/chem3d/requirements.installed.txt
fi
