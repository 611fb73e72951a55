#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# Installs the pinned npm packages (npm ci) into the build directory, bundles
# the page with esbuild and compiles it into a GResource C source. From the
# same install it also writes the Strudel reference (doc.json, by jsdoc) and
# the names callable in the page's runtime (runtime-scope.json): one script
# for all, so that no two build steps ever race on the npm directory.
#
# Last, it bundles the dry-run engine (build-dryrun.mjs), which needs the
# page's runtime names.
#
#   build-bundle.sh <srcdir> <workdir> <output.c> <output.h> <doc.json> <runtime-scope.json>
#                   [npm cache dir] [offline: true|false] [dryrun.js]
set -eu

srcdir=$1
workdir=$2
out_c=$3
out_h=$4
out_doc=$5
out_scope=$6
npm_cache=${7:-}
offline=${8:-false}
out_dryrun=${9:-}

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

# jsdoc takes seconds and its result only depends on the installed packages
# and the jsdoc setup, not on the page: reuse the last doc.json while those
# are unchanged (edits to the page then skip it).
docs_key=$(cat "$srcdir/package-lock.json" "$srcdir/build-docs.mjs" "$srcdir/jsdoc.config.cjs" \
  "$srcdir/jsdoc-synonyms.cjs" | cksum)
if [ ! -f "$workdir/doc.json" ] || [ "$(cat "$workdir/doc.json.key" 2>/dev/null)" != "$docs_key" ]; then
  rm -f "$workdir/doc.json.key"
  node "$srcdir/build-docs.mjs" "$workdir" "$workdir/doc.json"
  printf '%s\n' "$docs_key" >"$workdir/doc.json.key"
fi
cp "$workdir/doc.json" "$out_doc"

node "$srcdir/build-scope.mjs" "$workdir" "$out_scope"

if [ -n "$out_dryrun" ]; then
  node "$srcdir/build-dryrun.mjs" "$workdir" "$out_scope" "$out_dryrun"
fi
