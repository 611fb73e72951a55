/* sj-knowledge-query.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Reads the intent of a free-form strudel_knowledge query.  The model
 * writes whatever comes to mind ("what does fast do", "808 drums",
 * "is trancegate valid", "symbol:room", "sounds:drum-machines",
 * "sounds available offline"), so no
 * syntax is required: the words that carry intent (list, valid, params,
 * sounds, synths…) are recognised and set aside, and the remaining words
 * are the terms to look up.
 */

#include "config.h"

#include <string.h>

#include "sj-knowledge-query.h"

typedef enum
{
  WORD_STOP = 1 << 0,      /* carries no meaning for the lookup */
  WORD_LIST = 1 << 1,      /* asks for several results */
  WORD_DETAIL = 1 << 2,    /* asks about one thing */
  WORD_VALIDITY = 1 << 3,  /* asks whether something exists */
  WORD_REFERENCE = 1 << 4, /* about functions */
  WORD_SOUNDS = 1 << 5,    /* about sounds */
  WORD_OFFLINE = 1 << 6,   /* what plays with no network */
} WordClass;

static const struct {
  const char *word;
  guint       classes;
} words[] = {
  /* English glue. */
  { "a", WORD_STOP }, { "an", WORD_STOP }, { "the", WORD_STOP }, { "of", WORD_STOP },
  { "in", WORD_STOP }, { "on", WORD_STOP }, { "to", WORD_STOP }, { "for", WORD_STOP },
  { "and", WORD_STOP }, { "or", WORD_STOP }, { "with", WORD_STOP }, { "i", WORD_STOP },
  { "me", WORD_STOP }, { "my", WORD_STOP }, { "it", WORD_STOP }, { "this", WORD_STOP },
  { "that", WORD_STOP }, { "can", WORD_STOP }, { "could", WORD_STOP }, { "should", WORD_STOP },
  { "do", WORD_STOP }, { "you", WORD_STOP }, { "we", WORD_STOP }, { "there", WORD_STOP },
  { "any", WORD_STOP }, { "some", WORD_STOP }, { "maybe", WORD_STOP }, { "exact", WORD_STOP },
  { "name", WORD_STOP }, { "names", WORD_STOP }, { "forgot", WORD_STOP }, { "called", WORD_STOP },
  { "strudel", WORD_STOP }, { "please", WORD_STOP }, { "get", WORD_STOP }, { "use", WORD_STOP },
  { "using", WORD_STOP }, { "make", WORD_STOP }, { "add", WORD_STOP }, { "about", WORD_STOP },
  { "are", WORD_STOP }, { "was", WORD_STOP }, { "be", WORD_STOP }, { "by", WORD_STOP },
  { "from", WORD_STOP }, { "like", WORD_STOP | WORD_LIST }, { "something", WORD_STOP },
  { "want", WORD_STOP }, { "need", WORD_STOP }, { "find", WORD_STOP }, { "look", WORD_STOP },
  { "up", WORD_STOP }, { "tell", WORD_STOP }, { "give", WORD_STOP }, { "work", WORD_STOP },
  { "works", WORD_STOP }, { "way", WORD_STOP }, { "thing", WORD_STOP }, { "things", WORD_STOP },
  { "if", WORD_STOP }, { "which", WORD_STOP | WORD_LIST }, { "kind", WORD_STOP },
  /* Several results. */
  { "list", WORD_STOP | WORD_LIST }, { "show", WORD_STOP | WORD_LIST },
  { "all", WORD_STOP | WORD_LIST }, { "related", WORD_STOP | WORD_LIST },
  { "similar", WORD_STOP | WORD_LIST }, { "search", WORD_STOP | WORD_LIST },
  { "other", WORD_STOP | WORD_LIST }, { "alternatives", WORD_STOP | WORD_LIST },
  /* One thing in detail. */
  { "what", WORD_STOP | WORD_DETAIL }, { "does", WORD_STOP | WORD_DETAIL },
  { "how", WORD_STOP | WORD_DETAIL }, { "explain", WORD_STOP | WORD_DETAIL },
  { "describe", WORD_STOP | WORD_DETAIL }, { "detail", WORD_STOP | WORD_DETAIL },
  { "details", WORD_STOP | WORD_DETAIL }, { "usage", WORD_STOP | WORD_DETAIL },
  { "syntax", WORD_STOP | WORD_DETAIL }, { "signature", WORD_STOP | WORD_DETAIL },
  { "params", WORD_STOP | WORD_DETAIL | WORD_REFERENCE },
  { "param", WORD_STOP | WORD_DETAIL | WORD_REFERENCE },
  { "parameters", WORD_STOP | WORD_DETAIL | WORD_REFERENCE },
  { "parameter", WORD_STOP | WORD_DETAIL | WORD_REFERENCE },
  { "arguments", WORD_STOP | WORD_DETAIL | WORD_REFERENCE },
  { "example", WORD_STOP | WORD_DETAIL | WORD_REFERENCE },
  { "examples", WORD_STOP | WORD_DETAIL | WORD_REFERENCE },
  { "doc", WORD_STOP | WORD_DETAIL | WORD_REFERENCE },
  { "docs", WORD_STOP | WORD_DETAIL | WORD_REFERENCE },
  { "api", WORD_STOP | WORD_REFERENCE }, { "reference", WORD_STOP | WORD_REFERENCE },
  { "function", WORD_STOP | WORD_REFERENCE }, { "functions", WORD_STOP | WORD_REFERENCE | WORD_LIST },
  { "method", WORD_STOP | WORD_REFERENCE }, { "methods", WORD_STOP | WORD_REFERENCE | WORD_LIST },
  { "symbol", WORD_STOP | WORD_VALIDITY | WORD_REFERENCE },
  /* Existence. */
  { "is", WORD_STOP | WORD_VALIDITY }, { "valid", WORD_STOP | WORD_VALIDITY },
  { "exist", WORD_STOP | WORD_VALIDITY }, { "exists", WORD_STOP | WORD_VALIDITY },
  { "defined", WORD_STOP | WORD_VALIDITY }, { "real", WORD_STOP | WORD_VALIDITY },
  { "available", WORD_STOP | WORD_VALIDITY }, { "loaded", WORD_STOP | WORD_VALIDITY | WORD_SOUNDS },
  { "supported", WORD_STOP | WORD_VALIDITY },
  /* Sounds. */
  { "sounds", WORD_STOP | WORD_SOUNDS | WORD_LIST }, { "bank", WORD_STOP | WORD_SOUNDS },
  { "banks", WORD_STOP | WORD_SOUNDS | WORD_LIST }, { "kit", WORD_STOP | WORD_SOUNDS },
  { "kits", WORD_STOP | WORD_SOUNDS | WORD_LIST }, { "instrument", WORD_STOP | WORD_SOUNDS },
  { "instruments", WORD_STOP | WORD_SOUNDS | WORD_LIST }, { "machines", WORD_STOP | WORD_SOUNDS },
  { "machine", WORD_STOP | WORD_SOUNDS }, { "soundfont", WORD_STOP | WORD_SOUNDS },
  { "soundfonts", WORD_STOP | WORD_SOUNDS | WORD_LIST },
  /* Availability. */
  { "offline", WORD_STOP | WORD_SOUNDS | WORD_OFFLINE },
};

