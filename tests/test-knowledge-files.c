/* test-knowledge-files.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Keeps the curated knowledge honest.  Every code example of the notes is
 * dry-run by the real helper and must run, and every sample it plays must be
 * a file of the sound library the app registers; every function it calls
 * exists in the bundled runtime, every sound and bank it names is one the
 * app registers (SjSoundsIndex: the page's own sounds and the library), and
 * it loads no sample pack of its own unless it says that it needs the
 * network.  samples.md's sound name index must be the library itself: each
 * line names all the sounds of one source and nothing else.  An optional
 * cross-check against upstream's doc.json (../shared/reference) verifies
 * the generated reference; it skips when that file is absent.
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "sj-bundled-data.h"
#include "sj-drum-kit-private.h"
#include "sj-dry-run.h"
#include "sj-dry-run-report.h"
#include "sj-dry-run-report-private.h"
#include "sj-knowledge.h"
#include "sj-knowledge-base-private.h"
#include "sj-reference-index.h"
#include "sj-sound-cache.h"
#include "sj-sound-library.h"
#include "sj-sounds-index.h"

/* How many examples may load a sample pack of their own (the entries
 * about samples() itself): the notes teach the library, not downloads. */
#define MAX_EXAMPLES_LOADING_SAMPLES 3

/* What an example's first line says about the network, and must be true:
 * it plays with none at all (synthesizers, ZZFX, the built-in drum kit's
 * voices); it plays library sounds that are downloaded the first time;
 * or it loads samples of its own. */
#define OFFLINE           "// Offline"
#define DOWNLOADS_ONCE    "// Downloads once"
#define NEEDS_THE_NETWORK "// Needs the network"

static SjReferenceIndex *reference;
static SjSoundsIndex *sounds;       /* what the app registers */
static SjSoundLibrary *library;
static SjSoundCache *offline_cache; /* empty, no downloads, the kit for drums */
static char *offline_directory;
static GHashTable *index_lines;     /* samples.md's index: source → GPtrArray of names */
static GPtrArray *index_sources;    /* the sources, in the index's order */

/* Names a Strudel program may call that are JavaScript, not Strudel. */
static const char * const javascript_names[] = {
  "if", "for", "while", "switch", "catch", "function", "return", "typeof",
  "Math", "floor", "round", "ceil", "min", "max", "abs", "random", "pow", "sin", "cos",
  "Number", "String", "Array", "Object", "JSON", "parseInt", "parseFloat", "map", "filter",
  "join", "slice", "push", "concat", "fill", "from", "keys", NULL,
};

typedef struct
{
  char *text;
  guint line;  /* of the opening fence, 1-based */
} Block;

static void
block_free (gpointer data)
{
  Block *block = data;

  g_free (block->text);
  g_free (block);
}

/* The fenced blocks of a note in @language, checking the notes'
 * conventions on the way: fences are ``` only, open with a language and
 * always close. */
static GPtrArray *
blocks_of (const char *file,
           const char *text,
           const char *language)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GPtrArray *blocks = g_ptr_array_new_with_free_func (block_free);
  GString *current = NULL;
  g_autofree char *current_language = NULL;
  guint open_line = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      if (!g_str_has_prefix (line, "```"))
        {
          if (current != NULL)
            g_string_append_printf (current, "%s\n", line);
          continue;
        }

      if (current == NULL)
        {
          current = g_string_new (NULL);
          current_language = g_strstrip (g_strdup (line + 3));
          open_line = i + 1;
          if (*current_language == '\0')
            g_error ("%s:%u: a fence without a language", file, open_line);
          continue;
        }

      if (line[3 + strspn (line + 3, " ")] != '\0')
        g_error ("%s:%u: a fence opens inside the block of line %u", file, i + 1, open_line);

      if (g_str_equal (current_language, language))
        {
          Block *block = g_new0 (Block, 1);

          block->line = open_line;
          block->text = g_string_free (current, FALSE);
          g_ptr_array_add (blocks, block);
        }
      else
        g_string_free (current, TRUE);

      current = NULL;
      g_clear_pointer (&current_language, g_free);
    }

  if (current != NULL)
    g_error ("%s:%u: a fence that never closes", file, open_line);

  return blocks;
}

