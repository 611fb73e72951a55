/* sj-user-samples.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The user's own folders of samples ("Add a Folder of Samples…" on the
 * Sounds page). Each folder is read in a thread (sj-user-samples-scan.c)
 * into a sample map, its sub-folders the sounds and their files the
 * variants, as Strudel's own folder import names them; files that cannot
 * play are listed with the reason.
 *
 * Each folder is a pack of its own for the page,
 * strudel-jam://sounds/user/<folder id>/<path>, the id a hash of its URI so
 * that it stays the same across runs. The page registers the packs with
 * samples(map, base) and no prebake, as the website registers imported
 * sounds, so they are "user" sounds in the sounds tab, and after the
 * library, so that a name of the library is replaced as a later samples()
 * call replaces it. Its requests are answered from the disk here, and only
 * for files a scan listed: no other path can be read through them.
 *
 * The folders are a list of URIs (what the file chooser gives: in a Flatpak,
 * a path of the document portal, which stays valid), kept in GSettings by
 * the application through the "folders" property. A URI, unlike a path, is
 * always valid UTF-8, which a GSettings string must be.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-sounds-index.h"
#include "sj-user-samples-private.h"

G_DEFINE_FINAL_TYPE (SjUserSamples, sj_user_samples, G_TYPE_OBJECT)

G_DEFINE_QUARK (sj-user-samples-error-quark, sj_user_samples_error)

enum {
  PROP_0,
  PROP_FOLDERS,
  PROP_BUSY,
  N_PROPS
};

enum {
  CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
folder_free (gpointer data)
{
  SjUserFolder *folder = data;

  g_cancellable_cancel (folder->cancellable);
  g_clear_object (&folder->cancellable);
  g_clear_object (&folder->file);
  g_clear_pointer (&folder->scan, _sj_user_scan_free);
  g_clear_error (&folder->error);
  g_free (folder->id);
  g_free (folder->uri);
  g_free (folder->name);
  g_free (folder);
}

static void
sj_user_samples_finalize (GObject *object)
{
  SjUserSamples *self = (SjUserSamples *)object;

  g_clear_pointer (&self->folders, g_ptr_array_unref);

  G_OBJECT_CLASS (sj_user_samples_parent_class)->finalize (object);
}

static void
sj_user_samples_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  SjUserSamples *self = SJ_USER_SAMPLES (object);

  switch (prop_id)
    {
    case PROP_FOLDERS:
      g_value_take_boxed (value, sj_user_samples_dup_folder_uris (self));
      break;

    case PROP_BUSY:
      g_value_set_boolean (value, sj_user_samples_get_busy (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_user_samples_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  SjUserSamples *self = SJ_USER_SAMPLES (object);

  switch (prop_id)
    {
    case PROP_FOLDERS:
      sj_user_samples_set_folder_uris (self, g_value_get_boxed (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_user_samples_class_init (SjUserSamplesClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sj_user_samples_finalize;
  object_class->get_property = sj_user_samples_get_property;
  object_class->set_property = sj_user_samples_set_property;

  /**
   * SjUserSamples:folders:
   *
   * The folders' URIs, in the order they were added (the "sample-folders"
   * setting).
   */
  properties[PROP_FOLDERS] =
    g_param_spec_boxed ("folders", NULL, NULL, G_TYPE_STRV,
                        (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /**
   * SjUserSamples:busy:
   *
   * Whether a folder is being read.
   */
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SjUserSamples::changed:
   *
   * A folder was added, removed or read again: its sounds, its problems
   * or its state changed. Folders and what they hold stay valid until the
   * next emission.
   */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sj_user_samples_init (SjUserSamples *self)
{
  self->folders = g_ptr_array_new_with_free_func (folder_free);
  self->limits.max_depth = SJ_USER_SAMPLES_MAX_DEPTH;
  self->limits.max_entries = SJ_USER_SAMPLES_MAX_ENTRIES;
  self->limits.max_files = SJ_USER_SAMPLES_MAX_FILES;
  self->limits.max_file_size = SJ_USER_SAMPLES_MAX_FILE_SIZE;
}

SjUserSamples *
sj_user_samples_new (void)
{
  return g_object_new (SJ_TYPE_USER_SAMPLES, NULL);
}

void
_sj_user_samples_set_limits (SjUserSamples             *self,
                             const SjUserSamplesLimits *limits)
{
  g_assert (SJ_IS_USER_SAMPLES (self));

  self->limits = *limits;
}

/* Returns: how many files the page was served. */
guint
_sj_user_samples_get_n_loads (SjUserSamples *self)
{
  g_assert (SJ_IS_USER_SAMPLES (self));

  return self->n_loads;
}

/* Scanning ----------------------------------------------------------------- */

typedef struct
{
  GFile               *file;
  char                *name;
  SjUserSamplesLimits  limits;
  guint                generation;
} ScanJob;

static void
scan_job_free (gpointer data)
{
  ScanJob *job = data;

  g_object_unref (job->file);
  g_free (job->name);
  g_free (job);
}

static void
scan_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  ScanJob *job = task_data;
  GError *error = NULL;
  SjUserScan *scan = _sj_user_scan_run (job->file, job->name, &job->limits, cancellable, &error);

  if (scan == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, scan, (GDestroyNotify) _sj_user_scan_free);
}

/* Whether a sound of the page's own (the library, the synths) has @name:
 * the folder's sound then plays instead, which the Sounds page says. */
static gboolean
is_built_in (const char *name)
{
  static SjSoundsIndex *built_in;

  if (g_once_init_enter (&built_in))
    {
      SjSoundsIndex *index = sj_sounds_index_new ();

      sj_sounds_index_load_bundled (index);
      g_once_init_leave (&built_in, index);
    }

  return sj_sounds_index_lookup (built_in, name) != NULL;
}

static void
scan_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  SjUserSamples *self = SJ_USER_SAMPLES (object);
  SjUserFolder *folder = user_data;
  ScanJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(SjUserScan) scan = NULL;
  g_autoptr(GError) error = NULL;

  scan = g_task_propagate_pointer (G_TASK (result), &error);
  self->n_scanning--;
  if (self->n_scanning == 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);

  /* A folder removed, or read again, meanwhile. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      !g_ptr_array_find (self->folders, folder, NULL) || folder->generation != job->generation)
    return;

  g_clear_error (&folder->error);
  if (scan == NULL)
    {
      folder->state = SJ_USER_FOLDER_FAILED;
      folder->error = g_steal_pointer (&error);
      g_clear_pointer (&folder->scan, _sj_user_scan_free);
    }
  else
    {
      for (guint i = 0; i < scan->sounds->len; i++)
        {
          SjUserSound *sound = g_ptr_array_index (scan->sounds, i);

          sound->replaces = is_built_in (sound->name);
        }
      folder->state = SJ_USER_FOLDER_READY;
      g_clear_pointer (&folder->scan, _sj_user_scan_free);
      folder->scan = g_steal_pointer (&scan);
    }

  g_debug ("Sample folder %s: %u sounds, %u files, %u problems", folder->uri,
           folder->scan ? folder->scan->sounds->len : 0, sj_user_folder_get_n_files (folder),
           sj_user_folder_get_n_problems (folder));
  g_signal_emit (self, signals[CHANGED], 0);
}

/* The scan in progress is dropped; what the last one found is served until
 * the new one is done. */
static void
start_scan (SjUserSamples *self,
            SjUserFolder  *folder)
{
  g_autoptr(GTask) task = NULL;
  ScanJob *job;

  g_cancellable_cancel (folder->cancellable);
  g_clear_object (&folder->cancellable);
  folder->cancellable = g_cancellable_new ();
  folder->generation++;
  folder->state = SJ_USER_FOLDER_SCANNING;

  job = g_new0 (ScanJob, 1);
  job->file = g_object_ref (folder->file);
  job->name = g_file_get_basename (folder->file);
  job->limits = self->limits;
  job->generation = folder->generation;

  /* The task keeps the service alive; the folder is looked for again when
   * it is done. */
  task = g_task_new (self, folder->cancellable, scan_done_cb, folder);
  g_task_set_source_tag (task, start_scan);
  g_task_set_task_data (task, job, scan_job_free);
  if (self->n_scanning++ == 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
  g_task_run_in_thread (task, scan_thread);
}

/* Folders ------------------------------------------------------------------ */

static SjUserFolder *
folder_new (const char *uri)
{
  SjUserFolder *folder = g_new0 (SjUserFolder, 1);
  g_autofree char *checksum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, uri, -1);
  g_autofree char *basename = NULL;

  folder->uri = g_strdup (uri);
  folder->id = g_strndup (checksum, 12);
  folder->file = g_file_new_for_uri (uri);
  basename = g_file_get_basename (folder->file);
  folder->name = g_filename_display_name (basename != NULL ? basename : uri);
  folder->cancellable = g_cancellable_new ();

  return folder;
}

static SjUserFolder *
find_uri (GPtrArray  *folders,
          const char *uri,
          guint      *position)
{
  for (guint i = 0; i < folders->len; i++)
    {
      SjUserFolder *folder = g_ptr_array_index (folders, i);

      if (g_str_equal (folder->uri, uri))
        {
          if (position != NULL)
            *position = i;
          return folder;
        }
    }
  return NULL;
}

/* Returns: (transfer full): the folders' URIs, in order. */
char **
sj_user_samples_dup_folder_uris (SjUserSamples *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_assert (SJ_IS_USER_SAMPLES (self));

  for (guint i = 0; i < self->folders->len; i++)
    g_strv_builder_add (builder, ((SjUserFolder *) g_ptr_array_index (self->folders, i))->uri);
  return g_strv_builder_end (builder);
}

/**
 * sj_user_samples_set_folder_uris:
 * @uris: (nullable): folders' URIs (the "sample-folders" setting)
 *
 * Makes the folders exactly @uris (the first SJ_USER_SAMPLES_MAX_FOLDERS,
 * each once): folders already there are kept as they are, new ones are
 * read.
 */
void
sj_user_samples_set_folder_uris (SjUserSamples      *self,
                                 const char * const *uris)
{
  g_autoptr(GPtrArray) folders = g_ptr_array_new_with_free_func (folder_free);
  g_autoptr(GPtrArray) added = g_ptr_array_new ();
  g_auto(GStrv) before = sj_user_samples_dup_folder_uris (self);
  g_auto(GStrv) after = NULL;

  g_assert (SJ_IS_USER_SAMPLES (self));

  for (guint i = 0; uris != NULL && uris[i] != NULL && folders->len < SJ_USER_SAMPLES_MAX_FOLDERS; i++)
    {
      SjUserFolder *folder;
      guint position;

      if (*uris[i] == '\0' || find_uri (folders, uris[i], NULL) != NULL)
        continue;

      if (find_uri (self->folders, uris[i], &position) != NULL)
        g_ptr_array_add (folders, g_ptr_array_steal_index (self->folders, position));
      else
        {
          folder = folder_new (uris[i]);
          g_ptr_array_add (folders, folder);
          g_ptr_array_add (added, folder);
        }
    }

  /* What is left in self->folders was removed. */
  g_ptr_array_unref (self->folders);
  self->folders = g_steal_pointer (&folders);
  for (guint i = 0; i < added->len; i++)
    start_scan (self, g_ptr_array_index (added, i));

  after = sj_user_samples_dup_folder_uris (self);
  if (!g_strv_equal ((const char * const *) before, (const char * const *) after))
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FOLDERS]);
      g_signal_emit (self, signals[CHANGED], 0);
    }
}

