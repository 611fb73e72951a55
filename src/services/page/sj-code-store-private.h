/* sj-code-store-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What SjCodeStore's files share (sj-code-store.c, sj-code-store-jobs.c,
 * sj-code-store-write.c): its instance struct and write jobs; and what
 * only the tests need: a shorter delay before the code is saved, a shorter
 * deadline for the last save at shutdown, and a hook inside every write to
 * inject faults.
 */

#pragma once

#include "sj-code-store.h"

G_BEGIN_DECLS

/* The prefix of the temporary file a save writes before renaming it over
 * the code: ".<name>-XXXXXX" next to it. */
#define SJ_CODE_STORE_TEMP_PREFIX "."

/**
 * SjCodeStoreWriteHook:
 * @temp_path: the temporary file being written, half of the code in it
 * @user_data: the data given with the hook
 * @error: where a fault is returned
 *
 * Called in the writing thread in the middle of every write. Returning
 * %FALSE with @error set makes the write fail as a disk would (the temporary
 * file is removed, the code file is left as it was); blocking makes it a
 * write that never finishes.
 *
 * Returns: %TRUE to go on writing
 */
typedef gboolean (*SjCodeStoreWriteHook) (const char  *temp_path,
                                          gpointer     user_data,
                                          GError     **error);

gboolean _sj_code_store_write_file       (const char            *path,
                                          GBytes                *bytes,
                                          SjCodeStoreWriteHook   hook,
                                          gpointer               hook_data,
                                          GError               **error);
void     _sj_code_store_remove_temps     (const char            *path);

struct _SjCodeStore
{
  GObject       parent_instance;

  GFile        *file;
  char         *pending_code;  /* newest text not yet on disk */
  char         *writing_code;  /* text of the write under way */
  char         *saved_code;    /* text known to be on disk */
  GCancellable *cancellable;
  guint         timeout_id;
  guint         delay_ms;
  guint         flush_timeout_ms;
  gboolean      saving;
  gboolean      temps_removed;

  /* Shared with the writing threads */
  GMutex        write_lock;   /* held for a whole write: one at a time */
  guint64       next_seq;     /* main thread only */
  guint64       saving_seq;   /* main thread only: the save under way */
  guint64       written_seq;  /* under write_lock: the newest write on disk */
  SjCodeStoreWriteHook write_hook;
  gpointer      write_hook_data;
};

/* One write: the bytes, and its place in the order of writes. The flush
 * waits on it with a deadline, so it has its own lock and condition. */
typedef struct
{
  GBytes  *bytes;
  guint64  seq;
  GMutex   mutex;
  GCond    cond;
  gboolean done;
  gboolean skipped;
  GError  *error;
} SjCodeStoreWriteJob;

/* sj-code-store-jobs.c */
SjCodeStoreWriteJob *_sj_code_store_write_job_new   (SjCodeStore         *self,
                                                     const char          *code);
void                 _sj_code_store_write_job_unref (SjCodeStoreWriteJob *job);
void                 _sj_code_store_run_write       (SjCodeStore         *self,
                                                     SjCodeStoreWriteJob *job,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SjCodeStoreWriteJob, _sj_code_store_write_job_unref)

void     _sj_code_store_set_delay         (SjCodeStore          *self,
                                           guint                 delay_ms);
void     _sj_code_store_set_flush_timeout (SjCodeStore          *self,
                                           guint                 timeout_ms);
void     _sj_code_store_set_write_hook    (SjCodeStore          *self,
                                           SjCodeStoreWriteHook  hook,
                                           gpointer              user_data);

G_END_DECLS
