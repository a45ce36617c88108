#!/usr/bin/env bash
# Thumbnail libraries side by side (issue 11): libvips (what the build uses),
# ImageMagick's MagickWand and gdk-pixbuf, each in its own process, on the
# same images, made 480 px wide as JPEG. Prints per library: images, total
# and per-image milliseconds, peak RSS (KB), bytes written.
#
#   scripts/bench/thumbnails.sh [IMAGE...]
#
# Without images it takes the replica's Photos board (ten 1200×900 photos, a
# 600×3600 screenshot, a 320×240 image), fetched from a `smth-replica
# --photos` it starts on loopback and stops. Needs libvips-dev,
# libmagickwand-6.q16-dev, libgdk-pixbuf-2.0-dev and curl (`make
# bench-thumbnails` installs them and runs this).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
replica_pid=""
cleanup() {
  if [ -n "$replica_pid" ]; then kill "$replica_pid" 2>/dev/null || true; wait "$replica_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
if [ $# -eq 0 ]; then
  bin=$(cd "$here/../.." && swift build --show-bin-path)
  "$bin/smth-replica" --port 0 --photos >"$work/replica.log" &
  replica_pid=$!
  url=""
  for _ in $(seq 1 100); do url=$(head -n 1 "$work/replica.log"); [ -n "$url" ] && break; sleep 0.1; done
  [ -n "$url" ] || { echo "thumbnails: the replica did not start" >&2; exit 1; }
  mkdir "$work/replica"
  for att in 1/1 1/2 1/3 1/4 1/5 1/6 1/7 1/8 1/9 1/10 2/1 2/2; do
    curl -sf "$url/att/Photos/$att" -o "$work/replica/${att/\//-}.png"
  done
  set -- "$work"/replica/*.png
fi
cc -O2 -DUSE_VIPS -o "$work/vips" "$here/thumbnails.c" $(pkg-config --cflags --libs vips)
cc -O2 -DUSE_MAGICK -o "$work/magick" "$here/thumbnails.c" $(pkg-config --cflags --libs MagickWand)
cc -O2 -DUSE_PIXBUF -o "$work/pixbuf" "$here/thumbnails.c" $(pkg-config --cflags --libs gdk-pixbuf-2.0 gio-2.0)
# The same pictures as camera JPEGs too (quality 90, scaled to about
# 4000 px wide): what a forum mostly gets, and where libvips can shrink on load.
mkdir "$work/jpeg"
"$work/vips" --jpeg-copies "$work/jpeg" "${SCALE:-3.33}" "$@"
printf 'library\timages\ttotal ms\tms/image\tpeak RSS KB\tbytes out\n'
for run in vips magick pixbuf; do
  # Single-threaded, as the build calls it (it renders on every core itself).
  printf 'originals as given: '
  OMP_NUM_THREADS=1 MAGICK_THREAD_LIMIT=1 "$work/$run" "$@"
done
for run in vips magick pixbuf; do
  printf 'camera JPEGs:        '
  OMP_NUM_THREADS=1 MAGICK_THREAD_LIMIT=1 "$work/$run" "$work"/jpeg/*.jpg
done
