// SPDX-License-Identifier: AGPL-3.0-or-later
//
// @strudel/core's repl() creates a kabelsalat REPL for K(...) audio graphs,
// which needs an AudioWorklet. A dry-run has no audio: this stands in for
// @kabelsalat/web (esbuild alias in build-dryrun.mjs), and a K(...) call
// fails with a clear message instead of touching Web Audio.

export class SalatRepl {
  evaluate() {
    throw new Error('K(...) (kabelsalat) cannot be dry-run: it builds an audio graph');
  }
}
