#!/usr/bin/env bash
# make fuzz: libFuzzer over the parsers and text readers, FUZZ_SECONDS each.
#
# Targets: mobile and nforum (whole pages through the sources), splitter
# (PostText.split and the normalizer), inline (UBB, ANSI and autolinks as
# rendered), robots (robots.txt), search (the index's text and terms:
# each fast reading against its plain one), serve (a request to the
# preview server: never a file outside the folder, never a redirect to
# another host, never a broken header line), pdf (what a PDF attachment can
# do, PDFActions), image (an image's size read from its PNG or JPEG header,
# ImageHeader). Seeds: the real captures in
# ../shared/fixtures/smth (read in place, never copied), pages of the
# replica (fetched into .build-fuzz/seeds) and a few hand-written lines.
# The time is fixed inside the targets. Any crash, leak (LeakSanitizer),
# timeout (FUZZ_TIMEOUT s for one input) or memory blow-up fails the run;
# the input that did it is left in .build-fuzz/findings/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
timeout=${FUZZ_TIMEOUT:-10}
targets=${FUZZ_TARGETS:-mobile nforum splitter inline robots search serve pdf image}
fixtures=../shared/fixtures/smth
work=.build-fuzz
seeds=$work/seeds

echo "fuzz: building the targets (libFuzzer + AddressSanitizer)"
mkdir -p "$work"
# SwiftPM hands swiftc the two sanitizers as two flags, and swiftc keeps
# only the last (address): the Swift code then has no coverage counters
# and libFuzzer mutates blindly. The -Xswiftc flag comes after them.
BBSARCHIVE_FUZZ=1 swift build --scratch-path "$work" --product bbsarchive-fuzz \
  --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address \
  >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; exit 1; }
fuzzer=$(BBSARCHIVE_FUZZ=1 swift build --scratch-path "$work" --show-bin-path)/bbsarchive-fuzz
# The parsers alone give tens of thousands of counters; a few thousand
# means that only the C code and the entry point were instrumented.
counters=$(BBS_FUZZ_TARGET=robots "$fuzzer" -runs=0 2>&1 | sed -n 's/.*(\([0-9]*\) inline 8-bit counters).*/\1/p' | head -n 1) || true
if [ "${counters:-0}" -lt 50000 ]; then
  echo "fuzz: the targets have ${counters:-no} coverage counters (expected tens of thousands): the Swift code is not instrumented" >&2
  exit 1
fi

# Replica pages as seeds, from the ordinary build of the replica.
if [ ! -d "$seeds/mobile" ] || [ ! -d "$seeds/serve" ]; then
  echo "fuzz: fetching replica pages as seeds"
  swift build --product smth-replica >/dev/null
  replica="$(swift build --show-bin-path)/smth-replica"
  mkdir -p "$seeds"/{mobile,nforum,splitter,inline,robots,search,serve}
  log=$(mktemp)
  "$replica" --port 0 --seed 5 --sections 1 --boards 1 --threads 12 --posts 14 --hostile >"$log" &
  replica_pid=$!
  trap 'kill "$replica_pid" 2>/dev/null || true; wait "$replica_pid" 2>/dev/null || true; rm -f "$log"' EXIT
  url=""
  for _ in $(seq 1 100); do
    url=$(head -n 1 "$log")
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || { echo "fuzz: the replica did not start" >&2; exit 1; }
  board=$("$replica" --seed 5 --sections 1 --boards 1 --list-boards | head -n 1)
  curl -sf "$url/board/$board" -o "$seeds/mobile/board.html"
  gid=$(grep -o "/article/$board/[0-9]*" "$seeds/mobile/board.html" | head -n 1 | cut -d/ -f4)
  curl -sf "$url/article/$board/$gid" -o "$seeds/mobile/thread.html"
  curl -sf "$url/board/Hostile" -o "$seeds/mobile/hostile-board.html"
  for n in 1 2 3 4 5; do curl -sf "$url/article/Hostile/$n" -o "$seeds/mobile/hostile-$n.html"; done
  curl -sf "$url/nForum/board/$board?ajax" -o "$seeds/nforum/board.html"
  curl -sf "$url/nForum/article/$board/$gid?ajax" -o "$seeds/nforum/thread.html"
  curl -sf "$url/nForum/section/0?ajax" -o "$seeds/nforum/section.html" || true
  kill "$replica_pid"; wait "$replica_pid" 2>/dev/null || true
  trap - EXIT
  rm -f "$log"
  printf '发信人: a (昵称), 信区: Test\n标  题: 标题\n发信站: 水木社区 (Fri Mar 25 11:52:04 2016), 站内\n\n正文\n【 在 b 的大作中提到: 】\n: 引文\n--\n签名\n※ 修改:·a 于 Mar 29 09:43:17 2016 修改本文·[FROM: 1.2.3.*]\n※ 来源:·水木社区 http://www.newsmth.net·[FROM: 1.2.3.*]\n' >"$seeds/splitter/post.txt"
  printf '[b]粗[/b] [url=http://a.example/]链接[/url] [color=red]红[/color] \033[1;31m色\033[m www.b.cn [em01] [img=http://c.example/x.png][/img]\n' >"$seeds/inline/ubb.txt"
  printf 'ΟΔΟΣ ＧＰＳ iPhone 清华\u0301 e\xcc\x81 ﬁ ㈱ ｶﾞ 👍🏻 \xe3\x80\x80\n: 引文\n【 在 a 的大作中提到: 】\n\x01--\n签名\n' >"$seeds/search/text.txt"
  printf 'board:Test author:"a b" after:2025-1-2 before:2025-13-01 "清华 大学" -x\n' >"$seeds/search/query.txt"
  printf 'GET /board/B/1.html HTTP/1.1\r\nHost: a\r\nRange: bytes=2-\r\nConnection: keep-alive\r\n\r\n' >"$seeds/serve/get.txt"
  printf 'HEAD //board/B?q=1 HTTP/1.0\nConnection: close\n\n' >"$seeds/serve/redirect.txt"
  printf 'GET http://h/up/secret/%%2e%%2e/self/etc/passwd HTTP/1.1\r\nRange: bytes=-5\r\n\r\n' >"$seeds/serve/escape.txt"
  printf 'User-agent: *\nDisallow: /nForum/\nAllow: /nForum/article/*$\nCrawl-delay: 2\n\nUser-agent: bbsarchive\nDisallow: /a*b$\n' >"$seeds/robots/robots.txt"
