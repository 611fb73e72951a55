/* sj-sound-downloads.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * "Download for offline": the sound library's files by pack, as the
 * musician knows them (Dirt-Samples, uzu-drumkit, the piano, VCSL,
 * mridangam, the wavetables, the General MIDI soundfonts, and each drum
 * machine of tidal-drum-machines on its own), how much of each is cached,
 * and downloading a whole pack so that it plays with no network.
 *
 * Sizes: the maps do not say how large a file is, so only what is cached is
 * measured (a stat per file, in a thread) and a pack's size is known once
 * it is downloaded. "Download for offline" is an explicit request: it
 * downloads even while the "download-sounds" setting (downloads when a
 * sound is first played) is off.
 *
 * SjSoundDownloads is split by concern, the parts sharing
 * sj-sound-downloads-private.h:
 *   - this file: the object itself (its properties, signals, getters) and
 *     what it knows of each file's size, kept up to date as the cache
 *     downloads files (SjSoundCache::file-cached);
 *   - sj-sound-downloads-packs.c: which files make which pack;
 *   - sj-sound-downloads-queue.c: the download queue, feeding a pack's
 *     missing files to SjSoundCache a few at a time;
 *   - sj-sound-downloads-resume.c: the state file listing the packs to
 *     resume at the next start;
 *   - sj-sound-downloads-disk.c: what runs in a thread: counting what is
 *     cached, measuring the directory, removing packs.
 */

#include "config.h"

#include "sj-sound-downloads-private.h"

G_DEFINE_FINAL_TYPE (SjSoundDownloads, sj_sound_downloads, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ACTIVE,
  PROP_FRACTION,
  PROP_DISK_USAGE,
  PROP_USAGE_KNOWN,
  N_PROPS
};

enum {
  PACK_CHANGED,
  PROGRESS,
  FINISHED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

void
sj_sound_pack_failure_free (SjSoundPackFailure *failure)
{
  if (failure == NULL)
    return;
  g_free (failure->name);
  g_free (failure->message);
  g_free (failure);
}

static Pack *
lookup_pack (SjSoundDownloads *self,
             const char       *id)
{
  return id != NULL ? g_hash_table_lookup (self->by_id, id) : NULL;
}

static void
emit_pack_changed (SjSoundDownloads *self,
                   Pack             *pack)
{
  g_signal_emit (self, signals[PACK_CHANGED], 0, pack->id);
}

Pack *
_sj_sound_downloads_lookup_pack (SjSoundDownloads *self,
                                 const char       *id)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  return lookup_pack (self, id);
}

void
_sj_sound_downloads_emit_pack_changed (SjSoundDownloads *self,
                                       Pack             *pack)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  emit_pack_changed (self, pack);
}

/* Counts a pack's cached files from what is known of their sizes. */
void
_sj_sound_downloads_count_pack (SjSoundDownloads *self,
                                Pack             *pack)
{
  guint64 bytes = 0;
  guint n = 0;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  for (guint i = 0; i < pack->info.n_files; i++)
    {
      gint64 size = g_array_index (self->sizes, gint64, pack->first + i);

      if (size >= 0)
        {
          n++;
          bytes += size;
        }
    }
  pack->info.n_cached = n;
  pack->info.cached_bytes = bytes;
  emit_pack_changed (self, pack);
}

void
_sj_sound_downloads_notify_usage (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_USAGE_KNOWN]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DISK_USAGE]);
}

/* A file's size, as the cache or a count found it; its pack is counted
 * again. */
void
_sj_sound_downloads_set_size (SjSoundDownloads *self,
                              guint             slot,
                              gint64            size)
{
  Pack *pack = g_ptr_array_index (self->file_packs, slot);

  g_array_index (self->sizes, gint64, slot) = size;
  g_array_index (self->changed, guint, slot) = ++self->generation;
  _sj_sound_downloads_count_pack (self, pack);
  _sj_sound_downloads_notify_usage (self);
}

/* A file was downloaded, by a pack or by a sound being played. */
static void
file_cached_cb (SjSoundDownloads *self,
                const char       *pack,
                const char       *path,
                guint64           size,
                SjSoundCache     *cache)
{
  const SjLibraryFile *file = sj_sound_library_lookup_file (sj_sound_cache_get_library (cache), pack, path);
  guint slot;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  if (file == NULL || (slot = GPOINTER_TO_UINT (g_hash_table_lookup (self->slots, file))) == 0)
    return;
  _sj_sound_downloads_set_size (self, slot - 1, (gint64)size);
}


