#!/bin/sh
# Installs a built bbsarchive under a prefix, or removes exactly what it
# installs. Used by `make install`, `make uninstall` and `make dist`.
#
#   scripts/install.sh install   PREFIX BINARY MANPAGE
#   scripts/install.sh uninstall PREFIX
#
# Layout under PREFIX:
#   bin/bbsarchive
#   share/bbsarchive/templates/…             (the binary looks in ../share/bbsarchive/templates)
#   share/bash-completion/completions/bbsarchive
#   share/zsh/site-functions/_bbsarchive
#   share/fish/vendor_completions.d/bbsarchive.fish
#   share/man/man1/bbsarchive.1               (when the man page was generated)
set -eu
cd "$(dirname "$0")/.."

action=$1
prefix=${2:-}

# Every file installed, relative to PREFIX, one a line.
files() {
    echo bin/bbsarchive
    (cd templates && find . -type f | sed 's|^\./|share/bbsarchive/templates/|' | sort)
    echo share/bash-completion/completions/bbsarchive
    echo share/zsh/site-functions/_bbsarchive
    echo share/fish/vendor_completions.d/bbsarchive.fish
    echo share/man/man1/bbsarchive.1
}

case "$action" in
install)
    binary=$3
    manpage=${4:-}
    install -d "$prefix/bin"
    install -m 755 "$binary" "$prefix/bin/bbsarchive"
    (cd templates && find . -type f) | while read -r file; do
        install -D -m 644 "templates/$file" "$prefix/share/bbsarchive/templates/${file#./}"
    done
    install -d "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
        "$prefix/share/fish/vendor_completions.d"
    "$binary" --generate-completion-script bash > "$prefix/share/bash-completion/completions/bbsarchive"
    "$binary" --generate-completion-script zsh > "$prefix/share/zsh/site-functions/_bbsarchive"
    "$binary" --generate-completion-script fish > "$prefix/share/fish/vendor_completions.d/bbsarchive.fish"
    if [ -n "$manpage" ] && [ -f "$manpage" ]; then
        install -D -m 644 "$manpage" "$prefix/share/man/man1/bbsarchive.1"
    else
        echo "install: no man page was generated; skipped share/man/man1/bbsarchive.1" >&2
    fi
    echo "installed bbsarchive under $prefix"
    ;;
uninstall)
    files | while read -r file; do
        rm -f "$prefix/$file"
    done
    # The folders only bbsarchive uses go when empty; shared ones stay.
    if [ -d "$prefix/share/bbsarchive" ]; then
        find "$prefix/share/bbsarchive" -depth -type d -empty -delete
    fi
    echo "removed bbsarchive from $prefix"
    ;;
list)
    files
    ;;
*)
    echo "usage: scripts/install.sh install PREFIX BINARY [MANPAGE] | uninstall PREFIX | list" >&2
    exit 2
    ;;
esac
