/* test-skills.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The skills registry without a display: loading the fixture skills of
 * tests/data/skills (a bundled root and a user root, where the user's
 * "funk" overrides the bundled one), the disabled set in GSettings,
 * trigger matching (inflections, word boundaries, phrases), the budget of
 * a turn's skills, suggestions and search, and the bundled skills of
 * data/skills. Broken folders, installing and following the disk are
 * test-skills-files.c.
 */

#include "config.h"

#include <string.h>

#include "sj-skill-private.h"
#include "sj-skill-matcher.h"
#include "sj-skill-registry.h"

#define FIXTURES SJ_TEST_DATA "/skills"

static SjSkillRegistry *
fixture_registry (void)
{
  return sj_skill_registry_new_for_roots (FIXTURES "/bundled", FIXTURES "/user", NULL);
}

static void
test_load (void)
{
  g_autoptr(SjSkillRegistry) registry = fixture_registry ();
  SjSkill *jazz, *funk;
  SjSkillSnippet *snippet;

  g_assert_cmpuint (sj_skill_registry_get_errors (registry)->len, ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (registry)), ==, 6);

  jazz = sj_skill_registry_lookup (registry, "jazz");
  g_assert_nonnull (jazz);
  g_assert_cmpstr (sj_skill_get_title (jazz), ==, "Jazz");
  g_assert_cmpstr (sj_skill_get_version (jazz), ==, "1.0.0");
  g_assert_cmpint (sj_skill_get_priority (jazz), ==, 60);
  g_assert_true (sj_skill_has_tag (jazz, "genre"));
  g_assert_cmpint (sj_skill_get_origin (jazz), ==, SJ_SKILL_ORIGIN_BUNDLED);
  g_assert_false (sj_skill_get_overrides (jazz));
  g_assert_nonnull (strstr (sj_skill_get_rules (jazz), "JAZZ-RULES"));
  g_assert_null (strstr (sj_skill_get_rules (jazz), "Examples"));
  g_assert_true (g_str_has_prefix (sj_skill_get_markdown (jazz), "# Jazz\n"));

  g_assert_cmpuint (sj_skill_get_templates (jazz)->len, ==, 2);
  snippet = g_ptr_array_index (sj_skill_get_templates (jazz), 1);
  g_assert_cmpstr (snippet->name, ==, "Swing hats");
  g_assert_cmpstr (snippet->code, ==, "s(\"hh*4\").swing(4)");
  g_assert_cmpuint (sj_skill_get_patterns (jazz)->len, ==, 1);
  snippet = g_ptr_array_index (sj_skill_get_patterns (jazz), 0);
  g_assert_cmpstr (snippet->name, ==, "ii-V-I");

  /* The user's funk replaces the bundled one. */
  funk = sj_skill_registry_lookup (registry, "funk");
  g_assert_cmpstr (sj_skill_get_title (funk), ==, "My Funk");
  g_assert_cmpint (sj_skill_get_origin (funk), ==, SJ_SKILL_ORIGIN_USER);
  g_assert_true (sj_skill_get_overrides (funk));
  g_assert_nonnull (strstr (sj_skill_get_rules (funk), "MY-FUNK-RULES"));

  /* The list model is sorted by title. */
  {
    g_autoptr(SjSkill) first = g_list_model_get_item (G_LIST_MODEL (registry), 0);
    g_assert_cmpstr (sj_skill_get_name (first), ==, "drum-and-bass");
  }
}

static void
count_cb (guint *count)
{
  (*count)++;
}

