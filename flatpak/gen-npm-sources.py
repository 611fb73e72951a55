#!/usr/bin/env python3
"""Generate flatpak-builder sources for the npm packages of data/web.

Reads data/web/package-lock.json (lockfileVersion 2 or 3, the "packages"
map) and writes flatpak/generated-sources.json: one "file" source per npm
tarball, downloaded by flatpak-builder into flatpak-node/tarballs/ and
checked against the lock's integrity digest.  At source-extraction time
flatpak/populate-npm-cache.sh runs `npm cache add` on every tarball, which
stores them in flatpak-node/npm-cache (cacache, keyed by integrity), so
`npm ci --offline --cache flatpak-node/npm-cache` works without network.

Rules:
  * the root entry ("") and workspace links ("link": true) are skipped;
  * entries without a registry tarball (git, file:, directories) abort the
    generation, they cannot be mirrored this way;
  * "resolved" is used when present.  The lock may have been written with
    omit-lockfile-registry-resolved=true, in which case registry entries
    only carry version + integrity; the URL is then the canonical npmjs
    tarball URL https://registry.npmjs.org/<name>/-/<basename>-<version>.tgz,
    which is what npm itself fetches for such entries;
  * nested node_modules paths and scoped names are handled; aliased
    packages ("name" field in the entry) use the real package name;
  * identical tarballs needed at several places of the tree are listed once.

Platform-specific optional packages (esbuild's @esbuild/<os>-<cpu> binaries
and the like): Flathub builds for x86_64 and aarch64 only, and npm skips
optional packages whose "os"/"cpu"/"libc" do not match without fetching
them.  So an entry that declares "os"/"cpu"/"libc" is kept only when it can
install on linux/glibc with x64 or arm64, and gets "only-arches"
(["x86_64"] for x64, ["aarch64"] for arm64) so each flatpak build downloads
just its own binary.  For esbuild this keeps @esbuild/linux-x64 (x86_64)
and @esbuild/linux-arm64 (aarch64) and drops the 24 other platform
packages.  Entries without platform fields are always kept, for all arches.

Usage: gen-npm-sources.py [--lock PATH] [--output PATH | --stdout]
Python 3 standard library only.
"""

import argparse
import base64
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LOCK = os.path.join(HERE, "..", "data", "web", "package-lock.json")
DEFAULT_OUTPUT = os.path.join(HERE, "generated-sources.json")

REGISTRY = "https://registry.npmjs.org/"
TARBALL_DEST = "flatpak-node/tarballs"

# npm "cpu" value -> flatpak arch, for the arches flatpak apps are built on.
FLATPAK_ARCHES = {"x64": "x86_64", "arm64": "aarch64"}

# integrity algorithm -> flatpak-builder checksum key (strongest first)
HASH_KEYS = {"sha512": "sha512", "sha256": "sha256", "sha1": "sha1"}
HASH_ORDER = ["sha512", "sha256", "sha1"]


class GenError(Exception):
    pass


def package_name(path, entry):
    """Real package name of a lock entry ("node_modules/a/node_modules/@s/b")."""
    if entry.get("name"):
        return entry["name"]
    marker = "node_modules/"
    idx = path.rfind(marker)
    if idx < 0:
        raise GenError("cannot derive a package name from lock path %r" % path)
    return path[idx + len(marker):]


def integrity_to_checksum(integrity, what):
    """Pick the strongest supported hash of an SRI string; return (key, hex)."""
    found = {}
    for token in integrity.split():
        alg, sep, b64 = token.partition("-")
        if not sep or alg not in HASH_KEYS:
            continue
        b64 = b64.split("?", 1)[0]  # SRI options
        try:
            digest = base64.b64decode(b64, validate=True)
        except ValueError as exc:
            raise GenError("%s: bad integrity %r: %s" % (what, integrity, exc))
        found.setdefault(alg, digest.hex())
    for alg in HASH_ORDER:
        if alg in found:
            return HASH_KEYS[alg], found[alg]
    raise GenError("%s: no sha512/sha256/sha1 in integrity %r" % (what, integrity))


