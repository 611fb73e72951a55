/* sj-outputs-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * For tests and bench/outputs only.
 */

#pragma once

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

void _sj_outputs_set_trace_func (SjOutputs          *self,
                                 SjOutputsTraceFunc  func,
                                 gpointer            user_data);

G_END_DECLS
