/* sj-sound-cache-download.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Downloads for SjSoundCache. One download per file, however many loads
 * wait for it; at most max_active at once, the others queued in order.
 * Each attempt streams the body into "<file>.part" next to the file
 * (created afresh, so a stale one left by a crash is replaced, never
 * served), checks the byte count against Content-Length, closes it and only
 * then renames it over the file: a half-written file is never served or
 * kept. Network errors and 5xx answers are retried with a doubling delay;
 * a 404, a timeout, a truncated or oversized body are not. A sound's body
 * is sniffed as it arrives (sj_sample_format_sniff(): WAV, FLAC, Ogg, MP3,
 * AIFF, MP4): one that is not audio (a captive portal's page, a 404 page
 * served with 200) is an error, never kept or served. A download whose
 * waiters all went away is cancelled. Once a file is kept, the cache is
 * held to its quota (sj-sound-cache-quota.c). Reading the body into the
 * .part file is in sj-sound-cache-body.c.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-sound-cache-private.h"
#include "sj-user-samples.h"

/* An attempt never runs longer than this many timeouts in all (a server
 * trickling a byte at a time would never trip the idle timeout). */
#define DEADLINE_TIMEOUTS 10

typedef struct
{
  GTask           *task;
  GSource         *cancel_source;
  SjSoundDownload *download;
} Waiter;

static void attempt (SjSoundDownload *self);
static void send_hop (SjSoundDownload *self,
                      const char      *url);

static void
waiter_forget_cancellable (Waiter *waiter)
{
  if (waiter->cancel_source != NULL)
    {
      g_source_destroy (waiter->cancel_source);
      g_clear_pointer (&waiter->cancel_source, g_source_unref);
    }
}

static void
waiter_free (gpointer data)
{
  Waiter *waiter = data;

  waiter_forget_cancellable (waiter);
  g_clear_object (&waiter->task);
  g_free (waiter);
}

/* Ends the current attempt: its streams closed, its .part removed. */
static void
clear_attempt (SjSoundDownload *self)
{
  g_clear_handle_id (&self->deadline_source, g_source_remove);
  /* Dropping an unfinished body would read the rest of it first, blocking:
   * cancelling the message closes its connection instead. Nothing is
   * pending here, so no callback sees this. */
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->body);
  g_clear_object (&self->message);
  g_clear_pointer (&self->guard, _sj_fetch_guard_free);
  g_clear_pointer (&self->chunk, g_bytes_unref);
  g_clear_pointer (&self->data, g_byte_array_unref);
  self->sniffed = FALSE;
  if (self->out != NULL)
    {
      /* Closing a file stream is a local close(2): no need to wait. */
      g_output_stream_close (self->out, NULL, NULL);
      g_clear_object (&self->out);
      g_file_delete (self->part, NULL, NULL);
    }
  g_clear_object (&self->cancellable);
}

static void
start_next (SjSoundCache *cache)
{
  while (cache->active < cache->max_active && !g_queue_is_empty (&cache->queue))
    {
      SjSoundDownload *next = g_queue_pop_head (&cache->queue);

      next->link = NULL;
      cache->active++;
      attempt (next);
    }
}

/* Answers every waiter and forgets the download. */
void
_sj_sound_download_finish (SjSoundDownload *self,
                           GBytes          *bytes,
                           const GError    *error)
{
  g_autoptr(SjSoundCache) cache = self->cache;
  g_autoptr(GPtrArray) waiters = g_steal_pointer (&self->waiters);
  gboolean was_running = self->link == NULL;

  clear_attempt (self);
  g_clear_handle_id (&self->retry_source, g_source_remove);
  if (self->link != NULL)
    g_queue_delete_link (&cache->queue, self->link);
  g_hash_table_remove (cache->downloads, self->key);
  if (was_running)
    cache->active--;

  if (bytes != NULL)
    _sj_sound_cache_set_unreachable (cache, FALSE);
  if (bytes != NULL && self->file != NULL)
    _sj_sound_cache_file_cached (cache, self->file, self->key, g_bytes_get_size (bytes));
  if (bytes != NULL)
    _sj_sound_cache_downloaded (cache, g_bytes_get_size (bytes));

  for (guint i = 0; i < waiters->len; i++)
    {
      Waiter *waiter = g_ptr_array_index (waiters, i);

      waiter_forget_cancellable (waiter);
      if (self->file != NULL)
        _sj_sound_cache_answer (cache, waiter->task, bytes, error);
      else
        _sj_sound_cache_fetch_answer (waiter->task, bytes, error);
    }

  g_free (self->key);
  g_free (self->url);
  g_clear_object (&self->target);
  g_clear_object (&self->part);
  g_free (self);

  start_next (cache);
}

