/* sj-window-open.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Opening a file of code in SjWindow (`strudel-jam pattern.strudel.js`, a
 * second launch with a file, a file manager's Open With): SjCodeFile reads
 * it, and once the page is ready its code replaces the editor's text
 * through SjRepl, as one edit and without playing it. The music plays on
 * until the user plays the new code.
 *
 * The editor's text is saved on every edit, but only to the one file that
 * the next start restores, so replacing it loses it for good unless it is
 * kept elsewhere. Code that is kept elsewhere is replaced without asking:
 * the bundled demo, the code of the file opened last (as it was read), the
 * very code being opened, and an empty editor. Anything else, typed,
 * played or changed by the agent, is the user's work, and an
 * AdwMessageDialog asks first.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-code-file.h"
#include "sj-window-private.h"

static void
report_failure (SjWindow     *self,
                const char   *name,
                const GError *error)
{
  g_autoptr(SjLogEntry) entry = NULL;
  g_autofree char *text = NULL;

  /* TRANSLATORS: the first %s is a file's name, the second why it could
   * not be opened */
  text = g_strdup_printf (_("“%s” could not be opened: %s"), name, error->message);
  entry = sj_log_entry_new (SJ_LOG_LEVEL_ERROR, text);
  sj_console_page_append (self->console_page, entry);
  _sj_window_show_toast (self, text, NULL, NULL);
}

/* Whether the editor's @code would be lost by opening another file. */
static gboolean
is_unsaved_work (SjWindow   *self,
                 const char *code)
{
  g_autofree char *stripped = g_strstrip (g_strdup (code));

  return stripped[0] != '\0' &&
         g_strcmp0 (code, self->open_code) != 0 &&
         g_strcmp0 (code, sj_code_store_get_demo_code ()) != 0 &&
         g_strcmp0 (code, self->opened_code) != 0;
}

static void
clear_pending (SjWindow *self)
{
  g_clear_pointer (&self->open_code, g_free);
  g_clear_pointer (&self->open_name, g_free);
  self->open_busy = FALSE;
}

static void
set_code_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!sj_repl_set_code_finish (SJ_REPL (object), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        report_failure (self, self->open_name, error);
      clear_pending (self);
      return;
    }

  g_free (self->opened_code);
  self->opened_code = g_steal_pointer (&self->open_code);

  /* TRANSLATORS: %s is a file's name */
  text = g_strdup_printf (_("Opened “%s”. Play it with Ctrl+Enter"), self->open_name);
  _sj_window_show_toast (self, text, NULL, NULL);
  clear_pending (self);
  gtk_widget_grab_focus (sj_repl_get_widget (self->repl));
}

static void
replace_code (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  sj_repl_set_code_async (self->repl, self->open_code, self->open_cancellable, set_code_cb, g_object_ref (self));
}

static void
replace_response_cb (SjWindow         *self,
                     const char       *response,
                     AdwMessageDialog *dialog)
{
  g_assert (SJ_IS_WINDOW (self));

  self->replace_dialog = NULL;
  if (g_strcmp0 (response, "replace") == 0 && self->open_code != NULL)
    replace_code (self);
  else
    clear_pending (self);
}

static void
ask_to_replace (SjWindow *self)
{
  AdwMessageDialog *dialog;

  g_assert (SJ_IS_WINDOW (self));

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Replace the Current Code?"), NULL));
  /* TRANSLATORS: %s is the name of the file being opened */
  adw_message_dialog_format_body (dialog,
                                  _("The code in the editor is not saved in a file of its own. Opening “%s” "
                                    "replaces it; the music plays on until you play the new code."),
                                  self->open_name);
  adw_message_dialog_add_responses (dialog,
                                    "cancel", _("_Cancel"),
                                    "replace", _("_Replace"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "replace", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (dialog, "cancel");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (replace_response_cb), self, G_CONNECT_SWAPPED);

  self->replace_dialog = dialog;
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
fetch_code_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *code = NULL;

  if ((code = sj_repl_fetch_code_finish (SJ_REPL (object), result, &error)) == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          report_failure (self, self->open_name, error);
          clear_pending (self);
        }
      return;
    }

  if (is_unsaved_work (self, code))
    ask_to_replace (self);
  else
    replace_code (self);
}

/* The file is read: once the page is ready, see what the editor holds. */
static void
continue_open (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  if (self->open_code == NULL || self->open_busy || !sj_repl_get_ready (self->repl))
    return;

  self->open_busy = TRUE;
  sj_repl_fetch_code_async (self->repl, self->open_cancellable, fetch_code_cb, g_object_ref (self));
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *code = NULL;

  if ((code = sj_code_file_read_finish (result, &error)) == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          report_failure (self, self->open_name, error);
          clear_pending (self);
        }
      return;
    }

  self->open_code = g_steal_pointer (&code);
  continue_open (self);
}

/**
 * sj_window_open_files:
 * @files: (array length=n_files): files of Strudel code
 *
 * Opens the first of @files in the editor, asking first when that would
 * replace the user's unsaved work. A window has one editor: the other
 * files are not opened, and a toast says so.
 */
void
sj_window_open_files (SjWindow  *self,
                      GFile    **files,
                      int        n_files)
{
  g_return_if_fail (SJ_IS_WINDOW (self));
  g_return_if_fail (n_files > 0 && G_IS_FILE (files[0]));

  /* The newest request wins over one still reading or asking. */
  g_cancellable_cancel (self->open_cancellable);
  g_clear_object (&self->open_cancellable);
  if (self->replace_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (g_steal_pointer (&self->replace_dialog)));
  clear_pending (self);

  self->open_cancellable = g_cancellable_new ();
  self->open_name = sj_code_file_dup_name (files[0]);
  if (n_files > 1)
    {
      /* TRANSLATORS: %s is a file's name */
      g_autofree char *text = g_strdup_printf (_("Only one file opens at a time: “%s”"), self->open_name);

      _sj_window_show_toast (self, text, NULL, NULL);
    }

  sj_code_file_read_async (files[0], self->open_cancellable, read_cb, g_object_ref (self));
}

void
_sj_window_open_init (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  /* A file opened at start-up waits for the page. */
  g_signal_connect_object (self->repl, "ready", G_CALLBACK (continue_open), self, G_CONNECT_SWAPPED);
}

void
_sj_window_open_dispose (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  g_cancellable_cancel (self->open_cancellable);
  g_clear_object (&self->open_cancellable);
  if (self->replace_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (g_steal_pointer (&self->replace_dialog)));
  clear_pending (self);
  g_clear_pointer (&self->opened_code, g_free);
}