static void
test_disabled (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.strudeljam.StrudelJam");
  g_autoptr(SjSkillRegistry) registry = NULL;
  g_autoptr(SjSkillRegistry) again = NULL;
  g_autoptr(GPtrArray) matches = NULL;
  g_auto(GStrv) stored = NULL;
  guint changes = 0;

  g_settings_reset (settings, "disabled-skills");
  registry = sj_skill_registry_new_for_roots (FIXTURES "/bundled", FIXTURES "/user", settings);
  g_signal_connect_swapped (registry, "changed", G_CALLBACK (count_cb), &changes);

  sj_skill_registry_set_enabled (registry, "jazz", FALSE);
  g_assert_cmpuint (changes, ==, 1);
  g_assert_false (sj_skill_registry_is_enabled (registry, "jazz"));
  /* Still listed (the page shows it off), never matched. */
  g_assert_nonnull (sj_skill_registry_lookup (registry, "jazz"));
  matches = sj_skill_registry_match (registry, "make it jazzy");
  g_assert_cmpuint (matches->len, ==, 0);

  stored = g_settings_get_strv (settings, "disabled-skills");
  g_assert_cmpuint (g_strv_length (stored), ==, 1);
  g_assert_cmpstr (stored[0], ==, "jazz");

  /* Another registry (the next start) reads the same set. */
  again = sj_skill_registry_new_for_roots (FIXTURES "/bundled", FIXTURES "/user", settings);
  g_assert_false (sj_skill_registry_is_enabled (again, "jazz"));

  /* A change of the key from elsewhere is followed. */
  g_settings_set_strv (settings, "disabled-skills", NULL);
  while (!sj_skill_registry_is_enabled (registry, "jazz"))
    g_main_context_iteration (NULL, TRUE);
  g_clear_pointer (&matches, g_ptr_array_unref);
  matches = sj_skill_registry_match (registry, "make it jazzy");
  g_assert_cmpuint (matches->len, ==, 1);
}

typedef struct
{
  const char *message;
  const char *expected;  /* names in order, space-separated; "" for none */
} MatchCase;

static const MatchCase match_cases[] = {
  { "make it jazzy", "jazz" },
  { "can you make it jazzier?", "jazz" },
  { "Make it JAZZ!", "jazz" },
  { "the jazziest thing you can", "jazz" },
  { "add a dub delay", "dub" },
  { "some dubby echoes please", "dub" },
  { "more swing on the hats", "jazz" },
  { "a walking bass line", "jazz" },
  { "go deep house", "house" },
  { "houses everywhere", "house" },
  { "let's do some drum and bass", "drum-and-bass" },
  { "dnb at 174", "drum-and-bass" },
  { "make it funkier", "funk" },
  { "slap bass", "funk" },
  { "pumping pads with sidechain", "sidechain" },
  { "jazzy dub with a funky bass", "funk jazz dub" },
  /* Word boundaries and phrases: none of these. */
  { "jazzercise", "" },
  { "water the houseplant", "" },
  { "the bass drums are too loud", "" },
  { "drum, and then bass", "" },
  { "make it faster", "" },
  { "dubstep", "" },
  { "", "" },
  { "!!! ??? ...", "" },
};

static void
test_match (void)
{
  g_autoptr(SjSkillRegistry) registry = fixture_registry ();

  for (guint i = 0; i < G_N_ELEMENTS (match_cases); i++)
    {
      g_autoptr(GPtrArray) matches = sj_skill_registry_match (registry, match_cases[i].message);
      g_autoptr(GString) names = g_string_new (NULL);

      for (guint m = 0; m < matches->len; m++)
        g_string_append_printf (names, "%s%s", m > 0 ? " " : "", sj_skill_get_name (g_ptr_array_index (matches, m)));
      if (!g_str_equal (names->str, match_cases[i].expected))
        g_error ("“%s” matched “%s”, expected “%s”", match_cases[i].message, names->str, match_cases[i].expected);
    }
}

