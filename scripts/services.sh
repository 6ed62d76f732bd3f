#!/usr/bin/env bash
# The services a Broadside cluster needs on this machine: PostgreSQL, NATS with
# JetStream and nginx. Each function installs what is missing with apt-get
# (sudo when not root), starts what is stopped (directly: no systemd needed)
# and reuses what already runs; when everything runs each check takes well
# under a second. Progress goes to stderr as "services: ..." lines; stdout
# carries only results (URLs, paths).
#
# Sourced by other scripts:
#
#   source scripts/services.sh
#   services_postgres                    # PostgreSQL on 127.0.0.1:5432, reachable
#                                        # over TCP as the current user (a superuser role)
#   url="$(services_fresh_db bstest)"    # a new empty database, prints its URL
#   trap 'services_drop_db "$url"' EXIT  # ...dropped when the script ends
#   url="$(services_ensure_db NAME)"     # the database NAME, created if missing
#   services_nats                        # nats-server with JetStream on 127.0.0.1:4222
#   services_nginx_bin                   # installs nginx, prints its path
#                                        # (the system nginx service is never started)
#   services_promtool_bin                # installs promtool (prometheus), prints its path
#   services_nginx_start DIR 8080 8081 8082
#                                        # our own nginx, running from DIR, balancing
#                                        # 127.0.0.1:8080 over 127.0.0.1:8081 and :8082
#   services_nginx_stop DIR
#   services_port_open HOST PORT         # true when something accepts connections there
#   services_http_status HOST PORT PATH  # prints the HTTP status code of a GET
#
# or run directly:
#
#   scripts/services.sh up               # PostgreSQL, NATS and nginx, then prints
#                                        # export lines: eval "$(scripts/services.sh up)"
#   scripts/services.sh postgres | nats | nginx
#   scripts/services.sh fresh-db PREFIX | ensure-db NAME | drop-db URL
#   scripts/services.sh nginx-start DIR LISTEN_PORT UPSTREAM_PORT... | nginx-stop DIR
#
# The functions leave the caller's shell options alone and work under
# `set -euo pipefail`.

SERVICES_PG_HOST="${SERVICES_PG_HOST:-127.0.0.1}"
SERVICES_PG_PORT="${SERVICES_PG_PORT:-5432}"
SERVICES_NATS_PORT="${SERVICES_NATS_PORT:-4222}"
_services_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

_services_log() {
  echo "services: $*" >&2
}

_services_user() {
  id -un
}

# Runs a command as root: directly when root, through sudo otherwise.
_services_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    _services_log "root is needed for: $* (run as root or install sudo)"
    return 1
  fi
}

# Runs a command as the postgres system user, from / (its home may not be
# readable from the current directory).
_services_as_postgres() {
  (
    cd / || exit 1
    if [ "$(id -u)" = 0 ]; then
      runuser -u postgres -- "$@"
    elif command -v sudo >/dev/null 2>&1; then
      sudo -u postgres -- "$@"
    else
      echo "services: the postgres user's rights are needed for: $* (run as root or install sudo)" >&2
      exit 1
    fi
  )
}

# The path of a program, also in the sbin directories a user's PATH may lack.
_services_find() {
  local dir
  if command -v "$1" 2>/dev/null; then
    return 0
  fi
  for dir in /usr/sbin /sbin /usr/local/sbin; do
    if [ -x "$dir/$1" ]; then
      echo "$dir/$1"
      return 0
    fi
  done
  return 1
}

_services_systemd() {
  [ -d /run/systemd/system ]
}

_services_apt_update() {
  if [ -n "${_services_apt_updated:-}" ]; then
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    _services_log "apt-get not found: install the missing packages by hand"
    return 1
  fi
  _services_log "apt-get update"
  _services_quiet _services_root apt-get update -qq || return 1
  _services_apt_updated=1
}

