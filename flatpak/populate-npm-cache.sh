#!/bin/bash
# Fill the offline npm cache used by the Flatpak build.
#
# flatpak-builder downloads every npm tarball listed in generated-sources.json
# (checksummed against package-lock.json) into flatpak-node/tarballs/.  This
# script, run from a "shell" source at source-extraction time, adds each of
# them to the cacache in flatpak-node/npm-cache.  cacache stores content by
# integrity, so the project's `npm ci --offline --cache <that dir>` then finds
# every package without touching the network.
#
# Usage: bash flatpak-node/populate-npm-cache.sh [--fill-lock LOCKFILE]
#                                                [TARBALL_DIR [CACHE_DIR]]
# Defaults are relative to this script: ./tarballs and ./npm-cache.
#
# --fill-lock: npm ci --offline can only work from the cache when every lock
# entry has a "resolved" URL; without one npm asks the registry for the
# package metadata first, which fails offline (ENOTCACHED).  A lock written
# with omit-lockfile-registry-resolved=true has no "resolved" fields, so this
# option adds the canonical registry URL (the one gen-npm-sources.py uses)
# to every registry entry that lacks it.  The manifest passes the build's
# private copy of data/web/package-lock.json; never point it at your
# checkout unless you want the lock rewritten.
set -euo pipefail

fill_lock=
if [ "${1:-}" = "--fill-lock" ]; then
    fill_lock="${2:?--fill-lock needs a package-lock.json path}"
    shift 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tarballs="$(realpath -m "${1:-$here/tarballs}")"
cache="$(realpath -m "${2:-$here/npm-cache}")"

command -v npm >/dev/null || {
    echo "populate-npm-cache: npm not found in PATH ($PATH);" \
         "is the node20 SDK extension installed and appended to PATH?" >&2
    exit 1
}

mkdir -p "$cache"
# The build sandbox has no usable $HOME; keep npm's logs and config lookups
# inside the build directory and never go online.
export HOME="$here/home"
mkdir -p "$HOME"
export npm_config_cache="$cache"
export npm_config_offline=true
export npm_config_audit=false
export npm_config_fund=false
export npm_config_update_notifier=false

shopt -s nullglob
files=("$tarballs"/*.tgz)
if [ "${#files[@]}" -eq 0 ]; then
    echo "populate-npm-cache: no tarballs in $tarballs" >&2
    exit 1
fi

# npm cache add takes many specs at once; batch to keep the command line short.
batch=50
for ((i = 0; i < ${#files[@]}; i += batch)); do
    npm cache add --cache "$cache" "${files[@]:i:batch}" >/dev/null
done
echo "populate-npm-cache: added ${#files[@]} tarballs to $cache"

if [ -n "$fill_lock" ]; then
    node - "$fill_lock" <<'JS'
const fs = require("fs");
const file = process.argv[2];
const text = fs.readFileSync(file, "utf8");
const lock = JSON.parse(text);
const marker = "node_modules/";
let filled = 0;
for (const [path, entry] of Object.entries(lock.packages || {})) {
  if (path === "" || entry.link || entry.resolved) continue;
  if (!path.startsWith(marker) && !path.includes("/" + marker)) continue;
  if (!entry.version || !entry.integrity) continue;
  const name = entry.name || path.slice(path.lastIndexOf(marker) + marker.length);
  const base = name.split("/").pop();
  entry.resolved = `https://registry.npmjs.org/${name}/-/${base}-${entry.version}.tgz`;
  filled++;
}
if (filled) {
  fs.writeFileSync(file, JSON.stringify(lock, null, 2) + "\n");
}
console.log(`populate-npm-cache: filled ${filled} missing "resolved" URLs in ${file}`);
JS
fi
