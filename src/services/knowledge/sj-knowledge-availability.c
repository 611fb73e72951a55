/* sj-knowledge-availability.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * How each sound of a strudel_knowledge answer would play now (built in,
 * cached, downloaded on first use, the built-in drum kit's voice, or not
 * at all), and which sounds play with no network: the agent must know
 * before it writes a sound the musician cannot hear.
 *
 * SjSoundCache knows, at the price of a look at every file of a sound, so
 * the answers are kept per sound and forgotten whenever the cache says
 * something changed (a file was cached, a load failed, downloads were
 * switched) or the app went on or off line. The offline listing needs to
 * know about every sound: which have a file in the cache comes from one
 * read of the cache directory, kept up to date with SjSoundCache::file-cached,
 * and the rest is the library's own data. A query then looks at the files
 * of the sounds it returns, never at all of them. A sound of a sample map
 * the code fetched (SjRemoteSamples) is known the same way, from the map.
 */

#include "config.h"

#include "sj-knowledge-private.h"

/* What sj_sound_cache_get_sound_availability() said about a sound. */
typedef struct
{
  SjSoundAvailability availability;
  SjSoundFiles        files;
} Availability;

struct _SjKnowledgeSoundInfo
{
  const SjLibrarySound *library;    /* the library sound (an alias's own), or NULL */
  guint                 computed : 1;
  guint                 known : 1;  /* the app's own sound, whose availability is known */
  guint                 built_in : 1;
  guint                 kit : 1;    /* a standard drum the kit plays when nothing else can */
  guint                 remote : 1; /* a sound of a sample map the code fetched */
};

/* The order of the offline listing: the sounds that really are there
 * first, then the kit's standard drums, the synthesizers, and last the
 * drum machines' sounds that the kit stands in for. */
enum {
  RANK_CACHED,
  RANK_KIT,
  RANK_BUILT_IN,
  RANK_KIT_IN_BANK,
};

static void
forget_availability (SjKnowledge *self)
{
  if (self->availability != NULL)
    g_hash_table_remove_all (self->availability);
}

/**
 * _sj_knowledge_forget_index:
 *
 * The sounds index changed: its positions mean other sounds now.
 */
void
_sj_knowledge_forget_index (SjKnowledge *self)
{
  g_assert (SJ_IS_KNOWLEDGE (self));

  g_clear_pointer (&self->sound_info, g_free);
  forget_availability (self);
}

void
_sj_knowledge_availability_dispose (SjKnowledge *self)
{
  if (self->sound_cache != NULL)
    g_signal_handlers_disconnect_by_data (self->sound_cache, self);
  g_clear_object (&self->sound_cache);
  if (self->remote_samples != NULL)
    g_signal_handlers_disconnect_by_data (self->remote_samples, self);
  g_clear_object (&self->remote_samples);
  g_clear_pointer (&self->availability, g_hash_table_unref);
  g_clear_pointer (&self->cached_sounds, g_hash_table_unref);
  g_clear_pointer (&self->sound_info, g_free);
}

static void
file_cached_cb (SjKnowledge  *self,
                const char   *pack,
                const char   *path,
                guint64       size,
                SjSoundCache *cache)
{
  g_assert (SJ_IS_KNOWLEDGE (self));

  if (self->cached_sounds != NULL)
    {
      const SjLibraryFile *file = sj_sound_library_lookup_file (sj_sound_cache_get_library (cache), pack, path);

      if (file != NULL)
        g_hash_table_add (self->cached_sounds, (gpointer)file->sound);
    }

  forget_availability (self);
  _sj_knowledge_emit_availability_changed (self);
}

/* A failure may mean the hosts cannot be reached: the app is offline now. */
static void
load_failed_cb (SjKnowledge  *self,
                const char   *pack,
                const char   *path,
                const GError *error,
                const char   *message,
                SjSoundCache *cache)
{
  g_assert (SJ_IS_KNOWLEDGE (self));

  forget_availability (self);
  _sj_knowledge_emit_availability_changed (self);
}

static void
allow_downloads_cb (SjKnowledge  *self,
                    GParamSpec   *pspec,
                    SjSoundCache *cache)
{
  g_assert (SJ_IS_KNOWLEDGE (self));

  forget_availability (self);
  _sj_knowledge_emit_availability_changed (self);
}

