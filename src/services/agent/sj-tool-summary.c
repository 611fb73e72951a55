/* sj-tool-summary.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What a tool call did, in words for people: the one line a tool log row
 * shows under the tool's name. The agent's tools are named here and in
 * sj-agent-tools*.c only; the widgets ask this file and never compare a
 * tool's name. The line says what a call did
 * ("scheduled for cycle 13", "read 12 lines", the query asked), its
 * duration, and its arguments and result as pretty JSON. Everything comes
 * out redacted: the history is redacted when written, but a row must not
 * rely on that, since secrets registered later (a key entered after the
 * call) are only known now.
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "sj-json.h"
#include "sj-tool-summary.h"
#include "sj-redact.h"

/* Returns: (transfer full) (nullable): @text's top-level object, or %NULL
 * when @text is not a JSON object. */
static JsonObject *
parse_object (const char *text)
{
  g_autoptr(JsonNode) root = NULL;

  if (text == NULL || *text == '\0')
    return NULL;

  if ((root = sj_json_parse (text, -1, NULL, NULL)) == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;

  return json_object_ref (json_node_get_object (root));
}

static char *
quoted (const char *text)
{
  /* TRANSLATORS: a query the agent asked a knowledge tool, in quotes */
  return g_strdup_printf (_("“%s”"), text);
}

static char *
summarize_apply (const SjHistoryToolCall *call,
                 JsonObject              *result)
{
  const char *status = sj_json_object_get_string (result, "status");
  JsonObject *apply_at = sj_json_object_get_object (result, "applyAt");
  double cycle = call->apply_cycle;

  if (apply_at != NULL && json_object_has_member (apply_at, "cycle"))
    cycle = json_object_get_double_member (apply_at, "cycle");

  if (g_strcmp0 (status, "scheduled") == 0 && !isnan (cycle))
    /* TRANSLATORS: a change the agent made, to take effect at that cycle */
    return g_strdup_printf (_("scheduled for cycle %g"), cycle);
  if (g_strcmp0 (status, "scheduled") == 0)
    return g_strdup (_("scheduled"));
  if (g_strcmp0 (status, "applied") == 0 && !isnan (cycle))
    /* TRANSLATORS: a change the agent made, applied at that cycle */
    return g_strdup_printf (_("applied at cycle %g"), cycle);
  if (g_strcmp0 (status, "applied") == 0)
    return g_strdup (_("applied"));
  if (g_strcmp0 (status, "rejected") == 0)
    {
      const char *code = sj_json_object_get_string (result, "code");

      if (code == NULL)
        return g_strdup (_("rejected"));
      /* TRANSLATORS: a change the dry run refused, with the reason's code,
       * e.g. "rejected: DRY_RUN_FAILED" */
      return g_strdup_printf (_("rejected: %s"), code);
    }

  return NULL;
}

/* A change that was heard, or reverted, says so after where it landed. */
static char *
summarize_verified_apply (const SjHistoryToolCall *call,
                          JsonObject              *result)
{
  g_autofree char *landed = summarize_apply (call, result);
  const char *status = sj_json_object_get_string (sj_json_object_get_object (result, "verification"), "status");

  if (landed == NULL || status == NULL)
    return g_steal_pointer (&landed);
  if (g_str_equal (status, "heard"))
    /* TRANSLATORS: an applied change, then that it was heard, e.g.
     * "scheduled for cycle 12 · heard" */
    return g_strdup_printf (_("%s · heard"), landed);
  if (g_str_equal (status, "reverted"))
    /* TRANSLATORS: a change that made no sound or failed to play, put back */
    return g_strdup_printf (_("%s · reverted: no sound or errors"), landed);
  if (g_str_equal (status, "kept"))
    return g_strdup_printf (_("%s · kept, but no sound or errors"), landed);

  return g_steal_pointer (&landed);
}

/* What listen heard: "−14.2 dBFS, 4 onsets a cycle", "silent". */
static char *
summarize_listen (JsonObject *result)
{
  JsonNode *rms;
  JsonNode *onsets;
  JsonNode *silent;

  if (result == NULL)
    return NULL;
  if (g_strcmp0 (sj_json_object_get_string (result, "status"), "no-data") == 0)
    /* TRANSLATORS: listen found nothing measured (the music is stopped) */
    return g_strdup (_("nothing measured"));

  silent = json_object_get_member (result, "silent");
  if (silent != NULL && JSON_NODE_HOLDS_VALUE (silent) && json_node_get_value_type (silent) == G_TYPE_BOOLEAN &&
      json_node_get_boolean (silent))
    /* TRANSLATORS: listen heard no sound */
    return g_strdup (_("silent"));

  rms = json_object_get_member (result, "rmsDb");
  onsets = json_object_get_member (result, "onsetsPerCycle");
  if (rms == NULL || !JSON_NODE_HOLDS_VALUE (rms) || onsets == NULL || !JSON_NODE_HOLDS_VALUE (onsets))
    return NULL;

  /* TRANSLATORS: what listen measured: the level in dB below full scale,
   * then the note attacks heard in a cycle, e.g. "−14.2 dBFS, 4 onsets a cycle" */
  return g_strdup_printf (_("%.1f dBFS, %.1f onsets a cycle"), json_node_get_double (rms),
                          json_node_get_double (onsets));
}

static char *
summarize_read_code (JsonObject *result)
{
  JsonNode *node;

  if (result == NULL)
    return NULL;

  node = json_object_get_member (result, "matches");
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      guint n = json_array_get_length (json_node_get_array (node));
      const char *query = sj_json_object_get_string (result, "query");

      /* TRANSLATORS: read_code searched the code, e.g. "2 matches for “bd”" */
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u match for “%s”", "%u matches for “%s”", n),
                              n, query != NULL ? query : "");
    }

  node = json_object_get_member (result, "lineCount");
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node))
    {
      gint64 n = json_node_get_int (node);

      /* TRANSLATORS: read_code read the whole code, e.g. "read 12 lines" */
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "read %d line", "read %d lines", (gulong)n),
                              (int)n);
    }

  return NULL;
}

