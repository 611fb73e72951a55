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
 * opened, and only to read their first bytes.
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

/* Formats ------------------------------------------------------------------ */

/* An MPEG audio frame header: the sync bits, and no reserved version,
 * layer (ADTS AAC has layer 0), bit rate or sample rate. */
static gboolean
is_mpeg_frame (const guint8 *data)
{
  guint version = (data[1] >> 3) & 3;
  guint layer = (data[1] >> 1) & 3;
  guint bitrate = data[2] >> 4;
  guint rate = (data[2] >> 2) & 3;

  return data[0] == 0xff && (data[1] & 0xe0) == 0xe0 && version != 1 && layer != 0 && bitrate != 15 && rate != 3;
}

/**
 * sj_sample_format_sniff:
 * @data: a file's first bytes (SJ_SAMPLE_FORMAT_SNIFF_BYTES are enough)
 *
 * Returns: what the bytes say the file is: RIFF/WAVE (or RF64), fLaC,
 *   OggS, an ID3 tag or an MPEG frame; AIFF and MP4 are recognised as
 *   audio the page does not decode
 */
SjSampleFormat
sj_sample_format_sniff (const guint8 *data,
                        gsize         length)
{
  g_return_val_if_fail (data != NULL || length == 0, SJ_SAMPLE_FORMAT_NONE);

  if (length >= 12 && (memcmp (data, "RIFF", 4) == 0 || memcmp (data, "RF64", 4) == 0) &&
      memcmp (data + 8, "WAVE", 4) == 0)
    return SJ_SAMPLE_FORMAT_WAV;
  if (length >= 4 && memcmp (data, "fLaC", 4) == 0)
    return SJ_SAMPLE_FORMAT_FLAC;
  if (length >= 4 && memcmp (data, "OggS", 4) == 0)
    return SJ_SAMPLE_FORMAT_OGG;
  if (length >= 3 && memcmp (data, "ID3", 3) == 0)
    return SJ_SAMPLE_FORMAT_MP3;
  if (length >= 12 && memcmp (data, "FORM", 4) == 0 &&
      (memcmp (data + 8, "AIFF", 4) == 0 || memcmp (data + 8, "AIFC", 4) == 0))
    return SJ_SAMPLE_FORMAT_AIFF;
  if (length >= 8 && memcmp (data + 4, "ftyp", 4) == 0)
    return SJ_SAMPLE_FORMAT_MP4;
  if (length >= 3 && is_mpeg_frame (data))
    return SJ_SAMPLE_FORMAT_MP3;

  return SJ_SAMPLE_FORMAT_NONE;
}

/* Returns: the format a file's name promises, by its extension. */
SjSampleFormat
sj_sample_format_from_name (const char *name)
{
  static const struct {
    const char     *extension;
    SjSampleFormat  format;
  } extensions[] = {
    { "wav", SJ_SAMPLE_FORMAT_WAV }, { "wave", SJ_SAMPLE_FORMAT_WAV },
    { "flac", SJ_SAMPLE_FORMAT_FLAC },
    { "ogg", SJ_SAMPLE_FORMAT_OGG }, { "oga", SJ_SAMPLE_FORMAT_OGG }, { "opus", SJ_SAMPLE_FORMAT_OGG },
    { "mp3", SJ_SAMPLE_FORMAT_MP3 },
    { "aif", SJ_SAMPLE_FORMAT_AIFF }, { "aiff", SJ_SAMPLE_FORMAT_AIFF }, { "aifc", SJ_SAMPLE_FORMAT_AIFF },
    { "m4a", SJ_SAMPLE_FORMAT_MP4 }, { "mp4", SJ_SAMPLE_FORMAT_MP4 }, { "aac", SJ_SAMPLE_FORMAT_MP4 },
  };
  const char *dot = name != NULL ? strrchr (name, '.') : NULL;

  if (dot == NULL || dot == name)
    return SJ_SAMPLE_FORMAT_NONE;
  for (guint i = 0; i < G_N_ELEMENTS (extensions); i++)
    if (g_ascii_strcasecmp (dot + 1, extensions[i].extension) == 0)
      return extensions[i].format;

  return SJ_SAMPLE_FORMAT_NONE;
}

/* Returns: whether the page decodes @format (WAV, FLAC, Ogg, MP3). */
gboolean
sj_sample_format_plays (SjSampleFormat format)
{
  return format == SJ_SAMPLE_FORMAT_WAV || format == SJ_SAMPLE_FORMAT_FLAC ||
         format == SJ_SAMPLE_FORMAT_OGG || format == SJ_SAMPLE_FORMAT_MP3;
}

const char *
sj_sample_format_get_content_type (SjSampleFormat format)
{
  switch (format)
    {
    case SJ_SAMPLE_FORMAT_WAV:
      return "audio/wav";
    case SJ_SAMPLE_FORMAT_FLAC:
      return "audio/flac";
    case SJ_SAMPLE_FORMAT_OGG:
      return "audio/ogg";
    case SJ_SAMPLE_FORMAT_MP3:
      return "audio/mpeg";
    case SJ_SAMPLE_FORMAT_AIFF:
      return "audio/aiff";
    case SJ_SAMPLE_FORMAT_MP4:
      return "audio/mp4";
    case SJ_SAMPLE_FORMAT_NONE:
    default:
      return "application/octet-stream";
    }
}

static const char *
format_name (SjSampleFormat format)
{
  static const char * const names[] = { "", "WAV", "FLAC", "Ogg", "MP3", "AIFF", "M4A" };

  return format < G_N_ELEMENTS (names) ? names[format] : "";
}

/**
 * sj_user_sample_problem_describe:
 *
 * Returns: (transfer full): why the file does not play, in a few words:
 *   "not audio", "not a WAV file"…
 */
