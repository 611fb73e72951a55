// SPDX-License-Identifier: AGPL-3.0-or-later
//
// jsdoc plugin for Strudel's `@synonyms a, b` tag. Strudel documents the
// aliases of a function on the function's own comment; its reference and
// autocompletion read them from the doclet as `synonyms` (a list of names)
// and `synonyms_text` (the tag as written), so both are kept here too.

'use strict';

// Names are separated by commas and/or blanks: "sound", "trans, t", "a b".
function parseSynonyms(text) {
  return String(text)
    .split(/[\s,]+/)
    .filter((name) => name.length > 0);
}

exports.parseSynonyms = parseSynonyms;

exports.defineTags = function defineTags(dictionary) {
  dictionary.defineTag('synonyms', {
    mustHaveValue: true,
    onTagged(doclet, tag) {
      // A comment may repeat the tag (upstream's `source` says `@synonyms src`
      // twice): later tags only add names not listed yet.
      const known = doclet.synonyms ?? [];
      const added = parseSynonyms(tag.value).filter((name, i, all) => !known.includes(name) && all.indexOf(name) === i);
      if (known.length === 0) {
        doclet.synonyms_text = tag.value;
      } else if (added.length > 0) {
        doclet.synonyms_text = `${doclet.synonyms_text}, ${added.join(', ')}`;
      }
      doclet.synonyms = [...known, ...added];
    },
  });
};
