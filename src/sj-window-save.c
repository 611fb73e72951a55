/* sj-window-save.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The window's side of saving the code (issue 27): a save that fails is said
 * once, with the way out ("Save a Copy…"), until a save succeeds again; the
 * store retries on the next edit meanwhile. Save a Copy writes the editor's
 * text to a file the musician picks.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-code-store.h"
#include "sj-log-entry.h"
#include "sj-window-private.h"

static void
code_store_save_failed_cb (SjWindow    *self,
                           GError      *error,
                           SjCodeStore *store)
{
  g_autofree char *text = NULL;
  g_autoptr(SjLogEntry) entry = NULL;
  AdwToast *toast;

  g_assert (SJ_IS_WINDOW (self));

  /* Once per failure, not on every keystroke that retries it. */
  if (self->save_failure_shown)
    return;
  self->save_failure_shown = TRUE;

  text = g_strdup_printf (_("Your code could not be saved: %s. Save a Copy…"), error->message);
  entry = sj_log_entry_new (SJ_LOG_LEVEL_ERROR, text);
  sj_console_page_append (self->console_page, entry);

  /* It stays until dismissed: the music is at stake. */
  toast = adw_toast_new (text);
  adw_toast_set_button_label (toast, _("Save a Copy…"));
  adw_toast_set_action_name (toast, "win.save-copy");
  adw_toast_set_timeout (toast, 0);
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  g_set_object (&self->save_failure_toast, toast);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
code_store_saved_cb (SjWindow    *self,
                     SjCodeStore *store)
{
  g_assert (SJ_IS_WINDOW (self));

  if (!self->save_failure_shown)
    return;

  self->save_failure_shown = FALSE;
  if (self->save_failure_toast != NULL)
    adw_toast_dismiss (self->save_failure_toast);
  g_clear_object (&self->save_failure_toast);
  _sj_window_show_toast (self, _("Your code is saved again"), NULL, NULL);
}

static void
save_copy_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (sj_code_store_save_copy_finish (result, &error))
    text = g_strdup (_("A copy of your code is saved"));
  else
    text = g_strdup_printf (_("The copy could not be saved: %s"), error->message);

  if (!g_cancellable_is_cancelled (self->cancellable))
    _sj_window_show_toast (self, text, NULL, NULL);
}

typedef struct
{
  SjWindow *self;
  GFile    *file;
} CopyRequest;

static void
copy_request_free (CopyRequest *request)
{
  g_object_unref (request->self);
  g_object_unref (request->file);
  g_free (request);
}

static void
copy_fetch_code_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  CopyRequest *request = user_data;
  SjWindow *self = request->self;
  g_autofree char *code = NULL;

  /* The editor's text as it is now; if the page cannot say, the newest text
   * the store was given. */
  code = sj_repl_fetch_code_finish (SJ_REPL (object), result, NULL);
  if (code == NULL && self->code_store != NULL)
    code = sj_code_store_dup_code (self->code_store);

  if (code != NULL)
    sj_code_store_save_copy_async (request->file, code, NULL, save_copy_cb, g_object_ref (self));
  else
    _sj_window_show_toast (self, _("The copy could not be saved: the editor did not answer"), NULL, NULL);

  copy_request_free (request);
}

/**
 * _sj_window_save_copy_to:
 * @file: where the musician chose to save the copy
 *
 * Writes the editor's text to @file, then says how it went.
 */
void
_sj_window_save_copy_to (SjWindow *self,
                         GFile    *file)
{
  CopyRequest *request;

  g_assert (SJ_IS_WINDOW (self));
  g_assert (G_IS_FILE (file));

  request = g_new0 (CopyRequest, 1);
  request->self = g_object_ref (self);
  request->file = g_object_ref (file);
  sj_repl_fetch_code_async (self->repl, self->cancellable, copy_fetch_code_cb, request);
}

static void
chooser_response_cb (GtkNativeDialog *chooser,
                     int              response,
                     SjWindow        *self)
{
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));

  if (file != NULL)
    _sj_window_save_copy_to (self, file);

  g_object_unref (chooser);
  g_object_unref (self);
}

static void
save_copy_action (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  SjWindow *self = user_data;
  GtkFileChooserNative *chooser;

  g_assert (SJ_IS_WINDOW (self));

  chooser = gtk_file_chooser_native_new (_("Save a Copy of Your Code"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "strudel-jam-copy.strudel.js");
  g_signal_connect (chooser, "response", G_CALLBACK (chooser_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static const GActionEntry save_entries[] = {
  { "save-copy", save_copy_action },
};

void
_sj_window_save_init (SjWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), save_entries, G_N_ELEMENTS (save_entries), self);

  g_signal_connect_object (self->code_store, "save-failed", G_CALLBACK (code_store_save_failed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->code_store, "saved", G_CALLBACK (code_store_saved_cb), self, G_CONNECT_SWAPPED);
}

void
_sj_window_save_dispose (SjWindow *self)
{
  g_clear_object (&self->save_failure_toast);
}
