#!/usr/bin/env python3
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# Every JSON the app reads goes through sj_json_parse() (src/services/common/
# sj-json.c), which bounds its depth and size before json-glib's recursive
# parser sees it.  This fails if any other file under src/ calls json-glib's
# parser directly.
# Usage: check-json-parse.py [source root]; exits 1 and names every breach.

import re
import sys
from pathlib import Path

root = Path(sys.argv[1] if len(sys.argv) > 1 else '.').resolve()
src = root / 'src'
HELPER = src / 'services' / 'common' / 'sj-json.c'
PARSE = re.compile(r'\b(json_parser_new(_immutable)?|json_parser_load_from_\w+|json_from_string|'
                   r'json_gvariant_deserialize_data|json_gobject_from_data)\s*\(')

breaches = []
for path in sorted(src.rglob('*.[ch]')):
    if path == HELPER:
        continue
    for number, line in enumerate(path.read_text(encoding='utf-8', errors='replace').splitlines(), 1):
        if PARSE.search(line):
            breaches.append(f'{path.relative_to(root)}:{number}: parses JSON without sj_json_parse(): {line.strip()}')

if not HELPER.exists():
    breaches.append(f'{HELPER.relative_to(root)} is missing')

for breach in breaches:
    print(breach)
sys.exit(1 if breaches else 0)
