/* sj-user-samples-scan.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Reads a folder of the user's samples, in a worker thread, and names its
 * sounds as the Strudel website's "import sounds" does
 * (website/src/repl/idbutils.mjs, registerSamplesFromDB()):
 *
 *  - a file's sound is the name of the folder it is directly in: the
 *    sub-folder "kick" gives "kick" (however deep it is), and the files
 *    directly in the folder that was added give a sound named after it;
 *  - the name is registered as superdough's registerSound() writes it:
 *    lower-cased, each run of white space made one "_";
 *  - a sound's files, sorted by file name, are its variants (s("kick:1")
 *    is the second); two files of one sound with the same file name keep
 *    the first (the website keeps one per name too).
 *
 * Where the website decides by the name's extension (only .wav and .mp3),
 * the first bytes decide here: a WAV, FLAC, Ogg or MP3 file plays whatever
 * it is called, and anything else is listed with the reason. Hidden files
 * and folders are left out, as the file chooser leaves them. Sorting
 * ignores case and takes numbers by their value first (as the website's
 * localeCompare(…, {numeric: true, sensitivity: 'base'}) does for the
 * usual names: "kick 2" before "kick 10"), and
 * folders whose names differ only in case make one sound (the website
 * would keep only the last).
 *
 * A scan is bounded: how deep it goes, how many entries it looks at, how
 * many files it takes and how large each may be; a link back to a folder
 * already scanned is not followed again. Nothing but regular files is ever
 * opened, and only to read their first bytes. The rules for formats, names
 * and order themselves are in sj-user-samples-names.c.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sj-user-samples-private.h"

/* A folder being read: its sound, named once its first playable file is
 * found (a folder of folders needs no name). */
typedef struct
{
  const char *name;      /* the folder's own name, in the file system's encoding */
  const char *rel;       /* its path in the scanned folder, "" for the folder itself */
  char       *sound;
  gboolean    named;
} Dir;

typedef struct
{
  const SjUserSamplesLimits *limits;
  GCancellable              *cancellable;
  GHashTable                *visited;   /* "device:inode" of the folders read */
  GHashTable                *groups;    /* sound name → GPtrArray of SjUserSampleFile */
  GPtrArray                 *problems;
  char                      *root_display;  /* the folder's name, for its own problems */
  guint                      n_problems;
  guint                      n_entries;
  guint                      n_files;
  gboolean                   stopped;
} Walk;

static void
file_free (gpointer data)
{
  SjUserSampleFile *file = data;

  if (file == NULL)
    return;
  g_free (file->path);
  g_free (file->display);
  g_free (file->url_path);
  g_free (file);
}

static void
sound_free (gpointer data)
{
  SjUserSound *sound = data;

  g_free (sound->name);
  g_ptr_array_unref (sound->files);
  g_free (sound);
}

static void
problem_free (gpointer data)
{
  SjUserSampleProblem *problem = data;

  g_free (problem->path);
  g_free (problem);
}

void
_sj_user_scan_free (SjUserScan *scan)
{
  if (scan == NULL)
    return;

  g_clear_pointer (&scan->files, g_hash_table_unref);
  g_clear_pointer (&scan->by_name, g_hash_table_unref);
  g_clear_pointer (&scan->sounds, g_ptr_array_unref);
  g_clear_pointer (&scan->problems, g_ptr_array_unref);
  g_free (scan);
}

/* Walking ------------------------------------------------------------------ */

static void
add_problem (Walk                    *walk,
             const char              *rel,
             SjUserSampleProblemKind  kind,
             SjSampleFormat           format)
{
  SjUserSampleProblem *problem;

  walk->n_problems++;
  if (walk->problems->len >= SJ_USER_SAMPLES_MAX_PROBLEMS)
    return;

  problem = g_new0 (SjUserSampleProblem, 1);
  problem->path = *rel != '\0' ? g_filename_display_name (rel) : g_strdup (walk->root_display);
  problem->kind = kind;
  problem->format = format;
  g_ptr_array_add (walk->problems, problem);
}

