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
 * keeps the buffer, to be retried on the next flush. Each commit adds the
 * new text as a row of its own (sj-history-stream.c): its cost does not
 * grow with the length of the answer.
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

struct _SjHistoryStore
{
  GObject     parent_instance;

  char       *path;
  sqlite3    *db;
  int         lock_fd;  /* shared flock () while open, -1 for none */
  GHashTable *pending;  /* message id (gint64 *) → SjHistoryPending */
  guint       flush_id;
  guint64     size_limit;  /* bytes, 0 for none */
  gboolean    over_limit;
};

G_DEFINE_FINAL_TYPE (SjHistoryStore, sj_history_store, G_TYPE_OBJECT)

enum {
  FLUSH_FAILED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

enum {
  PROP_0,
  PROP_SIZE_LIMIT,
  PROP_OVER_LIMIT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_QUARK (sj-history-store-error-quark, sj_history_store_error)

GHashTable *
_sj_history_store_get_pending (SjHistoryStore *self)
{
  return self->pending;
}

guint *
_sj_history_store_get_flush_id (SjHistoryStore *self)
{
  return &self->flush_id;
}

void
_sj_history_store_emit_flush_failed (SjHistoryStore *self,
                                     const GError   *error)
{
  g_signal_emit (self, signals[FLUSH_FAILED], 0, error);
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
sj_history_store_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  SjHistoryStore *self = SJ_HISTORY_STORE (object);

  switch (prop_id)
    {
    case PROP_SIZE_LIMIT:
      g_value_set_uint64 (value, self->size_limit);
      break;
    case PROP_OVER_LIMIT:
      g_value_set_boolean (value, self->over_limit);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_history_store_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  SjHistoryStore *self = SJ_HISTORY_STORE (object);

  switch (prop_id)
    {
    case PROP_SIZE_LIMIT:
      sj_history_store_set_size_limit (self, g_value_get_uint64 (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_history_store_class_init (SjHistoryStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_history_store_dispose;
  object_class->finalize = sj_history_store_finalize;
  object_class->get_property = sj_history_store_get_property;
  object_class->set_property = sj_history_store_set_property;

  /**
   * SjHistoryStore:size-limit:
   *
   * The size in bytes the history should stay under, 0 for no limit. It
   * deletes nothing and refuses nothing: past it, #SjHistoryStore:over-limit
   * turns on, for the app to ask the musician to delete old sessions.
   */
  properties[PROP_SIZE_LIMIT] =
    g_param_spec_uint64 ("size-limit", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SjHistoryStore:over-limit:
   *
   * Whether the history holds more than #SjHistoryStore:size-limit.
   */
  properties[PROP_OVER_LIMIT] =
    g_param_spec_boolean ("over-limit", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

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
  self->pending = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, _sj_history_pending_free);
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

  /* Their pieces, saved as they streamed, become their text. */
  if (!_sj_history_store_fold_all_parts (self, &error))
    g_warning ("Could not fold the streamed text of interrupted answers: %s", error->message);
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

/**
 * sj_history_store_get_size:
 *
 * Returns: the bytes the history holds: its file's pages in use (pages
 *   freed by deleted sessions are reused before the file grows again)
 */
guint64
sj_history_store_get_size (SjHistoryStore *self)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), 0);

  stmt = _sj_history_store_prepare (self,
                                    "SELECT (p.page_count - f.freelist_count) * s.page_size "
                                    "FROM pragma_page_count () p, pragma_freelist_count () f, pragma_page_size () s",
                                    NULL);
  if (stmt == NULL || sqlite3_step (stmt) != SQLITE_ROW)
    return 0;

  return (guint64) MAX (sqlite3_column_int64 (stmt, 0), 0);
}

/* Updates #SjHistoryStore:over-limit, after anything that changes the
 * size. */
void
_sj_history_store_check_size (SjHistoryStore *self)
{
  gboolean over;

  g_return_if_fail (SJ_IS_HISTORY_STORE (self));

  over = self->size_limit != 0 && sj_history_store_get_size (self) > self->size_limit;
  if (over != self->over_limit)
    {
      self->over_limit = over;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OVER_LIMIT]);
    }
}

/**
 * sj_history_store_set_size_limit:
 * @bytes: the size the history should stay under, 0 for no limit
 *
 * Sets #SjHistoryStore:size-limit. Nothing is ever deleted or refused
 * because of it; see #SjHistoryStore:over-limit.
 */
void
sj_history_store_set_size_limit (SjHistoryStore *self,
                                 guint64         bytes)
{
  g_return_if_fail (SJ_IS_HISTORY_STORE (self));

  if (self->size_limit != bytes)
    {
      self->size_limit = bytes;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SIZE_LIMIT]);
    }
  _sj_history_store_check_size (self);
}

guint64
sj_history_store_get_size_limit (SjHistoryStore *self)
{
  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), 0);

  return self->size_limit;
}

gboolean
sj_history_store_get_over_limit (SjHistoryStore *self)
{
  g_return_val_if_fail (SJ_IS_HISTORY_STORE (self), FALSE);

  return self->over_limit;
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