fi

# PDFs: one plain, one whose catalog sits in a deflated object stream
# behind a PNG predictor, one that opens with a script.
if [ ! -d "$seeds/pdf" ]; then
  mkdir -p "$seeds/pdf"
  python3 - "$seeds/pdf" <<'PY'
import sys, zlib
folder = sys.argv[1]
def document(objects):
    out = b"%PDF-1.7\n"
    for number, body in objects:
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    return out + b"trailer\n<< /Root 1 0 R >>\n%%EOF\n"
def stream(dictionary, data):
    return b"<< " + dictionary + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"
pages = [(2, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
         (3, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 99 99] /Contents 5 0 R >>"),
         (5, stream(b"", b"BT /F1 9 Tf (x) Tj ET"))]
open(folder + "/plain.pdf", "wb").write(document([(1, b"<< /Type /Catalog /Pages 2 0 R /OpenAction [3 0 R /Fit] >>")] + pages))
catalog = b"<< /Type /Catalog /Pages 2 0 R /OpenAction 6 0 R >>\n"
inner = catalog + b"[3 0 R /Fit]\n"
header = b"1 0 6 %d " % len(catalog)
raw, previous, rows = header + inner, bytes(8), b""
for start in range(0, len(raw), 8):
    row = raw[start:start + 8].ljust(8, b"\0")
    rows += b"\x02" + bytes((a - b) & 255 for a, b in zip(row, previous))
    previous = row
objstm = stream(b"/Type /ObjStm /N 2 /First %d /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 8 >>" % len(header), zlib.compress(rows))
open(folder + "/objstm.pdf", "wb").write(document([(9, objstm)] + pages))
open(folder + "/script.pdf", "wb").write(document([(1, b"<< /Type /Catalog /Pages 2 0 R /OpenAction 4 0 R >>"), (4, b"<< /S /J#61vaScript /J#53 (app.alert\\(7\\)) >>")] + pages))
PY
fi

# Images: a PNG with a tRNS chunk, a baseline JPEG's header.
if [ ! -d "$seeds/image" ]; then
  mkdir -p "$seeds/image"
  python3 - "$seeds/image" <<'PY'
import struct, sys, zlib
folder = sys.argv[1]
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
rows = b"".join(b"\0" + bytes(range(12)) for _ in range(4))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) \
    + chunk(b"tRNS", b"\0\1\0\2\0\3") + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
open(folder + "/rgb.png", "wb").write(png)
sof = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, 9, 16, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
open(folder + "/baseline.jpg", "wb").write(b"\xff\xd8\xff\xe0\x00\x04JF" + sof + b"\xff\xd9")
PY
fi

mkdir -p "$work/corpus" "$work/findings"
failed=""
for target in $targets; do
  corpus="$work/corpus/$target"
  findings="$work/findings/$target"
  mkdir -p "$corpus" "$findings"
  case $target in
    mobile) extra=("$seeds/mobile" "$fixtures/mobile") ;;
    nforum) extra=("$seeds/nforum" "$fixtures/nforum") ;;
    splitter | inline | search) extra=("$seeds/$target" "$fixtures/nforum") ;;
    *) extra=("$seeds/$target") ;;
  esac
  # Whole pages for the parsers; search compares two readings of every
  # input, each slow on a page, so it gets post-sized inputs and more runs.
  max_len=262144
  [ "$target" = search ] && max_len=8192
  echo "fuzz: $target for ${seconds}s"
  # Swift's own backtracer is off so that libFuzzer sees the crash and keeps the input.
  if ! BBS_FUZZ_TARGET=$target SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1 "$fuzzer" "$corpus" "${extra[@]}" \
      -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 -max_len="$max_len" \
      -detect_leaks=1 -print_final_stats=1 -artifact_prefix="$findings/" >"$work/$target.log" 2>&1; then
    echo "fuzz: $target FAILED; see $work/$target.log and $findings/" >&2
    grep -E "ERROR|SUMMARY|==[0-9]+==" "$work/$target.log" | head -n 20 >&2 || true
    failed="$failed $target"
  else
    grep -E "stat::number_of_executed_units|cov:" "$work/$target.log" | tail -n 2 || true
  fi
done
if [ -n "$failed" ]; then
  echo "fuzz: findings in$failed" >&2
  exit 1
fi
echo "fuzz: no crash, leak or timeout in ${seconds}s per target"
