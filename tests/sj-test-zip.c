/* sj-test-zip.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Making .zip files for the import tests, two ways. sj_test_zip_build()
 * writes every byte itself: local headers with their sizes (no data
 * descriptors), no zip64, and whatever each entry claims, so a test can
 * make an entry lie about its size, its checksum, its method or its
 * encryption, which no zip program would write. sj_test_zip_write() lets
 * libarchive write a zip as another program would, and the patch helpers
 * then rewrite a field of its records (a zip bomb's sizes, a device's
 * mode).
 */

#include "config.h"

#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "sj-test-zip.h"

#define SIG_LOCAL   0x04034b50
#define SIG_CENTRAL 0x02014b50
#define SIG_END     0x06054b50

static guint32
compute_crc32 (const guint8 *data,
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

/* A .zip of @entries, with whatever they claim. */
GBytes *
sj_test_zip_build (const SjTestZipEntry *entries,
                   guint                 n_entries)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autoptr(GByteArray) central = g_byte_array_new ();

  for (guint i = 0; i < n_entries; i++)
    {
      const SjTestZipEntry *entry = &entries[i];
      g_autoptr(GBytes) packed = NULL;
      const guint8 *body = (const guint8 *) entry->data;
      gsize body_size = entry->size;
      guint method = entry->method != 0 ? entry->method : entry->deflate ? 8 : 0;
      guint32 crc = entry->crc >= 0 ? (guint32) entry->crc : compute_crc32 ((const guint8 *) entry->data, entry->size);
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
      put16 (out, (0 << 9) | (1 << 5) | 1);  /* date: 1980-01-01 */
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

/* Written by libarchive ---------------------------------------------------- */

static la_ssize_t
append_cb (struct archive *archive,
           void           *data,
           const void     *buffer,
           size_t          length)
{
  g_byte_array_append (data, buffer, length);
  return length;
}

/* A .zip of @entries as libarchive writes it. */
GByteArray *
sj_test_zip_write (const SjTestArchiveEntry *entries,
                   guint                     n_entries)
{
  GByteArray *zip = g_byte_array_new ();
  struct archive *archive = archive_write_new ();
  struct archive_entry *entry = archive_entry_new ();

  g_assert_cmpint (archive_write_set_format_zip (archive), ==, ARCHIVE_OK);
  g_assert_cmpint (archive_write_set_bytes_in_last_block (archive, 1), ==, ARCHIVE_OK);
  g_assert_cmpint (archive_write_open (archive, zip, NULL, append_cb, NULL), ==, ARCHIVE_OK);
  for (guint i = 0; i < n_entries; i++)
    {
      const SjTestArchiveEntry *e = &entries[i];
      gboolean folder = g_str_has_suffix (e->path, "/");
      g_autofree guint8 *zeros = NULL;
      gsize size = e->data != NULL ? strlen (e->data) : e->size;

      archive_entry_clear (entry);
      archive_entry_set_pathname (entry, e->path);
      archive_entry_set_filetype (entry, e->type != 0 ? e->type : folder ? AE_IFDIR : AE_IFREG);
      archive_entry_set_perm (entry, folder ? 0755 : 0644);
      if (e->type == AE_IFLNK)
        archive_entry_set_symlink (entry, e->link);
      else if (e->link != NULL)
        archive_entry_set_hardlink (entry, e->link);
      else if (!folder)
        archive_entry_set_size (entry, size);
      g_assert_cmpint (archive_write_header (archive, entry), ==, ARCHIVE_OK);
      if (e->data != NULL)
        g_assert_cmpint (archive_write_data (archive, e->data, size), ==, size);
      else if (size > 0 && e->type == 0 && !folder)
        {
          zeros = g_malloc0 (size);
          g_assert_cmpint (archive_write_data (archive, zeros, size), ==, size);
        }
    }
  g_assert_cmpint (archive_write_close (archive), ==, ARCHIVE_OK);
  archive_entry_free (entry);
  archive_write_free (archive);

  return zip;
}

static void
put_le32 (guint8  *at,
          guint32  value)
{
  at[0] = value & 0xff;
  at[1] = (value >> 8) & 0xff;
  at[2] = (value >> 16) & 0xff;
  at[3] = (value >> 24) & 0xff;
}

static guint32
get_le32 (const guint8 *at)
{
  return at[0] | at[1] << 8 | at[2] << 16 | (guint32)at[3] << 24;
}

/* Rewrites a field of every record with @signature whose field at @offset
 * is @from: the sizes in the headers, say. Returns how many it patched. */
guint
sj_test_zip_patch (GByteArray *zip,
                   const char *signature,
                   gsize       offset,
                   guint32     from,
                   guint32     to)
{
  guint patched = 0;

  for (gsize i = 0; i + offset + 4 <= zip->len; i++)
    if (memcmp (zip->data + i, signature, 4) == 0 && get_le32 (zip->data + i + offset) == from)
      {
        put_le32 (zip->data + i + offset, to);
        patched++;
      }

  return patched;
}

/* Gives the central record of @name another Unix mode. */
void
sj_test_zip_patch_mode (GByteArray *zip,
                        const char *name,
                        guint32     mode)
{
  gsize length = strlen (name);

  for (gsize i = 0; i + 46 + length <= zip->len; i++)
    if (memcmp (zip->data + i, "PK\1\2", 4) == 0 && memcmp (zip->data + i + 46, name, length) == 0)
      {
        put_le32 (zip->data + i + 38, mode << 16);
        return;
      }

  g_assert_not_reached ();
}

/* The size libarchive reads in the headers of @name, or -1. */
gint64
sj_test_zip_claimed_size (GByteArray *zip,
                          const char *name)
{
  struct archive *archive = archive_read_new ();
  struct archive_entry *entry;
  gint64 size = -1;

  archive_read_support_format_zip (archive);
  g_assert_cmpint (archive_read_open_memory (archive, zip->data, zip->len), ==, ARCHIVE_OK);
  while (archive_read_next_header (archive, &entry) == ARCHIVE_OK)
    if (g_str_equal (archive_entry_pathname (entry), name))
      size = archive_entry_size (entry);
  archive_read_free (archive);

  return size;
}
