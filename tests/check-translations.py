#!/usr/bin/env python3
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# The translations are whole and the template they come from is current.
#
# 1. po/strudel-jam.pot holds exactly the msgids the sources have today: it
#    is regenerated into a temporary directory with the xgettext call that
#    meson's i18n.gettext (preset 'glib') makes, and the msgids compared
#    (the header, dates and source locations do not count).
# 2. Every po/<lang>.po passes `msgfmt --check` (c-format placeholders,
#    the header, plural forms), has no fuzzy and no untranslated message,
#    and translates every msgid of the sources, so a string added since the
#    last `update-po` is named here rather than shown in English.
# 3. po/LINGUAS and the po/*.po files name the same languages.
#
# Usage: check-translations.py SOURCE_ROOT [XGETTEXT [MSGFMT]]

import os
import re
import subprocess
import sys
import tempfile

PACKAGE = 'strudel-jam'

# meson's i18n module, PRESET_ARGS['glib'] (mesonbuild/modules/i18n.py),
# plus what mesonbuild/scripts/gettext.py adds; keep the two in step.
XGETTEXT_ARGS = [
    '--package-name=' + PACKAGE, '-k_',
    '--from-code=UTF-8', '--add-comments',
    '--keyword=_', '--keyword=N_', '--keyword=C_:1c,2', '--keyword=NC_:1c,2',
    '--keyword=g_dcgettext:2', '--keyword=g_dngettext:2,3', '--keyword=g_dpgettext2:2c,3',
    '--flag=N_:1:pass-c-format', '--flag=C_:2:pass-c-format', '--flag=NC_:2:pass-c-format',
    '--flag=g_dngettext:2:pass-c-format', '--flag=g_strdup_printf:1:c-format',
    '--flag=g_string_printf:2:c-format', '--flag=g_string_append_printf:2:c-format',
    '--flag=g_error_new:3:c-format', '--flag=g_set_error:4:c-format',
    '--flag=g_markup_printf_escaped:1:c-format', '--flag=g_log:3:c-format',
    '--flag=g_print:1:c-format', '--flag=g_printerr:1:c-format', '--flag=g_printf:1:c-format',
    '--flag=g_fprintf:2:c-format', '--flag=g_sprintf:2:c-format', '--flag=g_snprintf:3:c-format',
]

REGENERATE = ('meson compile -C build strudel-jam-pot && '
              'meson compile -C build strudel-jam-update-po')


def unquote(text):
    text = text.strip()
    if not (text.startswith('"') and text.endswith('"')):
        raise ValueError('not a quoted string: ' + text)
    return text[1:-1]


def parse_po(path):
    """Returns the entries of a .po/.pot file as dicts: ctxt, id, plural,
    strs (list), fuzzy. The header (msgid "") is left out; obsolete (#~)
    entries too."""
    entries = []
    entry = None
    field = None

    def flush():
        nonlocal entry
        if entry is not None and entry.get('id') is not None and entry['id'] != '':
            entries.append(entry)
        entry = None

    with open(path, encoding='utf-8') as f:
        for raw in f:
            line = raw.rstrip('\n')
            if not line.strip():
                flush()
                continue
            if line.startswith('#~'):
                continue
            if entry is None or (line.startswith(('#', 'msgctxt', 'msgid ')) and entry.get('strs')):
                flush()
                entry = {'ctxt': None, 'id': None, 'plural': None, 'strs': [], 'fuzzy': False}
            if line.startswith('#,'):
                entry['fuzzy'] = entry['fuzzy'] or 'fuzzy' in [f.strip() for f in line[2:].split(',')]
                continue
            if line.startswith('#'):
                continue
            m = re.match(r'(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(".*")$', line)
            if m:
                key, value = m.group(1), unquote(m.group(2))
                if key == 'msgctxt':
                    entry['ctxt'] = value
                elif key == 'msgid':
                    entry['id'] = value
                elif key == 'msgid_plural':
                    entry['plural'] = value
                else:
                    entry['strs'].append(value)
                field = key
                continue
            if line.startswith('"'):
                value = unquote(line)
                if field == 'msgctxt':
                    entry['ctxt'] += value
                elif field == 'msgid':
                    entry['id'] += value
                elif field == 'msgid_plural':
                    entry['plural'] += value
                else:
                    entry['strs'][-1] += value
                continue
            raise ValueError('%s: cannot read the line %r' % (path, line))
    flush()
    return entries


def key_of(entry):
    return (entry['ctxt'], entry['id'], entry['plural'])


def show(key):
    ctxt, msgid, plural = key
    text = '"%s"' % msgid
    if plural is not None:
        text += ' / "%s"' % plural
    if ctxt is not None:
        text = '[%s] %s' % (ctxt, text)
    return text


