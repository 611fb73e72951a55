/* test-skills.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The skills registry without a display: loading the fixture skills of
 * tests/data/skills (a bundled root and a user root, where the user's
 * "funk" overrides the bundled one), one clear error per broken skill for
 * every rule of the format while the good skills still load, the
 * disabled set in GSettings, trigger matching (inflections, word
 * boundaries, phrases), the budget of a turn's skills, and installing
 * user skills (nothing is written for an invalid one).
 */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sj-skill-private.h"
#include "sj-skill-matcher.h"
#include "sj-skill-registry-private.h"
#include "sj-skill-registry.h"
#include "sj-test-files.h"

#define FIXTURES SJ_TEST_DATA "/skills"

static const char good_json[] =
  "{\"name\": \"%s\", \"title\": \"Good\", \"description\": \"A good skill.\", \"version\": \"1.0.0\","
  " \"tags\": [\"genre\"], \"triggers\": [\"good\"], \"priority\": 50}";
static const char good_markdown[] = "# Good\n\n## Rules\n\n- Be good.\n\n## Examples\n\nNone.\n";

static SjSkillRegistry *
fixture_registry (void)
{
  return sj_skill_registry_new_for_roots (FIXTURES "/bundled", FIXTURES "/user", NULL);
}

static void
write_file (const char *dir,
            const char *name,
            const char *contents,
            gssize      length)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, length, &error);
  g_assert_no_error (error);
}

