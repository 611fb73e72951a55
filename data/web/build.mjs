// SPDX-License-Identifier: AGPL-3.0-or-later
//
// Bundles the Strudel Jam page from the pinned npm packages with esbuild and
// writes a GResource description of the result.
//
//   node build.mjs <node_modules parent dir> <output dir>

import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [workDir, outDir] = process.argv.slice(2).map((p) => path.resolve(p));
if (!workDir || !outDir) {
  console.error('usage: node build.mjs <dir with node_modules> <output dir>');
  process.exit(2);
}

const require = createRequire(path.join(workDir, 'package.json'));
const esbuild = require('esbuild');
const nodeModules = path.join(workDir, 'node_modules');

const version = (name) => JSON.parse(readFileSync(path.join(nodeModules, name, 'package.json'), 'utf8')).version;
const versions = Object.fromEntries(
  ['@strudel/codemirror', '@strudel/core', '@strudel/mini', '@strudel/tonal', '@strudel/transpiler',
   '@strudel/webaudio', '@strudel/draw', '@strudel/soundfonts', 'superdough'].map((name) => [name, version(name)]),
);

rmSync(outDir, { recursive: true, force: true });
mkdirSync(path.join(outDir, 'worklets'), { recursive: true });

const result = await esbuild.build({
  entryPoints: [path.join(here, 'src', 'app.mjs')],
  outfile: path.join(outDir, 'app.js'),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['safari16'],
  minify: true,
  legalComments: 'eof',
  nodePaths: [nodeModules],
  define: {
    'process.env.NODE_ENV': '"production"',
    __STRUDEL_VERSIONS__: JSON.stringify(versions),
  },
  logLevel: 'warning',
  metafile: true,
});

// Extract the AudioWorklet processors that the packages embed as data: URLs
// (see src/worklets.mjs for why).
const bundle = readFileSync(path.join(outDir, 'app.js'), 'utf8');
const worklets = {};
for (const [url, payload] of bundle.matchAll(/data:text\/javascript;base64,([A-Za-z0-9+/=]+)/g)) {
  const digest = createHash('sha256').update(url).digest('hex');
  const file = `worklets/${digest.slice(0, 16)}.js`;
  writeFileSync(path.join(outDir, file), Buffer.from(payload, 'base64'));
  worklets[digest] = file;
}
writeFileSync(path.join(outDir, 'worklets.json'), JSON.stringify(worklets));

for (const file of ['index.html', 'app.css', 'bridge-world.js', 'timer-worker.js']) {
  copyFileSync(path.join(here, 'src', file), path.join(outDir, file));
}
writeFileSync(path.join(outDir, 'versions.json'), JSON.stringify(versions, null, 2));

const files = ['index.html', 'app.css', 'app.js', 'bridge-world.js', 'timer-worker.js', 'worklets.json', 'versions.json', ...Object.values(worklets)];
const xml = [
  '<?xml version="1.0" encoding="UTF-8"?>',
  '<gresources>',
  '  <gresource prefix="/io/github/strudeljam/StrudelJam/web">',
  ...files.map((f) => `    <file${f.endsWith('.json') || f.endsWith('.html') || f.endsWith('.css') ? ' compressed="true"' : ''}>${f}</file>`),
  '  </gresource>',
  '</gresources>',
  '',
].join('\n');
writeFileSync(path.join(outDir, 'web.gresource.xml'), xml);

const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
console.log(`strudel-jam web bundle: ${(bytes / 1024).toFixed(0)} KiB, ${Object.keys(worklets).length} worklets`);
