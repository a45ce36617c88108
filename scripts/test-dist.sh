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
links=$(ldd "$binary")
case "$links" in *"not found"*) fail "the binary misses a library: $links" ;; esac
version=$("$binary" --version)
case "$version" in "bbsarchive "*" (commit "*) ;; *) fail "--version says: $version" ;; esac
# From another folder, the templates are found in ../share/bbsarchive/templates.
cd "$work"
touch empty.sqlite
"$binary" build --store empty.sqlite --out site --quiet || fail "build did not run"
[ -f site/index.html ] && [ -f site/assets/style.css ] || fail "build wrote no site"
echo "test-dist: ok ($version; $(du -h "$binary" | cut -f1) binary; links: $(echo "$links" | awk '{print $1}' | tr '\n' ' '))"
