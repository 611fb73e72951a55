#!/usr/bin/env python3
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# The help's Keyboard shortcuts page lists every accelerator the app has:
# each one the shortcuts window (ui/help-overlay.ui) shows and each one
# src/sj-application.c sets, as the page writes keys ("<Control><Shift>period"
# is <keyseq><key>Ctrl</key><key>Shift</key><key>.</key></keyseq>).
import re
import sys
from pathlib import Path

root = Path(sys.argv[1])
page = (root / 'help' / 'C' / 'keyboard.page').read_text(encoding='utf-8')

NAMES = {
    'Control': 'Ctrl', 'Primary': 'Ctrl', 'Shift': 'Shift', 'Alt': 'Alt',
    'period': '.', 'comma': ',', 'question': '?', 'greater': '>', 'colon': ':',
    'Return': 'Enter', 'space': 'Space', 'BackSpace': 'Backspace',
}


def unescape(text):
    return text.replace('&lt;', '<').replace('&gt;', '>').replace('&amp;', '&')


def keys_of(accelerator):
    mods = re.findall(r'<(\w+)>', accelerator)
    key = re.sub(r'<\w+>', '', accelerator)
    key = NAMES.get(key, key.upper() if len(key) == 1 else key)
    return tuple([NAMES[m] for m in mods] + [key])


# What the page lists: key sequences, and single keys outside them.
listed = set()
for seq in re.findall(r'<keyseq>(.*?)</keyseq>', page, re.S):
    listed.add(tuple(unescape(k) for k in re.findall(r'<key>(.*?)</key>', seq)))
for key in re.findall(r'<key>(.*?)</key>', re.sub(r'<keyseq>.*?</keyseq>', '', page, flags=re.S)):
    listed.add((unescape(key),))

accelerators = set()
overlay = (root / 'ui' / 'help-overlay.ui').read_text(encoding='utf-8')
for value in re.findall(r'<property name="accelerator">(.*?)</property>', overlay):
    accelerators.update(unescape(value).split())
app = (root / 'src' / 'sj-application.c').read_text(encoding='utf-8')
for block in re.findall(r'\{ "(?:app|win)\.[\w-]+", \{ ([^}]*)\} \}', app):
    accelerators.update(re.findall(r'"([^"]+)"', block))

missing = sorted(a for a in accelerators if keys_of(a) not in listed)
for accelerator in missing:
    print(f'help/C/keyboard.page does not list {accelerator} ({"+".join(keys_of(accelerator))})')
if len(accelerators) < 20:
    print(f'only {len(accelerators)} accelerators found: the sources changed shape?')
    sys.exit(1)
if not missing:
    print(f'help/C/keyboard.page lists all {len(accelerators)} accelerators')
sys.exit(1 if missing else 0)
