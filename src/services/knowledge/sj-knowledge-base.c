/* sj-knowledge-base.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * search_knowledge(regex, category): a case-insensitive regular expression
 * search over the curated knowledge/<category>.md notes that ship with the app.
 * Each match names its file, the nearest heading above it, its line, the
 * lines around it and the code example that goes with it: the fenced block
 * that contains the match, else the next one in the same section.  The
 * files are parsed once, so fences are paired exactly instead of guessed
 * from nearby lines.
 *
 * The pattern comes from a language model, so it is bounded: a length
 * limit, a backtracking limit inside PCRE2 itself, and a time budget.
 */

#include "config.h"

#include <string.h>

#include "sj-bundled-data.h"
#include "sj-knowledge-base-private.h"

/* PCRE2 stops a match after this many backtracking steps, so a pattern
 * like (a+)+$ fails fast instead of running for minutes. */
#define MATCH_LIMIT "(*LIMIT_MATCH=50000)(*LIMIT_DEPTH=5000)"
#define TIME_BUDGET_USEC (250 * G_TIME_SPAN_MILLISECOND)

static const char * const categories[] = {
  "notation", "core_functions", "effects", "patterns",
  "vocabulary", "samples", "synths", "best_practices", NULL,
};

typedef struct
{
  guint open;    /* line of the opening fence */
  guint close;   /* line of the closing fence, or the last line */
  gboolean closed;
} Block;

typedef struct
{
  char    *file_name;
  char    *text;
  char   **lines;
  guint    n_lines;
  int     *section;  /* per line: the line of the nearest heading above, or -1 */
  int     *block;    /* per line: the block it belongs to, or -1 */
  GArray  *blocks;   /* of Block */
} KnowledgeFile;

struct _SjKnowledgeBase
{
  GObject        parent_instance;

  KnowledgeFile *files[G_N_ELEMENTS (categories) - 1];
};

G_DEFINE_FINAL_TYPE (SjKnowledgeBase, sj_knowledge_base, G_TYPE_OBJECT)

static void
knowledge_file_free (KnowledgeFile *file)
{
  if (file == NULL)
    return;

  g_free (file->file_name);
  g_free (file->text);
  g_strfreev (file->lines);
  g_free (file->section);
  g_free (file->block);
  g_array_unref (file->blocks);
  g_free (file);
}

static void
sj_knowledge_base_finalize (GObject *object)
{
  SjKnowledgeBase *self = (SjKnowledgeBase *)object;

  for (guint i = 0; i < G_N_ELEMENTS (self->files); i++)
    g_clear_pointer (&self->files[i], knowledge_file_free);

  G_OBJECT_CLASS (sj_knowledge_base_parent_class)->finalize (object);
}

static void
sj_knowledge_base_class_init (SjKnowledgeBaseClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_knowledge_base_finalize;
}

static void
sj_knowledge_base_init (SjKnowledgeBase *self)
{
}

/* A CommonMark fence: up to three spaces, then three or more backticks or
 * tildes.  Returns the fence length and its character. */
static guint
fence_length (const char *line,
              char       *fence_char,
              gboolean   *bare)
{
  guint indent = 0;
  guint len = 0;

  while (line[indent] == ' ' && indent < 3)
    indent++;
  line += indent;

  if (line[0] != '`' && line[0] != '~')
    return 0;
  while (line[len] == line[0])
    len++;
  if (len < 3)
    return 0;

  *fence_char = line[0];
  *bare = line[len + strspn (line + len, " \t")] == '\0';
  return len;
}

static gboolean
is_heading (const char *line)
{
  guint level = 0;

  while (line[level] == '#')
    level++;
  return level >= 1 && level <= 6 && (line[level] == ' ' || line[level] == '\0');
}

static KnowledgeFile *
knowledge_file_new (const char *file_name,
                    const char *text,
                    gsize       length)
{
  KnowledgeFile *file = g_new0 (KnowledgeFile, 1);
  int section = -1;
  guint open_len = 0;
  char open_char = 0;
  Block current = { 0 };

  file->file_name = g_strdup (file_name);
  file->text = g_strndup (text, length);
  file->lines = g_strsplit (file->text, "\n", -1);
  file->n_lines = g_strv_length (file->lines);
  file->section = g_new (int, file->n_lines + 1);
  file->block = g_new (int, file->n_lines + 1);
  file->blocks = g_array_new (FALSE, FALSE, sizeof (Block));

  for (guint i = 0; i < file->n_lines; i++)
    {
      char *line = file->lines[i];
      gsize len = strlen (line);
      char fence_char = 0;
      gboolean bare = FALSE;
      guint fence;

      if (len > 0 && line[len - 1] == '\r')
        line[len - 1] = '\0';

      fence = fence_length (line, &fence_char, &bare);

      if (open_len > 0)
        {
          file->block[i] = file->blocks->len;
          file->section[i] = section;

          /* Only a bare fence of the same kind, at least as long, closes. */
          if (fence >= open_len && fence_char == open_char && bare)
            {
              current.close = i;
              current.closed = TRUE;
              g_array_append_val (file->blocks, current);
              open_len = 0;
            }
          continue;
        }

      if (fence > 0)
        {
          open_len = fence;
          open_char = fence_char;
          current.open = i;
          file->block[i] = file->blocks->len;
          file->section[i] = section;
          continue;
        }

      if (is_heading (line))
        section = i;

      file->section[i] = section;
      file->block[i] = -1;
    }

  /* An unclosed fence runs to the end of the file, as in CommonMark. */
  if (open_len > 0)
    {
      current.close = file->n_lines > 0 ? file->n_lines - 1 : 0;
      current.closed = FALSE;
      g_array_append_val (file->blocks, current);
    }

  return file;
}

