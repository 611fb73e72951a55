// SPDX-License-Identifier: AGPL-3.0-or-later
//
// bench/voice/moonshine: Moonshine tiny (English, MIT, shipped in the npm
// package @moonshine-ai/moonshine-js) on the audio bench-voice --save kept,
// run with onnxruntime-node. Greedy, as Moonshine ships, or (the default)
// with the words held to the jam domain model's vocabulary (a trie of each
// word's tokens) and the domain trigram model (build/data/voice/jam.lm)
// added at each word's end, in a beam search.
//
// Usage: node moonshine.mjs MODEL_DIR LM AUDIO_DIR OUT.tsv
//          [--greedy] [--lambda L (0.5)] [--beam B (8)] [--prefix P] [--threads N (1)]
//          [--no-length-norm]
// Writes one line per .raw file (S16LE, 16 kHz, mono, named S-C-III.raw as
// bench-voice saves them): file, text, decoding time in ms, seconds of audio.

import ort from 'onnxruntime-node';
import tok from 'llama-tokenizer-js';
import fs from 'fs';

const [modelDir, lmPath, audioDir, outPath] = process.argv.slice (2, 6);
const flag = (name, fallback) => {
  const i = process.argv.indexOf (name);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
};
const GREEDY = process.argv.includes ('--greedy');
const LAMBDA = parseFloat (flag ('--lambda', '0.5'));
const BEAM = parseInt (flag ('--beam', '8'));
const PREFIX = flag ('--prefix', '');
const LENGTH_NORM = !process.argv.includes ('--no-length-norm');
const options = { intraOpNumThreads: parseInt (flag ('--threads', '1')), interOpNumThreads: 1,
                  extra: { session: { intra_op: { allow_spinning: '0' } } } };
const encoder = await ort.InferenceSession.create (modelDir + '/encoder_model.onnx', options);
const decoder = await ort.InferenceSession.create (modelDir + '/decoder_model_merged.onnx', options);
/* tiny: 6 layers of 8 heads of 36; base: 8 of 8 of 52 (the model's directory says which). */
const BASE = /\/base\//.test (modelDir + '/');
const LAYERS = BASE ? 8 : 6, HEADS = 8, HEAD_DIM = BASE ? 52 : 36, BOS = 1, EOS = 2, LN10 = Math.log (10);
const PUNCT = new Set ([29889, 29892, 29973, 29991, 29901]);  /* . , ? ! : */

/* The domain model, an ARPA trigram model with back-off. */
const ngrams = [new Map (), new Map (), new Map ()];
{
  let order = 0;
  for (const line of fs.readFileSync (lmPath, 'utf8').split ('\n')) {
    const m = line.match (/^\\(\d)-grams:/);
    if (m) { order = +m[1]; continue; }
    if (!order || !line.trim () || line.startsWith ('\\'))
      continue;
    const f = line.split ('\t');
    ngrams[order - 1].set (f[1], [+f[0], f.length > 2 ? +f[2] : 0]);
  }
}
function lmLog10 (h2, h1, w) {
  let e = ngrams[2].get (`${h2} ${h1} ${w}`);
  if (e) return e[0];
  let backoff = (ngrams[1].get (`${h2} ${h1}`) ?? [0, 0])[1];
  e = ngrams[1].get (`${h1} ${w}`);
  if (e) return backoff + e[0];
  backoff += (ngrams[0].get (h1) ?? [0, 0])[1];
  return backoff + (ngrams[0].get (w) ?? [-7])[0];
}

/* The vocabulary's tokens, lower case and capitalised, in a trie. */
const root = { children: new Map (), word: null };
for (const w of ngrams[0].keys ()) {
  if (w.startsWith ('<')) continue;
  for (const form of new Set ([w, w[0].toUpperCase () + w.slice (1)])) {
    let node = root;
    for (const t of tok.encode (form, false, true)) {
      if (!node.children.has (t)) node.children.set (t, { children: new Map (), word: null });
      node = node.children.get (t);
    }
    node.word = w;
  }
}

function tile (tensor, n) {
  const size = tensor.data.length, out = new Float32Array (size * n);
  for (let b = 0; b < n; b++) out.set (tensor.data, b * size);
  return new ort.Tensor ('float32', out, [n, ...tensor.dims.slice (1)]);
}
const empty = () => new ort.Tensor ('float32', new Float32Array (0), [0, HEADS, 1, HEAD_DIM]);

/* One decoder step for all the beams at once; each beam keeps its own
 * decoder keys and values, the encoder's are shared. */
async function step (hidden, cross, beams, first) {
  const n = beams.length;
  const feeds = { input_ids: new ort.Tensor ('int64', BigInt64Array.from (beams.map (b => BigInt (b.last))), [n, 1]),
                  encoder_hidden_states: tile (hidden, n), use_cache_branch: new ort.Tensor ('bool', [!first]) };
  const past = first ? 0 : beams[0].kv[0].length / (HEADS * HEAD_DIM);
  for (let i = 0; i < LAYERS; i++)
    ['key', 'value'].forEach ((kind, k) => {
      if (first) {
        feeds[`past_key_values.${i}.decoder.${kind}`] = empty ();
        feeds[`past_key_values.${i}.encoder.${kind}`] = empty ();
        return;
      }
      const all = new Float32Array (beams[0].kv[0].length * n);
      beams.forEach ((b, j) => all.set (b.kv[i * 2 + k], j * b.kv[0].length));
      feeds[`past_key_values.${i}.decoder.${kind}`] = new ort.Tensor ('float32', all, [n, HEADS, past, HEAD_DIM]);
      feeds[`past_key_values.${i}.encoder.${kind}`] = cross (n)[`${i}.${kind}`];
    });
  const out = await decoder.run (feeds);
  const kv = beams.map ((_, j) => {
    const r = [];
    for (let i = 0; i < LAYERS; i++)
      for (const kind of ['key', 'value']) {
        const t = out[`present.${i}.decoder.${kind}`], size = t.data.length / n;
        r.push (t.data.slice (j * size, (j + 1) * size));
      }
    return r;
  });
  return [out, kv];
}

