/* sj-change.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The pure parts of apply_strudel_change and read_code: reading the
 * model's input strictly (every wrong or missing field is named), building
 * the new code from a full replacement or from search/replace edits (a
 * search text must occur exactly once) and hashing the editor text.
 * Nothing here touches the page or the dry-run.
 */

#include "config.h"

#include <string.h>

#include "sj-change.h"

static const char * const quantize_names[] = { "next_cycle", "next_bar", "bars", "next_beat" };

const char *
sj_quantize_to_string (SjQuantize quantize)
{
  g_return_val_if_fail (quantize < G_N_ELEMENTS (quantize_names), NULL);
  return quantize_names[quantize];
}

/**
 * sj_code_hash:
 *
 * Returns: (transfer full): the SHA-256 of the exact editor text, in hex
 */
char *
sj_code_hash (const char *code)
{
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, code, -1);
}

void
sj_change_request_free (SjChangeRequest *request)
{
  if (request == NULL)
    return;

  g_free (request->base_hash);
  g_free (request->code);
  g_clear_pointer (&request->searches, g_ptr_array_unref);
  g_clear_pointer (&request->replaces, g_ptr_array_unref);
  g_free (request);
}

/* Every rejection here is of the input: the model fixes its call. */
static SjChangeResult *
input_rejection (SjChangeRejection  rejection,
                 const char        *message,
                 const char        *field)
{
  return sj_change_result_new_rejected (SJ_CHANGE_PHASE_INPUT, rejection, message, field);
}

static JsonNode *
member (JsonObject *object,
        const char *name)
{
  return object != NULL ? json_object_get_member (object, name) : NULL;
}

static gboolean
is_string (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

static gboolean
read_uint (JsonObject      *object,
           const char      *name,
           guint            min,
           guint            max,
           guint           *value,
           SjChangeResult **out_rejection,
           const char      *field)
{
  JsonNode *node = member (object, name);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
      json_node_get_int (node) < min || json_node_get_int (node) > max)
    {
      g_autofree char *message = g_strdup_printf ("“%s” must be a whole number from %u to %u.", field, min, max);

      *out_rejection = input_rejection (SJ_CHANGE_REJECTION_INVALID_INPUT, message, field);
      return FALSE;
    }

  *value = json_node_get_int (node);
  return TRUE;
}

