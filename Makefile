# bbsarchive: make setup · build · test · demo · bench · lint · clean
SWIFT ?= swift
# The C libraries bbsarchive links, as Debian packages.
DEB_PACKAGES := libxml2-dev libcurl4-openssl-dev libcmark-gfm-dev libcmark-gfm-extensions-dev pkg-config libsqlite3-dev
# apt-get needs root: use sudo when not already root.
SUDO := $(shell [ "$$(id -u)" -ne 0 ] && command -v sudo)

.PHONY: setup build test demo bench lint clean

# Installs only what is missing, after refreshing the package lists
# (a new machine's lists may be empty or stale).
setup:
	@missing=""; \
	for package in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "setup: installing$$missing"; \
	  $(SUDO) apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	else \
	  echo "setup: every package is installed"; \
	fi

build: setup
	$(SWIFT) build

test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Starts the SMTH replica on loopback, archives its boards into site/,
# stops the replica and says which file to open.
demo: setup
	$(SWIFT) build
	./scripts/demo.sh

# Benchmarks on the replica, side by side with xmllint, Hugo, wget and httrack;
# writes BENCHMARKS.md and benchmarks/$(BENCH_SCALE).json. BENCH_SCALE=tiny is
# the CI smoke run, default takes a few minutes, large adds 1M posts.
# Never part of `make test`.
BENCH_SCALE ?= default
BENCH_PACKAGES := hugo wget httrack libxml2-utils time python3
bench: setup
	@missing=""; \
	for package in $(BENCH_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "bench: installing$$missing"; \
	  $(SUDO) apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	fi
	$(SWIFT) build -c release
	python3 scripts/bench/bench.py --scale $(BENCH_SCALE)

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

clean:
	rm -rf .build demo.sqlite demo.sqlite-wal demo.sqlite-shm
	find site -mindepth 1 ! -name README.md -exec rm -rf {} +
