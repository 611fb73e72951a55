/* sj-code-store.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SJ_TYPE_CODE_STORE (sj_code_store_get_type ())

G_DECLARE_FINAL_TYPE (SjCodeStore, sj_code_store, SJ, CODE_STORE, GObject)

SjCodeStore *sj_code_store_new           (GFile        *file);
SjCodeStore *sj_code_store_new_default   (void);
GFile       *sj_code_store_get_file      (SjCodeStore  *self);
char        *sj_code_store_load          (SjCodeStore  *self,
                                          gboolean     *out_first_run,
                                          GError      **error);
void         sj_code_store_queue_save    (SjCodeStore  *self,
                                          const char   *code);
gboolean     sj_code_store_flush         (SjCodeStore  *self,
                                          GError      **error);
gboolean     sj_code_store_get_pending   (SjCodeStore  *self);
char        *sj_code_store_dup_code      (SjCodeStore  *self);
void         sj_code_store_save_copy_async  (GFile               *file,
                                             const char          *code,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
gboolean     sj_code_store_save_copy_finish (GAsyncResult        *result,
                                             GError             **error);
const char  *sj_code_store_get_demo_code (void);

G_END_DECLS
