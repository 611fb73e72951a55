/* sj-application-private.h
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What only the tests call, and the help action's part of the application.
 */

#pragma once

#include "sj-application.h"

G_BEGIN_DECLS

SjSoundsIndex *_sj_application_get_sounds (SjApplication *self);

/* The help, as F1 and Main Menu → Help open it (gnome.yelp's id). */
#define SJ_HELP_URI "help:strudel-jam"

/* Opens @uri beside @parent; the result is a GTask of a boolean. */
typedef void (*SjUriLauncher) (GtkWindow           *parent,
                               const char          *uri,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data);

void _sj_application_show_help        (SjApplication *self);
void _sj_application_set_uri_launcher (SjUriLauncher  launcher);

G_END_DECLS
