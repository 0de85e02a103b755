#!/usr/bin/env bash
# Starts the production-topology services the CI tests run through, on loopback only:
#
#   - a Redis Cluster of 3 masters and 3 replicas (Debian's redis-server in cluster mode,
#     ports $REDIS_CLUSTER_PORT..+5, default 7000-7005);
#   - PgBouncer (Debian's pgbouncer) in transaction mode on $PGBOUNCER_PORT (default 6432),
#     in front of the PostgreSQL on 127.0.0.1:5432, trust auth.
#
# Idempotent: a service already answering is reused; a cluster node that is down (the
# failover test kills one) is started again on its old nodes.conf, so it rejoins as a replica.
# Prints the settings to export, e.g.  eval "$(scripts/ci-services.sh)":
#   REDIS_CLUSTER_NODES=127.0.0.1:7000,...  PGBOUNCER_URL=postgres://postgres@127.0.0.1:6432/test
#
# Usage: scripts/ci-services.sh [redis-cluster] [pgbouncer]   (both when none is named)
# State, logs and pid files live in $GATEHOUSE_SERVICES_DIR (default /tmp/gatehouse-services).
set -euo pipefail

DIR="${GATEHOUSE_SERVICES_DIR:-/tmp/gatehouse-services}"
FIRST_PORT="${REDIS_CLUSTER_PORT:-7000}"
PGB_PORT="${PGBOUNCER_PORT:-6432}"
PG_HOST=127.0.0.1
PG_PORT="${PGPORT_DIRECT:-5432}"
# Lower than Redis's 15 s so a failover takes seconds, high enough that a loaded 2-core machine
# does not see spurious ones.
NODE_TIMEOUT_MS="${REDIS_CLUSTER_NODE_TIMEOUT_MS:-3000}"

