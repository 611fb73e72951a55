/* sj-sessions-page-actions.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Deleting and exporting sessions from the Sessions page.
 *
 * A deletion cannot be taken back from the store, so the page only hides
 * the row at first and offers Undo in a toast; the store deletes the
 * session once the toast goes away. Only one deletion waits at a time:
 * deleting another session, or the page going away, finishes the waiting
 * one first.
 */

#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "sj-sessions-page-private.h"

/* Toasts ------------------------------------------------------------------ */

/* Without an overlay (tests, or a page not in a window yet) the message is
 * only logged. */
void
_sj_sessions_page_show_toast (SjSessionsPage *self,
                              const char     *title)
{
  if (self->toast_overlay == NULL)
    {
      g_message ("%s", title);
      return;
    }

  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (title));
}

/**
 * sj_sessions_page_set_toast_overlay:
 * @overlay: (nullable): where the page shows its toasts, the window's
 *
 * Without an overlay there is no Undo: deletions are done at once.
 */
void
sj_sessions_page_set_toast_overlay (SjSessionsPage  *self,
                                    AdwToastOverlay *overlay)
{
  g_assert (SJ_IS_SESSIONS_PAGE (self));
  g_return_if_fail (overlay == NULL || ADW_IS_TOAST_OVERLAY (overlay));

  g_set_weak_pointer (&self->toast_overlay, overlay);
}

/* Deleting ---------------------------------------------------------------- */

static void
forget_toast (SjSessionsPage *self,
              gboolean        dismiss)
{
  g_autoptr(AdwToast) toast = g_steal_pointer (&self->pending_toast);

  if (toast == NULL)
    return;

  g_signal_handlers_disconnect_by_data (toast, self);
  /* The overlay may be gone before the page, the toast with it. */
  if (dismiss && self->toast_overlay != NULL)
    adw_toast_dismiss (toast);
}

static void
commit_pending (SjSessionsPage *self,
                gboolean        dismiss_toast)
{
  g_autoptr(SjSessionItem) item = g_steal_pointer (&self->pending_item);
  g_autoptr(GError) error = NULL;
  gint64 id;

  forget_toast (self, dismiss_toast);

  if (item == NULL)
    return;

  id = sj_session_item_get_id (item);
  if (!sj_history_store_delete_session (self->store, id, &error))
    {
      /* TRANSLATORS: the error shown when a session could not be deleted */
      g_autofree char *text = g_strdup_printf (_("Could not delete the session: %s"), error->message);

      _sj_sessions_page_show_toast (self, text);
      /* The session is still there: show it again, unless the page is
       * going away. */
      if (!gtk_widget_in_destruction (GTK_WIDGET (self)))
        sj_sessions_page_reload (self);
      return;
    }

  _sj_sessions_page_emit_session_deleted (self, id);
}

/**
 * sj_sessions_page_finish_pending_delete:
 *
 * Deletes from the store the session whose Undo toast is still showing,
 * and dismisses the toast. Does nothing when no deletion waits.
 */
void
sj_sessions_page_finish_pending_delete (SjSessionsPage *self)
{
  g_assert (SJ_IS_SESSIONS_PAGE (self));

  commit_pending (self, TRUE);
}

static void
undo_clicked_cb (SjSessionsPage *self,
                 AdwToast       *toast)
{
  g_autoptr(SjSessionItem) item = NULL;
  guint n;

  g_assert (SJ_IS_SESSIONS_PAGE (self));

  if (toast != self->pending_toast)
    return;

  /* The toast dismisses itself after this: it must not find a deletion to
   * finish. */
  forget_toast (self, FALSE);
  item = g_steal_pointer (&self->pending_item);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->sessions));
  g_list_store_insert (self->sessions, MIN (self->pending_position, n), item);
}

static void
toast_dismissed_cb (SjSessionsPage *self,
                    AdwToast       *toast)
{
  g_assert (SJ_IS_SESSIONS_PAGE (self));

  if (toast == self->pending_toast)
    commit_pending (self, FALSE);
}

/**
 * sj_sessions_page_delete_session:
 *
 * Hides the session's row and shows a toast with Undo; the store deletes
 * the session when the toast goes away without Undo, at the next deletion
 * or when the page goes away.
 */
void
sj_sessions_page_delete_session (SjSessionsPage *self,
                                 gint64          session_id)
{
  guint position;

  g_assert (SJ_IS_SESSIONS_PAGE (self));

  sj_sessions_page_finish_pending_delete (self);

  if (!_sj_sessions_page_find (self, session_id, &position))
    return;

  self->pending_item = g_list_model_get_item (G_LIST_MODEL (self->sessions), position);
  self->pending_position = position;
  g_list_store_remove (self->sessions, position);

  if (self->toast_overlay == NULL)
    {
      sj_sessions_page_finish_pending_delete (self);
      return;
    }

  self->pending_toast = adw_toast_new (_("Session deleted"));
  adw_toast_set_button_label (self->pending_toast, _("_Undo"));
  /* Shown at once, so that Undo is there while the user still knows what
   * it is for. */
  adw_toast_set_priority (self->pending_toast, ADW_TOAST_PRIORITY_HIGH);
  g_signal_connect_object (self->pending_toast, "button-clicked", G_CALLBACK (undo_clicked_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->pending_toast, "dismissed", G_CALLBACK (toast_dismissed_cb), self, G_CONNECT_SWAPPED);
  adw_toast_overlay_add_toast (self->toast_overlay, g_object_ref (self->pending_toast));
}

static void
delete_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  sj_sessions_page_delete_session (SJ_SESSIONS_PAGE (widget), g_variant_get_int64 (param));
}

