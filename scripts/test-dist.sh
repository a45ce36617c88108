#!/usr/bin/env bash
# make test-dist: the dist archive's binary links no Swift runtime or
# Foundation library, runs from the unpacked folder and finds its templates.
set -euo pipefail
cd "$(dirname "$0")/.."
archive=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "test-dist: FAILED: $*" >&2; exit 1; }

tar -C "$work" -xzf "$archive"
folder=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n 1)
binary="$folder/bin/bbsarchive"
[ -x "$binary" ] || fail "no bin/bbsarchive in $archive"
for file in share/bbsarchive/templates/home.mustache share/man/man1/bbsarchive.1 \
  share/bash-completion/completions/bbsarchive share/zsh/site-functions/_bbsarchive \
  share/fish/vendor_completions.d/bbsarchive.fish README.md; do
  [ -f "$folder/$file" ] || fail "$file is missing from $archive"
done
if ldd "$binary" | grep -E 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime'; then
  fail "the binary links the Swift runtime dynamically"
fi
ldd "$binary" | grep -q 'not found' && fail "the binary misses a library: $(ldd "$binary" | grep 'not found')"
"$binary" --version | grep -q "^bbsarchive " || fail "--version"
# The templates are found beside the binary, from any folder.
cd "$work"
"$binary" build --store nothing.sqlite 2>&1 | grep -q "there is no store" || fail "build did not run"
echo "test-dist: ok ($(du -h "$binary" | cut -f1) binary; links: $(ldd "$binary" | awk '{print $1}' | tr '\n' ' '))"
