/* sj-flac-encoder.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SJ_TYPE_FLAC_ENCODER (sj_flac_encoder_get_type ())

G_DECLARE_FINAL_TYPE (SjFlacEncoder, sj_flac_encoder, SJ, FLAC_ENCODER, GObject)

SjFlacEncoder *sj_flac_encoder_new        (const char     *path,
                                           guint           rate,
                                           guint           channels,
                                           GError        **error);
gboolean       sj_flac_encoder_write      (SjFlacEncoder  *self,
                                           const guint8   *data,
                                           gsize           size,
                                           GError        **error);
gboolean       sj_flac_encoder_finish     (SjFlacEncoder  *self,
                                           GError        **error);
void           sj_flac_encoder_abort      (SjFlacEncoder  *self);
void           sj_flac_encoder_set_name   (SjFlacEncoder  *self,
                                           const char     *name);
guint64        sj_flac_encoder_get_frames (SjFlacEncoder  *self);

gboolean       sj_path_is_flac            (const char     *path);

G_END_DECLS
