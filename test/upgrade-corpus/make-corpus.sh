#!/bin/sh
# Writes test/upgrade-corpus/<commit>-schema<N>.sqlite for each release named, with that release's own
# code: each commit is checked out beside this one, make-corpus.driver.ts runs there as one of its tests,
# and the worktree is removed. Run from the repository's root: test/upgrade-corpus/make-corpus.sh 0da9fc5 …
#
# With --postgres first, writes <commit>-schema<N>.postgres.sql instead: the release's PostgreSQL store
# writes the same scenario into a database of its own on a throwaway server (scripts/with-postgres.sh,
# started here unless HOLDFAST_TEST_POSTGRES_URL names one already), and the driver dumps it with pg_dump.
#   test/upgrade-corpus/make-corpus.sh --postgres 0da9fc5 …
set -eu
root=$(pwd)
engine=sqlite
if [ "${1:-}" = "--postgres" ]; then
  engine=postgres
  shift
  if [ -z "${HOLDFAST_TEST_POSTGRES_URL:-}" ]; then
    exec "$root/scripts/with-postgres.sh" "$0" --postgres "$@"
  fi
fi
for commit in "$@"; do
  short=$(git rev-parse --short=7 "$commit")
  tree=$(mktemp -d)
  git worktree add --detach "$tree" "$commit" >/dev/null
  ln -s "$root/node_modules" "$tree/node_modules"
  cp "$root/test/upgrade-corpus/make-corpus.driver.ts" "$tree/test/flows/core/make-corpus.test.ts"
  version=$(cd "$tree" && node --import tsx -e "import('./src/store/migrations.ts').then((m) => console.log(m.latestSchemaVersion))")
  if [ "$engine" = "postgres" ]; then
    out="$root/test/upgrade-corpus/$short-schema$version.postgres.sql"
    database="holdfast_corpus_$short"
    psql --quiet --dbname="$HOLDFAST_TEST_POSTGRES_URL" -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database"
    url=$(node -e "const u = new URL(process.argv[1]); u.pathname = '/' + process.argv[2]; console.log(u.toString())" \
      "$HOLDFAST_TEST_POSTGRES_URL" "$database")
    rm -f "$out"
    (cd "$tree" && HOLDFAST_CORPUS_OUT="$out" HOLDFAST_CORPUS_POSTGRES_URL="$url" \
      npx vitest run test/flows/core/make-corpus.test.ts >/dev/null)
    psql --quiet --dbname="$HOLDFAST_TEST_POSTGRES_URL" -c "DROP DATABASE $database WITH (FORCE)"
  else
    out="$root/test/upgrade-corpus/$short-schema$version.sqlite"
    rm -f "$out"
    (cd "$tree" && HOLDFAST_CORPUS_OUT="$out" npx vitest run test/flows/core/make-corpus.test.ts >/dev/null)
  fi
  git worktree remove --force "$tree"
  echo "wrote $out"
done
