/* sj-dry-run-cli.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  char *file;    /* --dry-run FILE, "-" for stdin */
  int   cycles;  /* --cycles N, -1 when not given */
} SjDryRunCliOptions;

gboolean sj_dry_run_cli_wanted (const SjDryRunCliOptions *options);
int      sj_dry_run_cli_run    (const SjDryRunCliOptions *options,
                                const char               *sounds_path,
                                gboolean                  other_commands);

G_END_DECLS
