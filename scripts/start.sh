#!/usr/bin/env bash
# The start command: installs what the service needs (Node 22 if the system's is older, npm
# packages, the Temporal CLI) and starts everything on embedded defaults. Extra arguments and
# environment variables (see .env.example) pass through.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"
bash scripts/setup.sh
# Two glibc malloc arenas instead of 8 per core: measured 160 MB less native memory at start and
# flatter RSS under load (bench/soak/README.md); a value already set is kept.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
exec node bin/molsearch.ts start "$@"