log() { printf 'ci-services: %s\n' "$*" >&2; }
wait_for() { # wait_for <seconds> <command...>: true once the command succeeds
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

ports=()
for i in 0 1 2 3 4 5; do ports+=($((FIRST_PORT + i))); done

cluster_ok() {
  local info
  info="$(redis-cli -h 127.0.0.1 -p "$FIRST_PORT" cluster info 2>/dev/null)" || return 1
  grep -q '^cluster_state:ok' <<<"$info" && grep -q '^cluster_known_nodes:6' <<<"$info"
}

# Every node up (and, for a node that was down, re-synced) and the cluster reporting ok.
cluster_settled() {
  local p
  for p in "${ports[@]}"; do
    redis-cli -h 127.0.0.1 -p "$p" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || return 1
  done
  cluster_ok
}

start_node() {
  local p=$1
  mkdir -p "$DIR/redis-$p"
  redis-server --port "$p" --bind 127.0.0.1 --protected-mode yes \
    --cluster-enabled yes --cluster-config-file "$DIR/redis-$p/nodes.conf" \
    --cluster-node-timeout "$NODE_TIMEOUT_MS" \
    --save '' --appendonly no --dir "$DIR/redis-$p" \
    --daemonize yes --pidfile "$DIR/redis-$p/redis.pid" --logfile "$DIR/redis-$p/redis.log"
}

stop_our_nodes() {
  local p pid
  for p in "${ports[@]}"; do
    pid="$(cat "$DIR/redis-$p/redis.pid" 2>/dev/null || true)"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill "$pid" || true; fi
  done
  sleep 1
}

redis_cluster() {
  command -v redis-server >/dev/null || { log "redis-server is not installed"; return 1; }
  if cluster_settled; then
    log "Redis Cluster on ${ports[0]}-${ports[5]}: running"
    return 0
  fi
  local p started=0
  for p in "${ports[@]}"; do
    if ! redis-cli -h 127.0.0.1 -p "$p" ping >/dev/null 2>&1; then
      start_node "$p"
      started=$((started + 1))
    fi
  done
  for p in "${ports[@]}"; do
    wait_for 20 redis-cli -h 127.0.0.1 -p "$p" ping || { log "redis on $p did not start (see $DIR/redis-$p/redis.log)"; return 1; }
  done
  # A node that was down comes back on its nodes.conf: give the cluster time to settle.
  if [ "$(redis-cli -h 127.0.0.1 -p "$FIRST_PORT" cluster info | grep -c '^cluster_slots_assigned:16384')" = 1 ] &&
    wait_for 60 cluster_settled; then
    log "Redis Cluster on ${ports[0]}-${ports[5]}: running ($started node(s) restarted)"
    return 0
  fi
  # Fresh (or unrecoverable): start over with empty nodes.
  log "creating Redis Cluster on ${ports[0]}-${ports[5]}"
  stop_our_nodes
  for p in "${ports[@]}"; do
    if redis-cli -h 127.0.0.1 -p "$p" ping >/dev/null 2>&1; then
      log "port $p is taken by a redis-server this script did not start"; return 1
    fi
    rm -rf "${DIR:?}/redis-$p"
    start_node "$p"
  done
  for p in "${ports[@]}"; do wait_for 20 redis-cli -h 127.0.0.1 -p "$p" ping; done
  local seeds=()
  for p in "${ports[@]}"; do seeds+=("127.0.0.1:$p"); done
  redis-cli --cluster create "${seeds[@]}" --cluster-replicas 1 --cluster-yes >"$DIR/cluster-create.log" 2>&1 ||
    { cat "$DIR/cluster-create.log" >&2; return 1; }
  wait_for 60 cluster_settled || { log "the cluster did not reach cluster_state:ok"; return 1; }
  log "Redis Cluster on ${ports[0]}-${ports[5]}: created"
}

pgbouncer_up() { psql "postgres://postgres@127.0.0.1:$PGB_PORT/postgres" -tAc 'select 1' 2>/dev/null | grep -q 1; }

start_pgbouncer() {
  local bin
  bin="$(type -P pgbouncer || echo /usr/sbin/pgbouncer)"
  [ -x "$bin" ] || { log "pgbouncer is not installed"; return 1; }
  if pgbouncer_up; then
    log "PgBouncer on $PGB_PORT: running"
    return 0
  fi
  mkdir -p "$DIR/pgbouncer"
  # Trust auth (as the test PostgreSQL): the user must still be listed in auth_file.
  printf '"postgres" ""\n' >"$DIR/pgbouncer/userlist.txt"
  cat >"$DIR/pgbouncer/pgbouncer.ini" <<EOF
[databases]
; Any database name goes to the same server (tests create throwaway databases).
* = host=$PG_HOST port=$PG_PORT
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGB_PORT
unix_socket_dir =
auth_type = trust
auth_file = $DIR/pgbouncer/userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 10
; Release the server connections of a test's dropped database soon.
server_idle_timeout = 10
logfile = $DIR/pgbouncer/pgbouncer.log
pidfile = $DIR/pgbouncer/pgbouncer.pid
admin_users = postgres
EOF
  local user=()
  # PgBouncer refuses to run as root; -u drops to an unprivileged user after binding.
  if [ "$(id -u)" = 0 ]; then
    user=(-u postgres)
    chown -R postgres "$DIR/pgbouncer"
  fi
  "$bin" -d "${user[@]}" "$DIR/pgbouncer/pgbouncer.ini"
  wait_for 20 pgbouncer_up || { log "PgBouncer did not start (see $DIR/pgbouncer/pgbouncer.log)"; return 1; }
  log "PgBouncer on $PGB_PORT: started (transaction mode)"
}

mkdir -p "$DIR"
chmod 755 "$DIR"
wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=(redis-cluster pgbouncer)
for service in "${wanted[@]}"; do
  case "$service" in
    redis-cluster) redis_cluster ;;
    pgbouncer) start_pgbouncer ;;
    *) log "unknown service $service (redis-cluster, pgbouncer)"; exit 2 ;;
  esac
done
nodes=()
for p in "${ports[@]}"; do nodes+=("127.0.0.1:$p"); done
for service in "${wanted[@]}"; do
  case "$service" in
    redis-cluster) echo "export REDIS_CLUSTER_NODES=$(IFS=,; echo "${nodes[*]}")" ;;
    pgbouncer) echo "export PGBOUNCER_URL=postgres://postgres@127.0.0.1:$PGB_PORT/test" ;;
  esac
done
