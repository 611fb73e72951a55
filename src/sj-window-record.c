/* sj-window-record.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Record what you hear (issue 33): the header bar's Record toggle (the
 * stateful win.record, Ctrl+Alt+A) captures the live output, agent changes
 * and all, with SjRecorder (a monitor of the page's own stream, written
 * from a thread; see sj-recorder.c), and shows the time and size recorded.
 *
 * Where the file goes: a GNOME user expects a recording to land in Music
 * without being asked first (as Sound Recorder puts its recordings in a
 * folder of its own): Music/Strudel Jam/Jam <date and time>.flac, FLAC
 * because it is lossless and half a WAV's size. A dialog before recording
 * would cost the moment; the toast at the end names the file and offers
 * Open Folder. In Flatpak, the app has the xdg-music filesystem permission
 * for this (docs/flatpak.md).
 *
 * Stopping, closing the window or quitting closes the file whole; a crash
 * leaves it playable (the writer's doing). A failure (a full disk) stops
 * the recording with a toast, and the music plays on: the page is never
 * touched.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-window-private.h"

#define TICK_MS 250

static void
say (SjWindow   *self,
     const char *title,
     const char *button_label,
     const char *action_name)
{
  g_free (self->record_status);
  self->record_status = g_strdup (title);
  _sj_window_show_toast (self, title, button_label, action_name);
}

static char *
format_elapsed (double seconds)
{
  guint total = (guint)seconds;

  if (total >= 3600)
    return g_strdup_printf ("%u:%02u:%02u", total / 3600, total / 60 % 60, total % 60);

  return g_strdup_printf ("%u:%02u", total / 60, total % 60);
}

static gboolean
tick_cb (gpointer user_data)
{
  SjWindow *self = user_data;
  g_autofree char *elapsed = NULL;
  g_autofree char *size = NULL;
  g_autofree char *text = NULL;
  g_autofree char *description = NULL;

  g_assert (SJ_IS_WINDOW (self));

  if (self->recorder == NULL || !sj_recorder_is_recording (self->recorder))
    return G_SOURCE_CONTINUE;

  elapsed = format_elapsed (sj_recorder_get_seconds (self->recorder));
  size = g_format_size (sj_recorder_get_bytes (self->recorder));
  if (sj_recorder_get_bytes (self->recorder) == 0)
    /* TRANSLATORS: the Record button while nothing plays yet */
    text = g_strdup (_("Waiting for sound"));
  else
    /* TRANSLATORS: the Record button while recording: the time, then the file's size, "1:05 · 2.1 MB" */
    text = g_strdup_printf (_("%s · %s"), elapsed, size);
  gtk_label_set_label (self->record_label, text);
  /* TRANSLATORS: the Record button's description for a screen reader; %s is "1:05 · 2.1 MB" */
  description = g_strdup_printf (_("Recording: %s"), text);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->record_button),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);

  return G_SOURCE_CONTINUE;
}

static void
show_stopped (SjWindow *self)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "record");

  g_clear_handle_id (&self->record_tick_id, g_source_remove);
  gtk_widget_set_visible (GTK_WIDGET (self->record_label), FALSE);
  gtk_widget_remove_css_class (GTK_WIDGET (self->record_button), "destructive-action");
  gtk_accessible_reset_property (GTK_ACCESSIBLE (self->record_button), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
  g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (FALSE));
}