static char *
summarize_query (JsonObject *arguments)
{
  const char *query = sj_json_object_get_string (arguments, "query");

  /* The object form of strudel_knowledge's contract names it "q". */
  if (query == NULL)
    query = sj_json_object_get_string (arguments, "q");
  if (query == NULL || *query == '\0')
    return NULL;

  return quoted (query);
}

/* The skills an activation returned: "Jazz, Dub". */
static char *
summarize_skills (JsonObject *result)
{
  JsonNode *node = result != NULL ? json_object_get_member (result, "skills") : NULL;
  g_autoptr(GString) titles = g_string_new (NULL);
  JsonArray *skills;
  guint n;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return NULL;

  skills = json_node_get_array (node);
  n = json_array_get_length (skills);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *item = json_array_get_element (skills, i);
      const char *title = JSON_NODE_HOLDS_OBJECT (item) ? sj_json_object_get_string (json_node_get_object (item), "title") : NULL;

      if (title != NULL)
        g_string_append_printf (titles, "%s%s", titles->len > 0 ? ", " : "", title);
    }

  return g_string_free (g_steal_pointer (&titles), FALSE);
}

static char *
summarize_skills_list (JsonObject *result)
{
  JsonNode *node = result != NULL ? json_object_get_member (result, "skills") : NULL;
  guint n;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return NULL;

  n = json_array_get_length (json_node_get_array (node));
  /* TRANSLATORS: skills_list listed the skills, e.g. "12 skills" */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u skill", "%u skills", n), n);
}

/**
 * sj_tool_summary_line:
 *
 * Returns: (transfer full): one line saying what @call did, "" when there
 *   is nothing to say beyond its name and status
 */
char *
sj_tool_summary_line (const SjHistoryToolCall *call)
{
  g_autoptr(JsonObject) arguments = NULL;
  g_autoptr(JsonObject) result = NULL;
  JsonObject *error;
  char *summary = NULL;

  g_return_val_if_fail (call != NULL, NULL);

  arguments = parse_object (call->arguments);
  result = parse_object (call->result);

  if (call->status == SJ_HISTORY_TOOL_CANCELED)
    return g_strdup (_("canceled before it finished"));

  /* Calls the agent refused to run (budget, unknown tool, unreadable
   * arguments) carry an error object, whatever the tool. */
  if ((error = sj_json_object_get_object (result, "error")) != NULL && sj_json_object_get_string (error, "code") != NULL)
    /* TRANSLATORS: a tool call that failed, with the error's code */
    summary = g_strdup_printf (_("failed: %s"), sj_json_object_get_string (error, "code"));
  else if (g_strcmp0 (call->name, "apply_strudel_change") == 0)
    summary = summarize_verified_apply (call, result);
  else if (g_strcmp0 (call->name, "listen") == 0)
    summary = summarize_listen (result);
  else if (g_strcmp0 (call->name, "read_code") == 0)
    summary = summarize_read_code (result);
  else if (g_strcmp0 (call->name, "strudel_knowledge") == 0 ||
           g_strcmp0 (call->name, "search_knowledge") == 0)
    summary = summarize_query (arguments);
  else if (g_strcmp0 (call->name, "activate_skills") == 0)
    summary = summarize_skills (result);
  else if (g_strcmp0 (call->name, "skills_list") == 0)
    summary = summarize_skills_list (result);

  if (summary == NULL)
    summary = g_strdup ("");

  return summary;
}

/**
 * sj_tool_summary_duration:
 *
 * Returns: (transfer full): @duration_ms for people: "120 ms", "2.5 s"
 */
char *
sj_tool_summary_duration (gint64 duration_ms)
{
  if (duration_ms < 1000)
    /* TRANSLATORS: how long a tool call took, in milliseconds */
    return g_strdup_printf (_("%d ms"), (int)MAX (duration_ms, 0));

  /* TRANSLATORS: how long a tool call took, in seconds */
  return g_strdup_printf (_("%.1f s"), duration_ms / 1000.0);
}

/**
 * sj_tool_summary_pretty_json:
 * @text: (nullable): JSON text as stored
 *
 * Text that is not JSON is shown as it is, redacted like the rest.
 *
 * Returns: (transfer full) (nullable): @text redacted and indented, %NULL
 *   for %NULL
 */
char *
sj_tool_summary_pretty_json (const char *text)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonGenerator) generator = NULL;
  g_autofree char *redacted = NULL;
  g_autofree char *pretty = NULL;
  g_autofree char *shortened = NULL;

  if (text == NULL)
    return NULL;

  /* Redacted before parsing so no secret goes through the generator, and
   * after, since the masks match the indented text as well. */
  redacted = sj_redact (text);
  if ((root = sj_json_parse (redacted, -1, NULL, NULL)) == NULL)
    return g_steal_pointer (&redacted);

  generator = json_generator_new ();
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  json_generator_set_root (generator, root);
  pretty = json_generator_to_data (generator, NULL);
  shortened = sj_json_shorten_numbers (pretty);

  return sj_redact (shortened);
}