# Runs a command with its output kept aside, shown only when it fails.
_services_quiet() {
  local out status=0
  out="$(mktemp)" || return 1
  "$@" >"$out" 2>&1 || status=$?
  if [ "$status" != 0 ]; then
    cat "$out" >&2
    _services_log "failed ($status): $*"
  fi
  rm -f "$out"
  return "$status"
}

# Installs Debian packages.
_services_apt_install() {
  _services_apt_update || return 1
  _services_log "installing $* with apt-get"
  _services_quiet _services_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "$@"
}

# Installs Debian packages without letting their maintainer scripts start
# (or, with systemd, keep enabled) the services they ship: we run our own
# instances. A policy-rc.d that answers 101 is Debian's way to say so
# (invoke-rc.d(8)); one is put in place for the install unless the machine
# already has one (Docker images do).
_services_apt_install_no_start() {
  local policy=/usr/sbin/policy-rc.d package
  _services_apt_update || return 1
  if [ -e "$policy" ]; then
    _services_apt_install "$@" || return 1
  else
    (
      trap '_services_root rm -f "$policy"' EXIT
      printf '#!/bin/sh\n# Temporary, from Broadside scripts/services.sh: no service starts during this install.\nexit 101\n' |
        _services_root tee "$policy" >/dev/null &&
        _services_root chmod 755 "$policy" &&
        _services_apt_install "$@"
    ) || return 1
  fi
  if _services_systemd; then
    for package in "$@"; do
      _services_root systemctl disable --now --quiet "$package" >/dev/null 2>&1 || true
    done
  fi
}

# True when something accepts TCP connections on HOST PORT.
services_port_open() {
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

# Prints the status code of `GET PATH` on HOST PORT (fails when nothing answers).
services_http_status() {
  local host="$1" port="$2" path="${3:-/}" line
  line="$(
    exec 2>/dev/null 3<>"/dev/tcp/$host/$port" || exit 1
    printf 'GET %s HTTP/1.0\r\nHost: %s:%s\r\nConnection: close\r\n\r\n' "$path" "$host" "$port" >&3
    IFS= read -r -t 5 reply <&3 || exit 1
    printf '%s' "$reply"
    # The rest of the reply is read too: closing with unread data would reset
    # the connection under the server's feet.
    while IFS= read -r -t 5 _ <&3; do :; done
  )" || return 1
  line="${line%$'\r'}"
  line="${line#HTTP/* }"
  line="${line%% *}"
  case "$line" in
    [1-5][0-9][0-9]) echo "$line" ;;
    *) return 1 ;;
  esac
}

# Waits up to $1 seconds for the command after it to succeed.
_services_wait() {
  local tries=$(($1 * 10))
  shift
  while ! "$@"; do
    tries=$((tries - 1))
    if [ "$tries" -le 0 ]; then
      return 1
    fi
    sleep 0.1
  done
}

# ---------------------------------------------------------------- PostgreSQL

# psql as the current user over loopback TCP, never prompting for a password.
_services_psql() {
  PGCONNECT_TIMEOUT=3 psql -X -w -q -A -t -v ON_ERROR_STOP=1 \
    -h "$SERVICES_PG_HOST" -p "$SERVICES_PG_PORT" -U "$(_services_user)" -d postgres "$@"
}

# psql as the postgres superuser over the local socket (peer authentication).
_services_psql_admin() {
  _services_as_postgres psql -X -q -A -t -v ON_ERROR_STOP=1 -p "$SERVICES_PG_PORT" -d postgres "$@"
}

_services_pg_ready() {
  pg_isready -q -h "$SERVICES_PG_HOST" -p "$SERVICES_PG_PORT" >/dev/null 2>&1
}

# Prints "t" when the current user can connect and create databases, "f"
# when it can connect but not create them; fails when it cannot connect.
_services_pg_can_create() {
  _services_psql -c 'select rolsuper or rolcreatedb from pg_roles where rolname = current_user' 2>/dev/null
}

