/* sj-test-osc.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* One OSC message as the stand-in SuperDirt received it. */
typedef struct
{
  char       *path;
  gboolean    bundled;
  gint64      timetag_us;   /* the bundle's timetag, in µs since the epoch */
  gint64      received_us;  /* g_get_real_time () on arrival */
  JsonObject *fields;       /* name, value pairs: numbers, strings, booleans */
  char       *types;        /* the message's OSC type tags */
} SjTestOscMessage;

typedef struct _SjTestOscReceiver SjTestOscReceiver;

SjTestOscReceiver *sj_test_osc_receiver_new      (void);
void               sj_test_osc_receiver_free     (SjTestOscReceiver *receiver);
guint              sj_test_osc_receiver_get_port (SjTestOscReceiver *receiver);
SjTestOscMessage  *sj_test_osc_receiver_pop      (SjTestOscReceiver *receiver,
                                                  guint              timeout_ms);
void               sj_test_osc_message_free      (SjTestOscMessage  *message);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjTestOscReceiver, sj_test_osc_receiver_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjTestOscMessage, sj_test_osc_message_free)

G_END_DECLS
