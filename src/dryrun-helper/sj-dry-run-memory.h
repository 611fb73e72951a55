/* sj-dry-run-memory.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The most memory (resident) a dry-run may take. */
#define SJ_DRY_RUN_MAX_RSS_MIB 256

void sj_dry_run_memory_watch_start (void);
void sj_dry_run_memory_watch_begin (gint64      id);
void sj_dry_run_memory_watch_end   (void);
void sj_dry_run_write_line         (const char *json);

G_END_DECLS
