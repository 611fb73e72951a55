/* test-skill-packs.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Keeps the bundled skill packs (data/skills) honest.  Every skill follows
 * the skill format (data/skills/README.md): its skill.json is checked by a
 * small validator of its own here, its SKILL.md has a title, compact Rules
 * and runnable Examples, and its folder stays within the limits.  Every
 * program it ships (the Examples, each template, each pattern) is dry-run
 * by the real helper and checked as the knowledge notes' examples are
 * (sj-test-examples.c): it runs and plays, calls only functions of the
 * bundled runtime, names only sounds and banks the app registers, and its
 * first line tells the truth about the network.  No two skills share a
 * trigger, and none fires on everyday requests that are about no style.
 */

#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "sj-test-examples.h"

#define MAX_SKILL_JSON   (16 * 1024)
#define MAX_SKILL_MD     (24 * 1024)
#define MAX_TEMPLATES    (16 * 1024)
#define MAX_PATTERNS     (16 * 1024)
#define MAX_EXTRA_FILE   (64 * 1024)
#define MAX_FOLDER       (256 * 1024)
#define MAX_FILES        16
#define MAX_RULES_CHARS  1200
#define MAX_RULES        12

/* The packs the issue asks for: eight genres, four techniques. */
static const char * const bundled_genres[] = {
  "techno", "house", "drum-and-bass", "lofi-hip-hop", "ambient", "jazz", "dub", "breakbeat", NULL,
};
static const char * const bundled_techniques[] = {
  "groove-and-swing", "build-ups-and-drops", "harmony-and-chords", "sound-design", NULL,
};

/* Requests about no style or technique at all: no trigger may fire. */
static const char * const unrelated_requests[] = {
  "make it faster", "slow it down a bit", "add more drums", "change the sound", "louder please",
  "make the beat simpler", "stop the music", "play something nice", "can you fix the error",
  "turn the volume down", "add a melody", "remove the hi-hats", "make it longer", "what does this code do",
  "mute the second pattern", "undo that", "more bass", "less reverb", NULL,
};

static SjTestExamples *examples;
static char *skills_dir;
static GPtrArray *skill_names;  /* the folders of skills_dir, sorted */

static char *
skill_file (const char *name,
            const char *file)
{
  return g_build_filename (skills_dir, name, file, NULL);
}

static char *
read_text (const char *name,
           const char *file,
           gsize      *length)
{
  g_autofree char *path = skill_file (name, file);
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, length, &error))
    return NULL;
  if (!g_utf8_validate (contents, -1, NULL))
    g_error ("%s: not UTF-8", path);
  return contents;
}

static gboolean
matches (const char *pattern,
         const char *text)
{
  return g_regex_match_simple (pattern, text, 0, 0);
}

/* A string member of 1..@max characters. */
static const char *
string_member (const char *where,
               JsonObject *object,
               const char *key,
               guint       max)
{
  JsonNode *node = json_object_get_member (object, key);
  const char *value;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    g_error ("%s: “%s” must be a string", where, key);
  value = json_node_get_string (node);
  if (g_utf8_strlen (value, -1) < 1 || (guint)g_utf8_strlen (value, -1) > max)
    g_error ("%s: “%s” must have 1 to %u characters", where, key, max);
  return value;
}

/* An array member of @min..@max strings, each matching @pattern (when
 * given) and of at most @max_length characters. */
static JsonArray *
strings_member (const char *where,
                JsonObject *object,
                const char *key,
                guint       min,
                guint       max,
                const char *pattern,
                guint       max_length)
{
  JsonNode *node = json_object_get_member (object, key);
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    g_error ("%s: “%s” must be an array", where, key);
  array = json_node_get_array (node);
  if (json_array_get_length (array) < min || json_array_get_length (array) > max)
    g_error ("%s: “%s” must have %u to %u entries", where, key, min, max);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      const char *value;

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        g_error ("%s: “%s” must hold strings only", where, key);
      value = json_node_get_string (element);
      if (*value == '\0' || (guint)g_utf8_strlen (value, -1) > max_length)
        g_error ("%s: “%s” entry “%s” must have 1 to %u characters", where, key, value, max_length);
      if (pattern != NULL && !matches (pattern, value))
        g_error ("%s: “%s” entry “%s” does not match %s", where, key, value, pattern);
    }
  return array;
}

