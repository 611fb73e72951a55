// SPDX-License-Identifier: AGPL-3.0-or-later
//
// The Moonshine engine's tokens (issue 30), written at build time by
// fetch.sh: the LLaMA tokenizer's pieces, one a line (the line number is
// the token), and each word of the jam domain model (data/voice's jam.lm)
// as the tokens Moonshine writes it with, lower case and capitalised,
// "word<TAB>token token ..." a line (src/services/voice/sj-moonshine-lm.c).
//
// Usage: node words.mjs JAM_LM TOKENS_OUT WORDS_OUT

import tok from 'llama-tokenizer-js';
import fs from 'fs';

const [lmPath, tokensPath, wordsPath] = process.argv.slice (2, 5);
const words = [];
let inUnigrams = false;
for (const line of fs.readFileSync (lmPath, 'utf8').split ('\n')) {
  if (line.startsWith ('\\')) {
    inUnigrams = line === '\\1-grams:';
    continue;
  }
  const fields = line.split ('\t');
  if (inUnigrams && fields.length >= 2 && !fields[1].startsWith ('<'))
    words.push (fields[1]);
}
if (words.length === 0)
  throw new Error (`no words in ${lmPath}`);

fs.writeFileSync (tokensPath, tok.vocabById.join ('\n') + '\n');
const out = [];
for (const w of words)
  for (const form of new Set ([w, w[0].toUpperCase () + w.slice (1)]))
    out.push (`${w}\t${tok.encode (form, false, true).join (' ')}`);
fs.writeFileSync (wordsPath, out.join ('\n') + '\n');