static gboolean
parse_policy (JsonObject      *policy,
              SjSwapPolicy    *out,
              SjChangeResult **out_rejection)
{
  JsonNode *node;

  if ((node = member (policy, "quantize")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      gboolean known = FALSE;

      for (guint i = 0; is_string (node) && i < G_N_ELEMENTS (quantize_names); i++)
        if (g_str_equal (json_node_get_string (node), quantize_names[i]))
          {
            out->quantize = i;
            known = TRUE;
          }

      if (!known)
        {
          *out_rejection = input_rejection (SJ_CHANGE_REJECTION_INVALID_INPUT,
                                            "“policy.quantize” must be \"next_beat\", \"next_cycle\", \"next_bar\" or \"bars\".",
                                            "policy.quantize");
          return FALSE;
        }
    }

  if (!read_uint (policy, "bars", 1, 64, &out->bars, out_rejection, "policy.bars") ||
      !read_uint (policy, "dryRunBars", 1, 8, &out->dry_run_bars, out_rejection, "policy.dryRunBars"))
    return FALSE;

  if ((node = member (policy, "autoStartIfStopped")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
        {
          *out_rejection = input_rejection (SJ_CHANGE_REJECTION_INVALID_INPUT,
                                            "“policy.autoStartIfStopped” must be true or false.",
                                            "policy.autoStartIfStopped");
          return FALSE;
        }
      out->auto_start = json_node_get_boolean (node);
    }

  if (out->quantize == SJ_QUANTIZE_BARS && member (policy, "bars") == NULL)
    {
      *out_rejection = input_rejection (SJ_CHANGE_REJECTION_INVALID_INPUT,
                                        "“policy.bars” is required when “policy.quantize” is \"bars\".",
                                        "policy.bars");
      return FALSE;
    }

  return TRUE;
}

static gboolean
parse_edits (JsonArray        *edits,
             SjChangeRequest  *request,
             SjChangeResult  **out_rejection)
{
  if (edits == NULL || json_array_get_length (edits) == 0 || json_array_get_length (edits) > 100)
    {
      *out_rejection = input_rejection (SJ_CHANGE_REJECTION_INVALID_INPUT,
                                        "“change.edits” must be an array of 1 to 100 {search, replace} objects.",
                                        "change.edits");
      return FALSE;
    }

  request->searches = g_ptr_array_new_with_free_func (g_free);
  request->replaces = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < json_array_get_length (edits); i++)
    {
      JsonNode *node = json_array_get_element (edits, i);
      JsonObject *edit = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      JsonNode *search = member (edit, "search");
      JsonNode *replace = member (edit, "replace");

      if (!is_string (search) || *json_node_get_string (search) == '\0' || !is_string (replace))
        {
          g_autofree char *field = g_strdup_printf ("change.edits[%u]", i);
          g_autofree char *message =
            g_strdup_printf ("“%s” must be an object with a non-empty string “search” and a string “replace”.", field);

          *out_rejection = input_rejection (SJ_CHANGE_REJECTION_INVALID_INPUT, message, field);
          return FALSE;
        }

      g_ptr_array_add (request->searches, g_strdup (json_node_get_string (search)));
      g_ptr_array_add (request->replaces, g_strdup (json_node_get_string (replace)));
    }

  return TRUE;
}

/**
 * sj_change_request_parse:
 * @input: `{baseHash, change: {kind, code | edits}, policy?}` as the model
 *   sent it
 * @defaults: the policy used for fields the input leaves out
 * @out_rejection: (out): the rejection when the input is wrong
 *
 * Returns: (transfer full) (nullable): the request, or %NULL with
 *   @out_rejection set
 */
SjChangeRequest *
sj_change_request_parse (JsonNode            *input,
                         const SjSwapPolicy  *defaults,
                         SjChangeResult     **out_rejection)
{
  g_autoptr(SjChangeRequest) request = g_new0 (SjChangeRequest, 1);
  JsonObject *object;
  JsonObject *change;
  JsonNode *node;
  const char *kind;

  *out_rejection = NULL;
  request->policy = *defaults;

  if (input == NULL || !JSON_NODE_HOLDS_OBJECT (input))
    {
      *out_rejection = input_rejection (SJ_CHANGE_REJECTION_INVALID_INPUT,
                                        "The input must be an object {baseHash, change, policy}.", NULL);
      return NULL;
    }
  object = json_node_get_object (input);

  node = member (object, "baseHash");
  if (!is_string (node) || strlen (json_node_get_string (node)) != 64)
    {
      *out_rejection = input_rejection (SJ_CHANGE_REJECTION_INVALID_INPUT,
                                        "“baseHash” is required: the 64-hex-digit hash of the code you read (read_code gives it).",
                                        "baseHash");
      return NULL;
    }
  request->base_hash = g_ascii_strdown (json_node_get_string (node), -1);

  node = member (object, "change");
  change = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  node = member (change, "kind");
  kind = is_string (node) ? json_node_get_string (node) : NULL;

  if (g_strcmp0 (kind, "full_code") == 0)
    {
      node = member (change, "code");
      if (!is_string (node))
        {
          *out_rejection = input_rejection (SJ_CHANGE_REJECTION_INVALID_INPUT,
                                            "“change.code” must be a string with the whole new code.", "change.code");
          return NULL;
        }
      if (strlen (json_node_get_string (node)) > SJ_CHANGE_MAX_CODE)
        {
          *out_rejection = input_rejection (SJ_CHANGE_REJECTION_CODE_TOO_LARGE,
                                            "“change.code” is larger than 256 KiB.", "change.code");
          return NULL;
        }
      request->code = g_strdup (json_node_get_string (node));
    }
  else if (g_strcmp0 (kind, "search_replace") == 0)
    {
      node = member (change, "edits");
      if (!parse_edits (node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL,
                        request, out_rejection))
        return NULL;
    }
  else
    {
      *out_rejection = input_rejection (SJ_CHANGE_REJECTION_INVALID_INPUT,
                                        "“change” must be {kind: \"full_code\", code} or {kind: \"search_replace\", edits: [{search, replace}]}.",
                                        "change.kind");
      return NULL;
    }

  node = member (object, "policy");
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          *out_rejection = input_rejection (SJ_CHANGE_REJECTION_INVALID_INPUT, "“policy” must be an object.", "policy");
          return NULL;
        }
      if (!parse_policy (json_node_get_object (node), &request->policy, out_rejection))
        return NULL;
    }

  return g_steal_pointer (&request);
}

static guint
count_occurrences (const char *haystack,
                   const char *needle,
                   const char **first)
{
  guint count = 0;
  gsize len = strlen (needle);

  *first = NULL;
  for (const char *p = strstr (haystack, needle); p != NULL; p = strstr (p + len, needle))
    {
      if (count++ == 0)
        *first = p;
    }

  return count;
}

/**
 * sj_change_request_build:
 * @current: the editor text the change applies to
 *
 * Returns: (transfer full) (nullable): the new code, or %NULL with
 *   @out_rejection set when a search text is absent or ambiguous
 */
