#!/usr/bin/env bash
# Fuzzes a running service from its own OpenAPI document with schemathesis (pinned in
# requirements-test.txt, installed in .tools/py by scripts/test.sh) and fails on any server error
# or any status the document does not list for the route.
#   bash scripts/schemathesis.sh http://127.0.0.1:8000 "$(cat data/dev-api-key)" [examples] [seconds]
# examples: generated cases per operation and phase (default 10); seconds: the run's time budget
# (default 150, so the suite's run stays under three minutes). Reports land in $REPORT_DIR.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
URL="${1:?service URL}"
KEY="${2:?API key}"
EXAMPLES="${3:-10}"
SECONDS_BUDGET="${4:-150}"
REPORT_DIR="${REPORT_DIR:-$ROOT/data/schemathesis}"
mkdir -p "$REPORT_DIR"
# No colours or progress bars: the output is read by the test and by CI logs.
export NO_COLOR=1 SCHEMATHESIS_HOOKS="" PYTHONUNBUFFERED=1
exec "$ROOT/.tools/py/bin/st" run "$URL/openapi.json" \
  --header "x-api-key: $KEY" \
  --checks not_a_server_error,status_code_conformance \
  --phases examples,coverage,fuzzing \
  --max-examples "$EXAMPLES" \
  --max-time "$SECONDS_BUDGET" \
  --seed 15 \
  --workers 1 \
  --request-timeout 30 \
  --continue-on-failure \
  --no-shrink \
  --warnings off \
  --report junit --report-junit-path "$REPORT_DIR/junit.xml"
