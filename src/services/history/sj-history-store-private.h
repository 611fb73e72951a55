/* sj-history-store-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the history store's files share: the connection and the mapping of
 * SQLite's result codes to GErrors.
 */

#pragma once

#include <sqlite3.h>

#include "sj-history-store.h"

G_BEGIN_DECLS

sqlite3      *_sj_history_store_get_db    (SjHistoryStore *self);
gboolean      _sj_history_store_set_error (sqlite3        *db,
                                           int             rc,
                                           GError        **error);
sqlite3_stmt *_sj_history_store_prepare   (SjHistoryStore *self,
                                           const char     *sql,
                                           GError        **error);
gboolean      _sj_history_store_step_done (SjHistoryStore *self,
                                           sqlite3_stmt   *stmt,
                                           GError        **error);
char         *_sj_history_sanitize        (const char     *text);
void          _sj_history_bind_text       (sqlite3_stmt   *stmt,
                                           int             index,
                                           const char     *text);
char         *_sj_history_column_text     (sqlite3_stmt   *stmt,
                                           int             index);

gboolean    _sj_history_store_touch_session   (SjHistoryStore        *self,
                                               gint64                 session_id,
                                               GError               **error);
gboolean    _sj_history_store_check_changed   (SjHistoryStore        *self,
                                               const char            *what,
                                               gint64                 id,
                                               GError               **error);
int         _sj_history_parse_name            (const char * const    *names,
                                               guint                  n_names,
                                               const char            *name);
const char *_sj_history_status_to_string      (SjHistoryMessageStatus status);
const char *_sj_history_tool_status_to_string (SjHistoryToolStatus    status);

gboolean _sj_history_exec              (sqlite3    *db,
                                        const char *sql,
                                        GError    **error);
gboolean _sj_history_read_user_version (sqlite3    *db,
                                        int        *version,
                                        GError    **error);
gboolean _sj_history_check_version     (const char *path,
                                        int         version,
                                        GError    **error);
gboolean _sj_history_migrate           (sqlite3    *db,
                                        const char *path,
                                        GError    **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (sqlite3_stmt, sqlite3_finalize)

/* Streamed text (sj-history-stream.c). A message's text is its row's
 * content followed by its saved pieces, in order. */
#define SJ_HISTORY_PARTS_JOIN \
  "LEFT JOIN (SELECT message_id, group_concat(content, '') AS content, " \
  "group_concat(reasoning, '') AS reasoning FROM (SELECT message_id, content, reasoning " \
  "FROM message_parts ORDER BY message_id, id) GROUP BY message_id) p ON p.message_id = m.id"
#define SJ_HISTORY_FULL_CONTENT "m.content || COALESCE(p.content, '')"
#define SJ_HISTORY_FULL_REASONING \
  "CASE WHEN m.reasoning IS NULL AND p.reasoning IS NULL THEN NULL " \
  "ELSE COALESCE(m.reasoning, '') || COALESCE(p.reasoning, '') END"

GHashTable *_sj_history_store_get_pending       (SjHistoryStore *self);
guint      *_sj_history_store_get_flush_id      (SjHistoryStore *self);
void        _sj_history_store_emit_flush_failed (SjHistoryStore *self,
                                                 const GError   *error);
void        _sj_history_store_check_size    (SjHistoryStore *self);
void        _sj_history_pending_free            (gpointer        data);
gboolean    _sj_history_store_fold_all_parts    (SjHistoryStore *self,
                                                 GError        **error);

/* For the tests. */
const char *_sj_history_store_get_path      (SjHistoryStore *self);
void        _sj_history_store_set_max_pages (SjHistoryStore *self,
                                             guint           max_pages);
gboolean    _sj_history_store_has_pending   (SjHistoryStore *self);
gboolean    _sj_history_store_save_now      (SjHistoryStore *self,
                                             GError        **error);

G_END_DECLS
