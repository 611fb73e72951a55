#!/usr/bin/env python3
"""Check the Flatpak manifest and its generated npm sources.

Usage: check-flatpak-manifest.py <srcdir>

  (a) flatpak/io.github.strudeljam.StrudelJam.json parses, has the right
      app id, runtime, sdk, command, node20 SDK extension and finish-args;
  (b) it builds a "strudel-jam" meson module with the offline npm options,
      the project directory, generated-sources.json and the cache script;
  (c) every registry package of data/web/package-lock.json is listed in
      flatpak/generated-sources.json with the digest from the lock
      (platform-specific optional packages only for linux x64/arm64);
  (d) flatpak/generated-sources.json is exactly what
      flatpak/gen-npm-sources.py produces from the current lock.

Prints a short report; exits 1 on any failure.  Python 3 stdlib only.
"""

import base64
import fnmatch
import json
import os
import subprocess
import sys

APP_ID = "io.github.strudeljam.StrudelJam"
FINISH_ARGS = [
    "--share=ipc",
    "--socket=wayland",
    "--socket=fallback-x11",
    "--socket=pulseaudio",
    "--share=network",
    "--device=dri",
    # .midi(): JACK through PipeWire on the host (the runtime's libjack)
    "--filesystem=xdg-run/pipewire-0",
    # Record (issue 33): recordings go to Music/Strudel Jam without a dialog
    "--filesystem=xdg-music/Strudel Jam:create",
]
NODE_EXT = "org.freedesktop.Sdk.Extension.node20"
REGISTRY = "https://registry.npmjs.org/"

failures = []
notes = []


def fail(msg):
    failures.append(msg)


def load_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as exc:
        fail("%s: cannot read %s: %s" % (what, path, exc))
    except ValueError as exc:
        fail("%s: %s is not valid JSON: %s" % (what, path, exc))
    return None


def check_manifest(manifest):
    app_id = manifest.get("id", manifest.get("app-id"))
    if app_id != APP_ID:
        fail("manifest: app id is %r, expected %r" % (app_id, APP_ID))
    for key, want in (("runtime", "org.gnome.Platform"),
                      ("sdk", "org.gnome.Sdk"),
                      ("command", "strudel-jam")):
        if manifest.get(key) != want:
            fail("manifest: %s is %r, expected %r" % (key, manifest.get(key), want))
    if not str(manifest.get("runtime-version", "")).strip():
        fail("manifest: runtime-version is missing")
    if NODE_EXT not in manifest.get("sdk-extensions", []):
        fail("manifest: sdk-extensions lacks %s" % NODE_EXT)
    append = manifest.get("build-options", {}).get("append-path", "")
    if "/usr/lib/sdk/node20/bin" not in append.split(":"):
        fail("manifest: build-options append-path lacks /usr/lib/sdk/node20/bin")
    args = manifest.get("finish-args", [])
    for arg in FINISH_ARGS:
        if arg not in args:
            fail("manifest: finish-args lacks %s" % arg)
    extra = [a for a in args if a not in FINISH_ARGS]
    if extra:
        fail("manifest: unexpected finish-args %s" % ", ".join(extra))


def check_module(manifest):
    modules = [m for m in manifest.get("modules", [])
               if isinstance(m, dict) and m.get("buildsystem") == "meson"]
    if not modules:
        fail("manifest: no meson module")
        return
    mod = next((m for m in modules if m.get("name") == "strudel-jam"), None)
    if mod is None:
        fail("manifest: no meson module named strudel-jam")
        return
    opts = mod.get("config-opts", [])
    if "-Dnpm_offline=true" not in opts:
        fail("manifest: strudel-jam config-opts lack -Dnpm_offline=true")
    cache_opts = [o for o in opts if o.startswith("-Dnpm_cache=")]
    if not cache_opts:
        fail("manifest: strudel-jam config-opts lack -Dnpm_cache=...")
    sources = mod.get("sources", [])
    if not any(isinstance(s, dict) and s.get("type") == "dir" and s.get("path") == ".."
               for s in sources):
        fail("manifest: strudel-jam sources lack the project dir (path \"..\")")
    if "generated-sources.json" not in sources:
        fail("manifest: strudel-jam sources lack \"generated-sources.json\"")
    script = [s for s in sources if isinstance(s, dict) and s.get("type") == "file"
              and s.get("path") == "populate-npm-cache.sh"]
    if not script:
        fail("manifest: strudel-jam sources lack the populate-npm-cache.sh file")
    shell = [c for s in sources if isinstance(s, dict) and s.get("type") == "shell"
             for c in s.get("commands", [])]
    if not any("populate-npm-cache.sh" in c for c in shell):
        fail("manifest: no shell source runs populate-npm-cache.sh")
    # The app's GStreamer plugin (issue 35) must survive every cleanup
    # pattern: without it the web process plays through the runtime's sink.
    plugin = "/lib/strudel-jam/gstreamer-1.0/libgstsjaudiosink.so"
    parts = plugin.strip("/").split("/")
    for pattern in manifest.get("cleanup", []) + mod.get("cleanup", []):
        if pattern.startswith("/"):
            hit = any(fnmatch.fnmatch("/" + "/".join(parts[:i]), pattern.rstrip("/"))
                      for i in range(1, len(parts) + 1))
        else:
            hit = any(fnmatch.fnmatch(part, pattern) for part in parts)
        if hit:
            fail("manifest: cleanup %r removes the app's audio sink plugin (%s)" % (pattern, plugin))
    # the script fills <dest>/npm-cache; meson must be pointed at that cache
    if script and cache_opts:
        dest = script[0].get("dest", "")
        want = "/run/build/strudel-jam/%s/npm-cache" % dest.strip("/")
        if cache_opts[0] != "-Dnpm_cache=" + want:
            fail("manifest: %s does not match the cache the script fills (%s)"
                 % (cache_opts[0], want))