static int
category_index (const char *category)
{
  for (guint i = 0; categories[i] != NULL; i++)
    if (g_str_equal (categories[i], category))
      return i;
  return -1;
}

/**
 * _sj_knowledge_base_get_categories:
 *
 * Returns: (transfer none): the eight categories, in search order
 */
const char * const *
_sj_knowledge_base_get_categories (void)
{
  return categories;
}

/**
 * _sj_knowledge_base_new_from_directory:
 *
 * Reads `<category>.md` for each category from @directory; every file
 * must exist.
 */
SjKnowledgeBase *
_sj_knowledge_base_new_from_directory (GFile   *directory,
                                       GError **error)
{
  g_autoptr(SjKnowledgeBase) self = g_object_new (SJ_TYPE_KNOWLEDGE_BASE, NULL);

  for (guint i = 0; categories[i] != NULL; i++)
    {
      g_autofree char *file_name = g_strconcat (categories[i], ".md", NULL);
      g_autoptr(GFile) file = g_file_get_child (directory, file_name);
      g_autofree char *contents = NULL;
      gsize length;

      if (!g_file_load_contents (file, NULL, &contents, &length, NULL, error))
        return NULL;
      if (!g_utf8_validate (contents, length, NULL))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s is not UTF-8", file_name);
          return NULL;
        }
      self->files[i] = knowledge_file_new (file_name, contents, length);
    }

  return g_steal_pointer (&self);
}

static gpointer
load_bundled (gpointer data)
{
  SjKnowledgeBase *self = g_object_new (SJ_TYPE_KNOWLEDGE_BASE, NULL);

  for (guint i = 0; categories[i] != NULL; i++)
    {
      g_autofree char *file_name = g_strconcat (categories[i], ".md", NULL);
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(GError) error = NULL;
      gsize length;
      const char *contents;

      if ((bytes = sj_bundled_data_lookup (file_name, &error)) == NULL)
        g_error ("The bundled knowledge file %s is missing: %s", file_name, error->message);

      contents = g_bytes_get_data (bytes, &length);
      self->files[i] = knowledge_file_new (file_name, contents, length);
    }

  return self;
}

/**
 * sj_knowledge_base_get_bundled:
 *
 * Returns: (transfer none): the notes compiled into the program
 */
SjKnowledgeBase *
sj_knowledge_base_get_bundled (void)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, load_bundled, NULL);
  return once.retval;
}

const char *
_sj_knowledge_base_get_text (SjKnowledgeBase *self,
                             const char      *category)
{
  int index;

  g_assert (SJ_IS_KNOWLEDGE_BASE (self));

  index = category_index (category);
  return index >= 0 ? self->files[index]->text : NULL;
}

