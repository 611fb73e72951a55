/* sj-test-jack.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <jack/jack.h>

G_BEGIN_DECLS

/* One MIDI event as the test's receiver got it. */
typedef struct
{
  jack_time_t time;  /* on JACK's clock, from the event's frame */
  guint8      data[3];
  guint8      size;
} SjTestMidiEvent;

typedef struct _SjTestJack SjTestJack;

SjTestJack    *sj_test_jack_start          (void);
void           sj_test_jack_stop           (SjTestJack *jack);
jack_client_t *sj_test_jack_get_receiver   (SjTestJack *jack);
guint          sj_test_jack_take_events    (SjTestJack *jack,
                                            GArray     *events);
gint64         sj_test_jack_epoch_to_jack  (gint64      epoch_us);
guint          sj_test_jack_get_xruns      (SjTestJack   *jack);
gint64         sj_test_jack_take_max_late_us (SjTestJack *jack);
void           sj_test_jack_send           (SjTestJack   *jack,
                                            const guint8  message[3]);
void           sj_test_jack_send_at        (SjTestJack   *jack,
                                            const guint8  message[3],
                                            gint64        jack_time);

/* Timing tolerance: 2 ms, and one more period (256 frames at 48 kHz) when
 * the server missed periods meanwhile. */
#define SJ_TEST_JACK_TOLERANCE_MS(xruns) ((xruns) > 0 ? 2.0 + 256 / 48.0 : 2.0)

G_END_DECLS
