/* sj-test-zip.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* An entry of a zip written byte by byte, so that every field may lie. */
typedef struct
{
  const char *name;
  const char *data;
  gsize       size;
  gboolean    deflate;
  guint32     mode;           /* Unix mode; 0 for a regular file, 0644 */
  guint16     flags;          /* general purpose bits (1: encrypted) */
  guint16     method;         /* 0: stored, or deflated when @deflate */
  gint64      declared_size;  /* -1: the real size */
  gint64      crc;            /* -1: the real CRC-32 */
} SjTestZipEntry;

/* A plain stored or deflated file whose headers tell the truth. */
#define SJ_TEST_ZIP_FILE(name, data, deflate) { (name), (data), strlen (data), (deflate), 0, 0, 0, -1, -1 }

GBytes     *sj_test_zip_build        (const SjTestZipEntry *entries,
                                      guint                 n_entries);

/* An entry of a zip written by libarchive, as another program would. */
typedef struct
{
  const char *path;
  const char *data;      /* %NULL: a folder, or a link */
  gsize       size;      /* bytes of zeros when data is %NULL and this is not 0 */
  guint       type;      /* an AE_IF* type; 0: a regular file, or a folder when path ends in / */
  const char *link;      /* the target of a symbolic or hard link */
} SjTestArchiveEntry;

GByteArray *sj_test_zip_write        (const SjTestArchiveEntry *entries,
                                      guint                     n_entries);
guint       sj_test_zip_patch        (GByteArray               *zip,
                                      const char               *signature,
                                      gsize                     offset,
                                      guint32                   from,
                                      guint32                   to);
void        sj_test_zip_patch_mode   (GByteArray               *zip,
                                      const char               *name,
                                      guint32                   mode);
gint64      sj_test_zip_claimed_size (GByteArray               *zip,
                                      const char               *name);

G_END_DECLS