static void
test_stem (void)
{
  const char *same[][2] = {
    { "jazz", "jazzy" }, { "jazz", "jazzier" }, { "jazz", "jazziest" }, { "dub", "dubby" }, { "dub", "dubs" },
    { "drum", "drums" }, { "bass", "basses" }, { "groove", "groovy" }, { "swing", "swinging" }, { "filter", "filtered" },
    { "delay", "delays" }, { "house", "houses" },
  };
  const char *different[][2] = {
    { "jazz", "jazzercise" }, { "house", "houseplant" }, { "dub", "dubstep" }, { "funk", "fun" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (same); i++)
    {
      g_autofree char *a = sj_skill_stem (same[i][0]);
      g_autofree char *b = sj_skill_stem (same[i][1]);
      if (!g_str_equal (a, b))
        g_error ("“%s” → “%s” but “%s” → “%s”", same[i][0], a, same[i][1], b);
    }
  for (guint i = 0; i < G_N_ELEMENTS (different); i++)
    {
      g_autofree char *a = sj_skill_stem (different[i][0]);
      g_autofree char *b = sj_skill_stem (different[i][1]);
      g_assert_cmpstr (a, !=, b);
    }
}

/* A long message is matched in bounded time and space. */
static void
test_match_long (void)
{
  g_autoptr(SjSkillRegistry) registry = fixture_registry ();
  g_autoptr(GString) message = g_string_new ("make it jazzy ");
  g_autoptr(GPtrArray) matches = NULL;

  for (guint i = 0; i < 20000; i++)
    g_string_append (message, "dub ");
  matches = sj_skill_registry_match (registry, message->str);
  g_assert_cmpuint (matches->len, ==, 2);
}

static const char *
choice_names (GPtrArray *choices,
              GString   *out)
{
  g_string_truncate (out, 0);
  for (guint i = 0; i < choices->len; i++)
    {
      SjSkillChoice *choice = g_ptr_array_index (choices, i);
      g_string_append_printf (out, "%s%s:%s", i > 0 ? " " : "", sj_skill_get_name (choice->skill),
                              sj_skill_use_to_string (choice->use));
    }
  return out->str;
}

static void
test_budget (void)
{
  g_autoptr(SjSkillRegistry) registry = fixture_registry ();
  g_autoptr(GString) names = g_string_new (NULL);
  const char *pinned[] = { "sidechain", "nope", NULL };
  const char *activated[] = { "house", "sidechain", NULL };
  const char *message = "jazzy dub with a funky bass and some dnb";
  GPtrArray *choices;
  g_autofree char *block = NULL;
  gsize jazz_rules = strlen (sj_skill_get_rules (sj_skill_registry_lookup (registry, "jazz")));

  /* Automatic ones: at most max_auto, by priority. */
  choices = sj_skill_registry_choose (registry, message, NULL, NULL, 3, SJ_SKILL_RULES_BUDGET);
  g_assert_cmpstr (choice_names (choices, names), ==, "funk:auto jazz:auto dub:auto");
  block = sj_skill_choices_format (choices);
  g_assert_true (g_str_has_prefix (block, "<skills>\n<skill name=\"funk\" title=\"My Funk\" why=\"auto\">\n- MY-FUNK"));
  g_assert_true (g_str_has_suffix (block, "</skills>"));
  g_ptr_array_unref (choices);

  /* Pinned first, then activated (once), then automatic; unknown names are skipped. */
  choices = sj_skill_registry_choose (registry, message, pinned, activated, 2, SJ_SKILL_RULES_BUDGET);
  g_assert_cmpstr (choice_names (choices, names), ==, "sidechain:pinned house:tool funk:auto jazz:auto");
  g_ptr_array_unref (choices);

  /* The character budget leaves out what does not fit, and keeps what does. */
  choices = sj_skill_registry_choose (registry, "make it jazzy and dubby", NULL, NULL, 3, jazz_rules + 10);
  g_assert_cmpstr (choice_names (choices, names), ==, "jazz:auto");
  g_ptr_array_unref (choices);
  choices = sj_skill_registry_choose (registry, "make it jazzy and dubby", NULL, NULL, 3, jazz_rules - 1);
  g_assert_cmpstr (choice_names (choices, names), ==, "dub:auto");
  g_ptr_array_unref (choices);

  /* Disabled skills are not used, pinned or not. */
  sj_skill_registry_set_enabled (registry, "sidechain", FALSE);
  choices = sj_skill_registry_choose (registry, "", pinned, NULL, 3, SJ_SKILL_RULES_BUDGET);
  g_assert_cmpstr (choice_names (choices, names), ==, "");
  g_ptr_array_unref (choices);

  g_clear_pointer (&block, g_free);
  block = sj_skill_choices_format (NULL);
  g_assert_cmpstr (block, ==, "");
}

static void
test_suggest (void)
{
  g_autoptr(SjSkillRegistry) registry = fixture_registry ();
  g_auto(GStrv) typo = sj_skill_registry_suggest (registry, "jaz");
  g_auto(GStrv) nothing = sj_skill_registry_suggest (registry, "zzzzzzzzz");
  g_autoptr(GPtrArray) found = sj_skill_registry_search (registry, "GENRE bass");
  g_autoptr(GPtrArray) tagged = sj_skill_registry_list_with_tag (registry, "electronic");

  g_assert_true (g_strv_contains ((const char * const *) typo, "jazz"));
  g_assert_cmpuint (g_strv_length (nothing), ==, 0);
  /* Tags and triggers are searched: "walking bass", "drum and bass", "slap bass". */
  g_assert_cmpuint (found->len, ==, 3);
  g_assert_cmpuint (tagged->len, ==, 2);
}

static void
test_bundled (void)
{
  const char *root = g_getenv ("STRUDEL_JAM_SKILLS_DIR");
  const char *generic[] = {
    "make it faster", "slower please", "half the tempo", "louder", "turn up the bass", "add more drums",
    "add a beat", "more reverb on the pads", "drop the hats for a bar", "mute the kick", "what does jux do?",
    "add a melody", "make it sound better", "stop",
  };
  g_autoptr(SjSkillRegistry) registry = NULL;
  GPtrArray *errors;

  if (root == NULL || *root == '\0')
    {
      g_test_skip ("STRUDEL_JAM_SKILLS_DIR is not set");
      return;
    }
  registry = sj_skill_registry_new_for_roots (root, NULL, NULL);
  errors = sj_skill_registry_get_errors (registry);
  for (guint i = 0; i < errors->len; i++)
    g_test_message ("%s", ((GError *) g_ptr_array_index (errors, i))->message);
  g_assert_cmpuint (errors->len, ==, 0);
  if (g_list_model_get_n_items (G_LIST_MODEL (registry)) == 0)
    {
      g_test_skip ("No bundled skills yet");
      return;
    }

  for (guint i = 0; i < G_N_ELEMENTS (generic); i++)
    {
      g_autoptr(GPtrArray) matches = sj_skill_registry_match (registry, generic[i]);

      if (matches->len > 0)
        g_error ("“%s” brings in the skill “%s”", generic[i], sj_skill_get_name (g_ptr_array_index (matches, 0)));
    }

  /* Each skill's rules fit the budget on their own. */
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (registry)); i++)
    {
      g_autoptr(SjSkill) skill = g_list_model_get_item (G_LIST_MODEL (registry), i);

      g_assert_cmpuint (strlen (sj_skill_get_rules (skill)), <=, SJ_SKILL_RULES_BUDGET / 2);
    }
}

/* Without any skills folder, nothing breaks. */
static void
test_missing_roots (void)
{
  g_autoptr(SjSkillRegistry) registry = sj_skill_registry_new_for_roots ("/nonexistent/skills", NULL, NULL);
  g_autoptr(GPtrArray) matches = sj_skill_registry_match (registry, "make it jazzy");

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (registry)), ==, 0);
  g_assert_cmpuint (sj_skill_registry_get_errors (registry)->len, ==, 0);
  g_assert_cmpuint (matches->len, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/skills/load", test_load);
  g_test_add_func ("/skills/disabled", test_disabled);
  g_test_add_func ("/skills/match", test_match);
  g_test_add_func ("/skills/match-long", test_match_long);
  g_test_add_func ("/skills/stem", test_stem);
  g_test_add_func ("/skills/budget", test_budget);
  g_test_add_func ("/skills/suggest", test_suggest);
  g_test_add_func ("/skills/missing-roots", test_missing_roots);
  g_test_add_func ("/skills/bundled", test_bundled);

  return g_test_run ();
}