void
_sj_sound_download_retry_or_finish (SjSoundDownload *self,
                                    GError          *error,
                                    gboolean         retryable)
{
  g_autoptr(GError) owned = error;
  guint delay;

  clear_attempt (self);
  if (!retryable || self->attempt >= self->cache->max_attempts || self->waiters->len == 0)
    {
      _sj_sound_download_finish (self, NULL, owned);
      return;
    }

  delay = self->cache->retry_delay_ms << MIN (self->attempt - 1, 8);
  g_debug ("Retrying %s in %u ms: %s", self->url, delay, owned->message);
  self->retry_source = g_timeout_add_once (delay, (GSourceOnceFunc)attempt, self);
}

static gboolean
is_unreachable (const GError *error)
{
  return error->domain == G_RESOLVER_ERROR ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_HOST_NOT_FOUND) ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE) ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NETWORK_UNREACHABLE) ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
}

/* Sorts what went wrong in an attempt into the cache's errors. */
void
_sj_sound_download_fail_attempt (SjSoundDownload *self,
                                 const GError    *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && self->timed_out)
    _sj_sound_download_retry_or_finish (self, g_error_new_literal (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_TIMEOUT,
                                                _("the download took too long")), FALSE);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _sj_sound_download_finish (self, NULL, error);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    /* Waiting another 15 s would not help the music: no retry. */
    _sj_sound_download_retry_or_finish (self, g_error_new_literal (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_TIMEOUT,
                                                _("the connection timed out")), FALSE);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT))
    _sj_sound_download_retry_or_finish (self, g_error_new_literal (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_TRUNCATED,
                                                _("the server sent less than it announced")), FALSE);
  else if (is_unreachable (error))
    {
      /* No name resolution, no route, nobody listening: the app is offline.
       * Retrying would only keep the music waiting, and the next sounds fall
       * back at once (sj_sound_cache_get_online()). One host of the code's
       * own choosing being down says nothing of the others. */
      if (self->file != NULL)
        _sj_sound_cache_set_unreachable (self->cache, TRUE);
      _sj_sound_download_retry_or_finish (self, g_error_new (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NETWORK,
                                          "%s", error->message), FALSE);
    }
  else
    _sj_sound_download_retry_or_finish (self, g_error_new (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NETWORK,
                                        "%s", error->message), TRUE);
}

void
_sj_sound_download_fail_io (SjSoundDownload *self,
                            const GError    *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _sj_sound_download_fail_attempt (self, error);
  else
    _sj_sound_download_retry_or_finish (self, g_error_new (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_IO, "%s", error->message), FALSE);
}

GError *
_sj_sound_download_too_large (SjSoundDownload *self)
{
  g_autofree char *limit = g_format_size_full (self->max_size, G_FORMAT_SIZE_IEC_UNITS);

  return g_error_new (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_TOO_LARGE,
                      _("the file is larger than %s"), limit);
}