/* Removes comments and replaces string contents, keeping their quotes,
 * so that only code is left to scan for calls.  The strings themselves
 * are collected in @strings, each as "<callee>\x1f<content>" where callee
 * is the name called right before the string, if any. */
static char *
split_code (const char *code,
            GPtrArray  *strings)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (const char *p = code; *p != '\0'; p++)
    {
      if (p[0] == '/' && p[1] == '/')
        {
          while (*p != '\0' && *p != '\n')
            p++;
          if (*p == '\0')
            break;
          g_string_append_c (out, '\n');
        }
      else if (*p == '"' || *p == '\'' || *p == '`')
        {
          char quote = *p;
          const char *start = ++p;
          gssize back = (gssize)out->len - 1;
          g_autofree char *callee = NULL;

          while (*p != '\0' && *p != quote)
            p += (*p == '\\' && p[1] != '\0') ? 2 : 1;

          /* The callee: the identifier before "(" right before the quote. */
          while (back >= 0 && out->str[back] == ' ')
            back--;
          if (back >= 0 && out->str[back] == '(')
            {
              gssize end = back;

              while (back > 0 && (g_ascii_isalnum (out->str[back - 1]) || out->str[back - 1] == '_'))
                back--;
              callee = g_strndup (out->str + back, end - back);
            }

          g_ptr_array_add (strings, g_strdup_printf ("%s\x1f%.*s", callee != NULL ? callee : "",
                                                     (int)(p - start), start));
          g_string_append (out, "\"\"");
          if (*p == '\0')
            break;
        }
      else
        g_string_append_c (out, *p);
    }

  return g_string_free (g_steal_pointer (&out), FALSE);
}

static gboolean
is_javascript (const char *name)
{
  return g_strv_contains (javascript_names, name);
}

/* Names defined by the example itself: const/let/var/function names and
 * arrow parameters. */
static gboolean
defined_locally (const char *code,
                 const char *name)
{
  const char *before[] = { "const ", "let ", "var ", "function ", "(", "" };
  const char *after[] = { "", "", "", "", ") =>", " =>" };

  for (guint i = 0; i < G_N_ELEMENTS (before); i++)
    {
      g_autofree char *needle = g_strconcat (before[i], name, after[i], NULL);

      if (strstr (code, needle) != NULL)
        return TRUE;
    }
  return FALSE;
}

static void
check_calls (const char *where,
             const char *code,
             GPtrArray  *problems)
{
  for (const char *p = code; *p != '\0'; p++)
    {
      const char *start = p;
      gboolean method;
      g_autofree char *name = NULL;
      const char *after;

      if (!(g_ascii_isalpha (*p) || *p == '_' || *p == '$') ||
          (p > code && (g_ascii_isalnum (p[-1]) || p[-1] == '_')))
        continue;

      while (g_ascii_isalnum (*p) || *p == '_' || *p == '$')
        p++;
      name = g_strndup (start, p - start);
      after = p + strspn (p, " ");
      p--;

      if (*after != '(')
        continue;

      method = start > code && start[-1] == '.';
      if (is_javascript (name) || defined_locally (code, name))
        continue;
      if (method ? !sj_reference_index_is_method (reference, name) && !sj_reference_index_is_callable (reference, name)
                 : !sj_reference_index_is_global (reference, name))
        g_ptr_array_add (problems, g_strdup_printf ("%s: %s%s() is not in the bundled runtime",
                                                    where, method ? "." : "", name));
    }
}

/* Whether @name is a key of a samples({...}) map in @code (strings
 * already emptied by split_code()): a sound the example registers. */
static gboolean
defined_by_samples_map (const char *code,
                        const char *name)
{
  gsize length = strlen (name);

  for (const char *map = strstr (code, "samples({"); map != NULL; map = strstr (map + 1, "samples({"))
    {
      const char *end = strchr (map, '}');

      for (const char *p = strstr (map, name); p != NULL && (end == NULL || p < end); p = strstr (p + 1, name))
        if (!g_ascii_isalnum (p[-1]) && p[-1] != '_' && p[length + strspn (p + length, " ")] == ':')
          return TRUE;
    }
  return FALSE;
}

