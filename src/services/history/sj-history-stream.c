/* sj-history-stream.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * An answer's streamed text in the history store. Deltas are buffered and
 * saved about once a second. A save must cost what the new text costs, not
 * what the whole answer costs (reading back, redacting and rewriting a long
 * answer every second is quadratic): each save redacts only the new text
 * and adds it as a row of message_parts. Finishing the answer (or marking
 * it interrupted) folds the pieces into the message, once.
 *
 * Redacting pieces one by one must still mask what spans two of them:
 *  - a save never cuts the text inside a word (up to MAX_HELD_BACK bytes),
 *    nor where a registered secret could be split or still unfinished
 *    (sj_redact_safe_cut () holds back a tail as long as the longest
 *    secret minus one): a key is always redacted whole;
 *  - the new text is redacted after the previous piece, so "Bearer " or
 *    "api_key: " saved before still masks the token after it. When that
 *    changes the previous piece (a header's value spanning both), that
 *    piece is rewritten: a small row, never the whole answer.
 */

#include "config.h"

#include <string.h>

#include "sj-history-store-private.h"
#include "sj-redact.h"

typedef struct
{
  GString *content;         /* buffered, not yet saved */
  GString *reasoning;
  gint64   part_id;         /* the message's last saved piece, 0 for none */
  GString *part_content;    /* its text as saved (redacted) */
  GString *part_reasoning;  /* %NULL when it has none */
  /* What the transaction in progress makes of the above. */
  gint64   staged_part_id;  /* -1: the message is gone */
  GString *staged_content;
  GString *staged_reasoning;
} Pending;

static void
clear_string (GString **string)
{
  if (*string != NULL)
    g_string_free (*string, TRUE);
  *string = NULL;
}

void
_sj_history_pending_free (gpointer data)
{
  Pending *pending = data;

  clear_string (&pending->content);
  clear_string (&pending->reasoning);
  clear_string (&pending->part_content);
  clear_string (&pending->part_reasoning);
  clear_string (&pending->staged_content);
  clear_string (&pending->staged_reasoning);
  g_free (pending);
}

static gboolean flush_pending (SjHistoryStore  *self,
                               gboolean         everything,
                               GError         **error);

static gboolean
flush_timeout_cb (gpointer user_data)
{
  SjHistoryStore *self = user_data;
  g_autoptr(GError) error = NULL;

  *_sj_history_store_get_flush_id (self) = 0;

  /* On failure the text stays buffered; the next delta arms the timer
   * again, and finish or flush retry at once. */
  if (!flush_pending (self, FALSE, &error))
    _sj_history_store_emit_flush_failed (self, error);

  return G_SOURCE_REMOVE;
}

/**
 * sj_history_store_append_text:
 * @text_delta: (nullable): more of the message's content
 * @reasoning_delta: (nullable): more of its reasoning
 *
 * Buffers streamed text for a message; it reaches the file within about a
 * second, or at once with sj_history_store_flush () or
 * sj_history_store_finish_message ().
 */
void
sj_history_store_append_text (SjHistoryStore *self,
                              gint64          message_id,
                              const char     *text_delta,
                              const char     *reasoning_delta)
{
  GHashTable *table;
  guint *flush_id;
  Pending *pending;

  g_return_if_fail (SJ_IS_HISTORY_STORE (self));

  if ((text_delta == NULL || *text_delta == '\0') &&
      (reasoning_delta == NULL || *reasoning_delta == '\0'))
    return;

  table = _sj_history_store_get_pending (self);
  pending = g_hash_table_lookup (table, &message_id);
  if (pending == NULL)
    {
      pending = g_new0 (Pending, 1);
      pending->content = g_string_new (NULL);
      pending->reasoning = g_string_new (NULL);
      pending->part_content = g_string_new (NULL);
      g_hash_table_insert (table, g_memdup2 (&message_id, sizeof message_id), pending);
    }

  if (text_delta != NULL)
    g_string_append (pending->content, text_delta);
  if (reasoning_delta != NULL)
    g_string_append (pending->reasoning, reasoning_delta);

  /* Not re-armed on every delta: a steady stream must still be written
   * once a second, not only when it pauses. */
  flush_id = _sj_history_store_get_flush_id (self);
  if (*flush_id == 0)
    *flush_id = g_timeout_add (SJ_HISTORY_STORE_FLUSH_INTERVAL_MS, flush_timeout_cb, self);
}

