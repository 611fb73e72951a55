// SPDX-License-Identifier: AGPL-3.0-or-later
//
// superdough and supradough ship their AudioWorklet processors as data: URLs.
// The page's Content-Security-Policy only allows scripts from our own scheme,
// so the build extracts each of those worklets to a file, named in
// worklets.json by the SHA-256 of its data: URL, and this shim loads the file
// instead. The published Strudel code itself is untouched.

let map;

async function sha256Hex(text) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

export function installWorkletMap() {
  if (typeof AudioWorklet === 'undefined') {
    return;
  }
  const addModule = AudioWorklet.prototype.addModule;
  AudioWorklet.prototype.addModule = async function (url, options) {
    if (typeof url === 'string' && url.startsWith('data:')) {
      map ??= fetch('worklets.json').then((response) => response.json(), () => ({}));
      const file = (await map)[await sha256Hex(url)];
      if (file) {
        url = new URL(file, document.baseURI).href;
      }
    }
    return addModule.call(this, url, options);
  };
}