/* Returns: (nullable): the sound of @dir's files; its name is checked on
 * the first one, and a name that cannot be is said once. */
static const char *
dir_sound (Walk *walk,
           Dir  *dir)
{
  if (!dir->named)
    {
      dir->named = TRUE;
      if ((dir->sound = sj_user_samples_sound_name (dir->name)) == NULL)
        add_problem (walk, dir->rel, SJ_USER_SAMPLE_PROBLEM_BAD_NAME, SJ_SAMPLE_FORMAT_NONE);
    }
  return dir->sound;
}

/* Returns: the first bytes of a regular file, or -1. */
static gssize
read_head (const char *path,
           guint8     *head,
           gsize       size)
{
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);
  gssize n;

  if (fd < 0)
    return -1;
  do
    n = read (fd, head, size);
  while (n < 0 && errno == EINTR);
  g_close (fd, NULL);

  return n;
}

static void
check_file (Walk           *walk,
            Dir            *dir,
            const char     *abs,
            const char     *rel,
            const char     *name,
            const GStatBuf *st)
{
  SjSampleFormat named = sj_sample_format_from_name (name);
  guint8 head[SJ_SAMPLE_FORMAT_SNIFF_BYTES];
  SjUserSampleFile *file;
  const char *sound;
  GPtrArray *group;
  SjSampleFormat format;
  gssize n;

  if (st->st_size == 0)
    {
      add_problem (walk, rel, SJ_USER_SAMPLE_PROBLEM_EMPTY, named);
      return;
    }
  if ((gsize) st->st_size > walk->limits->max_file_size)
    {
      add_problem (walk, rel, SJ_USER_SAMPLE_PROBLEM_TOO_LARGE, named);
      return;
    }
  if ((n = read_head (abs, head, sizeof head)) < 0)
    {
      add_problem (walk, rel, SJ_USER_SAMPLE_PROBLEM_UNREADABLE, named);
      return;
    }

  format = sj_sample_format_sniff (head, n);
  if (!sj_sample_format_plays (format))
    {
      if (format != SJ_SAMPLE_FORMAT_NONE)
        add_problem (walk, rel, SJ_USER_SAMPLE_PROBLEM_UNSUPPORTED, format);
      else if (sj_sample_format_plays (named))
        add_problem (walk, rel, SJ_USER_SAMPLE_PROBLEM_NOT_FORMAT, named);
      else if (named != SJ_SAMPLE_FORMAT_NONE)
        add_problem (walk, rel, SJ_USER_SAMPLE_PROBLEM_UNSUPPORTED, named);
      else
        add_problem (walk, rel, SJ_USER_SAMPLE_PROBLEM_NOT_AUDIO, named);
      return;
    }

  if (walk->n_files >= walk->limits->max_files)
    {
      add_problem (walk, rel, SJ_USER_SAMPLE_PROBLEM_TOO_MANY, format);
      walk->stopped = TRUE;
      return;
    }
  if ((sound = dir_sound (walk, dir)) == NULL)
    return;

  file = g_new0 (SjUserSampleFile, 1);
  file->path = g_strdup (rel);
  file->display = g_filename_display_name (rel);
  file->url_path = _sj_user_samples_escape (rel);
  file->format = format;
  file->size = st->st_size;
  walk->n_files++;

  if ((group = g_hash_table_lookup (walk->groups, sound)) == NULL)
    {
      group = g_ptr_array_new_with_free_func (file_free);
      g_hash_table_insert (walk->groups, g_strdup (sound), group);
    }
  g_ptr_array_add (group, file);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char **) a, *(const char **) b);
}

