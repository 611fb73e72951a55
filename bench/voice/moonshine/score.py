#!/usr/bin/env python3
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# score.py ROOT HYP.tsv [-v]: the word error rate and whole-command accuracy
# of moonshine.mjs's texts, per set, with bench-voice's normalisation (and its
# edit distance); numbers written in digits ("120") count as the words said
# ("one twenty", "one hundred twenty"), whichever is nearer the reference.
import re, sys, statistics
W = sys.argv[1]
tuned = re.findall(r'^  "([^"]+)",$', open(W + '/tests/sj-test-voice.c').read(), re.M)[:30]
held = [l.strip() for l in open(W + '/bench/voice/held-out.txt') if l.strip() and not l.startswith('#')]
ONES = 'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split()
TENS = 'x x twenty thirty forty fifty sixty seventy eighty ninety'.split()
def two(n):
    if n < 20: return ONES[n]
    return TENS[n // 10] + ('' if n % 10 == 0 else ' ' + ONES[n % 10])
def spoken(n):
    variants = []
    if n < 100: variants.append(two(n))
    elif n < 1000:
        h, r = divmod(n, 100)
        if r == 0: variants.append(ONES[h] + ' hundred')
        else:
            variants.append(ONES[h] + ' ' + (two(r) if r >= 10 else 'oh ' + ONES[r]))
            variants.append(ONES[h] + ' hundred ' + two(r))
            variants.append(ONES[h] + ' hundred and ' + two(r))
    else: variants.append(str(n))
    return variants
def normalize(t):
    out = []
    for c in t.lower():
        out.append(c if (c.isalnum() or c == "'") else ' ')
    return ' '.join(''.join(out).split())
def variants(t):
    t = normalize(t)
    res = ['']
    for w in t.split():
        alts = [w]
        m = re.fullmatch(r'(\d+)(st|nd|rd|th|s)?', w)
        if m:
            alts = spoken(int(m.group(1)))
        res = [(r + ' ' + a).strip() for r in res for a in alts][:16]
    return res
def ed(r, h):
    r, h = r.split(), h.split()
    row = list(range(len(h) + 1))
    for i in range(1, len(r) + 1):
        diag, row[0] = row[0], i
        for j in range(1, len(h) + 1):
            above = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, diag + (r[i - 1] != h[j - 1]))
            diag = above
    return row[len(h)]
sets = {0: ('tuned', tuned), 1: ('held-out', held)}
acc = {}
lat = {}
bad = []
for line in open(sys.argv[2]):
    f, hyp, ms, dur = line.rstrip('\n').split('\t')
    s, c, i = map(int, f[:-4].split('-'))
    ref = sets[s][1][i]
    e = min(ed(normalize(ref), v) for v in variants(hyp))
    a = acc.setdefault(s, [0, 0, 0, 0])
    a[0] += e; a[1] += len(normalize(ref).split()); a[2] += e == 0; a[3] += 1
    lat.setdefault(s, []).append(float(ms))
    if e and '-v' in sys.argv: bad.append(f'  [{sets[s][0]} {c}] "{ref}" heard as "{hyp}"')
if bad: print("\n".join(bad))
for s, a in sorted(acc.items()):
    l = sorted(lat[s])
    print(f'{sets[s][0]}: WER {100*a[0]/a[1]:.1f} % ({a[0]}/{a[1]} words), word for word {100*a[2]/a[3]:.1f} % ({a[2]}/{a[3]}), decode median {statistics.median(l):.0f} ms p90 {l[int(len(l)*0.9)]:.0f} ms')