/**
 * sj_user_samples_add_folder:
 * @folder: a folder the user chose
 *
 * Adds @folder and reads it; a folder already there is read again.
 *
 * Returns: (transfer none) (nullable): the folder, or %NULL with @error
 *   set (too many folders, or not a folder on this computer)
 */
SjUserFolder *
sj_user_samples_add_folder (SjUserSamples  *self,
                            GFile          *folder,
                            GError        **error)
{
  g_autofree char *uri = NULL;
  g_autofree char *path = NULL;
  SjUserFolder *found;

  g_assert (SJ_IS_USER_SAMPLES (self));
  g_return_val_if_fail (G_IS_FILE (folder), NULL);

  uri = g_file_get_uri (folder);
  if ((found = find_uri (self->folders, uri, NULL)) != NULL)
    {
      start_scan (self, found);
      g_signal_emit (self, signals[CHANGED], 0);
      return found;
    }

  if ((path = g_file_get_path (folder)) == NULL)
    {
      g_set_error_literal (error, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_NOT_LOCAL,
                           _("The folder is not on this computer"));
      return NULL;
    }
  if (self->folders->len >= SJ_USER_SAMPLES_MAX_FOLDERS)
    {
      g_set_error (error, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_TOO_MANY_FOLDERS,
                   _("At most %d folders of samples can be added: remove one first"), SJ_USER_SAMPLES_MAX_FOLDERS);
      return NULL;
    }

  found = folder_new (uri);
  g_ptr_array_add (self->folders, found);
  start_scan (self, found);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FOLDERS]);
  g_signal_emit (self, signals[CHANGED], 0);

  return found;
}

