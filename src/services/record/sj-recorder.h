/* sj-recorder.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SJ_TYPE_RECORDER (sj_recorder_get_type ())

G_DECLARE_FINAL_TYPE (SjRecorder, sj_recorder, SJ, RECORDER, GObject)

SjRecorder *sj_recorder_new          (const char   *application_name,
                                      const char   *binary);
gboolean    sj_recorder_start        (SjRecorder   *self,
                                      const char   *path,
                                      GError      **error);
gboolean    sj_recorder_stop         (SjRecorder   *self,
                                      GError      **error);
gboolean    sj_recorder_is_recording (SjRecorder   *self);
const char *sj_recorder_get_path     (SjRecorder   *self);
double      sj_recorder_get_seconds  (SjRecorder   *self);
guint64     sj_recorder_get_bytes    (SjRecorder   *self);
gboolean    sj_recorder_is_attached  (SjRecorder   *self);
char       *sj_recorder_default_path (const char   *music_dir,
                                      GDateTime    *now,
                                      const char   *extension);

G_END_DECLS
