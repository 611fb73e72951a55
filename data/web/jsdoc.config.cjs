// SPDX-License-Identifier: AGPL-3.0-or-later
//
// jsdoc settings for Strudel's reference (doc.json), as upstream Strudel
// generates it. build-docs.mjs adds the list of source files and resolves
// the local plugin path before handing this to jsdoc.

'use strict';

module.exports = {
  tags: {
    // Strudel uses its own tags (@noAutocomplete, @superdirtOnly): keep them
    // as "tags" on the doclet, where its reference and autocompletion look.
    allowUnknownTags: true,
    dictionaries: ['jsdoc', 'closure'],
  },
  source: {
    includePattern: '\\.(m?js|jsx)$',
    // build-docs.mjs picks the files itself; jsdoc's default pattern would
    // drop every file whose name starts with "_".
    excludePattern: '',
  },
  sourceType: 'module',
  // markdown: descriptions as HTML like upstream's ("<p>...</p>").
  plugins: ['plugins/markdown', './jsdoc-synonyms.cjs'],
  templates: {
    cleverLinks: false,
    monospaceLinks: false,
  },
};
