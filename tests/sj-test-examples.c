/* sj-test-examples.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "sj-drum-kit-private.h"
#include "sj-dry-run.h"
#include "sj-dry-run-report.h"
#include "sj-dry-run-report-private.h"
#include "sj-knowledge.h"
#include "sj-sound-cache.h"

#include "sj-test-examples.h"

struct _SjTestExamples
{
  SjReferenceIndex *reference;
  SjSoundsIndex *sounds;       /* what the app registers */
  SjSoundLibrary *library;
  SjSoundCache *offline_cache; /* empty, no downloads, the kit for drums */
  char *offline_directory;
  SjKnowledge *knowledge;
  SjDryRun *dry_run;           /* started at the first example */
};

/* Names a Strudel program may call that are JavaScript, not Strudel. */
static const char * const javascript_names[] = {
  "if", "for", "while", "switch", "catch", "function", "return", "typeof",
  "Math", "floor", "round", "ceil", "min", "max", "abs", "random", "pow", "sin", "cos",
  "Number", "String", "Array", "Object", "JSON", "parseInt", "parseFloat", "map", "filter",
  "join", "slice", "push", "concat", "fill", "from", "keys", NULL,
};

static void
block_free (gpointer data)
{
  SjTestBlock *block = data;

  g_free (block->text);
  g_free (block);
}

/* The fenced blocks of a Markdown text in @language, checking the notes'
 * conventions on the way: fences are ``` only, open with a language and
 * always close. */
GPtrArray *
sj_test_blocks_of (const char *file,
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
          SjTestBlock *block = g_new0 (SjTestBlock, 1);

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
check_calls (SjTestExamples *self,
             const char     *where,
             const char     *code,
             GPtrArray      *problems)
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
      if (method ? !sj_reference_index_is_method (self->reference, name) && !sj_reference_index_is_callable (self->reference, name)
                 : !sj_reference_index_is_global (self->reference, name))
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
sound_is_registered (SjTestExamples *self,
                     const char     *name,
                     GPtrArray      *banks)
{
  if (sj_sounds_index_lookup (self->sounds, name) != NULL)
    return TRUE;
  for (guint i = 0; i < banks->len; i++)
    {
      g_autofree char *banked = g_strconcat (g_ptr_array_index (banks, i), "_", name, NULL);

      if (sj_sounds_index_lookup (self->sounds, banked) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* The static checks of one example: the names it calls, and the banks
 * and sounds its strings name, which must be registered by the app (or
 * by the example's own samples({...}) map). */
static void
check_example (SjTestExamples *self,
               const char     *where,
               const char     *text,
               GPtrArray      *problems)
{
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) banks = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *code = split_code (text, strings);

  check_calls (self, where, code, problems);

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

            if (pass == 0 && sj_sounds_index_lookup_bank (self->sounds, word) != NULL)
              g_ptr_array_add (banks, g_ascii_strdown (word, -1));
            else if (pass == 0)
              g_ptr_array_add (problems, g_strdup_printf ("%s: the bank “%s” is not registered by the app", where, word));
            else if (!sound_is_registered (self, word, banks) && !defined_by_samples_map (code, word))
              g_ptr_array_add (problems, g_strdup_printf ("%s: the sound “%s” is not registered by the app", where, word));
          }
      }
}

/* How @name plays with no network and nothing cached: built in, the
 * kit's voice, or not at all. */
static gboolean
plays_offline (SjTestExamples *self,
               const char     *name)
{
  switch (sj_sound_cache_get_sound_availability (self->offline_cache, name, NULL))
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
check_network_claim (SjTestExamples *self,
                     const char *where,
                     const char *text,
                     JsonArray  *played,
                     gboolean    loads,
                     GPtrArray  *problems)
{
  const char *needs_download = NULL;

  for (guint i = 0; played != NULL && i < json_array_get_length (played); i++)
    if (!plays_offline (self, json_array_get_string_element (played, i)))
      needs_download = json_array_get_string_element (played, i);

  if (g_str_has_prefix (text, SJ_TEST_NEEDS_THE_NETWORK))
    {
      if (!loads)
        g_ptr_array_add (problems, g_strdup_printf ("%s: says “%s” but loads no samples", where, SJ_TEST_NEEDS_THE_NETWORK));
    }
  else if (loads)
    g_ptr_array_add (problems, g_strdup_printf ("%s: loads samples of its own but does not start with “%s”",
                                                where, SJ_TEST_NEEDS_THE_NETWORK));
  else if (g_str_has_prefix (text, SJ_TEST_OFFLINE))
    {
      if (needs_download != NULL)
        g_ptr_array_add (problems, g_strdup_printf ("%s: says “%s” but “%s” does not play with no network",
                                                    where, SJ_TEST_OFFLINE, needs_download));
    }
  else if (g_str_has_prefix (text, SJ_TEST_DOWNLOADS_ONCE))
    {
      if (needs_download == NULL)
        g_ptr_array_add (problems, g_strdup_printf ("%s: says “%s” but plays with no network: say “%s”",
                                                    where, SJ_TEST_DOWNLOADS_ONCE, SJ_TEST_OFFLINE));
    }
  else
    g_ptr_array_add (problems, g_strdup_printf ("%s: the first line is not “%s”, “%s” or “%s”: %.60s", where,
                                                SJ_TEST_OFFLINE, SJ_TEST_DOWNLOADS_ONCE, SJ_TEST_NEEDS_THE_NETWORK, text));
}

/* Runs one example in the real dry-run helper, as the apply pipeline
 * would before it lands: it must run and play, every sound must be
 * registered, every sample file it plays must be one of the library's,
 * and it may load samples of its own only when it says so.  Returns
 * whether it loads samples. */
static gboolean
dry_run_example (SjTestExamples *self,
                 const char     *where,
                 const char     *text,
                 GPtrArray      *problems)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonObject) report = NULL;
  JsonArray *unknown, *uses, *loaded;
  gboolean loads;

  answer = sj_dry_run_run_sync (self->dry_run, text, SJ_DRY_RUN_MAX_CYCLES, 10000, SJ_DRY_RUN_FLAGS_NONE,
                                NULL, &error);
  g_assert_no_error (error);
  report = sj_dry_run_report (answer, self->knowledge);

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

      if (sj_sound_library_lookup_file (self->library, pack, path) == NULL)
        g_ptr_array_add (problems, g_strdup_printf ("%s: “%s” plays %s/%s, which is no file of the sound library",
                                                    where, json_object_get_string_member (use, "sound"), pack, path));
    }

  loaded = json_object_get_array_member (report, "samples");
  loads = loaded != NULL && json_array_get_length (loaded) > 0;
  check_network_claim (self, where, text, json_object_get_array_member (report, "sounds"), loads, problems);
  return loads;
}