static const struct {
  const char      *word;
  SjSoundCategory  category;
} category_words[] = {
  { "drums", SJ_SOUND_CATEGORY_DRUMS }, { "drum", SJ_SOUND_CATEGORY_DRUMS },
  { "synths", SJ_SOUND_CATEGORY_SYNTHS }, { "synth", SJ_SOUND_CATEGORY_SYNTHS },
  { "soundfonts", SJ_SOUND_CATEGORY_SYNTHS },
  { "wavetables", SJ_SOUND_CATEGORY_WAVETABLES }, { "wavetable", SJ_SOUND_CATEGORY_WAVETABLES },
  { "samples", SJ_SOUND_CATEGORY_SAMPLES }, { "user", SJ_SOUND_CATEGORY_USER },
};

static const char * const domain_names[] = { "auto", "reference", "sounds" };
static const char * const mode_names[] = { "auto", "search", "detail", "list" };

const char *
sj_knowledge_domain_to_string (SjKnowledgeDomain domain)
{
  g_return_val_if_fail (domain < G_N_ELEMENTS (domain_names), NULL);
  return domain_names[domain];
}

gboolean
sj_knowledge_domain_from_string (const char        *text,
                                 SjKnowledgeDomain *domain)
{
  for (guint i = 0; i < G_N_ELEMENTS (domain_names); i++)
    if (g_strcmp0 (text, domain_names[i]) == 0)
      {
        *domain = i;
        return TRUE;
      }
  return FALSE;
}

