/* sj-midi-phrase.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "sj-midi-events.h"

G_BEGIN_DECLS

/* Steps of the grid in one cycle: sixteenths of a cycle. */
#define SJ_MIDI_PHRASE_STEPS 16

/* The page's cycle clock: cycle @cycle sounds at @time_us (microseconds
 * since the epoch), and @cps cycles pass each second. */
typedef struct
{
  double cycle;
  gint64 time_us;
  double cps;
} SjCycleClock;

double  sj_cycle_clock_cycle_at (const SjCycleClock *clock,
                                 gint64              time_us);
gint64  sj_cycle_clock_time_of  (const SjCycleClock *clock,
                                 double              cycle);

char   *sj_midi_phrase_note_name (guint8             key);
char   *sj_midi_phrase_notate    (const SjMidiEvent  *events,
                                  guint               n_events,
                                  const SjCycleClock *clock,
                                  gint64              first_cycle,
                                  guint               n_cycles);

G_END_DECLS
