/* sj-history-export.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Secret redaction for everything the history writes, and the Markdown
 * export of a session.
 */

#include "config.h"

#include <string.h>

#include <math.h>

#include "sj-history-store-private.h"

#define REDACTED "[redacted]"

typedef struct
{
  const char *pattern;
  const char *replacement;
} Redaction;

/* Each replacement keeps what names the secret and masks the secret. The
 * masked text matches no pattern's secret part again (or maps to itself),
 * so redacting twice changes nothing: the store redacts whole columns on
 * every streamed flush. */
static const Redaction redactions[] = {
  /* An Authorization header or field: the whole value, whatever scheme. */
  { "(?i)(\\bauthorization[\"']?\\s*[:=]\\s*[\"']?)[^\"'\\r\\n]+", "\\1" REDACTED },
  /* "api_key": "…", api_key=…, OPENROUTER_API_KEY=… and the like. */
  { "(?i)([\"']?\\b[a-z0-9_-]*(?:api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|auth[_-]?token|"
    "client[_-]?secret|secret[_-]?key|secret|password|passwd|token)[\"']?\\s*[:=]\\s*[\"']?)"
    "(?!null\\b|true\\b|false\\b)[^\"'\\s,;&}]{4,}",
    "\\1" REDACTED },
  { "(?i)\\b(bearer\\s+)[a-z0-9._~+/=-]{8,}", "\\1" REDACTED },
  /* OpenAI, OpenRouter (sk-or-v1-…), Anthropic (sk-ant-…) keys. */
  { "\\bsk-[A-Za-z0-9_-]{16,}", REDACTED },
  { "\\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}", REDACTED },
  { "\\bAIza[0-9A-Za-z_-]{30,}", REDACTED },
  { "\\bxox[abprs]-[A-Za-z0-9-]{10,}", REDACTED },
  { "\\bhf_[A-Za-z0-9]{20,}", REDACTED },
};

static GRegex **
compiled_redactions (void)
{
  static gsize initialized;
  static GRegex **regexes;

  if (g_once_init_enter (&initialized))
    {
      GRegex **compiled = g_new0 (GRegex *, G_N_ELEMENTS (redactions));

      for (guint i = 0; i < G_N_ELEMENTS (redactions); i++)
        {
          g_autoptr(GError) error = NULL;

          compiled[i] = g_regex_new (redactions[i].pattern, G_REGEX_OPTIMIZE, 0, &error);
          g_assert_no_error (error);
        }

      regexes = compiled;
      g_once_init_leave (&initialized, 1);
    }

  return regexes;
}

/* Secrets known by value (the key from the keyring): masked wherever they
 * appear, whatever their shape; local servers accept any string as a key. */
static GMutex secrets_lock;
static GPtrArray *secrets;

#define MIN_SECRET_LENGTH 6

/**
 * sj_history_redact_add_secret:
 * @secret: (nullable): a value that must never be written anywhere
 *
 * From now on sj_history_redact() masks @secret. Too short a value (under
 * six characters) would mask ordinary words and is ignored.
 */
void
sj_history_redact_add_secret (const char *secret)
{
  if (secret == NULL || strlen (secret) < MIN_SECRET_LENGTH)
    return;

  g_mutex_lock (&secrets_lock);
  if (secrets == NULL)
    secrets = g_ptr_array_new_with_free_func (g_free);
  if (!g_ptr_array_find_with_equal_func (secrets, secret, g_str_equal, NULL))
    g_ptr_array_add (secrets, g_strdup (secret));
  g_mutex_unlock (&secrets_lock);
}

static char *
redact_known (char *text)
{
  g_mutex_lock (&secrets_lock);
  for (guint i = 0; secrets != NULL && i < secrets->len; i++)
    {
      const char *secret = g_ptr_array_index (secrets, i);

      if (strstr (text, secret) != NULL)
        {
          g_auto(GStrv) parts = g_strsplit (text, secret, -1);

          g_free (text);
          text = g_strjoinv (REDACTED, parts);
        }
    }
  g_mutex_unlock (&secrets_lock);

  return text;
}

/**
 * sj_history_redact:
 * @text: (nullable): UTF-8 text
 *
 * Masks API keys, tokens and credentials in @text, and every secret
 * registered with sj_history_redact_add_secret().
 *
 * Returns: (transfer full) (nullable): the text with its secrets masked
 */
char *
sj_history_redact (const char *text)
{
  GRegex **regexes;
  g_autofree char *result = NULL;

  if (text == NULL)
    return NULL;

  regexes = compiled_redactions ();
  result = redact_known (g_strdup (text));

  for (guint i = 0; i < G_N_ELEMENTS (redactions); i++)
    {
      g_autoptr(GError) error = NULL;
      char *replaced;

      replaced = g_regex_replace (regexes[i], result, -1, 0, redactions[i].replacement, 0, &error);
      if (replaced == NULL)
        {
          /* Only invalid UTF-8 gets here; never let unmasked text through. */
          g_debug ("History: redaction failed: %s", error->message);
          return g_strdup (REDACTED);
        }

      g_free (result);
      result = replaced;
    }

  return g_steal_pointer (&result);
}

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
                          call->name, sj_history_tool_status_to_string (call->status),
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

  stmt = sj_history_store_prepare (self, "SELECT title FROM sessions WHERE id = ?", error);
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
      sj_history_store_set_error (sj_history_store_get_db (self), rc, error);
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
  return sj_history_redact (out->str);
}

/**
 * sj_history_redacting_log_writer:
 *
 * A #GLogWriterFunc that masks secrets in every message before GLib's
 * default writer prints it or hands it to the journal: a provider's error
 * that quotes the key, or a library logging a header, never reaches a log.
 */
GLogWriterOutput
sj_history_redacting_log_writer (GLogLevelFlags   log_level,
                                 const GLogField *fields,
                                 gsize            n_fields,
                                 gpointer         user_data)
{
  g_autofree GLogField *copy = g_memdup2 (fields, n_fields * sizeof (GLogField));
  g_autofree char *redacted = NULL;

  for (gsize i = 0; i < n_fields; i++)
    if (g_str_equal (copy[i].key, "MESSAGE") && copy[i].value != NULL)
      {
        g_autofree char *text = copy[i].length < 0 ? g_strdup (copy[i].value)
                                                   : g_strndup (copy[i].value, copy[i].length);

        redacted = sj_history_redact (text);
        copy[i].value = redacted;
        copy[i].length = -1;
        break;
      }

  return g_log_writer_default (log_level, copy, n_fields, user_data);
}
