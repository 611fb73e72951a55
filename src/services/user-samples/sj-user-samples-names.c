/* sj-user-samples-names.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What SjUserSamples decides from a file's first bytes and a folder's
 * name, with no file system: which formats play (the first bytes, not the
 * extension, say what a file is), why a file does not, the sound a folder
 * names as superdough's registerSound() writes it, whether mini-notation
 * can spell it, and the order of a sound's files as the Strudel website
 * sorts them. sj-user-samples-scan.c uses them while it walks a folder.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "sj-user-samples-private.h"

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

/* Order -------------------------------------------------------------------- */

/* @a and @b (case-folded) as Strudel's localeCompare(…, {numeric: true})
 * orders them: a run of digits by its value, so that "kick 2" comes before
 * "kick 10", as a musician numbers the files. */
int
_sj_user_samples_compare_natural (const char *a,
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
