#!/usr/bin/env bash
# Side-by-side benchmark of leadnet (REST + GraphQL) vs PostGraphile v5 vs a bare-SQL server, all on one
# PostgreSQL database (perf_leadnet on the system PostgreSQL), measured interleaved in one run.
#
#   npm run bench:peers                                    (100,000 leads, database perf_leadnet_100000)
#   PERF_LEADS=1000000 npm run bench:peers                 (1,000,000 leads, database perf_leadnet_1000000)
#   CASES='company_retailers_*,products_*' npm run bench:peers   (some cases; `name_*` matches a prefix)
#
# Environment (defaults): LEADNET_DIR (the current directory: a leadnet checkout with node_modules installed),
# PGADMIN_URL (postgres://postgres@127.0.0.1:5432/postgres), PERF_LEADS (100000), PERF_DB (perf_leadnet_$PERF_LEADS), RESULTS_DIR
# (results/<UTC time>), ROUNDS (3), DURATION_S (15), WARMUP_S (3), CONNECTIONS (10), CASES (all; comma list of
# list_include,list_default,list_page50,store_50mi,store_1000mi,lead_create, the other lists' lead_activities_admin,
# lead_activities_retailer, company_retailers_admin, ..., products_retailer, and the role cases leads_default, leads_q,
# leads_where_aggs, leads_filter20, leads_page50; `prefix_*` selects by prefix; leads_first and leads_page39 only by name), PROFILE (1: CPU profile step),
# PERF_RESEED (1: seed the leads again), SEED_ONLY (1: stop after the data), PORT_BASE (3100). Ports: 3101 leadnet, 3102 PostGraphile, 3103 bare, 3104 leadnet
# under --cpu-prof, 3111 leadnet's SQL statement counter. Every process started here is stopped by PID at exit.
#
# How leadnet runs: LEADNET_START (prod): `prod` builds it (`npm run build`; LEADNET_BUILD=0 reuses the dist/ there is)
# and starts it with package.json's own `start:prod` line (plain node on dist/, its heap cap and settings), as production
# does; `dev` starts the development harness (`node --import tsx src/main.ts`, no heap cap). leadnet's RSS is sampled
# from /proc during the run (VmRSS every RSS_SAMPLE_MS, 250; VmHWM for the peak): the report prints start, end and peak,
# and the run exits 3 after its report when the peak is above RSS_LIMIT_MB (256; 0 turns the check off).
#
# The search backend of the lead lists (the `leads_*` role cases): SEARCH_BACKEND (postgres) and SEARCH_URL, as
# leadnet reads them. With `opensearch` or `elasticsearch`, the data step also fills the engine's indexes (a
# `leadnet reindex` of each document whose alias is missing, timed; then `leadnet search verify leads`), and a
# second leadnet on the engine (port PORT_BASE+5, SQL counter +12) answers the role cases next to the PostgreSQL
# one, role by role (`leadnet REST (opensearch) <role>`); ENGINE_ONLY=1 measures the engine alone. Indexes are
# named after the database (ELASTICSEARCH_INDEX_PREFIX, default `<PERF_DB>_`), so one cluster holds both sizes.
# At exit the engine's outbox triggers are dropped again (a PostgreSQL-only run of the same database pays for no
# engine); the next engine run reinstalls them and verifies the copy first (`--repair` on drift).
set -euo pipefail
# leadnet's own rate limits (600 a minute per key by default) would answer most of a run with 429s
NO_LIMITS='RATE_LIMIT_API=0 RATE_LIMIT_API_PER_IP=0 RATE_LIMIT_STORE_LOCATOR=0'

PERF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LEADNET_DIR=${LEADNET_DIR:-$(pwd)}
PGADMIN_URL=${PGADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}
export PERF_LEADS=${PERF_LEADS:-100000}
PERF_DB=${PERF_DB:-perf_leadnet_$PERF_LEADS}
export DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/$PERF_DB}
RESULTS_DIR=${RESULTS_DIR:-${TMPDIR:-/tmp}/bench-peers-results/$(date -u +%Y%m%dT%H%M%SZ)}
export RESULTS_DIR
STORES=${BENCH_STORES:-100000}
mkdir -p "$RESULTS_DIR"
LOG="$RESULTS_DIR/run.log"
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$LOG"; }
psqlq() { psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -qtAc "$1"; }

