// SPDX-License-Identifier: AGPL-3.0-or-later
//
// Sounds loaded before they are needed.
//
// superdough fetches and decodes a sample the first time a note triggers it,
// and a note whose sample is not decoded by its onset is dropped ("loading
// sound … took too long"). On the Strudel website the first hits of a sample
// new to a pattern are therefore lost. Here every pattern is looked at before
// it goes live: the sample files its next cycles trigger are fetched (through
// our scheme, from the native cache) and decoded first, with superdough's own
// loadBuffer(), so they land in the very cache a note reads from.

import { getSoundIndex } from '@strudel/core';
import { getAudioContext, getSampleInfo, loadBuffer, soundMap } from '@strudel/webaudio';
import { getFontBufferSource } from '@strudel/soundfonts';

import { forgetUnavailable, reasonOf, sayUnavailable } from './unavailable.mjs';

// How far a new pattern is looked at. Sounds that first appear later still
// load on their first note, as in Strudel.
export const PRELOAD_CYCLES = 8;
// A query can be arbitrarily dense: this many events are plenty to find the
// sounds and keep the look cheap.
const MAX_EVENTS = 20000;
const MAX_FILES = 256;
// A file that takes longer than this does not hold the change back for ever:
// the change lands and that sound starts when it arrives, as in Strudel.
export const PRELOAD_TIMEOUT_MS = 20000;

const settled = new Map(); // url -> 'loaded' | 'failed'

export function soundName(value) {
  if (value === null || typeof value !== 'object') {
    return undefined;
  }
  let { s, bank } = value;
  if (typeof s !== 'string' || s === '' || ['-', '~', '_'].includes(s)) {
    return undefined;
  }
  if (typeof bank === 'string' && bank !== '') {
    s = `${bank}_${s}`;
  }
  return s.toLowerCase();
}

// What a note needs loaded, keyed so each is loaded once:
//  - a sample: its file, decoded by superdough's loadBuffer (what a note reads);
//  - a soundfont: the font and the pitch's buffer, by the soundfonts
//    package's getFontBufferSource (its own caches);
//  - a wavetable: its file fetched, so it is at least on disk (superdough
//    exports no way to decode a table ahead).
export function fileOf(name, data, value) {
  if (data?.type === 'sample' && data.samples) {
    const { url, index } = getSampleInfo({ ...value, s: name }, data.samples);
    return typeof url === 'string' ? { key: url, sound: name, n: index, load: (ac, label) => loadBuffer(url, ac, label) } : null;
  }
  if (data?.type === 'soundfont' && Array.isArray(data.fonts) && data.fonts.length) {
    const n = getSoundIndex(value.n, data.fonts.length);
    const font = data.fonts[n];
    const note = { note: value.note, freq: value.freq };
    return {
      key: `soundfont:${font}:${String(value.note)}:${String(value.freq)}`,
      sound: name,
      n,
      load: (ac) => getFontBufferSource(font, note, ac),
    };
  }
  if (data?.type === 'wavetable' && data.tables) {
    const { url, index } = getSampleInfo({ ...value, s: name }, data.tables);
    return typeof url === 'string'
      ? { key: url, sound: name, n: index, load: () => fetch(url).then((res) => (res.ok ? res.arrayBuffer() : Promise.reject(new Error(res.statusText)))) }
      : null;
  }
  return null;
}

// The sound a note plays, as preloading and the Console name it ("piano:0",
// "bd:3"), or undefined when it plays none.
export function labelOf(value) {
  const name = soundName(value);
  if (!name) {
    return undefined;
  }
  try {
    const data = soundMap.get()[name]?.data;
    const file = data ? fileOf(name, data, value) : null;
    return file ? `${file.sound}:${file.n}` : name;
  } catch {
    return name;
  }
}

// The files (key -> {sound, n, load}) that `pattern` triggers in [begin, end).
export function sampleFilesOf(pattern, begin, end, controls = {}) {
  const files = new Map();
  if (!pattern?.queryArc) {
    return files;
  }
  let haps;
  try {
    haps = pattern.queryArc(begin, end, controls);
  } catch {
    // The scheduler would hit the same error: nothing to load.
    return files;
  }
  const sounds = soundMap.get();
  for (const hap of haps.slice(0, MAX_EVENTS)) {
    if (!hap.hasOnset?.()) {
      continue;
    }
    const name = soundName(hap.value);
    const data = name ? sounds[name]?.data : undefined;
    if (!data) {
      continue;
    }
    try {
      const file = fileOf(name, data, hap.value);
      if (file && !files.has(file.key)) {
        files.set(file.key, file);
        if (files.size >= MAX_FILES) {
          break;
        }
      }
    } catch {
      // A value superdough could not play either.
    }
  }
  return files;
}

function withTimeout(promise, ms) {
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Fetches and decodes `files` (from sampleFilesOf). Answers which were
// already decoded, which had to load, and which failed (with why, once per
// sound: a pitched map's notes are several files of one "piano:0") or are
// still loading.
export async function preloadFiles(files, { timeoutMs = PRELOAD_TIMEOUT_MS } = {}) {
  const result = { ready: [], loaded: [], failed: [], late: [], failures: [], ms: 0 };
  if (!files.size) {
    return result;
  }
  const t0 = performance.now();
  const ac = getAudioContext();
  const jobs = [];
  const reasons = new Map(); // label -> why it failed
  const errors = new Map(); // label -> the first error
  const add = (list, label) => {
    if (!result[list].includes(label)) {
      result[list].push(label);
    }
  };
  for (const [key, { sound, n, load }] of files) {
    const label = `${sound}:${n}`;
    if (settled.get(key) === 'loaded') {
      add('ready', label);
      continue;
    }
    // A sample is loaded as superdough's getSampleBuffer() loads it (with
    // the same label, so the log reads the same as when a note loads it).
    const job = Promise.resolve()
      .then(() => load(ac, label))
      .then(
        () => {
          settled.set(key, 'loaded');
          return 'loaded';
        },
        (error) => {
          if (!reasons.has(label)) {
            reasons.set(label, reasonOf(error));
            errors.set(label, error);
          }
          return 'failed';
        },
      );
    jobs.push(withTimeout(job, timeoutMs).then((outcome) => add(outcome === 'timeout' ? 'late' : outcome, label)));
  }
  await Promise.all(jobs);
  for (const label of result.failed) {
    const reason = reasons.get(label) ?? 'it could not be loaded';
    result.failures.push({ name: label, reason });
    sayUnavailable(label, errors.get(label) ?? new Error(reason));
  }
  for (const label of result.loaded) {
    if (!reasons.has(label)) {
      forgetUnavailable(label);
    }
  }
  result.ms = Math.round(performance.now() - t0);
  return result;
}

// Both at once: the files `pattern` plays from cycle `from` on, loaded.
export function preloadPattern(pattern, from, controls, options) {
  const begin = Math.max(0, Math.floor(from));
  return preloadFiles(sampleFilesOf(pattern, begin, begin + PRELOAD_CYCLES, controls), options);
}
