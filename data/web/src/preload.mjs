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

import { getAudioContext, getSampleInfo, loadBuffer, soundMap } from '@strudel/webaudio';

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

function soundName(value) {
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

// The sample files (url -> {sound, n}) that `pattern` triggers in [begin, end).
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
    if (data?.type !== 'sample' || !data.samples) {
      continue;
    }
    try {
      const value = { ...hap.value, s: name };
      const { url, index } = getSampleInfo(value, data.samples);
      if (typeof url === 'string' && !files.has(url)) {
        files.set(url, { sound: name, n: index });
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
// already decoded, which had to load, and which failed or are still loading.
export async function preloadFiles(files, { timeoutMs = PRELOAD_TIMEOUT_MS } = {}) {
  const result = { ready: [], loaded: [], failed: [], late: [], ms: 0 };
  if (!files.size) {
    return result;
  }
  const t0 = performance.now();
  const ac = getAudioContext();
  const jobs = [];
  for (const [url, { sound, n }] of files) {
    const label = `${sound}:${n}`;
    if (settled.get(url) === 'loaded') {
      result.ready.push(label);
      continue;
    }
    // Called as superdough's getSampleBuffer() calls it, so the log reads
    // the same as when a note loads it.
    const job = loadBuffer(url, ac, label).then(
      () => {
        settled.set(url, 'loaded');
        return 'loaded';
      },
      () => 'failed',
    );
    jobs.push(withTimeout(job, timeoutMs).then((outcome) => result[outcome === 'timeout' ? 'late' : outcome].push(label)));
  }
  await Promise.all(jobs);
  result.ms = Math.round(performance.now() - t0);
  return result;
}

// Both at once: the files `pattern` plays from cycle `from` on, loaded.
export function preloadPattern(pattern, from, controls, options) {
  const begin = Math.max(0, Math.floor(from));
  return preloadFiles(sampleFilesOf(pattern, begin, begin + PRELOAD_CYCLES, controls), options);
}