PIDS=()
stop_all() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "${ENGINE:-}" ]; then drop_engine_triggers; fi
}
trap stop_all EXIT

SEARCH_BACKEND=${SEARCH_BACKEND:-postgres}
ENGINE=
if [ "$SEARCH_BACKEND" != postgres ]; then
  ENGINE=$SEARCH_BACKEND
  : "${SEARCH_URL:?SEARCH_URL must be set when SEARCH_BACKEND=$SEARCH_BACKEND}"
  export ELASTICSEARCH_INDEX_PREFIX=${ELASTICSEARCH_INDEX_PREFIX:-${PERF_DB}_}
fi
# The engine process's environment; the PostgreSQL one gets SEARCH_BACKEND=postgres whatever the caller's is.
ENGINE_ENV="SEARCH_BACKEND=$SEARCH_BACKEND SEARCH_URL=${SEARCH_URL:-} ELASTICSEARCH_INDEX_PREFIX=${ELASTICSEARCH_INDEX_PREFIX:-}"
drop_engine_triggers() {
  psql "$DATABASE_URL" -qtA >/dev/null <<'SQL' || true
do $$ declare t record; begin
  for t in select tgname, tgrelid::regclass::text as tbl from pg_trigger where not tgisinternal and tgname like 'leadnet\_search\_%' loop
    execute format('drop trigger %I on %s', t.tgname, t.tbl);
  end loop;
end $$;
truncate search_outbox;
SQL
}

# leadnet with extra node flags (the SQL counter's preload, --cpu-prof), in LEADNET_DIR, exec'd so that the subshell's
# PID becomes node's: package.json's start:prod line run by sh (whose `exec node` keeps that PID), or the tsx harness.
LEADNET_START=${LEADNET_START:-prod}
START_PROD=
run_leadnet() { # node flags...
  if [ "$LEADNET_START" = prod ]; then
    cd "$LEADNET_DIR" && exec sh -c "${START_PROD/exec node /exec node $* }"
  else
    cd "$LEADNET_DIR" && exec node "$@" --import tsx src/main.ts
  fi
}

wait_http() { # url [method body [tries]]
  for _ in $(seq 1 "${4:-120}"); do
    if curl -s -o /dev/null -m 2 -X "${2:-GET}" -H 'content-type: application/json' ${3:+-d "$3"} "$1"; then return 0; fi
    sleep 0.5
  done
  echo "not ready: $1" >&2
  return 1
}

T0=$(date +%s)
log "results in $RESULTS_DIR"

# 1. Code and packages.
grep -q '"name": "leadnet"' "$LEADNET_DIR/package.json" 2>/dev/null || { echo "run from a leadnet checkout (or set LEADNET_DIR)" >&2; exit 1; }
[ -d "$LEADNET_DIR/node_modules" ] || (cd "$LEADNET_DIR" && npm install --no-audit --no-fund >>"$LOG" 2>&1)
[ -d "$PERF/node_modules" ] || (cd "$PERF" && npm install --no-audit --no-fund >>"$LOG" 2>&1)
log "leadnet $(git -C "$LEADNET_DIR" log -1 --format='%h %s' | cut -c1-100); node $(node --version)"
case "$LEADNET_START" in
  prod)
    START_PROD=$(node -p 'require(process.argv[1]).scripts["start:prod"]' "$LEADNET_DIR/package.json")
    case "$START_PROD" in *'exec node '*) ;; *) echo "start:prod must run \`exec node ...\` (it is: $START_PROD)" >&2; exit 1 ;; esac
    if [ "${LEADNET_BUILD:-1}" = 1 ]; then
      t=$(date +%s)
      (cd "$LEADNET_DIR" && npm run -s build >>"$LOG" 2>&1) || { echo "npm run build failed: $LOG" >&2; exit 1; }
      log "built dist/ in $(($(date +%s) - t)) s"
    fi
    [ -f "$LEADNET_DIR/dist/src/main.js" ] || { echo "no $LEADNET_DIR/dist/src/main.js: run npm run build (or LEADNET_BUILD=1)" >&2; exit 1; }
    log "leadnet runs as production starts it (LEADNET_START=prod): $START_PROD" ;;
  dev) log "leadnet runs on the development harness (LEADNET_START=dev): node --import tsx src/main.ts, no heap cap" ;;
  *) echo "LEADNET_START is prod or dev, not $LEADNET_START" >&2; exit 1 ;;
