// SPDX-License-Identifier: AGPL-3.0-or-later
//
// samples() for the musician's code, through the app: the page never talks
// to the network. samples('github:user/repo'), samples('https://…/strudel.json')
// and samples({…}, 'https://…/') are resolved exactly as superdough 1.3.0's
// samples() resolves them (sampler.mjs: fetchSampleMap, processSampleMap,
// resolveSpecialPaths, githubPath; util.mjs: getBaseURL), but the map is
// fetched from strudel-jam://remote/map/<scheme>/<host>/<path> and every
// file it lists becomes strudel-jam://remote/file/<scheme>/<host>/<path>.
// The C side (SjRemoteSamples) answers both: from its cache, or by
// downloading once while downloads are allowed. The map, every file an
// absolute address on our scheme, then goes to superdough's own samples().
// Shared with the dry-run, which records the address a map comes from
// (resolveMapUrl) so that the C side can tell whether it has that map.

export const REMOTE_URL = 'strudel-jam://remote/';

// bubo:<name> is one of Bubobubobubobubo's dough-<name> repositories.
function resolveSpecialPaths(base) {
  return base.startsWith('bubo:') ? `github:Bubobubobubobubo/dough-${base.split(':')[1]}` : base;
}

// github:user[/repo[/branch[/folder…]]] names a file of a GitHub repository
// as raw.githubusercontent.com serves it: the repository is "samples" and
// the branch "main" unless given (superdough's rule), and one trailing "/"
// is ignored. Without @file, the folder itself, ending in "/".
function githubPath(base, file = '') {
  const [user, repo = 'samples', branch = 'main', ...folders] = base
    .slice('github:'.length)
    .replace(/\/$/, '')
    .split('/');
  return `https://raw.githubusercontent.com/${[user, repo, branch, ...folders, file].join('/')}`;
}

// A base as processSampleMap() resolves it.
function resolveBase(base) {
  base = resolveSpecialPaths(base);
  return base.startsWith('github:') ? githubPath(base) : base;
}

// The address fetchSampleMap() fetches a map named by a string from.
export function resolveMapUrl(source) {
  let url = resolveSpecialPaths(source);
  if (url.startsWith('github:')) {
    url = githubPath(url, 'strudel.json');
  }
  if (url.startsWith('local:')) {
    url = 'http://localhost:5432';
  }
  if (url.startsWith('shabda:')) {
    const [, path] = url.split('shabda:');
    url = `https://shabda.ndre.gr/${path}.json?strudel=1`;
  }
  if (url.startsWith('shabda/speech')) {
    let [, path] = url.split('shabda/speech');
    path = path.startsWith('/') ? path.substring(1) : path;
    const [params, words] = path.split(':');
    let gender = 'f';
    let language = 'en-GB';
    if (params) {
      [language, gender] = params.split('/');
    }
    url = `https://shabda.ndre.gr/speech/${words}.json?gender=${gender}&language=${language}&strudel=1'`;
  }
  return url;
}

export const isWebUrl = (url) => typeof url === 'string' && /^https?:\/\//i.test(url);

// superdough's getBaseURL() (its util.mjs): the folder, without its "/".
export function getBaseURL(url) {
  try {
    return new URL('.', new URL(url)).href.replace(/\/$/, '');
  } catch {
    return url.split('/').slice(0, -1).join('/');
  }
}

// A host the C side keeps a folder for (is_host_name() in
// sj-remote-samples-address.c). "https://../x.wav" parses with the host
// "..", which on our scheme would be a dot segment of our own path: such
// an address is not sent at all.
const isHostName = (host) => /^[A-Za-z0-9_:[\]-][A-Za-z0-9._:[\]-]*$/.test(host);

// What a file that cannot be addressed becomes: a request the C side
// refuses, so that superdough fails on it as on any file it cannot load.
export const UNADDRESSABLE = `${REMOTE_URL}file/unaddressable`;

