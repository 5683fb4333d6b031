#!/bin/sh
# Writes test/upgrade-corpus/<commit>-schema<N>.sqlite for each release named, with that release's own
# code: each commit is checked out beside this one, make-corpus.driver.ts runs there as one of its tests,
# and the worktree is removed. Run from the repository's root: test/upgrade-corpus/make-corpus.sh 0da9fc5 …
set -eu
root=$(pwd)
for commit in "$@"; do
  tree=$(mktemp -d)
  git worktree add --detach "$tree" "$commit" >/dev/null
  ln -s "$root/node_modules" "$tree/node_modules"
  cp "$root/test/upgrade-corpus/make-corpus.driver.ts" "$tree/test/flows/core/make-corpus.test.ts"
  version=$(cd "$tree" && node --import tsx -e "import('./src/store/migrations.ts').then((m) => console.log(m.latestSchemaVersion))")
  out="$root/test/upgrade-corpus/$(git rev-parse --short=7 "$commit")-schema$version.sqlite"
  rm -f "$out"
  (cd "$tree" && HOLDFAST_CORPUS_OUT="$out" npx vitest run test/flows/core/make-corpus.test.ts >/dev/null)
  git worktree remove --force "$tree"
  echo "wrote $out"
done