/* A skill folder under @root; %NULL contents leave a file out. */
static char *
write_skill (const char *root,
             const char *name,
             const char *json,
             const char *markdown)
{
  char *dir = g_build_filename (root, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  if (json != NULL)
    {
      g_auto(GStrv) parts = g_strsplit (json, "%s", -1);
      g_autofree char *text = g_strjoinv (name, parts);

      write_file (dir, "skill.json", text, -1);
    }
  if (markdown != NULL)
    write_file (dir, "SKILL.md", markdown, -1);

  return dir;
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

typedef struct
{
  const char   *name;       /* the folder */
  const char   *json;       /* %s is the folder's name; NULL: no file */
  const char   *markdown;   /* NULL: no file */
  const char   *extra;      /* "symlink", "subdir", "files", "templates:…", "patterns:…", "big-json", "latin1" */
  SjSkillError  code;
  const char   *words;      /* in the message */
} BrokenCase;

#define BASE "\"title\": \"T\", \"description\": \"D.\", \"version\": \"1.0.0\", \"triggers\": [\"x\"]"

static const BrokenCase broken[] = {
  { "no-json", NULL, good_markdown, NULL, SJ_SKILL_ERROR_MISSING_FILE, "skill.json" },
  { "no-markdown", good_json, NULL, NULL, SJ_SKILL_ERROR_MISSING_FILE, "SKILL.md" },
  { "not-json", "{\"name\": ", good_markdown, NULL, SJ_SKILL_ERROR_INVALID_JSON, "not valid JSON" },
  { "not-object", "[1, 2]", good_markdown, NULL, SJ_SKILL_ERROR_INVALID_JSON, "one JSON object" },
  { "too-deep", "{\"name\": \"too-deep\", \"x\": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}", good_markdown, NULL,
    SJ_SKILL_ERROR_INVALID_JSON, "nested" },
  { "typo-key", "{\"name\": \"%s\", " BASE ", \"trigers\": [\"y\"]}", good_markdown, NULL, SJ_SKILL_ERROR_UNKNOWN_KEY, "trigers" },
  { "mismatch", "{\"name\": \"other\", " BASE "}", good_markdown, NULL, SJ_SKILL_ERROR_NAME_MISMATCH, "other" },
  { "Bad_Name", "{\"name\": \"%s\", " BASE "}", good_markdown, NULL, SJ_SKILL_ERROR_INVALID_FIELD, "lowercase" },
  { "no-title", "{\"name\": \"%s\", \"description\": \"D.\", \"version\": \"1.0.0\", \"triggers\": [\"x\"]}", good_markdown,
    NULL, SJ_SKILL_ERROR_INVALID_FIELD, "“title” is missing" },
  { "long-title", "{\"name\": \"%s\", \"title\": \"0123456789012345678901234567890123456789012345678901234567890\","
    " \"description\": \"D.\", \"version\": \"1.0.0\", \"triggers\": [\"x\"]}", good_markdown, NULL, SJ_SKILL_ERROR_INVALID_FIELD, "title" },
  { "title-number", "{\"name\": \"%s\", \"title\": 7, \"description\": \"D.\", \"version\": \"1.0.0\", \"triggers\": [\"x\"]}",
    good_markdown, NULL, SJ_SKILL_ERROR_INVALID_FIELD, "must be a string" },
  { "bad-version", "{\"name\": \"%s\", \"title\": \"T\", \"description\": \"D.\", \"version\": \"one\", \"triggers\": [\"x\"]}",
    good_markdown, NULL, SJ_SKILL_ERROR_INVALID_FIELD, "version" },
  { "bad-tag", "{\"name\": \"%s\", " BASE ", \"tags\": [\"Not A Tag\"]}", good_markdown, NULL, SJ_SKILL_ERROR_INVALID_FIELD, "Not A Tag" },
  { "many-tags", "{\"name\": \"%s\", " BASE ", \"tags\": [\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",\"k\",\"l\",\"m\"]}",
    good_markdown, NULL, SJ_SKILL_ERROR_INVALID_FIELD, "tags" },
  { "no-triggers", "{\"name\": \"%s\", \"title\": \"T\", \"description\": \"D.\", \"version\": \"1.0.0\", \"triggers\": []}",
    good_markdown, NULL, SJ_SKILL_ERROR_INVALID_FIELD, "triggers" },
  { "blank-trigger", "{\"name\": \"%s\", \"title\": \"T\", \"description\": \"D.\", \"version\": \"1.0.0\", \"triggers\": [\"  \"]}",
    good_markdown, NULL, SJ_SKILL_ERROR_INVALID_FIELD, "triggers" },
  { "high-priority", "{\"name\": \"%s\", " BASE ", \"priority\": 101}", good_markdown, NULL, SJ_SKILL_ERROR_INVALID_FIELD, "priority" },
  { "text-priority", "{\"name\": \"%s\", " BASE ", \"priority\": \"high\"}", good_markdown, NULL, SJ_SKILL_ERROR_INVALID_FIELD, "priority" },
  { "no-heading", good_json, "Rules without a title\n\n## Rules\n\n- x\n", NULL, SJ_SKILL_ERROR_INVALID_MARKDOWN, "title" },
  { "no-rules", good_json, "# Good\n\n## Examples\n\nNone.\n", NULL, SJ_SKILL_ERROR_INVALID_MARKDOWN, "## Rules" },
  { "empty-rules", good_json, "# Good\n\n## Rules\n\n## Examples\n", NULL, SJ_SKILL_ERROR_INVALID_MARKDOWN, "## Rules" },
  { "big-json", good_json, good_markdown, "big-json", SJ_SKILL_ERROR_TOO_LARGE, "skill.json" },
  { "latin1", good_json, good_markdown, "latin1", SJ_SKILL_ERROR_INVALID_MARKDOWN, "UTF-8" },
  { "symlink", good_json, good_markdown, "symlink", SJ_SKILL_ERROR_BAD_FOLDER, "symbolic" },
  { "subdir", good_json, good_markdown, "subdir", SJ_SKILL_ERROR_BAD_FOLDER, "sub-folders" },
  { "many-files", good_json, good_markdown, "files", SJ_SKILL_ERROR_BAD_FOLDER, "files" },
  { "bad-templates", good_json, good_markdown, "templates:note(\"c\")\n", SJ_SKILL_ERROR_INVALID_TEMPLATES, "@template" },
  { "empty-template", good_json, good_markdown, "templates:// @template A\n\n// @template B\nx\n", SJ_SKILL_ERROR_INVALID_TEMPLATES, "no code" },
  { "bad-patterns", good_json, good_markdown, "patterns:{\"patterns\": [{\"name\": \"a\", \"code\": \"x\", \"bpm\": 1}]}",
    SJ_SKILL_ERROR_INVALID_PATTERNS, "bpm" },
  { "patterns-shape", good_json, good_markdown, "patterns:{\"list\": []}", SJ_SKILL_ERROR_INVALID_PATTERNS, "patterns" },
  { "pattern-code", good_json, good_markdown, "patterns:{\"patterns\": [{\"name\": \"a\"}]}", SJ_SKILL_ERROR_INVALID_PATTERNS, "code" },
};

static void
add_extra (const char *dir,
           const char *extra)
{
  if (extra == NULL)
    return;

  if (g_str_equal (extra, "symlink"))
    {
      g_autofree char *link = g_build_filename (dir, "notes.txt", NULL);
      g_assert_cmpint (symlink ("/etc/passwd", link), ==, 0);
    }
  else if (g_str_equal (extra, "subdir"))
    {
      g_autofree char *sub = g_build_filename (dir, "more", NULL);
      g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
    }
  else if (g_str_equal (extra, "files"))
    for (guint i = 0; i < SJ_SKILL_MAX_FILES; i++)
      {
        g_autofree char *name = g_strdup_printf ("extra-%u.txt", i);
        write_file (dir, name, "x", -1);
      }
  else if (g_str_equal (extra, "big-json"))
    {
      g_autofree char *big = g_strnfill (SJ_SKILL_MAX_JSON + 1, ' ');
      write_file (dir, "skill.json", big, -1);
    }
  else if (g_str_equal (extra, "latin1"))
    write_file (dir, "SKILL.md", "# Caf\xe9\n\n## Rules\n\n- x\n", -1);
  else if (g_str_has_prefix (extra, "templates:"))
    write_file (dir, "templates.strudel", extra + strlen ("templates:"), -1);
  else if (g_str_has_prefix (extra, "patterns:"))
    write_file (dir, "patterns.json", extra + strlen ("patterns:"), -1);
}

static void
test_validation (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *root = g_dir_make_tmp ("sj-skills-XXXXXX", &error);
  g_autofree char *good = NULL;
  g_autoptr(SjSkillRegistry) registry = NULL;
  GPtrArray *errors;

  g_assert_no_error (error);
  good = write_skill (root, "good", good_json, good_markdown);
  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autofree char *dir = write_skill (root, broken[i].name, broken[i].json, broken[i].markdown);
      add_extra (dir, broken[i].extra);
    }

  /* Each broken skill gives its own error; the good one still loads. */
  registry = sj_skill_registry_new_for_roots (root, NULL, NULL);
  g_assert_nonnull (sj_skill_registry_lookup (registry, "good"));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (registry)), ==, 1);
  errors = sj_skill_registry_get_errors (registry);
  g_assert_cmpuint (errors->len, ==, G_N_ELEMENTS (broken));

  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autofree char *path = g_build_filename (root, broken[i].name, NULL);
      g_autoptr(GFile) folder = g_file_new_for_path (path);
      g_autoptr(SjSkill) skill = NULL;
      g_autofree char *quoted = g_strdup_printf ("“%s”", broken[i].name);
      gboolean listed = FALSE;

      g_test_message ("%s", broken[i].name);
      skill = sj_skill_load_folder (folder, SJ_SKILL_ORIGIN_USER, NULL, &error);
      g_assert_null (skill);
      g_assert_error (error, SJ_SKILL_ERROR, (int) broken[i].code);
      g_assert_nonnull (strstr (error->message, quoted));
      if (strstr (error->message, broken[i].words) == NULL)
        g_error ("“%s” does not say “%s”", error->message, broken[i].words);

      for (guint e = 0; e < errors->len; e++)
        listed |= g_str_equal (((GError *) g_ptr_array_index (errors, e))->message, error->message);
      g_assert_true (listed);
      g_clear_error (&error);
    }

  sj_test_remove_tree (root);
}