/* Exporting --------------------------------------------------------------- */

static void
export_written_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_file_replace_contents_finish (G_FILE (object), result, NULL, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

/**
 * sj_sessions_page_export_to_file:
 * @file: where to write the session as Markdown, replaced if it exists
 *
 * Writes sj_history_store_export_markdown() of @session_id to @file.
 */
void
sj_sessions_page_export_to_file (SjSessionsPage      *self,
                                 gint64               session_id,
                                 GFile               *file,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  char *markdown;

  g_assert (SJ_IS_SESSIONS_PAGE (self));
  g_return_if_fail (G_IS_FILE (file));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_sessions_page_export_to_file);

  markdown = sj_history_store_export_markdown (self->store, session_id, &error);
  if (markdown == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  /* The bytes keep the text alive until the write is done. */
  bytes = g_bytes_new_take (markdown, strlen (markdown));
  g_file_replace_contents_bytes_async (file, bytes, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION,
                                       cancellable, export_written_cb, g_steal_pointer (&task));
}

gboolean
sj_sessions_page_export_to_file_finish (SjSessionsPage  *self,
                                        GAsyncResult    *result,
                                        GError         **error)
{
  g_assert (SJ_IS_SESSIONS_PAGE (self));
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
export_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  SjSessionsPage *self = SJ_SESSIONS_PAGE (object);
  g_autoptr(GError) error = NULL;

  if (sj_sessions_page_export_to_file_finish (self, result, &error))
    {
      _sj_sessions_page_show_toast (self, _("Session exported"));
      return;
    }

  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* TRANSLATORS: the error shown when a session could not be exported */
      g_autofree char *text = g_strdup_printf (_("Could not export the session: %s"), error->message);

      _sj_sessions_page_show_toast (self, text);
    }
}

static void
export_response_cb (SjSessionsPage       *self,
                    int                   response,
                    GtkFileChooserNative *dialog)
{
  gint64 id = *(gint64 *)g_object_get_data (G_OBJECT (dialog), "sj-session-id");
  g_autoptr(GFile) file = NULL;

  g_assert (SJ_IS_SESSIONS_PAGE (self));

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  if (dialog == self->export_dialog)
    g_clear_object (&self->export_dialog);

  if (file != NULL)
    sj_sessions_page_export_to_file (self, id, file, NULL, export_done_cb, NULL);
}

/* "Acid jam.md", without what a file name cannot hold. */
static char *
export_file_name (SjSessionItem *item)
{
  g_autofree char *title = g_strdup (sj_session_item_get_title (item));

  g_strdelimit (title, "/\\\n\r\t", '-');
  if (*g_strstrip (title) == '\0' || title[0] == '.')
    return g_strdup_printf ("%s.md", _("Session"));

  return g_strdup_printf ("%s.md", title);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  SjSessionsPage *self = SJ_SESSIONS_PAGE (widget);
  gint64 id = g_variant_get_int64 (param);
  g_autoptr(SjSessionItem) item = _sj_sessions_page_get_item (self, id);
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autofree char *name = NULL;
  GtkRoot *root = gtk_widget_get_root (widget);

  if (item == NULL)
    return;

  /* One dialog at a time: a second Export… replaces the first. */
  if (self->export_dialog != NULL)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->export_dialog));
      g_clear_object (&self->export_dialog);
    }

  self->export_dialog = gtk_file_chooser_native_new (_("Export Session"),
                                                     GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                                     GTK_FILE_CHOOSER_ACTION_SAVE,
                                                     _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->export_dialog), TRUE);

  gtk_file_filter_set_name (filter, _("Markdown"));
  gtk_file_filter_add_mime_type (filter, "text/markdown");
  gtk_file_filter_add_pattern (filter, "*.md");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->export_dialog), filter);

  name = export_file_name (item);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->export_dialog), name);
  g_object_set_data_full (G_OBJECT (self->export_dialog), "sj-session-id",
                          g_memdup2 (&id, sizeof id), g_free);
  g_signal_connect_object (self->export_dialog, "response", G_CALLBACK (export_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->export_dialog));
}

/* Setup ------------------------------------------------------------------- */

void
_sj_sessions_page_class_init_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "sessions.delete", "x", delete_action);
  gtk_widget_class_install_action (widget_class, "sessions.export", "x", export_action);
}

void
_sj_sessions_page_dispose_actions (SjSessionsPage *self)
{
  if (self->export_dialog != NULL)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->export_dialog));
      g_clear_object (&self->export_dialog);
    }

  g_clear_weak_pointer (&self->toast_overlay);
}
