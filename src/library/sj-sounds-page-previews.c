/* sj-sounds-page-previews.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Sounds page's rows as the sound cache sees them: how each sound
 * would play now (SjKnowledge asks SjSoundCache), followed live through
 * SjKnowledge::availability-changed; and the previews, with a spinner in
 * the row while the sound's file loads. The REPL's call returns once
 * superdough has loaded the file, so the spinner turns until the window
 * hands the outcome back (sj_sounds_page_finish_preview()). A preview that
 * had to download its file usually missed its note (superdough schedules
 * it 50 ms ahead) and is played once more from the page's buffer; one that
 * failed says why in the cache's own sentence (SjSoundCache::load-failed,
 * which the cache says once per file and kind of failure, so it is kept).
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "sj-sounds-page-private.h"

/* How far ahead the page schedules a preview (PREVIEW_LEAD_S in app.mjs):
 * a file that took longer to load missed its note. */
#define PREVIEW_LEAD_US (50 * G_TIME_SPAN_MILLISECOND)

/* States ------------------------------------------------------------------ */

/* What a row says of its sound: an icon, and the words for its tooltip and
 * for screen readers. */
static char *
describe_state (SjSoundAvailability  availability,
                const SjSoundFiles  *files,
                const char         **icon_name)
{
  switch (availability)
    {
    case SJ_SOUND_AVAILABILITY_BUILT_IN:
      *icon_name = "emblem-system-symbolic";
      return g_strdup (_("Built in"));
    case SJ_SOUND_AVAILABILITY_CACHED:
      *icon_name = "emblem-ok-symbolic";
      if (files->n_cached < files->n_files)
        /* TRANSLATORS: how many of a sound's files are downloaded, e.g. "3 of 8 downloaded" */
        return g_strdup_printf (_("%u of %u downloaded"), files->n_cached, files->n_files);
      return g_strdup (_("Downloaded"));
    case SJ_SOUND_AVAILABILITY_DOWNLOAD:
      *icon_name = "folder-download-symbolic";
      if (files->n_cached > 0)
        return g_strdup_printf (_("%u of %u downloaded; the others download when first played"),
                                files->n_cached, files->n_files);
      return g_strdup (_("Downloads when first played"));
    case SJ_SOUND_AVAILABILITY_KIT:
      *icon_name = "emblem-music-symbolic";
      return g_strdup (_("Plays the built-in drum kit offline"));
    case SJ_SOUND_AVAILABILITY_UNAVAILABLE:
    default:
      *icon_name = "network-offline-symbolic";
      return g_strdup (_("Not available offline"));
    }
}

static gboolean
get_availability (SjSoundsPage        *self,
                  const char          *name,
                  SjSoundAvailability *availability,
                  SjSoundFiles        *files)
{
  const SjSound *sound = sj_sounds_index_lookup (sj_knowledge_get_sounds (self->knowledge), name);

  return sound != NULL && sj_knowledge_get_sound_availability (self->knowledge, sound, availability, files);
}

void
_sj_sounds_page_update_row (SjSoundsPage *self,
                            SjSoundRow   *row)
{
  const char *name = sj_sound_row_get_name (row);
  const char *icon_name = NULL;
  g_autofree char *state = NULL;
  SjSoundAvailability availability;
  SjSoundFiles files;
  SjSoundsPagePreview *preview;

  if (name == NULL)
    return;

  if (get_availability (self, name, &availability, &files))
    state = describe_state (availability, &files, &icon_name);
  sj_sound_row_set_state (row, icon_name, state);
  preview = g_hash_table_lookup (self->previews, name);
  sj_sound_row_set_loading (row, preview != NULL && preview->loading);
  sj_sound_row_set_failure (row, g_hash_table_lookup (self->failures, name));
}

static void
update_rows (SjSoundsPage *self,
             const char   *name)
{
  GHashTableIter iter;
  gpointer row;

  g_hash_table_iter_init (&iter, self->rows);
  while (g_hash_table_iter_next (&iter, &row, NULL))
    if (name == NULL || g_strcmp0 (sj_sound_row_get_name (row), name) == 0)
      _sj_sounds_page_update_row (self, row);
}

