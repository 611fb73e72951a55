// SPDX-License-Identifier: AGPL-3.0-or-later
//
// Bundles the dry-run engine (dryrun/entry.mjs) from the same pinned npm
// packages as the page, into one classic script for a bare JavaScriptCore
// context (strudel-jam-dryrun), and writes the GResource description that
// compiles it into the helper.
//
//   node build-dryrun.mjs <node_modules parent dir> <runtime-scope.json> <output dryrun.js>
//
// The page's runtime names (runtime-scope.json) go into the bundle, so that
// the static checks know every name the page knows, and so do the names
// @strudel/codemirror exports: the editor needs a DOM and is not bundled,
// its exports are stand-ins in the same evalScope() position as the page's.

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [workDir, scopeFile, outFile] = process.argv.slice(2).map((p) => p && path.resolve(p));
if (!workDir || !scopeFile || !outFile) {
  console.error('usage: node build-dryrun.mjs <dir with node_modules> <runtime-scope.json> <output dryrun.js>');
  process.exit(2);
}

const esbuild = createRequire(path.join(workDir, 'package.json'))('esbuild');
const nodeModules = path.join(workDir, 'node_modules');

// The export names of @strudel/codemirror, from esbuild's own analysis.
const codemirror = await esbuild.build({
  stdin: { contents: "export * from '@strudel/codemirror';", resolveDir: workDir, loader: 'js' },
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'browser',
  outfile: 'codemirror-exports.js',
  nodePaths: [nodeModules],
  metafile: true,
  logLevel: 'error',
});
const codemirrorExports = Object.values(codemirror.metafile.outputs).flatMap((o) => o.exports ?? []).sort();
if (codemirrorExports.length < 10 || !codemirrorExports.includes('sliderWithID')) {
  throw new Error('build-dryrun: cannot list the exports of @strudel/codemirror');
}

const { globals, methods } = JSON.parse(readFileSync(scopeFile, 'utf8'));

const result = await esbuild.build({
  entryPoints: [path.join(here, 'dryrun', 'entry.mjs')],
  outfile: `${outFile}.tmp`,
  bundle: true,
  format: 'iife',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  target: ['safari16'],
  minify: true,
  legalComments: 'eof',
  nodePaths: [nodeModules],
  alias: { '@kabelsalat/web': path.join(here, 'dryrun', 'kabelsalat-stub.mjs') },
  define: {
    'process.env.NODE_ENV': '"production"',
    __SJ_PAGE_SCOPE__: JSON.stringify({ globals, methods }),
    __SJ_CODEMIRROR_EXPORTS__: JSON.stringify(codemirrorExports),
  },
  logLevel: 'warning',
  metafile: true,
});
renameSync(`${outFile}.tmp`, outFile);

const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
console.log(`strudel-jam dry-run bundle: ${(bytes / 1024).toFixed(0)} KiB`);