static void
test_depth (void)
{
  const char *deep = "{\"a\": [[[[{\"b\": 1}]]]]}";
  const char *in_string = "{\"a\": \"[[[[[[[[[[[[[[[[[[[[[[\\\"[[[[[[\"}";

  g_assert_true (_sj_skill_check_depth (deep, strlen (deep), 6));
  g_assert_false (_sj_skill_check_depth (deep, strlen (deep), 5));
  g_assert_true (_sj_skill_check_depth (in_string, strlen (in_string), 1));
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
test_install (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("sj-skills-XXXXXX", &error);
  g_autofree char *user = g_build_filename (tmp, "user", NULL);
  g_autofree char *staging = g_build_filename (tmp, "staging", NULL);
  g_autofree char *bad = NULL;
  g_autofree char *jazz_copy = NULL;
  g_autoptr(SjSkillRegistry) registry = NULL;
  g_autoptr(GFile) source = NULL;
  g_autoptr(GFile) bad_source = NULL;
  g_autoptr(GDir) dir = NULL;
  SjSkill *skill;

  g_assert_no_error (error);
  registry = sj_skill_registry_new_for_roots (FIXTURES "/bundled", user, NULL);

  /* An invalid folder writes nothing, not even the user root. */
  bad = write_skill (staging, "evil", "{\"name\": \"evil\", \"title\": \"T\"}", good_markdown);
  bad_source = g_file_new_for_path (bad);
  g_assert_null (sj_skill_registry_install_folder (registry, bad_source, FALSE, NULL, &error));
  g_assert_error (error, SJ_SKILL_ERROR, SJ_SKILL_ERROR_INVALID_FIELD);
  g_clear_error (&error);
  g_assert_false (g_file_test (user, G_FILE_TEST_EXISTS));

  /* A valid one is copied and overrides the bundled skill. */
  source = g_file_new_for_path (FIXTURES "/bundled/jazz");
  skill = sj_skill_registry_install_folder (registry, source, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sj_skill_get_origin (skill), ==, SJ_SKILL_ORIGIN_USER);
  g_assert_true (sj_skill_get_overrides (skill));
  jazz_copy = g_build_filename (user, "jazz", "templates.strudel", NULL);
  g_assert_true (g_file_test (jazz_copy, G_FILE_TEST_IS_REGULAR));

  /* Twice only when replacing; no staging folder is left behind. */
  g_assert_null (sj_skill_registry_install_folder (registry, source, FALSE, NULL, &error));
  g_assert_error (error, SJ_SKILL_ERROR, SJ_SKILL_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_nonnull (sj_skill_registry_install_folder (registry, source, TRUE, NULL, &error));
  g_assert_no_error (error);
  dir = g_dir_open (user, 0, NULL);
  g_assert_cmpstr (g_dir_read_name (dir), ==, "jazz");
  g_assert_null (g_dir_read_name (dir));

  /* From the template: a valid skill at once. */
  skill = sj_skill_registry_create (registry, "my-style", "My Style", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sj_skill_get_title (skill), ==, "My Style");
  g_assert_nonnull (sj_skill_registry_lookup (registry, "my-style"));
  g_assert_null (sj_skill_registry_create (registry, "../etc", "Evil", &error));
  g_assert_error (error, SJ_SKILL_ERROR, SJ_SKILL_ERROR_INVALID_FIELD);
  g_clear_error (&error);

  /* Removing the user's jazz shows the bundled one again. */
  g_assert_true (sj_skill_registry_remove (registry, "jazz", &error));
  g_assert_no_error (error);
  g_assert_cmpint (sj_skill_get_origin (sj_skill_registry_lookup (registry, "jazz")), ==, SJ_SKILL_ORIGIN_BUNDLED);
  g_assert_false (sj_skill_registry_remove (registry, "jazz", &error));
  g_assert_error (error, SJ_SKILL_ERROR, SJ_SKILL_ERROR_NOT_FOUND);
  g_clear_error (&error);

  sj_test_remove_tree (tmp);
}

typedef struct
{
  SjSkillRegistry *registry;
  const char      *name;
  const char      *rules;  /* NULL: the skill is to be gone */
} Awaited;

static gboolean
skill_is (Awaited *awaited)
{
  SjSkill *skill = sj_skill_registry_lookup (awaited->registry, awaited->name);

  if (awaited->rules == NULL)
    return skill == NULL;
  return skill != NULL && g_str_equal (sj_skill_get_rules (skill), awaited->rules);
}

static void
wait_for (Awaited *awaited)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (!skill_is (awaited))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
}

/* A skill written, edited or deleted in the user root is followed. */
static void
test_monitor (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *root = g_dir_make_tmp ("sj-skills-XXXXXX", &error);
  g_autofree char *dir = NULL;
  g_autoptr(SjSkillRegistry) registry = NULL;
  Awaited awaited = { NULL, "watched", "- Be good." };

  g_assert_no_error (error);
  registry = sj_skill_registry_new_for_roots (FIXTURES "/bundled", root, NULL);
  _sj_skill_registry_start_monitor (registry);
  awaited.registry = registry;

  dir = write_skill (root, "watched", good_json, good_markdown);
  wait_for (&awaited);

  write_file (dir, "SKILL.md", "# Good\n\n## Rules\n\n- Be better.\n", -1);
  awaited.rules = "- Be better.";
  wait_for (&awaited);

  sj_test_remove_tree (dir);
  awaited.rules = NULL;
  wait_for (&awaited);

  g_clear_object (&registry);
  sj_test_remove_tree (root);
}

/* The skills bundled with the app (STRUDEL_JAM_SKILLS_DIR, the source
 * tree's data/skills) all load, and everyday requests that name no style
 * bring none of them in. Skipped while there are none. */
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
  g_test_add_func ("/skills/validation", test_validation);
  g_test_add_func ("/skills/depth", test_depth);
  g_test_add_func ("/skills/disabled", test_disabled);
  g_test_add_func ("/skills/match", test_match);
  g_test_add_func ("/skills/match-long", test_match_long);
  g_test_add_func ("/skills/stem", test_stem);
  g_test_add_func ("/skills/budget", test_budget);
  g_test_add_func ("/skills/suggest", test_suggest);
  g_test_add_func ("/skills/install", test_install);
  g_test_add_func ("/skills/missing-roots", test_missing_roots);
  g_test_add_func ("/skills/bundled", test_bundled);
  g_test_add_func ("/skills/monitor", test_monitor);

  return g_test_run ();
}
