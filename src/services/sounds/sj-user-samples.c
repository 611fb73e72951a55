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
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sj-sounds-index.h"
#include "sj-user-samples-private.h"

struct _SjUserSamples
{
  GObject              parent_instance;

  GPtrArray           *folders;   /* of SjUserFolder, in the order they were added */
  SjUserSamplesLimits  limits;
  guint                n_scanning;
  guint                n_loads;
};

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

/* Reads every folder again (files added or taken away outside the app). */
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

/**
 * sj_user_samples_dup_packs:
 *
 * What the page and the dry-run register, one pack per folder that has
 * sounds, in the order the folders were added (a later one wins on equal
 * names): `[{"id", "name", "map": {sound: [percent-encoded paths]}}]`.
 * The base of a pack is strudel-jam://sounds/user/<id>/.
 *
 * Returns: (transfer full): a JSON array
 */
JsonNode *
sj_user_samples_dup_packs (SjUserSamples *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new_immutable ();

  g_assert (SJ_IS_USER_SAMPLES (self));

  json_builder_begin_array (builder);
  for (guint i = 0; i < self->folders->len; i++)
    {
      SjUserFolder *folder = g_ptr_array_index (self->folders, i);

      if (folder->scan == NULL || folder->scan->sounds->len == 0)
        continue;

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "id");
      json_builder_add_string_value (builder, folder->id);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, folder->name);
      json_builder_set_member_name (builder, "map");
      json_builder_begin_object (builder);
      for (guint s = 0; s < folder->scan->sounds->len; s++)
        {
          SjUserSound *sound = g_ptr_array_index (folder->scan->sounds, s);

          json_builder_set_member_name (builder, sound->name);
          json_builder_begin_array (builder);
          for (guint f = 0; f < sound->files->len; f++)
            json_builder_add_string_value (builder, ((SjUserSampleFile *) g_ptr_array_index (sound->files, f))->url_path);
          json_builder_end_array (builder);
        }
      json_builder_end_object (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  return json_builder_get_root (builder);
}

/* Serving the page --------------------------------------------------------- */

typedef struct
{
  char           *path;
  SjSampleFormat  format;
  gsize           max_size;
} LoadJob;

static void
load_job_free (gpointer data)
{
  LoadJob *job = data;

  g_free (job->path);
  g_free (job);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  LoadJob *job = task_data;
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GError) error = NULL;
  GStatBuf st;
  GBytes *bytes;

  if (g_stat (job->path, &st) != 0 || !S_ISREG (st.st_mode) ||
      (mapped = g_mapped_file_new (job->path, FALSE, &error)) == NULL)
    {
      g_task_return_new_error (task, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_IO, _("It cannot be read: %s"),
                               error != NULL ? error->message : g_strerror (ENOENT));
      return;
    }
  if (g_mapped_file_get_length (mapped) > job->max_size)
    {
      g_task_return_new_error (task, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_TOO_LARGE,
                               _("It is larger than %" G_GSIZE_FORMAT " bytes"), job->max_size);
      return;
    }

  /* A copy: the file may change on disk while the page decodes it. */
  bytes = g_bytes_new (g_mapped_file_get_contents (mapped), g_mapped_file_get_length (mapped));
  if (!sj_sample_format_plays (sj_sample_format_sniff (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes))))
    {
      g_bytes_unref (bytes);
      g_task_return_new_error (task, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_CHANGED,
                               _("It is no longer audio: the folder has changed since it was read"));
      return;
    }
  g_task_return_pointer (task, bytes, (GDestroyNotify) g_bytes_unref);
}

/**
 * sj_user_samples_load_async:
 * @path: what the page asks for after strudel-jam://sounds/user/:
 *   "<folder id>/<percent-encoded path>"
 *
 * Reads a file of a folder, if a scan listed it.
 */
void
sj_user_samples_load_async (SjUserSamples       *self,
                            const char          *path,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GBytes) decoded = NULL;
  g_autofree char *id = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *folder_path = NULL;
  const SjUserSampleFile *file = NULL;
  SjUserFolder *folder = NULL;
  const char *slash;
  LoadJob *job;

  g_assert (SJ_IS_USER_SAMPLES (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_user_samples_load_async);

  if (path != NULL && (slash = strchr (path, '/')) != NULL &&
      (id = g_strndup (path, slash - path)) != NULL &&
      (folder = sj_user_samples_lookup_folder (self, id)) != NULL && folder->scan != NULL &&
      (decoded = g_uri_unescape_bytes (slash + 1, -1, NULL, NULL)) != NULL &&
      memchr (g_bytes_get_data (decoded, NULL), '\0', g_bytes_get_size (decoded)) == NULL)
    {
      relative = g_strndup (g_bytes_get_data (decoded, NULL), g_bytes_get_size (decoded));
      file = g_hash_table_lookup (folder->scan->files, relative);
    }

  if (file == NULL)
    {
      g_task_return_new_error (task, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_NOT_FOUND,
                               _("%s is not a file of your sample folders"), path != NULL ? path : "");
      return;
    }

  self->n_loads++;
  folder_path = g_file_get_path (folder->file);
  job = g_new0 (LoadJob, 1);
  job->path = g_build_filename (folder_path, file->path, NULL);
  job->format = file->format;
  job->max_size = self->limits.max_file_size;
  g_task_set_task_data (task, job, load_job_free);
  g_task_run_in_thread (task, load_thread);
}

