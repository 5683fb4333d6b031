#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL cluster: initdb into a temporary folder, pg_ctl on a free
# loopback port, HOLDFAST_TEST_POSTGRES_URL exported for the command, the cluster stopped and removed at
# the end whatever happens. Nothing outside the temporary folder is touched.
#   scripts/with-postgres.sh npx vitest run --config vitest.postgres.config.ts
set -euo pipefail

find_bin() {
  local name=$1
  if command -v "$name" >/dev/null 2>&1; then
    command -v "$name"
    return 0
  fi
  local candidate
  for candidate in /usr/lib/postgresql/*/bin/"$name"; do
    if [ -x "$candidate" ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

if ! find_bin initdb >/dev/null; then
  if [ "${CI:-}" = "true" ] && command -v apt-get >/dev/null 2>&1; then
    echo "PostgreSQL not found: installing the Debian package postgresql" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  else
    echo "initdb not found: install PostgreSQL (Debian: apt-get install postgresql) and retry" >&2
    exit 1
  fi
fi
initdb_bin=$(find_bin initdb)
pg_ctl_bin=$(find_bin pg_ctl)

# initdb refuses to run as root: the cluster then belongs to an unprivileged user.
run_as=()
if [ "$(id -u)" = "0" ]; then
  user=postgres
  if ! id "$user" >/dev/null 2>&1; then
    user=holdfast-pg
    id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
  fi
  run_as=(runuser -u "$user" --)
fi

workdir=$(mktemp -d "${TMPDIR:-/tmp}/holdfast-pg.XXXXXX")
chmod 755 "$workdir"
[ ${#run_as[@]} -eq 0 ] || chown "$user" "$workdir"

stop() {
  "${run_as[@]}" "$pg_ctl_bin" -D "$workdir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$workdir"
}
trap stop EXIT INT TERM

port=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
password=$(node -e "console.log(require('crypto').randomBytes(12).toString('hex'))")
printf '%s\n' "$password" >"$workdir/pwfile"
[ ${#run_as[@]} -eq 0 ] || chown "$user" "$workdir/pwfile"

"${run_as[@]}" "$initdb_bin" -D "$workdir/data" -U holdfast --pwfile="$workdir/pwfile" \
  --auth=scram-sha-256 --encoding=UTF8 --no-locale >"$workdir/initdb.log" 2>&1 ||
  { cat "$workdir/initdb.log" >&2; exit 1; }
# A throwaway cluster: durability off, enough connections for several replicas and parallel test files.
"${run_as[@]}" "$pg_ctl_bin" -D "$workdir/data" -l "$workdir/server.log" -w \
  -o "-p $port -k $workdir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start >/dev/null ||
  { cat "$workdir/server.log" >&2; exit 1; }

export HOLDFAST_TEST_POSTGRES_URL="postgres://holdfast:$password@127.0.0.1:$port/postgres"
set +e
"$@"
status=$?
set -e
exit $status
