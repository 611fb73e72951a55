// SPDX-License-Identifier: AGPL-3.0-or-later
//
// The peer side of bench/knowledge: the lookup a browser implementation of
// strudel_knowledge would do, with Fuse.js in Node over the same data.
//
//   node fuse-bench.mjs DOC_JSON SOUNDS_JSON QUERIES_JSON [PASSES] > out.json
//
// DOC_JSON is the build's jsdoc output, filtered like Strudel's reference
// tab (a name not starting with "_" and a description); SOUNDS_JSON is the
// sound map snapshot (name -> info) or runtime-scope.json (its "sounds").
// Each query searches both collections and keeps the top 5 of each.  Two
// configurations are timed: Fuse's defaults (matches must lie near the
// start of a field: location 0, distance 100), and ignoreLocation, which
// lets a word anywhere in a description match.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// fuse.js is installed (npm ci) into a work directory of the build, named
// by $BENCH_NODE_DIR; without it, next to this script.
const nodeDir = process.env.BENCH_NODE_DIR ?? dirname(new URL(import.meta.url).pathname);
const require = createRequire(join(nodeDir, 'package.json'));
const Fuse = require('fuse.js');
const fuseVersion = JSON.parse(
  readFileSync(join(dirname(require.resolve('fuse.js')), '..', 'package.json'), 'utf8'),
).version;

const [docPath, soundsPath, queriesPath, passesArg, phrasesPath, heldOutPath] = process.argv.slice(2);
if (!queriesPath) {
  console.error('usage: node fuse-bench.mjs DOC_JSON SOUNDS_JSON QUERIES_JSON [PASSES]');
  process.exit(2);
}
const passes = Math.max(1, Number(passesArg ?? 3));

const htmlToText = (html) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();

const docs = JSON.parse(readFileSync(docPath, 'utf8')).docs;
const entries = docs
  .filter((d) => d.name && !d.name.startsWith('_') && d.description)
  .map((d) => ({
    name: d.name,
    synonyms: Array.isArray(d.synonyms) ? d.synonyms : [],
    description: htmlToText(d.description),
  }));

let soundMap = JSON.parse(readFileSync(soundsPath, 'utf8'));
if (soundMap.sounds && typeof soundMap.sounds === 'object') soundMap = soundMap.sounds;
const sounds = Object.keys(soundMap);

const queries = JSON.parse(readFileSync(queriesPath, 'utf8')).queries;

const LIMIT = 5;
const configs = {
  defaults: {},
  ignoreLocation: { ignoreLocation: true },
};

function run(extra) {
  let t0 = process.hrtime.bigint();
  const reference = new Fuse(entries, {
    keys: [
      { name: 'name', weight: 3 },
      { name: 'synonyms', weight: 2 },
      { name: 'description', weight: 1 },
    ],
    includeScore: true,
    threshold: 0.4,
    ...extra,
  });
  const soundIndex = new Fuse(sounds, { includeScore: true, threshold: 0.4, ...extra });
  const buildNs = Number(process.hrtime.bigint() - t0);

  const lookup = (q) => ({
    reference: reference.search(q, { limit: LIMIT }),
    sounds: soundIndex.search(q, { limit: LIMIT }),
  });

  // Warm-up: one pass, so that the JIT has compiled the hot paths.
  let found = 0;
  for (const q of queries) {
    const r = lookup(q);
    if (r.reference.length + r.sounds.length > 0) found++;
  }

  const samples = new Array(queries.length * passes);
  let sink = 0;
  for (let p = 0; p < passes; p++) {
    for (let i = 0; i < queries.length; i++) {
      t0 = process.hrtime.bigint();
      const r = lookup(queries[i]);
      samples[p * queries.length + i] = Number(process.hrtime.bigint() - t0);
      sink += r.reference.length + r.sounds.length;
    }
  }
  return { build_ns: buildNs, found, sink, samples_ns: samples };
}

const out = {
  fuse: fuseVersion,
  node: process.version,
  reference_entries: entries.length,
  sounds: sounds.length,
  n: queries.length,
  passes,
  configs: {},
};
for (const [name, extra] of Object.entries(configs)) out.configs[name] = run(extra);

// The phrase set (category, query, expected): is Fuse's best result, over
// both collections, one of the expected names?  "!names" expects nothing
// found; Fuse has no suggestions, so it is right when it finds nothing.
function judgePhrases(path, member) {
  const rows = readFileSync(path, 'utf8').split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split('\t'))
    .filter((f) => f.length === 3);
  for (const [name, extra] of Object.entries(configs)) {
    const reference = new Fuse(entries, {
      keys: [
        { name: 'name', weight: 3 },
        { name: 'synonyms', weight: 2 },
        { name: 'description', weight: 1 },
      ],
      includeScore: true,
      threshold: 0.4,
      ...extra,
    });
    const soundIndex = new Fuse(sounds, { includeScore: true, threshold: 0.4, ...extra });
    let right = 0;
    for (const [, query, expected] of rows) {
      const r = reference.search(query, { limit: 1 });
      const s = soundIndex.search(query, { limit: 1 });
      const best = [...r.map((x) => [x.score, x.item.name]), ...s.map((x) => [x.score, x.item])]
        .sort((a, b) => a[0] - b[0])[0];
      if (expected.startsWith('!')) right += best === undefined ? 1 : 0;
      else if (best !== undefined && expected.split('|').includes(best[1])) right++;
    }
    out.configs[name][member] = { n: rows.length, right };
  }
}
if (phrasesPath) judgePhrases(phrasesPath, 'phrases');
if (heldOutPath) judgePhrases(heldOutPath, 'held_out');

process.stdout.write(JSON.stringify(out) + '\n');
