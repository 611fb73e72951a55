#!/usr/bin/env python3
# SPDX-License-Identifier: AGPL-3.0-or-later
"""Optional cross-check of the dry-run against upstream Strudel's own snapshot
of every documented example (examples.snap in the folder given to meson as
-Dupstream_reference: each example
evaluated and queried for 4 cycles, haps printed with hap.show(true)).

    check-dryrun-examples.py <strudel-jam-dryrun> <doc.json> <examples.snap> [--report FILE]

Skips (TAP "1..0 # SKIP") when the snapshot is absent: it is an oracle from upstream,
not part of the project. Upstream evaluates in Node with its own mocks (no
REPL, a different scope for the motion, gamepad and MIDI examples), so a few
known differences are listed in KNOWN below, each with its reason, and
floats may differ in their last digit (JavaScriptCore against V8); anything
else fails.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

# Examples upstream skips (hardware: motion sensors, MIDI, gamepad).
UPSTREAM_SKIPS = {
    'absoluteOrientationGamma', 'absoluteOrientationBeta', 'absoluteOrientationAlpha',
    'orientationGamma', 'orientationBeta', 'orientationAlpha', 'rotationGamma', 'rotationBeta',
    'rotationAlpha', 'gravityZ', 'gravityY', 'gravityX', 'accelerationZ', 'accelerationY',
    'accelerationX', 'vibrate', 'vibGamepadIndex', 'vibGamepadId', 'vibEnable', 'vibWeak',
    'vibStrong', 'vibDuration', 'vibIntensity', 'defaultmidimap', 'midimaps', 'bmod',
}

# Where upstream's test differs from the page (and so from the dry-run),
# by example name. Measured; see the README, "Dry-run".
LABELS = 'upstream evaluates without the REPL: labelled blocks ($:, name:) are not stacked'
CPS = "upstream queries without the scheduler's _cps, which fit() and splice() read"
NOT_IN_PAGE = 'not in the page: midikeys plays notes from a MIDI keyboard through Web MIDI, which WebKitGTK lacks'
KNOWN = {
    **{name: LABELS for name in ['duckorbit', 'duckdepth', 'duckonset', 'duckattack', 'filterValues', 'useRNG',
                                 'seed', 'filterWhen']},
    **{name: CPS for name in ['irspeed', 'irbegin', 'scrub', 'slice', 'splice', 'fit']},
    'cpm': "the REPL's cpm() scales by the scheduler's cps; upstream's test has no REPL",
    'adsr': 'upstream mocks .adsr() as a no-op; the page sets attack, decay, sustain and release',
    'filter': 'upstream mocks .filter() as a no-op (a webaudio mock); the page filters',
    'whenKey': 'upstream has no window: keyDown() is never false there in the same way (the page: no key held)',
    'keyDown': 'upstream has no window: keyDown() is never false there in the same way (the page: no key held)',
    'midikeys': NOT_IN_PAGE,
}

# Controls the page adds and upstream's mocks do not: ._scope() and
# ._spectrum() widgets set analyze, markcss is a control of the editor.
PAGE_ONLY_CONTROLS = re.compile(r' (analyze|markcss):\S+')
NUMBER = re.compile(r'-?\d+\.\d+(?:e[-+]?\d+)?')


def same_but_floats(got, expected):
    """Equal except for numbers within a relative 1e-12 (JavaScriptCore and
    V8 round Math functions differently in the last digit)."""
    if len(got) != len(expected):
        return False
    for a, b in zip(got, expected):
        if NUMBER.sub('#', a) != NUMBER.sub('#', b):
            return False
        for x, y in zip(NUMBER.findall(a), NUMBER.findall(b)):
            x, y = float(x), float(y)
            if abs(x - y) > 1e-12 * max(abs(x), abs(y), 1):
                return False
    return True

HEAD = re.compile(r'^exports\[`runs examples > example "(.*)" example index (\d+) \d+`\] = `(.*)$')


def unescape(text):
    # The snapshot file escapes backslashes, backticks and ${ in its template
    # literals; pretty-format then escapes " and \ in strings.
    text = re.sub(r'\\([\\`]|\$\{)', lambda m: m.group(1), text)
    return re.sub(r'\\(["\\])', r'\1', text)


def parse_snapshot(path):
    entries = {}
    key = None
    haps = None
    for line in path.read_text(encoding='utf-8').split('\n'):
        head = HEAD.match(line)
        if head:
            name, index, rest = head.groups()
            key = (name, int(index))
            if rest == '[]`;':
                entries[key] = []
                key = None
            else:
                haps = []
        elif key is not None:
            if line == '`;':
                entries[key] = haps
                key = None
            elif line.startswith('  "') and line.endswith('",'):
                haps.append(unescape(line[3:-2]))
    return entries


class Helper:
    def __init__(self, path):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     encoding='utf-8')
        ready = json.loads(self.proc.stdout.readline())
        assert ready.get('ready'), ready
        self.next_id = 1

    def run(self, code, cycles=4):
        request = {'id': self.next_id, 'code': code, 'cycles': cycles, 'haps': True}
        self.next_id += 1
        self.proc.stdin.write(json.dumps(request) + '\n')
        self.proc.stdin.flush()
        # {"ready":true} comes again after an answer with "restarting".
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get('id') == request['id']:
                return answer

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    helper_path, doc_path, snap_path = sys.argv[1:4]
    report_path = sys.argv[sys.argv.index('--report') + 1] if '--report' in sys.argv else None
    snap_file = Path(snap_path)
    if not snap_path or not snap_file.is_file():
        print(f'1..0 # SKIP no upstream snapshot (configure with -Dupstream_reference=PATH)')
        return 0

    snapshot = parse_snapshot(snap_file)
    docs = json.loads(Path(doc_path).read_text(encoding='utf-8'))['docs']
    helper = Helper(helper_path)

    results = {'match': [], 'float': [], 'page_controls': [], 'differ': [], 'failed': [], 'not_in_snapshot': [],
               'known': []}
    for doc in docs:
        name = doc.get('name')
        if not name or name in UPSTREAM_SKIPS:
            continue
        for index, example in enumerate(doc.get('examples') or []):
            key = (name, index)
            if key not in snapshot:
                results['not_in_snapshot'].append(f'{name}#{index}')
                continue
            answer = helper.run(example)
            label = f'{name}#{index}'
            if not answer.get('ok'):
                entry = {'example': label, 'phase': answer.get('phase'), 'message': answer.get('message')}
                results['known' if name in KNOWN else 'failed'].append(entry)
                continue
            expected = snapshot[key]
            got = answer.get('haps', [])
            if got == expected:
                results['match'].append(label)
                continue
            if same_but_floats(got, expected):
                results['float'].append({'example': label, 'got': next(a for a, b in zip(got, expected) if a != b),
                                         'expected': next(b for a, b in zip(got, expected) if a != b)})
                continue
            if [PAGE_ONLY_CONTROLS.sub('', h) for h in got] == expected:
                results['page_controls'].append(label)
                continue
            first = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
            entry = {'example': label, 'got': len(got), 'expected': len(expected), 'first_difference': first,
                     'got_hap': got[first] if first < len(got) else None,
                     'expected_hap': expected[first] if first < len(expected) else None}
            if name in KNOWN:
                entry['reason'] = KNOWN[name]
            results['known' if name in KNOWN else 'differ'].append(entry)
    helper.close()

    compared = sum(len(results[k]) for k in ('match', 'float', 'page_controls', 'differ', 'failed', 'known'))
    summary = (f"{len(results['match'])}/{compared} examples give upstream's haps exactly, "
               f"{len(results['float'])} up to the last digit of a float, "
               f"{len(results['page_controls'])} with the page's widget controls added; "
               f"{len(results['known'])} known differences of upstream's test, {len(results['differ'])} other "
               f"differences, {len(results['failed'])} rejected; {len(results['not_in_snapshot'])} not in the snapshot")
    if report_path:
        Path(report_path).write_text(json.dumps({'summary': summary, **results}, indent=1) + '\n', encoding='utf-8')

    failures = results['differ'] + results['failed']
    print('1..1')
    for entry in failures:
        print('# ' + json.dumps(entry, ensure_ascii=False)[:600])
    print(f"{'not ok' if failures else 'ok'} 1 - {summary}")
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