static void
stop_recording (SjWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;

  if (self->recorder == NULL || !sj_recorder_is_recording (self->recorder))
    return;

  path = g_strdup (sj_recorder_get_path (self->recorder));
  name = g_path_get_basename (path);
  if (!sj_recorder_stop (self->recorder, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        title = g_strdup (error->message);
      else
        /* TRANSLATORS: %s is why the recording could not be finished */
        title = g_strdup_printf (_("The recording could not be finished: %s"), error->message);
      say (self, title, NULL, NULL);
    }
  else
    {
      g_free (self->recorded_path);
      self->recorded_path = g_steal_pointer (&path);
      /* TRANSLATORS: %s is the recording's file name */
      title = g_strdup_printf (_("Recorded “%s”"), name);
      say (self, title, _("Open Folder"), "win.open-recordings");
    }
  show_stopped (self);
}

static void
failed_cb (SjWindow   *self,
           GError     *error,
           SjRecorder *recorder)
{
  g_autofree char *title = NULL;
  g_autoptr(GError) stop_error = NULL;

  g_assert (SJ_IS_WINDOW (self));

  /* TRANSLATORS: %s is why recording stopped (a full disk); the music plays on */
  title = g_strdup_printf (_("Recording stopped: %s. The file keeps what was recorded."), error->message);
  sj_recorder_stop (recorder, &stop_error);
  say (self, title, NULL, NULL);
  show_stopped (self);
}

static void
start_recording (SjWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *path = NULL;
  const char *music;

  if (self->recorder == NULL)
    {
      /* WebKit names the page's stream after the application. */
      self->recorder = sj_recorder_new (g_get_application_name (), "WebKitWebProcess");
      g_signal_connect_object (self->recorder, "failed", G_CALLBACK (failed_cb), self, G_CONNECT_SWAPPED);
    }

  music = self->record_folder;
  if (music == NULL)
    music = g_get_user_special_dir (G_USER_DIRECTORY_MUSIC);
  if (music == NULL)
    music = g_get_home_dir ();
  path = sj_recorder_default_path (music, now, self->record_extension != NULL ? self->record_extension : "flac");

  if (!sj_recorder_start (self->recorder, path, &error))
    {
      /* The message says "Cannot record…" and why. */
      say (self, error->message, NULL, NULL);
      show_stopped (self);
      return;
    }

  g_simple_action_set_state (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "record")),
                             g_variant_new_boolean (TRUE));
  gtk_widget_add_css_class (GTK_WIDGET (self->record_button), "destructive-action");
  gtk_widget_set_visible (GTK_WIDGET (self->record_label), TRUE);
  tick_cb (self);
  self->record_tick_id = g_timeout_add (TICK_MS, tick_cb, self);
}

static void
record_change_state (GSimpleAction *action,
                     GVariant      *state,
                     gpointer       user_data)
{
  SjWindow *self = user_data;

  g_assert (SJ_IS_WINDOW (self));

  if (g_variant_get_boolean (state))
    start_recording (self);
  else
    stop_recording (self);
}

static void
open_recordings_action (GSimpleAction *action,
                        GVariant      *param,
                        gpointer       user_data)
{
  SjWindow *self = user_data;
  g_autofree char *folder = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *uri = NULL;

  g_assert (SJ_IS_WINDOW (self));

  if (self->recorded_path == NULL)
    return;
  folder = g_path_get_dirname (self->recorded_path);
  file = g_file_new_for_path (folder);
  uri = g_file_get_uri (file);
  gtk_show_uri (GTK_WINDOW (self), uri, GDK_CURRENT_TIME);
}

static const GActionEntry record_entries[] = {
  { "record", NULL, NULL, "false", record_change_state },
  { "open-recordings", open_recordings_action },
};

void
_sj_window_record_init (SjWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), record_entries, G_N_ELEMENTS (record_entries), self);
}

/* Closing the window (or quitting) closes the file whole. */
void
_sj_window_record_dispose (SjWindow *self)
{
  g_clear_handle_id (&self->record_tick_id, g_source_remove);
  if (self->recorder != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->recorder, self);
      sj_recorder_stop (self->recorder, NULL);
    }
  g_clear_object (&self->recorder);
  g_clear_pointer (&self->record_folder, g_free);
  g_clear_pointer (&self->record_extension, g_free);
  g_clear_pointer (&self->recorded_path, g_free);
  g_clear_pointer (&self->record_status, g_free);
}

/* For tests: record into @folder (instead of Music/Strudel Jam) as @extension. */
void
_sj_window_set_record_folder (SjWindow   *self,
                              const char *folder,
                              const char *extension)
{
  g_assert (SJ_IS_WINDOW (self));

  g_free (self->record_folder);
  self->record_folder = g_strdup (folder);
  g_free (self->record_extension);
  self->record_extension = g_strdup (extension);
}
