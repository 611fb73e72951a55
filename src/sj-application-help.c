/* sj-application-help.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The app.help action (F1, Main Menu → Help): opens the Mallard help
 * installed under help/ (`help:strudel-jam`, shown by Yelp; in the Flatpak
 * through the OpenURI portal). Where no help viewer is there (a build tree
 * without Yelp), the window says why in a toast instead of doing nothing.
 * Tests replace the launcher to see the URI without opening anything.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-application-private.h"
#include "sj-window-private.h"

static SjUriLauncher uri_launcher;

static void
show_uri_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (gtk_show_uri_full_finish (GTK_WINDOW (object), result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* The real launcher: GTK hands the URI to the desktop (or the portal). */
static void
show_uri (GtkWindow           *parent,
          const char          *uri,
          GAsyncReadyCallback  callback,
          gpointer             user_data)
{
  GTask *task = g_task_new (parent, NULL, callback, user_data);

  gtk_show_uri_full (parent, uri, GDK_CURRENT_TIME, NULL, show_uri_cb, task);
}

static void
help_shown_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GtkWindow) window = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;

  if (g_task_propagate_boolean (G_TASK (result), &error))
    return;

  g_message ("Could not open the help (%s): %s", SJ_HELP_URI, error->message);
  if (!SJ_IS_WINDOW (window))
    return;
  /* Translators: %s is the system's reason, e.g. "Operation not supported". */
  title = g_strdup_printf (_("The help could not be opened: %s"), error->message);
  _sj_window_show_toast (SJ_WINDOW (window), title, NULL, NULL);
}

/**
 * _sj_application_show_help:
 * @self: the application
 *
 * Opens the help beside the active window (the app.help action).
 */
void
_sj_application_show_help (SjApplication *self)
{
  GtkWindow *window;

  g_assert (SJ_IS_APPLICATION (self));

  window = gtk_application_get_active_window (GTK_APPLICATION (self));
  (uri_launcher != NULL ? uri_launcher : show_uri) (window, SJ_HELP_URI, help_shown_cb,
                                                     window != NULL ? g_object_ref (window) : NULL);
}

/**
 * _sj_application_set_uri_launcher:
 * @launcher: (nullable): what opens URIs instead of GTK, or %NULL for GTK
 *
 * For tests: the help's URI goes to @launcher, whose result is a #GTask
 * (a boolean, or the error the window shows).
 */
void
_sj_application_set_uri_launcher (SjUriLauncher launcher)
{
  uri_launcher = launcher;
}
