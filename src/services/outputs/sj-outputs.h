/* sj-outputs.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sj-log-entry.h"

G_BEGIN_DECLS

#define SJ_TYPE_OUTPUTS (sj_outputs_get_type ())

G_DECLARE_FINAL_TYPE (SjOutputs, sj_outputs, SJ, OUTPUTS, GObject)

/* The name of the JACK client and the ALSA sequencer client. */
#define SJ_OUTPUTS_CLIENT_NAME "Strudel Jam"

SjOutputs *sj_outputs_new             (void);
SjOutputs *sj_outputs_new_for_settings (GSettings *settings);
void       sj_outputs_answer_osc      (SjOutputs  *self,
                                       const char *host,
                                       guint       port,
                                       gboolean    allow,
                                       gboolean    remember);
void       sj_outputs_handle          (SjOutputs  *self,
                                       const char *kind,
                                       JsonObject *message);
void       sj_outputs_open_midi_input (SjOutputs  *self,
                                       const char *source);
void       sj_outputs_stopped         (SjOutputs  *self);
gboolean   sj_outputs_listen_midi     (SjOutputs  *self,
                                       const char *source,
                                       GError    **error);
void       sj_outputs_set_recording   (SjOutputs  *self,
                                       gboolean    recording);
guint      sj_outputs_take_notes      (SjOutputs  *self,
                                       GArray     *events);

G_END_DECLS