esac

# 2. Database: created once, migrated with the project's migrations.
if ! psql "$PGADMIN_URL" -qtAc "select 1 from pg_database where datname = '$PERF_DB'" | grep -q 1; then
  psql "$PGADMIN_URL" -qc "create database $PERF_DB"
fi
(cd "$LEADNET_DIR" && npx leadnet migrate >>"$LOG" 2>&1)

# 3. Data. Stores: leadnet's own bench seed (bench/store-locator.ts, 100,000 CRLs with addresses, hours, stock
#    across North America), then every one made store-locator-eligible (its seed leaves ~4% not sending or
#    not receiving leads). Leads: seed-leads.mjs. Both are skipped when already there.
have_stores=$(psqlq "select count(*) from company_retailer_locations crl join companies c on c.id = crl.company_id where c.name = 'Bench brand'" || echo 0)
if [ "$have_stores" != "$STORES" ]; then
  log "seeding $STORES stores with leadnet's bench:store-locator"
  node "$PERF/seed-leads.mjs" --drop >>"$LOG" 2>&1 || true
  (cd "$LEADNET_DIR" && BENCH_STORES=$STORES BENCH_RESEED=1 BENCH_REQUESTS=1 BENCH_CONCURRENCY=1 npm run -s bench:store-locator) 2>&1 | tee -a "$LOG" | grep -E "seed" || true
fi
psqlq "update company_retailer_locations set sending_leads = true, receiving_leads = true
        where company_id = (select id from companies where name = 'Bench brand') and not (sending_leads and receiving_leads)" >/dev/null
# The territory and the users of every role before the leads (the seed writes the leads' territory keys).
node "$PERF/roles.mjs" >/dev/null
node "$PERF/seed-leads.mjs" 2>&1 | tee -a "$LOG" | tail -1
psql "$DATABASE_URL" -qf "$PERF/pgl-setup.sql"
COMPANY_A=$(psqlq "select id from companies where name = 'Bench brand'")
COMPANY_B=$(psqlq "select id from companies where name = 'Perf brand B'")
log "data: $(psqlq "select format('%s leads A, %s leads B, %s emails, %s phone numbers, %s activities, %s store-locator entries',
  (select count(*) from leads where owner_company_id = '$COMPANY_A'), (select count(*) from leads where owner_company_id = '$COMPANY_B'),
  (select count(*) from emails where lead_id is not null), (select count(*) from phone_numbers where lead_id is not null),
  (select count(*) from lead_activities), (select count(*) from store_locator_entries))")"
# Leads created by earlier runs' create and batch cases (company B, source_type PerfCreate) are removed with every row
# that names them (contacts, activities, events and the facts and timers the events fed), so each run starts alike.
psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -qtA >/dev/null <<SQL
begin;
create temp table gone on commit drop as select id, location_id from leads where owner_company_id = '$COMPANY_B' and source_type = 'PerfCreate';
do \$\$ declare t record; begin
  for t in select c.table_name from information_schema.columns c join information_schema.tables b using (table_schema, table_name)
           where c.table_schema = current_schema() and c.column_name = 'lead_id' and b.table_type = 'BASE TABLE' loop
    execute format('delete from %I where lead_id in (select id from gone)', t.table_name);
  end loop;
end \$\$;
delete from leads where id in (select id from gone);
delete from locations where id in (select location_id from gone);
commit;
-- The planner's statistics after the deletes (an earlier run's batches add tens of thousands of rows).
analyze leads, emails, phone_numbers, lead_activities, locations;
SQL

