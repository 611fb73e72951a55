/* sj-code-store.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Keeps the musician's code safe across restarts. Edits arrive many times a
 * second while typing, so saving is debounced; each save replaces the file
 * atomically (sj-code-store-write.c: a temporary file, synced, renamed) so
 * that a crash or a full disk never leaves a truncated pattern behind, and
 * any text is saved, the empty one too. Writes run in a thread, one at a
 * time and in order, so a slow or stuck disk never blocks the window. A
 * failed save keeps the text pending and is retried on the next edit or
 * flush; the flush at shutdown waits for the disk at most a deadline.
 *
 * The writes themselves, in their threads, and the copies saved elsewhere
 * are in sj-code-store-jobs.c.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "sj-code-store-private.h"

#define DEFAULT_DELAY_MS 1000
#define DEFAULT_FLUSH_TIMEOUT_MS 700

G_DEFINE_FINAL_TYPE (SjCodeStore, sj_code_store, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_FILE,
  PROP_PENDING,
  N_PROPS
};

enum {
  SAVED,
  SAVE_FAILED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* The first start plays offline, so the demo uses only the synthesizers
 * that superdough registers (no samples, no soundfonts). */
static const char demo_code[] =
  "// Welcome to Strudel Jam!\n"
  "// Press play (Ctrl+Enter) and let it loop. Edit anything, press Ctrl+Enter\n"
  "// again and the change lands while the music keeps going. Ctrl+. stops.\n"
  "setcpm(110/4)\n"
  "\n"
  "// drums: with no network, the built-in kit plays them\n"
  "$: s(\"bd*4, [~ cp]*2, [~ hh]*4, ~ ~ ~ oh\").gain(.8)\n"
  "\n"
  "// bass line\n"
  "$: note(\"<[c2 c3]*2 [eb2 eb3]*2 [f2 f3]*2 [g1 g2]*2>\")\n"
  "  .s(\"sawtooth\").lpf(sine.range(300, 1400).slow(8)).lpq(6)\n"
  "  .decay(.15).sustain(.2).gain(.45)\n"
  "\n"
  "// chords\n"
  "$: n(\"<0 2 3 4>\").chord(\"<Cm7 Eb^7 Fm7 G7>\").voicing()\n"
  "  .s(\"triangle\").struct(\"~ x ~ x\").room(.4).gain(.3)\n";

static void
sj_code_store_dispose (GObject *object)
{
  SjCodeStore *self = (SjCodeStore *)object;

  g_clear_handle_id (&self->timeout_id, g_source_remove);
  g_cancellable_cancel (self->cancellable);

  G_OBJECT_CLASS (sj_code_store_parent_class)->dispose (object);
}

static void
sj_code_store_finalize (GObject *object)
{
  SjCodeStore *self = (SjCodeStore *)object;

  g_clear_object (&self->file);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->pending_code, g_free);
  g_clear_pointer (&self->writing_code, g_free);
  g_clear_pointer (&self->saved_code, g_free);
  g_mutex_clear (&self->write_lock);

  G_OBJECT_CLASS (sj_code_store_parent_class)->finalize (object);
}

