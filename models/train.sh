#!/usr/bin/env bash
# Retrains, evaluates and exports every ADMET model, then rewrites the fixtures and the model card.
# One command from a fresh clone: models/train.sh   (about 10-15 min on 2 cores)
# PYTHON=/path/to/python skips the venv (it must have the packages of requirements.txt).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -z "${PYTHON:-}" ]; then
  if [ ! -x "$HERE/.venv/bin/python" ]; then
    python3 -m venv "$HERE/.venv"
    "$HERE/.venv/bin/pip" install -q -r "$HERE/requirements.txt"
  fi
  PYTHON="$HERE/.venv/bin/python"
fi
export OMP_WAIT_POLICY=passive
"$PYTHON" "$HERE/make_fixture.py"
"$PYTHON" "$HERE/train.py" "$@"
"$PYTHON" "$HERE/make_prediction_fixture.py"
"$PYTHON" "$HERE/card.py"