const char *
sj_knowledge_mode_to_string (SjKnowledgeMode mode)
{
  g_return_val_if_fail (mode < G_N_ELEMENTS (mode_names), NULL);
  return mode_names[mode];
}

gboolean
sj_knowledge_mode_from_string (const char      *text,
                               SjKnowledgeMode *mode)
{
  for (guint i = 0; i < G_N_ELEMENTS (mode_names); i++)
    if (g_strcmp0 (text, mode_names[i]) == 0)
      {
        *mode = i;
        return TRUE;
      }
  return FALSE;
}

void
sj_knowledge_query_free (SjKnowledgeQuery *query)
{
  if (query == NULL)
    return;

  g_clear_pointer (&query->terms, g_ptr_array_unref);
  g_clear_pointer (&query->words, g_ptr_array_unref);
  g_free (query);
}

static guint
classify (const char *lower)
{
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (g_str_equal (lower, words[i].word))
      return words[i].classes;
  return 0;
}

static gboolean
category_of (const char      *lower,
             SjSoundCategory *category)
{
  for (guint i = 0; i < G_N_ELEMENTS (category_words); i++)
    if (g_str_equal (lower, category_words[i].word))
      {
        *category = category_words[i].category;
        return TRUE;
      }
  return FALSE;
}

static gboolean
is_name_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '$';
}

/* Splits @text into words made of name characters: "fast(2)" gives "fast"
 * and "2", "euclid-related" gives "euclid" and "related". */
static GPtrArray *
split_words (const char *text)
{
  GPtrArray *result = g_ptr_array_new_with_free_func (g_free);
  const char *p = text;

  while (*p != '\0')
    {
      const char *start;

      while (*p != '\0' && !is_name_char (*p))
        p++;
      start = p;
      while (is_name_char (*p))
        p++;
      if (p > start)
        g_ptr_array_add (result, g_strndup (start, p - start));
    }

  return result;
}

static void
add_term (GPtrArray  *terms,
          const char *word)
{
  if (terms->len >= SJ_KNOWLEDGE_MAX_TERMS || strlen (word) > 64)
    return;

  for (guint i = 0; i < terms->len; i++)
    if (g_ascii_strcasecmp (g_ptr_array_index (terms, i), word) == 0)
      return;

  g_ptr_array_add (terms, g_strdup (word));
}

/**
 * sj_knowledge_query_parse:
 * @text: the query, at most %SJ_KNOWLEDGE_MAX_QUERY bytes are read
 * @domain: the domain asked for, or %SJ_KNOWLEDGE_DOMAIN_AUTO
 * @mode: the mode asked for, or %SJ_KNOWLEDGE_MODE_AUTO
 */