/* The words of a mini-notation string that name sounds or banks:
 * "bd:3*2 [~ hh]" gives bd and hh; numbers, rests and operators are not
 * names. */
static GPtrArray *
mini_words (const char *mini)
{
  GPtrArray *words = g_ptr_array_new_with_free_func (g_free);

  for (const char *p = mini; *p != '\0'; p++)
    {
      const char *start = p;

      if (!g_ascii_isalpha (*p) || (p > mini && (g_ascii_isalnum (p[-1]) || p[-1] == '_' || p[-1] == ':' || p[-1] == '.')))
        continue;
      while (g_ascii_isalnum (*p) || *p == '_' || *p == '-')
        p++;
      g_ptr_array_add (words, g_strndup (start, p - start));
      p--;
    }
  return words;
}

/* Whether @name is registered, on its own or as the sound of one of
 * the example's @banks ("perc" with .bank("AkaiMPC60")). */
static gboolean
sound_is_registered (const char *name,
                     GPtrArray  *banks)
{
  if (sj_sounds_index_lookup (sounds, name) != NULL)
    return TRUE;
  for (guint i = 0; i < banks->len; i++)
    {
      g_autofree char *banked = g_strconcat (g_ptr_array_index (banks, i), "_", name, NULL);

      if (sj_sounds_index_lookup (sounds, banked) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* samples.md's "## Sound name index": one ```text block of lines
 * "source: name name …". */
static void
load_sound_index (void)
{
  const char *text = _sj_knowledge_base_get_text (sj_knowledge_base_get_bundled (), "samples");
  const char *section = strstr (text, "## Sound name index");
  g_autoptr(GPtrArray) blocks = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_nonnull (section);
  blocks = blocks_of ("samples.md", section, "text");
  g_assert_cmpuint (blocks->len, ==, 1);

  index_lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
  index_sources = g_ptr_array_new_with_free_func (g_free);

  lines = g_strsplit (((Block *)g_ptr_array_index (blocks, 0))->text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *colon = strchr (lines[i], ':');
      g_autofree char *source = NULL;
      g_auto(GStrv) names = NULL;
      GPtrArray *list;

      if (*g_strstrip (lines[i]) == '\0')
        continue;
      if (colon == NULL)
        g_error ("samples.md's sound name index: “%s” is not “source: names”", lines[i]);
      source = g_strstrip (g_strndup (lines[i], colon - lines[i]));
      if (g_hash_table_contains (index_lines, source))
        g_error ("samples.md's sound name index has two lines for “%s”", source);

      list = g_ptr_array_new_with_free_func (g_free);
      names = g_strsplit_set (colon + 1, " \t", -1);
      for (guint n = 0; names[n] != NULL; n++)
        if (names[n][0] != '\0')
          g_ptr_array_add (list, g_ascii_strdown (names[n], -1));

      g_ptr_array_add (index_sources, g_strdup (source));
      g_hash_table_insert (index_lines, g_steal_pointer (&source), list);
    }
}

/* Every name of @listed is in @expected and the other way round. */
static void
assert_same_names (const char *source,
                   GPtrArray  *listed,
                   GPtrArray  *expected)
{
  g_autoptr(GHashTable) want = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < expected->len; i++)
    g_hash_table_add (want, g_ptr_array_index (expected, i));
  for (guint i = 0; i < listed->len; i++)
    if (!g_hash_table_remove (want, g_ptr_array_index (listed, i)))
      g_error ("samples.md's index lists “%s” under %s, but it is not one of its sounds",
               (char *)g_ptr_array_index (listed, i), source);
  if (g_hash_table_size (want) > 0)
    {
      g_autofree char **missing = (char **)g_hash_table_get_keys_as_array (want, NULL);

      g_error ("samples.md's index misses %u sounds of %s, such as “%s”", g_hash_table_size (want), source, missing[0]);
    }
}

/* What a line of the index must list: "built-in", the page's own sounds;
 * "kit", the drum kit's voices; "tidal-drum-machines" and "bank aliases",
 * the banks .bank() takes; any other source is a pack of the library and
 * lists its sounds. */
static GPtrArray *
expected_names (const char *source)
{
  GPtrArray *names = g_ptr_array_new ();

  if (g_str_equal (source, "built-in"))
    {
      for (guint i = 0; i < sj_sounds_index_get_n_sounds (sounds); i++)
        {
          const SjSound *sound = sj_sounds_index_get_sound (sounds, i);

          if (g_str_equal (sound->type, "synth") && sj_sound_library_lookup (library, sound->lower) == NULL)
            g_ptr_array_add (names, sound->lower);
        }
    }
  else if (g_str_equal (source, "kit"))
    {
      const char * const *voices = _sj_drum_kit_list_voices ();

      for (guint i = 0; voices[i] != NULL; i++)
        g_ptr_array_add (names, (char *)voices[i]);
    }
  else if (g_str_equal (source, "tidal-drum-machines") || g_str_equal (source, "bank aliases"))
    {
      gboolean aliases = g_str_equal (source, "bank aliases");

      for (guint i = 0; i < sj_sounds_index_get_n_banks (sounds); i++)
        {
          const SjSoundBank *bank = sj_sounds_index_get_bank (sounds, i);

          if (bank->alias == aliases)
            g_ptr_array_add (names, bank->lower);
        }
    }
  else
    {
      if (!sj_sound_library_has_pack (library, source))
        g_error ("samples.md's index has a line for “%s”, which is no pack of the sound library", source);
      for (guint i = 0; i < sj_sound_library_get_n_sounds (library); i++)
        {
          const SjLibrarySound *sound = sj_sound_library_get_sound (library, i);

          if (g_str_equal (sound->pack, source) && sound->bank == NULL)
            g_ptr_array_add (names, (char *)sound->name);
        }
    }

  return names;
}

/* The index is the app's sound library, complete: every pack has its
 * line, and each line lists exactly the sounds of its source. */
static void
test_sound_index_is_the_library (void)
{
  const char * const *packs = sj_sound_library_get_packs (library);

  g_assert_true (g_hash_table_contains (index_lines, "built-in"));
  g_assert_true (g_hash_table_contains (index_lines, "kit"));
  g_assert_true (g_hash_table_contains (index_lines, "bank aliases"));
  for (guint i = 0; packs[i] != NULL; i++)
    if (!g_hash_table_contains (index_lines, packs[i]))
      g_error ("samples.md's index has no line for the pack “%s”", packs[i]);

  for (guint i = 0; i < index_sources->len; i++)
    {
      const char *source = g_ptr_array_index (index_sources, i);
      GPtrArray *listed = g_hash_table_lookup (index_lines, source);
      g_autoptr(GPtrArray) expected = expected_names (source);

      g_assert_cmpuint (expected->len, >, 0);
      assert_same_names (source, listed, expected);
      g_test_message ("%s: %u names", source, listed->len);
    }
}

/* The static checks of one example: the names it calls, and the banks
 * and sounds its strings name, which must be registered by the app (or
 * by the example's own samples({...}) map). */
static void
check_example (const char  *where,
               const Block *block,
               GPtrArray   *problems)
{
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) banks = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *code = split_code (block->text, strings);

  check_calls (where, code, problems);

  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < strings->len; i++)
      {
        const char *entry = g_ptr_array_index (strings, i);
        const char *sep = strchr (entry, '\x1f');
        g_autofree char *callee = g_strndup (entry, sep - entry);
        g_autoptr(GPtrArray) words = NULL;

        if (pass == 0 ? !g_str_equal (callee, "bank") : !g_str_equal (callee, "s") && !g_str_equal (callee, "sound"))
          continue;

        words = mini_words (sep + 1);
        for (guint w = 0; w < words->len; w++)
          {
            const char *word = g_ptr_array_index (words, w);

            if (pass == 0 && sj_sounds_index_lookup_bank (sounds, word) != NULL)
              g_ptr_array_add (banks, g_ascii_strdown (word, -1));
            else if (pass == 0)
              g_ptr_array_add (problems, g_strdup_printf ("%s: the bank “%s” is not registered by the app", where, word));
            else if (!sound_is_registered (word, banks) && !defined_by_samples_map (code, word))
              g_ptr_array_add (problems, g_strdup_printf ("%s: the sound “%s” is not registered by the app", where, word));
          }
      }
}