/* The library sound a name plays: an alias plays its machine's files. */
static const SjLibrarySound *
library_sound (SjSoundsPage *self,
               const char   *name)
{
  const SjLibrarySound *sound;

  if (self->cache == NULL ||
      (sound = sj_sound_library_lookup (sj_sound_cache_get_library (self->cache), name)) == NULL)
    return NULL;
  return sound->alias_of != NULL ? sound->alias_of : sound;
}

static const SjLibrarySound *
library_sound_of_file (SjSoundsPage *self,
                       const char   *pack,
                       const char   *path)
{
  const SjLibraryFile *file = sj_sound_library_lookup_file (sj_sound_cache_get_library (self->cache), pack, path);

  return file != NULL ? file->sound : NULL;
}

static void
file_cached_cb (SjSoundsPage *self,
                const char   *pack,
                const char   *path,
                guint64       size,
                SjSoundCache *cache)
{
  const SjLibrarySound *sound = library_sound_of_file (self, pack, path);
  GHashTableIter iter;
  gpointer name, preview;

  g_assert (SJ_IS_SOUNDS_PAGE (self));

  if (sound == NULL)
    return;
  g_hash_table_remove (self->load_failures, sound);
  g_hash_table_iter_init (&iter, self->previews);
  while (g_hash_table_iter_next (&iter, &name, &preview))
    if (library_sound (self, name) == sound)
      ((SjSoundsPagePreview *)preview)->downloaded = TRUE;

  /* What failed may play now. */
  g_hash_table_iter_init (&iter, self->failures);
  while (g_hash_table_iter_next (&iter, &name, NULL))
    if (library_sound (self, name) == sound)
      {
        g_hash_table_iter_remove (&iter);
        update_rows (self, name);
        break;
      }
}

/* Switching downloads changes why anything failed: start afresh, as the
 * cache does. */
static void
allow_downloads_cb (SjSoundsPage *self,
                    GParamSpec   *pspec,
                    SjSoundCache *cache)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  g_hash_table_remove_all (self->load_failures);
  g_hash_table_remove_all (self->failures);
  update_rows (self, NULL);
}

/* The cache says each failure once: what it said is kept for the next
 * preview that fails the same way. */
static void
load_failed_cb (SjSoundsPage *self,
                const char   *pack,
                const char   *path,
                const GError *error,
                const char   *message,
                SjSoundCache *cache)
{
  const SjLibrarySound *sound = library_sound_of_file (self, pack, path);

  g_assert (SJ_IS_SOUNDS_PAGE (self));

  if (sound != NULL && message != NULL)
    g_hash_table_replace (self->load_failures, (gpointer)sound, g_strdup (message));
}