static void
sj_code_store_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  SjCodeStore *self = SJ_CODE_STORE (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;

    case PROP_PENDING:
      g_value_set_boolean (value, sj_code_store_get_pending (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_code_store_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  SjCodeStore *self = SJ_CODE_STORE (object);

  switch (prop_id)
    {
    case PROP_FILE:
      self->file = g_value_dup_object (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_code_store_class_init (SjCodeStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_code_store_dispose;
  object_class->finalize = sj_code_store_finalize;
  object_class->get_property = sj_code_store_get_property;
  object_class->set_property = sj_code_store_set_property;

  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL,
                         G_TYPE_FILE,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  properties[PROP_PENDING] =
    g_param_spec_boolean ("pending", NULL, NULL,
                          FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SjCodeStore::saved:
   *
   * Emitted after the code reached the disk.
   */
  signals[SAVED] =
    g_signal_new ("saved",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * SjCodeStore::save-failed:
   * @error: the #GError that prevented saving
   *
   * Emitted when a save failed. The text stays pending and is saved again
   * on the next change or flush.
   */
  signals[SAVE_FAILED] =
    g_signal_new ("save-failed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
sj_code_store_init (SjCodeStore *self)
{
  self->cancellable = g_cancellable_new ();
  self->delay_ms = DEFAULT_DELAY_MS;
  self->flush_timeout_ms = DEFAULT_FLUSH_TIMEOUT_MS;
  g_mutex_init (&self->write_lock);
}

SjCodeStore *
sj_code_store_new (GFile *file)
{
  g_return_val_if_fail (G_IS_FILE (file), NULL);

  return g_object_new (SJ_TYPE_CODE_STORE, "file", file, NULL);
}

/* The code lives in $XDG_DATA_HOME/strudel-jam/current.strudel.js. */
SjCodeStore *
sj_code_store_new_default (void)
{
  g_autofree char *path = g_build_filename (g_get_user_data_dir (), "strudel-jam", "current.strudel.js", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return sj_code_store_new (file);
}

GFile *
sj_code_store_get_file (SjCodeStore *self)
{
  g_assert (SJ_IS_CODE_STORE (self));

  return self->file;
}

const char *
sj_code_store_get_demo_code (void)
{
  return demo_code;
}

/**
 * sj_code_store_load:
 * @out_first_run: (out) (optional): set to %TRUE when nothing was saved yet
 *
 * Returns: (transfer full): the saved code, or the demo on the very first
 * start. %NULL with @error set when the file exists but cannot be read; the
 * caller must then not overwrite it.
 */
char *
sj_code_store_load (SjCodeStore  *self,
                    gboolean     *out_first_run,
                    GError      **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;

  g_assert (SJ_IS_CODE_STORE (self));

  if (out_first_run != NULL)
    *out_first_run = FALSE;

  if (!g_file_load_contents (self->file, NULL, &contents, &length, NULL, &local_error))
    {
      if (!g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }

      if (out_first_run != NULL)
        *out_first_run = TRUE;

      return g_strdup (demo_code);
    }

  if (!g_utf8_validate (contents, length, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("The saved code in “%s” is not valid UTF-8"),
                   g_file_peek_path (self->file));
      return NULL;
    }

  g_free (self->saved_code);
  self->saved_code = g_strdup (contents);

  return g_steal_pointer (&contents);
}

gboolean
sj_code_store_get_pending (SjCodeStore *self)
{
  g_assert (SJ_IS_CODE_STORE (self));

  return self->pending_code != NULL || self->saving;
}

/**
 * sj_code_store_dup_code:
 *
 * Returns: (transfer full) (nullable): the newest text the store was given
 *   (saved or not), or %NULL if it was given none and loaded none
 */
char *
sj_code_store_dup_code (SjCodeStore *self)
{
  g_assert (SJ_IS_CODE_STORE (self));

  if (self->pending_code != NULL)
    return g_strdup (self->pending_code);
  if (self->writing_code != NULL)
    return g_strdup (self->writing_code);
  return g_strdup (self->saved_code);
}

void
_sj_code_store_set_delay (SjCodeStore *self,
                          guint        delay_ms)
{
  g_assert (SJ_IS_CODE_STORE (self));

  self->delay_ms = delay_ms;
}

void
_sj_code_store_set_flush_timeout (SjCodeStore *self,
                                  guint        timeout_ms)
{
  g_assert (SJ_IS_CODE_STORE (self));

  self->flush_timeout_ms = timeout_ms;
}

/* Set before any save, or between saves: writing threads read it. */
void
_sj_code_store_set_write_hook (SjCodeStore          *self,
                               SjCodeStoreWriteHook  hook,
                               gpointer              user_data)
{
  g_assert (SJ_IS_CODE_STORE (self));

  g_mutex_lock (&self->write_lock);
  self->write_hook = hook;
  self->write_hook_data = user_data;
  g_mutex_unlock (&self->write_lock);
}

/* Saving ------------------------------------------------------------------ */

static void start_save (SjCodeStore *self);

static void
save_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  SjCodeStore *self = SJ_CODE_STORE (object);
  SjCodeStoreWriteJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;

  g_assert (SJ_IS_CODE_STORE (self));

  /* A flush that gave up on this write took over; nothing to do here. */
  if (!self->saving || job->seq != self->saving_seq)
    return;

  self->saving = FALSE;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      /* The text that failed to reach the disk is pending again, unless a
       * newer edit has replaced it meanwhile. */
      if (self->pending_code == NULL)
        self->pending_code = g_steal_pointer (&self->writing_code);
      g_clear_pointer (&self->writing_code, g_free);

      g_message ("Could not save the code to %s: %s", g_file_peek_path (self->file), error->message);
      g_signal_emit (self, signals[SAVE_FAILED], 0, error);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
      return;
    }

  if (job->skipped)
    g_clear_pointer (&self->writing_code, g_free);
  else
    {
      g_free (self->saved_code);
      self->saved_code = g_steal_pointer (&self->writing_code);
      g_signal_emit (self, signals[SAVED], 0);
    }

  /* Edits that arrived while writing are saved right away, still atomically. */
  if (self->pending_code != NULL && self->timeout_id == 0)
    start_save (self);
  else
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
}

static void
start_save (SjCodeStore *self)
{
  g_autoptr(SjCodeStoreWriteJob) job = NULL;

  g_assert (SJ_IS_CODE_STORE (self));
  g_assert (self->pending_code != NULL);

  if (self->saving)
    return;

  self->writing_code = g_steal_pointer (&self->pending_code);
  job = _sj_code_store_write_job_new (self, self->writing_code);

  self->saving = TRUE;
  self->saving_seq = job->seq;
  _sj_code_store_run_write (self, job, save_cb, NULL);
}

static gboolean
save_timeout_cb (gpointer user_data)
{
  SjCodeStore *self = user_data;

  g_assert (SJ_IS_CODE_STORE (self));

  self->timeout_id = 0;
  start_save (self);

  return G_SOURCE_REMOVE;
}

/**
 * sj_code_store_queue_save:
 *
 * Schedules @code to be saved once edits pause for the store's delay.
 * Saving text identical to what is on disk does nothing. Any text is saved,
 * the empty one too.
 */
void
sj_code_store_queue_save (SjCodeStore *self,
                          const char  *code)
{
  gboolean was_pending;

  g_assert (SJ_IS_CODE_STORE (self));
  g_return_if_fail (code != NULL);

  if (self->pending_code == NULL && !self->saving && g_strcmp0 (code, self->saved_code) == 0)
    return;

  was_pending = sj_code_store_get_pending (self);

  g_free (self->pending_code);
  self->pending_code = g_strdup (code);

  g_clear_handle_id (&self->timeout_id, g_source_remove);
  self->timeout_id = g_timeout_add (self->delay_ms, save_timeout_cb, self);

  if (!was_pending)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
}

/**
 * sj_code_store_flush:
 *
 * Writes the newest text now, for shutdown, and waits for it at most the
 * store's flush deadline (0.7 s): a disk that does not answer never
 * holds the app. The write is ordered after any asynchronous save under
 * way, so older text never lands after it. On failure, or when the deadline
 * passed, the text stays pending and the file on disk is the previous text,
 * whole.
 *
 * Returns: %TRUE when the text is on disk
 */
gboolean
sj_code_store_flush (SjCodeStore  *self,
                     GError      **error)
{
  g_autoptr(SjCodeStoreWriteJob) job = NULL;
  g_autofree char *code = NULL;
  gint64 end_time;
  gboolean done;

  g_assert (SJ_IS_CODE_STORE (self));

  g_clear_handle_id (&self->timeout_id, g_source_remove);

  if (self->pending_code == NULL && !self->saving)
    return TRUE;

  /* The newest text: pending, or else the one being written, which is
   * written again after that write so that the wait has a deadline. */
  code = g_strdup (self->pending_code != NULL ? self->pending_code : self->writing_code);
  job = _sj_code_store_write_job_new (self, code);
  _sj_code_store_run_write (self, job, NULL, NULL);

  end_time = g_get_monotonic_time () + (gint64)self->flush_timeout_ms * G_TIME_SPAN_MILLISECOND;
  g_mutex_lock (&job->mutex);
  while (!job->done)
    if (!g_cond_wait_until (&job->cond, &job->mutex, end_time))
      break;
  done = job->done;
  if (done && job->error != NULL)
    g_propagate_error (error, g_error_copy (job->error));
  else if (!done)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                 _("the disk did not answer within %u ms"), self->flush_timeout_ms);
  g_mutex_unlock (&job->mutex);

  if (!done || job->error != NULL)
    {
      /* Keep it so that a later flush or edit can try again. */
      if (self->pending_code == NULL)
        self->pending_code = g_steal_pointer (&code);
      return FALSE;
    }

  /* The flush's text is on disk (or a newer one is): whatever the save
   * under way reports later is older. */
  self->saving = FALSE;
  g_clear_pointer (&self->writing_code, g_free);
  g_clear_pointer (&self->pending_code, g_free);
  g_free (self->saved_code);
  self->saved_code = g_steal_pointer (&code);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);

  return TRUE;
}