/* How @name plays with no network and nothing cached: built in, the
 * kit's voice, or not at all. */
static gboolean
plays_offline (const char *name)
{
  switch (sj_sound_cache_get_sound_availability (offline_cache, name, NULL))
    {
    case SJ_SOUND_AVAILABILITY_BUILT_IN:
    case SJ_SOUND_AVAILABILITY_KIT:
      return TRUE;
    case SJ_SOUND_AVAILABILITY_CACHED:
    case SJ_SOUND_AVAILABILITY_DOWNLOAD:
    case SJ_SOUND_AVAILABILITY_UNAVAILABLE:
    default:
      return FALSE;
    }
}

/* The example's first line says how it plays without a network; the
 * sounds the dry-run heard must agree. */
static void
check_network_claim (const char *where,
                     const char *text,
                     JsonArray  *played,
                     gboolean    loads,
                     GPtrArray  *problems)
{
  const char *needs_download = NULL;

  for (guint i = 0; played != NULL && i < json_array_get_length (played); i++)
    if (!plays_offline (json_array_get_string_element (played, i)))
      needs_download = json_array_get_string_element (played, i);

  if (g_str_has_prefix (text, NEEDS_THE_NETWORK))
    {
      if (!loads)
        g_ptr_array_add (problems, g_strdup_printf ("%s: says “%s” but loads no samples", where, NEEDS_THE_NETWORK));
    }
  else if (loads)
    g_ptr_array_add (problems, g_strdup_printf ("%s: loads samples of its own but does not start with “%s”",
                                                where, NEEDS_THE_NETWORK));
  else if (g_str_has_prefix (text, OFFLINE))
    {
      if (needs_download != NULL)
        g_ptr_array_add (problems, g_strdup_printf ("%s: says “%s” but “%s” does not play with no network",
                                                    where, OFFLINE, needs_download));
    }
  else if (g_str_has_prefix (text, DOWNLOADS_ONCE))
    {
      if (needs_download == NULL)
        g_ptr_array_add (problems, g_strdup_printf ("%s: says “%s” but plays with no network: say “%s”",
                                                    where, DOWNLOADS_ONCE, OFFLINE));
    }
  else
    g_ptr_array_add (problems, g_strdup_printf ("%s: the first line is not “%s”, “%s” or “%s”: %.60s", where,
                                                OFFLINE, DOWNLOADS_ONCE, NEEDS_THE_NETWORK, text));
}