/**
 * sj_user_samples_load_finish:
 * @content_type: (out) (optional): the file's MIME type, by what the scan
 *   found it to be
 *
 * Returns: (transfer full): the file's bytes, or %NULL with @error set
 */
GBytes *
sj_user_samples_load_finish (SjUserSamples  *self,
                             GAsyncResult   *result,
                             const char    **content_type,
                             GError        **error)
{
  LoadJob *job;

  g_assert (SJ_IS_USER_SAMPLES (self));
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  job = g_task_get_task_data (G_TASK (result));
  if (content_type != NULL)
    *content_type = sj_sample_format_get_content_type (job != NULL ? job->format : SJ_SAMPLE_FORMAT_NONE);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* A folder ----------------------------------------------------------------- */

/* A short id (12 hex digits of its URI's SHA-256), the same in every run. */
const char *
sj_user_folder_get_id (SjUserFolder *folder)
{
  return folder->id;
}

const char *
sj_user_folder_get_uri (SjUserFolder *folder)
{
  return folder->uri;
}

/* Its name, for people. */
const char *
sj_user_folder_get_name (SjUserFolder *folder)
{
  return folder->name;
}

SjUserFolderState
sj_user_folder_get_state (SjUserFolder *folder)
{
  return folder->state;
}

/* Returns: (nullable): why the folder cannot be read */
const GError *
sj_user_folder_get_error (SjUserFolder *folder)
{
  return folder->error;
}

/* Returns: (transfer none) (nullable) (element-type SjUserSound): its sounds,
 * by name, once read */
GPtrArray *
sj_user_folder_get_sounds (SjUserFolder *folder)
{
  return folder->scan != NULL ? folder->scan->sounds : NULL;
}

const SjUserSound *
sj_user_folder_lookup_sound (SjUserFolder *folder,
                             const char   *name)
{
  return folder->scan != NULL && name != NULL ? g_hash_table_lookup (folder->scan->by_name, name) : NULL;
}

/* Returns: (transfer none) (nullable) (element-type SjUserSampleProblem):
 * the files that do not play (at most SJ_USER_SAMPLES_MAX_PROBLEMS) */
GPtrArray *
sj_user_folder_get_problems (SjUserFolder *folder)
{
  return folder->scan != NULL ? folder->scan->problems : NULL;
}

/* Returns: how many files do not play, listed or not. */
guint
sj_user_folder_get_n_problems (SjUserFolder *folder)
{
  return folder->scan != NULL ? folder->scan->n_problems : 0;
}

/* Returns: how many files play. */
guint
sj_user_folder_get_n_files (SjUserFolder *folder)
{
  return folder->scan != NULL ? folder->scan->n_files : 0;
}

/* A path of at most @max characters: a long one loses its middle. */
static char *
shorten (const char *path,
         glong       max)
{
  glong length = g_utf8_strlen (path, -1);
  g_autofree char *start = NULL;

  if (length <= max)
    return g_strdup (path);
  start = g_utf8_substring (path, 0, max / 2);
  return g_strconcat (start, "…", g_utf8_offset_to_pointer (path, length - (max - max / 2 - 1)), NULL);
}

/**
 * sj_user_folder_describe_problems:
 * @max_listed: how many files to name (a long path loses its middle)
 *
 * Returns: (transfer full) (nullable): "3 files cannot be played:
 *   notes.txt (not audio), broken.wav (not a WAV file), …", or %NULL when
 *   every file plays
 */
char *
sj_user_folder_describe_problems (SjUserFolder *folder,
                                  guint         max_listed)
{
  g_autoptr(GString) list = g_string_new (NULL);
  guint n = sj_user_folder_get_n_problems (folder);
  GPtrArray *problems = sj_user_folder_get_problems (folder);
  guint listed = MIN (max_listed, problems != NULL ? problems->len : 0);

  if (n == 0)
    return NULL;

  for (guint i = 0; i < listed; i++)
    {
      const SjUserSampleProblem *problem = g_ptr_array_index (problems, i);
      g_autofree char *why = sj_user_sample_problem_describe (problem);
      g_autofree char *path = shorten (problem->path, 48);

      if (i > 0)
        g_string_append (list, _(", "));
      /* TRANSLATORS: a file that cannot be played and why: "notes.txt (not audio)" */
      g_string_append_printf (list, _("%s (%s)"), path, why);
    }
  if (listed < n)
    g_string_append (list, _(", …"));

  /* TRANSLATORS: %u is a number of files, %s the list of them */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u file cannot be played: %s",
                                       "%u files cannot be played: %s", n),
                          n, list->str);
}
