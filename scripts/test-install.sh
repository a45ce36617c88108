#!/usr/bin/env bash
# make test-install: `make install` into a temporary prefix (the debug
# build, CONFIG=debug), then the installed program, run from another folder
# through PATH with a config file, archives the replica; `make uninstall`
# then leaves no file behind.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=$(swift build --show-bin-path)
work=$(mktemp -d)
replica_pid=""
cleanup() {
  if [ -n "$replica_pid" ]; then kill "$replica_pid" 2>/dev/null || true; wait "$replica_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "test-install: FAILED: $*" >&2; exit 1; }

prefix="$work/prefix"
make --no-print-directory install PREFIX="$prefix" CONFIG=debug >"$work/install.log" 2>&1 \
  || { cat "$work/install.log" >&2; fail "make install"; }
for file in $(./scripts/install.sh list); do
  [ -f "$prefix/$file" ] || fail "$file was not installed"
done
grep -q "_bbsarchive" "$prefix/share/zsh/site-functions/_bbsarchive" || fail "the zsh completion is empty"
grep -q "complete .*-F _bbsarchive bbsarchive" "$prefix/share/bash-completion/completions/bbsarchive" || fail "the bash completion is empty"
grep -q "complete -c .bbsarchive." "$prefix/share/fish/vendor_completions.d/bbsarchive.fish" || fail "the fish completion is empty"
grep -q '^\.Dt BBSARCHIVE 1' "$prefix/share/man/man1/bbsarchive.1" || fail "the man page is not one"

"$bin/smth-replica" --port 0 --seed 3 --sections 1 --boards 1 --threads 6 --posts 5 >"$work/replica.log" &
replica_pid=$!
url=""
# Up to 30 s: on a loaded machine (two builds beside it) the replica took longer than 10.
for _ in $(seq 1 300); do
  url=$(head -n 1 "$work/replica.log")
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || fail "the replica did not start"
board=$("$bin/smth-replica" --seed 3 --sections 1 --boards 1 --list-boards | head -n 1)

# Another folder, the installed program through PATH, no source checkout in sight.
mkdir "$work/daily"
cd "$work/daily"
version=$(PATH="$prefix/bin:$PATH" bbsarchive --version)
head=$(git -C "$root" rev-parse --short=12 HEAD)
case "$version" in
  "bbsarchive "*" (commit $head)" | "bbsarchive "*" (commit $head-dirty)") ;;
  *) fail "--version says '$version', not the checkout's commit $head" ;;
esac
PATH="$prefix/bin:$PATH" bbsarchive init "$board" --forum-url "$url" >/dev/null 2>&1 || fail "init"
PATH="$prefix/bin:$PATH" bbsarchive archive --rate 0 --quiet || fail "the installed program did not archive the replica"
[ -f site/index.html ] || fail "no site/index.html"
[ -f "site/board/$board/index.html" ] || fail "no board page"
[ -f site/assets/style.css ] || fail "the installed templates' assets were not copied"
cd "$root"

make --no-print-directory uninstall PREFIX="$prefix" >/dev/null
left=$(find "$prefix" -type f | wc -l)
[ "$left" -eq 0 ] || fail "make uninstall left $left file(s): $(find "$prefix" -type f | head -3)"
[ ! -d "$prefix/share/bbsarchive" ] || fail "make uninstall left share/bbsarchive"
echo "test-install: ok (installed, archived $board from another folder, uninstalled)"
