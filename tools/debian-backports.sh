#!/usr/bin/env bash
# Prints the apt source line of this machine's Debian backports, `deb URI SUITE-backports main`,
# derived from the Debian source apt is already configured with (its mirror and its release), so
# the repository names no mirror host: a machine behind its own mirror gets its own mirror.
# `bash tools/debian-backports.sh [APT_DIR]` reads APT_DIR/sources.list.d/*.sources (deb822, the
# form bookworm installs) and then APT_DIR/sources.list; APT_DIR defaults to /etc/apt.
# The main archive is the first `deb` entry whose suite is a bare release name (`bookworm`, not
# `bookworm-updates` or `bookworm-security`). Exits 1 with one line on stderr when there is none.
set -euo pipefail

APT_DIR=${1:-/etc/apt}

# deb822 stanzas: fields until a blank line; a stanza may list several URIs and suites.
from_deb822() {
  awk '
    function flush() {
      if (types ~ /(^| )deb( |$)/ && enabled != "no") {
        n = split(suites, s, " "); split(uris, u, " ")
        for (i = 1; i <= n; i++) if (s[i] ~ /^[a-z]+$/ && u[1] != "") { print u[1], s[i]; exit }
      }
      types = ""; uris = ""; suites = ""; enabled = ""
    }
    /^[ \t]*#/ { next }
    /^[ \t]*$/ { flush(); next }
    tolower($1) == "types:" { $1 = ""; types = $0 }
    tolower($1) == "uris:" { $1 = ""; uris = $0 }
    tolower($1) == "suites:" { $1 = ""; suites = $0 }
    tolower($1) == "enabled:" { enabled = tolower($2) }
    END { flush() }
  ' "$@"
}

# One-line form: `deb [options] URI SUITE COMPONENTS...`.
from_list() {
  awk '
    $1 != "deb" { next }
    { i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } }
    $(i + 1) ~ /^[a-z]+$/ { print $i, $(i + 1); exit }
  ' "$1"
}

found=''
shopt -s nullglob
sources=("$APT_DIR"/sources.list.d/*.sources)
if ((${#sources[@]})); then found=$(from_deb822 "${sources[@]}"); fi
if [[ -z $found && -f $APT_DIR/sources.list ]]; then found=$(from_list "$APT_DIR/sources.list"); fi
if [[ -z $found ]]; then
  echo "tools/debian-backports.sh: no Debian release source in $APT_DIR/sources.list.d/*.sources or $APT_DIR/sources.list; add one (deb URI RELEASE main) or install the backports source by hand" >&2
  exit 1
fi
read -r uri suite <<<"$found"
echo "deb $uri $suite-backports main"