/* skill.json as the skill format has it; a stand-in for the registry's
 * own validator until the test can use it. */
static JsonObject *
load_manifest (const char *name)
{
  static const char * const keys[] = {
    "name", "title", "description", "version", "tags", "triggers", "priority", NULL,
  };
  g_autofree char *where = g_strdup_printf ("%s/skill.json", name);
  g_autofree char *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GList) members = NULL;
  JsonObject *manifest;
  JsonNode *root, *priority;
  gsize length = 0;

  text = read_text (name, "skill.json", &length);
  if (text == NULL)
    g_error ("%s: missing", where);
  if (length > MAX_SKILL_JSON)
    g_error ("%s: larger than 16 KiB", where);
  if (!json_parser_load_from_data (parser, text, length, &error))
    g_error ("%s: %s", where, error->message);
  root = json_parser_get_root (parser);
  if (!JSON_NODE_HOLDS_OBJECT (root))
    g_error ("%s: not a JSON object", where);
  manifest = json_node_get_object (root);

  members = json_object_get_members (manifest);
  for (GList *l = members; l != NULL; l = l->next)
    if (!g_strv_contains (keys, l->data))
      g_error ("%s: unknown key “%s”", where, (const char *)l->data);

  if (!g_str_equal (string_member (where, manifest, "name", 40), name))
    g_error ("%s: “name” must be the folder's name", where);
  if (!matches ("^[a-z0-9][a-z0-9-]{0,39}$", name))
    g_error ("%s: the name is not ^[a-z0-9][a-z0-9-]{0,39}$", where);
  string_member (where, manifest, "title", 60);
  string_member (where, manifest, "description", 240);
  if (!matches ("^[0-9]+\\.[0-9]+\\.[0-9]+$", string_member (where, manifest, "version", 32)))
    g_error ("%s: “version” is not MAJOR.MINOR.PATCH", where);
  if (json_object_has_member (manifest, "tags"))
    strings_member (where, manifest, "tags", 0, 12, "^[a-z0-9][a-z0-9-]{0,23}$", 24);
  strings_member (where, manifest, "triggers", 1, 32, NULL, 48);

  priority = json_object_get_member (manifest, "priority");
  if (priority != NULL &&
      (!JSON_NODE_HOLDS_VALUE (priority) || json_node_get_value_type (priority) != G_TYPE_INT64 ||
       json_node_get_int (priority) < 0 || json_node_get_int (priority) > 100))
    g_error ("%s: “priority” must be an integer from 0 to 100", where);

  return json_object_ref (manifest);
}

static gboolean
has_tag (JsonObject *manifest,
         const char *tag)
{
  JsonArray *tags = json_object_get_array_member (manifest, "tags");

  for (guint i = 0; tags != NULL && i < json_array_get_length (tags); i++)
    if (g_str_equal (json_array_get_string_element (tags, i), tag))
      return TRUE;
  return FALSE;
}

static void
test_bundled_skills (void)
{
  g_assert_cmpuint (skill_names->len, >=, 10);
  for (guint i = 0; bundled_genres[i] != NULL; i++)
    {
      g_autoptr(JsonObject) manifest = load_manifest (bundled_genres[i]);

      g_assert_true (has_tag (manifest, "genre"));
    }
  for (guint i = 0; bundled_techniques[i] != NULL; i++)
    {
      g_autoptr(JsonObject) manifest = load_manifest (bundled_techniques[i]);

      g_assert_true (has_tag (manifest, "technique"));
    }
}

/* The folder itself: the two required files, few small files and no
 * folders or links. */