static char *
block_text (KnowledgeFile *file,
            const Block   *block)
{
  g_autoptr(GString) text = g_string_new (NULL);
  guint end = block->closed ? block->close : block->close + 1;

  /* An unclosed block ends with the file: its trailing blank lines are
   * the file's, not the example's. */
  while (!block->closed && end > block->open + 1 && file->lines[end - 1][0] == '\0')
    end--;

  for (guint i = block->open + 1; i < end; i++)
    g_string_append_printf (text, "%s%s", i > block->open + 1 ? "\n" : "", file->lines[i]);

  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* The code example of a match: its own block, else the next block that
 * starts in the same section, else none. */
static char *
code_example (KnowledgeFile *file,
              guint          line)
{
  if (file->block[line] >= 0)
    return block_text (file, &g_array_index (file->blocks, Block, file->block[line]));

  for (guint b = 0; b < file->blocks->len; b++)
    {
      const Block *block = &g_array_index (file->blocks, Block, b);

      if (block->open <= line)
        continue;
      if (file->section[block->open] != file->section[line])
        break;
      return block_text (file, block);
    }

  return NULL;
}

static JsonNode *
error_result (const char         *code,
              const char         *message,
              const char         *help,
              const char         *query,
              const char         *category,
              gboolean            list_categories)
{
  g_autoptr(JsonBuilder) builder = json_builder_new_immutable ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "error");
  json_builder_add_string_value (builder, code);
  json_builder_set_member_name (builder, "message");
  json_builder_add_string_value (builder, message);
  if (help != NULL)
    {
      json_builder_set_member_name (builder, "help");
      json_builder_add_string_value (builder, help);
    }
  if (list_categories)
    {
      json_builder_set_member_name (builder, "valid_categories");
      json_builder_begin_array (builder);
      for (guint i = 0; categories[i] != NULL; i++)
        json_builder_add_string_value (builder, categories[i]);
      json_builder_end_array (builder);
    }
  json_builder_set_member_name (builder, "matches");
  json_builder_begin_array (builder);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "total_matches");
  json_builder_add_int_value (builder, 0);
  json_builder_set_member_name (builder, "query");
  json_builder_add_string_value (builder, query);
  json_builder_set_member_name (builder, "category_searched");
  if (category != NULL)
    json_builder_add_string_value (builder, category);
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

static const char regex_help[] =
  "Patterns are PCRE regular expressions, matched line by line and ignoring case. "
  "Use | for alternatives (swing|shuffle), .* for any text (lpf.*range), and escape "
  "( ) [ ] { } . * + ? | \\ with a backslash to match them literally (scale\\(\\)).";

static void
add_match (JsonBuilder   *builder,
           KnowledgeFile *file,
           guint          line,
           int            context_lines)
{
  guint first = line > (guint)context_lines ? line - context_lines : 0;
  guint last = MIN (file->n_lines - 1, line + context_lines);
  g_autoptr(GString) content = g_string_new (NULL);
  g_autofree char *example = code_example (file, line);
  int section = file->section[line];
  g_autofree char *heading = NULL;

  if (section >= 0)
    heading = g_strstrip (g_strdup (file->lines[section] + strspn (file->lines[section], "#")));

  for (guint i = first; i <= last; i++)
    g_string_append_printf (content, "%s%s", i > first ? "\n" : "", file->lines[i]);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "file");
  json_builder_add_string_value (builder, file->file_name);
  json_builder_set_member_name (builder, "section");
  json_builder_add_string_value (builder, heading != NULL ? heading : "");
  json_builder_set_member_name (builder, "line_number");
  json_builder_add_int_value (builder, line + 1);
  json_builder_set_member_name (builder, "content");
  json_builder_add_string_value (builder, content->str);
  json_builder_set_member_name (builder, "code_example");
  if (example != NULL)
    json_builder_add_string_value (builder, example);
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);
}

/**
 * sj_knowledge_base_search:
 * @query: a PCRE regular expression, matched case-insensitively per line
 * @category: (nullable): one of the eight categories, or %NULL for all
 * @context_lines: lines of context on each side (clamped to 0–20)
 * @max_results: the most matches returned (clamped to 1–50)
 *
 * Returns: (transfer full): `{matches, total_matches, returned, query,
 *   category_searched, message?}`, or on bad input `{error, message, help?,
 *   valid_categories?, matches: [], total_matches: 0, …}`
 */
