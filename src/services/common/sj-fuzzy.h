/* sj-fuzzy.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* How a query term matched a name, best first.  The order is the ranking
 * order of strudel_knowledge: exact name, exact synonym, a phrase of the
 * concept vocabulary, prefix, fuzzy. */
typedef enum
{
  SJ_MATCH_EXACT = 0,
  SJ_MATCH_SYNONYM,
  SJ_MATCH_CONCEPT,
  SJ_MATCH_PREFIX,
  SJ_MATCH_FUZZY,
  SJ_MATCH_SUBSTRING,
  SJ_MATCH_TEXT,
  SJ_MATCH_NONE,
} SjMatchKind;

#define SJ_FUZZY_MAX_TERM 64

guint        sj_fuzzy_distance        (const char *a,
                                       gsize       a_len,
                                       const char *b,
                                       gsize       b_len,
                                       guint       limit);
guint        sj_fuzzy_allowed_typos   (gsize       term_len);
guint64      sj_fuzzy_mask            (const char *text,
                                       gsize       len);
SjMatchKind  sj_fuzzy_match_name      (const char *term,
                                       gsize       term_len,
                                       guint64     term_mask,
                                       const char *name_lower,
                                       gsize       name_len,
                                       guint64     name_mask,
                                       guint      *out_distance);

G_END_DECLS
