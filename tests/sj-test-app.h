/* sj-test-app.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-application.h"
#include "sj-repl.h"
#include "sj-window.h"
#include "sj-test-files.h"
#include "sj-test-widgets.h"

G_BEGIN_DECLS

#define SJ_TEST_WAIT_TIMEOUT_S 60

extern SjApplication *sj_test_app;

/* Waits for the page to report the scheduler having reached @cycle with
 * events fired: state messages arrive as the cycle counter advances. */
typedef struct
{
  SjRepl *repl;
  double  cycle;
  gint64  triggered;
} Progress;

/* The last state of a quantized swap the page reported (SjRepl::swap-changed),
 * as sj_test_swap_changed_cb() keeps it. */
typedef struct
{
  char   *state;
  double  cycle;
} SjTestSwapEvent;

/* Whether @widget is the one looked for. */
typedef gboolean (*SjTestWidgetMatch) (GtkWidget *widget,
                                       gpointer   data);

char         *sj_test_app_init        (void);
void          sj_test_app_start       (void);
void          sj_test_app_stop        (void);
void          sj_test_spin_until      (gboolean     (*done) (gpointer),
                                       gpointer       data,
                                       const char    *what);
GAsyncResult *sj_test_wait_result     (GAsyncResult **slot);
SjWindow     *sj_test_current_window  (void);
gboolean      sj_test_repl_is_ready   (gpointer       data);
gboolean      sj_test_agent_is_ready  (gpointer       data);
void          sj_test_swap_changed_cb (SjRepl          *repl,
                                       const char      *state,
                                       double           cycle,
                                       SjTestSwapEvent *event);
gboolean      sj_test_swap_applied    (gpointer       data);
SjWindow     *sj_test_open_window     (void);
SjWindow     *sj_test_open_key_window (SjTestKeyWindow *keys,
                                       guint          timeout_s);
void          sj_test_close_window    (SjWindow      *window);
JsonObject   *sj_test_evaluate        (SjRepl        *repl,
                                       const char    *code);
char         *sj_test_fetch_code      (SjRepl        *repl);
void          sj_test_query_state     (SjRepl        *repl,
                                       SjReplState   *state);
gboolean      sj_test_progressed      (gpointer       data);
gboolean      sj_test_stopped         (gpointer       data);
GtkWidget    *sj_test_find_widget     (GtkWidget     *root,
                                       SjTestWidgetMatch match,
                                       gpointer       data);
gboolean      sj_test_is_mapped_of_type (GtkWidget   *widget,
                                       gpointer       data);
void          sj_test_click           (GtkWidget     *button);
gboolean      sj_test_has_focus_within (GtkWidget    *widget);
JsonNode     *sj_test_call_js         (SjRepl        *repl,
                                       const char    *body);
SjSwapResult *sj_test_schedule_swap   (SjRepl        *repl,
                                       const char    *code,
                                       const char    *quantize,
                                       guint          bars,
                                       guint          bar_cycles,
                                       gboolean       auto_start);
gboolean      sj_test_cancel_swap     (SjRepl        *repl);

/* What parecord heard of the test's null sink (tests/with-pulse.sh). */
typedef struct
{
  guint64 full_scale; /* samples at |x| >= 32767 */
  double peak_db;     /* dBFS, -INFINITY for silence */
  double rms_db;
  double seconds;     /* measured, the skipped start left out */
} SjTestRecording;

SjTestRecording sj_test_record_sink       (double   seconds,
                                           double   skip_seconds);
SjTestRecording sj_test_record_sink_exact (double   seconds,
                                           double   skip_seconds,
                                           gboolean exact);

char           *sj_test_only_recording    (const char *dir);

G_END_DECLS