gboolean
_sj_history_store_has_pending (SjHistoryStore *self)
{
  GHashTableIter iter;
  gpointer value;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), FALSE);

  g_hash_table_iter_init (&iter, _sj_history_store_get_pending (self));
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Pending *pending = value;

      if (pending->content->len > 0 || pending->reasoning->len > 0)
        return TRUE;
    }

  return FALSE;
}

/* How much of the buffered text a timed commit writes: up to the last
 * whitespace. A key is one word, and the part of it committed first would
 * be too short to be recognised and masked. A word longer than this is
 * committed anyway (code has long runs without spaces), but never across
 * a registered secret. */
#define MAX_HELD_BACK 256

static gsize
committable_length (const GString *text,
                    gboolean       everything)
{
  gsize cut = text->len;

  if (everything)
    return text->len;

  for (gsize i = text->len; i > 0; i--)
    {
      if (g_ascii_isspace (text->str[i - 1]))
        {
          cut = text->len - i <= MAX_HELD_BACK ? i : text->len;
          break;
        }
      if (i == 1 && text->len <= MAX_HELD_BACK)
        cut = 0;
    }

  return sj_redact_safe_cut (text->str, text->len, cut);
}

/* The new text redacted after the previous piece's. Returns in *@out the
 * redaction of both, and whether it still begins with the previous piece
 * as saved. */
static gboolean
redact_after (const GString  *previous,
              const GString  *buffer,
              gsize           len,
              char          **out)
{
  g_autoptr(GString) joined = g_string_new_len (previous != NULL ? previous->str : "",
                                                previous != NULL ? previous->len : 0);

  g_string_append_len (joined, buffer->str, len);
  *out = _sj_history_sanitize (joined->str);

  return previous == NULL || g_str_has_prefix (*out, previous->str);
}

static gboolean
flush_one (SjHistoryStore  *self,
           gint64           message_id,
           Pending         *pending,
           gsize            content_len,
           gsize            reasoning_len,
           GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autofree char *content = NULL;
  g_autofree char *reasoning = NULL;
  gboolean has_reasoning = pending->part_reasoning != NULL || reasoning_len > 0;
  gboolean extends;
  sqlite3 *db = _sj_history_store_get_db (self);

  clear_string (&pending->staged_content);
  clear_string (&pending->staged_reasoning);
  pending->staged_part_id = pending->part_id;
  if (content_len == 0 && reasoning_len == 0)
    return TRUE;

  extends = redact_after (pending->part_content, pending->content, content_len, &content);
  if (has_reasoning &&
      !redact_after (pending->part_reasoning, pending->reasoning, reasoning_len, &reasoning))
    extends = FALSE;

  if (extends || pending->part_id == 0)
    {
      const char *new_content = content + pending->part_content->len;
      const char *new_reasoning = reasoning != NULL && pending->part_reasoning != NULL
                                  ? reasoning + pending->part_reasoning->len : reasoning;

      if (reasoning_len == 0)
        new_reasoning = NULL;

      /* A message deleted meanwhile (Regenerate, a deleted session) adds
       * nothing. */
      stmt = _sj_history_store_prepare (self,
                                        "INSERT INTO message_parts (message_id, content, reasoning) "
                                        "SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM messages WHERE id = ?1)",
                                        error);
      if (stmt == NULL)
        return FALSE;
      sqlite3_bind_int64 (stmt, 1, message_id);
      _sj_history_bind_text (stmt, 2, new_content);
      _sj_history_bind_text (stmt, 3, new_reasoning);
      if (!_sj_history_store_step_done (self, stmt, error))
        return FALSE;

      if (sqlite3_changes (db) == 0)
        {
          pending->staged_part_id = -1;
          return TRUE;
        }
      pending->staged_part_id = sqlite3_last_insert_rowid (db);
      pending->staged_content = g_string_new (new_content);
      pending->staged_reasoning = new_reasoning != NULL ? g_string_new (new_reasoning) : NULL;
      return TRUE;
    }

  /* The redaction reached back into the previous piece: it is rewritten,
   * with the new text. */
  stmt = _sj_history_store_prepare (self, "UPDATE message_parts SET content = ?, reasoning = ? WHERE id = ?",
                                    error);
  if (stmt == NULL)
    return FALSE;
  _sj_history_bind_text (stmt, 1, content);
  _sj_history_bind_text (stmt, 2, reasoning);
  sqlite3_bind_int64 (stmt, 3, pending->part_id);
  if (!_sj_history_store_step_done (self, stmt, error))
    return FALSE;

  pending->staged_content = g_string_new (content);
  pending->staged_reasoning = reasoning != NULL ? g_string_new (reasoning) : NULL;
  return TRUE;
}

