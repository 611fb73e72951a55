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
 * cross-check against upstream's doc.json (-Dupstream_reference) verifies
 * the generated reference; it skips when that file is absent.
 */

#include "config.h"

#include <string.h>

#include "sj-bundled-data.h"
#include "sj-drum-kit-private.h"
#include "sj-knowledge-base-private.h"

#include "sj-test-examples.h"

/* How many examples may load a sample pack of their own (the entries
 * about samples() itself): the notes teach the library, not downloads. */
#define MAX_EXAMPLES_LOADING_SAMPLES 3

static SjTestExamples *examples;
static SjReferenceIndex *reference;
static SjSoundsIndex *sounds;       /* what the app registers */
static SjSoundLibrary *library;
static GHashTable *index_lines;     /* samples.md's index: source → GPtrArray of names */
static GPtrArray *index_sources;    /* the sources, in the index's order */

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
  blocks = sj_test_blocks_of ("samples.md", section, "text");
  g_assert_cmpuint (blocks->len, ==, 1);

  index_lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
  index_sources = g_ptr_array_new_with_free_func (g_free);

  lines = g_strsplit (((SjTestBlock *)g_ptr_array_index (blocks, 0))->text, "\n", -1);
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

static void
test_examples_are_real (void)
{
  const char * const *categories = _sj_knowledge_base_get_categories ();
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  guint n_blocks = 0, n_loading = 0;

  for (guint c = 0; categories[c] != NULL; c++)
    {
      const char *text = _sj_knowledge_base_get_text (sj_knowledge_base_get_bundled (), categories[c]);
      g_autofree char *file = g_strconcat (categories[c], ".md", NULL);
      g_autoptr(GPtrArray) blocks = sj_test_blocks_of (file, text, "javascript");

      g_assert_cmpuint (blocks->len, >=, 10);
      for (guint b = 0; b < blocks->len; b++, n_blocks++)
        {
          const SjTestBlock *block = g_ptr_array_index (blocks, b);
          g_autofree char *where = g_strdup_printf ("%s:%u", file, block->line);

          if (sj_test_examples_check (examples, where, block->text, problems))
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
  return g_build_filename (SJ_UPSTREAM_REFERENCE, name, NULL);
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

  if (*SJ_UPSTREAM_REFERENCE == '\0' || !g_file_get_contents (path, &contents, &length, NULL))
    {
      g_test_skip ("no upstream reference (configure with -Dupstream_reference=PATH)");
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

  examples = sj_test_examples_new ();
  reference = sj_test_examples_get_reference (examples);
  library = sj_test_examples_get_library (examples);
  sounds = sj_test_examples_get_sounds (examples);
  load_sound_index ();

  g_test_add_func ("/knowledge-files/examples-are-real", test_examples_are_real);
  g_test_add_func ("/knowledge-files/sound-index-is-the-library", test_sound_index_is_the_library);
  g_test_add_func ("/knowledge-files/every-entry-has-an-example", test_every_entry_has_an_example);
  g_test_add_func ("/knowledge-files/reference-matches-upstream", test_reference_matches_upstream);

  status = g_test_run ();

  g_clear_pointer (&examples, sj_test_examples_free);
  g_clear_pointer (&index_lines, g_hash_table_unref);
  g_clear_pointer (&index_sources, g_ptr_array_unref);
  return status;
}