/* Runs one example in the real dry-run helper, as the apply pipeline
 * would before it lands: it must run and play, every sound must be
 * registered, every sample file it plays must be one of the library's,
 * and it may load samples of its own only when it says so.  Returns
 * whether it loads samples. */
static gboolean
dry_run_example (SjDryRun    *dry_run,
                 SjKnowledge *knowledge,
                 const char  *where,
                 const Block *block,
                 GPtrArray   *problems)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonObject) report = NULL;
  JsonArray *unknown, *uses, *loaded;
  gboolean loads;

  answer = sj_dry_run_run_sync (dry_run, block->text, SJ_DRY_RUN_MAX_CYCLES, 10000, SJ_DRY_RUN_FLAGS_NONE,
                                NULL, &error);
  g_assert_no_error (error);
  report = sj_dry_run_report (answer, knowledge);

  if (!json_object_get_boolean_member_with_default (report, "ok", FALSE))
    {
      g_ptr_array_add (problems, g_strdup_printf ("%s: the dry-run fails (%s): %s", where,
                                                  json_object_get_string_member_with_default (report, "phase", "?"),
                                                  json_object_get_string_member_with_default (report, "message", "")));
      return FALSE;
    }
  if (json_object_get_int_member_with_default (report, "events", 0) == 0)
    g_ptr_array_add (problems, g_strdup_printf ("%s: the example plays no event", where));

  unknown = json_object_get_array_member (report, "unknownSounds");
  for (guint i = 0; unknown != NULL && i < json_array_get_length (unknown); i++)
    g_ptr_array_add (problems, g_strdup_printf ("%s: the dry-run plays “%s”, which is not registered", where,
                                                json_object_get_string_member (json_array_get_object_element (unknown, i),
                                                                               "name")));
  if (!_sj_dry_run_report_is_playable (report))
    g_ptr_array_add (problems, g_strdup_printf ("%s: the apply pipeline would not play it", where));

  uses = json_object_get_array_member (report, "sampleUses");
  for (guint i = 0; uses != NULL && i < json_array_get_length (uses); i++)
    {
      JsonObject *use = json_array_get_object_element (uses, i);
      const char *pack = json_object_get_string_member_with_default (use, "pack", "");
      const char *path = json_object_get_string_member_with_default (use, "path", "");

      if (sj_sound_library_lookup_file (library, pack, path) == NULL)
        g_ptr_array_add (problems, g_strdup_printf ("%s: “%s” plays %s/%s, which is no file of the sound library",
                                                    where, json_object_get_string_member (use, "sound"), pack, path));
    }

  loaded = json_object_get_array_member (report, "samples");
  loads = loaded != NULL && json_array_get_length (loaded) > 0;
  check_network_claim (where, block->text, json_object_get_array_member (report, "sounds"), loads, problems);
  return loads;
}