static void
test_folders (void)
{
  for (guint s = 0; s < skill_names->len; s++)
    {
      const char *name = g_ptr_array_index (skill_names, s);
      g_autofree char *path = g_build_filename (skills_dir, name, NULL);
      g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
      g_autoptr(JsonObject) manifest = load_manifest (name);
      g_autofree char *skill_md = skill_file (name, "SKILL.md");
      guint n_files = 0;
      goffset total = 0;
      const char *entry;

      g_assert_nonnull (dir);
      g_assert_true (g_file_test (skill_md, G_FILE_TEST_IS_REGULAR));
      while ((entry = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *file = g_build_filename (path, entry, NULL);
          g_autoptr(GFile) gfile = g_file_new_for_path (file);
          g_autoptr(GFileInfo) info = g_file_query_info (gfile, "standard::*", G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                                         NULL, NULL);
          goffset size;

          g_assert_nonnull (info);
          if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
            g_error ("%s/%s: only plain files may be in a skill", name, entry);
          size = g_file_info_get_size (info);
          if (size > (g_str_equal (entry, "SKILL.md") ? MAX_SKILL_MD : MAX_EXTRA_FILE))
            g_error ("%s/%s: too large (%" G_GOFFSET_FORMAT " bytes)", name, entry, size);
          if ((g_str_equal (entry, "templates.strudel") && size > MAX_TEMPLATES) ||
              (g_str_equal (entry, "patterns.json") && size > MAX_PATTERNS))
            g_error ("%s/%s: larger than 16 KiB", name, entry);
          total += size;
          n_files++;
        }
      g_assert_cmpuint (n_files, <=, MAX_FILES);
      g_assert_cmpint (total, <=, MAX_FOLDER);
    }
}

/* The text of a "## @heading" section of @text, up to the next "## ". */
static char *
section_of (const char *text,
            const char *heading)
{
  g_autofree char *needle = g_strdup_printf ("\n## %s\n", heading);
  const char *start = strstr (text, needle);
  const char *end;

  if (start == NULL)
    return NULL;
  start += strlen (needle);
  end = strstr (start, "\n## ");
  return g_strstrip (end != NULL ? g_strndup (start, end - start) : g_strdup (start));
}

/* The code in the Rules' `backticks` calls only functions of the
 * runtime and names only registered sounds and banks, as examples do. */
static void
check_rule_snippets (const char *name,
                     const char *rules,
                     GPtrArray  *problems)
{
  g_auto(GStrv) parts = g_strsplit (rules, "`", -1);
  g_autofree char *where = g_strdup_printf ("%s/SKILL.md Rules", name);

  if (g_strv_length (parts) % 2 == 0)
    g_ptr_array_add (problems, g_strdup_printf ("%s: a `backtick` is not closed", where));
  for (guint i = 1; parts[i] != NULL; i += 2)
    sj_test_examples_check_names (examples, where, parts[i], problems);
}

/* SKILL.md: "# <title>", Rules that are a short bulleted list, and
 * Examples of two to four programs. */
static void
test_skill_md (void)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  guint total_rules = 0;

  for (guint s = 0; s < skill_names->len; s++)
    {
      const char *name = g_ptr_array_index (skill_names, s);
      g_autoptr(JsonObject) manifest = load_manifest (name);
      g_autofree char *text = read_text (name, "SKILL.md", NULL);
      g_autofree char *title = g_strdup_printf ("# %s\n", json_object_get_string_member (manifest, "title"));
      g_autofree char *rules = NULL;
      g_autofree char *example_text = NULL;
      g_autoptr(GPtrArray) blocks = NULL;
      g_auto(GStrv) lines = NULL;
      guint n_bullets = 0;

      g_assert_nonnull (text);
      if (!g_str_has_prefix (text, title))
        g_error ("%s/SKILL.md: the first line must be “# %s”", name, json_object_get_string_member (manifest, "title"));

      rules = section_of (text, "Rules");
      if (rules == NULL)
        g_error ("%s/SKILL.md: no “## Rules”", name);
      if (g_utf8_strlen (rules, -1) > MAX_RULES_CHARS)
        g_error ("%s/SKILL.md: the Rules have %ld characters, more than %u", name, g_utf8_strlen (rules, -1),
                 MAX_RULES_CHARS);
      lines = g_strsplit (rules, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        {
          if (g_str_has_prefix (lines[i], "- "))
            n_bullets++;
          else if (!g_str_has_prefix (lines[i], "  ") && *lines[i] != '\0')
            g_error ("%s/SKILL.md: a Rules line that is not a bullet: %s", name, lines[i]);
        }
      check_rule_snippets (name, rules, problems);
      g_assert_cmpuint (n_bullets, >=, 4);
      g_assert_cmpuint (n_bullets, <=, MAX_RULES);
      total_rules += g_utf8_strlen (rules, -1);

      example_text = section_of (text, "Examples");
      if (example_text == NULL)
        g_error ("%s/SKILL.md: no “## Examples”", name);
      blocks = sj_test_blocks_of (name, example_text, "javascript");
      if (blocks->len < 2 || blocks->len > 4)
        g_error ("%s/SKILL.md: %u examples, not 2 to 4", name, blocks->len);
    }
  for (guint i = 0; i < problems->len; i++)
    g_test_message ("%s", (const char *)g_ptr_array_index (problems, i));
  g_assert_cmpuint (problems->len, ==, 0);
  g_test_message ("the Rules average %u characters", total_rules / skill_names->len);
}

/* templates.strudel: programs each preceded by "// @template <title>". */
static void
add_templates (const char *name,
               GPtrArray  *programs,
               GPtrArray  *wheres)
{
  g_autofree char *text = read_text (name, "templates.strudel", NULL);
  g_auto(GStrv) lines = NULL;
  GString *current = NULL;
  guint n = 0;

  if (text == NULL)
    return;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], "// @template "))
        {
          if (lines[i][13 + strspn (lines[i] + 13, " ")] == '\0')
            g_error ("%s/templates.strudel:%u: a template without a title", name, i + 1);
          if (current != NULL)
            g_ptr_array_add (programs, g_string_free (current, FALSE));
          current = g_string_new (NULL);
          g_ptr_array_add (wheres, g_strdup_printf ("%s/templates.strudel:%u", name, i + 1));
          n++;
        }
      else if (current != NULL)
        g_string_append_printf (current, "%s\n", lines[i]);
      else if (*g_strstrip (lines[i]) != '\0')
        g_error ("%s/templates.strudel:%u: code before the first “// @template”", name, i + 1);
    }
  if (current != NULL)
    g_ptr_array_add (programs, g_string_free (current, FALSE));
  if (n == 0)
    g_error ("%s/templates.strudel: no “// @template <title>” line", name);
}

