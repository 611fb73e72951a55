/* sj-history-export.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Markdown export of a session.
 */

#include "config.h"

#include <string.h>

#include <math.h>

#include "sj-history-store-private.h"
#include "sj-redact.h"

/* A fence longer than any run of backticks inside, so content holding
 * Markdown fences of its own cannot end the block early. */
static void
append_fenced (GString    *out,
               const char *language,
               const char *text)
{
  guint longest = 0;
  guint run = 0;

  for (const char *p = text; *p != '\0'; p++)
    {
      run = *p == '`' ? run + 1 : 0;
      longest = MAX (longest, run);
    }

  for (guint i = 0; i < MAX (3, longest + 1); i++)
    g_string_append_c (out, '`');
  g_string_append_printf (out, "%s\n%s", language, text);
  if (*text == '\0' || !g_str_has_suffix (text, "\n"))
    g_string_append_c (out, '\n');
  for (guint i = 0; i < MAX (3, longest + 1); i++)
    g_string_append_c (out, '`');
  g_string_append (out, "\n\n");
}

static void
append_snapshot (GString                 *out,
                 const SjHistorySnapshot *snapshot)
{
  g_string_append_printf (out, "**Code** (%s",
                          snapshot->source == SJ_HISTORY_SOURCE_AGENT ? "agent" : "user");
  if (!isnan (snapshot->cycle))
    g_string_append_printf (out, ", cycle %g", snapshot->cycle);
  g_string_append (out, ")\n\n");
  append_fenced (out, "javascript", snapshot->code);
}

static void
append_tool_call (GString                 *out,
                  const SjHistoryToolCall *call)
{
  g_string_append_printf (out, "**Tool call: %s** (%s, %" G_GINT64_FORMAT " ms",
                          call->name, _sj_history_tool_status_to_string (call->status),
                          call->duration_ms);
  if (!isnan (call->apply_cycle))
    g_string_append_printf (out, ", applied at cycle %g", call->apply_cycle);
  g_string_append (out, ")\n\n");
  append_fenced (out, "json", call->arguments);

  if (call->result != NULL)
    {
      g_string_append (out, "Result:\n\n");
      append_fenced (out, "json", call->result);
    }
}

static const char *
role_heading (SjHistoryRole role)
{
  switch (role)
    {
    case SJ_HISTORY_ROLE_USER: return "User";
    case SJ_HISTORY_ROLE_ASSISTANT: return "Assistant";
    case SJ_HISTORY_ROLE_SYSTEM: return "System";
    case SJ_HISTORY_ROLE_TOOL: return "Tool";
    default: g_assert_not_reached ();
    }
}

static gboolean
append_message (SjHistoryStore          *self,
                GString                 *out,
                const SjHistoryMessage  *message,
                GPtrArray               *snapshots,
                GError                 **error)
{
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GPtrArray) skills = NULL;

  g_string_append_printf (out, "## %s", role_heading (message->role));
  if (message->model != NULL)
    g_string_append_printf (out, " (%s)", message->model);
  g_string_append (out, "\n\n");

  if (message->role == SJ_HISTORY_ROLE_ASSISTANT && message->ended >= message->started &&
      message->ended > 0)
    {
      gint64 seconds = (message->ended - message->started + G_USEC_PER_SEC / 2) / G_USEC_PER_SEC;

      g_string_append_printf (out, "*Cooked for %" G_GINT64_FORMAT " m %" G_GINT64_FORMAT " s*\n\n",
                              seconds / 60, seconds % 60);
    }

  /* The skills the answer was given, as the chat's chips show them. */
  skills = sj_history_store_list_message_skills (self, message->id, error);
  if (skills == NULL)
    return FALSE;
  if (skills->len > 0)
    {
      g_string_append (out, "*Skills:");
      for (guint i = 0; i < skills->len; i++)
        g_string_append_printf (out, "%s %s", i > 0 ? "," : "", ((SjHistorySkillUse *) g_ptr_array_index (skills, i))->title);
      g_string_append (out, "*\n\n");
    }

  if (message->reasoning != NULL && *message->reasoning != '\0')
    {
      g_auto(GStrv) lines = g_strsplit (message->reasoning, "\n", -1);

      for (guint i = 0; lines[i] != NULL; i++)
        g_string_append_printf (out, ">%s%s\n", *lines[i] != '\0' ? " " : "", lines[i]);
      g_string_append_c (out, '\n');
    }

  if (*message->content != '\0')
    g_string_append_printf (out, "%s\n\n", message->content);

  if (message->status == SJ_HISTORY_MESSAGE_STOPPED)
    g_string_append (out, "*Stopped*\n\n");
  else if (message->status == SJ_HISTORY_MESSAGE_ERROR)
    g_string_append (out, "*Failed*\n\n");
  else if (message->status == SJ_HISTORY_MESSAGE_INTERRUPTED)
    g_string_append (out, "*Interrupted: the app stopped before this answer finished*\n\n");

  calls = sj_history_store_list_tool_calls (self, message->id, error);
  if (calls == NULL)
    return FALSE;
  for (guint i = 0; i < calls->len; i++)
    append_tool_call (out, g_ptr_array_index (calls, i));

  for (guint i = 0; i < snapshots->len; i++)
    {
      const SjHistorySnapshot *snapshot = g_ptr_array_index (snapshots, i);

      if (snapshot->message_id == message->id)
        append_snapshot (out, snapshot);
    }

  return TRUE;
}

