#!/usr/bin/env bash
# stop-services.sh: stop the private PostgreSQL and Redis that
# scripts/ensure-services.sh started under $HERALD_DATA_DIR (default <repo>/.data).
#
# Usage: scripts/stop-services.sh
#
# Only touches the private instances recorded under $HERALD_DATA_DIR
# (PostgreSQL cluster on port 54329, Redis on port 63790), never the system
# services on the default ports. Does nothing if they are not running.
# Messages go to stderr, prefixed "stop-services: ". Data is kept; delete
# $HERALD_DATA_DIR to start from scratch.

set -euo pipefail

# shellcheck source=scripts/ensure-services.sh
source "$(dirname "${BASH_SOURCE[0]}")/ensure-services.sh"
ES_PROG=stop-services

pid_gone() { ! proc_alive "$1"; }

stop_postgres() {
  local pgdata owner pid st=0
  pgdata=$(pg_datadir_path)
  if ! pg_is_initialised "$pgdata"; then
    log "no private PostgreSQL in $PG_LINK"
    return 0
  fi
  if [[ ! -f $pgdata/postmaster.pid ]]; then
    log "the private PostgreSQL in $pgdata is not running"
    return 0
  fi
  pid=$(head -n 1 "$pgdata/postmaster.pid")
  if ! proc_alive "$pid" postgres; then
    log "the private PostgreSQL in $pgdata is not running (stale postmaster.pid)"
    return 0
  fi
  PGDATA_DIR=$pgdata
  owner=$(stat -c %U "$pgdata")
  PG_RUN_USER=""
  if is_root; then
    [[ $owner != root && $owner != UNKNOWN ]] && PG_RUN_USER=$owner
  elif [[ $owner != "$(id -un)" ]]; then
    die "the private PostgreSQL in $pgdata belongs to $owner; run this as $owner or as root"
  fi

  if [[ -n $PG_RUN_USER || $(id -u) -ne 0 ]] && pg_find_bindir; then
    pg_ctl_status || st=$?
    if ((st != 0)); then
      log "the private PostgreSQL in $pgdata is not running (stale postmaster.pid)"
      return 0
    fi
    log "stopping the private PostgreSQL in $pgdata"
    run_as_pg "${PG_CLEAN_ENV[@]}" LC_ALL=C "$PG_BINDIR/pg_ctl" -D "$pgdata" \
      -m fast -w -t 60 stop </dev/null 2>&1 | sed "s/^/$ES_PROG:   /" >&2 ||
      die "pg_ctl stop failed for $pgdata"
    return 0
  fi

  # No usable pg_ctl (uninstalled, or owner unknown): signal the postmaster
  # directly. SIGINT is PostgreSQL's "fast" shutdown.
  log "stopping the private PostgreSQL in $pgdata (pid $pid, fast shutdown via SIGINT)"
  kill -INT "$pid"
  wait_until 60 pid_gone "$pid" || die "the private PostgreSQL (pid $pid) did not stop within 60s"
}

stop_redis() {
  local pid
  if [[ ! -f $REDIS_PIDFILE ]]; then
    log "the private Redis is not running (no $REDIS_PIDFILE)"
    return 0
  fi
  pid=$(head -n 1 "$REDIS_PIDFILE")
  if ! proc_alive "$pid" redis-server; then
    log "the private Redis is not running (stale $REDIS_PIDFILE)"
    rm -f "$REDIS_PIDFILE"
    return 0
  fi
  log "stopping the private Redis on 127.0.0.1:$REDIS_PRIVATE_PORT (pid $pid)"
  find_redis_cli
  if [[ -n $REDIS_CLI ]]; then
    with_timeout 10 env -u REDISCLI_AUTH "$REDIS_CLI" -h 127.0.0.1 -p "$REDIS_PRIVATE_PORT" \
      shutdown nosave </dev/null >/dev/null 2>&1 || true
  fi
  # Without redis-cli, or if SHUTDOWN did not get through: SIGTERM also shuts
  # down cleanly (and saves nothing, since the instance runs with save "").
  if ! wait_until 10 pid_gone "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    wait_until 30 pid_gone "$pid" || die "the private Redis (pid $pid) did not stop within 40s"
  fi
}

stop_main() {
  case ${1:-} in
    "") ;;
    -h | --help) sed -n '2,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2; exit 0 ;;
    *) die "unknown argument: $1 (usage: scripts/stop-services.sh)" ;;
  esac
  es_init_paths
  if [[ ! -d $DATA_DIR ]]; then
    log "nothing to stop ($DATA_DIR does not exist)"
    return 0
  fi
  es_lock
  stop_postgres >&2
  stop_redis >&2
  mariadb_stop_private >&2
}

stop_main "$@"
