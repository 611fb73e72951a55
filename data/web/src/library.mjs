// SPDX-License-Identifier: AGPL-3.0-or-later
//
// The sound library (data/sounds): the sample maps the Strudel website
// registers at start-up, bundled into the script by esbuild, registered the
// way the website's prebake does (library.json lists each pack once, with
// the website's options, in its order; the bank aliases come after). Shared
// by the page and the dry-run helper, so that both know the same sounds.
//
// Every pack's base is our own scheme, strudel-jam://sounds/<pack>/: the C
// side answers those requests from its cache or downloads the file once
// (SjSoundCache). Registering fetches nothing; a sample loads when it is
// first played.

import library from '../../sounds/library.json';
import piano from '../../sounds/maps/piano.json';
import vcsl from '../../sounds/maps/vcsl.json';
import tidalDrumMachines from '../../sounds/maps/tidal-drum-machines.json';
import uzuDrumkit from '../../sounds/maps/strudel.json';
import uzuWavetables from '../../sounds/maps/uzu-wavetables.json';
import mridangam from '../../sounds/maps/mridangam.json';
import dirtSamples from '../../sounds/maps/Dirt-Samples.json';
import aliases from '../../sounds/maps/tidal-drum-machines-alias.json';

export const SOUNDS_URL = 'strudel-jam://sounds/';

const MAPS = {
  'piano.json': piano,
  'vcsl.json': vcsl,
  'tidal-drum-machines.json': tidalDrumMachines,
  'strudel.json': uzuDrumkit,
  'uzu-wavetables.json': uzuWavetables,
  'mridangam.json': mridangam,
  'Dirt-Samples.json': dirtSamples,
  'tidal-drum-machines-alias.json': aliases,
};

function mapOf(file) {
  const map = MAPS[file];
  if (!map) {
    // library.json names a map this module does not import.
    throw new Error(`the sound library has no map ${file}`);
  }
  return map;
}

// Where superdough fetches a pack's files from. `base` is our scheme except
// in a plain browser opened by bench/sounds (app.mjs, ?sounds=).
export function packUrl(pack, base = SOUNDS_URL) {
  return `${base}${pack}/`;
}

// Registers every pack with superdough's samples(map, base, {prebake, tag}),
// in library.json's order, then the bank aliases with aliasBank(). The
// map's own _base is left out: samples() would register it as a sound named
// "_base" (the website's sounds tab hides it), and our base replaces it.
//
// superdough's registerSound() writes each sound with the store's setKey(),
// which copies the whole sound map: 1,653 copies of a growing map, most of
// the website's start-up cost for sounds. The very same registrations are
// written once here: while samples() runs (synchronously, for a map given
// as an object), setKey is stood in for on this store instance only, and
// what it would have written is set in one write. Strudel is not changed.
//
// Answers the milliseconds spent registering (for bench/sounds).
export async function registerLibrary({ samples, aliasBank, soundMap }, base = SOUNDS_URL) {
  const t0 = performance.now();
  const pending = {};
  const setKey = soundMap.setKey;
  const registered = [];
  soundMap.setKey = (key, value) => {
    pending[key] = value;
  };
  try {
    for (const { id, map, options } of library.packs) {
      const { _base, ...sounds } = mapOf(map);
      registered.push(samples(sounds, packUrl(id, base), { ...options }));
    }
  } finally {
    soundMap.setKey = setKey;
    soundMap.set({ ...soundMap.get(), ...pending });
  }
  let ms = performance.now() - t0;
  await Promise.all(registered);
  const t1 = performance.now();
  // aliasBank() adds lower-case keys to the object it is given.
  await aliasBank({ ...mapOf(library.aliases.map) });
  ms += performance.now() - t1;
  return ms;
}

// The soundfonts' files (<font>.js) come through the same scheme.
export function soundfontUrl(base = SOUNDS_URL) {
  return `${base}${library.soundfonts.id}`;
}

// The pack a sound was registered from, for the dry-run's report.
export const packs = library.packs.map(({ id }) => id);

// The user's own folders of samples (SjUserSamples): each folder a pack of
// its own, strudel-jam://sounds/user/<folder id>/<path>, answered from the
// disk by the C side.
export function userPackUrl(id) {
  return `${SOUNDS_URL}user/${id}/`;
}

// superdough's registerSound() key.
const soundKey = (name) => name.toLowerCase().replace(/\s+/g, '_');

function checkUserPacks(packs) {
  if (!Array.isArray(packs)) {
    throw new TypeError('the user packs must be an array');
  }
  for (const pack of packs) {
    if (typeof pack?.id !== 'string' || !/^[0-9a-f]{1,64}$/.test(pack.id) || !pack.map || typeof pack.map !== 'object') {
      throw new TypeError('a user pack is {id, map}');
    }
    for (const files of Object.values(pack.map)) {
      if (!Array.isArray(files) || files.some((file) => typeof file !== 'string')) {
        throw new TypeError('a user sound is an array of paths');
      }
    }
  }
}

// What registerUserSamples() put in the sound map: name → {entry, replaced}.
const userSounds = new Map();

// Registers the user's packs with samples(map, base) and no prebake, as the
// Strudel website registers imported sounds (the sounds tab's "user"), in
// their order and after the library: an equal name replaces the library's,
// as a later samples() call would. Calling it again replaces the previous
// set. superdough cannot unregister a sound, so the names no longer given
// are taken out of its soundMap (a nanostore) with soundMap.set(), and a
// sound they had replaced is put back; a name the code registered since is
// left alone. Returns the names registered.
export async function registerUserSamples({ samples, soundMap }, packs) {
  checkUserPacks(packs);
  const sounds = { ...soundMap.get() };
  let changed = false;
  for (const [name, { entry, replaced }] of userSounds) {
    if (sounds[name] !== entry) continue;
    if (replaced) sounds[name] = replaced;
    else delete sounds[name];
    changed = true;
  }
  userSounds.clear();
  if (changed) {
    soundMap.set(sounds);
  }

  const before = soundMap.get();
  for (const { id, map } of packs) {
    await samples(map, userPackUrl(id));
  }
  const after = soundMap.get();
  for (const { map } of packs) {
    for (const name of Object.keys(map).map(soundKey)) {
      userSounds.set(name, { entry: after[name], replaced: before[name] });
    }
  }
  return [...userSounds.keys()];
}