/**
 * sj_user_samples_remove_folder:
 * @id: the folder's id
 *
 * Removes a folder: its sounds are gone with the next #SjUserSamples::changed.
 *
 * Returns: whether there was such a folder
 */
gboolean
sj_user_samples_remove_folder (SjUserSamples *self,
                               const char    *id)
{
  SjUserFolder *folder;
  guint position;

  g_assert (SJ_IS_USER_SAMPLES (self));

  if ((folder = sj_user_samples_lookup_folder (self, id)) == NULL ||
      !g_ptr_array_find (self->folders, folder, &position))
    return FALSE;

  g_ptr_array_remove_index (self->folders, position);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FOLDERS]);
  g_signal_emit (self, signals[CHANGED], 0);

  return TRUE;
}

/**
 * sj_user_samples_rescan_folder:
 * @id: the folder's id
 *
 * Reads a folder again (files added or taken away outside the app).
 *
 * Returns: whether there was such a folder
 */
gboolean
sj_user_samples_rescan_folder (SjUserSamples *self,
                               const char    *id)
{
  SjUserFolder *folder;

  g_assert (SJ_IS_USER_SAMPLES (self));

  if ((folder = sj_user_samples_lookup_folder (self, id)) == NULL)
    return FALSE;
  start_scan (self, folder);
  g_signal_emit (self, signals[CHANGED], 0);
  return TRUE;
}

