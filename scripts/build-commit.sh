#!/bin/sh
# Writes Sources/CBuildInfo/commit.h, the commit `bbsarchive --version`
# names: the checkout's, with -dirty when it has uncommitted changes.
# Every make target that builds runs it first (through setup-core). It
# rewrites the header only when the commit changed, so that an unchanged
# checkout does not relink; clang's dependency files then recompile
# BuildInfo.c. (A define in Package.swift went stale: SwiftPM keeps its
# build description, with the old define, until the manifest's text or the
# target's files change, so --version named an earlier commit.)
set -eu
cd "$(dirname "$0")/.."
header=Sources/CBuildInfo/commit.h
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && [ -n "$(git status --porcelain 2>/dev/null)" ]; then
  commit="$commit-dirty"
fi
line="#define BBSARCHIVE_COMMIT \"$commit\""
if [ ! -f "$header" ] || [ "$(cat "$header")" != "$line" ]; then
  printf '%s\n' "$line" >"$header.tmp"
  mv "$header.tmp" "$header"
  # A build made before the header existed did not list it as a dependency.
  touch Sources/CBuildInfo/BuildInfo.c
fi
