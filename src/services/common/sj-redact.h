/* sj-redact.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

char            *sj_redact              (const char      *text);
void             sj_redact_add_secret   (const char      *secret);
gsize            sj_redact_safe_cut     (const char      *text,
                                         gsize            len,
                                         gsize            cut);
GLogWriterOutput sj_redact_log_writer   (GLogLevelFlags   log_level,
                                         const GLogField *fields,
                                         gsize            n_fields,
                                         gpointer         user_data);

G_END_DECLS
