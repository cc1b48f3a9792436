#!/usr/bin/env bash
# ensure-services.sh: find or start the PostgreSQL and Redis that Herald needs.
#
# Usage:
#   eval "$(scripts/ensure-services.sh)"
#
# Stdout carries only these two lines, ready for eval:
#   export SVC_DATABASE_URL='postgres://...'
#   export SVC_REDIS_URL='redis://...'
# All progress and diagnostics go to stderr, prefixed "ensure-services: ".
# Exits non-zero (printing nothing on stdout) when a service cannot be provided.
#
# Note: `eval "$(cmd)"` returns 0 even when cmd fails. Callers that must stop on
# failure should do:  vars="$(scripts/ensure-services.sh)" && eval "$vars"
#
# Environment:
#   SVC_DATABASE_URL   use this PostgreSQL URL as is (no probing, nothing started)
#   SVC_REDIS_URL      use this Redis URL as is
#   HERALD_DB_NAME     database to create if missing (default: herald)
#   HERALD_DATA_DIR    where private instances live (default: <repo>/.data)
#   HERALD_TEST_TOOLS=1
#                      (set by `make test`) also make sure the programs the test
#                      suite runs are installed, whichever Redis is used: a
#                      redis-server it starts and kills, pgbouncer, and curl
#                      for the README's examples. Installed with apt-get when missing
#                      and root; otherwise only a warning.
#   HERALD_PG_PROBE_PORT, HERALD_REDIS_PROBE_PORT
#                      (for tests) ports probed for already-running servers
#                      (defaults 5432 and 6379)
#
# How a service is chosen (PostgreSQL; Redis works the same way):
#   1. the SVC_* URL from the environment, if set;
#   2. a server already answering on 127.0.0.1 at the default port
#      (PostgreSQL: trust auth as $PGUSER, postgres or the current user);
#   3. a private instance under $HERALD_DATA_DIR (PostgreSQL on 127.0.0.1:54329,
#      Redis on 127.0.0.1:63790), started if needed and reused if already running;
#   4. if the binaries are missing: install them with apt-get (root only),
#      then do 3.
# scripts/stop-services.sh stops the private instances.
#
# This file can also be sourced (stop-services.sh does that) to reuse its
# functions. main runs only when the file is executed.

set -euo pipefail

ES_PROG=${ES_PROG:-ensure-services}
ES_REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)

PG_PRIVATE_PORT=54329
PG_SUPERUSER=herald
REDIS_PRIVATE_PORT=63790
WAIT_SECS=30
# Used when root runs PostgreSQL as another user who cannot reach
# $HERALD_DATA_DIR (for example a repository under /root, which is mode 0700).
PG_RELOCATE_ROOT=/var/lib/herald-dev

# Libpq settings from the caller's environment must not change which server we
# probe or how. We also ignore ~/.pgpass and PGPASSWORD, so a URL without a
# password is only printed when it really works without one.
PG_CLEAN_ENV=(env -u PGHOST -u PGHOSTADDR -u PGPORT -u PGDATABASE -u PGUSER
  -u PGPASSWORD -u PGSERVICE -u PGSERVICEFILE -u PGSYSCONFDIR -u PGOPTIONS
  -u PGDATA -u PGSSLMODE -u PGREQUIRESSL -u PGTARGETSESSIONATTRS
  PGPASSFILE=/nonexistent/herald-no-pgpass PGCONNECT_TIMEOUT=3)

# ---------------------------------------------------------------- helpers ---

log() { printf '%s: %s\n' "$ES_PROG" "$*" >&2; }
die() { printf '%s: error: %s\n' "$ES_PROG" "$*" >&2; exit 1; }
# exe_path NAME: print the path of executable NAME found in PATH. (Unlike
# command -v, this skips a file that is in PATH but not executable.)
exe_path() {
  local p
  p=$(type -P "$1" 2>/dev/null) && [[ -f $p && -x $p ]] && printf '%s\n' "$p"
}
have() { exe_path "$1" >/dev/null; }
is_root() { [[ $(id -u) -eq 0 ]]; }

# Single-quote a value for the shell.
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# Percent-encode a URL component (the user name).
urlenc() {
  local LC_ALL=C s=$1 out="" c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      [A-Za-z0-9._~-]) out+=$c ;;
      *) printf -v c '%%%02X' "'$c"; out+=$c ;;
    esac
  done
  printf '%s' "$out"
}

# Run with a time limit when coreutils' timeout is available.
with_timeout() {
  local secs=$1; shift
  if have timeout; then timeout "$secs" "$@"; else "$@"; fi
}

# wait_until SECONDS command...: retry the command until it succeeds.
wait_until() {
  local end=$((SECONDS + $1)); shift
  while :; do
    "$@" && return 0
    ((SECONDS >= end)) && return 1
    sleep 0.25
  done
}

# Is anything accepting TCP connections on 127.0.0.1:PORT?
port_open() {
  # shellcheck disable=SC2016  # $1 is expanded by the inner bash
  with_timeout 3 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" 2>/dev/null
}

