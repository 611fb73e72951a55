/* sj-user-samples-page.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the page (and the dry-run) get of the user's folders of samples:
 * the packs they register, and the files they ask for through
 * strudel-jam://sounds/user/<folder id>/<path>, read from the disk in a
 * thread, and only for files a scan listed: a path is looked up among
 * them, never joined to the folder as given, so no other file can be read.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sj-user-samples-private.h"

/* Packs -------------------------------------------------------------------- */

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
                               _("It is larger than %zu bytes"), (size_t) job->max_size);
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
