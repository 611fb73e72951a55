/* sj-wav-writer.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SJ_TYPE_WAV_WRITER (sj_wav_writer_get_type ())

G_DECLARE_FINAL_TYPE (SjWavWriter, sj_wav_writer, SJ, WAV_WRITER, GObject)

SjWavWriter *sj_wav_writer_new          (const char    *path,
                                         GError       **error);
gboolean     sj_wav_writer_write        (SjWavWriter   *self,
                                         const guint8  *data,
                                         gsize          size,
                                         GError       **error);
gboolean     sj_wav_writer_commit       (SjWavWriter   *self,
                                         GError       **error);
void         sj_wav_writer_abort        (SjWavWriter   *self);
const char  *sj_wav_writer_get_path     (SjWavWriter   *self);
guint        sj_wav_writer_get_channels (SjWavWriter   *self);
guint        sj_wav_writer_get_rate     (SjWavWriter   *self);
guint64      sj_wav_writer_get_frames   (SjWavWriter   *self);
double       sj_wav_writer_get_peak     (SjWavWriter   *self);
double       sj_wav_writer_get_rms      (SjWavWriter   *self);

G_END_DECLS
