/* sj-history-store.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The conversation history: sessions, their messages, tool calls and code
 * snapshots, in a SQLite file. An assistant's answer streams in as many
 * small deltas; writing each one would mean a transaction per token, so
 * deltas are buffered in memory and committed together at most about once
 * a second (or on flush and finish). A crash then loses at most the last
 * second of streamed text. A failed commit (full disk, read-only file)
 * keeps the buffer, to be retried on the next flush.
 *
 * Everything written goes through sj_redact (): the history is
 * exported and shared, and it must never hold an API key.
 *
 * An answer still "streaming" when its process died (a crash, kill -9, a
 * power cut) would stay so for ever: opening the store marks such answers
 * "interrupted". Only answers nobody is streaming may be touched, so every
 * open store holds a shared flock () on "<file>.lock", and the answers are
 * marked only by a store that gets the lock to itself: then no other store
 * is open, in this process or another, and the ones that were are gone.
 * The kernel releases the locks of a process however it ends.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sj-history-store-private.h"
#include "sj-redact.h"

typedef struct
{
  GString *content;
  GString *reasoning;
} Pending;

struct _SjHistoryStore
{
  GObject     parent_instance;

  char       *path;
  sqlite3    *db;
  int         lock_fd;  /* shared flock () while open, -1 for none */
  GHashTable *pending;  /* message id (gint64 *) → Pending */
  guint       flush_id;
};

G_DEFINE_FINAL_TYPE (SjHistoryStore, sj_history_store, G_TYPE_OBJECT)

enum {
  FLUSH_FAILED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_QUARK (sj-history-store-error-quark, sj_history_store_error)

static void
pending_free (gpointer data)
{
  Pending *pending = data;

  g_string_free (pending->content, TRUE);
  g_string_free (pending->reasoning, TRUE);
  g_free (pending);
}

sqlite3 *
_sj_history_store_get_db (SjHistoryStore *self)
{
  g_assert (SJ_IS_HISTORY_STORE (self));

  return self->db;
}

static void
sj_history_store_dispose (GObject *object)
{
  SjHistoryStore *self = (SjHistoryStore *)object;

  if (self->db != NULL)
    {
      g_autoptr(GError) error = NULL;

      if (!sj_history_store_flush (self, &error))
        g_debug ("History: lost unsaved text on close: %s", error->message);
    }

  g_clear_handle_id (&self->flush_id, g_source_remove);

  G_OBJECT_CLASS (sj_history_store_parent_class)->dispose (object);
}

static void
sj_history_store_finalize (GObject *object)
{
  SjHistoryStore *self = (SjHistoryStore *)object;

  g_clear_pointer (&self->db, sqlite3_close);
  if (self->lock_fd >= 0)
    close (self->lock_fd);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_clear_pointer (&self->path, g_free);

  G_OBJECT_CLASS (sj_history_store_parent_class)->finalize (object);
}

static void
sj_history_store_class_init (SjHistoryStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_history_store_dispose;
  object_class->finalize = sj_history_store_finalize;

  /**
   * SjHistoryStore::flush-failed:
   * @error: why
   *
   * A timed commit of streamed text failed; the text stays buffered.
   */
  signals[FLUSH_FAILED] =
    g_signal_new ("flush-failed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
sj_history_store_init (SjHistoryStore *self)
{
  self->pending = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, pending_free);
  self->lock_fd = -1;
}

/**
 * sj_history_store_default_path:
 *
 * Returns: (transfer full): `$XDG_DATA_HOME/strudel-jam/history.sqlite3`
 */
char *
sj_history_store_default_path (void)
{
  return g_build_filename (g_get_user_data_dir (), "strudel-jam", "history.sqlite3", NULL);
}

static int
flock_retrying (int fd,
                int operation)
{
  int rc;

  do
    rc = flock (fd, operation);
  while (rc != 0 && errno == EINTR);

  return rc;
}

/* Answers left streaming by a process that is gone become "interrupted".
 * A failure only costs the marks: the history still opens. */
static void
mark_interrupted (SjHistoryStore *self)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GError) error = NULL;
  int changes;

