/* sj-outputs-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the files of SjOutputs share (sj-outputs.c, sj-outputs-midi.c):
 * its instance struct and the few functions one calls in the other; and,
 * for tests and bench/outputs only, the trace hook.
 */

#pragma once

#include "sj-alsa-midi.h"
#include "sj-jack-midi.h"
#include "sj-osc-sender.h"
#include "sj-output-clock.h"
#include "sj-outputs.h"

G_BEGIN_DECLS

/* Called for each hap sent: its time on the system clock as sent, and as
 * the hap's own clock pair alone would map it (what @strudel/osc's bridge
 * did: Date.now() plus the time to the hap, unfiltered). */
typedef void (*SjOutputsTraceFunc) (const char *kind,
                                    JsonObject *controls,
                                    gint64      sent_us,
                                    gint64      unfiltered_us,
                                    gpointer    user_data);

struct _SjOutputs
{
  GObject        parent_instance;

  char          *osc_host;
  guint          osc_port;
  char          *midi_backend;
  char          *midi_destination;

  SjOutputClock *clock;
  SjOscSender   *osc;
  SjJackMidi    *jack;
  SjAlsaMidi    *alsa;
  gboolean       midi_tried;
  guint          input_source;
  GHashTable    *reported;

  GSettings     *settings;  /* nullable: answers are then kept in memory */
  GHashTable    *consent;   /* "host:port" -> Consent */

  SjOutputsTraceFunc trace_func;
  gpointer           trace_data;
};

void _sj_outputs_report             (SjOutputs  *self,
                                     const char *key,
                                     SjLogLevel  level,
                                     const char *text);
void _sj_outputs_emit_midi_controls (SjOutputs  *self,
                                     const char *json);

/* sj-outputs-midi.c */
void _sj_outputs_send_midi          (SjOutputs  *self,
                                     JsonObject *controls,
                                     gint64      epoch_us);

void _sj_outputs_set_trace_func (SjOutputs          *self,
                                 SjOutputsTraceFunc  func,
                                 gpointer            user_data);

G_END_DECLS