static void
sent_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  SjSoundDownload *self = user_data;
  g_autoptr(GError) error = NULL;
  SoupMessageHeaders *headers;
  guint status;

  if ((self->body = soup_session_send_finish (SOUP_SESSION (object), result, &error)) == NULL)
    {
      GError *refusal = _sj_fetch_guard_take_refusal (self->guard);

      /* An address the page's code may not reach: said as such, never
       * retried, and no sign of being offline. */
      if (refusal != NULL)
        _sj_sound_download_retry_or_finish (self, refusal, FALSE);
      /* Closed before the headers were whole: nothing was announced, and
       * the next connection may fare better. */
      else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT))
        _sj_sound_download_retry_or_finish (self, g_error_new_literal (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NETWORK,
                                                    _("the server closed the connection without answering")),
                         TRUE);
      else
        _sj_sound_download_fail_attempt (self, error);
      return;
    }

  status = soup_message_get_status (self->message);
  if (status == SOUP_STATUS_MOVED_PERMANENTLY || status == SOUP_STATUS_FOUND || status == SOUP_STATUS_SEE_OTHER ||
      status == SOUP_STATUS_TEMPORARY_REDIRECT || status == SOUP_STATUS_PERMANENT_REDIRECT)
    {
      g_autofree char *next = _sj_fetch_guard_redirect (self->guard, self->message, &error);

      if (next != NULL)
        {
          /* Cancelling drops the redirect's body with its connection. */
          g_cancellable_cancel (self->cancellable);
          g_clear_object (&self->body);
          g_clear_object (&self->message);
          g_clear_object (&self->cancellable);
          self->cancellable = g_cancellable_new ();
          send_hop (self, next);
          return;
        }
      if (error != NULL)
        {
          _sj_sound_download_retry_or_finish (self, g_steal_pointer (&error), FALSE);
          return;
        }
    }
  if (status == SOUP_STATUS_NOT_FOUND || status == SOUP_STATUS_GONE)
    {
      _sj_sound_download_retry_or_finish (self, g_error_new (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NOT_FOUND,
                                          _("the server answered %u"), status), FALSE);
      return;
    }
  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      _sj_sound_download_retry_or_finish (self, g_error_new (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NETWORK,
                                          _("the server answered %u"), status),
                       status >= 500 || status == 429);
      return;
    }

  headers = soup_message_get_response_headers (self->message);
  self->expected = soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH
                     ? soup_message_headers_get_content_length (headers) : -1;
  if (self->expected > (goffset)self->max_size)
    {
      _sj_sound_download_retry_or_finish (self, _sj_sound_download_too_large (self), FALSE);
      return;
    }

  if (!_sj_sound_download_prepare_part (self, &error))
    {
      _sj_sound_download_fail_io (self, error);
      return;
    }

  self->data = g_byte_array_sized_new (self->expected > 0 ? self->expected : SJ_SOUND_CACHE_CHUNK_SIZE);
  g_file_create_async (self->part, G_FILE_CREATE_PRIVATE, G_PRIORITY_DEFAULT, self->cancellable,
                       _sj_sound_download_part_created_cb, self);
}

static void
deadline_cb (gpointer user_data)
{
  SjSoundDownload *self = user_data;

  self->deadline_source = 0;
  self->timed_out = TRUE;
  g_cancellable_cancel (self->cancellable);
}

static void
attempt (SjSoundDownload *self)
{
  g_autoptr(GError) error = NULL;

  self->retry_source = 0;
  self->attempt++;
  self->timed_out = FALSE;
  self->cancellable = g_cancellable_new ();

  /* Judged as written before anything is looked up; each connection and
   * each redirect is judged again. */
  self->guard = _sj_fetch_guard_new (self->cache, self->url);
  if (!_sj_fetch_guard_check_first (self->guard, self->url, &error))
    {
      _sj_sound_download_finish (self, NULL, error);
      return;
    }

  self->deadline_source = g_timeout_add_once (self->cache->timeout_s * DEADLINE_TIMEOUTS * 1000, deadline_cb, self);
  send_hop (self, self->url);
}

/* Sends one hop of the current attempt: the address, or a redirect's. */
static void
send_hop (SjSoundDownload *self,
          const char      *url)
{
  if ((self->message = soup_message_new (SOUP_METHOD_GET, url)) == NULL)
    {
      _sj_sound_download_finish (self, NULL, &(GError) { SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_NETWORK, (char *)"invalid URL" });
      return;
    }

  _sj_fetch_guard_watch (self->guard, self->message);
  soup_session_send_async (self->cache->session, self->message, G_PRIORITY_DEFAULT, self->cancellable,
                           sent_cb, self);
}

/* A waiter that went away gets its answer at once; a download nobody waits
 * for any more is cancelled. */
static gboolean
waiter_cancelled_cb (GCancellable *cancellable,
                     gpointer      user_data)
{
  Waiter *waiter = user_data;
  SjSoundDownload *self = waiter->download;
  g_autoptr(GTask) task = g_object_ref (waiter->task);

  g_ptr_array_remove (self->waiters, waiter);
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s", _("The operation was cancelled"));

  if (self->waiters->len > 0)
    return G_SOURCE_REMOVE;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  else
    _sj_sound_download_finish (self, NULL, &(GError) { G_IO_ERROR, G_IO_ERROR_CANCELLED, (char *)"cancelled" });

  return G_SOURCE_REMOVE;
}

/* Joins the download of @key (started now when there is none), which
 * writes @url's body to @target. */
