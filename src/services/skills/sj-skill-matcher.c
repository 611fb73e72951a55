/* sj-skill-matcher.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Which skills a musician's message calls for. Every user message is
 * matched against every enabled skill's triggers before the model is
 * asked, so this is on the hot path of each turn: the triggers are
 * compiled once into their words' stems, indexed by their first stem in
 * a hash table, and a message is tokenised and stemmed once; each of its
 * words is then one hash lookup, and only the triggers starting with that
 * word check their following words. Two hundred skills with eight
 * triggers each match a message in microseconds (bench/skills).
 *
 * Words are runs of letters and digits, so triggers match at word
 * boundaries ("house" never fires on "houseplant") and phrases match as
 * consecutive words ("drum and bass" never fires on "the bass drums").
 * The stemming is deliberately simple and symmetric (the same function
 * reduces the triggers and the message): "jazz", "jazzy", "jazzier" and
 * "jazziest" all become "jaz", "dub" and "dubby" become "dub". It only
 * has to make a musician's inflections meet the trigger's, not be a
 * linguist's stemmer.
 */

#include "config.h"

#include <string.h>

#include "sj-skill-matcher.h"

typedef struct
{
  guint   entry;
  guint   n_words;
  char  **words;   /* stems; words[0] is the hash key */
} Trigger;

typedef struct
{
  gpointer item;
  int      priority;
  guint    order;
} Entry;

struct _SjSkillMatcher
{
  GArray     *entries;    /* of Entry */
  GPtrArray  *triggers;   /* of Trigger, owning */
  GHashTable *by_first;   /* first stem → GPtrArray of Trigger (not owning) */
};

static void
trigger_free (gpointer data)
{
  Trigger *trigger = data;

  g_strfreev (trigger->words);
  g_free (trigger);
}

static gboolean
ends_with (const char *word,
           gsize       len,
           const char *suffix)
{
  gsize n = strlen (suffix);

  return len >= n && memcmp (word + len - n, suffix, n) == 0;
}

static gboolean
is_vowel (char c)
{
  return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

/* Reduces @word (lowercase) in place; returns its new length. At most two
 * suffixes go ("filtered" → "filter" → "filt", as "filter" → "filt"), a
 * stem keeps at least three letters, and a doubled final consonant is
 * undoubled so that "jazz" and "jazzy", "dub" and "dubby" meet. */
static gsize
stem_in_place (char  *word,
               gsize  len)
{
  for (guint pass = 0; pass < 2; pass++)
    {
      gsize before = len;

      if (len > 5 && ends_with (word, len, "iest"))
        len -= 4;
      else if (len > 4 && (ends_with (word, len, "ier") || ends_with (word, len, "ies")))
        len -= 3;
      else if (len > 5 && ends_with (word, len, "ing"))
        len -= 3;
      else if (len > 4 && (ends_with (word, len, "ed") || ends_with (word, len, "er")))
        len -= 2;
      else if (len > 4 && ends_with (word, len, "es") &&
               (word[len - 3] == 's' || word[len - 3] == 'x' || word[len - 3] == 'z' ||
                ends_with (word, len, "ches") || ends_with (word, len, "shes")))
        len -= 2;
      else if (len > 3 && word[len - 1] == 's' && word[len - 2] != 's' && word[len - 2] != 'u' && word[len - 2] != 'i')
        len -= 1;
      else if (len > 3 && (word[len - 1] == 'y' || word[len - 1] == 'e'))
        len -= 1;

      if (len == before)
        break;
    }

  if (len > 2 && word[len - 1] == word[len - 2] && !is_vowel (word[len - 1]) && g_ascii_isalpha (word[len - 1]))
    len--;
  word[len] = '\0';

  return len;
}

/* Splits @text into lowercase stemmed words, written into @buffer (at
 * least as long as @text plus one); @words points into it. Bytes of
 * UTF-8 sequences count as letters, so accented words stay whole. */
static guint
tokenise (const char  *text,
          char        *buffer,
          char       **words,
          guint        max_words)
{
  guint n = 0;
  char *out = buffer;

  while (*text != '\0' && n < max_words)
    {
      char *start;

      while (*text != '\0' && !g_ascii_isalnum (*text) && (guchar) *text < 0x80)
        text++;
      if (*text == '\0')
        break;

      start = out;
      while (*text != '\0' && (g_ascii_isalnum (*text) || (guchar) *text >= 0x80))
        *out++ = g_ascii_tolower (*text++);
      *out = '\0';
      stem_in_place (start, out - start);
      words[n++] = start;
      out++;
    }

  return n;
}

/**
 * sj_skill_stem:
 *
 * Returns: (transfer full): @word as the matcher sees it, lowercase and
 *   stemmed (the first word of @word only)
 */
char *
sj_skill_stem (const char *word)
{
  g_autofree char *buffer = g_malloc (strlen (word) + 2);
  char *words[1];

  if (tokenise (word, buffer, words, 1) == 0)
    return g_strdup ("");
  return g_strdup (words[0]);
}

SjSkillMatcher *
sj_skill_matcher_new (void)
{
  SjSkillMatcher *self = g_new0 (SjSkillMatcher, 1);

  self->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  self->triggers = g_ptr_array_new_with_free_func (trigger_free);
  self->by_first = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) g_ptr_array_unref);

  return self;
}