JsonNode *
sj_knowledge_base_search (SjKnowledgeBase *self,
                          const char      *query,
                          const char      *category,
                          int              context_lines,
                          int              max_results)
{
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(GRegex) regex = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *pattern = NULL;
  gint64 deadline;
  int only = -1;
  guint total = 0;
  guint returned = 0;

  g_assert (SJ_IS_KNOWLEDGE_BASE (self));

  if (query == NULL || !g_utf8_validate (query, -1, NULL))
    return error_result ("invalid_query", "The query must be a UTF-8 string.", NULL, "", category, FALSE);
  if (strlen (query) > SJ_KNOWLEDGE_BASE_MAX_QUERY)
    return error_result ("query_too_long",
                         "The pattern is longer than 1000 bytes; search for a few distinctive words instead.",
                         regex_help, "(too long)", category, FALSE);
  if (*query == '\0')
    return error_result ("invalid_query", "The pattern is empty.", regex_help, query, category, FALSE);

  if (category != NULL && (only = category_index (category)) < 0)
    {
      g_autofree char *message = g_strdup_printf ("“%s” is not a knowledge category.", category);

      return error_result ("invalid_category", message, NULL, query, category, TRUE);
    }

  context_lines = CLAMP (context_lines, 0, SJ_KNOWLEDGE_BASE_MAX_CONTEXT);
  max_results = CLAMP (max_results, 1, SJ_KNOWLEDGE_BASE_MAX_RESULTS);

  pattern = g_strconcat (MATCH_LIMIT, query, NULL);
  regex = g_regex_new (pattern, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, &error);
  if (regex == NULL)
    {
      g_autofree char *message = NULL;
      const char *detail = error->message;
      const char *colon = strstr (detail, ": ");

      /* GRegex's message repeats the pattern (with our limit prefix):
       * keep only PCRE's reason after it. */
      if (colon != NULL && strstr (detail, MATCH_LIMIT) != NULL)
        detail = colon + 2;
      message = g_strdup_printf ("The pattern is not a valid regular expression: %s.", detail);
      return error_result ("invalid_regex", message, regex_help, query, category, FALSE);
    }

  builder = json_builder_new_immutable ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "matches");
  json_builder_begin_array (builder);

  deadline = g_get_monotonic_time () + TIME_BUDGET_USEC;

  for (guint f = 0; f < G_N_ELEMENTS (self->files); f++)
    {
      KnowledgeFile *file = self->files[f];

      if (only >= 0 && (guint)only != f)
        continue;

      for (guint i = 0; i < file->n_lines; i++)
        {
          g_autoptr(GError) match_error = NULL;
          gboolean matched;

          /* No match info: only whether the line matches is needed, and
           * allocating one per line was a third of the cost. */
          matched = g_regex_match_full (regex, file->lines[i], -1, 0, 0, NULL, &match_error);

          if (match_error != NULL || ((i & 63) == 0 && g_get_monotonic_time () > deadline))
            {
              json_builder_end_array (builder);
              json_builder_end_object (builder);
              return error_result ("regex_too_complex",
                                   "The pattern needs too much backtracking (nested repeats such as (a+)+ or (.*)*); write it more simply.",
                                   regex_help, query, category, FALSE);
            }

          if (!matched)
            continue;

          total++;
          if (returned < (guint)max_results)
            {
              add_match (builder, file, i, context_lines);
              returned++;
            }
        }
    }

  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "total_matches");
  json_builder_add_int_value (builder, total);
  json_builder_set_member_name (builder, "returned");
  json_builder_add_int_value (builder, returned);
  json_builder_set_member_name (builder, "query");
  json_builder_add_string_value (builder, query);
  json_builder_set_member_name (builder, "category_searched");
  if (category != NULL)
    json_builder_add_string_value (builder, category);
  else
    json_builder_add_null_value (builder);

  json_builder_set_member_name (builder, "message");
  if (total == 0)
    {
      g_autofree char *message =
        g_strdup_printf ("No line matches “%s” in %s. Try a shorter pattern, alternatives (swing|shuffle), or another category.",
                         query, category != NULL ? category : "any category");

      json_builder_add_string_value (builder, message);
    }
  else
    {
      g_autofree char *message = g_strdup_printf ("Returned %u of %u matches.", returned, total);

      json_builder_add_string_value (builder, message);
    }

  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static gboolean
read_int (JsonObject *arguments,
          const char *name,
          int         min,
          int         max,
          int        *value)
{
  JsonNode *node = json_object_get_member (arguments, name);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
      json_node_get_int (node) < min || json_node_get_int (node) > max)
    return FALSE;

  *value = json_node_get_int (node);
  return TRUE;
}

/**
 * sj_knowledge_base_search_json:
 * @arguments: `{query, category?, context_lines?, max_results?}` as the
 *   model sent them
 *
 * Checks the arguments strictly (a wrong type is an error, not a guess)
 * and searches.
 */
JsonNode *
sj_knowledge_base_search_json (SjKnowledgeBase *self,
                               JsonObject      *arguments)
{
  JsonNode *node;
  const char *query;
  const char *category = NULL;
  int context_lines = 3;
  int max_results = 10;

  g_assert (SJ_IS_KNOWLEDGE_BASE (self));

  node = json_object_get_member (arguments, "query");
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return error_result ("invalid_arguments", "“query” is required and must be a string (a regular expression).",
                         regex_help, "", NULL, FALSE);
  query = json_node_get_string (node);

  node = json_object_get_member (arguments, "category");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        return error_result ("invalid_category", "“category” must be a string or null.", NULL, query, NULL, TRUE);
      category = json_node_get_string (node);
    }

  if (!read_int (arguments, "context_lines", 0, SJ_KNOWLEDGE_BASE_MAX_CONTEXT, &context_lines))
    return error_result ("invalid_arguments", "“context_lines” must be a whole number from 0 to 20.",
                         NULL, query, category, FALSE);
  if (!read_int (arguments, "max_results", 1, SJ_KNOWLEDGE_BASE_MAX_RESULTS, &max_results))
    return error_result ("invalid_arguments", "“max_results” must be a whole number from 1 to 50.",
                         NULL, query, category, FALSE);

  return sj_knowledge_base_search (self, query, category, context_lines, max_results);
}