void
_sj_sound_cache_download_join_full (SjSoundCache        *cache,
                                    const char          *key,
                                    const SjLibraryFile *file,
                                    const char          *url,
                                    GFile               *target,
                                    gsize                max_size,
                                    gboolean             audio,
                                    GTask               *task)
{
  SjSoundDownload *self = g_hash_table_lookup (cache->downloads, key);
  GCancellable *cancellable = g_task_get_cancellable (task);
  Waiter *waiter;

  if (self == NULL)
    {
      g_autofree char *part_name = g_strconcat (g_file_peek_path (target), ".part", NULL);

      self = g_new0 (SjSoundDownload, 1);
      self->cache = g_object_ref (cache);
      self->key = g_strdup (key);
      self->file = file;
      self->url = g_strdup (url);
      self->max_size = max_size;
      self->audio = audio;
      self->target = g_object_ref (target);
      self->part = g_file_new_for_path (part_name);
      self->waiters = g_ptr_array_new_with_free_func (waiter_free);
      self->expected = -1;
      g_hash_table_insert (cache->downloads, self->key, self);
      g_queue_push_tail (&cache->queue, self);
      self->link = g_queue_peek_tail_link (&cache->queue);
    }

  waiter = g_new0 (Waiter, 1);
  waiter->task = g_object_ref (task);
  waiter->download = self;
  if (cancellable != NULL)
    {
      waiter->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (waiter->cancel_source, G_SOURCE_FUNC (waiter_cancelled_cb), waiter, NULL);
      g_source_attach (waiter->cancel_source, g_main_context_get_thread_default ());
    }
  g_ptr_array_add (self->waiters, waiter);

  start_next (cache);
}

void
_sj_sound_cache_download_join (SjSoundCache        *cache,
                               const SjLibraryFile *file,
                               const char          *key,
                               GTask               *task)
{
  g_autofree char *url = sj_sound_cache_get_url (cache, file->pack, file->path);
  g_autoptr(GFile) target = _sj_sound_cache_get_target (cache, file);

  _sj_sound_cache_download_join_full (cache, key, file, url, target, cache->max_size,
                                      _sj_sound_cache_file_is_audio (file), task);
}

/* Stale .part files ----------------------------------------------------------- */

/* A .part older than this is left over from a crash, not being written. */
#define STALE_PART_AGE_S (60 * 60)

static guint
remove_stale_parts (GFile        *dir,
                    guint64       before,
                    guint         depth,
                    GCancellable *cancellable)
{
  g_autoptr(GFileEnumerator) children = NULL;
  guint removed = 0;

  /* Packs nest files a few folders deep; symbolic links are not followed. */
  if (depth > 16)
    return 0;
  children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                        G_FILE_ATTRIBUTE_TIME_MODIFIED,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, cancellable, NULL);
  while (children != NULL)
    {
      g_autoptr(GFileInfo) info = g_file_enumerator_next_file (children, cancellable, NULL);
      g_autoptr(GFile) child = NULL;

      if (info == NULL)
        break;

      child = g_file_get_child (dir, g_file_info_get_name (info));

      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        removed += remove_stale_parts (child, before, depth + 1, cancellable);
      else if (g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR &&
               g_str_has_suffix (g_file_info_get_name (info), ".part") &&
               g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_TIME_MODIFIED) < before &&
               g_file_delete (child, cancellable, NULL))
        removed++;
    }

  return removed;
}

static void
clean_parts_thread (GTask        *task,
                    gpointer      source_object,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  GFile *directory = task_data;
  guint64 before = g_get_real_time () / G_USEC_PER_SEC - STALE_PART_AGE_S;

  g_task_return_int (task, remove_stale_parts (directory, before, 0, cancellable));
}

/**
 * sj_sound_cache_clean_parts_async:
 *
 * Removes the .part files a crash left behind (older than an hour, so that
 * a download in progress is never touched), in a thread. Such files are
 * never served anyway; this only gives their space back.
 */
void
sj_sound_cache_clean_parts_async (SjSoundCache        *self,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_assert (SJ_IS_SOUND_CACHE (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_sound_cache_clean_parts_async);
  g_task_set_task_data (task, g_object_ref (self->directory), g_object_unref);
  g_task_run_in_thread (task, clean_parts_thread);
}

/* Returns: how many stale .part files were removed, or -1 with @error set */
gint
sj_sound_cache_clean_parts_finish (SjSoundCache  *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  g_assert (SJ_IS_SOUND_CACHE (self));
  g_return_val_if_fail (g_task_is_valid (result, self), -1);

  return (gint)g_task_propagate_int (G_TASK (result), error);
}