# The engine's copy: every document's index (a zero-downtime `leadnet reindex` where its alias is missing, timed),
# then the lead index checked against PostgreSQL. ENGINE_DOCUMENTS (every document) limits the fill, e.g. to `leads`: the
# engine's leadnet then creates the other indexes empty and queues their records in the outbox, which nothing drains
# (it runs with SEARCH_INDEXER=false: the role cases write nothing) and the exit empties. ENGINE_VERIFY=0 skips the check.
# The commands get SEARCH_TIMEOUT_MS=ENGINE_CLI_TIMEOUT_MS (120000): on a loaded machine the refresh and settings
# changes at the end of a bulk load take longer than a list's bound (10 s), and a reindex that times out starts over.
if [ -n "$ENGINE" ]; then
  log "engine: $ENGINE at $SEARCH_URL ($(curl -s "$SEARCH_URL" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(`${j.version.distribution ?? "elasticsearch"} ${j.version.number}`)})')), indexes $ELASTICSEARCH_INDEX_PREFIX*"
  DOCS=$(cd "$LEADNET_DIR" && node --import tsx -e 'import("./src/modules/index.ts").then((m) => console.log((m.searchDocuments ?? m.default.searchDocuments).map((d) => d.name).join(" ")))')
  for doc in ${ENGINE_DOCUMENTS:-$DOCS}; do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "$SEARCH_URL/_alias/$ELASTICSEARCH_INDEX_PREFIX$doc")" != 200 ]; then
      t=$(date +%s)
      (cd "$LEADNET_DIR" && env $ENGINE_ENV SEARCH_TIMEOUT_MS=${ENGINE_CLI_TIMEOUT_MS:-120000} LOG_LEVEL=warn npx leadnet reindex "$doc") 2>&1 | tr '\r' '\n' | grep -v '^\s*$' | tail -n 1 | tee -a "$LOG"
      log "engine: indexed $doc in $(($(date +%s) - t)) s"
    fi
  done
  t=$(date +%s)
  if [ "${ENGINE_VERIFY:-1}" = 0 ]; then
    log "engine: verify skipped (ENGINE_VERIFY=0)"
  elif (cd "$LEADNET_DIR" && env $ENGINE_ENV SEARCH_TIMEOUT_MS=${ENGINE_CLI_TIMEOUT_MS:-120000} LOG_LEVEL=warn npx leadnet search verify leads) 2>&1 | tee -a "$LOG"; then
    log "engine: verify leads: no drift ($(($(date +%s) - t)) s)"
  else
    log "engine: verify leads found drift ($(($(date +%s) - t)) s); repairing"
    (cd "$LEADNET_DIR" && env $ENGINE_ENV SEARCH_TIMEOUT_MS=${ENGINE_CLI_TIMEOUT_MS:-120000} LOG_LEVEL=warn npx leadnet search verify leads --repair) 2>&1 | tee -a "$LOG"
  fi
  curl -s "$SEARCH_URL/_cat/indices/$ELASTICSEARCH_INDEX_PREFIX*?v&h=index,health,pri,rep,docs.count,store.size,pri.store.size" | tee -a "$LOG"
fi

if [ "${SEED_ONLY:-0}" = 1 ]; then log "seeded (SEED_ONLY=1) in $(($(date +%s) - T0)) s"; exit 0; fi

# 4. Users of every role (roles.mjs) and fresh keys.
ROLES_JSON=$(node "$PERF/roles.mjs")
export KEYS=$(node -e 'console.log(JSON.stringify(JSON.parse(process.argv[1]).keys))' "$ROLES_JSON")
export DEALER_1=$(node -e 'console.log(JSON.parse(process.argv[1]).dealer_1)' "$ROLES_JSON")
KEY_A=$(node -e 'console.log(JSON.parse(process.argv[1]).company_admin)' "$KEYS")
KEY_B=$(node -e 'console.log(JSON.parse(process.argv[1]).company_b_admin)' "$KEYS")
log "setup done in $(($(date +%s) - T0)) s"