static void
walk_dir (Walk       *walk,
          Dir        *dir,
          const char *abs,
          guint       depth)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) handle = NULL;
  const char *name;

  if ((handle = g_dir_open (abs, 0, NULL)) == NULL)
    {
      add_problem (walk, dir->rel, SJ_USER_SAMPLE_PROBLEM_UNREADABLE, SJ_SAMPLE_FORMAT_NONE);
      return;
    }
  while ((name = g_dir_read_name (handle)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add (names, g_strdup (name));
  g_clear_pointer (&handle, g_dir_close);
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len && !walk->stopped; i++)
    {
      const char *child = g_ptr_array_index (names, i);
      g_autofree char *child_abs = g_build_filename (abs, child, NULL);
      g_autofree char *child_rel = *dir->rel != '\0' ? g_build_filename (dir->rel, child, NULL) : g_strdup (child);
      GStatBuf st;

      if (g_cancellable_is_cancelled (walk->cancellable))
        {
          walk->stopped = TRUE;
          return;
        }
      if (++walk->n_entries > walk->limits->max_entries)
        {
          add_problem (walk, child_rel, SJ_USER_SAMPLE_PROBLEM_TOO_MANY, SJ_SAMPLE_FORMAT_NONE);
          walk->stopped = TRUE;
          return;
        }

      /* Links are followed, to files and to folders. */
      if (g_stat (child_abs, &st) != 0)
        add_problem (walk, child_rel, SJ_USER_SAMPLE_PROBLEM_UNREADABLE, sj_sample_format_from_name (child));
      else if (S_ISDIR (st.st_mode))
        {
          char *key = g_strdup_printf ("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT,
                                       (guint64) st.st_dev, (guint64) st.st_ino);
          Dir sub = { child, child_rel, NULL, FALSE };

          if (depth + 1 > walk->limits->max_depth)
            {
              g_free (key);
              add_problem (walk, child_rel, SJ_USER_SAMPLE_PROBLEM_TOO_DEEP, SJ_SAMPLE_FORMAT_NONE);
            }
          else if (!g_hash_table_add (walk->visited, key))
            add_problem (walk, child_rel, SJ_USER_SAMPLE_PROBLEM_LOOP, SJ_SAMPLE_FORMAT_NONE);
          else
            walk_dir (walk, &sub, child_abs, depth + 1);
          g_free (sub.sound);
        }
      else if (!S_ISREG (st.st_mode))
        /* A pipe or a device is never opened: reading it could block. */
        add_problem (walk, child_rel, SJ_USER_SAMPLE_PROBLEM_NOT_AUDIO, SJ_SAMPLE_FORMAT_NONE);
      else
        check_file (walk, dir, child_abs, child_rel, child, &st);
    }
}

/* Files of one sound: by file name, ignoring case and numbering first;
 * equal names by their bytes, then their path, so that the order never
 * depends on the disk's. */
static int
compare_files (gconstpointer a,
               gconstpointer b)
{
  const SjUserSampleFile *fa = *(const SjUserSampleFile **) a;
  const SjUserSampleFile *fb = *(const SjUserSampleFile **) b;
  g_autofree char *base_a = g_path_get_basename (fa->display);
  g_autofree char *base_b = g_path_get_basename (fb->display);
  g_autofree char *fold_a = g_utf8_casefold (base_a, -1);
  g_autofree char *fold_b = g_utf8_casefold (base_b, -1);
  int order;

  if ((order = _sj_user_samples_compare_natural (fold_a, fold_b)) != 0 || (order = strcmp (base_a, base_b)) != 0)
    return order;
  return strcmp (fa->path, fb->path);
}

static int
compare_sounds (gconstpointer a,
                gconstpointer b)
{
  return strcmp ((*(const SjUserSound **) a)->name, (*(const SjUserSound **) b)->name);
}

