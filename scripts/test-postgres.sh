#!/usr/bin/env bash
# Runs the test suite on PostgreSQL: a throwaway cluster on loopback (scripts/pg-cluster.sh), the
# suite with SANDBOX_TEST_BACKEND=postgres, the cluster stopped and removed whatever happens.
# Arguments go to tap (test files named run alone). TEST_DATABASE_URL set: that server
# is used instead, and no cluster is started.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ -z "${TEST_DATABASE_URL:-}" ]; then
  dir=$(mktemp -d)
  trap 'scripts/pg-cluster.sh stop "$dir"' EXIT
  TEST_DATABASE_URL=$(scripts/pg-cluster.sh start "$dir" ${PG_TEST_PORT:+"$PG_TEST_PORT"} | tail -n 1) || exit 1
  export TEST_DATABASE_URL
fi
# Every statement is a round trip here: files that send thousands of requests (the fuzz test) get
# longer than the 120 s of the SQLite run.
SANDBOX_TEST_BACKEND=postgres node scripts/test.js --timeout=600 "$@"
