/* sj-window-render.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Main Menu → Render to File… (Ctrl+Shift+X, issue 33): the editor's code
 * as the page has it, at the tempo playing now, in SjRenderDialog. The
 * render runs in a hidden page of its own with the app's sounds; the live
 * page is not touched and plays on.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-application.h"
#include "sj-render-dialog.h"
#include "sj-window-private.h"

static void
code_fetched_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *code = sj_repl_fetch_code_finish (SJ_REPL (object), result, &error);
  g_autoptr(SjRenderer) renderer = NULL;
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  const SjReplState *state = sj_repl_get_state (self->repl);
  SjRenderDialog *dialog;

  if (code == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _sj_window_show_toast (self, _("The code could not be read from the page"), NULL, NULL);
      return;
    }

  if (SJ_IS_APPLICATION (app))
    renderer = sj_renderer_new (sj_application_get_sound_cache (SJ_APPLICATION (app)),
                                sj_application_get_remote_samples (SJ_APPLICATION (app)),
                                sj_application_get_user_samples (SJ_APPLICATION (app)));
  else
    renderer = sj_renderer_new (NULL, NULL, NULL);

  dialog = sj_render_dialog_new (GTK_WINDOW (self), renderer, code, state->cps);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
render_action (GSimpleAction *action,
               GVariant      *param,
               gpointer       user_data)
{
  SjWindow *self = user_data;

  g_assert (SJ_IS_WINDOW (self));

  sj_repl_fetch_code_async (self->repl, NULL, code_fetched_cb, g_object_ref (self));
}

static const GActionEntry render_entries[] = {
  { "render", render_action },
};

void
_sj_window_render_init (SjWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), render_entries, G_N_ELEMENTS (render_entries), self);
}
