/* sj-console-page.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "sj-log-entry.h"

G_BEGIN_DECLS

#define SJ_TYPE_CONSOLE_PAGE (sj_console_page_get_type ())

G_DECLARE_FINAL_TYPE (SjConsolePage, sj_console_page, SJ, CONSOLE_PAGE, GtkWidget)

/* Older lines are dropped beyond this many, oldest first. */
#define SJ_CONSOLE_MAX_ENTRIES 2000

void        sj_console_page_append   (SjConsolePage *self,
                                      SjLogEntry    *entry);
void        sj_console_page_clear    (SjConsolePage *self);
char       *sj_console_page_dup_text (SjConsolePage *self);

G_END_DECLS