/* The sounds, from the files found, each file once per name. */
static void
build_sounds (Walk       *walk,
              SjUserScan *scan)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, walk->groups);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GPtrArray *group = value;
      SjUserSound *sound = g_new0 (SjUserSound, 1);
      g_autofree char *previous = NULL;

      sound->name = g_strdup (key);
      sound->writable = sj_user_samples_name_is_writable (sound->name);
      sound->files = g_ptr_array_new_with_free_func (file_free);
      g_ptr_array_sort (group, compare_files);
      for (guint i = 0; i < group->len; i++)
        {
          SjUserSampleFile *file = g_ptr_array_index (group, i);
          g_autofree char *base = g_path_get_basename (file->path);

          if (previous != NULL && g_str_equal (previous, base))
            {
              add_problem (walk, file->path, SJ_USER_SAMPLE_PROBLEM_SAME_NAME, file->format);
              continue;
            }
          g_free (previous);
          previous = g_steal_pointer (&base);
          g_ptr_array_add (sound->files, g_steal_pointer (&group->pdata[i]));
          g_hash_table_insert (scan->files, file->path, file);
        }
      g_ptr_array_add (scan->sounds, sound);
    }

  g_ptr_array_sort (scan->sounds, compare_sounds);
  for (guint i = 0; i < scan->sounds->len; i++)
    {
      SjUserSound *sound = g_ptr_array_index (scan->sounds, i);

      g_hash_table_insert (scan->by_name, sound->name, sound);
      scan->n_files += sound->files->len;
    }
}

/**
 * _sj_user_scan_run:
 * @folder: the folder the user added
 * @folder_name: its name, in the file system's encoding: the sound of
 *   the files directly in it
 *
 * Reads @folder (blocking: call it in a thread).
 *
 * Returns: (transfer full) (nullable): what it holds, or %NULL with
 *   @error set when the folder itself cannot be read
 */
SjUserScan *
_sj_user_scan_run (GFile                      *folder,
                   const char                 *folder_name,
                   const SjUserSamplesLimits  *limits,
                   GCancellable               *cancellable,
                   GError                    **error)
{
  g_autoptr(SjUserScan) scan = g_new0 (SjUserScan, 1);
  g_autofree char *path = g_file_get_path (folder);
  Dir root = { folder_name, "", NULL, FALSE };
  Walk walk = { 0 };
  GStatBuf st;

  if (path == NULL)
    {
      g_set_error_literal (error, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_NOT_LOCAL,
                           _("The folder is not on this computer"));
      return NULL;
    }
  if (g_stat (path, &st) != 0)
    {
      int saved = errno;

      g_set_error (error, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_IO, _("The folder cannot be read: %s"),
                   g_strerror (saved));
      return NULL;
    }
  if (!S_ISDIR (st.st_mode))
    {
      g_set_error_literal (error, SJ_USER_SAMPLES_ERROR, SJ_USER_SAMPLES_ERROR_IO, _("It is not a folder"));
      return NULL;
    }

  walk.limits = limits;
  walk.cancellable = cancellable;
  walk.visited = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  walk.groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  walk.problems = g_ptr_array_new_with_free_func (problem_free);
  walk.root_display = g_filename_display_name (folder_name);
  g_hash_table_add (walk.visited, g_strdup_printf ("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT,
                                                   (guint64) st.st_dev, (guint64) st.st_ino));

  walk_dir (&walk, &root, path, 0);
  g_free (root.sound);

  scan->sounds = g_ptr_array_new_with_free_func (sound_free);
  scan->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  scan->files = g_hash_table_new (g_str_hash, g_str_equal);
  if (!g_cancellable_set_error_if_cancelled (cancellable, error))
    build_sounds (&walk, scan);
  scan->problems = g_steal_pointer (&walk.problems);
  scan->n_problems = walk.n_problems;

  g_hash_table_unref (walk.visited);
  g_hash_table_unref (walk.groups);
  g_free (walk.root_display);

  if (g_cancellable_is_cancelled (cancellable))
    return NULL;
  return g_steal_pointer (&scan);
}