char *
sj_user_sample_problem_describe (const SjUserSampleProblem *problem)
{
  g_return_val_if_fail (problem != NULL, NULL);

  switch (problem->kind)
    {
    case SJ_USER_SAMPLE_PROBLEM_NOT_AUDIO:
      return g_strdup (_("not audio"));
    case SJ_USER_SAMPLE_PROBLEM_NOT_FORMAT:
      /* TRANSLATORS: %s is a file format: WAV, FLAC, Ogg, MP3 */
      return g_strdup_printf (_("not a %s file"), format_name (problem->format));
    case SJ_USER_SAMPLE_PROBLEM_UNSUPPORTED:
      /* TRANSLATORS: %s is a file format: AIFF or M4A */
      return g_strdup_printf (_("%s does not play here: use WAV, FLAC, Ogg or MP3"), format_name (problem->format));
    case SJ_USER_SAMPLE_PROBLEM_EMPTY:
      return g_strdup (_("empty"));
    case SJ_USER_SAMPLE_PROBLEM_TOO_LARGE:
      return g_strdup_printf (_("larger than %d MB"), SJ_USER_SAMPLES_MAX_FILE_SIZE / (1024 * 1024));
    case SJ_USER_SAMPLE_PROBLEM_UNREADABLE:
      return g_strdup (_("cannot be read"));
    case SJ_USER_SAMPLE_PROBLEM_SAME_NAME:
      return g_strdup (_("its sound has another file of this name"));
    case SJ_USER_SAMPLE_PROBLEM_BAD_NAME:
      return g_strdup (_("the folder’s name cannot name a sound: it is too long or not text"));
    case SJ_USER_SAMPLE_PROBLEM_TOO_DEEP:
      return g_strdup_printf (_("more than %d folders down: not looked into"), SJ_USER_SAMPLES_MAX_DEPTH);
    case SJ_USER_SAMPLE_PROBLEM_LOOP:
      return g_strdup (_("a link to a folder already read"));
    case SJ_USER_SAMPLE_PROBLEM_TOO_MANY:
      return g_strdup (_("not looked at: the folder has too many files"));
    default:
      g_return_val_if_reached (NULL);
    }
}

/* Names -------------------------------------------------------------------- */

/**
 * sj_user_samples_sound_name:
 * @folder_name: a folder's name (UTF-8 or not)
 *
 * The sound a folder's files make, as superdough's registerSound()
 * writes it: lower-cased, each run of white space one "_".
 *
 * Returns: (transfer full) (nullable): the name, or %NULL when it cannot
 *   be one (not UTF-8, empty, longer than SJ_USER_SAMPLES_MAX_NAME_BYTES)
 */
char *
sj_user_samples_sound_name (const char *folder_name)
{
  g_autofree char *lower = NULL;
  GString *name;
  gboolean in_space = FALSE;

  if (folder_name == NULL || *folder_name == '\0' || !g_utf8_validate (folder_name, -1, NULL))
    return NULL;

  lower = g_utf8_strdown (folder_name, -1);
  name = g_string_new (NULL);
  for (const char *p = lower; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isspace (c))
        {
          if (!in_space)
            g_string_append_c (name, '_');
          in_space = TRUE;
          continue;
        }
      in_space = FALSE;
      g_string_append_unichar (name, c);
    }

  if (name->len > SJ_USER_SAMPLES_MAX_NAME_BYTES)
    {
      g_string_free (name, TRUE);
      return NULL;
    }
  return g_string_free (name, FALSE);
}

/**
 * sj_user_samples_name_is_writable:
 *
 * Whether mini-notation can spell @name as one step (krill's step_char:
 * letters, digits, "-", "#", ".", "^", "_"), so that s("name") plays it.
 */
gboolean
sj_user_samples_name_is_writable (const char *name)
{
  if (name == NULL || *name == '\0' || g_str_equal (name, ".") || g_str_equal (name, "_") ||
      g_str_equal (name, "-") || g_str_equal (name, "~"))
    return FALSE;

  for (const char *p = name; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (!g_unichar_isalpha (c) && !(c >= '0' && c <= '9') && strchr ("~-#.^_", (int) c) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* Returns: @path percent-encoded for a URL, its "/" kept. */
char *
_sj_user_samples_escape (const char *path)
{
  return g_uri_escape_bytes ((const guint8 *) path, strlen (path), "/");
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

/* @a and @b (case-folded) as Strudel's localeCompare(…, {numeric: true})
 * orders them: a run of digits by its value, so that "kick 2" comes before
 * "kick 10", as a musician numbers the files. */
static int
compare_natural (const char *a,
                 const char *b)
{
  while (*a != '\0' && *b != '\0')
    {
      if (g_ascii_isdigit (*a) && g_ascii_isdigit (*b))
        {
          const char *end_a, *end_b;
          gsize len_a, len_b;
          int order;

          while (*a == '0' && g_ascii_isdigit (a[1]))
            a++;
          while (*b == '0' && g_ascii_isdigit (b[1]))
            b++;
          for (end_a = a; g_ascii_isdigit (*end_a); end_a++)
            ;
          for (end_b = b; g_ascii_isdigit (*end_b); end_b++)
            ;
          len_a = end_a - a;
          len_b = end_b - b;
          if (len_a != len_b)
            return len_a < len_b ? -1 : 1;
          if ((order = strncmp (a, b, len_a)) != 0)
            return order;
          a = end_a;
          b = end_b;
          continue;
        }
      if (*a != *b)
        return (guchar) *a < (guchar) *b ? -1 : 1;
      a++;
      b++;
    }
  return (guchar) *a - (guchar) *b;
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

  if ((order = compare_natural (fold_a, fold_b)) != 0 || (order = strcmp (base_a, base_b)) != 0)
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
