/* sj-page-message.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "sj-levels.h"
#include "sj-log-entry.h"

G_BEGIN_DECLS

#define SJ_PAGE_MESSAGE_ERROR (sj_page_message_error_quark ())

typedef enum
{
  SJ_PAGE_MESSAGE_ERROR_MALFORMED,
  SJ_PAGE_MESSAGE_ERROR_UNKNOWN_TYPE,
  SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD,
  SJ_PAGE_MESSAGE_ERROR_TOO_LARGE,
} SjPageMessageError;

typedef enum
{
  SJ_PAGE_MESSAGE_HELLO,
  SJ_PAGE_MESSAGE_READY,
  SJ_PAGE_MESSAGE_STATE,
  SJ_PAGE_MESSAGE_LOG,
  SJ_PAGE_MESSAGE_EVAL_ERROR,
  SJ_PAGE_MESSAGE_SOUNDS,
  SJ_PAGE_MESSAGE_CODE,
  SJ_PAGE_MESSAGE_SWAP,
  SJ_PAGE_MESSAGE_OUTPUT,
  SJ_PAGE_MESSAGE_MIDI_IN,
  SJ_PAGE_MESSAGE_LEVELS,
  SJ_PAGE_MESSAGE_NOTHING_TO_PLAY,
  SJ_PAGE_MESSAGE_COUNTDOWN,
  SJ_PAGE_MESSAGE_ACTION,
} SjPageMessageType;

/* What the page says about Strudel's scheduler. */
typedef struct
{
  gboolean playing;
  gboolean pending;
  double   cps;
  double   cycle;
  double   horizon;
  gint64   triggered;
  gint64   late;
  double   max_late_ms;
} SjReplState;

typedef struct
{
  SjPageMessageType  type;
  gint64             id;        /* -1 when the page expects no reply */
  SjReplState        state;     /* STATE */
  SjLogLevel         level;     /* LOG */
  char              *text;      /* LOG and EVAL_ERROR message, CODE code, SWAP state, OUTPUT kind, MIDI_IN port,
                                 * ACTION the action's name */
  int                line;      /* EVAL_ERROR, 0 when unknown */
  int                column;
  double             cycle;     /* SWAP and COUNTDOWN: the swap's boundary */
  int                beats;     /* COUNTDOWN: beats left until the boundary is heard */
  double             seconds;   /* COUNTDOWN: seconds left, by the page's audio clock */
  JsonObject        *object;    /* SOUNDS snapshot, READY versions, OUTPUT the whole message */
  SjLevelReport     *levels;    /* LEVELS */
} SjPageMessage;

/* Upper bounds on what the page may send; anything larger is refused. */
#define SJ_PAGE_MESSAGE_MAX_BYTES    (8 * 1024 * 1024)
#define SJ_PAGE_MESSAGE_MAX_CODE     (1024 * 1024)
#define SJ_PAGE_MESSAGE_MAX_LOG      (16 * 1024)
#define SJ_PAGE_MESSAGE_MAX_SOUNDS   50000
/* An output message (.osc(), .midi()): its controls and their strings. */
#define SJ_PAGE_MESSAGE_MAX_CONTROLS 128
#define SJ_PAGE_MESSAGE_MAX_CONTROL  1024

GQuark         sj_page_message_error_quark (void);
SjPageMessage *sj_page_message_parse       (const char     *json,
                                            gssize          length,
                                            GError        **error);
void           sj_page_message_free        (SjPageMessage  *message);
gboolean       sj_repl_state_parse         (JsonObject     *object,
                                            SjReplState    *state,
                                            GError        **error);
gboolean       sj_sound_snapshot_validate  (JsonObject     *sounds,
                                            GError        **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjPageMessage, sj_page_message_free)

G_END_DECLS