/* Signals and properties, for the other parts (their arrays are static). */

void
_sj_sound_downloads_emit_progress (SjSoundDownloads *self,
                                   Pack             *pack)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  g_signal_emit (self, signals[PROGRESS], 0, pack->id, pack->info.n_done, pack->info.n_total,
                 pack->info.downloaded_bytes);
  emit_pack_changed (self, pack);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRACTION]);
}

void
_sj_sound_downloads_emit_finished (SjSoundDownloads   *self,
                                   Pack               *pack,
                                   SjSoundPackOutcome  outcome)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  g_signal_emit (self, signals[FINISHED], 0, pack->id, (int)outcome);
}

/* A download started or ended: whether any runs, and how far they are. */
void
_sj_sound_downloads_notify_active (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRACTION]);
}

void
_sj_sound_downloads_notify_fraction (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRACTION]);
}

/* Getters ------------------------------------------------------------------- */

SjSoundCache *
sj_sound_downloads_get_cache (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  return self->cache;
}

/* Returns: (transfer none): the packs' ids, in the order they are listed */
const char * const *
sj_sound_downloads_get_packs (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  return (const char * const *)self->ids->pdata;
}

/* Returns: (nullable): the pack, as it is now; valid while @self is */
const SjSoundPackInfo *
sj_sound_downloads_get_pack (SjSoundDownloads *self,
                             const char       *id)
{
  Pack *pack;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  pack = lookup_pack (self, id);
  return pack != NULL ? &pack->info : NULL;
}

/**
 * sj_sound_downloads_get_failures:
 *
 * Returns: (transfer none) (element-type SjSoundPackFailure) (nullable):
 *   the files of the pack's last download that failed for good
 */
GPtrArray *
sj_sound_downloads_get_failures (SjSoundDownloads *self,
                                 const char       *id)
{
  Pack *pack;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  pack = lookup_pack (self, id);
  return pack != NULL ? pack->failures : NULL;
}

/* Returns: whether the cache directory was measured */
gboolean
sj_sound_downloads_get_usage_known (SjSoundDownloads *self)
{
  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  return self->usage_known;
}

/* Returns: the bytes under the cache directory, once measured */
guint64
sj_sound_downloads_get_disk_usage (SjSoundDownloads *self)
{
  guint64 total;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));

  if (!self->usage_known)
    return 0;
  total = self->other_bytes;
  for (guint i = 0; i < self->packs->len; i++)
    total += ((Pack *)g_ptr_array_index (self->packs, i))->info.cached_bytes;
  return total;
}

/**
 * _sj_sound_downloads_get_files:
 *
 * Returns: (transfer container) (element-type SjLibraryFile): the files
 *   of a pack, in order
 */
GPtrArray *
_sj_sound_downloads_get_files (SjSoundDownloads *self,
                               const char       *id)
{
  Pack *pack;
  GPtrArray *files;

  g_assert (SJ_IS_SOUND_DOWNLOADS (self));
  pack = lookup_pack (self, id);
  g_return_val_if_fail (pack != NULL, NULL);

  files = g_ptr_array_sized_new (pack->info.n_files);
  for (guint i = 0; i < pack->info.n_files; i++)
    g_ptr_array_add (files, g_ptr_array_index (self->files, pack->first + i));
  return files;
}

/* GObject ------------------------------------------------------------------- */

static void
sj_sound_downloads_dispose (GObject *object)
{
  SjSoundDownloads *self = (SjSoundDownloads *)object;

  if (self->cache != NULL)
    {
      sj_sound_downloads_suspend (self);
      g_signal_handlers_disconnect_by_data (self->cache, self);
    }

  G_OBJECT_CLASS (sj_sound_downloads_parent_class)->dispose (object);
}

static void
sj_sound_downloads_finalize (GObject *object)
{
  SjSoundDownloads *self = (SjSoundDownloads *)object;

  /* Every file asked for and every removal holds a reference. */
  g_assert (g_queue_is_empty (&self->runs));
  g_assert (self->removals->len == 0);

  g_clear_pointer (&self->packs, g_ptr_array_unref);
  g_clear_pointer (&self->ids, g_ptr_array_unref);
  g_clear_pointer (&self->by_id, g_hash_table_unref);
  g_clear_pointer (&self->files, g_ptr_array_unref);
  g_clear_pointer (&self->file_packs, g_ptr_array_unref);
  g_clear_pointer (&self->sizes, g_array_unref);
  g_clear_pointer (&self->changed, g_array_unref);
  g_clear_pointer (&self->slots, g_hash_table_unref);
  g_clear_pointer (&self->wanted, g_ptr_array_unref);
  g_clear_pointer (&self->kept, g_ptr_array_unref);
  g_clear_pointer (&self->removals, g_ptr_array_unref);
  g_clear_object (&self->state_file);
  g_clear_object (&self->cache);

  G_OBJECT_CLASS (sj_sound_downloads_parent_class)->finalize (object);
}