def sri_digests(integrity):
    out = {}
    for token in integrity.split():
        alg, _, b64 = token.partition("-")
        if alg in ("sha512", "sha256", "sha1"):
            try:
                out[alg] = base64.b64decode(b64.split("?")[0], validate=True).hex()
            except ValueError:
                pass
    return out


def installs_on_flatpak(entry):
    """Arches (x86_64/aarch64) an entry can be installed on; None = all."""
    if not any(k in entry for k in ("os", "cpu", "libc")):
        return None

    def ok(values, wanted):
        if not values:
            return True
        values = [values] if isinstance(values, str) else values
        if "!" + wanted in values:
            return False
        pos = [v for v in values if not v.startswith("!")]
        return not pos or wanted in pos

    if not ok(entry.get("os"), "linux") or not ok(entry.get("libc"), "glibc"):
        return []
    return [arch for cpu, arch in (("x64", "x86_64"), ("arm64", "aarch64"))
            if ok(entry.get("cpu"), cpu)]


def check_lock_coverage(lock, generated):
    if not isinstance(generated, list):
        fail("generated-sources.json: not a JSON list")
        return 0
    by_url = {}
    names = set()
    for src in generated:
        if not isinstance(src, dict) or src.get("type") != "file" or "url" not in src:
            fail("generated-sources.json: unexpected entry %r" % (src,))
            continue
        by_url[src["url"]] = src
        fname = (src.get("dest"), src.get("dest-filename"))
        if fname in names:
            fail("generated-sources.json: duplicate destination %s/%s" % fname)
        names.add(fname)
    checked = 0
    packages = lock.get("packages")
    if not isinstance(packages, dict):
        fail("package-lock.json: no \"packages\" map (lockfileVersion >= 2 needed)")
        return 0
    for path, entry in packages.items():
        if path == "" or entry.get("link") or "node_modules/" not in path:
            continue
        if not entry.get("resolved") and not entry.get("integrity"):
            continue
        arches = installs_on_flatpak(entry)
        name = entry.get("name") or path.rsplit("node_modules/", 1)[1]
        url = entry.get("resolved") or "%s%s/-/%s-%s.tgz" % (
            REGISTRY, name, name.split("/")[-1], entry.get("version"))
        src = by_url.get(url)
        if arches == []:
            if src is not None:
                fail("%s: listed although it cannot install in a flatpak build" % path)
            continue
        if src is None:
            fail("%s: %s is not in generated-sources.json" % (path, url))
            continue
        want = sri_digests(entry.get("integrity", ""))
        if not want:
            fail("%s: no usable integrity in the lock" % path)
            continue
        got = {k: src[k] for k in ("sha512", "sha256", "sha1") if k in src}
        common = set(want) & set(got)
        if not common:
            fail("%s: generated source has %s, lock has %s"
                 % (path, "/".join(sorted(got)) or "no digest", "/".join(sorted(want))))
        for alg in common:
            if want[alg] != got[alg]:
                fail("%s: %s digest differs from the lock" % (path, alg))
        only = src.get("only-arches")
        if arches is not None and len(arches) < 2 and sorted(only or []) != sorted(arches):
            fail("%s: only-arches is %r, expected %r" % (path, only, arches))
        checked += 1
    return checked


def check_up_to_date(srcdir, lock_path, gen_path):
    gen = os.path.join(srcdir, "flatpak", "gen-npm-sources.py")
    try:
        proc = subprocess.run([sys.executable, gen, "--lock", lock_path, "--stdout"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, check=False)
    except OSError as exc:
        fail("cannot run %s: %s" % (gen, exc))
        return
    if proc.returncode != 0:
        fail("gen-npm-sources.py failed: %s" % proc.stderr.strip())
        return
    try:
        with open(gen_path, encoding="utf-8") as f:
            current = f.read()
    except OSError as exc:
        fail("cannot read %s: %s" % (gen_path, exc))
        return
    if current != proc.stdout:
        fail("flatpak/generated-sources.json is stale; regenerate it with "
             "`python3 flatpak/gen-npm-sources.py`")


def main(argv):
    if len(argv) != 2:
        print("usage: %s <srcdir>" % argv[0], file=sys.stderr)
        return 2
    srcdir = argv[1]
    manifest_path = os.path.join(srcdir, "flatpak", APP_ID + ".json")
    gen_path = os.path.join(srcdir, "flatpak", "generated-sources.json")
    lock_path = os.path.join(srcdir, "data", "web", "package-lock.json")
    script_path = os.path.join(srcdir, "flatpak", "populate-npm-cache.sh")

    manifest = load_json(manifest_path, "manifest")
    if isinstance(manifest, dict):
        before = len(failures)
        check_manifest(manifest)
        check_module(manifest)
        notes.append("manifest %s: %s" % (
            os.path.basename(manifest_path),
            "ok" if len(failures) == before else "FAILED"))
    elif manifest is not None:
        fail("manifest: top level is not a JSON object")
    if not os.path.isfile(script_path):
        fail("flatpak/populate-npm-cache.sh is missing")

    lock = load_json(lock_path, "package-lock.json")
    generated = load_json(gen_path, "generated-sources.json")
    if isinstance(lock, dict) and generated is not None:
        n = check_lock_coverage(lock, generated)
        notes.append("lock coverage: %d lock entries checked against %d sources"
                     % (n, len(generated) if isinstance(generated, list) else 0))
        check_up_to_date(srcdir, lock_path, gen_path)

    for line in notes:
        print(line)
    if failures:
        print("FAILED: %d problem(s):" % len(failures))
        for msg in failures:
            print("  - " + msg)
        return 1
    print("flatpak manifest check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