  stmt = _sj_history_store_prepare (self,
                                    "UPDATE messages SET status = 'interrupted' WHERE status = 'streaming'",
                                    &error);
  if (stmt == NULL || !_sj_history_store_step_done (self, stmt, &error))
    {
      g_warning ("Could not mark the answers of the last run as interrupted: %s", error->message);
      return;
    }

  changes = sqlite3_changes (self->db);
  if (changes > 0)
    g_debug ("History: %d answer(s) interrupted when the app last stopped", changes);
}

/* Takes the store's shared lock, and marks interrupted answers first when
 * no other store has the file open. */
static void
lock_and_recover (SjHistoryStore *self)
{
  g_autofree char *lock_path = NULL;

  /* A history in memory is this store's alone, and new. */
  if (g_str_equal (self->path, ":memory:"))
    return;

  lock_path = g_strconcat (self->path, ".lock", NULL);
  self->lock_fd = g_open (lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (self->lock_fd < 0)
    {
      int saved_errno = errno;

      /* Without the lock it cannot be known whether an answer is still
       * streaming elsewhere: they all stay as they are. */
      g_debug ("History: no lock at “%s” (%s): interrupted answers are not marked",
               lock_path, g_strerror (saved_errno));
      return;
    }

  if (flock_retrying (self->lock_fd, LOCK_EX | LOCK_NB) == 0)
    {
      /* The exclusive lock is held until the marks are written, so that a
       * store opening meanwhile waits below before it streams anything. */
      mark_interrupted (self);
    }

  /* Turns the exclusive lock into a shared one, or waits for a store
   * that is marking (one UPDATE, under SQLite's busy timeout) to finish. */
  if (flock_retrying (self->lock_fd, LOCK_SH) != 0)
    g_debug ("History: could not lock “%s”: %s", lock_path, g_strerror (errno));
}

/**
 * sj_history_store_new:
 * @path: (nullable): the database file, or %NULL for the default
 *
 * Opens the history, creating or migrating it. A file written by a newer
 * version is refused with %SJ_HISTORY_STORE_ERROR_NEWER_VERSION and left
 * untouched. A file without write permission opens read-only: reading
 * works, writing fails with %G_IO_ERROR_READ_ONLY.
 *
 * When no other store has the file open, answers a previous process left
 * %SJ_HISTORY_MESSAGE_STREAMING become %SJ_HISTORY_MESSAGE_INTERRUPTED:
 * it died before it could finish them. A read-only history keeps them.
 */
SjHistoryStore *
sj_history_store_new (const char  *path,
                      GError     **error)
{
  g_autoptr(SjHistoryStore) self = NULL;
  g_autofree char *dir = NULL;
  GStatBuf st;
  gboolean existed;
  gboolean read_only = FALSE;
  int flags;
  int version;
  int rc;

  self = g_object_new (SJ_TYPE_HISTORY_STORE, NULL);
  self->path = path != NULL ? g_strdup (path) : sj_history_store_default_path ();

  existed = g_stat (self->path, &st) == 0;
  /* The permission bits are honoured even for root, so that a history
   * the user made read-only stays as it is. */
  if (existed && (st.st_mode & 0222) == 0)
    read_only = TRUE;

  if (!existed)
    {
      dir = g_path_get_dirname (self->path);
      if (g_mkdir_with_parents (dir, 0700) != 0)
        {
          int saved_errno = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                       "Cannot create “%s”: %s", dir, g_strerror (saved_errno));
          return NULL;
        }
    }

  flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  rc = sqlite3_open_v2 (self->path, &self->db, flags, NULL);
  if (rc != SQLITE_OK)
    {
      _sj_history_store_set_error (self->db, rc, error);
      return NULL;
    }

  /* Conversations are private even with the secrets masked. */
  if (!existed)
    g_chmod (self->path, 0600);

  sqlite3_busy_timeout (self->db, 2000);

  /* Check the version before anything that could write (switching the
   * journal to WAL does), so a newer file is left exactly as it was. */
  if (!_sj_history_read_user_version (self->db, &version, error) ||
      !_sj_history_check_version (self->path, version, error))
    return NULL;

  if (!_sj_history_exec (self->db, "PRAGMA foreign_keys = ON", error))
    return NULL;

  if (read_only)
    {
      if (version != SJ_HISTORY_STORE_SCHEMA_VERSION)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_READ_ONLY,
                       "The history in “%s” needs an upgrade but is read-only", self->path);
          return NULL;
        }
    }
  else
    {
      /* WAL: readers never block the writer, and a commit is one append. */
      if (!_sj_history_exec (self->db, "PRAGMA journal_mode = WAL", error) ||
          !_sj_history_exec (self->db, "PRAGMA synchronous = NORMAL", error) ||
          !_sj_history_migrate (self->db, self->path, error))
        return NULL;

      lock_and_recover (self);
    }

  return g_steal_pointer (&self);
}