void
sj_skill_matcher_free (SjSkillMatcher *self)
{
  if (self == NULL)
    return;

  g_hash_table_unref (self->by_first);
  g_ptr_array_unref (self->triggers);
  g_array_unref (self->entries);
  g_free (self);
}

/**
 * sj_skill_matcher_add:
 * @item: what sj_skill_matcher_match() returns when a trigger matches
 *   (not referenced: it must outlive the matcher)
 * @priority: higher is returned first
 * @triggers: words or phrases
 *
 * Compiles @item's triggers into the matcher.
 */
void
sj_skill_matcher_add (SjSkillMatcher     *self,
                      gpointer            item,
                      int                 priority,
                      const char * const *triggers)
{
  Entry entry = { item, priority, self->entries->len };

  g_array_append_val (self->entries, entry);

  for (guint i = 0; triggers != NULL && triggers[i] != NULL; i++)
    {
      g_autofree char *buffer = g_malloc (strlen (triggers[i]) + 2);
      char *words[16];
      guint n = tokenise (triggers[i], buffer, words, G_N_ELEMENTS (words));
      Trigger *trigger;
      GPtrArray *list;

      if (n == 0)
        continue;

      trigger = g_new0 (Trigger, 1);
      trigger->entry = entry.order;
      trigger->n_words = n;
      trigger->words = g_new0 (char *, n + 1);
      for (guint w = 0; w < n; w++)
        trigger->words[w] = g_strdup (words[w]);
      g_ptr_array_add (self->triggers, trigger);

      list = g_hash_table_lookup (self->by_first, trigger->words[0]);
      if (list == NULL)
        {
          list = g_ptr_array_new ();
          g_hash_table_insert (self->by_first, trigger->words[0], list);
        }
      g_ptr_array_add (list, trigger);
    }
}

guint
sj_skill_matcher_get_n_triggers (SjSkillMatcher *self)
{
  return self->triggers->len;
}

typedef struct
{
  const Entry *entry;
  guint        longest;  /* words of the longest trigger that matched */
  guint        count;    /* triggers that matched */
} Hit;

static int
compare_hits (gconstpointer a,
              gconstpointer b)
{
  const Hit *x = a, *y = b;

  if (x->entry->priority != y->entry->priority)
    return y->entry->priority - x->entry->priority;
  if (x->longest != y->longest)
    return (int) y->longest - (int) x->longest;
  if (x->count != y->count)
    return (int) y->count - (int) x->count;
  return (int) x->entry->order - (int) y->entry->order;
}

/**
 * sj_skill_matcher_match:
 *
 * Returns: (transfer container): the items whose triggers occur in
 *   @message, highest priority first, then the strongest match (the
 *   longest phrase, then the most triggers); empty when none
 */
GPtrArray *
sj_skill_matcher_match (SjSkillMatcher *self,
                        const char     *message)
{
  g_autofree char *heap = NULL;
  char stack[1024];
  char *words[SJ_SKILL_MATCHER_MAX_TOKENS];
  g_autoptr(GArray) hits = g_array_new (FALSE, FALSE, sizeof (Hit));
  GPtrArray *result = g_ptr_array_new ();
  gsize len = strlen (message);
  char *buffer = stack;
  guint n;

  if (len + 2 > sizeof stack)
    buffer = heap = g_malloc (len + 2);
  n = tokenise (message, buffer, words, G_N_ELEMENTS (words));

  for (guint i = 0; i < n; i++)
    {
      GPtrArray *candidates = g_hash_table_lookup (self->by_first, words[i]);

      for (guint c = 0; candidates != NULL && c < candidates->len; c++)
        {
          Trigger *trigger = g_ptr_array_index (candidates, c);
          gboolean matched = i + trigger->n_words <= n;
          Hit *hit = NULL;

          for (guint w = 1; matched && w < trigger->n_words; w++)
            matched = strcmp (trigger->words[w], words[i + w]) == 0;
          if (!matched)
            continue;

          for (guint h = 0; h < hits->len && hit == NULL; h++)
            if (g_array_index (hits, Hit, h).entry->order == trigger->entry)
              hit = &g_array_index (hits, Hit, h);
          if (hit == NULL)
            {
              Hit fresh = { &g_array_index (self->entries, Entry, trigger->entry), 0, 0 };

              g_array_append_val (hits, fresh);
              hit = &g_array_index (hits, Hit, hits->len - 1);
            }
          hit->longest = MAX (hit->longest, trigger->n_words);
          hit->count++;
        }
    }

  g_array_sort (hits, compare_hits);
  for (guint h = 0; h < hits->len; h++)
    g_ptr_array_add (result, g_array_index (hits, Hit, h).entry->item);

  return result;
}