# Prints "VERSION NAME" of the Debian cluster on our port.
_services_pg_cluster() {
  command -v pg_lsclusters >/dev/null 2>&1 || return 1
  pg_lsclusters -h 2>/dev/null | awk -v port="$SERVICES_PG_PORT" '$3 == port { print $1, $2; found = 1; exit } END { exit !found }'
}

# Makes PostgreSQL reachable on 127.0.0.1:5432 for the current user.
services_postgres() {
  local user cluster version name can
  user="$(_services_user)"
  if command -v pg_isready >/dev/null 2>&1 && _services_pg_ready; then
    if can="$(_services_pg_can_create)"; then
      if [ "$can" != t ]; then
        _services_log "PostgreSQL: role $user may not create databases (ALTER ROLE \"$user\" CREATEDB as a superuser)"
      fi
      return 0
    fi
  fi

  if ! cluster="$(_services_pg_cluster)"; then
    if command -v pg_isready >/dev/null 2>&1 && _services_pg_ready; then
      _services_log "PostgreSQL answers on $SERVICES_PG_HOST:$SERVICES_PG_PORT but is not a cluster of this machine's Debian packages, and role $user cannot connect to it without a password"
      return 1
    fi
    if ! command -v pg_createcluster >/dev/null 2>&1 || ! compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; then
      _services_apt_install postgresql || return 1
    fi
    if ! cluster="$(_services_pg_cluster)"; then
      if [ -n "$(pg_lsclusters -h 2>/dev/null)" ]; then
        _services_log "PostgreSQL: no cluster uses port $SERVICES_PG_PORT (pg_lsclusters lists the clusters and their ports)"
        return 1
      fi
      version="$(find /usr/lib/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -n | tail -n 1)"
      _services_log "PostgreSQL: creating the cluster $version/main"
      _services_root pg_createcluster -p "$SERVICES_PG_PORT" "$version" main >&2 || return 1
      cluster="$version main"
    fi
  fi
  version="${cluster% *}"
  name="${cluster#* }"

  if ! _services_pg_ready; then
    _services_log "PostgreSQL: starting the cluster $version/$name"
    if _services_systemd; then
      _services_root systemctl start "postgresql@$version-$name" >&2 || return 1
    else
      _services_root pg_ctlcluster --skip-systemctl-redirect "$version" "$name" start >&2 || return 1
    fi
    if ! _services_wait 30 _services_pg_ready; then
      _services_log "PostgreSQL did not become ready (see /var/log/postgresql/postgresql-$version-$name.log)"
      return 1
    fi
  fi
  if _services_pg_can_create >/dev/null; then
    return 0
  fi

  # A fresh cluster: the current user has no role yet, and loopback TCP asks
  # for a password (scram-sha-256).
  if [ -z "$(printf 'select 1 from pg_roles where rolname = %s;\n' ":'name'" | _services_psql_admin -v name="$user")" ]; then
    _services_log "PostgreSQL: creating the superuser role $user"
    printf 'create role %s login superuser;\n' ':"name"' | _services_psql_admin -v name="$user" || return 1
  fi
  if _services_pg_can_create >/dev/null; then
    return 0
  fi
  local hba line
  hba="$(_services_psql_admin -c 'show hba_file')" || return 1
  line="host all \"$user\" 127.0.0.1/32 trust"
  if ! _services_as_postgres grep -qxF "$line" "$hba"; then
    _services_log "PostgreSQL: loopback TCP connections as role $user need no password from now on (first line of $hba)"
    _services_as_postgres sed -i "1i # Added by Broadside's scripts/services.sh: local connections for the developer's role.\\
$line" "$hba" || return 1
    _services_psql_admin -c 'select pg_reload_conf()' >/dev/null || return 1
  fi
  if ! _services_wait 5 _services_pg_can_create >/dev/null; then
    _services_log "PostgreSQL: role $user still cannot connect to $SERVICES_PG_HOST:$SERVICES_PG_PORT:"
    _services_psql -c 'select 1' >&2 || true
    return 1
  fi
}

