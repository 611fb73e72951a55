#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# Every source file with user-visible, translatable strings must be listed
# in po/POTFILES.in, or its strings never reach translators.
set -eu
srcdir=${1:-.}
cd "$srcdir"

missing=0
# C sources and headers with any of the glib preset's keywords, .ui files
# with translatable properties, and the data files meson merges
# translations into (the desktop entry, the metainfo, the schema).
for file in $(grep -lE '(^|[^A-Za-z0-9_])(N?C?_|g_dngettext|g_dpgettext2|g_dcgettext) ?\(|translatable="yes"' \
                $(find src -name '*.c' -o -name '*.h' | sort) $(find ui src -name '*.ui' | sort) 2>/dev/null) \
            data/*.desktop.in data/*.metainfo.xml.in data/*.gschema.xml; do
  if ! grep -qx "$file" po/POTFILES.in; then
    echo "not in po/POTFILES.in: $file"
    missing=1
  fi
done

while read -r listed; do
  case "$listed" in ''|'#'*) continue ;; esac
  if [ ! -f "$listed" ]; then
    echo "listed in po/POTFILES.in but missing: $listed"
    missing=1
  fi
done < po/POTFILES.in

# The list must also be usable by xgettext as it stands.
xgettext --files-from=po/POTFILES.in --from-code=UTF-8 --keyword=_ --keyword=N_ \
  --keyword=C_:1c,2 --keyword=g_dngettext:2,3 --its=/usr/share/gettext/its/gtkbuilder.its \
  -o /dev/null 2>/dev/null || xgettext --files-from=po/POTFILES.in --from-code=UTF-8 \
  --keyword=_ --keyword=N_ -o /dev/null

[ "$missing" -eq 0 ] && echo "po/POTFILES.in is complete"
exit "$missing"