static void
test_examples_are_real (void)
{
  const char * const *categories = _sj_knowledge_base_get_categories ();
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SjDryRun) dry_run = sj_dry_run_new ();
  g_autoptr(SjKnowledge) knowledge = sj_knowledge_new (reference, sounds);
  guint n_blocks = 0, n_loading = 0;

  sj_dry_run_start (dry_run);

  for (guint c = 0; categories[c] != NULL; c++)
    {
      const char *text = _sj_knowledge_base_get_text (sj_knowledge_base_get_bundled (), categories[c]);
      g_autofree char *file = g_strconcat (categories[c], ".md", NULL);
      g_autoptr(GPtrArray) blocks = blocks_of (file, text, "javascript");

      g_assert_cmpuint (blocks->len, >=, 10);
      for (guint b = 0; b < blocks->len; b++, n_blocks++)
        {
          const Block *block = g_ptr_array_index (blocks, b);
          g_autofree char *where = g_strdup_printf ("%s:%u", file, block->line);

          check_example (where, block, problems);
          if (dry_run_example (dry_run, knowledge, where, block, problems))
            n_loading++;
        }
    }

  for (guint i = 0; i < problems->len; i++)
    g_test_message ("%s", (const char *)g_ptr_array_index (problems, i));
  g_test_message ("%u code examples checked and dry-run, %u load samples of their own", n_blocks, n_loading);
  g_assert_cmpuint (problems->len, ==, 0);
  g_assert_cmpuint (n_blocks, >=, 200);
  g_assert_cmpuint (n_loading, <=, MAX_EXAMPLES_LOADING_SAMPLES);
}

/* Each "###" entry has an example, so a search always has one to give. */
static void
test_every_entry_has_an_example (void)
{
  const char * const *categories = _sj_knowledge_base_get_categories ();

  for (guint c = 0; categories[c] != NULL; c++)
    {
      const char *text = _sj_knowledge_base_get_text (sj_knowledge_base_get_bundled (), categories[c]);
      g_auto(GStrv) sections = g_strsplit (text, "\n### ", -1);

      for (guint s = 1; sections[s] != NULL; s++)
        {
          char *end = strstr (sections[s], "\n## ");

          if (end != NULL)
            *end = '\0';
          if (strstr (sections[s], "```") == NULL)
            g_error ("%s.md: the entry “%.*s” has no code block", categories[c],
                     (int)strcspn (sections[s], "\n"), sections[s]);
        }
    }
}

static char *
shared_path (const char *name)
{
  return g_build_filename (SJ_SHARED_REFERENCE, name, NULL);
}

