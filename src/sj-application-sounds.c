/* sj-application-sounds.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What SjApplication knows about Strudel and its sounds, shared by every
 * window and kept when a window or its page restarts, each made on first
 * use: the sounds index (the cache of the page's last snapshot, or the
 * sounds the page registers offline, then every snapshot the page posts,
 * written back once they settle), the knowledge over it and the bundled
 * reference, the skills, the sound cache with its settings and the drum
 * kit behind it, the remote sample maps, the user's sample folders and the
 * packs downloaded for offline. Kept apart from sj-application.c, which
 * starts, parses the command line, opens windows and quits.
 */

#include "config.h"

#include "sj-application-private.h"
#include "sj-drum-kit.h"
#include "sj-knowledge.h"
#include "sj-resources.h"

/* Snapshots come in bursts while code registers samples: the cache is
 * written once they have settled. */
#define SAVE_SOUNDS_DELAY_MS 1000

/* Sounds ------------------------------------------------------------------ */

void
_sj_application_load_sounds_cache (SjApplication *self)
{
  g_autoptr(GFile) file = sj_sounds_index_get_cache_file ();
  g_autoptr(GError) error = NULL;

  if (sj_sounds_index_load_cache (self->sounds, file, &error))
    return;

  /* A missing or broken cache is no loss: the page reports its sounds
   * again as soon as it runs. Until then, the ones it registers offline. */
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    g_message ("The sound cache %s could not be read: %s", g_file_peek_path (file), error->message);
  sj_sounds_index_load_bundled (self->sounds);
}

void
_sj_application_save_sounds_cache (SjApplication *self)
{
  g_autoptr(GFile) file = sj_sounds_index_get_cache_file ();
  g_autoptr(GError) error = NULL;

  g_clear_handle_id (&self->save_sounds_source, g_source_remove);

  /* The cache only speeds up lookups: failing to write it costs nothing but
   * this warning. */
  if (!sj_sounds_index_save_file (self->sounds, file, &error))
    g_warning ("The sound cache %s could not be written: %s", g_file_peek_path (file), error->message);
}

static gboolean
save_sounds_cb (gpointer user_data)
{
  SjApplication *self = user_data;

  g_assert (SJ_IS_APPLICATION (self));

  self->save_sounds_source = 0;
  _sj_application_save_sounds_cache (self);

  return G_SOURCE_REMOVE;
}

/**
 * sj_application_update_sounds:
 * @snapshot: the page's sound registry (see sj_sound_snapshot_validate())
 *
 * Replaces the app's sounds with @snapshot and schedules writing the cache.
 * An invalid snapshot is logged and leaves everything as it was.
 */
void
sj_application_update_sounds (SjApplication *self,
                              JsonObject    *snapshot)
{
  g_autoptr(GError) error = NULL;

  g_assert (SJ_IS_APPLICATION (self));
  g_return_if_fail (snapshot != NULL);

  if (!sj_sounds_index_load_snapshot (self->sounds, snapshot, &error))
    {
      g_message ("Ignoring a sound snapshot: %s", error->message);
      return;
    }

  if (self->save_sounds_source == 0)
    self->save_sounds_source = g_timeout_add (SAVE_SOUNDS_DELAY_MS, save_sounds_cb, self);
}

/* Returns: (transfer none): the sounds the app knows, kept up to date. */
SjSoundsIndex *
_sj_application_get_sounds (SjApplication *self)
{
  g_assert (SJ_IS_APPLICATION (self));

  return self->sounds;
}

/**
 * sj_application_get_knowledge:
 *
 * Builds the knowledge on first use rather than at start-up: reading the
 * bundled reference takes a moment that the first page load should not
 * wait for.
 *
 * Returns: (transfer none): lookups over the reference and the app's sounds
 */
SjKnowledge *
sj_application_get_knowledge (SjApplication *self)
{
  g_assert (SJ_IS_APPLICATION (self));

  if (self->knowledge == NULL)
    {
      self->knowledge = sj_knowledge_new (sj_reference_index_get_bundled (), self->sounds);
      /* Sounds say how they would play: cached, downloaded, the kit's voice. */
      sj_knowledge_set_sound_cache (self->knowledge, sj_application_get_sound_cache (self));
      /* And so do those of the sample maps the code fetched. */
      sj_knowledge_set_remote_samples (self->knowledge, sj_application_get_remote_samples (self));
    }

  return self->knowledge;
}

