#!/usr/bin/env bash
# make demo: serve the SMTH replica on loopback, archive every board it has,
# write site/, stop the replica, and say which file to open.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=$(swift build --show-bin-path)
store=demo.sqlite
out=site
seed=${SEED:-1}
log=$(mktemp)
replica_pid=""
cleanup() {
  if [ -n "$replica_pid" ]; then kill "$replica_pid" 2>/dev/null || true; wait "$replica_pid" 2>/dev/null || true; fi
  rm -f "$log"
}
trap cleanup EXIT

# Start afresh: the replica's forum is generated as of now, so an old demo
# store would hold a forum from another day.
rm -f "$store" "$store-wal" "$store-shm"
find "$out" -mindepth 1 ! -name README.md -exec rm -rf {} +

"$bin/smth-replica" --port 0 --seed "$seed" --photos >"$log" &
replica_pid=$!
url=""
for _ in $(seq 1 100); do
  url=$(head -n 1 "$log")
  [ -n "$url" ] && break
  kill -0 "$replica_pid" 2>/dev/null || { echo "demo: the replica did not start" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "demo: the replica did not print its address" >&2; exit 1; }
echo "demo: SMTH replica serving at $url"

mapfile -t boards < <("$bin/smth-replica" --seed "$seed" --list-boards)
boards+=(Photos) # large and tall images, served with --photos
echo "demo: archiving ${boards[*]}"
# A loopback replica can take more than the 1 request a second a real forum gets.
"$bin/bbsarchive" archive "${boards[@]}" --forum-url "$url" --store "$store" --out "$out" --rate 200

echo "demo: done. Open $(pwd)/$out/index.html in a browser."