// An http(s) address on our scheme; anything else as it is (superdough
// fails on it as it would), or null for an http(s) address whose host is
// no host name. A file's "#" is part of its name (superdough's
// loadBuffer() escapes it too).
export function remoteUrl(url, kind = 'file') {
  if (!isWebUrl(url)) {
    return url;
  }
  let parsed;
  try {
    parsed = new URL(kind === 'file' ? url.replaceAll('#', '%23') : url);
  } catch {
    return url;
  }
  if (!isHostName(parsed.host)) {
    return null;
  }
  return `${REMOTE_URL}${kind}/${parsed.protocol.slice(0, -1)}/${parsed.host}${parsed.pathname}${parsed.search}`;
}

// The map as processSampleMap() reads it (a _base an entry sets holds for
// the entries after it), each file made an absolute address on our scheme.
// The map's own _base is left out, as for the sound library: superdough
// would register it as a sound named "_base". Values superdough refuses
// stay as they are, so that it refuses them with its own words. A file
// that cannot be addressed is said to @warn (the Console), as the C side
// says a file it cannot have.
export function rewriteMap(sampleMap, baseUrl, warn = () => {}) {
  let base = baseUrl;
  const rewritten = {};
  for (const [key, entry] of Object.entries(sampleMap)) {
    if (key === '_base') {
      continue;
    }
    const value = typeof entry === 'string' ? [entry] : entry;
    if (value === null || typeof value !== 'object') {
      rewritten[key] = entry;
      continue;
    }
    base = resolveBase(value._base || base);
    // Named as the C side names a sound's files: <name>:<index>, counted
    // over all its notes.
    let index = 0;
    const full = (file) => {
      const address = remoteUrl(base + file);
      const label = `${key}:${index++}`;
      if (address !== null) {
        return address;
      }
      warn(`${label} could not be downloaded: ${base + file} is not an http or https address of a file`);
      return UNADDRESSABLE;
    };
    if (Array.isArray(value)) {
      rewritten[key] = value.map(full);
    } else {
      rewritten[key] = Object.fromEntries(
        Object.entries(value)
          .filter(([note]) => note !== '_base')
          .map(([note, files]) => [note, (typeof files === 'string' ? [files] : files).map(full)]),
      );
    }
  }
  return rewritten;
}

// The C side answers a map it cannot give with one sentence for the
// console (503 when it is not downloaded and the app is offline).
async function fetchMap(url) {
  const address = remoteUrl(url, 'map');
  if (address === null) {
    throw new Error(`The sample map ${url} could not be loaded: it is not an http or https address of a file`);
  }
  const response = await fetch(address);
  if (!response.ok) {
    throw new Error((await response.text()) || `The sample map ${url} could not be loaded: ${response.status}`);
  }
  return response.json();
}

// samples() as the page's scope has it: superdough's own `samples`, given
// maps whose every file comes through our scheme. A map that cannot be had
// fails it as superdough's fails (the transpiler awaits a bare samples(),
// so the evaluation fails and the music plays on unchanged), with the C
// side's sentence.
export function remoteSamples(samples, warn = () => {}) {
  const wrapped = async (sampleMap, baseUrl, options = {}) => {
    if (typeof sampleMap === 'string') {
      const url = resolveMapUrl(sampleMap);
      if (!isWebUrl(url)) {
        throw new Error(`The sample map ${sampleMap} could not be loaded: only http and https addresses can be`);
      }
      const json = await fetchMap(url);
      return wrapped(json, baseUrl || json._base || getBaseURL(url), options);
    }
    if (sampleMap === null || typeof sampleMap !== 'object') {
      return samples(sampleMap, baseUrl, options);
    }
    const base = baseUrl === undefined ? sampleMap._base || '' : baseUrl;
    return samples(rewriteMap(sampleMap, base, warn), '', options);
  };
  return wrapped;
}