/* patterns.json: {"patterns": [{"name", "description", "code"}]}. */
static void
add_patterns (const char *name,
              GPtrArray  *programs,
              GPtrArray  *wheres)
{
  g_autofree char *where = g_strdup_printf ("%s/patterns.json", name);
  g_autofree char *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonNode *root, *list;
  JsonArray *patterns;
  gsize length;

  text = read_text (name, "patterns.json", &length);
  if (text == NULL)
    return;
  if (!json_parser_load_from_data (parser, text, length, &error))
    g_error ("%s: %s", where, error->message);
  root = json_parser_get_root (parser);
  if (!JSON_NODE_HOLDS_OBJECT (root) || json_object_get_size (json_node_get_object (root)) != 1)
    g_error ("%s: must be an object with “patterns” only", where);
  list = json_object_get_member (json_node_get_object (root), "patterns");
  if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
    g_error ("%s: “patterns” must be an array", where);
  patterns = json_node_get_array (list);
  if (json_array_get_length (patterns) < 1 || json_array_get_length (patterns) > 32)
    g_error ("%s: 1 to 32 patterns", where);

  for (guint i = 0; i < json_array_get_length (patterns); i++)
    {
      JsonNode *node = json_array_get_element (patterns, i);
      g_autofree char *at = g_strdup_printf ("%s[%u]", where, i);
      g_autoptr(GList) members = NULL;
      JsonObject *pattern;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        g_error ("%s: not an object", at);
      pattern = json_node_get_object (node);
      members = json_object_get_members (pattern);
      for (GList *l = members; l != NULL; l = l->next)
        if (!g_str_equal (l->data, "name") && !g_str_equal (l->data, "description") && !g_str_equal (l->data, "code"))
          g_error ("%s: unknown key “%s”", at, (const char *)l->data);
      string_member (at, pattern, "name", 60);
      string_member (at, pattern, "description", 240);
      g_ptr_array_add (programs, g_strdup (string_member (at, pattern, "code", MAX_PATTERNS)));
      g_ptr_array_add (wheres, g_strdup_printf ("%s (%s)", at, json_object_get_string_member (pattern, "name")));
    }
}