/* Commits the buffered text in one transaction; with @everything unset
 * (the timer), each message's unfinished word or secret stays buffered.
 * Nothing leaves the buffer unless the transaction committed. */
static gboolean
flush_pending (SjHistoryStore  *self,
               gboolean         everything,
               GError         **error)
{
  GHashTable *table = _sj_history_store_get_pending (self);
  sqlite3 *db = _sj_history_store_get_db (self);
  GHashTableIter iter;
  gpointer key, value;

  g_clear_handle_id (_sj_history_store_get_flush_id (self), g_source_remove);

  if (!_sj_history_store_has_pending (self))
    return TRUE;

  if (!_sj_history_exec (db, "BEGIN IMMEDIATE", error))
    return FALSE;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      Pending *pending = value;

      if (!flush_one (self, *(gint64 *)key, pending,
                      committable_length (pending->content, everything),
                      committable_length (pending->reasoning, everything),
                      error))
        goto rollback;
    }

  if (!_sj_history_exec (db, "COMMIT", error))
    goto rollback;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      Pending *pending = value;

      g_string_erase (pending->content, 0, committable_length (pending->content, everything));
      g_string_erase (pending->reasoning, 0, committable_length (pending->reasoning, everything));
      if (pending->staged_part_id < 0)
        {
          g_hash_table_iter_remove (&iter);
          continue;
        }
      if (pending->staged_part_id == pending->part_id && pending->staged_content == NULL)
        continue;

      pending->part_id = pending->staged_part_id;
      clear_string (&pending->part_content);
      clear_string (&pending->part_reasoning);
      pending->part_content = g_steal_pointer (&pending->staged_content);
      pending->part_reasoning = g_steal_pointer (&pending->staged_reasoning);
    }

  _sj_history_store_check_size (self);
  return TRUE;

rollback:
  sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL);
  return FALSE;
}

/**
 * sj_history_store_flush:
 *
 * Commits all buffered streamed text in one transaction. On error nothing
 * is dropped: the text stays buffered for the next try.
 */
gboolean
sj_history_store_flush (SjHistoryStore  *self,
                        GError         **error)
{
  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), FALSE);

  return flush_pending (self, TRUE, error);
}

/* A timed save, at once (for the tests and the benchmark). */
gboolean
_sj_history_store_save_now (SjHistoryStore  *self,
                            GError         **error)
{
  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), FALSE);

  return flush_pending (self, FALSE, error);
}

/* Folds a message's saved pieces into its row, redacting the whole text
 * once (what spans pieces is masked for sure), inside the caller's
 * transaction. A message without pieces is left as it is. */