# 5. Servers, on PORT_BASE+1 (leadnet), +2 (PostGraphile), +3 (bare), +4 (profiled leadnet), +11 (SQL counter).
B=${PORT_BASE:-3100}
export LEADNET_URL=http://127.0.0.1:$((B + 1)) PGL_URL=http://127.0.0.1:$((B + 2))/graphql BARE_URL=http://127.0.0.1:$((B + 3)) SQLCOUNT_URL=http://127.0.0.1:$((B + 11))
(export SEARCH_BACKEND=postgres PORT=$((B + 1)) SQLCOUNT_PORT=$((B + 11)) LOG_LEVEL=info $NO_LIMITS; run_leadnet --require "$PERF/count-sql.cjs" >"$RESULTS_DIR/leadnet.log" 2>&1) &
LEADNET_PID=$!
PIDS+=("$LEADNET_PID")
(cd "$PERF" && exec env PORT=$((B + 2)) NODE_OPTIONS="--require ./polyfill.cjs" node pgl-server.mjs >"$RESULTS_DIR/postgraphile.log" 2>&1) &
PIDS+=($!)
(cd "$PERF" && exec env PORT=$((B + 3)) node bare-server.mjs >"$RESULTS_DIR/bare.log" 2>&1) &
PIDS+=($!)
wait_http "$LEADNET_URL/healthz"
if [ -n "$ENGINE" ]; then
  export ENGINE_NAME=$ENGINE ENGINE_URL=http://127.0.0.1:$((B + 5)) ENGINE_SQLCOUNT_URL=http://127.0.0.1:$((B + 12))
  (export $ENGINE_ENV SEARCH_INDEXER=false PORT=$((B + 5)) SQLCOUNT_PORT=$((B + 12)) LOG_LEVEL=info $NO_LIMITS; run_leadnet --require "$PERF/count-sql.cjs" >"$RESULTS_DIR/leadnet-$ENGINE.log" 2>&1) &
  ENGINE_PID=$!
  PIDS+=("$ENGINE_PID")
  export ENGINE_PID
  # At its start the engine's leadnet creates the indexes ENGINE_DOCUMENTS left out and queues their records
  # (2 million activities at 1,000,000 leads): minutes, not seconds.
  wait_http "$ENGINE_URL/healthz" GET '' 1200
fi
wait_http "$PGL_URL" POST '{"query":"{__typename}"}'
wait_http "$BARE_URL/"
log "servers up: leadnet pid $LEADNET_PID${ENGINE:+, leadnet on $ENGINE pid $ENGINE_PID}"

# 6. Payload checks, statement counts, interleaved rounds.
# The bench exits 3 when leadnet's RSS peak is above RSS_LIMIT_MB: the rest of the run still happens, then this exit.
BENCH_STATUS=0
(cd "$PERF" && LEADNET_PID=$LEADNET_PID LEADNET_START=$LEADNET_START KEY_A=$KEY_A KEY_B=$KEY_B COMPANY_A=$COMPANY_A node bench.mjs) 2>&1 | tee -a "$LOG" || BENCH_STATUS=$?
kill "$LEADNET_PID"
wait "$LEADNET_PID" 2>/dev/null || true

# 7. CPU profile of leadnet under case 1 (REST list with every child), on its own instance.
if [ "${PROFILE:-1}" = 1 ]; then
  mkdir -p "$RESULTS_DIR/profile"
  (export PORT=$((B + 4)) $NO_LIMITS; run_leadnet --cpu-prof --cpu-prof-dir="$RESULTS_DIR/profile" >"$RESULTS_DIR/leadnet-profile.log" 2>&1) &
  PROF_PID=$!
  PIDS+=("$PROF_PID")
  wait_http http://127.0.0.1:$((B + 4))/healthz
  (cd "$PERF" && MODE=profile LEADNET_URL=http://127.0.0.1:$((B + 4)) KEY_A=$KEY_A KEY_B=$KEY_B COMPANY_A=$COMPANY_A node bench.mjs) 2>&1 | tee -a "$LOG"
  kill -TERM "$PROF_PID"
  wait "$PROF_PID" 2>/dev/null || true
  WINDOW_S=15 node "$PERF/analyze-profile.mjs" "$RESULTS_DIR/profile" | sed "s#$LEADNET_DIR/##g" >"$RESULTS_DIR/profile.md"
  cat "$RESULTS_DIR/profile.md" | tee -a "$LOG"
fi
log "done in $(($(date +%s) - T0)) s; results: $RESULTS_DIR/results.md"
exit "$BENCH_STATUS"