_services_pg_url() {
  printf 'postgres://%s@%s:%s/%s\n' "$(_services_user)" "$SERVICES_PG_HOST" "$SERVICES_PG_PORT" "$1"
}

# Creates a new empty database named PREFIX_<time>_<pid> and prints its URL.
services_fresh_db() {
  local prefix name
  prefix="$(printf '%s' "${1:-broadside}" | tr '[:upper:]' '[:lower:]' | tr -c 'a-z0-9_' '_' | cut -c1-30)"
  name="${prefix}_$(date +%s_%N)_$$"
  printf 'create database %s;\n' ':"name"' | _services_psql -v name="$name" >/dev/null || return 1
  _services_log "PostgreSQL: created the database $name"
  _services_pg_url "$name"
}

# Prints the URL of the database NAME, created first if missing.
services_ensure_db() {
  local name="$1"
  if [ -z "$name" ]; then
    _services_log "services_ensure_db: a database name is needed"
    return 1
  fi
  if [ -z "$(printf 'select 1 from pg_database where datname = %s;\n' ":'name'" | _services_psql -v name="$name")" ]; then
    printf 'create database %s;\n' ':"name"' | _services_psql -v name="$name" >/dev/null || return 1
    _services_log "PostgreSQL: created the database $name"
  fi
  _services_pg_url "$name"
}

# Drops the database of a postgres:// URL (connecting with the URL's user,
# host and port to its server's maintenance database).
services_drop_db() {
  local url="$1" name
  name="${url##*/}"
  name="${name%%\?*}"
  case "$url" in
    postgres://*/* | postgresql://*/*) ;;
    *)
      _services_log "services_drop_db: not a postgres://.../NAME URL: $url"
      return 1
      ;;
  esac
  case "$name" in
    '' | postgres | template0 | template1)
      _services_log "services_drop_db: refusing to drop '$name'"
      return 1
      ;;
  esac
  printf 'drop database if exists %s with (force);\n' ':"name"' |
    PGCONNECT_TIMEOUT=3 psql -X -w -q -v ON_ERROR_STOP=1 -v name="$name" "${url%/*}/postgres" >/dev/null || return 1
  _services_log "PostgreSQL: dropped the database $name"
}

# ---------------------------------------------------------------------- NATS

# Prints the INFO line the NATS server on our port greets every client with.
_services_nats_info() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$SERVICES_NATS_PORT" || exit 1
    IFS= read -r -t 2 info <&3 || exit 1
    printf '%s\n' "$info"
  ) 2>/dev/null
}

_services_nats_jetstream() {
  case "$(_services_nats_info)" in
    INFO*'"jetstream":true'*) return 0 ;;
    *) return 1 ;;
  esac
}