char *
sj_change_request_build (const SjChangeRequest  *request,
                         const char             *current,
                         SjChangeResult        **out_rejection)
{
  g_autofree char *code = NULL;

  *out_rejection = NULL;

  if (request->code != NULL)
    return g_strdup (request->code);

  code = g_strdup (current);

  /* Edits apply one after the other, each to the result of the previous,
   * as a person would make them. */
  for (guint i = 0; i < request->searches->len; i++)
    {
      const char *search = g_ptr_array_index (request->searches, i);
      const char *replace = g_ptr_array_index (request->replaces, i);
      g_autofree char *field = g_strdup_printf ("change.edits[%u].search", i);
      const char *at;
      guint count = count_occurrences (code, search, &at);
      GString *next;

      if (count != 1)
        {
          g_autofree char *message =
            count == 0 ? g_strdup_printf ("The search text of edit %u does not occur in the code; read_code gives the exact text.", i)
                       : g_strdup_printf ("The search text of edit %u occurs %u times; include more context so it occurs once.", i, count);

          *out_rejection = input_rejection (count == 0 ? SJ_CHANGE_REJECTION_SEARCH_NOT_FOUND : SJ_CHANGE_REJECTION_SEARCH_AMBIGUOUS,
                                            message, field);
          return NULL;
        }

      next = g_string_new_len (code, at - code);
      g_string_append (next, replace);
      g_string_append (next, at + strlen (search));
      g_free (code);
      code = g_string_free (next, FALSE);

      if (strlen (code) > SJ_CHANGE_MAX_CODE)
        {
          *out_rejection = input_rejection (SJ_CHANGE_REJECTION_CODE_TOO_LARGE,
                                            "The edited code is larger than 256 KiB.", field);
          return NULL;
        }
    }

  return g_steal_pointer (&code);
}

/* A line that starts a new top-level part of a Strudel program: a `$:`
 * block (muted `_$:` included), a labelled block (`d1:`), or any
 * statement that is not the continuation of the previous one. */
static gboolean
starts_block (const char *line)
{
  if (*line == '\0' || g_ascii_isspace (*line))
    return FALSE;
  return *line != '.' && *line != ')' && *line != ']' && *line != '}' && *line != ',';
}

/**
 * sj_read_code:
 * @code: the editor text
 * @query: (nullable): text to look for, ignoring case
 *
 * Returns: (transfer full): without a query, `{hash, lineCount, code,
 *   numbered}`; with one, `{hash, lineCount, query, matches: [{startLine,
 *   endLine, text}]}` holding the blocks that contain the query: a `$:`
 *   voice or a statement, with its chained and indented lines
 */
JsonObject *
sj_read_code (const char *code,
              const char *query)
{
  JsonObject *result = json_object_new ();
  g_auto(GStrv) lines = g_strsplit (code, "\n", -1);
  guint n_lines = g_strv_length (lines);
  g_autofree char *hash = sj_code_hash (code);
  g_autofree char *needle = NULL;
  JsonArray *matches;

  /* A trailing newline does not make one more line. */
  if (n_lines > 0 && lines[n_lines - 1][0] == '\0')
    n_lines--;

  json_object_set_string_member (result, "hash", hash);
  json_object_set_int_member (result, "lineCount", n_lines);

  if (query == NULL || *query == '\0')
    {
      g_autoptr(GString) numbered = g_string_new (NULL);

      for (guint i = 0; i < n_lines; i++)
        g_string_append_printf (numbered, "%4u | %s\n", i + 1, lines[i]);

      json_object_set_string_member (result, "code", code);
      json_object_set_string_member (result, "numbered", numbered->str);
      return result;
    }

  needle = g_utf8_casefold (query, -1);
  matches = json_array_new ();

  for (guint start = 0; start < n_lines; )
    {
      guint end = start + 1;
      g_autoptr(GString) text = g_string_new (lines[start]);
      g_autofree char *folded = NULL;

      while (end < n_lines && lines[end][0] != '\0' && !starts_block (lines[end]))
        g_string_append_printf (text, "\n%s", lines[end++]);

      folded = g_utf8_casefold (text->str, -1);
      if (strstr (folded, needle) != NULL)
        {
          JsonObject *match = json_object_new ();

          json_object_set_int_member (match, "startLine", start + 1);
          json_object_set_int_member (match, "endLine", end);
          json_object_set_string_member (match, "text", text->str);
          json_array_add_object_element (matches, match);
        }
      start = end;
    }

  json_object_set_string_member (result, "query", query);
  json_object_set_array_member (result, "matches", matches);
  return result;
}