/**
 * sj_history_store_export_markdown:
 *
 * Writes a session as Markdown: its title, each message under a heading
 * for its role, tool calls as JSON blocks and code snapshots as JavaScript
 * blocks (after the message that made them, otherwise in time order).
 * Buffered streamed text is committed first.
 *
 * Returns: (transfer full): the Markdown, or %NULL on error
 */
char *
sj_history_store_export_markdown (SjHistoryStore  *self,
                                  gint64           session_id,
                                  GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GPtrArray) messages = NULL;
  g_autoptr(GPtrArray) snapshots = NULL;
  g_autoptr(GString) out = NULL;
  guint next_snapshot = 0;
  int rc;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), NULL);

  if (!sj_history_store_flush (self, error))
    return NULL;

  stmt = _sj_history_store_prepare (self, "SELECT title FROM sessions WHERE id = ?", error);
  if (stmt == NULL)
    return NULL;
  sqlite3_bind_int64 (stmt, 1, session_id);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_DONE)
    {
      g_set_error (error, SJ_HISTORY_STORE_ERROR, SJ_HISTORY_STORE_ERROR_NOT_FOUND,
                   "No session with id %" G_GINT64_FORMAT, session_id);
      return NULL;
    }
  if (rc != SQLITE_ROW)
    {
      _sj_history_store_set_error (_sj_history_store_get_db (self), rc, error);
      return NULL;
    }

  out = g_string_new (NULL);
  g_string_append_printf (out, "# %s\n\n", (const char *)sqlite3_column_text (stmt, 0));

  messages = sj_history_store_list_messages (self, session_id, error);
  if (messages == NULL)
    return NULL;
  snapshots = sj_history_store_list_snapshots (self, session_id, error);
  if (snapshots == NULL)
    return NULL;

  for (guint i = 0; i < messages->len; i++)
    {
      const SjHistoryMessage *message = g_ptr_array_index (messages, i);

      /* Snapshots of the musician's own edits, in between messages. */
      for (; next_snapshot < snapshots->len; next_snapshot++)
        {
          const SjHistorySnapshot *snapshot = g_ptr_array_index (snapshots, next_snapshot);

          if (snapshot->created > message->started)
            break;
          if (snapshot->message_id == 0)
            append_snapshot (out, snapshot);
        }

      if (!append_message (self, out, message, snapshots, error))
        return NULL;
    }

  for (; next_snapshot < snapshots->len; next_snapshot++)
    {
      const SjHistorySnapshot *snapshot = g_ptr_array_index (snapshots, next_snapshot);

      if (snapshot->message_id == 0)
        append_snapshot (out, snapshot);
    }

  /* Everything was redacted when written; this also covers rows written
   * by an older version with fewer patterns. */
  return sj_redact (out->str);
}