const char *
_sj_history_store_get_path (SjHistoryStore *self)
{
  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), NULL);

  return self->path;
}

/**
 * _sj_history_store_set_max_pages:
 * @max_pages: the largest size of the file in database pages, 0 for no limit
 *
 * Caps the size of the history; writes beyond it fail with
 * %G_IO_ERROR_NO_SPACE as on a full disk.
 */
void
_sj_history_store_set_max_pages (SjHistoryStore *self,
                                 guint           max_pages)
{
  g_autofree char *sql = NULL;

  g_return_if_fail (SJ_IS_HISTORY_STORE (self));

  /* SQLite's own ceiling stands for "no limit". */
  sql = g_strdup_printf ("PRAGMA max_page_count = %u", max_pages != 0 ? max_pages : G_MAXUINT32 - 1);
  sqlite3_exec (self->db, sql, NULL, NULL, NULL);
}

static gboolean flush_pending (SjHistoryStore  *self,
                               gboolean         everything,
                               GError         **error);

static gboolean
flush_timeout_cb (gpointer user_data)
{
  SjHistoryStore *self = user_data;
  g_autoptr(GError) error = NULL;

  self->flush_id = 0;

  /* On failure the text stays buffered; the next delta arms the timer
   * again, and finish or flush retry at once. */
  if (!flush_pending (self, FALSE, &error))
    g_signal_emit (self, signals[FLUSH_FAILED], 0, error);

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
  Pending *pending;

  g_return_if_fail (SJ_IS_HISTORY_STORE (self));

  if ((text_delta == NULL || *text_delta == '\0') &&
      (reasoning_delta == NULL || *reasoning_delta == '\0'))
    return;

  pending = g_hash_table_lookup (self->pending, &message_id);
  if (pending == NULL)
    {
      pending = g_new0 (Pending, 1);
      pending->content = g_string_new (NULL);
      pending->reasoning = g_string_new (NULL);
      g_hash_table_insert (self->pending, g_memdup2 (&message_id, sizeof message_id), pending);
    }

  if (text_delta != NULL)
    g_string_append (pending->content, text_delta);
  if (reasoning_delta != NULL)
    g_string_append (pending->reasoning, reasoning_delta);

  /* Not re-armed on every delta: a steady stream must still be written
   * once a second, not only when it pauses. */
  if (self->flush_id == 0)
    self->flush_id = g_timeout_add (SJ_HISTORY_STORE_FLUSH_INTERVAL_MS, flush_timeout_cb, self);
}

gboolean
_sj_history_store_has_pending (SjHistoryStore *self)
{
  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), FALSE);

  return g_hash_table_size (self->pending) > 0;
}

/* How much of the buffered text a timed commit writes: up to the last
 * whitespace. A key is one word, and the part of it committed first would
 * be too short to be recognised and masked, and the rest would follow
 * without its telling prefix. A word longer than this is committed anyway
 * (code has long runs without spaces). */
#define MAX_HELD_BACK 256

static gsize
committable_length (const GString *text,
                    gboolean       everything)
{
  if (!everything)
    {
      for (gsize i = text->len; i > 0; i--)
        {
          if (g_ascii_isspace (text->str[i - 1]))
            return text->len - i <= MAX_HELD_BACK ? i : text->len;
        }

      if (text->len <= MAX_HELD_BACK)
        return 0;
    }

  return text->len;
}

/* Appends and redacts the whole column, not the delta alone, so a
 * "Bearer " committed earlier still masks the token after it. */