# proc_alive PID [NAME]: PID exists, is not a zombie and (if given) runs NAME.
# (Zombies matter in containers whose PID 1 is slow to reap orphans.)
proc_alive() {
  local st
  [[ $1 =~ ^[0-9]+$ ]] || return 1
  st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  st=${st##*) }
  [[ ${st%% *} != Z ]] || return 1
  [[ -z ${2:-} || $(cat "/proc/$1/comm" 2>/dev/null) == "$2"* ]]
}

# Close inherited descriptors other than 0-2 in the current (sub)shell, so
# that daemons started from it hold none of our caller's pipes open.
close_extra_fds() {
  local fd
  for fd in "/proc/$BASHPID/fd/"*; do
    fd=${fd##*/}
    if [[ $fd =~ ^[0-9]+$ ]] && ((fd > 2 && fd != 255)); then
      eval "exec $fd>&-" 2>/dev/null || true
    fi
  done
}

show_log_tail() {
  [[ -f $1 ]] || return 0
  log "last lines of $1:"
  tail -n 15 "$1" | sed "s/^/$ES_PROG:   /" >&2 || true
}

es_init_paths() {
  DATA_DIR=${HERALD_DATA_DIR:-$ES_REPO_DIR/.data}
  [[ $DATA_DIR == /* ]] || DATA_DIR=$PWD/$DATA_DIR
  DATA_DIR=${DATA_DIR%/}
  DB_NAME=${HERALD_DB_NAME:-herald}
  PG_LINK=$DATA_DIR/postgres   # the cluster; may be a symlink (see PG_RELOCATE_ROOT)
  PG_LOG=$DATA_DIR/postgres.log
  REDIS_DIR=$DATA_DIR/redis
  REDIS_PIDFILE=$REDIS_DIR/redis.pid
  REDIS_LOG=$DATA_DIR/redis.log
  LOCK_FILE=$DATA_DIR/.services.lock
}

# Serialise the slow paths (install, initdb, start) between concurrent runs.
# The lock is fd 9; every daemon we start gets 9>&- so it does not keep the lock.
es_lock() {
  [[ -n ${ES_LOCKED:-} ]] && return 0
  if [[ ! -d $DATA_DIR ]]; then
    mkdir -p "$DATA_DIR" || die "cannot create $DATA_DIR"
    # Let the PostgreSQL user (see pg_prepare_datadir) get into it.
    chmod 755 "$DATA_DIR" || true
  fi
  if have flock; then
    exec 9>>"$LOCK_FILE" || die "cannot open lock file $LOCK_FILE"
    if ! flock -n 9; then
      log "waiting for another ensure-services/stop-services run to finish (lock $LOCK_FILE)"
      flock -w 900 9 || die "timed out waiting for lock $LOCK_FILE"
    fi
  fi
  ES_LOCKED=1
}

APT_UPDATED=""
apt_install() {
  have apt-get || { log "apt-get is not available"; return 1; }
  log "installing $* with apt-get (output below)"
  if [[ -z $APT_UPDATED ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 update \
      </dev/null >&2 9>&- || return 1
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y "$@" \
    </dev/null >&2 9>&-
}

# ------------------------------------------------------------- PostgreSQL ---

# Sort .../<version>/bin paths (one a line on stdin), highest version first.
# The version is the name of each path's parent directory ("16", "9.6"); it is
# put in front for sort -V, so the sort does not depend on where the field is.
pg_sort_bindirs() {
  local d v
  while IFS= read -r d; do
    v=${d%/bin}
    printf '%s\t%s\n' "${v##*/}" "$d"
  done | sort -t $'\t' -k1,1 -V -r | cut -f 2-
}

# PostgreSQL bin directories under /usr/lib/postgresql, highest version first.
pg_lib_bindirs() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [[ -d $d ]] && printf '%s\n' "$d"
  done | pg_sort_bindirs
}

# Sets PSQL to a psql binary, or returns 1 if there is none.
find_psql() {
  PSQL=""
  if PSQL=$(exe_path psql); then return 0; fi
  local d
  while IFS= read -r d; do
    if [[ -x $d/psql ]]; then PSQL=$d/psql; return 0; fi
  done < <(pg_lib_bindirs)
  return 1
}

# pg_sql PORT USER DB SQL: run one statement and print its unaligned result.
pg_sql() {
  "${PG_CLEAN_ENV[@]}" "$PSQL" -X -w -q -v ON_ERROR_STOP=1 \
    -h 127.0.0.1 -p "$1" -U "$2" -d "$3" -tAc "$4" </dev/null
}

pg_can_connect() { [[ $(pg_sql "$1" "$2" postgres 'select 1' 2>/dev/null) == 1 ]]; }

pg_db_exists() {
  [[ $(pg_sql "$1" "$2" postgres \
    "select 1 from pg_database where datname = '$DB_NAME'" 2>/dev/null) == 1 ]]
}

# pg_ensure_db PORT USER: create $DB_NAME if it does not exist.
pg_ensure_db() {
  local out
  pg_db_exists "$1" "$2" && return 0
  log "creating database $DB_NAME on 127.0.0.1:$1 (as $2)"
  out=$(pg_sql "$1" "$2" postgres "CREATE DATABASE \"$DB_NAME\"" 2>&1) && return 0
  pg_db_exists "$1" "$2" && return 0 # a concurrent run created it
  log "CREATE DATABASE $DB_NAME failed: $out"
  return 1
}

# Major version of the PostgreSQL in bin directory $1 ("15", "9.6").
pg_major_of() {
  local out re='\) ([0-9]+)(\.([0-9]+))?'
  out=$("$1/pg_ctl" --version 2>/dev/null) || return 1
  [[ $out =~ $re ]] || return 1
  if ((BASH_REMATCH[1] >= 10)); then
    printf '%s\n' "${BASH_REMATCH[1]}"
  else
    printf '%s.%s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[3]}"
  fi
}

pg_datadir_path() {
  if [[ -L $PG_LINK ]]; then readlink -f "$PG_LINK"; else printf '%s\n' "$PG_LINK"; fi
}

pg_is_initialised() { [[ -f $1/PG_VERSION && -f $1/global/pg_control ]]; }

# Sets PG_BINDIR to a directory with initdb, pg_ctl and postgres: the one in
# PATH first, else the highest /usr/lib/postgresql/*/bin. If the private
# cluster already exists, only its own major version will do; if that is the
# only reason nothing fits, PG_BINDIR_MISMATCH explains it. Returns 1 if none.
pg_find_bindir() {
  PG_BINDIR="" PG_BINDIR_MISMATCH=""
  local want="" other="" pgdata d p cands=()
  pgdata=$(pg_datadir_path)
  if pg_is_initialised "$pgdata"; then
    want=$(tr -d '[:space:]' <"$pgdata/PG_VERSION")
  fi
  if p=$(exe_path pg_ctl); then
    cands+=("$(dirname "$(readlink -f "$p")")")
  fi
  while IFS= read -r d; do cands+=("$d"); done < <(pg_lib_bindirs)
  for d in ${cands[@]+"${cands[@]}"}; do
    [[ -x $d/pg_ctl && -x $d/initdb && -x $d/postgres ]] || continue
    if [[ -z $want || $(pg_major_of "$d" || true) == "$want" ]]; then
      PG_BINDIR=$d
      return 0
    fi
    [[ -n $other ]] || other=$d
  done
  if [[ -n $other ]]; then
    PG_BINDIR_MISMATCH="the private cluster in $pgdata was created by PostgreSQL $want, but only PostgreSQL $(pg_major_of "$other" || echo '?') is installed ($other); install PostgreSQL $want, or delete $pgdata to start over"
  fi
  return 1
}

# Run a PostgreSQL server program: as $PG_RUN_USER when we are root (postgres
# refuses to run as root), else as ourselves. From / so the other user does
# not trip over an unreadable working directory.
run_as_pg() {
  if [[ -n ${PG_RUN_USER:-} ]]; then
    (cd / && close_extra_fds && exec runuser -u "$PG_RUN_USER" -- "$@")
  else
    (cd / && close_extra_fds && exec "$@")
  fi
}

# Sets PG_RUN_USER (empty when not root).
pg_choose_run_user() {
  PG_RUN_USER=""
  is_root || return 0
  have runuser || die "runuser (util-linux) is needed to run PostgreSQL as a non-root user"
  local owner pgdata
  pgdata=$(pg_datadir_path)
  # An existing cluster keeps running as whoever owns it.
  if pg_is_initialised "$pgdata"; then
    owner=$(stat -c %U "$pgdata")
    if [[ $owner != root && $owner != UNKNOWN ]]; then
      PG_RUN_USER=$owner
      return 0
    fi
  fi
  if id -u postgres >/dev/null 2>&1; then
    PG_RUN_USER=postgres
    return 0
  fi
  if ! id -u herald-pg >/dev/null 2>&1; then
    log "creating system user herald-pg to run PostgreSQL (it refuses to run as root)"
    local group_opt=(--user-group)
    getent group herald-pg >/dev/null 2>&1 && group_opt=(--gid herald-pg)
    useradd --system "${group_opt[@]}" --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin herald-pg >&2 ||
      die "could not create system user herald-pg (useradd failed)"
  fi
  PG_RUN_USER=herald-pg
}

pg_user_can_use_dir() {
  [[ -z ${PG_RUN_USER:-} ]] && return 0
  (cd / && runuser -u "$PG_RUN_USER" -- test -r "$1" -a -w "$1" -a -x "$1") 2>/dev/null
}

# Sets PGDATA_DIR to the (real) cluster directory, owned by the run user.
pg_prepare_datadir() {
  pg_choose_run_user
  if [[ ! -e $PG_LINK && ! -L $PG_LINK ]]; then
    mkdir -m 700 "$PG_LINK" || die "cannot create $PG_LINK"
  fi
  PGDATA_DIR=$(pg_datadir_path)
  if [[ ! -d $PGDATA_DIR ]]; then
    mkdir -p "$PGDATA_DIR" || die "cannot create $PGDATA_DIR"
  fi

  if ! pg_is_initialised "$PGDATA_DIR"; then
    if [[ -n $(ls -A "$PGDATA_DIR") ]]; then
      log "removing the incomplete PostgreSQL cluster in $PGDATA_DIR"
      find "$PGDATA_DIR" -mindepth 1 -delete || die "cannot clean $PGDATA_DIR"
    fi
    if [[ -n $PG_RUN_USER ]]; then
      chown "$PG_RUN_USER:" "$PGDATA_DIR" || die "cannot chown $PGDATA_DIR to $PG_RUN_USER"
    fi
    chmod 700 "$PGDATA_DIR"
  fi

  if ! pg_user_can_use_dir "$PGDATA_DIR"; then
    # Typically a repository under /root: user $PG_RUN_USER cannot reach it.
    if [[ -L $PG_LINK ]] || pg_is_initialised "$PGDATA_DIR"; then
      die "user $PG_RUN_USER cannot access $PGDATA_DIR; fix its permissions (or those of its parent directories) or set HERALD_DATA_DIR to another directory"
    fi
    local alt
    alt=$PG_RELOCATE_ROOT/postgres-$(printf '%s' "$DATA_DIR" | sha256sum | cut -c1-16)
    log "user $PG_RUN_USER cannot reach $PGDATA_DIR (a parent directory is closed to it); keeping the cluster in $alt, linked from $PG_LINK"
    if ! { mkdir -p "$PG_RELOCATE_ROOT" && chmod 755 "$PG_RELOCATE_ROOT" &&
      mkdir -p "$alt" && chown "$PG_RUN_USER:" "$alt" && chmod 700 "$alt"; }; then
      die "cannot create $alt"
    fi
    if ! { rmdir "$PG_LINK" && ln -s "$alt" "$PG_LINK"; }; then
      die "cannot link $PG_LINK to $alt"
    fi
    PGDATA_DIR=$alt
    pg_user_can_use_dir "$PGDATA_DIR" || die "user $PG_RUN_USER cannot access $PGDATA_DIR"
  fi
}

pg_initdb() {
  local locale=C available
  available=$(locale -a 2>/dev/null || true)
  if grep -qixE 'c\.utf-?8' <<<"$available"; then locale=C.UTF-8; fi
  log "initialising a private PostgreSQL cluster in $PGDATA_DIR (PostgreSQL $(pg_major_of "$PG_BINDIR" || echo '?')${PG_RUN_USER:+, owner $PG_RUN_USER})"
  if ! run_as_pg "${PG_CLEAN_ENV[@]}" LC_ALL=C "$PG_BINDIR/initdb" -D "$PGDATA_DIR" \
    -U "$PG_SUPERUSER" --auth=trust -E UTF8 --locale="$locale" \
    </dev/null >>"$PG_LOG" 2>&1 9>&-; then
    show_log_tail "$PG_LOG"
    die "initdb failed for $PGDATA_DIR (see $PG_LOG)"
  fi
}

# Our settings live in herald.conf, rewritten before every start and included
# from postgresql.conf.
pg_write_conf() {
  local sock=$PGDATA_DIR conf=$PGDATA_DIR/postgresql.conf
  # A Unix socket path is limited to 107 bytes; we connect over TCP anyway.
  if ((${#sock} + ${#PG_PRIVATE_PORT} + 11 > 107)); then
    log "path $sock is too long for a Unix socket; the private PostgreSQL will only listen on TCP"
    sock=""
  fi
  cat >"$PGDATA_DIR/herald.conf" <<EOF || die "cannot write $PGDATA_DIR/herald.conf"
# Written by Herald's scripts/ensure-services.sh before each start; do not edit.
listen_addresses = '127.0.0.1'
port = $PG_PRIVATE_PORT
unix_socket_directories = '${sock//\'/\'\'}'
EOF
  if ! grep -qF "include_if_exists = 'herald.conf'" "$conf"; then
    printf "\n# Added by Herald's scripts/ensure-services.sh\ninclude_if_exists = 'herald.conf'\n" >>"$conf" ||
      die "cannot update $conf"
  fi
  if [[ -n ${PG_RUN_USER:-} ]]; then chown "$PG_RUN_USER:" "$PGDATA_DIR/herald.conf"; fi
}

pg_private_answers() { pg_can_connect "$PG_PRIVATE_PORT" "$PG_SUPERUSER"; }

pg_ctl_status() {
  run_as_pg "${PG_CLEAN_ENV[@]}" LC_ALL=C "$PG_BINDIR/pg_ctl" -D "$PGDATA_DIR" status \
    </dev/null >/dev/null 2>&1 9>&-
}

# A postmaster killed hard can linger as a zombie; PostgreSQL would then take
# its lock files (postmaster.pid, the socket's .lock) as proof that it still
# runs and refuse to start. The process is dead, so the files can go.
pg_drop_zombie_lockfiles() {
  local f pid
  for f in "$PGDATA_DIR/postmaster.pid" "$PGDATA_DIR/.s.PGSQL.$PG_PRIVATE_PORT.lock"; do
    [[ -f $f ]] || continue
    pid=$(head -n 1 "$f")
    if [[ $pid =~ ^[0-9]+$ && -e /proc/$pid ]] && ! proc_alive "$pid"; then
      log "removing ${f##*/} left by a crashed private PostgreSQL (pid $pid is a zombie)"
      rm -f "$f"
    fi
  done
}

pg_start_private() {
  pg_drop_zombie_lockfiles
  if pg_ctl_status; then
    log "the private PostgreSQL in $PGDATA_DIR is running; waiting for it to accept connections"
  else
    if port_open "$PG_PRIVATE_PORT"; then
      die "127.0.0.1:$PG_PRIVATE_PORT is taken by another server where user $PG_SUPERUSER cannot log in; stop it or set SVC_DATABASE_URL"
    fi
    log "starting the private PostgreSQL on 127.0.0.1:$PG_PRIVATE_PORT (data $PGDATA_DIR, log $PG_LOG)"
    # Without -l the server writes to pg_ctl's stdout: the log file, opened
    # here, so it works even when the run user cannot reach $DATA_DIR.
    if ! run_as_pg "${PG_CLEAN_ENV[@]}" LC_ALL=C "$PG_BINDIR/pg_ctl" -D "$PGDATA_DIR" \
      -w -t "$WAIT_SECS" start </dev/null >>"$PG_LOG" 2>&1 9>&-; then
      show_log_tail "$PG_LOG"
      die "could not start the private PostgreSQL (see $PG_LOG)"
    fi
  fi
  if ! wait_until "$WAIT_SECS" pg_private_answers; then
    show_log_tail "$PG_LOG"
    die "the private PostgreSQL on 127.0.0.1:$PG_PRIVATE_PORT did not accept connections within ${WAIT_SECS}s (see $PG_LOG)"
  fi
}

# Case 2: a server on the probe port with trust auth. Sets DB_URL.
pg_try_existing() {
  local port=${HERALD_PG_PROBE_PORT:-5432} u me seen=" " users=()
  if ! find_psql; then
    log "psql not found; not probing 127.0.0.1:$port"
    return 1
  fi
  [[ -n ${PGUSER:-} ]] && users+=("$PGUSER")
  users+=(postgres)
  me=$(whoami 2>/dev/null || true)
  [[ -n $me ]] && users+=("$me")
  for u in "${users[@]}"; do
    [[ $seen == *" $u "* ]] && continue
    seen+="$u "
    pg_can_connect "$port" "$u" || continue
    if pg_ensure_db "$port" "$u"; then
      log "using the PostgreSQL on 127.0.0.1:$port as user $u, database $DB_NAME"
      DB_URL="postgres://$(urlenc "$u")@127.0.0.1:$port/$DB_NAME"
      return 0
    fi
    log "user $u can log in to 127.0.0.1:$port but cannot create database $DB_NAME; trying the next option"
  done
  return 1
}

# Cases 3 and 4: the private instance. Sets DB_URL.
pg_use_private() {
  es_lock
  find_psql || true
  if [[ -n $PSQL ]] && pg_private_answers; then
    log "reusing the private PostgreSQL on 127.0.0.1:$PG_PRIVATE_PORT"
  else
    if ! pg_find_bindir; then
      [[ -n $PG_BINDIR_MISMATCH ]] && die "$PG_BINDIR_MISMATCH"
      if ! is_root; then
        die "no PostgreSQL answers on 127.0.0.1:${HERALD_PG_PROBE_PORT:-5432} and no PostgreSQL server binaries were found; install PostgreSQL (apt-get install postgresql) or set SVC_DATABASE_URL"
      fi
      log "no PostgreSQL server binaries found"
      apt_install postgresql || die "could not install PostgreSQL with apt-get; install it by hand or set SVC_DATABASE_URL"
      if ! pg_find_bindir; then
        [[ -n $PG_BINDIR_MISMATCH ]] && die "$PG_BINDIR_MISMATCH"
        die "PostgreSQL was installed but no initdb/pg_ctl was found in PATH or /usr/lib/postgresql/*/bin"
      fi
    fi
    [[ -x $PG_BINDIR/psql ]] && PSQL=$PG_BINDIR/psql
    [[ -n $PSQL ]] || die "psql not found next to $PG_BINDIR/pg_ctl nor in PATH"
    pg_prepare_datadir
    pg_is_initialised "$PGDATA_DIR" || pg_initdb
    pg_write_conf
    pg_start_private
  fi
  pg_ensure_db "$PG_PRIVATE_PORT" "$PG_SUPERUSER" ||
    die "could not create database $DB_NAME in the private PostgreSQL on 127.0.0.1:$PG_PRIVATE_PORT (see $PG_LOG)"
  DB_URL="postgres://$PG_SUPERUSER@127.0.0.1:$PG_PRIVATE_PORT/$DB_NAME"
}

ensure_postgres() {
  if [[ -n ${SVC_DATABASE_URL:-} ]]; then
    log "using SVC_DATABASE_URL from the environment"
    DB_URL=$SVC_DATABASE_URL
    return 0
  fi
  [[ $DB_NAME =~ ^[A-Za-z0-9_][A-Za-z0-9_-]{0,62}$ ]] ||
    die "HERALD_DB_NAME='$DB_NAME' is not a plain database name (letters, digits, _ and -, at most 63)"
  pg_try_existing && return 0
  pg_use_private
}

# ------------------------------------------------------------------ Redis ---

find_redis_cli() {
  REDIS_CLI=""
  if REDIS_CLI=$(exe_path redis-cli); then return 0; fi
  REDIS_CLI=""
  if [[ -f /usr/bin/redis-cli && -x /usr/bin/redis-cli ]]; then REDIS_CLI=/usr/bin/redis-cli; fi
}

find_redis_server() {
  REDIS_SERVER=""
  if REDIS_SERVER=$(exe_path redis-server); then return 0; fi
  REDIS_SERVER=""
  local p
  for p in /usr/bin/redis-server /usr/sbin/redis-server /usr/local/bin/redis-server; do
    if [[ -f $p && -x $p ]]; then REDIS_SERVER=$p; return 0; fi
  done
  return 1
}

# Does a Redis on 127.0.0.1:PORT answer PING with PONG (no password)?
redis_ping() {
  local out
  if [[ -n ${REDIS_CLI:-} ]]; then
    out=$(with_timeout 3 env -u REDISCLI_AUTH "$REDIS_CLI" -h 127.0.0.1 -p "$1" ping \
      </dev/null 2>/dev/null) || return 1
    [[ $out == PONG ]]
  else
    # shellcheck disable=SC2016  # $1 is expanded by the inner bash
    with_timeout 3 bash -c '
      exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
      printf "PING\r\n" >&3
      IFS= read -r -t 2 line <&3 || exit 1
      [[ $line == "+PONG"* ]]' _ "$1" 2>/dev/null
  fi
}

redis_start_private() {
  if port_open "$REDIS_PRIVATE_PORT"; then
    die "127.0.0.1:$REDIS_PRIVATE_PORT is taken by something that does not answer a Redis PING; stop it or set SVC_REDIS_URL"
  fi
  mkdir -p "$REDIS_DIR" || die "cannot create $REDIS_DIR"
  log "starting the private Redis on 127.0.0.1:$REDIS_PRIVATE_PORT (dir $REDIS_DIR, log $REDIS_LOG)"
  # Early errors (before Redis opens its logfile) go to stdout: same file.
  # shellcheck disable=SC2094
  if ! (close_extra_fds && exec "$REDIS_SERVER" --bind 127.0.0.1 --port "$REDIS_PRIVATE_PORT" --protected-mode yes \
    --daemonize yes --dir "$REDIS_DIR" --save "" --appendonly no \
    --pidfile "$REDIS_PIDFILE" --logfile "$REDIS_LOG") \
    </dev/null >>"$REDIS_LOG" 2>&1 9>&-; then
    show_log_tail "$REDIS_LOG"
    die "could not start the private Redis (see $REDIS_LOG)"
  fi
  if ! wait_until "$WAIT_SECS" redis_ping "$REDIS_PRIVATE_PORT"; then
    show_log_tail "$REDIS_LOG"
    die "the private Redis on 127.0.0.1:$REDIS_PRIVATE_PORT did not answer within ${WAIT_SECS}s (see $REDIS_LOG)"
  fi
}

ensure_redis() {
  if [[ -n ${SVC_REDIS_URL:-} ]]; then
    log "using SVC_REDIS_URL from the environment"
    REDIS_URL=$SVC_REDIS_URL
    return 0
  fi
  local port=${HERALD_REDIS_PROBE_PORT:-6379}
  find_redis_cli
  if redis_ping "$port"; then
    log "using the Redis on 127.0.0.1:$port"
    REDIS_URL="redis://127.0.0.1:$port"
    return 0
  fi
  es_lock
  if redis_ping "$REDIS_PRIVATE_PORT"; then
    log "reusing the private Redis on 127.0.0.1:$REDIS_PRIVATE_PORT"
  else
    if ! find_redis_server; then
      if ! is_root; then
        die "no Redis answers on 127.0.0.1:$port and redis-server was not found; install Redis (apt-get install redis-server) or set SVC_REDIS_URL"
      fi
      log "redis-server not found"
      local pkgs=(redis-server)
      [[ -n $REDIS_CLI ]] || pkgs+=(redis-tools)
      apt_install "${pkgs[@]}" || die "could not install Redis with apt-get; install it by hand or set SVC_REDIS_URL"
      find_redis_server || die "Redis was installed but redis-server was not found"
      find_redis_cli
    fi
    redis_start_private
  fi
  REDIS_URL="redis://127.0.0.1:$REDIS_PRIVATE_PORT"
}

# Is libfaketime (Debian's package faketime) installed?
find_faketime() {
  compgen -G '/usr/lib/*/faketime/libfaketime.so.1' >/dev/null || compgen -G '/usr/lib/faketime/libfaketime.so.1' >/dev/null
}

# Sets PGBOUNCER to Debian's pgbouncer (in /usr/sbin, often outside a user's PATH); 1 if none.
find_pgbouncer() {
  PGBOUNCER=""
  if PGBOUNCER=$(exe_path pgbouncer); then return 0; fi
  PGBOUNCER=""
  local p
  for p in /usr/sbin/pgbouncer /usr/bin/pgbouncer /usr/local/bin/pgbouncer; do
    if [[ -f $p && -x $p ]]; then PGBOUNCER=$p; return 0; fi
  done
  return 1
}

# The tests start pgbouncers of their own (tests/support/pgbouncer.ts); the package's
# service (on 6432, started by its postinst where the init system lets it) is not for them:
# stop it and keep it from starting at boot. Never fatal.
pgbouncer_quiet_service() {
  if have systemctl && [[ -d /run/systemd/system ]]; then
    systemctl disable --now pgbouncer.service >&2 2>&1 || true
  else
    have update-rc.d && update-rc.d pgbouncer disable >&2 2>&1 || true
    if [[ -x /etc/init.d/pgbouncer ]]; then /etc/init.d/pgbouncer stop >&2 2>&1 || true; fi
  fi
  local pidfile pid
  for pidfile in /run/postgresql/pgbouncer.pid /var/run/postgresql/pgbouncer.pid; do
    [[ -f $pidfile ]] || continue
    pid=$(head -n 1 "$pidfile")
    if proc_alive "$pid" pgbouncer; then
      log "stopping the pgbouncer service the package started (pid $pid)"
      kill -TERM "$pid" 2>/dev/null || true
    fi
  done
}

# With HERALD_TEST_TOOLS=1: make sure the programs the tests run are installed,
# even when the Redis in use is not ours: redis-server (tests/integration/
# dependencies-down.test.ts runs its own), curl (tests/process/readme.test.ts
# runs the README's examples) and libfaketime (tests/process/scheduler-faults.test.ts
# runs a scheduler whose clock is ahead) and Debian's chromium (the web UI's browser tests
# under web/tests drive it with Playwright, which cannot download browsers here; its
# chromium-headless-shell, the same engine without the browser's windowing, is what they
# run when it is there: half the CPU of the full browser headless, see web/playwright.config.ts) and
# pgbouncer (tests/integration/pgbouncer.test.ts runs the store through its own, in
# transaction pooling; the package's own service is stopped, see pgbouncer_quiet_service).
# Never fatal: without them, those tests say what is missing.
ensure_test_tools() {
  [[ ${HERALD_TEST_TOOLS:-} == 1 ]] || return 0
  local missing=()
  find_redis_server || missing+=(redis-server)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  find_faketime || missing+=(faketime)
  [[ -x /usr/bin/chromium ]] || missing+=(chromium)
  find_pgbouncer || missing+=(pgbouncer)
  [[ -x /usr/bin/chromium-headless-shell ]] || missing+=(chromium-headless-shell)
  ((${#missing[@]} > 0)) || return 0
  if ! is_root; then
    log "warning: the tests need ${missing[*]}, which is not installed (apt-get install ${missing[*]})"
    return 0
  fi
  es_lock
  missing=()
  find_redis_server || missing+=(redis-server) # a concurrent run may have installed it
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  find_faketime || missing+=(faketime)
  [[ -x /usr/bin/chromium ]] || missing+=(chromium)
  find_pgbouncer || missing+=(pgbouncer)
  if ((${#missing[@]} > 0)); then
    log "installing what the tests run: ${missing[*]}"
    apt_install "${missing[@]}" || log "warning: apt-get install ${missing[*]} failed"
    if [[ " ${missing[*]} " == *" pgbouncer "* ]] && find_pgbouncer; then pgbouncer_quiet_service; fi
  fi
  # Apart, as older Debian releases have no such package: the browser tests then run chromium itself.
  if [[ ! -x /usr/bin/chromium-headless-shell ]]; then
    apt_install chromium-headless-shell || log "warning: no chromium-headless-shell; the browser tests run /usr/bin/chromium (slower)"
  fi
}

# ---------------------------------------------------------------- MariaDB ---
# (The connector tests.) With HERALD_TEST_TOOLS=1 (make test, make test-file)
# the suite also needs a MySQL-compatible server: the mysql connector's tests
# make a database there as root without a password. Chosen like PostgreSQL:
#   1. HERALD_TEST_MYSQL_URL from the environment, if set (used as is);
#   2. a server already answering on 127.0.0.1:${HERALD_MYSQL_PROBE_PORT:-3306}
#      where root logs in without a password;
#   3. a private mariadbd under $HERALD_DATA_DIR/mariadb on 127.0.0.1:33069,
#      started if needed and reused if already running;
#   4. without server binaries: apt-get install mariadb-server (root only),
#      then 2 (the package may have started one) or 3.
# Prints `export HERALD_TEST_MYSQL_URL='mysql://root@127.0.0.1:PORT'` (main).
# scripts/stop-services.sh stops the private instance (mariadb_stop_private).

MY_PRIVATE_PORT=33069

mariadb_init_paths() {
  MY_DIR=$DATA_DIR/mariadb
  MY_LOG=$DATA_DIR/mariadb.log
  MY_PIDFILE=$DATA_DIR/mariadb.pid
  MY_SOCK=$DATA_DIR/mariadb.sock
  # A Unix socket path is limited to 107 bytes; we connect over TCP anyway.
  ((${#MY_SOCK} <= 100)) || MY_SOCK=/tmp/herald-mariadb-$(printf '%s' "$DATA_DIR" | sha256sum | cut -c1-12).sock
}

# Sets MY_CLIENT to the mariadb (or mysql) command-line client; 1 if none.
mariadb_find_client() {
  MY_CLIENT=$(exe_path mariadb) || MY_CLIENT=$(exe_path mysql) || { MY_CLIENT=""; return 1; }
}

# Sets MY_SERVER (mariadbd or mysqld) and MY_INSTALL_DB; 1 if either is missing.
mariadb_find_server() {
  local p
  MY_SERVER="" MY_INSTALL_DB=""
  for p in mariadbd mysqld /usr/sbin/mariadbd /usr/sbin/mysqld; do
    if [[ $p == /* ]]; then [[ -x $p ]] && { MY_SERVER=$p; break; }
    elif MY_SERVER=$(exe_path "$p"); then break; fi
  done
  MY_INSTALL_DB=$(exe_path mariadb-install-db) || MY_INSTALL_DB=$(exe_path mysql_install_db) || MY_INSTALL_DB=""
  [[ -n $MY_SERVER && -n $MY_INSTALL_DB ]]
}

# Does root log in without a password on 127.0.0.1:PORT?
mariadb_root_answers() {
  [[ -n ${MY_CLIENT:-} ]] || return 1
  [[ $(with_timeout 5 env -u MYSQL_PWD -u MYSQL_HOST -u MYSQL_TCP_PORT "$MY_CLIENT" --no-defaults \
    --protocol=TCP -h 127.0.0.1 -P "$1" -u root --connect-timeout=3 -N -B -e 'SELECT 1' \
    </dev/null 2>/dev/null) == 1 ]]
}

mariadb_private_answers() { mariadb_root_answers "$MY_PRIVATE_PORT"; }

mariadb_start_private() {
  local user_opt=()
  is_root && user_opt=(--user=root)
  mkdir -p "$MY_DIR" || die "cannot create $MY_DIR"
  if [[ ! -d $MY_DIR/mysql ]]; then
    log "initialising a private MariaDB in $MY_DIR"
    if ! (cd / && close_extra_fds && exec "$MY_INSTALL_DB" --no-defaults --datadir="$MY_DIR" \
      --auth-root-authentication-method=normal --skip-test-db --skip-name-resolve "${user_opt[@]}") \
      </dev/null >>"$MY_LOG" 2>&1 9>&-; then
      show_log_tail "$MY_LOG"
      die "initialising the private MariaDB failed (see $MY_LOG)"
    fi
  fi
  if port_open "$MY_PRIVATE_PORT"; then
    die "127.0.0.1:$MY_PRIVATE_PORT is taken by something where root cannot log in without a password; stop it or set HERALD_TEST_MYSQL_URL"
  fi
  log "starting the private MariaDB on 127.0.0.1:$MY_PRIVATE_PORT (data $MY_DIR, log $MY_LOG)"
  (cd / && close_extra_fds && exec setsid "$MY_SERVER" --no-defaults --datadir="$MY_DIR" \
    --port="$MY_PRIVATE_PORT" --bind-address=127.0.0.1 --socket="$MY_SOCK" --pid-file="$MY_PIDFILE" \
    --log-error="$MY_LOG" --skip-name-resolve --skip-log-bin --innodb-buffer-pool-size=64M "${user_opt[@]}") \
    </dev/null >>"$MY_LOG" 2>&1 9>&- &
  if ! wait_until "$WAIT_SECS" mariadb_private_answers; then
    show_log_tail "$MY_LOG"
    die "the private MariaDB on 127.0.0.1:$MY_PRIVATE_PORT did not accept root within ${WAIT_SECS}s (see $MY_LOG)"
  fi
}

# Sets MY_URL. Runs only for the tests (HERALD_TEST_TOOLS=1); MY_URL stays empty otherwise.
ensure_mariadb() {
  MY_URL=""
  [[ ${HERALD_TEST_TOOLS:-} == 1 || -n ${HERALD_TEST_MYSQL_URL:-} ]] || return 0
  if [[ -n ${HERALD_TEST_MYSQL_URL:-} ]]; then
    log "using HERALD_TEST_MYSQL_URL from the environment"
    MY_URL=$HERALD_TEST_MYSQL_URL
    return 0
  fi
  local port=${HERALD_MYSQL_PROBE_PORT:-3306}
  mariadb_init_paths
  mariadb_find_client || true
  if mariadb_root_answers "$port"; then
    log "using the MariaDB/MySQL on 127.0.0.1:$port as root"
    MY_URL="mysql://root@127.0.0.1:$port"
    return 0
  fi
  es_lock
  if ! mariadb_private_answers; then
    if ! mariadb_find_server || [[ -z $MY_CLIENT ]]; then
      is_root || die "no MariaDB answers on 127.0.0.1:$port (root without a password) and no MariaDB server binaries were found; install MariaDB (apt-get install mariadb-server) or set HERALD_TEST_MYSQL_URL"
      log "no MariaDB server binaries found"
      apt_install mariadb-server mariadb-client || die "could not install MariaDB with apt-get; install it by hand or set HERALD_TEST_MYSQL_URL"
      mariadb_find_client || die "MariaDB was installed but no mariadb client was found"
      if mariadb_root_answers "$port"; then
        log "using the MariaDB the package started on 127.0.0.1:$port"
        MY_URL="mysql://root@127.0.0.1:$port"
        return 0
      fi
      mariadb_find_server || die "MariaDB was installed but mariadbd or mariadb-install-db was not found"
    fi
    mariadb_start_private
  else
    log "reusing the private MariaDB on 127.0.0.1:$MY_PRIVATE_PORT"
  fi
  MY_URL="mysql://root@127.0.0.1:$MY_PRIVATE_PORT"
}

mariadb_gone() { ! proc_alive "$1"; }

# For scripts/stop-services.sh: stop the private mariadbd, if it runs.
mariadb_stop_private() {
  local pid
  mariadb_init_paths
  if [[ ! -f $MY_PIDFILE ]]; then
    log "the private MariaDB is not running (no $MY_PIDFILE)"
    return 0
  fi
  pid=$(head -n 1 "$MY_PIDFILE")
  if ! proc_alive "$pid"; then
    log "the private MariaDB is not running (stale $MY_PIDFILE)"
    rm -f "$MY_PIDFILE"
    return 0
  fi
  log "stopping the private MariaDB on 127.0.0.1:$MY_PRIVATE_PORT (pid $pid)"
  kill -TERM "$pid"
  wait_until 60 mariadb_gone "$pid" || die "the private MariaDB (pid $pid) did not stop within 60s"
}

# ------------------------------------------------------------------- main ---

es_usage() {
  sed -n '2,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
}

es_main() {
  case ${1:-} in
    "") ;;
    -h | --help) es_usage; exit 0 ;;
    *) die "unknown argument: $1 (usage: eval \"\$(scripts/ensure-services.sh)\")" ;;
  esac
  es_init_paths
  DB_URL="" REDIS_URL=""
  # Everything the steps write to stdout goes to stderr. The caller's stdout
  # (usually a $(...) pipe) is kept close-on-exec by bash here, so the servers
  # we start do not hold it open and eval "$(...)" does not hang.
  ensure_postgres >&2
  ensure_redis >&2
  ensure_test_tools >&2
  ensure_mariadb >&2
  printf 'export SVC_DATABASE_URL=%s\n' "$(shq "$DB_URL")"
  printf 'export SVC_REDIS_URL=%s\n' "$(shq "$REDIS_URL")"
  if [[ -n $MY_URL ]]; then printf 'export HERALD_TEST_MYSQL_URL=%s\n' "$(shq "$MY_URL")"; fi
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  ES_PROG=ensure-services
  es_main "$@"
fi
