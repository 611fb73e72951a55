/* sj-wav-header.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The one WAV header the services write (a recording, a transcription
 * request): little-endian whatever the machine is.
 */

#include "config.h"

#include <string.h>

#include "sj-wav-header.h"

void
sj_wav_put_le32 (guint8  *p,
                 guint32  value)
{
  p[0] = value & 0xff;
  p[1] = (value >> 8) & 0xff;
  p[2] = (value >> 16) & 0xff;
  p[3] = (value >> 24) & 0xff;
}

static void
put_le16 (guint8  *p,
          guint16  value)
{
  p[0] = value & 0xff;
  p[1] = (value >> 8) & 0xff;
}

/**
 * sj_wav_header_set:
 * @header: SJ_WAV_HEADER_SIZE bytes
 * @data_bytes: the size of the samples that follow (a writer that does not
 *   know it yet gives 0 and sets it later at SJ_WAV_DATA_SIZE_OFFSET, and
 *   36 more at SJ_WAV_RIFF_SIZE_OFFSET)
 *
 * Fills @header for 16-bit samples at @rate, @channels interleaved.
 */
void
sj_wav_header_set (guint8  *header,
                   guint32  rate,
                   guint16  channels,
                   guint32  data_bytes)
{
  g_return_if_fail (header != NULL);
  g_return_if_fail (data_bytes <= G_MAXUINT32 - 36);

  memcpy (header, "RIFF", 4);
  sj_wav_put_le32 (header + SJ_WAV_RIFF_SIZE_OFFSET, 36 + data_bytes);
  memcpy (header + 8, "WAVEfmt ", 8);
  sj_wav_put_le32 (header + 16, 16);                      /* the fmt chunk's size */
  put_le16 (header + 20, 1);                              /* PCM */
  put_le16 (header + 22, channels);
  sj_wav_put_le32 (header + 24, rate);
  sj_wav_put_le32 (header + 28, rate * channels * 2);     /* bytes a second */
  put_le16 (header + 32, channels * 2);                   /* bytes a frame */
  put_le16 (header + 34, 16);                             /* bits a sample */
  memcpy (header + 36, "data", 4);
  sj_wav_put_le32 (header + SJ_WAV_DATA_SIZE_OFFSET, data_bytes);
}
