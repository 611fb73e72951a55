/* test-knowledge-files.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Keeps the curated knowledge honest: every function called in a code
 * example of the knowledge notes exists in the bundled runtime, and every
 * sound it plays is registered offline by the page or listed in the
 * online packs of samples.md's sound name index.  Optional cross-checks
 * against upstream's oracles (../shared/reference) verify that index and
 * the generated reference; they skip when the oracles are absent.
 */

#include "config.h"

#include <string.h>

#include "sj-bundled-data.h"
#include "sj-knowledge-base-private.h"
#include "sj-reference-index.h"
#include "sj-sounds-index.h"

static SjReferenceIndex *reference;
static SjSoundsIndex *bundled_sounds;
static GHashTable *online_sounds;   /* name → source */
static GHashTable *online_banks;    /* bank → source */

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

static gboolean
sound_exists (const char *name)
{
  return sj_sounds_index_lookup (bundled_sounds, name) != NULL ||
         g_hash_table_contains (online_sounds, name);
}

/* The words of a mini-notation string that name sounds: "bd:3*2 [~ hh]"
 * gives bd and hh; numbers, rests and operators are not sounds. */
static void
check_sounds (const char *where,
              const char *callee,
              const char *mini,
              GPtrArray  *problems)
{
  gboolean bank = g_str_equal (callee, "bank");

  if (!bank && !g_str_equal (callee, "s") && !g_str_equal (callee, "sound"))
    return;

  for (const char *p = mini; *p != '\0'; p++)
    {
      const char *start = p;
      g_autofree char *word = NULL;

      if (!g_ascii_isalpha (*p) || (p > mini && (g_ascii_isalnum (p[-1]) || p[-1] == '_' || p[-1] == ':' || p[-1] == '.')))
        continue;
      while (g_ascii_isalnum (*p) || *p == '_' || *p == '-')
        p++;
      word = g_strndup (start, p - start);
      p--;

      if (bank ? !g_hash_table_contains (online_banks, word) : !sound_exists (word))
        g_ptr_array_add (problems, g_strdup_printf ("%s: %s “%s” is neither bundled nor in samples.md's index",
                                                    where, bank ? "bank" : "sound", word));
    }
}

/* samples.md's "## Sound name index": one ```text block of lines
 * "source: name name …".  Banks (the tidal-drum-machines line) are kept
 * apart: they are what .bank() takes. */
static void
load_online_index (void)
{
  const char *text = _sj_knowledge_base_get_text (sj_knowledge_base_get_bundled (), "samples");
  const char *section = strstr (text, "## Sound name index");
  g_autoptr(GPtrArray) blocks = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_nonnull (section);
  blocks = blocks_of ("samples.md", section, "text");
  g_assert_cmpuint (blocks->len, >=, 1);

  online_sounds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  online_banks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  lines = g_strsplit (((Block *)g_ptr_array_index (blocks, 0))->text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *colon = strchr (lines[i], ':');
      g_autofree char *source = NULL;
      g_auto(GStrv) names = NULL;
      gboolean banks;

      if (colon == NULL)
        continue;
      source = g_strstrip (g_strndup (lines[i], colon - lines[i]));
      names = g_strsplit_set (colon + 1, " \t", -1);
      banks = strstr (source, "drum-machines") != NULL || strstr (source, "banks") != NULL;

      for (guint n = 0; names[n] != NULL; n++)
        if (names[n][0] != '\0')
          g_hash_table_replace (banks ? online_banks : online_sounds, g_strdup (names[n]), g_strdup (source));
    }

  g_assert_cmpuint (g_hash_table_size (online_sounds), >, 10);
}

/* The bundled line of the index names only what the page registers
 * offline. */
static void
test_bundled_index_is_bundled (void)
{
  GHashTableIter iter;
  gpointer name, source;

  g_hash_table_iter_init (&iter, online_sounds);
  while (g_hash_table_iter_next (&iter, &name, &source))
    if (g_str_equal (source, "bundled") && sj_sounds_index_lookup (bundled_sounds, name) == NULL)
      g_error ("samples.md lists “%s” as bundled, but the page does not register it offline", (char *)name);
}

