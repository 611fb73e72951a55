#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# Installs the test-only MCP client (the pinned @modelcontextprotocol/sdk,
# npm ci) into the build directory, as data/web/build-bundle.sh installs the
# page's packages: again only when the lock changed.
#
#   install.sh <srcdir> <workdir> <stamp output> [npm cache dir] [offline: true|false]
set -eu

srcdir=$1
workdir=$2
out_stamp=$3
npm_cache=${4:-}
offline=${5:-false}

mkdir -p "$workdir"
stamp="$workdir/node_modules/.sj-lock-stamp"
if [ ! -f "$stamp" ] || ! cmp -s "$srcdir/package-lock.json" "$stamp"; then
  cp "$srcdir/package.json" "$srcdir/package-lock.json" "$workdir/"
  set -- ci --no-audit --no-fund --loglevel=error
  if [ -n "$npm_cache" ]; then
    set -- "$@" --cache "$npm_cache"
  fi
  if [ "$offline" = true ]; then
    set -- "$@" --offline
  fi
  (cd "$workdir" && npm "$@")
  cp "$srcdir/package-lock.json" "$stamp"
fi
cp "$srcdir/jam.mjs" "$workdir/jam.mjs"
cp "$srcdir/package-lock.json" "$out_stamp"
