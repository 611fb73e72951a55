/* sj-render-cli.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include "sj-application.h"

G_BEGIN_DECLS

typedef struct
{
  char *file;       /* --render FILE, "-" for stdin */
  char *output;     /* --output OUT.wav */
  char *stems_dir;  /* --stems DIR */
  char *session;    /* --render-session ID: a session's jam from the history */
  int   tail;       /* --tail N, G_MININT when not given */
} SjRenderCliOptions;

gboolean sj_render_cli_wanted (const SjRenderCliOptions *options);
int      sj_render_cli_run    (SjApplication            *app,
                               const SjRenderCliOptions *options,
                               int                       cycles,
                               gboolean                  other_commands);
void     sj_render_cli_clear  (SjRenderCliOptions       *options);

G_END_DECLS