/* As the application sets it up (sj-application.c). */
static GBytes *
drum_kit_fallback (const char  *voice,
                   guint        variant,
                   GError     **error)
{
  return sj_drum_kit_lookup (voice, (int)MIN (variant, (guint)G_MAXINT), error);
}

/* Checks one example, statically and in the real dry-run helper; every
 * problem found is added to @problems as a line that starts with @where.
 * Returns whether the example loads samples of its own. */
gboolean
sj_test_examples_check (SjTestExamples *self,
                        const char     *where,
                        const char     *code,
                        GPtrArray      *problems)
{
  if (self->dry_run == NULL)
    {
      self->dry_run = sj_dry_run_new ();
      sj_dry_run_start (self->dry_run);
    }

  check_example (self, where, code, problems);
  return dry_run_example (self, where, code, problems);
}

/* Only the static checks, for code that is not a whole program (the
 * snippets of a skill's Rules). */
void
sj_test_examples_check_names (SjTestExamples *self,
                              const char     *where,
                              const char     *code,
                              GPtrArray      *problems)
{
  check_example (self, where, code, problems);
}

SjTestExamples *
sj_test_examples_new (void)
{
  SjTestExamples *self = g_new0 (SjTestExamples, 1);
  g_autoptr(GFile) directory = NULL;

  self->reference = sj_reference_index_get_bundled ();
  self->library = sj_sound_library_get_default ();
  self->sounds = sj_sounds_index_new ();
  sj_sounds_index_load_bundled (self->sounds);
  self->knowledge = sj_knowledge_new (self->reference, self->sounds);

  self->offline_directory = g_dir_make_tmp ("test-examples-XXXXXX", NULL);
  g_assert_nonnull (self->offline_directory);
  directory = g_file_new_for_path (self->offline_directory);
  self->offline_cache = sj_sound_cache_new (self->library, directory);
  sj_sound_cache_set_allow_downloads (self->offline_cache, FALSE);
  sj_sound_cache_set_fallback (self->offline_cache, drum_kit_fallback);

  return self;
}

void
sj_test_examples_free (SjTestExamples *self)
{
  g_clear_object (&self->dry_run);
  g_clear_object (&self->knowledge);
  g_clear_object (&self->offline_cache);
  g_rmdir (self->offline_directory);
  g_free (self->offline_directory);
  g_clear_object (&self->sounds);
  g_free (self);
}

SjReferenceIndex *
sj_test_examples_get_reference (SjTestExamples *self)
{
  return self->reference;
}

SjSoundsIndex *
sj_test_examples_get_sounds (SjTestExamples *self)
{
  return self->sounds;
}

SjSoundLibrary *
sj_test_examples_get_library (SjTestExamples *self)
{
  return self->library;
}
