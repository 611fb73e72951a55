/* sj-fuzzy.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Fuzzy matching of query terms against Strudel names.  Names are short
 * ASCII identifiers ("lpf", "RolandTR808_bd", "gm_acoustic_bass"), so a
 * bounded optimal-string-alignment distance (Levenshtein plus adjacent
 * transpositions) is both precise enough for typos and cheap: every call
 * gives up as soon as the distance can no longer stay within the limit.
 */

#include "config.h"

#include <string.h>

#include "sj-fuzzy.h"

/**
 * sj_fuzzy_allowed_typos:
 *
 * The number of edits a term of @term_len bytes may carry and still match:
 * none for very short terms (every two-letter name is one edit away from
 * another), one from four letters, two from eight.
 */
guint
sj_fuzzy_allowed_typos (gsize term_len)
{
  if (term_len < 4)
    return 0;
  if (term_len < 8)
    return 1;
  return 2;
}

/**
 * sj_fuzzy_distance:
 *
 * Returns the optimal-string-alignment distance between @a and @b, or
 * @limit + 1 when it is larger than @limit.  Both strings are compared byte
 * by byte and must be at most %SJ_FUZZY_MAX_TERM bytes long; longer ones are
 * reported as too far apart.
 */
guint
sj_fuzzy_distance (const char *a,
                   gsize       a_len,
                   const char *b,
                   gsize       b_len,
                   guint       limit)
{
  guint rows[3][SJ_FUZZY_MAX_TERM + 1];
  guint *prev2 = rows[0];
  guint *prev = rows[1];
  guint *cur = rows[2];

  if (a_len > SJ_FUZZY_MAX_TERM || b_len > SJ_FUZZY_MAX_TERM)
    return limit + 1;
  if ((a_len > b_len ? a_len - b_len : b_len - a_len) > limit)
    return limit + 1;

  for (gsize j = 0; j <= b_len; j++)
    prev[j] = j;

  for (gsize i = 1; i <= a_len; i++)
    {
      guint row_min;
      guint *tmp;

      cur[0] = i;
      row_min = cur[0];

      for (gsize j = 1; j <= b_len; j++)
        {
          guint cost = a[i - 1] == b[j - 1] ? 0 : 1;
          guint best = prev[j - 1] + cost;

          if (prev[j] + 1 < best)
            best = prev[j] + 1;
          if (cur[j - 1] + 1 < best)
            best = cur[j - 1] + 1;
          if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
              prev2[j - 2] + 1 < best)
            best = prev2[j - 2] + 1;

          cur[j] = best;
          if (best < row_min)
            row_min = best;
        }

      /* Every later row is at least as large as this row's minimum. */
      if (row_min > limit)
        return limit + 1;

      tmp = prev2;
      prev2 = prev;
      prev = cur;
      cur = tmp;
    }

  return prev[b_len] <= limit ? prev[b_len] : limit + 1;
}

/**
 * sj_fuzzy_mask:
 *
 * The set of characters of @text as bits (letters, digits and the rest
 * folded together).  Each character of a term that is missing from a name
 * costs at least one edit, so comparing masks rules out most names before
 * any distance is computed.
 */
guint64
sj_fuzzy_mask (const char *text,
               gsize       len)
{
  guint64 mask = 0;

  for (gsize i = 0; i < len; i++)
    {
      guchar c = g_ascii_tolower (text[i]);

      if (c >= 'a' && c <= 'z')
        mask |= G_GUINT64_CONSTANT (1) << (c - 'a');
      else if (c >= '0' && c <= '9')
        mask |= G_GUINT64_CONSTANT (1) << (26 + c - '0');
      else
        mask |= G_GUINT64_CONSTANT (1) << 36;
    }

  return mask;
}

/**
 * sj_fuzzy_match_name:
 * @term: a lower-cased query term
 * @term_mask: sj_fuzzy_mask() of @term
 * @name_lower: a lower-cased name
 * @name_mask: sj_fuzzy_mask() of @name_lower
 *
 * Classifies how @term matches @name_lower: exactly, as a prefix of the
 * name, within the allowed typos, or as a part of the name (a partial word,
 * at least three letters).  Synonyms are the caller's business: it knows
 * which names are synonyms.
 */
SjMatchKind
sj_fuzzy_match_name (const char *term,
                     gsize       term_len,
                     guint64     term_mask,
                     const char *name_lower,
                     gsize       name_len,
                     guint64     name_mask,
                     guint      *out_distance)
{
  guint limit;
  guint distance;

  if (out_distance != NULL)
    *out_distance = 0;

  if (term_len == 0)
    return SJ_MATCH_NONE;

  if (term_len == name_len && memcmp (term, name_lower, term_len) == 0)
    return SJ_MATCH_EXACT;

  if (term_len < name_len && memcmp (term, name_lower, term_len) == 0)
    return SJ_MATCH_PREFIX;

  limit = sj_fuzzy_allowed_typos (term_len);
  if (limit > 0 && (guint)__builtin_popcountll (term_mask & ~name_mask) <= limit)
    {
      distance = sj_fuzzy_distance (term, term_len, name_lower, name_len, limit);
      if (distance <= limit)
        {
          if (out_distance != NULL)
            *out_distance = distance;
          return SJ_MATCH_FUZZY;
        }

      /* A typo in a prefix: "eucild" for "euclidRot".  Typos rarely hit
       * both of the first two letters, and checking that first skips the
       * distance for almost every name. */
      if (term_len + 1 < name_len &&
          (term[0] == name_lower[0] || term[1] == name_lower[1] || term[0] == name_lower[1]) &&
          sj_fuzzy_distance (term, term_len, name_lower, term_len, limit) <= limit)
        {
          if (out_distance != NULL)
            *out_distance = limit;
          return SJ_MATCH_FUZZY;
        }
    }

  if (term_len >= 3 && term_len < name_len &&
      g_strstr_len (name_lower, name_len, term) != NULL)
    return SJ_MATCH_SUBSTRING;

  return SJ_MATCH_NONE;
}