/* Every program of every skill, dry-run and checked. */
static void
test_programs_are_real (void)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  guint n_programs = 0, n_extras = 0, n_offline = 0;

  for (guint s = 0; s < skill_names->len; s++)
    {
      const char *name = g_ptr_array_index (skill_names, s);
      g_autofree char *text = read_text (name, "SKILL.md", NULL);
      g_autoptr(GPtrArray) blocks = sj_test_blocks_of (name, text, "javascript");
      g_autoptr(GPtrArray) programs = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GPtrArray) wheres = g_ptr_array_new_with_free_func (g_free);

      for (guint b = 0; b < blocks->len; b++)
        {
          const SjTestBlock *block = g_ptr_array_index (blocks, b);

          g_ptr_array_add (programs, g_strdup (block->text));
          g_ptr_array_add (wheres, g_strdup_printf ("%s/SKILL.md:%u", name, block->line));
        }
      add_templates (name, programs, wheres);
      add_patterns (name, programs, wheres);
      if (programs->len > blocks->len)
        n_extras++;

      for (guint i = 0; i < programs->len; i++, n_programs++)
        {
          const char *program = g_ptr_array_index (programs, i);

          if (sj_test_examples_check (examples, g_ptr_array_index (wheres, i), program, problems))
            g_ptr_array_add (problems, g_strdup_printf ("%s: a skill plays the app's library, it loads no samples",
                                                        (const char *)g_ptr_array_index (wheres, i)));
          if (g_str_has_prefix (program, SJ_TEST_OFFLINE))
            n_offline++;
        }
    }

  for (guint i = 0; i < problems->len; i++)
    g_test_message ("%s", (const char *)g_ptr_array_index (problems, i));
  g_test_message ("%u programs of %u skills checked and dry-run, %u play offline; %u skills have templates or patterns",
                  n_programs, skill_names->len, n_offline, n_extras);
  g_assert_cmpuint (problems->len, ==, 0);
  g_assert_cmpuint (n_extras * 2, >=, skill_names->len);
  g_assert_cmpuint (n_offline * 2, >=, n_programs);
}

/* The stem the skill format matches triggers by: plural s/es, -y, -ier,
 * -iest, -ed, -ing and -er reduce to a common stem. */
static char *
stem (const char *word)
{
  static const char * const endings[] = { "iest", "ier", "ies", "ing", "ed", "er", "es", "s", "y", NULL };
  g_autofree char *lower = g_utf8_strdown (word, -1);
  gsize length = strlen (lower);

  for (guint i = 0; endings[i] != NULL; i++)
    {
      gsize n = strlen (endings[i]);

      if (length > n + 2 && g_str_has_suffix (lower, endings[i]))
        return g_strndup (lower, length - n);
    }
  return g_steal_pointer (&lower);
}