# Makes nats-server with JetStream reachable on 127.0.0.1:4222.
services_nats() {
  local info bin state store log pidfile
  info="$(_services_nats_info)" || info=""
  case "$info" in
    INFO*'"jetstream":true'*) return 0 ;;
    INFO*)
      _services_log "NATS on 127.0.0.1:$SERVICES_NATS_PORT runs without JetStream: restart it with -js (or add 'jetstream {}' to its configuration)"
      return 1
      ;;
    '') ;;
    *)
      _services_log "127.0.0.1:$SERVICES_NATS_PORT answers, but not as a NATS server"
      return 1
      ;;
  esac
  if services_port_open 127.0.0.1 "$SERVICES_NATS_PORT"; then
    _services_log "127.0.0.1:$SERVICES_NATS_PORT accepts connections but does not greet like a NATS server"
    return 1
  fi

  if ! bin="$(_services_find nats-server)"; then
    _services_apt_install_no_start nats-server || return 1
    bin="$(_services_find nats-server)" || return 1
  fi
  if [ "$(id -u)" = 0 ]; then
    store=/var/lib/nats-server
    log=/var/log/nats-server.log
    pidfile=/run/nats-server-broadside.pid
  else
    state="${XDG_STATE_HOME:-$HOME/.local/state}/broadside/nats"
    store="$state/store"
    log="$state/nats-server.log"
    pidfile="$state/nats-server.pid"
  fi
  mkdir -p "$store" "$(dirname "$log")" "$(dirname "$pidfile")" || return 1
  _services_log "NATS: starting nats-server with JetStream on 127.0.0.1:$SERVICES_NATS_PORT (store $store, log $log)"
  # In its own session: a Ctrl-C in the terminal that started it does not stop it.
  if command -v start-stop-daemon >/dev/null 2>&1; then
    start-stop-daemon --start --quiet --oknodo --background --make-pidfile --pidfile "$pidfile" \
      --exec "$bin" -- -a 127.0.0.1 -p "$SERVICES_NATS_PORT" -js -sd "$store" -l "$log" || return 1
  else
    setsid -f "$bin" -a 127.0.0.1 -p "$SERVICES_NATS_PORT" -js -sd "$store" -l "$log" -P "$pidfile" \
      </dev/null >/dev/null 2>&1 || return 1
  fi
  if ! _services_wait 10 _services_nats_jetstream; then
    _services_log "NATS did not start (see $log)"
    return 1
  fi
}

# ------------------------------------------------------------------ promtool

# Installs Prometheus's promtool if missing (Debian ships it in the
# prometheus package, whose service is never started here) and prints its
# path: the tests check /metrics with `promtool check metrics`.
services_promtool_bin() {
  local bin
  if bin="$(_services_find promtool)"; then
    echo "$bin"
    return 0
  fi
  _services_apt_install_no_start prometheus || return 1
  _services_find promtool
}

# --------------------------------------------------------------------- nginx

# Installs nginx if missing (without starting the system's nginx service) and
# prints the path of its binary.
services_nginx_bin() {
  local bin
  if bin="$(_services_find nginx)"; then
    echo "$bin"
    return 0
  fi
  _services_apt_install_no_start nginx || return 1
  _services_find nginx
}

# Writes DIR/nginx.conf from scripts/nginx.conf.template.
_services_nginx_conf() {
  local dir="$1" listen="$2" servers="$3" template="$_services_dir/nginx.conf.template" nofile
  if [ ! -f "$template" ]; then
    _services_log "nginx: the template $template is missing"
    return 1
  fi
  nofile="$(ulimit -Hn)"
  case "$nofile" in
    unlimited | *[!0-9]* | '') nofile=65536 ;;
  esac
  if [ "$nofile" -gt 65536 ]; then
    nofile=65536
  fi
  (
    # Bash 5.2 would put the matched text in place of every & of a replacement.
    shopt -u patsub_replacement 2>/dev/null || true
    conf="$(cat "$template")"
    conf="${conf//@PREFIX@/$dir}"
    conf="${conf//@LISTEN@/$listen}"
    conf="${conf//@SERVERS@/$servers}"
    conf="${conf//@NOFILE@/$nofile}"
    conf="${conf//@CONNECTIONS@/$((nofile / 2))}"
    printf '%s\n' "$conf"
  ) >"$dir/nginx.conf"
}

# The pid of the nginx running from DIR (fails when none runs).
_services_nginx_pid() {
  local pid
  pid="$(cat "$1/nginx.pid" 2>/dev/null)" || return 1
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = nginx ] || return 1
  echo "$pid"
}

