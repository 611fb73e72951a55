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
