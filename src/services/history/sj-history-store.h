/* sj-history-store.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-usage.h"

G_BEGIN_DECLS

#define SJ_HISTORY_STORE_ERROR (sj_history_store_error_quark ())

/* Failures of the file itself (full, read-only, busy) are G_IO_ERRORs;
 * these are the store's own. */
typedef enum
{
  SJ_HISTORY_STORE_ERROR_FAILED,
  SJ_HISTORY_STORE_ERROR_NEWER_VERSION,
  SJ_HISTORY_STORE_ERROR_NOT_FOUND,
  SJ_HISTORY_STORE_ERROR_CORRUPT,
} SjHistoryStoreError;

typedef enum
{
  SJ_HISTORY_ROLE_USER,
  SJ_HISTORY_ROLE_ASSISTANT,
  SJ_HISTORY_ROLE_SYSTEM,
  SJ_HISTORY_ROLE_TOOL,
} SjHistoryRole;

typedef enum
{
  SJ_HISTORY_MESSAGE_COMPLETE,
  SJ_HISTORY_MESSAGE_STREAMING,
  SJ_HISTORY_MESSAGE_STOPPED,
  SJ_HISTORY_MESSAGE_ERROR,
  SJ_HISTORY_MESSAGE_INTERRUPTED,  /* the app stopped (crash, kill, power loss) while it streamed */
} SjHistoryMessageStatus;

typedef enum
{
  SJ_HISTORY_TOOL_SUCCEEDED,
  SJ_HISTORY_TOOL_FAILED,
  SJ_HISTORY_TOOL_CANCELED,
} SjHistoryToolStatus;

typedef enum
{
  SJ_HISTORY_SOURCE_USER,
  SJ_HISTORY_SOURCE_AGENT,
} SjHistorySource;

/* Times are microseconds since the epoch (g_get_real_time ()), 0 for none. */
typedef struct
{
  gint64  id;
  char   *title;
  gint64  created;
  gint64  updated;
} SjHistorySession;

typedef struct
{
  gint64                  id;
  gint64                  session_id;
  SjHistoryRole           role;
  char                   *content;
  char                   *reasoning;  /* NULL when there is none */
  char                   *model;      /* NULL when there is none */
  SjHistoryMessageStatus  status;
  gint64                  started;
  gint64                  ended;
} SjHistoryMessage;

typedef struct
{
  gint64               id;
  gint64               message_id;
  char                *name;
  char                *arguments;
  char                *result;       /* NULL when there is none */
  SjHistoryToolStatus  status;
  gint64               duration_ms;
  double               apply_cycle;  /* NAN when the call applied nothing */
  gint64               text_offset;  /* bytes of the answer's content written before
                                      * the call was made, -1 when not known */
} SjHistoryToolCall;

typedef struct
{
  gint64           id;
  gint64           session_id;
  char            *hash;
  char            *code;
  double           cycle;       /* NAN when unknown */
  SjHistorySource  source;
  gint64           message_id;  /* 0 when none */
  gint64           created;
} SjHistorySnapshot;

typedef enum
{
  SJ_HISTORY_SKILL_PINNED,     /* the musician pinned it to the session */
  SJ_HISTORY_SKILL_ACTIVATED,  /* the model activated it in the session */
} SjHistorySkillState;

/* A skill a message's turn used, for its chip. */
typedef struct
{
  char *name;
  char *title;
  char *how;   /* "pinned", "tool" or "auto" */
} SjHistorySkillUse;

void sj_history_session_free   (SjHistorySession  *session);
void sj_history_skill_use_free (SjHistorySkillUse *use);
void sj_history_message_free   (SjHistoryMessage  *message);
void sj_history_tool_call_free (SjHistoryToolCall *call);
void sj_history_snapshot_free  (SjHistorySnapshot *snapshot);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjHistorySession, sj_history_session_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjHistoryMessage, sj_history_message_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjHistoryToolCall, sj_history_tool_call_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjHistorySnapshot, sj_history_snapshot_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjHistorySkillUse, sj_history_skill_use_free)

#define SJ_HISTORY_STORE_SCHEMA_VERSION 6
#define SJ_HISTORY_STORE_FLUSH_INTERVAL_MS 1000

#define SJ_TYPE_HISTORY_STORE (sj_history_store_get_type ())

G_DECLARE_FINAL_TYPE (SjHistoryStore, sj_history_store, SJ, HISTORY_STORE, GObject)

GQuark          sj_history_store_error_quark      (void);

char           *sj_history_store_default_path     (void);
SjHistoryStore *sj_history_store_new              (const char              *path,
                                                   GError                 **error);

gint64          sj_history_store_create_session   (SjHistoryStore          *self,
                                                   const char              *title,
                                                   GError                 **error);
gboolean        sj_history_store_rename_session   (SjHistoryStore          *self,
                                                   gint64                   session_id,
                                                   const char              *title,
                                                   GError                 **error);