# services_nginx_start DIR LISTEN UPSTREAM...
# Runs nginx from DIR (config, pid file, logs and temporary files all there)
# as a load balancer on LISTEN (a port on 127.0.0.1, or ADDRESS:PORT) over the
# UPSTREAMs (ports on 127.0.0.1, or HOST:PORT), and waits until it answers.
# An nginx already running from DIR is stopped first.
services_nginx_start() {
  if [ "$#" -lt 3 ]; then
    _services_log "usage: services_nginx_start DIR LISTEN_PORT UPSTREAM_PORT..."
    return 1
  fi
  local dir="$1" listen="$2" bin upstream servers="" help flags=()
  shift 2
  bin="$(services_nginx_bin)" || return 1
  mkdir -p "$dir/tmp" || return 1
  dir="$(cd "$dir" && pwd)"
  case "$listen" in
    *:*) ;;
    *) listen="127.0.0.1:$listen" ;;
  esac
  for upstream in "$@"; do
    case "$upstream" in
      *:*) ;;
      *) upstream="127.0.0.1:$upstream" ;;
    esac
    servers="${servers:+$servers
}        server $upstream max_fails=1 fail_timeout=5s;"
  done
  services_nginx_stop "$dir" || return 1
  _services_nginx_conf "$dir" "$listen" "$servers" || return 1
  # -e (nginx 1.19.5 and later): errors before the configuration is read go
  # to our log too, not to the system's (unwritable for a user).
  help="$("$bin" -h 2>&1)" || true
  case "$help" in
    *"-e filename"*) flags=(-e "$dir/error.log") ;;
  esac
  if ! "$bin" -q -t -p "$dir/" -c "$dir/nginx.conf" "${flags[@]}" >&2; then
    _services_log "nginx: the configuration $dir/nginx.conf is refused"
    return 1
  fi
  if ! "$bin" -p "$dir/" -c "$dir/nginx.conf" "${flags[@]}" >&2; then
    _services_log "nginx did not start (see $dir/error.log)"
    return 1
  fi
  if ! _services_wait 10 services_port_open "${listen%:*}" "${listen##*:}"; then
    _services_log "nginx does not answer on $listen (see $dir/error.log)"
    return 1
  fi
  _services_log "nginx: http://$listen balances over $*"
}

_services_gone() {
  ! kill -0 "$1" 2>/dev/null
}

# Stops the nginx running from DIR: gracefully (open connections get up to the
# configuration's worker_shutdown_timeout of 5 s), then by force.
services_nginx_stop() {
  local dir="$1" pid
  pid="$(_services_nginx_pid "$dir")" || return 0
  kill -QUIT "$pid" 2>/dev/null || return 0
  if _services_wait 8 _services_gone "$pid"; then
    return 0
  fi
  _services_log "nginx ($pid) did not stop in time: killing it"
  kill -KILL "$pid" 2>/dev/null || true
}

# ---------------------------------------------------------------------------

_services_main() {
  set -euo pipefail
  case "${1:-}" in
    up)
      local nginx promtool
      services_postgres
      services_nats
      nginx="$(services_nginx_bin)"
      promtool="$(services_promtool_bin)"
      printf 'export BROADSIDE_PG_URL=%q\n' "$(_services_pg_url postgres)"
      printf 'export BROADSIDE_NATS_URL=%q\n' "nats://127.0.0.1:$SERVICES_NATS_PORT"
      printf 'export BROADSIDE_NGINX_BIN=%q\n' "$nginx"
      printf 'export BROADSIDE_PROMTOOL=%q\n' "$promtool"
      ;;
    postgres) services_postgres ;;
    nats) services_nats ;;
    nginx) services_nginx_bin ;;
    promtool) services_promtool_bin ;;
    fresh-db) services_fresh_db "${2:-broadside}" ;;
    ensure-db) services_ensure_db "${2:?a database name}" ;;
    drop-db) services_drop_db "${2:?a postgres:// URL}" ;;
    nginx-start)
      shift
      services_nginx_start "$@"
      ;;
    nginx-stop) services_nginx_stop "${2:?the nginx directory}" ;;
    *)
      sed -n '2,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
      return 2
      ;;
  esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  _services_main "$@"
fi
