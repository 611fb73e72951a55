/* sj-recording-writer.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SJ_TYPE_RECORDING_WRITER (sj_recording_writer_get_type ())

G_DECLARE_FINAL_TYPE (SjRecordingWriter, sj_recording_writer, SJ, RECORDING_WRITER, GObject)

SjRecordingWriter *sj_recording_writer_new        (const char         *path,
                                                   GError            **error);
gboolean           sj_recording_writer_begin      (SjRecordingWriter  *self,
                                                   guint               rate,
                                                   guint               channels,
                                                   GError            **error);
gboolean           sj_recording_writer_write      (SjRecordingWriter  *self,
                                                   const guint8       *data,
                                                   gsize               size,
                                                   GError            **error);
gboolean           sj_recording_writer_close      (SjRecordingWriter  *self,
                                                   GError            **error);
const char        *sj_recording_writer_get_path   (SjRecordingWriter  *self);
guint64            sj_recording_writer_get_frames (SjRecordingWriter  *self);
guint64            sj_recording_writer_get_bytes  (SjRecordingWriter  *self);

G_END_DECLS