gboolean        sj_history_store_delete_session   (SjHistoryStore          *self,
                                                   gint64                   session_id,
                                                   GError                 **error);
GPtrArray      *sj_history_store_list_sessions    (SjHistoryStore          *self,
                                                   GError                 **error);

gint64          sj_history_store_append_message   (SjHistoryStore          *self,
                                                   gint64                   session_id,
                                                   SjHistoryRole            role,
                                                   const char              *content,
                                                   const char              *model,
                                                   SjHistoryMessageStatus   status,
                                                   GError                 **error);
void            sj_history_store_append_text      (SjHistoryStore          *self,
                                                   gint64                   message_id,
                                                   const char              *text_delta,
                                                   const char              *reasoning_delta);
gboolean        sj_history_store_flush            (SjHistoryStore          *self,
                                                   GError                 **error);
guint64         sj_history_store_get_size         (SjHistoryStore          *self);
void            sj_history_store_set_size_limit   (SjHistoryStore          *self,
                                                   guint64                  bytes);
guint64         sj_history_store_get_size_limit   (SjHistoryStore          *self);
gboolean        sj_history_store_get_over_limit   (SjHistoryStore          *self);
gboolean        sj_history_store_finish_message   (SjHistoryStore          *self,
                                                   gint64                   message_id,
                                                   SjHistoryMessageStatus   status,
                                                   GError                 **error);
gboolean        sj_history_store_delete_messages_from (SjHistoryStore      *self,
                                                   gint64                   session_id,
                                                   gint64                   message_id,
                                                   GError                 **error);
SjHistoryMessage *sj_history_store_get_message    (SjHistoryStore          *self,
                                                   gint64                   message_id,
                                                   GError                 **error);
GPtrArray      *sj_history_store_list_messages    (SjHistoryStore          *self,
                                                   gint64                   session_id,
                                                   GError                 **error);

gint64          sj_history_store_record_tool_call (SjHistoryStore          *self,
                                                   gint64                   message_id,
                                                   const char              *name,
                                                   const char              *arguments,
                                                   const char              *result,
                                                   SjHistoryToolStatus      status,
                                                   gint64                   duration_ms,
                                                   double                   apply_cycle,
                                                   GError                 **error);
gint64          sj_history_store_record_tool_call_at (SjHistoryStore    *self,
                                                   gint64                   message_id,
                                                   const char              *name,
                                                   const char              *arguments,
                                                   const char              *result,
                                                   SjHistoryToolStatus      status,
                                                   gint64                   duration_ms,
                                                   double                   apply_cycle,
                                                   gint64                   text_offset,
                                                   GError                 **error);
GPtrArray      *sj_history_store_list_session_tool_calls (SjHistoryStore   *self,
                                                   gint64                   session_id,
                                                   GError                 **error);
GPtrArray      *sj_history_store_list_tool_calls  (SjHistoryStore          *self,
                                                   gint64                   message_id,
                                                   GError                 **error);

gint64          sj_history_store_record_snapshot  (SjHistoryStore          *self,
                                                   gint64                   session_id,
                                                   const char              *code,
                                                   double                   cycle,
                                                   SjHistorySource          source,
                                                   gint64                   message_id,
                                                   GError                 **error);
GPtrArray      *sj_history_store_list_snapshots   (SjHistoryStore          *self,
                                                   gint64                   session_id,
                                                   GError                 **error);

gboolean        sj_history_store_set_session_skill (SjHistoryStore        *self,
                                                   gint64                   session_id,
                                                   const char              *name,
                                                   SjHistorySkillState      state,
                                                   gboolean                 on,
                                                   GError                 **error);
GStrv           sj_history_store_list_session_skills (SjHistoryStore      *self,
                                                   gint64                   session_id,
                                                   SjHistorySkillState      state,
                                                   GError                 **error);
gboolean        sj_history_store_record_message_skills (SjHistoryStore    *self,
                                                   gint64                   message_id,
                                                   GPtrArray               *uses,
                                                   GError                 **error);
GPtrArray      *sj_history_store_list_message_skills (SjHistoryStore      *self,
                                                   gint64                   message_id,
                                                   GError                 **error);

gboolean        sj_history_store_set_message_usage (SjHistoryStore        *self,
                                                   gint64                   message_id,
                                                   const SjUsage           *usage,
                                                   GError                 **error);
gboolean        sj_history_store_get_message_usage (SjHistoryStore        *self,
                                                   gint64                   message_id,
                                                   SjUsage                 *usage,
                                                   GError                 **error);
gboolean        sj_history_store_get_session_usage (SjHistoryStore        *self,
                                                   gint64                   session_id,
                                                   SjUsage                 *usage,
                                                   GError                 **error);

char           *sj_history_store_export_markdown  (SjHistoryStore          *self,
                                                   gint64                   session_id,
                                                   GError                 **error);

G_END_DECLS
