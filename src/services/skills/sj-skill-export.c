/* sj-skill-export.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Writing skills as .zip files: sj_skill_export_zip() for sharing one, and
 * the writer under it, which the tests also use to build hostile
 * archives (so every field of an entry may be made to lie). It writes
 * local headers with their sizes (no data descriptors), no zip64, and a
 * fixed date, so the same skill always exports to the same bytes. The
 * reader is sj-skill-import.c.
 */

#include "config.h"

#include <string.h>

#include "sj-skill-private.h"

#define SIG_LOCAL   0x04034b50
#define SIG_CENTRAL 0x02014b50
#define SIG_END     0x06054b50

guint32
_sj_skill_crc32 (const guint8 *data,
                 gsize         length)
{
  static guint32 table[256];
  static gsize initialized;
  guint32 crc = 0xffffffff;

  if (g_once_init_enter (&initialized))
    {
      for (guint32 i = 0; i < 256; i++)
        {
          guint32 c = i;

          for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xedb88320 ^ (c >> 1) : c >> 1;
          table[i] = c;
        }
      g_once_init_leave (&initialized, 1);
    }

  for (gsize i = 0; i < length; i++)
    crc = table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);

  return crc ^ 0xffffffff;
}

static void
put16 (GByteArray *out,
       guint       value)
{
  guint8 bytes[2] = { value & 0xff, (value >> 8) & 0xff };

  g_byte_array_append (out, bytes, 2);
}

static void
put32 (GByteArray *out,
       guint32     value)
{
  guint8 bytes[4] = { value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff, (value >> 24) & 0xff };

  g_byte_array_append (out, bytes, 4);
}

static GBytes *
deflate_raw (const char *data,
             gsize       size)
{
  g_autoptr(GZlibCompressor) compressor = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_RAW, 9);
  g_autoptr(GBytes) input = g_bytes_new_static (data, size);
  g_autoptr(GInputStream) memory = g_memory_input_stream_new_from_bytes (input);
  g_autoptr(GInputStream) stream = g_converter_input_stream_new (memory, G_CONVERTER (compressor));
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();

  if (g_output_stream_splice (out, stream, G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                              NULL, NULL) < 0)
    return NULL;

  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
}

/**
 * _sj_skill_zip_build:
 *
 * Returns: (transfer full): a .zip of @entries, with whatever they claim
 */
GBytes *
_sj_skill_zip_build (const SjZipEntry *entries,
                     guint             n_entries)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autoptr(GByteArray) central = g_byte_array_new ();

  for (guint i = 0; i < n_entries; i++)
    {
      const SjZipEntry *entry = &entries[i];
      g_autoptr(GBytes) packed = NULL;
      const guint8 *body = (const guint8 *) entry->data;
      gsize body_size = entry->size;
      guint method = entry->method != 0 ? entry->method : entry->deflate ? 8 : 0;
      guint32 crc = entry->crc >= 0 ? (guint32) entry->crc : _sj_skill_crc32 ((const guint8 *) entry->data, entry->size);
      guint32 declared = entry->declared_size >= 0 ? (guint32) entry->declared_size : (guint32) entry->size;
      guint32 mode = entry->mode != 0 ? entry->mode : 0100644;
      guint32 offset = out->len;
      gsize name_length = strlen (entry->name);

      if (entry->deflate)
        {
          packed = deflate_raw (entry->data, entry->size);
          body = g_bytes_get_data (packed, &body_size);
        }

      put32 (out, SIG_LOCAL);
      put16 (out, 20);
      put16 (out, entry->flags);
      put16 (out, method);
      put16 (out, 0);              /* time: 00:00 */
      put16 (out, (0 << 9) | (1 << 5) | 1);  /* date: 1980-01-01, so exports are reproducible */
      put32 (out, crc);
      put32 (out, body_size);
      put32 (out, declared);
      put16 (out, name_length);
      put16 (out, 0);
      g_byte_array_append (out, (const guint8 *) entry->name, name_length);
      g_byte_array_append (out, body, body_size);

      put32 (central, SIG_CENTRAL);
      put16 (central, (3 << 8) | 20);  /* made on Unix: the mode is in the external attributes */
      put16 (central, 20);
      put16 (central, entry->flags);
      put16 (central, method);
      put16 (central, 0);
      put16 (central, (0 << 9) | (1 << 5) | 1);
      put32 (central, crc);
      put32 (central, body_size);
      put32 (central, declared);
      put16 (central, name_length);
      put16 (central, 0);
      put16 (central, 0);
      put16 (central, 0);
      put16 (central, 0);
      put32 (central, mode << 16);
      put32 (central, offset);
      g_byte_array_append (central, (const guint8 *) entry->name, name_length);
    }

  {
    guint32 central_offset = out->len;

    g_byte_array_append (out, central->data, central->len);
    put32 (out, SIG_END);
    put16 (out, 0);
    put16 (out, 0);
    put16 (out, n_entries);
    put16 (out, n_entries);
    put32 (out, central->len);
    put32 (out, central_offset);
    put16 (out, 0);
  }

  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

/**
 * sj_skill_export_zip:
 * @destination: the .zip to write (replaced if it exists)
 *
 * Writes @skill's folder as a .zip with one top folder named after it,
 * which sj_skill_registry_import_zip() (here or on another computer)
 * takes back.
 */
gboolean
sj_skill_export_zip (SjSkill       *skill,
                     GFile         *destination,
                     GCancellable  *cancellable,
                     GError       **error)
{
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GArray) entries = g_array_new (FALSE, TRUE, sizeof (SjZipEntry));
  g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GBytes) zip = NULL;

  g_return_val_if_fail (SJ_IS_SKILL (skill), FALSE);
  g_return_val_if_fail (G_IS_FILE (destination), FALSE);

  children = g_file_enumerate_children (sj_skill_get_folder (skill),
                                        G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, cancellable, error);
  if (children == NULL)
    return FALSE;

  for (;;)
    {
      GFileInfo *info = NULL;
      GFile *child = NULL;
      SjZipEntry entry = { 0 };
      char *contents = NULL;
      gsize length = 0;

      if (!g_file_enumerator_iterate (children, &info, &child, cancellable, error))
        return FALSE;
      if (info == NULL)
        break;
      /* The loader allowed regular files only; anything since is left out. */
      if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR || entries->len >= SJ_SKILL_MAX_FILES)
        continue;
      if (!g_file_load_contents (child, cancellable, &contents, &length, NULL, error))
        return FALSE;
      g_ptr_array_add (keep, contents);

      entry.name = g_strdup_printf ("%s/%s", sj_skill_get_name (skill), g_file_info_get_name (info));
      g_ptr_array_add (keep, (gpointer) entry.name);
      entry.data = contents;
      entry.size = length;
      entry.deflate = TRUE;
      entry.declared_size = -1;
      entry.crc = -1;
      g_array_append_val (entries, entry);
    }

  zip = _sj_skill_zip_build ((SjZipEntry *) entries->data, entries->len);
  return g_file_replace_contents (destination, g_bytes_get_data (zip, NULL), g_bytes_get_size (zip), NULL, FALSE,
                                  G_FILE_CREATE_REPLACE_DESTINATION, NULL, cancellable, error);
}
