/* sj-reference-index.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-html-text.h"

G_BEGIN_DECLS

typedef struct
{
  char *name;
  char *types;        /* type names joined with " | ", or NULL */
  char *description;  /* plain text */
} SjReferenceParam;

typedef struct
{
  char       *name;
  char      **synonyms;
  char       *description;   /* plain text, paragraphs separated by "\n\n" */
  GPtrArray  *params;        /* of SjReferenceParam */
  char      **examples;
  char      **tags;
  char       *source;        /* the documenting package, e.g. "packages/core" */
  gboolean    callable;      /* exists in the bundled runtime */
} SjReferenceEntry;

/* One searchable key: an entry's name or one of its synonyms. */
typedef struct
{
  const char *lower;
  gsize       len;
  guint64     mask;       /* sj_fuzzy_mask() of lower */
  guint       entry;
  guint       is_synonym : 1;
  guint       callable : 1;
} SjReferenceKey;

#define SJ_TYPE_REFERENCE_INDEX (sj_reference_index_get_type ())

G_DECLARE_FINAL_TYPE (SjReferenceIndex, sj_reference_index, SJ, REFERENCE_INDEX, GObject)

#define SJ_REFERENCE_INDEX_ERROR (sj_reference_index_error_quark ())

typedef enum
{
  SJ_REFERENCE_INDEX_ERROR_INVALID,
} SjReferenceIndexError;

GQuark                  sj_reference_index_error_quark  (void);
SjReferenceIndex       *sj_reference_index_new          (GBytes            *doc_json,
                                                         GBytes            *runtime_scope,
                                                         GError           **error);
SjReferenceIndex       *sj_reference_index_get_bundled  (void);
guint                   sj_reference_index_get_n_entries (SjReferenceIndex *self);
const SjReferenceEntry *sj_reference_index_get_entry    (SjReferenceIndex  *self,
                                                         guint              position);
const SjReferenceEntry *sj_reference_index_lookup       (SjReferenceIndex  *self,
                                                         const char        *name,
                                                         gboolean          *out_is_synonym);
const SjReferenceKey   *sj_reference_index_get_keys     (SjReferenceIndex  *self,
                                                         guint             *n_keys);
gboolean                sj_reference_index_is_callable  (SjReferenceIndex  *self,
                                                         const char        *name);
GArray                 *sj_reference_index_lookup_word  (SjReferenceIndex  *self,
                                                         const char        *word_lower);
gboolean                sj_reference_index_is_global    (SjReferenceIndex  *self,
                                                         const char        *name);
gboolean                sj_reference_index_is_method    (SjReferenceIndex  *self,
                                                         const char        *name);
const char             *sj_reference_index_get_text     (SjReferenceIndex  *self,
                                                         guint              position);

G_END_DECLS