/* Optional: the reference generated at build time against upstream's
 * 1.3.0 doc.json.  Every upstream entry is ours, identical, except those
 * of packages that are not published on npm (motion) or deliberately left
 * out (csound, osc); those are never callable here. */
static void
test_reference_matches_upstream (void)
{
  g_autofree char *path = shared_path ("doc.json");
  g_autofree char *contents = NULL;
  g_autoptr(GBytes) scope = sj_bundled_data_lookup ("runtime-scope.json", NULL);
  g_autoptr(GBytes) doc = NULL;
  g_autoptr(SjReferenceIndex) upstream = NULL;
  g_autoptr(GError) error = NULL;
  guint missing = 0;
  gsize length;

  if (!g_file_get_contents (path, &contents, &length, NULL))
    {
      g_test_skip ("../shared/reference is not here");
      return;
    }

  doc = g_bytes_new_take (g_steal_pointer (&contents), length);
  upstream = sj_reference_index_new (doc, scope, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < sj_reference_index_get_n_entries (upstream); i++)
    {
      const SjReferenceEntry *theirs = sj_reference_index_get_entry (upstream, i);
      const SjReferenceEntry *ours = sj_reference_index_lookup (reference, theirs->name, NULL);

      if (ours == NULL)
        {
          g_assert_true (g_str_has_suffix (theirs->source, "motion") ||
                         g_str_has_suffix (theirs->source, "csound") ||
                         g_str_has_suffix (theirs->source, "osc"));
          g_assert_false (theirs->callable);
          missing++;
          continue;
        }

      g_assert_cmpstr (ours->name, ==, theirs->name);
      g_assert_cmpstr (ours->description, ==, theirs->description);
      g_assert_true (g_strv_equal ((const char * const *)ours->synonyms, (const char * const *)theirs->synonyms));
      g_assert_true (g_strv_equal ((const char * const *)ours->examples, (const char * const *)theirs->examples));
      g_assert_true (g_strv_equal ((const char * const *)ours->tags, (const char * const *)theirs->tags));
      g_assert_cmpuint (ours->params->len, ==, theirs->params->len);
    }

  g_test_message ("%u upstream entries, %u not bundled", sj_reference_index_get_n_entries (upstream), missing);
  g_assert_cmpuint (missing, <=, 20);
  g_assert_cmpuint (sj_reference_index_get_n_entries (reference) + missing, ==,
                    sj_reference_index_get_n_entries (upstream));
}

/* As the application sets it up (sj-application.c). */
static GBytes *
drum_kit_fallback (const char  *voice,
                   guint        variant,
                   GError     **error)
{
  return sj_drum_kit_lookup (voice, (int)MIN (variant, (guint)G_MAXINT), error);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GFile) directory = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);

  reference = sj_reference_index_get_bundled ();
  library = sj_sound_library_get_default ();
  sounds = sj_sounds_index_new ();
  sj_sounds_index_load_bundled (sounds);
  load_sound_index ();

  offline_directory = g_dir_make_tmp ("knowledge-files-XXXXXX", NULL);
  g_assert_nonnull (offline_directory);
  directory = g_file_new_for_path (offline_directory);
  offline_cache = sj_sound_cache_new (library, directory);
  sj_sound_cache_set_allow_downloads (offline_cache, FALSE);
  sj_sound_cache_set_fallback (offline_cache, drum_kit_fallback);

  g_test_add_func ("/knowledge-files/examples-are-real", test_examples_are_real);
  g_test_add_func ("/knowledge-files/sound-index-is-the-library", test_sound_index_is_the_library);
  g_test_add_func ("/knowledge-files/every-entry-has-an-example", test_every_entry_has_an_example);
  g_test_add_func ("/knowledge-files/reference-matches-upstream", test_reference_matches_upstream);

  status = g_test_run ();

  g_clear_object (&offline_cache);
  g_rmdir (offline_directory);
  g_clear_pointer (&offline_directory, g_free);
  g_clear_object (&sounds);
  g_clear_pointer (&index_lines, g_hash_table_unref);
  g_clear_pointer (&index_sources, g_ptr_array_unref);
  return status;
}