/* The knowledge's cache, followed for the previews. */
static void
watch_cache (SjSoundsPage *self)
{
  SjSoundCache *cache = sj_knowledge_get_sound_cache (self->knowledge);

  if (cache == self->cache)
    return;

  if (self->cache != NULL)
    g_signal_handlers_disconnect_by_data (self->cache, self);
  g_set_object (&self->cache, cache);
  g_hash_table_remove_all (self->load_failures);
  if (cache != NULL)
    {
      g_signal_connect_object (cache, "file-cached", G_CALLBACK (file_cached_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (cache, "load-failed", G_CALLBACK (load_failed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (cache, "notify::allow-downloads", G_CALLBACK (allow_downloads_cb), self,
                               G_CONNECT_SWAPPED);
    }
}

static void
availability_changed_cb (SjSoundsPage *self,
                         SjKnowledge  *knowledge)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  watch_cache (self);
  update_rows (self, NULL);
}

/* The rows follow the knowledge's sound cache. */
void
_sj_sounds_page_watch_knowledge (SjSoundsPage *self)
{
  g_assert (SJ_IS_SOUNDS_PAGE (self));

  g_signal_connect_object (self->knowledge, "availability-changed", G_CALLBACK (availability_changed_cb), self,
                           G_CONNECT_SWAPPED);
  watch_cache (self);
}

void
_sj_sounds_page_previews_init (SjSoundsPage *self)
{
  self->rows = g_hash_table_new (NULL, NULL);
  self->previews = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->failures = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->load_failures = g_hash_table_new_full (NULL, NULL, NULL, g_free);
}

void
_sj_sounds_page_previews_dispose (SjSoundsPage *self)
{
  if (self->cache != NULL)
    g_signal_handlers_disconnect_by_data (self->cache, self);
  g_clear_object (&self->cache);
  g_clear_pointer (&self->rows, g_hash_table_unref);
  g_clear_pointer (&self->previews, g_hash_table_unref);
  g_clear_pointer (&self->failures, g_hash_table_unref);
  g_clear_pointer (&self->load_failures, g_hash_table_unref);
}

/* Previews ---------------------------------------------------------------- */

void
_sj_sounds_page_start_preview (SjSoundsPage *self,
                               const char   *name)
{
  SjSoundsPagePreview *preview = g_hash_table_lookup (self->previews, name);
  SjSoundAvailability availability;

  if (preview == NULL)
    {
      preview = g_new0 (SjSoundsPagePreview, 1);
      preview->started = g_get_monotonic_time ();
      /* Only a file to download takes long enough for a spinner. */
      preview->loading = self->knowledge != NULL && get_availability (self, name, &availability, NULL) &&
                         availability == SJ_SOUND_AVAILABILITY_DOWNLOAD;
      g_hash_table_insert (self->previews, g_strdup (name), preview);
    }
  preview->pending++;
  g_hash_table_remove (self->failures, name);
  update_rows (self, name);

  _sj_sounds_page_emit_preview_requested (self, name);
}

/* The page keeps a file that failed to load and does not ask for it
 * again, so the cache may have said why before this page listened: for a
 * sound that cannot be had now, say it as the cache would. */
static char *
describe_offline (SjSoundsPage *self,
                  const char   *name)
{
  const SjSound *sound = sj_sounds_index_lookup (sj_knowledge_get_sounds (self->knowledge), name);
  g_autoptr(GError) offline = NULL;
  SjSoundAvailability availability;
  SjLibraryFile file;

  /* A preview plays variant 0; synths, soundfonts and wavetables at note 48. */
  if (sound == NULL || !get_availability (self, name, &availability, NULL) ||
      availability != SJ_SOUND_AVAILABILITY_UNAVAILABLE ||
      !sj_sound_library_resolve (sj_sound_cache_get_library (self->cache), name, 0,
                                 g_str_equal (sound->type, "sample") ? NAN : 48, &file))
    return NULL;

  offline = g_error_new_literal (SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_OFFLINE, "");
  return sj_sound_cache_describe_failure (self->cache, file.pack, file.path, offline);
}

/**
 * sj_sounds_page_finish_preview:
 * @name: the sound of a SjSoundsPage::preview-requested
 * @error: (nullable): why it could not be played, or %NULL when it played
 *
 * Stops the row's spinner, or plays the sound once more when its file was
 * downloaded too late for the first note. A failure is shown in the row.
 *
 * Returns: (transfer full) (nullable): why the preview failed, in a
 *   sentence to show, or %NULL when it played or was cancelled
 */
char *
sj_sounds_page_finish_preview (SjSoundsPage *self,
                               const char   *name,
                               const GError *error)
{
  SjSoundsPagePreview *preview;
  const SjLibrarySound *sound;
  const char *reason;
  char *message;

  g_assert (SJ_IS_SOUNDS_PAGE (self));
  g_return_val_if_fail (name != NULL, NULL);

  preview = g_hash_table_lookup (self->previews, name);
  if (preview != NULL && preview->pending > 0)
    preview->pending--;

  if (error == NULL && preview != NULL && preview->downloaded && !preview->replayed &&
      g_get_monotonic_time () - preview->started >= PREVIEW_LEAD_US)
    {
      preview->replayed = TRUE;
      preview->pending++;
      _sj_sounds_page_emit_preview_requested (self, name);
      return NULL;
    }

  if (preview != NULL && preview->pending == 0)
    g_hash_table_remove (self->previews, name);

  if (error == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      update_rows (self, name);
      return NULL;
    }

  /* The cache's sentence names the sound and says why; the page's own
   * error ("Decoding failed") says less. */
  sound = library_sound (self, name);
  reason = sound != NULL ? g_hash_table_lookup (self->load_failures, sound) : NULL;
  if (reason != NULL)
    message = g_strdup (reason);
  else if ((message = describe_offline (self, name)) == NULL)
    /* TRANSLATORS: a sound's name and why it could not be played */
    message = g_strdup_printf (_("%s could not be played: %s"), name, error->message);

  g_hash_table_replace (self->failures, g_strdup (name), g_strdup (message));
  update_rows (self, name);

  return message;
}