/* Reads every folder again. */
void
sj_user_samples_rescan (SjUserSamples *self)
{
  g_assert (SJ_IS_USER_SAMPLES (self));

  for (guint i = 0; i < self->folders->len; i++)
    start_scan (self, g_ptr_array_index (self->folders, i));
  if (self->folders->len > 0)
    g_signal_emit (self, signals[CHANGED], 0);
}

gboolean
sj_user_samples_get_busy (SjUserSamples *self)
{
  g_assert (SJ_IS_USER_SAMPLES (self));

  return self->n_scanning > 0;
}

guint
sj_user_samples_get_n_folders (SjUserSamples *self)
{
  g_assert (SJ_IS_USER_SAMPLES (self));

  return self->folders->len;
}

/* Returns: (transfer none): valid until the next #SjUserSamples::changed */
SjUserFolder *
sj_user_samples_get_folder (SjUserSamples *self,
                            guint          position)
{
  g_assert (SJ_IS_USER_SAMPLES (self));
  g_return_val_if_fail (position < self->folders->len, NULL);

  return g_ptr_array_index (self->folders, position);
}

/* Returns: (transfer none) (nullable): the folder with this id */
SjUserFolder *
sj_user_samples_lookup_folder (SjUserSamples *self,
                               const char    *id)
{
  g_assert (SJ_IS_USER_SAMPLES (self));

  for (guint i = 0; id != NULL && i < self->folders->len; i++)
    {
      SjUserFolder *folder = g_ptr_array_index (self->folders, i);

      if (g_str_equal (folder->id, id))
        return folder;
    }
  return NULL;
}
