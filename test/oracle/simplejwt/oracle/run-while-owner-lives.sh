#!/usr/bin/env bash
# Runs the oracle copy's run.sh, and stops it when the process that started it (vitest, by
# ORACLE_OWNER_PID) is gone: vitest exits without its global teardown when that outlasts
# teardownTimeout, and the oracle must not outlive the test run. Copied beside run.sh by
# test/oracle/simplejwt/simplejwt-oracle.ts.
set -uo pipefail
bash "$(dirname "${BASH_SOURCE[0]}")/run.sh" "$@" &
RUN=$!
trap 'kill -TERM "$RUN" 2>/dev/null; wait "$RUN"; exit 0' TERM INT
while kill -0 "$ORACLE_OWNER_PID" 2>/dev/null && kill -0 "$RUN" 2>/dev/null; do sleep 1; done
kill -TERM "$RUN" 2>/dev/null
wait "$RUN"
