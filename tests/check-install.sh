#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# `meson install --destdir` works and puts every part of the app in place.
set -eu
builddir=$1
destdir=$(mktemp -d)
trap 'rm -rf "$destdir"' EXIT

meson install -C "$builddir" --destdir "$destdir" --no-rebuild --quiet

prefix=$(meson introspect "$builddir" --buildoptions | python3 -c \
  'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
root="$destdir$prefix"
status=0
for file in \
    bin/strudel-jam \
    share/applications/io.github.strudeljam.StrudelJam.desktop \
    share/metainfo/io.github.strudeljam.StrudelJam.metainfo.xml \
    share/glib-2.0/schemas/io.github.strudeljam.StrudelJam.gschema.xml \
    share/icons/hicolor/scalable/apps/io.github.strudeljam.StrudelJam.svg \
    share/icons/hicolor/symbolic/apps/io.github.strudeljam.StrudelJam-symbolic.svg \
    share/strudel-jam/skills/techno/skill.json \
    share/strudel-jam/skills/techno/SKILL.md \
    share/help/C/strudel-jam/index.page \
    share/help/C/strudel-jam/keyboard.page; do
  if [ ! -e "$root/$file" ]; then
    echo "missing after install: $file"
    status=1
  fi
done

# The bundled skills (read-only data) are installed next to the app's.
if [ ! -d "$root/share/strudel-jam/skills" ]; then
  echo "missing after install: share/strudel-jam/skills/"
  status=1
fi

# Every language of po/LINGUAS has its catalog, and the launcher speaks it.
for lang in $(sed 's/#.*//' "$(dirname "$0")/../po/LINGUAS"); do
  if [ ! -e "$root/share/locale/$lang/LC_MESSAGES/strudel-jam.mo" ]; then
    echo "missing after install: share/locale/$lang/LC_MESSAGES/strudel-jam.mo"
    status=1
  fi
  if ! grep -q "^Comment\[$lang\]=" "$root/share/applications/io.github.strudeljam.StrudelJam.desktop"; then
    echo "the installed .desktop file has no Comment[$lang]"
    status=1
  fi
done

# The page is inside the binary: nothing from the build tree is needed.
if ! grep -q "strudel-jam://app/index.html" "$root/bin/strudel-jam"; then
  echo "the installed binary does not contain the page"
  status=1
fi

[ "$status" -eq 0 ] && echo "meson install --destdir: complete"
exit "$status"