/**
 * sj_application_get_skills:
 *
 * Loads the skills on first use: the bundled ones and the musician's,
 * with the disabled set in the app's settings. Every window's agent and
 * the Skills page share them.
 *
 * Returns: (transfer none): the app's skills registry
 */
SjSkillRegistry *
sj_application_get_skills (SjApplication *self)
{
  g_assert (SJ_IS_APPLICATION (self));

  if (self->skills == NULL)
    {
      g_autoptr(GSettings) settings = g_settings_new (APP_ID);

      self->skills = sj_skill_registry_new (settings);
      for (guint i = 0; i < sj_skill_registry_get_errors (self->skills)->len; i++)
        g_message ("%s", ((GError *) g_ptr_array_index (sj_skill_registry_get_errors (self->skills), i))->message);
    }

  return self->skills;
}

static GBytes *
drum_kit_fallback (const char  *voice,
                   guint        variant,
                   GError     **error)
{
  return sj_drum_kit_lookup (voice, (int) MIN (variant, (guint) G_MAXINT), error);
}

/**
 * sj_application_get_sound_cache:
 *
 * The cache of the sound library's files, which answers the page's sound
 * requests: created on first use, downloading only while the
 * "download-sounds" setting allows it.
 *
 * Returns: (transfer none): the app's sound cache
 */
SjSoundCache *
sj_application_get_sound_cache (SjApplication *self)
{
  g_assert (SJ_IS_APPLICATION (self));

  if (self->sound_cache == NULL)
    {
      self->sound_cache = sj_sound_cache_new (sj_sound_library_get_default (), NULL);
      /* What a crash left half-written is never served; give its space back. */
      sj_sound_cache_clean_parts_async (self->sound_cache, NULL, NULL, NULL);
      if (self->settings == NULL)
        self->settings = g_settings_new (APP_ID);
      g_settings_bind (self->settings, "download-sounds", self->sound_cache, "allow-downloads", G_SETTINGS_BIND_GET);
      g_settings_bind (self->settings, "allow-local-sample-hosts", self->sound_cache, "allow-local-hosts",
                       G_SETTINGS_BIND_GET);
      g_settings_bind (self->settings, "sound-cache-limit-mb", self->sound_cache, "limit-mb", G_SETTINGS_BIND_DEFAULT);
      /* A standard drum that cannot be had plays the built-in kit's voice. */
      sj_sound_cache_set_fallback (self->sound_cache, drum_kit_fallback);
    }

  return self->sound_cache;
}

/**
 * sj_application_get_remote_samples:
 *
 * The sample maps the code's own samples() loads from the network, and
 * their files: downloaded once with the sound cache, kept in
 * $XDG_CACHE_HOME/strudel-jam/sounds/remote.
 *
 * Returns: (transfer none): the app's remote samples
 */
SjRemoteSamples *
sj_application_get_remote_samples (SjApplication *self)
{
  g_assert (SJ_IS_APPLICATION (self));

  if (self->remote_samples == NULL)
    self->remote_samples = sj_remote_samples_new (sj_application_get_sound_cache (self), NULL);

  return self->remote_samples;
}

/**
 * sj_application_get_user_samples:
 *
 * The user's own folders of samples, kept in the "sample-folders" setting
 * and read again at every start: created on first use.
 *
 * Returns: (transfer none): the app's sample folders
 */
SjUserSamples *
sj_application_get_user_samples (SjApplication *self)
{
  g_assert (SJ_IS_APPLICATION (self));

  if (self->user_samples == NULL)
    {
      self->user_samples = sj_user_samples_new ();
      if (self->settings == NULL)
        self->settings = g_settings_new (APP_ID);
      g_settings_bind (self->settings, "sample-folders", self->user_samples, "folders", G_SETTINGS_BIND_DEFAULT);
    }

  return self->user_samples;
}

/**
 * sj_application_get_sound_downloads:
 *
 * The packs downloaded for offline ("Download for offline" in the Sounds
 * page), created on first use: the packs that were downloading when the
 * app last quit, crashed or was killed go on from there.
 *
 * Returns: (transfer none): the app's pack downloads
 */
SjSoundDownloads *
sj_application_get_sound_downloads (SjApplication *self)
{
  g_assert (SJ_IS_APPLICATION (self));

  if (self->sound_downloads == NULL)
    {
      self->sound_downloads = sj_sound_downloads_new (sj_application_get_sound_cache (self));
      sj_sound_downloads_resume (self->sound_downloads);
    }

  return self->sound_downloads;
}
