# SPDX-License-Identifier: AGPL-3.0-or-later
"""Writes the strudel_knowledge queries of bench/knowledge, the same for both sides.

    make_queries.py DOC_JSON SOUNDS_JSON OUT_JSON [--count N] [--seed S]

DOC_JSON is the build's jsdoc output ({"docs": [...]}); SOUNDS_JSON is a
sound map (name -> {type, tag?, ...}) or runtime-scope.json (its "sounds").
The mix is deterministic for a given seed and input: function names,
synonyms, typos, prefixes, natural-language questions, sound and bank
lookups, category listings, plain English words and names that exist
nowhere.  Python 3 standard library only.
"""

import argparse
import json
import random
import re
import string
import sys

# Words a musician types that are not (all) Strudel names.
ENGLISH = [
    "bright", "dark", "warm", "groove", "swing", "shuffle", "echo", "reverb",
    "loud", "quiet", "punchy", "wide", "distant", "filter", "sweep", "chord",
    "melody", "bass", "drums", "kick", "snare", "hat", "cymbal", "arpeggio",
    "random", "tempo", "faster", "slower", "reverse", "stereo", "distortion",
    "crush", "volume", "pitch", "octave", "scale", "minor", "major", "rhythm",
    "pattern", "loop", "sample", "synth", "piano", "strings", "pad", "lead",
    "pluck", "ambient", "techno", "house", "jungle", "trap", "dub", "acid",
    "texture", "noise", "silence", "tension", "riser", "drop", "buildup",
    "euclid", "polyrhythm", "phase", "glitch", "stutter", "sidechain",
]

NOT_FOUND = [
    "trancegate", "wobblebass", "superreverb", "autotune", "vocoder",
    "granulate", "timestretch", "bitcrusher", "megadrive", "sidechainer",
    "TR606", "linndrum9000", "quantize", "humanize", "metronome",
]

QUESTIONS_FN = [
    "what does {} do",
    "how do I use {}",
    "what are the params for {} and give an example",
    "is {} valid in strudel",
    "symbol:{}",
    "{} example",
    "explain {}",
    "show {}-related functions",
]

QUESTIONS_SOUND = [
    "is {} available",
    "sound {}",
    "which {} sounds are there",
    "list {} samples",
]

FREE = [
    "how to make reverb in strudel",
    "list drum-machine sounds like bd sd hh",
    "list synths",
    "list user sounds",
    "list wavetables",
    "list samples",
    "sounds:drum-machines",
    "sounds drum-machines",
    "sounds:synths",
    "show euclid-related functions",
    "808 drums",
    "909 kick",
    "roland drum machines",
    "how do I make it swing",
    "make the hihats faster",
    "how can I add delay to a synth",
    "low pass filter",
    "what is a cycle",
    "slow down the pattern",
    "play notes in a scale",
]


def typo(rng, word):
    """One edit a hurried typist makes: drop, double, swap or replace."""
    if len(word) < 3:
        return word + rng.choice(string.ascii_lowercase)
    i = rng.randrange(1, len(word))
    kind = rng.randrange(4)
    if kind == 0:
        return word[:i] + word[i + 1:]
    if kind == 1:
        return word[:i] + word[i] + word[i:]
    if kind == 2 and i + 1 < len(word):
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    return word[:i] + rng.choice(string.ascii_lowercase) + word[i + 1:]


def pseudo_word(rng):
    syllables = ["zor", "bla", "qui", "vex", "mun", "dra", "kel", "op", "ty", "ux", "fim", "gro"]
    return "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))


def load_sounds(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if "sounds" in data and isinstance(data["sounds"], dict):
        data = data["sounds"]
    return sorted(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("doc_json")
    parser.add_argument("sounds_json")
    parser.add_argument("out_json")
    parser.add_argument("--count", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=20251222)
    args = parser.parse_args()

    with open(args.doc_json, encoding="utf-8") as f:
        docs = json.load(f)["docs"]
    entries = [d for d in docs if d.get("name") and not d["name"].startswith("_") and d.get("description")]
    names = sorted({d["name"] for d in entries})
    synonyms = sorted({s for d in entries for s in (d.get("synonyms") or []) if isinstance(s, str)})
    sounds = load_sounds(args.sounds_json)
    banks = sorted({s.split("_", 1)[0] for s in sounds if "_" in s})
    short_sounds = sorted({s.split("_", 1)[1] for s in sounds if "_" in s} | {s for s in sounds if "_" not in s})
    if not synonyms:
        synonyms = names

    rng = random.Random(args.seed)

    # Each generator returns (kind, query); the weights make the mix.
    generators = [
        (14, lambda: ("function", rng.choice(names))),
        (6, lambda: ("synonym", rng.choice(synonyms))),
        (10, lambda: ("typo", typo(rng, rng.choice(names)))),
        (6, lambda: ("prefix", (lambda n: n[: rng.randint(2, max(2, min(5, len(n) - 1)))])(rng.choice(names)))),
        (14, lambda: ("question", rng.choice(QUESTIONS_FN).format(rng.choice(names)))),
        (8, lambda: ("sound", rng.choice(sounds))),
        (4, lambda: ("sound-typo", typo(rng, rng.choice(short_sounds)))),
        (6, lambda: ("sound-question", rng.choice(QUESTIONS_SOUND).format(rng.choice(short_sounds)))),
        (4, lambda: ("bank", rng.choice(banks) if banks else rng.choice(sounds))),
        (4, lambda: ("bank-drums", "{} drums".format(re.sub(r"^\D*", "", rng.choice(banks)) or rng.choice(banks)) if banks else "808 drums")),
        (8, lambda: ("free", rng.choice(FREE))),
        (8, lambda: ("word", rng.choice(ENGLISH))),
        (4, lambda: ("words", " ".join(rng.sample(ENGLISH, rng.randint(2, 4))))),
        (4, lambda: ("not-found", rng.choice(NOT_FOUND) if rng.random() < 0.4 else pseudo_word(rng))),
    ]
    total = sum(w for w, _ in generators)
    queries = []
    kinds = []
    counts = {}
    for _ in range(args.count):
        pick = rng.uniform(0, total)
        for weight, gen in generators:
            pick -= weight
            if pick <= 0:
                break
        kind, query = gen()
        queries.append(query)
        kinds.append(kind)
        counts[kind] = counts.get(kind, 0) + 1

    with open(args.out_json, "w", encoding="utf-8") as f:
        json.dump({"seed": args.seed, "counts": counts, "queries": queries, "kinds": kinds}, f, indent=0, ensure_ascii=False)
        f.write("\n")
    print(f"{len(queries)} queries ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})", file=sys.stderr)


if __name__ == "__main__":
    main()
