#!/usr/bin/env bash
# Make PostgreSQL (15 by default) with the pgvector extension available on this
# Debian machine, create the memstack test database with `vector` enabled in it,
# and print the connection settings as shell `export` lines:
#
#   eval "$(scripts/pgvector-setup.sh)"
#
# stdout carries ONLY the export lines; all progress and errors go to stderr.
# Idempotent: a second run only checks the server, the extension files and the
# database, and takes a second or two.
#
# pgvector is not packaged for PostgreSQL 15 on Debian bookworm, so the first
# run builds it from Debian trixie's source package (deb-src only: no trixie
# binary package is ever installed) against postgresql-server-dev-15.
#
# Environment overrides (all optional):
#   MEMSTACK_PG_VERSION  PostgreSQL major version      (default: 15)
#   MEMSTACK_PG_HOST     host to connect to            (default: 127.0.0.1)
#   MEMSTACK_PG_PORT     port                          (default: 5432)
#   MEMSTACK_PG_USER     superuser to connect as       (default: postgres)
#   MEMSTACK_PG_DB       database to create / use      (default: memstack_test)
#   MEMSTACK_PG_CLUSTER  Debian cluster name to start if the server is down
#                                                      (default: main)
#   MEMSTACK_PGVECTOR_VERBOSE=1  show apt/make output instead of hiding it in a log
set -euo pipefail

# Keep the real stdout on fd 3 for the export lines; everything else -> stderr.
exec 3>&1 1>&2

PGV="${MEMSTACK_PG_VERSION:-15}"
PG_HOST="${MEMSTACK_PG_HOST:-127.0.0.1}"
PG_PORT="${MEMSTACK_PG_PORT:-5432}"
PG_USER="${MEMSTACK_PG_USER:-postgres}"
PG_DB="${MEMSTACK_PG_DB:-memstack_test}"
PG_CLUSTER="${MEMSTACK_PG_CLUSTER:-main}"
VERBOSE="${MEMSTACK_PGVECTOR_VERBOSE:-0}"

PG_BIN="/usr/lib/postgresql/${PGV}/bin"
PG_CONFIG="${PG_BIN}/pg_config"
SRC_LIST="/etc/apt/sources.list.d/memstack-trixie-src.sources"
LOCK_FILE="/var/lock/memstack-pgvector-setup.lock"

export DEBIAN_FRONTEND=noninteractive

log() { printf 'pgvector-setup: %s\n' "$*" >&2; }
die() { printf 'pgvector-setup: ERROR: %s\n' "$*" >&2; exit 1; }

WORK_DIR=""
LOG_FILE=""
cleanup() {
  local rc=$?
  if [[ -n "$WORK_DIR" && -d "$WORK_DIR" ]]; then
    if [[ $rc -eq 0 ]]; then
      rm -rf "$WORK_DIR"
    else
      log "build directory and full log kept in $WORK_DIR"
    fi
  fi
}
trap cleanup EXIT

# run DESCRIPTION CMD...: run quietly, logging to $LOG_FILE; on failure show the
# tail of the log and abort with a clear message.
run() {
  local what="$1"; shift
  if [[ "$VERBOSE" == "1" || -z "$LOG_FILE" ]]; then
    "$@" || die "$what failed (command: $*)"
    return 0
  fi
  printf '\n### %s: %s\n' "$what" "$*" >>"$LOG_FILE"
  if ! "$@" >>"$LOG_FILE" 2>&1; then
    log "---- last lines of $LOG_FILE ----"
    tail -n 40 "$LOG_FILE" >&2 || true
    log "----"
    die "$what failed (command: $*)"
  fi
}

psql_q() {
  # psql_q DB SQL  -> unaligned, tuples-only, no psqlrc, stop on error,
  # no NOTICEs ("extension already exists, skipping") on the happy path.
  PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" "${PSQL}" -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d "$1" \
    -X -q -A -t -v ON_ERROR_STOP=1 -c "$2"
}