static gboolean
flush_one (SjHistoryStore  *self,
           gint64           message_id,
           Pending         *pending,
           gsize            content_len,
           gsize            reasoning_len,
           GError         **error)
{
  g_autoptr(sqlite3_stmt) select = NULL;
  g_autoptr(sqlite3_stmt) update = NULL;
  g_autoptr(GString) content = NULL;
  g_autoptr(GString) reasoning = NULL;
  g_autofree char *clean_content = NULL;
  g_autofree char *clean_reasoning = NULL;
  gboolean had_reasoning;
  int rc;

  if (content_len == 0 && reasoning_len == 0)
    return TRUE;

  select = _sj_history_store_prepare (self, "SELECT content, reasoning FROM messages WHERE id = ?", error);
  if (select == NULL)
    return FALSE;

  sqlite3_bind_int64 (select, 1, message_id);
  rc = sqlite3_step (select);
  if (rc == SQLITE_DONE)
    return TRUE;  /* deleted meanwhile */
  if (rc != SQLITE_ROW)
    return _sj_history_store_set_error (self->db, rc, error);

  content = g_string_new ((const char *)sqlite3_column_text (select, 0));
  had_reasoning = sqlite3_column_type (select, 1) != SQLITE_NULL;
  reasoning = g_string_new (had_reasoning ? (const char *)sqlite3_column_text (select, 1) : "");
  g_string_append_len (content, pending->content->str, content_len);
  g_string_append_len (reasoning, pending->reasoning->str, reasoning_len);

  clean_content = _sj_history_sanitize (content->str);
  clean_reasoning = had_reasoning || reasoning->len > 0 ? _sj_history_sanitize (reasoning->str) : NULL;

  update = _sj_history_store_prepare (self, "UPDATE messages SET content = ?, reasoning = ? WHERE id = ?", error);
  if (update == NULL)
    return FALSE;

  _sj_history_bind_text (update, 1, clean_content);
  _sj_history_bind_text (update, 2, clean_reasoning);
  sqlite3_bind_int64 (update, 3, message_id);

  return _sj_history_store_step_done (self, update, error);
}

/* Commits the buffered text in one transaction; with @everything unset
 * (the timer), each message's last unfinished word stays buffered. Nothing
 * leaves the buffer unless the transaction committed. */
static gboolean
flush_pending (SjHistoryStore  *self,
               gboolean         everything,
               GError         **error)
{
  GHashTableIter iter;
  gpointer key, value;

  g_clear_handle_id (&self->flush_id, g_source_remove);

  if (g_hash_table_size (self->pending) == 0)
    return TRUE;

  if (!_sj_history_exec (self->db, "BEGIN IMMEDIATE", error))
    return FALSE;

  g_hash_table_iter_init (&iter, self->pending);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      Pending *pending = value;

      if (!flush_one (self, *(gint64 *)key, pending,
                      committable_length (pending->content, everything),
                      committable_length (pending->reasoning, everything),
                      error))
        goto rollback;
    }

  if (!_sj_history_exec (self->db, "COMMIT", error))
    goto rollback;

  g_hash_table_iter_init (&iter, self->pending);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      Pending *pending = value;

      g_string_erase (pending->content, 0, committable_length (pending->content, everything));
      g_string_erase (pending->reasoning, 0, committable_length (pending->reasoning, everything));
      if (pending->content->len == 0 && pending->reasoning->len == 0)
        g_hash_table_iter_remove (&iter);
    }

  return TRUE;

rollback:
  sqlite3_exec (self->db, "ROLLBACK", NULL, NULL, NULL);
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

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), FALSE);
  g_return_val_if_fail (status <= SJ_HISTORY_MESSAGE_INTERRUPTED, FALSE);

  if (!sj_history_store_flush (self, error))
    return FALSE;

  stmt = _sj_history_store_prepare (self, "UPDATE messages SET status = ?, ended = ? WHERE id = ?", error);
  if (stmt == NULL)
    return FALSE;

  sqlite3_bind_text (stmt, 1, _sj_history_status_to_string (status), -1, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 2, g_get_real_time ());
  sqlite3_bind_int64 (stmt, 3, message_id);

  return _sj_history_store_step_done (self, stmt, error) &&
         _sj_history_store_check_changed (self, "message", message_id, error);
}
