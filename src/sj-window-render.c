/* sj-window-render.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Main Menu → Render to File… (Ctrl+Shift+X, issue 33): the editor's code
 * as the page has it, at the tempo playing now, in SjRenderDialog. The
 * render runs in a hidden page of its own with the app's sounds; the live
 * page is not touched and plays on.
 *
 * Sessions page → a session's menu → Render Jam to File… (issue 33 item 4):
 * the same dialog for the session's code changes as they happened, at the
 * tempo playing now until a code sets its own.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-application.h"
#include "sj-render-dialog.h"
#include "sj-render-timeline.h"
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

static SjRenderer *
new_renderer (SjWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  if (SJ_IS_APPLICATION (app))
    return sj_renderer_new (sj_application_get_sound_cache (SJ_APPLICATION (app)),
                            sj_application_get_remote_samples (SJ_APPLICATION (app)),
                            sj_application_get_user_samples (SJ_APPLICATION (app)));

  return sj_renderer_new (NULL, NULL, NULL);
}

/* A session with nothing to render (or gone) is said at once, not after
 * a file was chosen. */
void
_sj_window_render_session (SjWindow *self,
                           gint64    session_id)
{
  g_autoptr(SjRenderTimeline) timeline = NULL;
  g_autoptr(SjRenderer) renderer = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GError) error = NULL;
  const char *title = NULL;
  SjRenderDialog *dialog;

  g_assert (SJ_IS_WINDOW (self));

  timeline = sj_render_timeline_load (self->history, session_id, SJ_RENDER_DEFAULT_CYCLES, &error);
  if (timeline == NULL)
    {
      /* TRANSLATORS: %s says why the session cannot be rendered */
      g_autofree char *text = g_strdup_printf (_("The jam cannot be rendered: %s"), error->message);

      _sj_window_show_toast (self, text, NULL, NULL);
      return;
    }

  sessions = sj_history_store_list_sessions (self->history, NULL);
  for (guint i = 0; sessions != NULL && i < sessions->len; i++)
    if (((SjHistorySession *)g_ptr_array_index (sessions, i))->id == session_id)
      title = ((SjHistorySession *)g_ptr_array_index (sessions, i))->title;

  renderer = new_renderer (self);
  dialog = sj_render_dialog_new_for_session (GTK_WINDOW (self), renderer, self->history, session_id, title,
                                             sj_repl_get_state (self->repl)->cps);
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
