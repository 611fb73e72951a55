/* sj-dry-run-memory.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The most memory (resident) a dry-run may take. Under AddressSanitizer
 * (the tests' sanitizer build) the shadow memory and the quarantine are
 * resident too, and the helper alone takes more than 256 MiB: it gets four
 * times the room there, so the limit still stops `new Array(6e7)`. */
#if defined(__SANITIZE_ADDRESS__)
# define SJ_DRY_RUN_UNDER_ASAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define SJ_DRY_RUN_UNDER_ASAN 1
# endif
#endif
#ifdef SJ_DRY_RUN_UNDER_ASAN
# define SJ_DRY_RUN_MAX_RSS_MIB 1024
#else
# define SJ_DRY_RUN_MAX_RSS_MIB 256
#endif

void sj_dry_run_memory_watch_start (void);
void sj_dry_run_memory_watch_begin (gint64      id);
void sj_dry_run_memory_watch_end   (void);
void sj_dry_run_write_line         (const char *json);

G_END_DECLS
