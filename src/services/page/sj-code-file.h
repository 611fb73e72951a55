/* sj-code-file.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "sj-page-message.h"

G_BEGIN_DECLS

/* The largest code file that opens: the most code the page reports back. */
#define SJ_CODE_FILE_MAX_BYTES SJ_PAGE_MESSAGE_MAX_CODE

#define SJ_CODE_FILE_ERROR (sj_code_file_error_quark ())

typedef enum
{
  SJ_CODE_FILE_ERROR_TOO_LARGE,
  SJ_CODE_FILE_ERROR_NOT_TEXT,
} SjCodeFileError;

GQuark  sj_code_file_error_quark (void);
void    sj_code_file_read_async  (GFile                *file,
                                  GCancellable         *cancellable,
                                  GAsyncReadyCallback   callback,
                                  gpointer              user_data);
char   *sj_code_file_read_finish (GAsyncResult         *result,
                                  GError              **error);
char   *sj_code_file_dup_name    (GFile                *file);
char   *sj_code_file_read_command_line (const char     *arg,
                                        GError        **error);

G_END_DECLS