# ---------------------------------------------------------------------------
# 1. PostgreSQL server up?
# ---------------------------------------------------------------------------
[[ -d "$PG_BIN" ]] || die "PostgreSQL ${PGV} is not installed ($PG_BIN missing); install postgresql-${PGV} first"
PSQL="${PG_BIN}/psql"
PG_ISREADY="${PG_BIN}/pg_isready"
[[ -x "$PSQL" ]] || PSQL="$(command -v psql)" || die "psql not found"
[[ -x "$PG_ISREADY" ]] || PG_ISREADY="$(command -v pg_isready)" || die "pg_isready not found"

is_ready() { "$PG_ISREADY" -q -h "$PG_HOST" -p "$PG_PORT" >/dev/null 2>&1; }

if ! is_ready; then
  if [[ "$PG_HOST" != "127.0.0.1" && "$PG_HOST" != "localhost" ]]; then
    die "PostgreSQL at $PG_HOST:$PG_PORT is not accepting connections"
  fi
  command -v pg_ctlcluster >/dev/null || die "PostgreSQL is not running and pg_ctlcluster is missing"
  [[ -d "/etc/postgresql/${PGV}/${PG_CLUSTER}" ]] \
    || die "PostgreSQL is not running and cluster ${PGV}/${PG_CLUSTER} does not exist (/etc/postgresql/${PGV}/${PG_CLUSTER})"
  log "starting PostgreSQL cluster ${PGV}/${PG_CLUSTER}"
  # An already-running cluster on another port makes `start` exit 2; tolerate
  # that and rely on the readiness wait below for the verdict.
  pg_ctlcluster --skip-systemctl-redirect "$PGV" "$PG_CLUSTER" start >&2 || true
  for _ in $(seq 1 60); do
    is_ready && break
    sleep 0.5
  done
  is_ready || die "PostgreSQL ${PGV}/${PG_CLUSTER} did not become ready on $PG_HOST:$PG_PORT (see /var/log/postgresql/postgresql-${PGV}-${PG_CLUSTER}.log)"
fi

# ---------------------------------------------------------------------------
# 2. pgvector files installed? If not, build from trixie's source package.
# ---------------------------------------------------------------------------
if [[ -x "$PG_CONFIG" ]]; then
  SHAREDIR="$("$PG_CONFIG" --sharedir)"
else
  SHAREDIR="/usr/share/postgresql/${PGV}"
fi

if [[ ! -f "${SHAREDIR}/extension/vector.control" ]]; then
  [[ $EUID -eq 0 ]] || die "pgvector is not installed for PostgreSQL ${PGV} and building it needs root (re-run as root)"

  # Serialise concurrent runs (two CI jobs / developers at once).
  exec 9>"$LOCK_FILE"
  flock 9
fi

