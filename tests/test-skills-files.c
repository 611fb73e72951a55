/* test-skills-files.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Skill folders on disk: one clear error per broken skill for every rule
 * of the format while the good skill in the same root still loads, JSON
 * nesting measured on the raw text, installing a folder into the user
 * root (an invalid one writes nothing, a replacement leaves no staging
 * folder), creating one from the template, removing one, and the user
 * root followed on disk. The registry, matching and the budget are
 * test-skills.c.
 */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sj-skill-private.h"
#include "sj-skill-registry-private.h"
#include "sj-test-files.h"

#define FIXTURES SJ_TEST_DATA "/skills"

static const char good_json[] =
  "{\"name\": \"%s\", \"title\": \"Good\", \"description\": \"A good skill.\", \"version\": \"1.0.0\","
  " \"tags\": [\"genre\"], \"triggers\": [\"good\"], \"priority\": 50}";
static const char good_markdown[] = "# Good\n\n## Rules\n\n- Be good.\n\n## Examples\n\nNone.\n";

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
int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/skills-files/validation", test_validation);
  g_test_add_func ("/skills-files/depth", test_depth);
  g_test_add_func ("/skills-files/install", test_install);
  g_test_add_func ("/skills-files/monitor", test_monitor);

  return g_test_run ();
}