/* The stems of @text's words, joined by single spaces. */
static char *
stems (const char *text)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_auto(GStrv) words = g_regex_split_simple ("[^a-z0-9&']+", text, G_REGEX_CASELESS, 0);

  for (guint i = 0; words[i] != NULL; i++)
    {
      g_autofree char *word = NULL;

      if (*words[i] == '\0')
        continue;
      word = stem (words[i]);
      g_string_append_printf (out, "%s%s", out->len > 0 ? " " : "", word);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Whether @trigger's stems are consecutive words of @request's. */
static gboolean
fires_on (const char *trigger,
          const char *request)
{
  g_autofree char *t = stems (trigger);
  g_autofree char *r = stems (request);
  g_autofree char *padded_t = g_strdup_printf (" %s ", t);
  g_autofree char *padded_r = g_strdup_printf (" %s ", r);

  return strstr (padded_r, padded_t) != NULL;
}

static void
test_triggers (void)
{
  g_autoptr(GHashTable) owners = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  guint n_triggers = 0;

  for (guint s = 0; s < skill_names->len; s++)
    {
      const char *name = g_ptr_array_index (skill_names, s);
      g_autoptr(JsonObject) manifest = load_manifest (name);
      JsonArray *triggers = json_object_get_array_member (manifest, "triggers");

      for (guint i = 0; i < json_array_get_length (triggers); i++, n_triggers++)
        {
          const char *trigger = json_array_get_string_element (triggers, i);
          g_autofree char *key = stems (trigger);
          g_autofree char *lower = g_utf8_strdown (trigger, -1);
          const char *owner;

          if (!g_str_equal (lower, trigger))
            g_error ("%s: the trigger “%s” is not lowercase", name, trigger);
          if (*key == '\0')
            g_error ("%s: the trigger “%s” has no word", name, trigger);
          /* Spellings of one word ("hip hop", "hip-hop") may share a
           * stem within a skill, never across two. */
          owner = g_hash_table_lookup (owners, key);
          if (owner != NULL && !g_str_equal (owner, name))
            g_error ("the trigger “%s” of %s is also one of %s", trigger, name, owner);
          for (guint j = 0; j < i; j++)
            if (g_str_equal (json_array_get_string_element (triggers, j), trigger))
              g_error ("%s: the trigger “%s” is there twice", name, trigger);
          g_hash_table_insert (owners, g_steal_pointer (&key), g_strdup (name));

          for (guint r = 0; unrelated_requests[r] != NULL; r++)
            if (fires_on (trigger, unrelated_requests[r]))
              g_error ("%s: the trigger “%s” fires on “%s”", name, trigger, unrelated_requests[r]);
        }
    }
  g_assert_true (fires_on ("jazz", "make it jazzier"));
  g_assert_true (fires_on ("swing feel", "give it a swinging feel"));
  g_assert_false (fires_on ("dub", "double the hats"));
  g_test_message ("%u triggers, none shared", n_triggers);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char * const *)a, *(char * const *)b);
}

int
main (int   argc,
      char *argv[])
{
  const char *env = g_getenv ("STRUDEL_JAM_SKILLS_DIR");
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GError) error = NULL;
  const char *entry;
  int status;

  g_test_init (&argc, &argv, NULL);

  skills_dir = g_strdup (env != NULL && *env != '\0' ? env : SJ_SKILLS_DATA);
  dir = g_dir_open (skills_dir, 0, &error);
  g_assert_no_error (error);
  skill_names = g_ptr_array_new_with_free_func (g_free);
  while ((entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (skills_dir, entry, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        g_ptr_array_add (skill_names, g_strdup (entry));
    }
  g_ptr_array_sort (skill_names, compare_names);

  examples = sj_test_examples_new ();

  g_test_add_func ("/skill-packs/bundled", test_bundled_skills);
  g_test_add_func ("/skill-packs/folders", test_folders);
  g_test_add_func ("/skill-packs/skill-md", test_skill_md);
  g_test_add_func ("/skill-packs/triggers", test_triggers);
  g_test_add_func ("/skill-packs/programs-are-real", test_programs_are_real);

  status = g_test_run ();

  g_clear_pointer (&examples, sj_test_examples_free);
  g_clear_pointer (&skill_names, g_ptr_array_unref);
  g_clear_pointer (&skills_dir, g_free);
  return status;
}