static gboolean
fold_parts (SjHistoryStore  *self,
            gint64           message_id,
            GError         **error)
{
  g_autoptr(sqlite3_stmt) select = NULL;
  g_autoptr(sqlite3_stmt) update = NULL;
  g_autoptr(sqlite3_stmt) delete = NULL;
  g_autofree char *content = NULL;
  g_autofree char *reasoning = NULL;
  int rc;

  select = _sj_history_store_prepare (self,
                                      "SELECT " SJ_HISTORY_FULL_CONTENT ", " SJ_HISTORY_FULL_REASONING
                                      " FROM messages m " SJ_HISTORY_PARTS_JOIN
                                      " WHERE m.id = ?1 AND EXISTS (SELECT 1 FROM message_parts WHERE message_id = ?1)",
                                      error);
  if (select == NULL)
    return FALSE;
  sqlite3_bind_int64 (select, 1, message_id);
  rc = sqlite3_step (select);
  if (rc == SQLITE_DONE)
    return TRUE;
  if (rc != SQLITE_ROW)
    return _sj_history_store_set_error (_sj_history_store_get_db (self), rc, error);

  content = _sj_history_sanitize ((const char *)sqlite3_column_text (select, 0));
  reasoning = _sj_history_sanitize ((const char *)sqlite3_column_text (select, 1));

  update = _sj_history_store_prepare (self, "UPDATE messages SET content = ?, reasoning = ? WHERE id = ?", error);
  if (update == NULL)
    return FALSE;
  _sj_history_bind_text (update, 1, content);
  _sj_history_bind_text (update, 2, reasoning);
  sqlite3_bind_int64 (update, 3, message_id);
  if (!_sj_history_store_step_done (self, update, error))
    return FALSE;

  delete = _sj_history_store_prepare (self, "DELETE FROM message_parts WHERE message_id = ?", error);
  if (delete == NULL)
    return FALSE;
  sqlite3_bind_int64 (delete, 1, message_id);

  return _sj_history_store_step_done (self, delete, error);
}

/* Every message's pieces folded: those of answers a previous run left
 * streaming. */
gboolean
_sj_history_store_fold_all_parts (SjHistoryStore  *self,
                                  GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  sqlite3 *db = _sj_history_store_get_db (self);
  int rc;

  stmt = _sj_history_store_prepare (self, "SELECT DISTINCT message_id FROM message_parts", error);
  if (stmt == NULL)
    return FALSE;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0);

      g_array_append_val (ids, id);
    }
  if (rc != SQLITE_DONE)
    return _sj_history_store_set_error (db, rc, error);
  if (ids->len == 0)
    return TRUE;

  if (!_sj_history_exec (db, "BEGIN IMMEDIATE", error))
    return FALSE;
  for (guint i = 0; i < ids->len; i++)
    if (!fold_parts (self, g_array_index (ids, gint64, i), error))
      goto rollback;
  if (_sj_history_exec (db, "COMMIT", error))
    return TRUE;

rollback:
  sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL);
  return FALSE;
}

/**
 * sj_history_store_finish_message:
 *
 * Commits the message's buffered text and sets its final status and end
 * time. On error the text stays buffered and the message keeps its status.
 */
gboolean
sj_history_store_finish_message (SjHistoryStore          *self,
                                 gint64                   message_id,
                                 SjHistoryMessageStatus   status,
                                 GError                 **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  sqlite3 *db;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), FALSE);
  g_return_val_if_fail (status <= SJ_HISTORY_MESSAGE_INTERRUPTED, FALSE);

  if (!sj_history_store_flush (self, error))
    return FALSE;

  db = _sj_history_store_get_db (self);
  if (!_sj_history_exec (db, "BEGIN IMMEDIATE", error))
    return FALSE;

  stmt = _sj_history_store_prepare (self, "UPDATE messages SET status = ?, ended = ? WHERE id = ?", error);
  if (stmt == NULL)
    goto rollback;

  sqlite3_bind_text (stmt, 1, _sj_history_status_to_string (status), -1, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 2, g_get_real_time ());
  sqlite3_bind_int64 (stmt, 3, message_id);

  if (!_sj_history_store_step_done (self, stmt, error) ||
      !_sj_history_store_check_changed (self, "message", message_id, error) ||
      !fold_parts (self, message_id, error) ||
      !_sj_history_exec (db, "COMMIT", error))
    goto rollback;

  g_hash_table_remove (_sj_history_store_get_pending (self), &message_id);
  _sj_history_store_check_size (self);
  return TRUE;

rollback:
  sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL);
  return FALSE;
}
