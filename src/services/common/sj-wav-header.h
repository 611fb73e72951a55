/* sj-wav-header.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A canonical 16-bit PCM WAV header: RIFF, "fmt " and "data" chunks. */
#define SJ_WAV_HEADER_SIZE 44
/* Where the two sizes are, for a writer that updates them as it goes. */
#define SJ_WAV_RIFF_SIZE_OFFSET 4
#define SJ_WAV_DATA_SIZE_OFFSET 40

void sj_wav_put_le32   (guint8  *p,
                        guint32  value);
void sj_wav_header_set (guint8  *header,
                        guint32  rate,
                        guint16  channels,
                        guint32  data_bytes);

G_END_DECLS
