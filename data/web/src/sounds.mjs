// SPDX-License-Identifier: AGPL-3.0-or-later
//
// The sound snapshot: each registered sound name mapped to the fields the
// Strudel sounds tab uses ({type, tag?, prebake, count?}).

function countOf(data) {
  if (Array.isArray(data?.samples)) {
    return data.samples.length;
  }
  if (data?.samples && typeof data.samples === 'object') {
    return Object.keys(data.samples).length;
  }
  if (Array.isArray(data?.tables)) {
    return data.tables.length;
  }
  if (Array.isArray(data?.fonts)) {
    return data.fonts.length;
  }
  return undefined;
}

export function soundSnapshot(map) {
  const sounds = {};
  for (const [name, sound] of Object.entries(map)) {
    const data = sound?.data ?? {};
    const entry = { type: String(data.type ?? 'unknown'), prebake: Boolean(data.prebake) };
    if (data.tag !== undefined) {
      entry.tag = String(data.tag);
    }
    const count = countOf(data);
    if (count !== undefined) {
      entry.count = count;
    }
    sounds[name] = entry;
  }
  return sounds;
}

// Registrations come in bursts (hundreds of names at once), so changes are
// coalesced and the snapshot is sent once the burst is over.
export function watchSounds(store, send) {
  let timer = 0;
  const flush = () => send(soundSnapshot(store.get()));
  store.listen(() => {
    clearTimeout(timer);
    timer = setTimeout(flush, 150);
  });
  flush();
}
