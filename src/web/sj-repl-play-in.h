/* sj-repl-play-in.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-midi-phrase.h"
#include "sj-repl.h"

G_BEGIN_DECLS

/* The editor's cursor as Learn reads it. */
typedef struct
{
  char *code;
  char *selected;
  char *before;   /* the text of the cursor's line before it */
} SjReplCursor;

void          sj_repl_cursor_free                 (SjReplCursor         *cursor);

void          sj_repl_read_cycle_clock_async      (SjRepl               *self,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
gboolean      sj_repl_read_cycle_clock_finish     (SjRepl               *self,
                                                   GAsyncResult         *result,
                                                   SjCycleClock         *clock,
                                                   gboolean             *playing,
                                                   GError              **error);
void          sj_repl_read_cursor_async           (SjRepl               *self,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
SjReplCursor *sj_repl_read_cursor_finish          (SjRepl               *self,
                                                   GAsyncResult         *result,
                                                   GError              **error);
void          sj_repl_replace_selection_async     (SjRepl               *self,
                                                   const char           *text,
                                                   const char           *header,
                                                   GCancellable         *cancellable,
                                                   GAsyncReadyCallback   callback,
                                                   gpointer              user_data);
gboolean      sj_repl_replace_selection_finish    (SjRepl               *self,
                                                   GAsyncResult         *result,
                                                   GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjReplCursor, sj_repl_cursor_free)

G_END_DECLS
