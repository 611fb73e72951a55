/* sj-code-store-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What SjCodeStore's files share, and what only the tests need: a shorter
 * delay before the code is saved, a shorter deadline for the last save at
 * shutdown, and a hook inside every write to inject faults.
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

void     _sj_code_store_set_delay         (SjCodeStore          *self,
                                           guint                 delay_ms);
void     _sj_code_store_set_flush_timeout (SjCodeStore          *self,
                                           guint                 timeout_ms);
void     _sj_code_store_set_write_hook    (SjCodeStore          *self,
                                           SjCodeStoreWriteHook  hook,
                                           gpointer              user_data);

G_END_DECLS
