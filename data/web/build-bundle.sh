#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# Installs the pinned npm packages (npm ci) into the build directory, bundles
# the page with esbuild and compiles it into a GResource C source.
#
#   build-bundle.sh <srcdir> <workdir> <output.c> <output.h> [npm cache dir] [offline: true|false]
set -eu

srcdir=$1
workdir=$2
out_c=$3
out_h=$4
npm_cache=${5:-}
offline=${6:-false}

mkdir -p "$workdir"

# npm ci only when the lock changed since the last install: it wipes
# node_modules and takes several seconds.
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

node "$srcdir/build.mjs" "$workdir" "$workdir/dist"

glib-compile-resources --sourcedir="$workdir/dist" --generate-source --manual-register --c-name sj_web \
  --target="$out_c" "$workdir/dist/web.gresource.xml"
glib-compile-resources --sourcedir="$workdir/dist" --generate-header --manual-register --c-name sj_web \
  --target="$out_h" "$workdir/dist/web.gresource.xml"