def allowed(values, wanted):
    """npm os/cpu/libc semantics: list of names, '!name' excludes."""
    if not values:
        return True
    if isinstance(values, str):
        values = [values]
    negated = [v[1:] for v in values if v.startswith("!")]
    positive = [v for v in values if not v.startswith("!")]
    if wanted in negated:
        return False
    return not positive or wanted in positive


def platform_arches(entry):
    """None = no platform restriction (all arches); [] = not installable in
    a flatpak build; otherwise the flatpak arches the entry installs on."""
    if not any(k in entry for k in ("os", "cpu", "libc")):
        return None
    if not allowed(entry.get("os"), "linux"):
        return []
    if not allowed(entry.get("libc"), "glibc"):
        return []
    return [arch for cpu, arch in FLATPAK_ARCHES.items()
            if allowed(entry.get("cpu"), cpu)]


def tarball_url(path, entry, name):
    resolved = entry.get("resolved")
    if resolved:
        if resolved.startswith(("http://", "https://")):
            return resolved
        raise GenError("%s: unsupported resolved %r (only registry tarballs "
                       "can be mirrored)" % (path, resolved))
    version = entry.get("version")
    if not version or not entry.get("integrity"):
        raise GenError("%s: no resolved URL and no version+integrity" % path)
    basename = name.rsplit("/", 1)[-1]
    return "%s%s/-/%s-%s.tgz" % (REGISTRY, name, basename, version)


def dest_filename(name, version):
    # "@scope/pkg" -> "scope+pkg"; '+' is not allowed in npm names, so
    # this cannot collide with an unscoped package.
    return "%s-%s.tgz" % (name.lstrip("@").replace("/", "+"), version)


def generate(lock):
    if lock.get("lockfileVersion", 1) < 2 or "packages" not in lock:
        raise GenError("need a lockfileVersion 2 or 3 package-lock.json "
                       "(with a \"packages\" map)")
    sources = []
    by_url = {}
    used_names = {}
    for path, entry in lock["packages"].items():
        if path == "" or entry.get("link"):
            continue
        if not path.startswith("node_modules/") and "/node_modules/" not in path:
            # workspace member directory, not a registry package
            continue
        arches = platform_arches(entry)
        if arches == []:
            continue
        name = package_name(path, entry)
        url = tarball_url(path, entry, name)
        if not entry.get("integrity"):
            raise GenError("%s: no integrity in the lock" % path)
        key, digest = integrity_to_checksum(entry["integrity"], path)
        if url in by_url:
            prev = by_url[url]
            if prev.get(key) != digest:
                raise GenError("%s: %s listed with two different digests" % (path, url))
            continue
        fname = dest_filename(name, entry["version"])
        if fname in used_names:
            fname = "%s-%s.tgz" % (fname[:-4], digest[:12])
        used_names[fname] = url
        src = {
            "type": "file",
            "url": url,
            key: digest,
            "dest": TARBALL_DEST,
            "dest-filename": fname,
        }
        if arches is not None and len(arches) < len(FLATPAK_ARCHES):
            src["only-arches"] = arches
        by_url[url] = src
        sources.append(src)
    sources.sort(key=lambda s: s["dest-filename"])
    return sources


def render(sources):
    return json.dumps(sources, indent=4) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lock", default=DEFAULT_LOCK)
    out = ap.add_mutually_exclusive_group()
    out.add_argument("--output", default=DEFAULT_OUTPUT)
    out.add_argument("--stdout", action="store_true")
    args = ap.parse_args(argv)
    try:
        with open(args.lock, encoding="utf-8") as f:
            lock = json.load(f)
        text = render(generate(lock))
    except (OSError, ValueError, GenError) as exc:
        print("gen-npm-sources: %s" % exc, file=sys.stderr)
        return 1
    if args.stdout:
        sys.stdout.write(text)
    else:
        tmp = args.output + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, args.output)
        print("wrote %d sources to %s" % (text.count('"type": "file"'), args.output),
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