/**
 * sj_knowledge_set_sound_cache:
 * @sound_cache: (nullable): the cache the app's sounds come through
 *
 * With a cache, every sound in an answer says how it would play now, and
 * "sounds:offline" lists what plays with no network. Without one, the
 * answers say nothing of it (and the offline listing has only the
 * synthesizers).
 */
void
sj_knowledge_set_sound_cache (SjKnowledge  *self,
                              SjSoundCache *sound_cache)
{
  g_assert (SJ_IS_KNOWLEDGE (self));
  g_return_if_fail (sound_cache == NULL || SJ_IS_SOUND_CACHE (sound_cache));

  if (self->sound_cache == sound_cache)
    return;

  if (self->sound_cache != NULL)
    g_signal_handlers_disconnect_by_data (self->sound_cache, self);
  g_set_object (&self->sound_cache, sound_cache);
  g_clear_pointer (&self->cached_sounds, g_hash_table_unref);
  _sj_knowledge_forget_index (self);

  if (sound_cache != NULL)
    {
      g_signal_connect_object (sound_cache, "file-cached", G_CALLBACK (file_cached_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (sound_cache, "load-failed", G_CALLBACK (load_failed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (sound_cache, "notify::allow-downloads", G_CALLBACK (allow_downloads_cb), self,
                               G_CONNECT_SWAPPED);
    }

  _sj_knowledge_emit_availability_changed (self);
}

/* Returns: (transfer none) (nullable): the sound cache, once set */
SjSoundCache *
sj_knowledge_get_sound_cache (SjKnowledge *self)
{
  g_assert (SJ_IS_KNOWLEDGE (self));

  return self->sound_cache;
}

/* A map or one of its files was fetched, or a file failed. */
static void
remote_changed_cb (SjKnowledge *self)
{
  g_assert (SJ_IS_KNOWLEDGE (self));

  _sj_knowledge_forget_index (self);
  _sj_knowledge_emit_availability_changed (self);
}

/**
 * sj_knowledge_set_remote_samples:
 * @remote_samples: (nullable): the sample maps the code fetched
 *
 * With them, a sound of a map the code fetched says how it would play
 * (cached, downloaded, not available), as the library's sounds do, and
 * the dry-run's report knows what such a map registers (sj_dry_run_report()).
 */
void
sj_knowledge_set_remote_samples (SjKnowledge     *self,
                                 SjRemoteSamples *remote_samples)
{
  g_assert (SJ_IS_KNOWLEDGE (self));
  g_return_if_fail (remote_samples == NULL || SJ_IS_REMOTE_SAMPLES (remote_samples));

  if (self->remote_samples == remote_samples)
    return;

  if (self->remote_samples != NULL)
    g_signal_handlers_disconnect_by_data (self->remote_samples, self);
  g_set_object (&self->remote_samples, remote_samples);
  _sj_knowledge_forget_index (self);

  if (remote_samples != NULL)
    {
      g_signal_connect_object (remote_samples, "map-cached", G_CALLBACK (remote_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (remote_samples, "file-cached", G_CALLBACK (remote_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (remote_samples, "load-failed", G_CALLBACK (remote_changed_cb), self, G_CONNECT_SWAPPED);
    }

  _sj_knowledge_emit_availability_changed (self);
}

/* Returns: (transfer none) (nullable): the sample maps the code fetched, once set */
SjRemoteSamples *
sj_knowledge_get_remote_samples (SjKnowledge *self)
{
  g_assert (SJ_IS_KNOWLEDGE (self));

  return self->remote_samples;
}

/* Whether @name is a sound of a sample map the code fetched. */
static gboolean
is_remote (SjKnowledge *self,
           const char  *name)
{
  return self->remote_samples != NULL && sj_remote_samples_lookup_sound (self->remote_samples, name, NULL) != NULL;
}

/* Whether the cache can tell anything about @sound: the app's own sounds
 * only (a sound the code registered comes from wherever the code says). */
static const SjLibrarySound *
library_sound (SjKnowledge   *self,
               const SjSound *sound,
               gboolean      *known)
{
  const SjLibrarySound *found = NULL;

  *known = FALSE;
  if (!sound->prebake)
    return NULL;
  if (self->sound_cache != NULL)
    found = sj_sound_library_lookup (sj_sound_cache_get_library (self->sound_cache), sound->name);
  *known = found != NULL || g_str_equal (sound->type, "synth");

  return found != NULL && found->alias_of != NULL ? found->alias_of : found;
}

/**
 * sj_knowledge_get_sound_availability:
 * @sound: a sound of the index
 * @availability: (out): how it would play now
 * @files: (out caller-allocates) (optional): its files, how many are
 *   cached and their size (all zero for a synthesizer)
 *
 * Returns: whether it is known: %FALSE without a sound cache, and for a
 *   sound that the code registered rather than the app, unless it comes
 *   from a sample map the code fetched (sj_knowledge_set_remote_samples())
 */
gboolean
sj_knowledge_get_sound_availability (SjKnowledge         *self,
                                     const SjSound       *sound,
                                     SjSoundAvailability *availability,
                                     SjSoundFiles        *files)
{
  Availability *found;
  gboolean online;
  gboolean known;

  g_assert (SJ_IS_KNOWLEDGE (self));
  g_return_val_if_fail (sound != NULL, FALSE);
  g_return_val_if_fail (availability != NULL, FALSE);

  if (self->sound_cache == NULL)
    return FALSE;
  library_sound (self, sound, &known);
  if (!known && !is_remote (self, sound->name))
    return FALSE;

  /* Going on or off line (the hosts could not be reached, or half a
   * minute later could be again) changes every answer, with no signal. */
  online = sj_sound_cache_get_online (self->sound_cache);
  if (self->availability == NULL)
    self->availability = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  else if (online != self->availability_online)
    forget_availability (self);
  self->availability_online = online;

  if ((found = g_hash_table_lookup (self->availability, sound->name)) == NULL)
    {
      found = g_new0 (Availability, 1);
      if (known)
        found->availability = sj_sound_cache_get_sound_availability (self->sound_cache, sound->name, &found->files);
      else
        sj_remote_samples_get_sound_availability (self->remote_samples, sound->name, &found->availability,
                                                  &found->files);
      g_hash_table_insert (self->availability, g_strdup (sound->name), found);
    }

  *availability = found->availability;
  if (files != NULL)
    *files = found->files;
  return TRUE;
}

/* Offline ----------------------------------------------------------------- */

static const char *
fallback_voice_of (SjSoundLibrary       *library,
                   const SjLibrarySound *sound)
{
  const char *path = NULL;

  if (sound->n_files > 0)
    path = sound->files[0];
  else if (sound->n_notes > 0 && sound->notes[0].n_files > 0)
    path = sound->notes[0].files[0];

  return path != NULL ? sj_sound_cache_get_fallback_voice (sj_sound_library_lookup_file (library, sound->pack, path))
                      : NULL;
}

static const SjKnowledgeSoundInfo *
get_info (SjKnowledge *self,
          guint        position)
{
  SjKnowledgeSoundInfo *info;
  const SjSound *sound;
  gboolean known;

  if (self->sound_info == NULL)
    self->sound_info = g_new0 (SjKnowledgeSoundInfo, sj_sounds_index_get_n_sounds (self->sounds));

  info = &self->sound_info[position];
  if (info->computed)
    return info;

  sound = sj_sounds_index_get_sound (self->sounds, position);
  info->computed = TRUE;
  info->library = library_sound (self, sound, &known);
  info->known = known;
  info->built_in = known && info->library == NULL;
  info->remote = !known && is_remote (self, sound->name);
  info->kit = info->library != NULL && self->sound_cache != NULL &&
              sj_sound_cache_get_fallback (self->sound_cache) != NULL &&
              fallback_voice_of (sj_sound_cache_get_library (self->sound_cache), info->library) != NULL;

  return info;
}

static GHashTable *
get_cached_sounds (SjKnowledge *self)
{
  if (self->cached_sounds == NULL && self->sound_cache != NULL)
    {
      g_autoptr(GPtrArray) cached = sj_sound_cache_list_cached_sounds (self->sound_cache);

      self->cached_sounds = g_hash_table_new (NULL, NULL);
      for (guint i = 0; i < cached->len; i++)
        g_hash_table_add (self->cached_sounds, g_ptr_array_index (cached, i));
    }

  return self->cached_sounds;
}

/**
 * _sj_knowledge_get_offline:
 * @position: a sound of the index
 * @offline: (out): how it plays with no network: %SJ_SOUND_AVAILABILITY_CACHED
 *   (some or all of its files are cached), %SJ_SOUND_AVAILABILITY_KIT or
 *   %SJ_SOUND_AVAILABILITY_BUILT_IN
 *
 * Returns: whether it plays with no network at all
 */
gboolean
_sj_knowledge_get_offline (SjKnowledge         *self,
                           guint                position,
                           SjSoundAvailability *offline)
{
  const SjKnowledgeSoundInfo *info = get_info (self, position);
  GHashTable *cached;

  if (info->remote)
    {
      const SjSound *sound = sj_sounds_index_get_sound (self->sounds, position);
      SjSoundAvailability availability;
      SjSoundFiles files;

      /* Some of its files cached: those play with no network. */
      if (!sj_remote_samples_get_sound_availability (self->remote_samples, sound->name, &availability, &files) ||
          files.n_cached == 0)
        return FALSE;
      *offline = SJ_SOUND_AVAILABILITY_CACHED;
    }
  else if (info->built_in)
    *offline = SJ_SOUND_AVAILABILITY_BUILT_IN;
  else if (info->library != NULL && (cached = get_cached_sounds (self)) != NULL &&
           g_hash_table_contains (cached, info->library))
    *offline = SJ_SOUND_AVAILABILITY_CACHED;
  else if (info->kit)
    *offline = SJ_SOUND_AVAILABILITY_KIT;
  else
    return FALSE;

  return TRUE;
}

/**
 * _sj_knowledge_list_offline:
 *
 * Returns: (transfer full): the sounds that play with no network, as
 *   #SjKnowledgeHit ranked cached, kit, built in, then the drum machines'
 *   sounds the kit plays; aliases are left out (their sounds are listed)
 */
GArray *
_sj_knowledge_list_offline (SjKnowledge     *self,
                            gboolean         any_category,
                            SjSoundCategory  category)
{
  GArray *hits = g_array_new (FALSE, FALSE, sizeof (SjKnowledgeHit));
  guint n = sj_sounds_index_get_n_sounds (self->sounds);

  for (guint i = 0; i < n; i++)
    {
      const SjSound *sound = sj_sounds_index_get_sound (self->sounds, i);
      SjKnowledgeHit hit = { SJ_KNOWLEDGE_HIT_SOUND, i, SJ_MATCH_EXACT, 0, 0, NULL, sound->name, 0 };
      SjSoundAvailability offline;

      if (sound->alias || !sj_sound_in_category (sound, any_category ? SJ_SOUND_CATEGORY_ALL : category) ||
          !_sj_knowledge_get_offline (self, i, &offline))
        continue;

      if (offline == SJ_SOUND_AVAILABILITY_CACHED)
        hit.distance = RANK_CACHED;
      else if (offline == SJ_SOUND_AVAILABILITY_BUILT_IN)
        hit.distance = RANK_BUILT_IN;
      else
        hit.distance = sound->bank != NULL ? RANK_KIT_IN_BANK : RANK_KIT;
      g_array_append_val (hits, hit);
    }

  _sj_knowledge_sort_hits (self, hits);
  return hits;
}

/**
 * _sj_knowledge_keep_offline:
 *
 * Keeps the sounds among @hits that play with no network ("offline 808").
 */
void
_sj_knowledge_keep_offline (SjKnowledge *self,
                            GArray      *hits)
{
  for (guint i = hits->len; i > 0; i--)
    {
      const SjKnowledgeHit *hit = &g_array_index (hits, SjKnowledgeHit, i - 1);
      SjSoundAvailability offline;

      if (hit->kind != SJ_KNOWLEDGE_HIT_SOUND || !_sj_knowledge_get_offline (self, hit->index, &offline))
        g_array_remove_index (hits, i - 1);
    }
}
