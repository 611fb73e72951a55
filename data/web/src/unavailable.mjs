// SPDX-License-Identifier: AGPL-3.0-or-later
//
// Sounds that cannot be had, said once and never decoded.
//
// superdough's loadBuffer() fetches a sample and decodes whatever body comes
// back, whatever its status: an answer of our scheme that says why a file
// cannot be had (an HTTP error, its body the reason, as SjWebAssets answers)
// became "[sampler] … loaded 74 B" and then "Decoding failed". And
// loadBuffer keeps the failed promise, so every later note of that sample
// fails again, and @strudel/core's getTrigger logs "[getTrigger] error: …"
// for each one (its logger only drops a repeat within one second).
//
// Here, in our page only (the npm packages are untouched):
//  - the page's fetch() refuses an answer of our sound hosts that is not a
//    success: it rejects with the reason the app gave, so nothing that is
//    not a sound reaches decodeAudioData;
//  - a note whose sound failed to load is said once in the Console, per
//    sound ("piano:0"), with that reason, not once per note; and not at
//    all when the app has said it already (the sound cache and the remote
//    samples say each file they cannot serve, once, in the Console), so a
//    sound is one line whoever noticed first;
//  - preload.mjs keeps the reason of each file that failed, so that a change
//    whose sounds cannot be had is refused naming them and why (swap.mjs).

import { logger } from '@strudel/core';

// Where our scheme serves sounds from (library.mjs, remote.mjs).
const SOUND_PREFIXES = ['strudel-jam://sounds/', 'strudel-jam://remote/'];

// A failure of a sound's file, with the app's reason. `saidByApp`: the app
// has put that reason in the Console itself (the library's files and the
// remote ones; not the user's folders, which only answer).
export class SoundUnavailableError extends Error {
  constructor(reason, url) {
    super(reason);
    this.name = 'SoundUnavailableError';
    this.url = url;
    this.saidByApp = !url.startsWith('strudel-jam://sounds/user/');
  }
}

function urlOf(input) {
  if (typeof input === 'string') {
    return input;
  }
  if (input instanceof URL) {
    return input.href;
  }
  return typeof input?.url === 'string' ? input.url : '';
}

function isSoundUrl(url) {
  return SOUND_PREFIXES.some((prefix) => url.startsWith(prefix));
}

// Replaces the page's fetch() with one that rejects a failed answer of our
// sound hosts (anything but 2xx), with its body as the reason.
export function installSoundFetchGuard(target = globalThis) {
  const original = target.fetch;
  if (typeof original !== 'function' || original.sjGuarded) {
    return;
  }
  const guarded = async function (input, init) {
    const response = await original.call(this ?? target, input, init);
    const url = urlOf(input);
    if (response.ok || !isSoundUrl(url)) {
      return response;
    }
    let text = '';
    try {
      text = (await response.text()).trim();
    } catch {
      // No body to read: the status says enough.
    }
    throw new SoundUnavailableError(text || `the app answered ${response.status}`, url);
  };
  guarded.sjGuarded = true;
  target.fetch = guarded;
}

// Whether `error` is a sound that could not be had (our guard, the network,
// or a body the audio decoder refused), as opposed to a mistake in the code.
export function isLoadFailure(error) {
  if (error instanceof SoundUnavailableError) {
    return true;
  }
  const name = String(error?.name ?? '');
  const message = String(error?.message ?? error ?? '');
  return name === 'EncodingError' || /decod|load failed|failed to fetch|networkerror/i.test(message);
}

// A short reason for the Console and the app: the app's own sentence, or
// the decoder's.
export function reasonOf(error) {
  if (error instanceof SoundUnavailableError) {
    return error.message;
  }
  const message = String(error?.message ?? error ?? 'unknown error');
  return /decod/i.test(message) ? `it is not a sound the page can decode (${message})` : message;
}

const said = new Map(); // "piano:0" -> reason said in the Console

// Says once in the Console that `label` ("piano:0") cannot be played
// because of `error`, and why, unless the app said it already. Answers
// whether this call said it.
export function sayUnavailable(label, error) {
  const reason = reasonOf(error);
  if (said.get(label) === reason) {
    return false;
  }
  if (error instanceof SoundUnavailableError && error.saidByApp) {
    said.set(label, reason);
    return false;
  }
  said.set(label, reason);
  logger(`[strudel-jam] ${label} is unavailable: ${reason}; its notes are silent`, 'error');
  return true;
}

// A sound that loaded after all is said again if it ever fails again.
export function forgetUnavailable(label) {
  said.delete(label);
}
