// SPDX-License-Identifier: AGPL-3.0-or-later
//
// Generates Strudel's function reference (doc.json) from the JSDoc comments of
// the installed npm packages, the way upstream Strudel does for its monorepo:
// jsdoc + the jsdoc-json template + a plugin for the `@synonyms` tag.
//
//   node build-docs.mjs <node_modules parent dir> <output doc.json>
//
// meta.path is rewritten from the install location to upstream's monorepo
// layout ("packages/core", "packages/superdough", ...), so entries compare
// one to one with upstream's doc.json and do not leak the build directory.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [workDir, outFile] = process.argv.slice(2).map((p) => p && path.resolve(p));
if (!workDir || !outFile) {
  console.error('usage: node build-docs.mjs <dir with node_modules> <output doc.json>');
  process.exit(2);
}
const nodeModules = path.join(workDir, 'node_modules');

// npm package -> upstream monorepo directory. The same packages upstream
// documents, as far as they are published on npm: @strudel/midi is a
// devDependency for this only (the page does not bundle it);
// @strudel/motion is not on npm; @strudel/csound (whose @csound/browser
// drags in ~100 MB of build tools) and @strudel/osc (whose serialport
// dependency ships native binaries) are left out, one entry each.
const PACKAGES = {
  '@strudel/codemirror': 'packages/codemirror',
  '@strudel/core': 'packages/core',
  '@strudel/draw': 'packages/draw',
  '@strudel/midi': 'packages/midi',
  '@strudel/mini': 'packages/mini',
  '@strudel/soundfonts': 'packages/soundfonts',
  '@strudel/tonal': 'packages/tonal',
  '@strudel/transpiler': 'packages/transpiler',
  '@strudel/webaudio': 'packages/webaudio',
  superdough: 'packages/superdough',
  supradough: 'packages/supradough',
};

// Build output, tests and benchmarks carry no reference entries; nested
// node_modules are other packages (e.g. a second @strudel/core).
const SKIP_DIRS = new Set(['node_modules', 'dist', 'test', 'tests', 'bench']);
const SOURCE = /\.(m?js|jsx)$/;

function sources(dir) {
  const found = [];
  // Byte order of names, directories recursed in place, like upstream's run.
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) {
        found.push(...sources(file));
      }
    } else if (SOURCE.test(entry.name)) {
      found.push(file);
    }
  }
  return found;
}

// In upstream's directory order, so doclets come in the same order as there.
const roots = Object.entries(PACKAGES)
  .map(([name, upstream]) => ({ root: path.join(nodeModules, name), upstream }))
  .sort((a, b) => (a.upstream < b.upstream ? -1 : a.upstream > b.upstream ? 1 : 0));
const files = roots.flatMap(({ root }) => sources(root));

// Absolute install path -> upstream-style relative path.
function relative(p) {
  for (const { root, upstream } of roots) {
    if (p === root || p.startsWith(root + path.sep)) {
      return path.posix.join(upstream, ...path.relative(root, p).split(path.sep));
    }
  }
  return p;
}

const config = structuredClone(createRequire(import.meta.url)('./jsdoc.config.cjs'));
config.plugins = config.plugins.map((p) => (p.startsWith('./') ? path.join(here, p) : p));
config.source = { ...config.source, include: files };

const tmp = mkdtempSync(path.join(workDir, 'jsdoc-'));
try {
  const configFile = path.join(tmp, 'jsdoc.json');
  const rawFile = path.join(tmp, 'doc.json');
  writeFileSync(configFile, JSON.stringify(config));
  const started = performance.now();
  const run = spawnSync(
    process.execPath,
    [path.join(nodeModules, 'jsdoc', 'jsdoc.js'), '-c', configFile, '-t', path.join(nodeModules, 'jsdoc-json'), '-d', rawFile],
    { cwd: workDir, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (run.status !== 0) {
    throw new Error(`build-docs: jsdoc failed (${run.error?.message ?? `exit ${run.status}`})`);
  }

  const doc = JSON.parse(readFileSync(rawFile, 'utf8'));
  for (const doclet of doc.docs) {
    if (doclet.meta?.path) {
      doclet.meta.path = relative(doclet.meta.path);
    }
    if (Array.isArray(doclet.files)) {
      doclet.files = doclet.files.map(relative);
    }
  }
  // Written beside the target, then renamed: never a half-written doc.json.
  writeFileSync(`${outFile}.tmp`, JSON.stringify(doc, null, 2) + '\n');
  renameSync(`${outFile}.tmp`, outFile);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`strudel-jam doc.json: ${doc.docs.length} doclets from ${files.length} files (jsdoc ${seconds} s)`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