def linguas(podir):
    langs = []
    with open(os.path.join(podir, 'LINGUAS'), encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            langs += line.split()
    return langs


def main():
    srcdir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '.')
    xgettext = sys.argv[2] if len(sys.argv) > 2 else 'xgettext'
    msgfmt = sys.argv[3] if len(sys.argv) > 3 else 'msgfmt'
    podir = os.path.join(srcdir, 'po')
    checked_pot = os.path.join(podir, PACKAGE + '.pot')
    failures = []

    # 1. The template is current.
    with tempfile.TemporaryDirectory(prefix='sj-pot-') as tmp:
        subprocess.run([xgettext, '-p', tmp, '-f', os.path.join(podir, 'POTFILES.in'), '-D', srcdir,
                        '-o', PACKAGE + '.pot'] + XGETTEXT_ARGS, check=True)
        fresh = [key_of(e) for e in parse_po(os.path.join(tmp, PACKAGE + '.pot'))]
    fresh_set = set(fresh)
    if not os.path.exists(checked_pot):
        failures.append('po/%s.pot is missing. Generate it with:\n  %s' % (PACKAGE, REGENERATE))
        checked = set()
    else:
        checked = set(key_of(e) for e in parse_po(checked_pot))
        missing = [k for k in fresh if k not in checked]
        obsolete = sorted((k for k in checked if k not in fresh_set), key=lambda k: k[1])
        if missing or obsolete:
            lines = ['po/%s.pot is not current (%d msgids the sources have are missing, %d it has are obsolete):'
                     % (PACKAGE, len(missing), len(obsolete))]
            lines += ['  missing:  ' + show(k) for k in missing]
            lines += ['  obsolete: ' + show(k) for k in obsolete]
            lines.append('Regenerate it (and merge it into every po/<lang>.po) with:\n  ' + REGENERATE)
            failures.append('\n'.join(lines))
    print('# %d msgids in the sources' % len(fresh))

    # 2. and 3. Every language is listed, whole and valid.
    listed = linguas(podir)
    present = sorted(f[:-3] for f in os.listdir(podir) if f.endswith('.po'))
    if listed != sorted(listed):
        failures.append('po/LINGUAS is not sorted: %s' % ' '.join(listed))
    for lang in sorted(set(present) - set(listed)):
        failures.append('po/%s.po is not listed in po/LINGUAS, so it is never built or installed' % lang)
    for lang in sorted(set(listed) - set(present)):
        failures.append('po/LINGUAS lists %s but po/%s.po does not exist' % (lang, lang))

    for lang in present:
        path = os.path.join(podir, lang + '.po')
        result = subprocess.run([msgfmt, '--check', '--check-accelerators=_', '--statistics',
                                 '-o', os.devnull, path], capture_output=True, text=True)
        stats = result.stderr.strip()
        print('# %s: %s' % (lang, stats.splitlines()[-1] if stats else ''))
        if result.returncode != 0:
            failures.append('po/%s.po fails msgfmt --check:\n%s' % (lang, stats))
            continue
        if re.search(r'\d+ (fuzzy|untranslated)', stats):
            failures.append('po/%s.po is not whole: %s' % (lang, stats))

        entries = parse_po(path)
        fuzzy = [key_of(e) for e in entries if e['fuzzy']]
        empty = [key_of(e) for e in entries if not e['fuzzy'] and any(s == '' for s in e['strs'])]
        translated = set(key_of(e) for e in entries if not e['fuzzy'] and e['strs'] and all(s != '' for s in e['strs']))
        absent = [k for k in fresh if k not in translated and k not in fuzzy and k not in empty]
        if fuzzy or empty or absent:
            lines = ['po/%s.po leaves %d strings of the sources in English:' % (lang, len(fuzzy) + len(empty) + len(absent))]
            lines += ['  fuzzy:        ' + show(k) for k in fuzzy]
            lines += ['  untranslated: ' + show(k) for k in empty]
            lines += ['  not in %s.po: %s' % (lang, show(k)) for k in absent]
            lines.append('Merge the template (%s), then translate them.' % REGENERATE)
            failures.append('\n'.join(lines))

        header = open(path, encoding='utf-8').read()
        if '"Language: %s\\n"' % lang not in header:
            failures.append('po/%s.po does not say "Language: %s" in its header' % (lang, lang))

    if failures:
        for failure in failures:
            print(failure, file=sys.stderr)
        return 1
    print('%d languages whole, po/%s.pot current' % (len(present), PACKAGE))
    return 0


if __name__ == '__main__':
    sys.exit(main())
