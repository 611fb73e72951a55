#!/usr/bin/env python3
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# The jam's domain language model for the offline recogniser, built at
# build time: a corpus of musician requests (templates crossed with the
# project's own vocabulary: the knowledge concepts and their synonyms, the
# sound and bank names, the skills' triggers, mix and arrangement words,
# numbers and tempos), and an interpolated Kneser-Ney trigram model of it in
# ARPA form, which PocketSphinx reads.  Every word of the corpus must have a
# pronunciation in CMUdict or data/voice/jam-extra.dict: a word that lacks
# one fails the build (and --check, the `voice-lm` test of the data suite).
#
# Usage: make-corpus.py --source-root DIR --cmudict FILE
#                       [--corpus OUT.txt] [--arpa OUT.lm] [--check]
#
# The held-out commands of bench/voice (bench/voice/held-out.txt) are never
# read here: they measure what the model does with words it was not made of.

import argparse
import collections
import json
import math
import os
import random
import re
import sys

from corpus_templates import TEMPLATES, SLOTS, PREFIXES, SUFFIXES

SEED = 30
N_SENTENCES = 40000
N_GRAMMAR_SENTENCES = 10000

# ---------------------------------------------------------------- numbers

ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten',
        'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen',
        'nineteen']
TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety']


def under_hundred(n):
    if n < 20:
        return ONES[n]
    return TENS[n // 10] + ('' if n % 10 == 0 else ' ' + ONES[n % 10])


def spoken_numbers(n):
    """The ways a musician says n (0-999): 'one twenty eight', 'a hundred
    and twenty eight', 'one hundred twenty eight', 'one two eight'."""
    if n < 100:
        return [under_hundred(n)]
    h, rest = divmod(n, 100)
    head = ONES[h] + ' hundred'
    ways = []
    if rest == 0:
        ways += [head]
        if h == 1:
            ways += ['a hundred']
    else:
        ways += [head + ' and ' + under_hundred(rest), head + ' ' + under_hundred(rest)]
        if h == 1:
            ways += ['a hundred and ' + under_hundred(rest)]
        if rest < 10:
            ways += [ONES[h] + ' oh ' + ONES[rest]]
        else:
            ways += [ONES[h] + ' ' + under_hundred(rest)]
    return ways


def digits_spoken(digits):
    """'909' -> 'nine oh nine', '808' -> 'eight oh eight', '12' -> 'twelve'."""
    n = int(digits)
    if len(digits) == 3 and digits[1] == '0':
        return ONES[int(digits[0])] + ' oh ' + ONES[int(digits[2])]
    if len(digits) == 3:
        return ONES[int(digits[0])] + ' ' + under_hundred(int(digits[1:]))
    if len(digits) == 4:
        return under_hundred(int(digits[:2])) + ' ' + (under_hundred(int(digits[2:])) if digits[2] != '0' else 'oh ' + ONES[int(digits[3])])
    if n < 100:
        return under_hundred(n)
    return None


# ---------------------------------------------------------- the vocabulary

def read_dictionary(paths):
    words = set()
    for path in paths:
        with open(path, encoding='utf-8') as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith('#'):
                    continue
                word = line.split()[0]
                words.add(re.sub(r'\(\d+\)$', '', word))
    return words


def words_of(phrase):
    return phrase.split()


def concept_phrases(root):
    """The musician's phrases of knowledge/concepts.tsv."""
    phrases = []
    with open(os.path.join(root, 'knowledge', 'concepts.tsv'), encoding='utf-8') as f:
        for line in f:
            if not line.strip() or line.startswith('#') or line.startswith('@'):
                continue
            phrase = line.split('\t')[0].strip().replace('-', ' ')
            if re.fullmatch(r"[a-z' ]+", phrase):
                phrases.append(phrase)
    return phrases


def skill_triggers(root):
    triggers = []
    skills = os.path.join(root, 'data', 'skills')
    for name in sorted(os.listdir(skills)):
        path = os.path.join(skills, name, 'skill.json')
        if not os.path.isfile(path):
            continue
        with open(path, encoding='utf-8') as f:
            skill = json.load(f)
        for trigger in skill.get('triggers', []) + [skill.get('title', '')]:
            trigger = trigger.lower().replace('-', ' ').replace('&', 'and')
            if re.fullmatch(r"[a-z' ]+", trigger):
                triggers.append(trigger)
    return triggers


def split_name(name):
    """'RolandTR909' -> 'roland t r nine oh nine'; 'casio' -> 'casio'."""
    parts = re.findall(r'[A-Z]{2,}(?=[A-Z][a-z]|\d|$)|[A-Z]?[a-z]+|\d+|[A-Z]', name)
    out = []
    for part in parts:
        if part.isdigit():
            spoken = digits_spoken(part)
            if spoken is None:
                return None
            out.append(spoken)
        elif part.isupper() and len(part) <= 3:
            out.append(' '.join(part.lower()))
        else:
            out.append(part.lower())
    return ' '.join(out)


def sound_and_bank_names(root):
    """The banks of the drum machines ('roland t r nine oh nine', 'nine oh
    nine') and the sound names that are words ('casio', 'jazz')."""
    banks, sounds = set(), set()
    maps = os.path.join(root, 'data', 'sounds', 'maps')
    for file in sorted(os.listdir(maps)):
        if not file.endswith('.json'):
            continue
        with open(os.path.join(maps, file), encoding='utf-8') as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError:
                continue
        if not isinstance(data, dict):
            continue
        for key in data:
            if key.startswith('_'):
                continue
            if '_' in key:
                bank = key.split('_')[0]
                spoken = split_name(bank)
                if spoken:
                    banks.add(spoken)
                    numbers = [w for w in spoken.split() if w in ONES or w in TENS or w == 'oh']
                    if len(numbers) >= 3:
                        banks.add(' '.join(numbers))
            elif re.fullmatch(r'[a-z]+', key):
                sounds.add(key)
    return sorted(banks), sorted(sounds)


# ------------------------------------------------------ the grammar's sentences

def read_jsgf(path):
    """The rules of data/voice/jam-commands.gram: name -> expansion tree."""
    with open(path, encoding='utf-8') as f:
        text = re.sub(r'/\*.*?\*/', ' ', f.read(), flags=re.S)
    rules = {}
    for match in re.finditer(r'(?:public\s+)?<(\w+)>\s*=\s*([^;]*);', text):
        tokens = re.findall(r"<\w+>|[()\[\]|]|[^\s()\[\]|<>]+", match.group(2))
        tree, rest = parse_alternatives(tokens, 0)
        rules[match.group(1)] = tree
    return rules


def parse_alternatives(tokens, i):
    alternatives, sequence = [], []
    while i < len(tokens) and tokens[i] not in (')', ']'):
        token = tokens[i]
        if token == '|':
            alternatives.append(('seq', sequence))
            sequence = []
            i += 1
        elif token in ('(', '['):
            inner, i = parse_alternatives(tokens, i + 1)
            sequence.append(inner if token == '(' else ('opt', inner))
            i += 1
        elif token.startswith('<'):
            sequence.append(('ref', token[1:-1]))
            i += 1
        else:
            sequence.append(('word', token))
            i += 1
    alternatives.append(('seq', sequence))
    return ('alt', alternatives), i


def sample_jsgf(rules, node, rng):
    kind, value = node
    if kind == 'word':
        return [value]
    if kind == 'ref':
        return sample_jsgf(rules, rules[value], rng)
    if kind == 'opt':
        return sample_jsgf(rules, value, rng) if rng.random() < 0.5 else []
    if kind == 'alt':
        return sample_jsgf(rules, rng.choice(value), rng)
    return [w for part in value for w in sample_jsgf(rules, part, rng)]


# ---------------------------------------------------------------- the corpus

def expand(template, slots, rng):
    def pick(match):
        name = match.group(1)
        choice = rng.choice(slots[name])
        return expand(choice, slots, rng) if '{' in choice else choice
    return re.sub(r'\{(\w+)\}', pick, template)


def build_corpus(root, known):
    slots = {name: list(values) for name, values in SLOTS.items()}
    skipped = collections.Counter()

    def usable(phrases, what):
        out = []
        for phrase in phrases:
            missing = [w for w in words_of(phrase) if w not in known]
            if missing:
                skipped[what] += 1
            else:
                out.append(phrase)
        return sorted(set(out))

    slots['concept'] = usable(concept_phrases(root), 'concept')
    slots['trigger'] = usable(skill_triggers(root), 'trigger')
    banks, sounds = sound_and_bank_names(root)
    slots['bank'] = usable(banks, 'bank')
    slots['soundname'] = usable(sounds, 'sound')
    slots['tempo'] = [w for n in range(60, 201) for w in spoken_numbers(n)]
    slots['count'] = [under_hundred(n) for n in range(1, 33)]
    slots['percent'] = [under_hundred(n) for n in range(5, 100, 5)] + ['a hundred']

    rng = random.Random(SEED)
    sentences = []
    weighted = [t for t, weight in TEMPLATES for _ in range(weight)]
    for _ in range(N_SENTENCES):
        sentence = expand(rng.choice(weighted), slots, rng)
        if rng.random() < 0.06:
            sentence = rng.choice(PREFIXES) + ' ' + sentence
        if rng.random() < 0.12:
            sentence = sentence + ' ' + rng.choice(SUFFIXES)
        sentences.append(' '.join(sentence.split()))
    # The grammar's own sentences: what the commands were first written as.
    rules = read_jsgf(os.path.join(root, 'data', 'voice', 'jam-commands.gram'))
    for _ in range(N_GRAMMAR_SENTENCES):
        sentences.append(' '.join(sample_jsgf(rules, rules['command'], rng)))
    # Every phrase of the vocabulary at least once on its own.
    for name in ('concept', 'trigger', 'bank', 'soundname', 'tempo'):
        sentences += slots[name]
    return sentences, slots, skipped


# ------------------------------------------------ the Kneser-Ney trigram

def kneser_ney_arpa(sentences, out):
    counts = [collections.Counter() for _ in range(4)]
    for sentence in sentences:
        words = ['<s>'] + sentence.split() + ['</s>']
        for n in (1, 2, 3):
            for i in range(len(words) - n + 1):
                gram = tuple(words[i:i + n])
                if gram == ('<s>',):
                    continue
                counts[n][gram] += 1

    # Lower orders count the distinct words before them (continuation
    # counts), except for n-grams that start the sentence.
    cont = [collections.Counter() for _ in range(4)]
    for gram in counts[3]:
        cont[2][gram[1:]] += 1
    for gram in counts[2]:
        cont[1][gram[1:]] += 1
    def count(n, gram):
        if n == 3 or gram[0] == '<s>':
            return counts[n][gram]
        return cont[n][gram]

    def discount(n):
        values = collections.Counter(count(n, g) for g in counts[n])
        n1, n2 = values[1], values[2]
        return n1 / (n1 + 2 * n2) if n1 + n2 > 0 else 0.5

    d = {n: discount(n) for n in (1, 2, 3)}
    vocab = sorted({g[0] for g in counts[1]} | {'<s>'})

    # Unigrams: discounted continuation counts interpolated with uniform.
    total1 = sum(count(1, (w,)) for w in vocab if w != '<s>')
    types1 = sum(1 for w in vocab if w != '<s>' and count(1, (w,)) > 0)
    p1 = {}
    for w in vocab:
        if w == '<s>':
            continue
        p1[w] = max(count(1, (w,)) - d[1], 0) / total1 + d[1] * types1 / total1 / (len(vocab) - 1)

    def context_stats(n):
        totals, types = collections.Counter(), collections.Counter()
        for gram in counts[n]:
            c = count(n, gram)
            totals[gram[:-1]] += c
            types[gram[:-1]] += 1
        return totals, types

    tot2, typ2 = context_stats(2)
    tot3, typ3 = context_stats(3)

    p2 = {}
    for gram in counts[2]:
        h = gram[:-1]
        p2[gram] = max(count(2, gram) - d[2], 0) / tot2[h] + d[2] * typ2[h] / tot2[h] * p1[gram[1]]

    def prob2(gram):
        if gram in p2:
            return p2[gram]
        h = gram[:-1]
        return bow2.get(h, 1.0) * p1[gram[1]]

    bow1 = {}
    for h in tot2:
        bow1[h] = d[2] * typ2[h] / tot2[h]
    bow2 = {}
    p3 = {}
    for gram in counts[3]:
        h = gram[:-1]
        p3[gram] = max(count(3, gram) - d[3], 0) / tot3[h] + d[3] * typ3[h] / tot3[h] * p2.get(gram[1:], bow1.get(gram[1:2], 1.0) * p1[gram[2]])
    for h in tot3:
        bow2[h] = d[3] * typ3[h] / tot3[h]

    def lg(x):
        return math.log10(x)

    with open(out, 'w', encoding='utf-8') as f:
        f.write('# The jam domain language model, made by data/voice/make-corpus.py:\n')
        f.write('# interpolated Kneser-Ney trigram, discounts %s.\n' % ', '.join('%.3f' % d[n] for n in (1, 2, 3)))
        f.write('\n\\data\\\n')
        f.write('ngram 1=%d\nngram 2=%d\nngram 3=%d\n\n' % (len(vocab), len(p2), len(p3)))
        f.write('\\1-grams:\n')
        for w in vocab:
            p = -99.0 if w == '<s>' else lg(p1[w])
            if (w,) in bow1:
                f.write('%.6f\t%s\t%.6f\n' % (p, w, lg(bow1[(w,)])))
            else:
                f.write('%.6f\t%s\n' % (p, w))
        f.write('\n\\2-grams:\n')
        for gram in sorted(p2):
            if gram in bow2:
                f.write('%.6f\t%s\t%.6f\n' % (lg(p2[gram]), ' '.join(gram), lg(bow2[gram])))
            else:
                f.write('%.6f\t%s\n' % (lg(p2[gram]), ' '.join(gram)))
        f.write('\n\\3-grams:\n')
        for gram in sorted(p3):
            f.write('%.6f\t%s\n' % (lg(p3[gram]), ' '.join(gram)))
        f.write('\n\\end\\\n')

    return vocab, p1, p2, p3, bow1, bow2


def check_model(vocab, p1, p2, p3, bow1, bow2):
    """Each context's distribution over the vocabulary sums to 1."""
    words = [w for w in vocab if w != '<s>']
    assert abs(sum(p1.values()) - 1) < 1e-6, 'unigrams sum to %f' % sum(p1.values())
    successors2 = collections.defaultdict(dict)
    for gram, p in p2.items():
        successors2[gram[:1]][gram[1]] = p
    for h, seen in list(successors2.items())[:200]:
        total = sum(seen.values()) + bow1[h] * sum(p1[w] for w in words if w not in seen)
        assert abs(total - 1) < 1e-4, 'P(.|%s) sums to %f' % (h, total)
    successors3 = collections.defaultdict(dict)
    for gram, p in p3.items():
        successors3[gram[:2]][gram[2]] = p

    def prob2(h, w):
        return p2.get(h + (w,), bow1.get(h, 1.0) * p1[w])
    for h, seen in list(successors3.items())[:200]:
        total = sum(seen.values()) + bow2[h] * sum(prob2(h[1:], w) for w in words if w not in seen)
        assert abs(total - 1) < 1e-4, 'P(.|%s) sums to %f' % (' '.join(h), total)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--source-root', required=True)
    parser.add_argument('--cmudict', required=True)
    parser.add_argument('--corpus')
    parser.add_argument('--arpa')
    parser.add_argument('--check', action='store_true')
    args = parser.parse_args()

    extra = os.path.join(args.source_root, 'data', 'voice', 'jam-extra.dict')
    known = read_dictionary([args.cmudict, extra])

    # The templates' own words must all be pronounceable: a missing one
    # is a word to add to jam-extra.dict, not one to drop.
    template_words = set()
    for template, _ in TEMPLATES:
        template_words |= set(re.sub(r'\{\w+\}', ' ', template).split())
    for values in SLOTS.values():
        for value in values:
            template_words |= set(re.sub(r'\{\w+\}', ' ', value).split())
    for phrase in PREFIXES + SUFFIXES:
        template_words |= set(phrase.split())
    missing = sorted(w for w in template_words if w not in known)
    if missing:
        sys.exit('make-corpus: no pronunciation for %s: add them to data/voice/jam-extra.dict' % ', '.join(missing))

    sentences, slots, skipped = build_corpus(args.source_root, known)
    corpus_words = {w for s in sentences for w in s.split()}
    missing = sorted(corpus_words - known)
    if missing:
        sys.exit('make-corpus: corpus words without a pronunciation: %s' % ', '.join(missing))

    if args.corpus:
        with open(args.corpus, 'w', encoding='utf-8') as f:
            f.write('\n'.join(sentences) + '\n')
    arpa = args.arpa or os.devnull
    model = kneser_ney_arpa(sentences, arpa)
    if args.check:
        check_model(*model)
        distinct = len(set(sentences))
        assert distinct >= 5000, 'only %d distinct sentences' % distinct
        for name in ('concept', 'trigger', 'bank', 'soundname'):
            assert len(slots[name]) > 0, 'no %s vocabulary' % name
        print('1..1')
        print('ok 1 - %d sentences (%d distinct), %d words, all pronounceable; '
              'vocabulary: %d concepts, %d triggers, %d banks, %d sound names; skipped without a pronunciation: %s'
              % (len(sentences), distinct, len(corpus_words), len(slots['concept']), len(slots['trigger']),
                 len(slots['bank']), len(slots['soundname']), dict(skipped)))


if __name__ == '__main__':
    main()
