/* sj-log-entry.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef enum
{
  SJ_LOG_LEVEL_INFO,
  SJ_LOG_LEVEL_HIGHLIGHT,
  SJ_LOG_LEVEL_WARNING,
  SJ_LOG_LEVEL_ERROR,
} SjLogLevel;

#define SJ_TYPE_LOG_ENTRY (sj_log_entry_get_type ())

G_DECLARE_FINAL_TYPE (SjLogEntry, sj_log_entry, SJ, LOG_ENTRY, GObject)

SjLogEntry *sj_log_entry_new            (SjLogLevel  level,
                                         const char *message);
SjLogLevel  sj_log_entry_get_level      (SjLogEntry *self);
const char *sj_log_entry_get_message    (SjLogEntry *self);
GDateTime  *sj_log_entry_get_time       (SjLogEntry *self);
char       *sj_log_entry_format         (SjLogEntry *self);
SjLogLevel  sj_log_level_from_string    (const char *level);

G_END_DECLS