SjKnowledgeQuery *
sj_knowledge_query_parse (const char        *text,
                          SjKnowledgeDomain  domain,
                          SjKnowledgeMode    mode)
{
  g_autoptr(SjKnowledgeQuery) query = g_new0 (SjKnowledgeQuery, 1);
  g_autoptr(GPtrArray) split = NULL;
  g_autoptr(GPtrArray) stopped = g_ptr_array_new ();
  g_autofree char *body = NULL;
  g_autofree char *lower = NULL;
  guint seen = 0;

  query->terms = g_ptr_array_new_with_free_func (g_free);
  query->words = g_ptr_array_new_with_free_func (g_free);
  query->domain = domain;
  query->mode = mode;

  body = g_strstrip (g_strndup (text, SJ_KNOWLEDGE_MAX_QUERY));

  /* The explicit prefixes of the contract. */
  if (g_ascii_strncasecmp (body, "symbol:", 7) == 0)
    {
      g_autoptr(GPtrArray) names = split_words (body + 7);

      query->domain = SJ_KNOWLEDGE_DOMAIN_REFERENCE;
      query->validity = TRUE;
      for (guint i = 0; i < names->len; i++)
        add_term (query->terms, g_ptr_array_index (names, i));
      return g_steal_pointer (&query);
    }

  if (g_ascii_strncasecmp (body, "sounds:", 7) == 0 || g_ascii_strncasecmp (body, "sound:", 6) == 0)
    {
      const char *rest = strchr (body, ':') + 1;
      g_autofree char *stripped = g_strstrip (g_strdup (rest));

      query->domain = SJ_KNOWLEDGE_DOMAIN_SOUNDS;
      if (g_ascii_strcasecmp (stripped, "offline") == 0)
        {
          query->offline = TRUE;
          if (query->mode == SJ_KNOWLEDGE_MODE_AUTO)
            query->mode = SJ_KNOWLEDGE_MODE_LIST;
          return g_steal_pointer (&query);
        }
      if (*stripped == '\0' || sj_sound_category_from_string (stripped, &query->category))
        {
          query->has_category = TRUE;
          if (query->mode == SJ_KNOWLEDGE_MODE_AUTO)
            query->mode = SJ_KNOWLEDGE_MODE_LIST;
          return g_steal_pointer (&query);
        }
      g_free (body);
      body = g_steal_pointer (&stripped);
      seen |= WORD_SOUNDS;
    }

  lower = g_ascii_strdown (body, -1);

  /* "drum machines" written as two words is one category. */
  if (strstr (lower, "drum-machine") != NULL || strstr (lower, "drum machine") != NULL)
    {
      query->has_category = TRUE;
      query->category = SJ_SOUND_CATEGORY_DRUMS;
    }

  split = split_words (body);
  for (guint i = 0; i < split->len; i++)
    {
      const char *word = g_ptr_array_index (split, i);
      g_autofree char *word_lower = g_ascii_strdown (word, -1);
      SjSoundCategory category;
      guint classes = classify (word_lower);

      if (query->words->len < SJ_KNOWLEDGE_MAX_WORDS && strlen (word_lower) <= 64)
        g_ptr_array_add (query->words, g_strdup (word_lower));

      if (category_of (word_lower, &category))
        {
          /* "samples" alone is also a function: a category only when the
           * query is about sounds or lists. */
          if (!query->has_category)
            {
              query->has_category = TRUE;
              query->category = category;
            }
          classes |= WORD_SOUNDS | WORD_STOP;
        }

      seen |= classes;

      if (classes & WORD_STOP)
        g_ptr_array_add (stopped, g_ptr_array_index (split, i));
      else
        add_term (query->terms, word);
    }

  query->offline = (seen & WORD_OFFLINE) != 0;

  /* Nothing but intent words ("sound", "is samples valid"): the intent
   * words were the subject after all. */
  if (query->terms->len == 0 && !query->has_category && !query->offline)
    for (guint i = 0; i < stopped->len; i++)
      {
        g_autofree char *word_lower = g_ascii_strdown (g_ptr_array_index (stopped, i), -1);

        if ((classify (word_lower) & (WORD_LIST | WORD_DETAIL | WORD_VALIDITY)) == 0 ||
            g_str_equal (word_lower, "all"))
          add_term (query->terms, g_ptr_array_index (stopped, i));
      }

  if (query->domain == SJ_KNOWLEDGE_DOMAIN_AUTO)
    {
      if ((seen & WORD_SOUNDS) && !(seen & WORD_REFERENCE))
        {
          query->domain = SJ_KNOWLEDGE_DOMAIN_SOUNDS;
          query->domain_from_words = TRUE;
        }
      else if ((seen & WORD_REFERENCE) && !(seen & WORD_SOUNDS))
        query->domain = SJ_KNOWLEDGE_DOMAIN_REFERENCE;
    }

  if (query->has_category && query->domain == SJ_KNOWLEDGE_DOMAIN_REFERENCE)
    query->has_category = FALSE;

  query->validity = (seen & WORD_VALIDITY) != 0 && !(seen & WORD_LIST);

  if (query->mode == SJ_KNOWLEDGE_MODE_AUTO)
    {
      if ((query->has_category || query->offline) && query->terms->len == 0)
        query->mode = SJ_KNOWLEDGE_MODE_LIST;
      else if (seen & WORD_LIST)
        query->mode = SJ_KNOWLEDGE_MODE_SEARCH;
      else if (seen & (WORD_DETAIL | WORD_VALIDITY))
        query->mode = SJ_KNOWLEDGE_MODE_DETAIL;
    }

  return g_steal_pointer (&query);
}
