#!/usr/bin/env python3
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# Keeps the README's architecture true:
#   - a service (src/services/) includes no GTK, GDK, libadwaita, WebKit or
#     JavaScriptCore header, and no header of a widget or of src/web/;
#   - the service domains include each other downward only (ALLOWED below,
#     the order the README's sketch and HACKING.md give);
#   - nothing outside src/web/ calls into the page: no WebKit call, no
#     window.sjBridge, no WebKit header.
# Usage: check-layering.py [source root]; exits 1 and names every breach.

import re
import sys
from pathlib import Path

root = Path(sys.argv[1] if len(sys.argv) > 1 else '.').resolve()
src = root / 'src'
services = src / 'services'

# domain -> the domains its files may include (besides its own)
ALLOWED = {
    'common': set(),
    'page': {'common'},
    'sounds': {'common', 'page'},
    'user-samples': {'common', 'sounds'},
    'sound-cache': {'common', 'sounds', 'user-samples'},
    'knowledge': {'common', 'sounds', 'user-samples', 'sound-cache'},
    'dryrun': {'common', 'page', 'sounds', 'user-samples', 'sound-cache', 'knowledge'},
    'apply': {'common', 'page', 'sounds', 'user-samples', 'sound-cache', 'knowledge', 'dryrun'},
    'history': {'common'},
    'llm': {'common'},
    'skills': {'common', 'knowledge', 'dryrun'},
    'voice': {'common', 'llm'},
    'outputs': {'common', 'page'},
    'realtime': set(),
    'render': {'common', 'history'},
    'mcp': {'common'},
    'record': {'common', 'render'},
    'agent': {'common', 'page', 'sounds', 'user-samples', 'sound-cache', 'knowledge', 'dryrun', 'apply', 'history', 'llm', 'skills'},
}
UI_HEADERS = re.compile(r'#\s*include\s*<(gtk/|gdk/|adwaita\.h|webkit/|jsc/|gtksourceview/)')
LOCAL_INCLUDE = re.compile(r'#\s*include\s*"([^"]+)"')
PAGE_CALL = re.compile(r'\bwebkit_[a-z_]+\s*\(|\bsjBridge\b|#\s*include\s*<webkit/')

# Generated headers (GResource C code) are built next to their users.
GENERATED = {'config.h', 'sj-bundled-resources.h', 'sj-web-resources.h', 'sj-resources.h', 'sj-dryrun-resources.h', 'sj-kit-resources.h'}

problems = []


def sources(folder):
    return sorted(p for p in folder.rglob('*') if p.suffix in ('.c', '.h'))


header_home = {}
for path in sources(src):
    header_home.setdefault(path.name, path)

for path in sources(services):
    rel = path.relative_to(root)
    domain = path.relative_to(services).parts[0]
    text = path.read_text(encoding='utf-8')
    if domain not in ALLOWED:
        problems.append(f'{rel}: the domain "{domain}" is not in tests/check-layering.py (add it with its allowed includes)')
        continue
    for number, line in enumerate(text.splitlines(), 1):
        if UI_HEADERS.search(line):
            problems.append(f'{rel}:{number}: a service includes a toolkit or WebKit header: {line.strip()}')
        match = LOCAL_INCLUDE.search(line)
        if not match or match.group(1) in GENERATED:
            continue
        home = header_home.get(Path(match.group(1)).name)
        if home is None:
            problems.append(f'{rel}:{number}: includes "{match.group(1)}", which is not in src/')
            continue
        try:
            target = home.relative_to(services).parts[0]
        except ValueError:
            problems.append(f'{rel}:{number}: a service includes a header from outside the services: {home.relative_to(root)}')
            continue
        if target != domain and target not in ALLOWED[domain]:
            problems.append(f'{rel}:{number}: {domain}/ must not include {target}/ ({match.group(1)}): includes go downward only')

for path in sources(src):
    rel = path.relative_to(root)
    if path.is_relative_to(src / 'web'):
        continue
    for number, line in enumerate(path.read_text(encoding='utf-8').splitlines(), 1):
        if PAGE_CALL.search(line):
            problems.append(f'{rel}:{number}: only src/web/ talks to the page: {line.strip()}')

for problem in problems:
    print(problem)
print(f'{len(problems)} layering problem(s) in {len(sources(src))} files')
sys.exit(1 if problems else 0)