# Re-check under the lock: another run may have just installed it.
if [[ ! -f "${SHAREDIR}/extension/vector.control" ]]; then
  START=$SECONDS
  WORK_DIR="$(mktemp -d /tmp/memstack-pgvector.XXXXXX)"
  LOG_FILE="$WORK_DIR/build.log"
  : >"$LOG_FILE"
  log "pgvector not found for PostgreSQL ${PGV}; building it from Debian source (log: $LOG_FILE)"

  # 2a. Build dependencies (from the machine's own bookworm sources).
  need_pkgs=()
  for p in "postgresql-server-dev-${PGV}" build-essential dpkg-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || need_pkgs+=("$p")
  done
  if ((${#need_pkgs[@]})); then
    # Use the existing package lists if they know the packages; otherwise (or if
    # the install fails on stale lists) refresh all lists once and retry.
    have_lists=1
    for p in "${need_pkgs[@]}"; do
      cand="$(apt-cache policy "$p" 2>/dev/null | awk '/Candidate:/ {print $2}')"
      [[ -n "$cand" && "$cand" != "(none)" ]] || have_lists=0
    done
    if [[ $have_lists -eq 0 ]]; then
      run "apt-get update" apt-get update
    fi
    log "installing ${need_pkgs[*]}"
    printf '\n### apt-get install %s\n' "${need_pkgs[*]}" >>"$LOG_FILE"
    if ! apt-get install -y --no-install-recommends "${need_pkgs[@]}" >>"$LOG_FILE" 2>&1; then
      log "apt-get install failed; refreshing package lists and retrying"
      run "apt-get update" apt-get update
      run "apt-get install ${need_pkgs[*]}" apt-get install -y --no-install-recommends "${need_pkgs[@]}"
    fi
  fi
  [[ -x "$PG_CONFIG" ]] || die "$PG_CONFIG missing after installing postgresql-server-dev-${PGV}"
  SHAREDIR="$("$PG_CONFIG" --sharedir)"

  # 2b. Trixie *source* index only. deb822 format, like the machine's own
  # debian.sources; Types: deb-src so no trixie binary can ever be installed.
  if [[ ! -f "$SRC_LIST" ]]; then
    cat >"$SRC_LIST" <<'EOF'
# Added by memstack scripts/pgvector-setup.sh: Debian trixie SOURCE packages only
# (used to build pgvector for PostgreSQL 15 on bookworm). No binary packages.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  fi
  # Refresh only that one source (cheap), keeping every other list as it is.
  run "apt-get update (trixie deb-src only)" apt-get update \
    -o Dir::Etc::SourceList="$SRC_LIST" \
    -o Dir::Etc::SourceParts=/nonexistent \
    -o APT::Get::List-Cleanup=0

  # 2c. Fetch, build, install.
  mkdir -p "$WORK_DIR/src"
  (cd "$WORK_DIR/src" && run "apt-get source pgvector" apt-get source -q pgvector)
  SRC_DIR="$(find "$WORK_DIR/src" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)"
  [[ -n "$SRC_DIR" && -f "$SRC_DIR/Makefile" ]] || die "pgvector source tree not found after apt-get source (see $LOG_FILE)"
  log "building $(basename "$SRC_DIR")"
  # OPTFLAGS="" avoids -march=native, so the library runs on any x86-64 host
  # this machine image may be moved to.
  run "make pgvector" make -C "$SRC_DIR" -j"$(nproc)" PG_CONFIG="$PG_CONFIG" OPTFLAGS=""
  run "make install pgvector" make -C "$SRC_DIR" install PG_CONFIG="$PG_CONFIG" OPTFLAGS=""
  [[ -f "${SHAREDIR}/extension/vector.control" ]] || die "make install did not produce ${SHAREDIR}/extension/vector.control"
  log "pgvector installed in $((SECONDS - START)) s"
fi

# ---------------------------------------------------------------------------
# 3. Database + extension.
# ---------------------------------------------------------------------------
[[ "$PG_DB" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "MEMSTACK_PG_DB must be a plain identifier, got '$PG_DB'"

psql_q postgres "select 1" >/dev/null \
  || die "cannot connect to PostgreSQL at $PG_HOST:$PG_PORT as $PG_USER"

if [[ "$(psql_q postgres "select 1 from pg_database where datname = '$PG_DB'")" != "1" ]]; then
  log "creating database $PG_DB"
  # Tolerate a concurrent creator: re-check after a failed CREATE.
  psql_q postgres "create database \"$PG_DB\" owner postgres" \
    || [[ "$(psql_q postgres "select 1 from pg_database where datname = '$PG_DB'")" == "1" ]] \
    || die "could not create database $PG_DB"
fi

psql_q "$PG_DB" "create extension if not exists vector" \
  || die "could not create extension vector in database $PG_DB"
# Bring an extension created by an older pgvector build up to the installed one.
psql_q "$PG_DB" "alter extension vector update" >/dev/null 2>&1 || true

VER="$(psql_q "$PG_DB" "select extversion from pg_extension where extname = 'vector'")"
[[ -n "$VER" ]] || die "extension vector is not present in $PG_DB after CREATE EXTENSION"
[[ "$VERBOSE" == "1" ]] && log "pgvector $VER ready in $PG_DB"

# ---------------------------------------------------------------------------
# 4. Result, on the real stdout only.
# ---------------------------------------------------------------------------
{
  printf 'export MEMSTACK_PG_URL=%q\n' "jdbc:postgresql://${PG_HOST}:${PG_PORT}/${PG_DB}"
  printf 'export MEMSTACK_PG_USER=%q\n' "$PG_USER"
  printf 'export MEMSTACK_PG_PASSWORD=%q\n' ""
} >&3