static void
sj_sound_downloads_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  SjSoundDownloads *self = SJ_SOUND_DOWNLOADS (object);

  switch (prop_id)
    {
    case PROP_ACTIVE:
      g_value_set_boolean (value, sj_sound_downloads_get_active (self));
      break;

    case PROP_FRACTION:
      g_value_set_double (value, sj_sound_downloads_get_fraction (self));
      break;

    case PROP_DISK_USAGE:
      g_value_set_uint64 (value, sj_sound_downloads_get_disk_usage (self));
      break;

    case PROP_USAGE_KNOWN:
      g_value_set_boolean (value, self->usage_known);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_sound_downloads_class_init (SjSoundDownloadsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_sound_downloads_dispose;
  object_class->finalize = sj_sound_downloads_finalize;
  object_class->get_property = sj_sound_downloads_get_property;

  properties[PROP_ACTIVE] =
    g_param_spec_boolean ("active", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_FRACTION] =
    g_param_spec_double ("fraction", NULL, NULL, 0.0, 1.0, 0.0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_DISK_USAGE] =
    g_param_spec_uint64 ("disk-usage", NULL, NULL, 0, G_MAXUINT64, 0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_USAGE_KNOWN] =
    g_param_spec_boolean ("usage-known", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SjSoundDownloads::pack-changed:
   * @id: the pack
   *
   * Anything sj_sound_downloads_get_pack() answers for it changed.
   */
  signals[PACK_CHANGED] =
    g_signal_new ("pack-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SjSoundDownloads::progress:
   * @id: the pack
   * @n_done: files done in its download
   * @n_total: files it has to fetch
   * @bytes: bytes it downloaded
   *
   * A file of a pack's download is done: downloaded, or failed for good.
   */
  signals[PROGRESS] =
    g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 4, G_TYPE_STRING, G_TYPE_UINT, G_TYPE_UINT, G_TYPE_UINT64);

  /**
   * SjSoundDownloads::finished:
   * @id: the pack
   * @outcome: a #SjSoundPackOutcome
   */
  signals[FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_INT);
}

static void
sj_sound_downloads_init (SjSoundDownloads *self)
{
  self->packs = g_ptr_array_new_with_free_func (_sj_sound_downloads_pack_free);
  self->ids = g_ptr_array_new ();
  self->by_id = g_hash_table_new (g_str_hash, g_str_equal);
  self->files = g_ptr_array_new ();
  self->file_packs = g_ptr_array_new ();
  self->sizes = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->changed = g_array_new (FALSE, FALSE, sizeof (guint));
  self->slots = g_hash_table_new (NULL, NULL);
  self->wanted = g_ptr_array_new_with_free_func (g_free);
  self->kept = g_ptr_array_new_with_free_func (g_free);
  self->removals = g_ptr_array_new ();
  g_queue_init (&self->runs);
}

/* Files the cache's quota evicted: what each pack holds is counted again. */
static void
trimmed_cb (SjSoundDownloads *self,
            guint64           used_bytes,
            guint             n_removed,
            SjSoundCache     *cache)
{
  if (n_removed > 0)
    sj_sound_downloads_refresh_async (self, NULL, NULL, NULL);
}

/**
 * sj_sound_downloads_new:
 * @cache: the cache the packs are downloaded into
 *
 * Nothing is counted or resumed yet: see sj_sound_downloads_refresh_async()
 * and sj_sound_downloads_resume().
 */
SjSoundDownloads *
sj_sound_downloads_new (SjSoundCache *cache)
{
  SjSoundDownloads *self;

  g_return_val_if_fail (SJ_IS_SOUND_CACHE (cache), NULL);

  self = g_object_new (SJ_TYPE_SOUND_DOWNLOADS, NULL);
  self->cache = g_object_ref (cache);
  _sj_sound_downloads_build_packs (self);
  _sj_sound_downloads_init_state (self);
  g_signal_connect_object (cache, "file-cached", G_CALLBACK (file_cached_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (cache, "trimmed", G_CALLBACK (trimmed_cb), self, G_CONNECT_SWAPPED);

  return self;
}
