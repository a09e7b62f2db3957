#!/usr/bin/env bash
# CPU time per request of leadnet and PostGraphile on the product list of the company admin (the
# `products_admin` case), one system at a time: each round starts the system, warms it up, loads it with
# autocannon (10 connections) and reads from /proc the CPU time its process and every PostgreSQL backend
# used meanwhile, divided by the requests answered. Rounds alternate the two systems. On a shared VM the
# rps move between runs more than the CPU per request does; compare the systems within one run.
#
#   bash bench/peers/cpu-per-request.sh                  (perf_leadnet_100000, seeded by `npm run bench:peers`)
#   ROUNDS=3 DURATION_S=10 NODE_FLAGS='--max-semi-space-size=32' bash bench/peers/cpu-per-request.sh
#
# Needs the database seeded by run.sh (SEED_ONLY=1 is enough) and this folder's packages (`npm install` here).
set -euo pipefail
PERF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LEADNET_DIR=${LEADNET_DIR:-$(pwd)}
export PERF_LEADS=${PERF_LEADS:-100000}
export DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/perf_leadnet_$PERF_LEADS}
ROUNDS=${ROUNDS:-3}
DURATION_S=${DURATION_S:-10}
B=${PORT_BASE:-3200}
TICKS=$(getconf CLK_TCK)
AC="$PERF/node_modules/.bin/autocannon"

ROLES=$(node "$PERF/roles.mjs")
KEY=$(node -e 'console.log(JSON.parse(process.argv[1]).keys.company_admin)' "$ROLES")
COMPANY=$(node -e 'console.log(JSON.parse(process.argv[1]).company_a)' "$ROLES")
PGL_BODY=$(node -e 'console.log(JSON.stringify({ query: `query($first: Int!, $offset: Int!, $v: UUID!) { list: allProducts(condition: {companyId: $v}, orderBy: [CREATED_AT_DESC, ROW_ID_ASC], first: $first, offset: $offset) { totalCount nodes { rowId sku name category url collectionId externalId companyId } } }`, variables: { first: 50, offset: 0, v: process.argv[1] } }))' "$COMPANY")

ticks_of() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
postgres_ticks() { for p in $(pgrep -x postgres); do awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || true; done | awk '{ s += $1 } END { print s + 0 }'; }
wait_http() { for _ in $(seq 1 120); do curl -s -o /dev/null -m 1 "$@" && return 0; sleep 0.5; done; echo "not ready: $*" >&2; return 1; }

# measure <label> <pid> <autocannon arguments...>: warm-up, then one loaded run; prints one line.
measure() {
  local label=$1 pid=$2
  shift 2
  "$AC" -c 10 -d 3 "$@" >/dev/null 2>&1
  local t0 p0 t1 p1 out
  t0=$(ticks_of "$pid")
  p0=$(postgres_ticks)
  out=$("$AC" -c 10 -d "$DURATION_S" -j "$@" 2>/dev/null)
  t1=$(ticks_of "$pid")
  p1=$(postgres_ticks)
  node -e '
    const [label, out, node, pg, ticks] = process.argv.slice(1);
    const j = JSON.parse(out);
    const n = j.requests.total;
    const ms = (t) => ((Number(t) * 1000) / Number(ticks) / n).toFixed(2);
    console.log(`${label.padEnd(12)} ${String(j.requests.average).padStart(7)} rps  p50 ${j.latency.p50} ms  non-2xx ${j.non2xx}  node ${ms(node)} ms/request  PostgreSQL ${ms(pg)} ms/request`);
  ' "$label" "$out" "$((t1 - t0))" "$((p1 - p0))" "$TICKS"
}

PID=
stop() { if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=; fi; }
trap stop EXIT

echo "products_admin, $DURATION_S s per run at 10 connections, node $(node --version), $(uptime | sed 's/.*load/load/')"
for round in $(seq 1 "$ROUNDS"); do
  (cd "$LEADNET_DIR" && exec env SEARCH_BACKEND=postgres PORT=$((B + 1)) LOG_LEVEL=info RATE_LIMIT_API=0 RATE_LIMIT_API_PER_IP=0 RATE_LIMIT_STORE_LOCATOR=0 \
    node ${NODE_FLAGS:-} --import tsx src/main.ts >/dev/null 2>&1) &
  PID=$!
  wait_http "http://127.0.0.1:$((B + 1))/healthz"
  measure "leadnet" "$PID" -H "x-api-key: $KEY" "http://127.0.0.1:$((B + 1))/v1/products?opts%5Bper_page%5D=50"
  stop

  (cd "$PERF" && exec env PORT=$((B + 2)) NODE_OPTIONS="--require ./polyfill.cjs" node pgl-server.mjs >/dev/null 2>&1) &
  PID=$!
  wait_http -X POST -H 'content-type: application/json' -d '{"query":"{__typename}"}' "http://127.0.0.1:$((B + 2))/graphql"
  measure "PostGraphile" "$PID" -m POST -H 'content-type: application/json' -b "$PGL_BODY" "http://127.0.0.1:$((B + 2))/graphql"
  stop
done