async function transcribe (audio) {
  const maxTokens = Math.trunc (audio.length / 16000 * 6) + 4;
  const hidden = (await encoder.run ({ input_values: new ort.Tensor ('float32', audio, [1, audio.length]) })).last_hidden_state;
  let firstOut = null;
  const tiles = new Map ();
  const cross = n => {
    if (!tiles.has (n)) {
      const e = {};
      for (let i = 0; i < LAYERS; i++)
        for (const kind of ['key', 'value'])
          e[`${i}.${kind}`] = tile (firstOut[`present.${i}.encoder.${kind}`], n);
      tiles.set (n, e);
    }
    return tiles.get (n);
  };
  const score = b => b.ac + LAMBDA * b.lm;
  let beams = [{ ac: 0, lm: 0, node: root, hist: ['<s>', '<s>'], words: [], tokens: [], kv: null, last: BOS, boundary: false }];
  const done = [];

  for (let t = 0; t < maxTokens && beams.length > 0; t++) {
    const [out, kv] = await step (hidden, cross, beams, t === 0);
    if (t === 0) firstOut = out;
    const logits = out.logits.data, V = out.logits.dims[2];
    const next = [];
    beams.forEach ((b, j) => {
      const off = j * V;
      let max = -Infinity, sum = 0;
      for (let v = 0; v < V; v++) max = Math.max (max, logits[off + v]);
      for (let v = 0; v < V; v++) sum += Math.exp (logits[off + v] - max);
      const lse = max + Math.log (sum);
      const options = [];
      const offer = (token, kind, child) => options.push ([logits[off + token] - lse, token, kind, child]);
      if (GREEDY) {
        let best = 0;
        for (let v = 1; v < V; v++) if (logits[off + v] > logits[off + best]) best = v;
        offer (best, best === EOS ? 'eos' : 'free', null);
      } else {
        for (const [token, child] of b.node.children) offer (token, 'word', child);
        if (b.node.word !== null || b.boundary) {
          if (b.node !== root) for (const [token, child] of root.children) offer (token, 'new', child);
          if (!b.boundary) for (const token of PUNCT) offer (token, 'punct', null);
          if (b.words.length > 0) offer (EOS, 'eos', null);
        }
        options.sort ((x, y) => y[0] - x[0]);
      }
      for (const [lp, token, kind, child] of options.slice (0, BEAM + 2)) {
        const nb = { ...b, ac: b.ac + lp, node: child, kv: kv[j], last: token, boundary: false, tokens: [...b.tokens, token] };
        if (!GREEDY && kind !== 'word' && b.node.word !== null && b.node !== root) {
          const w = b.node.word;
          nb.lm = b.lm + lmLog10 (b.hist[0], b.hist[1], w) * LN10;
          nb.hist = [b.hist[1], w];
          nb.words = [...b.words, w];
        }
        if (kind === 'punct') { nb.node = root; nb.boundary = true; }
        if (kind === 'eos') {
          nb.lm += GREEDY ? 0 : lmLog10 (nb.hist[0], nb.hist[1], '</s>') * LN10;
          done.push (nb);
          continue;
        }
        next.push (nb);
      }
    });
    next.sort ((x, y) => score (y) - score (x));
    beams = next.slice (0, BEAM);
    if (!LENGTH_NORM && done.length > 0) {
      const best = Math.max (...done.map (score));
      beams = beams.filter (b => score (b) > best);
    }
    if (LENGTH_NORM && done.length >= BEAM)
      break;
  }
  /* Unnormalised, a wider beam finds short texts that stop early ("give"
   * for "give the snare some room"): finished texts are ranked by their
   * score per token, and the search ends when BEAM of them are there. */
  const final = b => LENGTH_NORM ? score (b) / b.tokens.length : score (b);
  const all = done.length > 0 ? done : beams;
  if (all.length === 0) return '';
  all.sort ((x, y) => final (y) - final (x));
  return GREEDY ? tok.decode ([BOS, ...all[0].tokens.filter (t => t !== EOS)]) : all[0].words.join (' ');
}

fs.writeFileSync (outPath, '');
for (const f of fs.readdirSync (audioDir).filter (f => f.endsWith ('.raw') && f.startsWith (PREFIX)).sort ()) {
  const raw = fs.readFileSync (audioDir + '/' + f), n = raw.length / 2, audio = new Float32Array (n);
  for (let i = 0; i < n; i++) audio[i] = raw.readInt16LE (i * 2) / 32768;
  const t0 = performance.now ();
  const text = (await transcribe (audio)).replace (/\s+/g, ' ').trim ();
  fs.appendFileSync (outPath, `${f}\t${text}\t${(performance.now () - t0).toFixed (0)}\t${(n / 16000).toFixed (2)}\n`);
}