static void
test_examples_are_real (void)
{
  const char * const *categories = _sj_knowledge_base_get_categories ();
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  guint n_blocks = 0;

  for (guint c = 0; categories[c] != NULL; c++)
    {
      const char *text = _sj_knowledge_base_get_text (sj_knowledge_base_get_bundled (), categories[c]);
      g_autofree char *file = g_strconcat (categories[c], ".md", NULL);
      g_autoptr(GPtrArray) blocks = blocks_of (file, text, "javascript");

      g_assert_cmpuint (blocks->len, >=, 10);
      for (guint b = 0; b < blocks->len; b++, n_blocks++)
        {
          const Block *block = g_ptr_array_index (blocks, b);
          g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
          g_autofree char *where = g_strdup_printf ("%s:%u", file, block->line);
          g_autofree char *code = split_code (block->text, strings);

          check_calls (where, code, problems);
          for (guint s = 0; s < strings->len; s++)
            {
              const char *entry = g_ptr_array_index (strings, s);
              const char *sep = strchr (entry, '\x1f');
              g_autofree char *callee = g_strndup (entry, sep - entry);

              check_sounds (where, callee, sep + 1, problems);
            }
        }
    }

  for (guint i = 0; i < problems->len; i++)
    g_test_message ("%s", (const char *)g_ptr_array_index (problems, i));
  g_test_message ("%u code examples checked", n_blocks);
  g_assert_cmpuint (problems->len, ==, 0);
  g_assert_cmpuint (n_blocks, >=, 80);
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

/* Optional: the index of samples.md against upstream's sample maps. */
static void
test_online_index_matches_upstream (void)
{
  g_autofree char *dir = shared_path ("samplemaps");
  GHashTableIter iter;
  gpointer name, source;
  g_autoptr(GString) all_keys = g_string_new (" ");
  g_autoptr(GDir) listing = NULL;
  const char *entry;

  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("../shared/reference is not here");
      return;
    }

  /* Every key of every upstream map, space separated, lower-cased. */
  listing = g_dir_open (dir, 0, NULL);
  while ((entry = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, entry, NULL);
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GList) keys = NULL;

      g_assert_true (json_parser_load_from_file (parser, path, NULL));
      keys = json_object_get_members (json_node_get_object (json_parser_get_root (parser)));
      for (GList *l = keys; l != NULL; l = l->next)
        {
          g_autofree char *lower = g_ascii_strdown (l->data, -1);

          g_string_append_printf (all_keys, "%s ", lower);
        }
    }

  g_hash_table_iter_init (&iter, online_sounds);
  while (g_hash_table_iter_next (&iter, &name, &source))
    {
      g_autofree char *needle = g_strdup_printf (" %s ", (char *)name);
      g_autofree char *lower = g_ascii_strdown (needle, -1);

      /* Bundled names are checked against the build's own list. */
      if (g_str_equal (source, "bundled"))
        continue;
      if (strstr (all_keys->str, lower) == NULL)
        g_error ("samples.md lists “%s” under %s, but no upstream sample map has it", (char *)name, (char *)source);
    }

  g_hash_table_iter_init (&iter, online_banks);
  while (g_hash_table_iter_next (&iter, &name, &source))
    {
      g_autofree char *needle = g_strdup_printf (" %s_", (char *)name);
      g_autofree char *lower = g_ascii_strdown (needle, -1);

      if (strstr (all_keys->str, lower) == NULL)
        g_error ("samples.md lists the bank “%s”, but no upstream sample map has it", (char *)name);
    }
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

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);

  reference = sj_reference_index_get_bundled ();
  bundled_sounds = sj_sounds_index_new ();
  sj_sounds_index_load_bundled (bundled_sounds);
  load_online_index ();

  g_test_add_func ("/knowledge-files/examples-are-real", test_examples_are_real);
  g_test_add_func ("/knowledge-files/bundled-index-is-bundled", test_bundled_index_is_bundled);
  g_test_add_func ("/knowledge-files/every-entry-has-an-example", test_every_entry_has_an_example);
  g_test_add_func ("/knowledge-files/online-index-matches-upstream", test_online_index_matches_upstream);
  g_test_add_func ("/knowledge-files/reference-matches-upstream", test_reference_matches_upstream);

  status = g_test_run ();

  g_clear_object (&bundled_sounds);
  g_clear_pointer (&online_sounds, g_hash_table_unref);
  g_clear_pointer (&online_banks, g_hash_table_unref);
  return status;
}
