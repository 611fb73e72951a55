/* sj-window.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The main window: the Strudel REPL on the left, the side panel on the
 * right, and a header bar with the transport (play/stop, tempo, cycle).
 * The window wires the services together; it does not talk to JavaScript
 * itself (SjRepl does) and does not touch files itself (SjCodeStore does).
 * The side panel and its pages are wired in sj-window-panel.c.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "sj-application.h"
#include "sj-code-store.h"
#include "sj-console-page.h"
#include "sj-repl.h"
#include "sj-window-private.h"

/* How long closing waits for the page to hand over the very latest text. */
/* With the store's flush deadline, closing takes at most about 1.2 s. */
#define CLOSE_FETCH_TIMEOUT_MS 500

G_DEFINE_FINAL_TYPE (SjWindow, sj_window, ADW_TYPE_APPLICATION_WINDOW)

void
_sj_window_show_toast (SjWindow   *self,
                       const char *title,
                       const char *button_label,
                       const char *action_name)
{
  AdwToast *toast = adw_toast_new (title);

  if (button_label != NULL)
    {
      adw_toast_set_button_label (toast, button_label);
      adw_toast_set_detailed_action_name (toast, action_name);
    }
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
update_transport (SjWindow *self)
{
  const SjReplState *state = sj_repl_get_state (self->repl);
  gboolean ready = sj_repl_get_ready (self->repl);
  g_autofree char *tempo = NULL;
  g_autofree char *cycle = NULL;
  const char *label;
  GAction *action;

  /* Strudel counts tempo in cycles: cpm is what setcpm() takes. The page
   * knows the code's tempo only once it has run (setcpm() is code): until
   * then Strudel's default would be shown as if it were the music's. */
  self->tempo_known |= state->playing;
  if (self->tempo_known)
    tempo = g_strdup_printf (_("%.4g cpm · %.3g cps"), state->cps * 60.0, state->cps);
  gtk_label_set_label (self->tempo_label, tempo ? tempo : "");
  gtk_widget_set_visible (GTK_WIDGET (self->tempo_label), self->tempo_known);

  if (state->playing)
    cycle = g_strdup_printf (_("Cycle %.0f"), floor (MAX (state->cycle, 0)));
  gtk_label_set_label (self->cycle_label, cycle ? cycle : "");

  label = state->playing ? _("Stop") : _("Play");
  gtk_button_set_icon_name (self->play_button,
                            state->playing ? "media-playback-stop-symbolic" : "media-playback-start-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->play_button),
                               state->playing ? _("Stop (Ctrl+.)") : _("Play (Ctrl+Enter)"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->play_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  if (state->playing)
    gtk_widget_remove_css_class (GTK_WIDGET (self->play_button), "suggested-action");
  else
    gtk_widget_add_css_class (GTK_WIDGET (self->play_button), "suggested-action");

  adw_window_title_set_subtitle (self->window_title,
                                 !ready ? _("Loading…") : state->playing ? _("Playing") : _("Stopped"));

  for (const char * const *name = (const char *[]) { "play", "stop", "toggle-play", NULL }; *name; name++)
    {
      action = g_action_map_lookup_action (G_ACTION_MAP (self), *name);
      g_simple_action_set_enabled (G_SIMPLE_ACTION (action), ready);
    }
}

/* REPL signals ------------------------------------------------------------ */

static void
repl_ready_cb (SjWindow *self,
               SjRepl   *repl)
{
  g_assert (SJ_IS_WINDOW (self));

  gtk_widget_set_visible (GTK_WIDGET (self->loading_spinner), FALSE);
  gtk_spinner_set_spinning (self->loading_spinner, FALSE);
  update_transport (self);
}

static void
repl_log_cb (SjWindow   *self,
             SjLogEntry *entry,
             SjRepl     *repl)
{
  g_assert (SJ_IS_WINDOW (self));

  sj_console_page_append (self->console_page, entry);
}

/* MIDI devices following the music stop with it. */
static void
repl_playing_cb (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  if (!sj_repl_get_state (self->repl)->playing)
    sj_outputs_stopped (self->outputs);
}

static void
outputs_log_cb (SjWindow   *self,
                SjLogEntry *entry,
                SjOutputs  *outputs)
{
  g_assert (SJ_IS_WINDOW (self));

  sj_console_page_append (self->console_page, entry);
}

/* One line per sound that cannot be had (SjSoundCache says each once). */
static void
sound_load_failed_cb (SjWindow     *self,
                      const char   *pack,
                      const char   *path,
                      const GError *error,
                      const char   *message,
                      SjSoundCache *cache)
{
  g_autoptr(SjLogEntry) entry = NULL;
  const SjLibraryFile *file = sj_sound_library_lookup_file (sj_sound_cache_get_library (cache), pack, path);
  /* Offline is a state, not a fault; and a drum the kit plays still plays. */
  gboolean warning = g_error_matches (error, SJ_SOUND_CACHE_ERROR, SJ_SOUND_CACHE_ERROR_OFFLINE) ||
                     sj_sound_cache_get_fallback_voice (file) != NULL;

  g_assert (SJ_IS_WINDOW (self));

  entry = sj_log_entry_new (warning ? SJ_LOG_LEVEL_WARNING : SJ_LOG_LEVEL_ERROR, message);
  sj_console_page_append (self->console_page, entry);
}

/* The page's sounds come from the application's cache and the user's
 * folders, which the window only knows once it belongs to the app. */
static void
application_changed_cb (SjWindow   *self,
                        GParamSpec *pspec,
                        gpointer    user_data)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  SjSoundCache *cache;

  g_assert (SJ_IS_WINDOW (self));

  if (!SJ_IS_APPLICATION (app) || self->sound_cache_connected)
    return;

  cache = sj_application_get_sound_cache (SJ_APPLICATION (app));
  sj_repl_set_sound_cache (self->repl, cache);
  g_signal_connect_object (cache, "load-failed", G_CALLBACK (sound_load_failed_cb), self, G_CONNECT_SWAPPED);
  /* Packs downloaded for offline: the Sounds page's Packs view, and the
   * header bar's indicator while one downloads. */
  sj_sounds_page_set_downloads (self->sounds_page, sj_application_get_sound_downloads (SJ_APPLICATION (app)));
  sj_downloads_indicator_set_downloads (self->downloads_indicator,
                                        sj_application_get_sound_downloads (SJ_APPLICATION (app)));
  self->sound_cache_connected = TRUE;
  _sj_window_samples_connect (self, sj_application_get_user_samples (SJ_APPLICATION (app)));
  _sj_window_remote_connect (self, sj_application_get_remote_samples (SJ_APPLICATION (app)));
}

static void
repl_eval_error_cb (SjWindow   *self,
                    const char *message,
                    int         line,
                    int         column,
                    SjRepl     *repl)
{
  g_autoptr(SjLogEntry) entry = NULL;
  g_autofree char *text = NULL;

  g_assert (SJ_IS_WINDOW (self));

  if (line > 0)
    text = g_strdup_printf (_("Evaluation failed at line %d, column %d: %s"), line, column, message);
  else
    text = g_strdup_printf (_("Evaluation failed: %s"), message);

  entry = sj_log_entry_new (SJ_LOG_LEVEL_ERROR, text);
  sj_console_page_append (self->console_page, entry);

  if (!gtk_widget_get_visible (self->panel) ||
      g_strcmp0 (adw_view_stack_get_visible_child_name (self->panel_stack), "console") != 0)
    _sj_window_show_toast (self, _("The code has an error. The music plays on unchanged."),
                           _("Show Console"), "win.show-console");
}

static void
repl_nothing_to_play_cb (SjWindow *self,
                         SjRepl   *repl)
{
  AdwToast *toast;

  g_assert (SJ_IS_WINDOW (self));

  /* The answer to the key just pressed: shown at once, ahead of any toast
   * still waiting its turn (Record a Phrase's, Panic's). */
  toast = adw_toast_new (_("Nothing to play: the editor is empty. Open the Reference for an example, or ask the agent."));
  adw_toast_set_button_label (toast, _("Reference"));
  adw_toast_set_action_name (toast, "win.show-reference");
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
repl_code_changed_cb (SjWindow   *self,
                      const char *code,
                      SjRepl     *repl)
{
  g_assert (SJ_IS_WINDOW (self));

  if (self->code_store != NULL)
    sj_code_store_queue_save (self->code_store, code);
}

/* Actions ------------------------------------------------------------------ */

static void
evaluate_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(GError) error = NULL;

  outcome = sj_repl_evaluate_finish (SJ_REPL (object), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    _sj_window_show_toast (self, _("The Strudel page is not responding. Does the code loop forever?"),
                           _("Restart Page"), "win.restart-page");
  else if (outcome == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _sj_window_show_toast (self, error->message, NULL, NULL);
}

static void
play_action (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  SjWindow *self = user_data;

  g_assert (SJ_IS_WINDOW (self));

  sj_repl_evaluate_async (self->repl, NULL, self->cancellable, evaluate_cb, g_object_ref (self));
}

static void
stop_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!sj_repl_stop_finish (SJ_REPL (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _sj_window_show_toast (self, error->message, NULL, NULL);
}

static void
stop_action (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  SjWindow *self = user_data;

  g_assert (SJ_IS_WINDOW (self));

  sj_repl_stop_async (self->repl, self->cancellable, stop_cb, g_object_ref (self));
}

static void
toggle_play_action (GSimpleAction *action,
                    GVariant      *param,
                    gpointer       user_data)
{
  SjWindow *self = user_data;

  g_assert (SJ_IS_WINDOW (self));

  if (sj_repl_get_state (self->repl)->playing)
    stop_action (NULL, NULL, self);
  else
    play_action (NULL, NULL, self);
}

static void
focus_editor_action (GSimpleAction *action,
                     GVariant      *param,
                     gpointer       user_data)
{
  SjWindow *self = user_data;

  g_assert (SJ_IS_WINDOW (self));

  gtk_widget_grab_focus (sj_repl_get_widget (self->repl));
}

static void
restart_page_action (GSimpleAction *action,
                     GVariant      *param,
                     gpointer       user_data)
{
  SjWindow *self = user_data;

  g_assert (SJ_IS_WINDOW (self));

  gtk_widget_set_visible (GTK_WIDGET (self->loading_spinner), TRUE);
  gtk_spinner_set_spinning (self->loading_spinner, TRUE);
  sj_repl_restart (self->repl);
}

static const GActionEntry win_entries[] = {
  { "restart-page", restart_page_action },
  { "play", play_action },
  { "stop", stop_action },
  { "toggle-play", toggle_play_action },
  { "focus-editor", focus_editor_action },
};

/* Window state ----------------------------------------------------------- */

static void
save_window_state (SjWindow *self)
{
  int width, height;

  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
  g_settings_set_int (self->settings, "window-width", width);
  g_settings_set_int (self->settings, "window-height", height);
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (GTK_WINDOW (self)));

  if (gtk_widget_get_visible (self->panel) && gtk_widget_get_width (self->panel) > 0)
    g_settings_set_int (self->settings, "panel-width", CLAMP (gtk_widget_get_width (self->panel), 240, 2000));
  g_settings_set_string (self->settings, "panel-page", adw_view_stack_get_visible_child_name (self->panel_stack));
}

static void
restore_window_state (SjWindow *self)
{
  int width = g_settings_get_int (self->settings, "window-width");
  int height = g_settings_get_int (self->settings, "window-height");
  int panel_width = g_settings_get_int (self->settings, "panel-width");
  gboolean panel_visible = g_settings_get_boolean (self->settings, "panel-visible");
  g_autofree char *page = g_settings_get_string (self->settings, "panel-page");

  gtk_window_set_default_size (GTK_WINDOW (self), width, height);
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));

  /* The panel is the end child and does not resize with the window, so
   * placing the divider once keeps the panel at its saved width. */
  gtk_paned_set_position (self->paned, MAX (width - panel_width, 320));

  g_action_group_change_action_state (G_ACTION_GROUP (self), "show-panel", g_variant_new_boolean (panel_visible));
  if (adw_view_stack_get_child_by_name (self->panel_stack, page) != NULL)
    adw_view_stack_set_visible_child_name (self->panel_stack, page);
}

static void
finish_close (SjWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (self->code_store != NULL && !sj_code_store_flush (self->code_store, &error))
    g_warning ("Could not save the code before closing: %s", error->message);

  save_window_state (self);
  self->close_ready = TRUE;
  gtk_window_close (GTK_WINDOW (self));
}

static void
close_fetch_code_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *code = NULL;

  code = sj_repl_fetch_code_finish (SJ_REPL (object), result, &error);
  if (code != NULL && self->code_store != NULL)
    sj_code_store_queue_save (self->code_store, code);

  finish_close (self);
}

static gboolean
cancel_timeout_cb (gpointer user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
  return G_SOURCE_REMOVE;
}

static gboolean
sj_window_close_request (GtkWindow *window)
{
  SjWindow *self = SJ_WINDOW (window);
  g_autoptr(GCancellable) cancellable = NULL;

  if (self->close_ready)
    return GTK_WINDOW_CLASS (sj_window_parent_class)->close_request (window);

  if (self->closing)
    return TRUE;
  self->closing = TRUE;

  if (!sj_repl_get_ready (self->repl))
    {
      finish_close (self);
      return TRUE;
    }

  /* The page reports edits with a short delay; ask it for the text as it is
   * right now so that the last keystrokes before closing are kept too. */
  cancellable = g_cancellable_new ();
  g_timeout_add_full (G_PRIORITY_DEFAULT, CLOSE_FETCH_TIMEOUT_MS, cancel_timeout_cb,
                      g_object_ref (cancellable), g_object_unref);
  sj_repl_fetch_code_async (self->repl, cancellable, close_fetch_code_cb, g_object_ref (self));

  return TRUE;
}

/* GObject ---------------------------------------------------------------- */

static void
sj_window_dispose (GObject *object)
{
  SjWindow *self = (SjWindow *)object;

  g_cancellable_cancel (self->cancellable);
  if (self->repl != NULL)
    g_signal_handlers_disconnect_by_data (self->repl, self);
  if (self->code_store != NULL)
    g_signal_handlers_disconnect_by_data (self->code_store, self);

  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_WINDOW);

  _sj_window_record_dispose (self);
  _sj_window_open_dispose (self);
  _sj_window_outputs_dispose (self);
  _sj_window_play_in_dispose (self);
  _sj_window_save_dispose (self);
  _sj_window_voice_dispose (self);
  _sj_window_live_dispose (self);
  _sj_window_mcp_dispose (self);
  _sj_window_agent_dispose (self);
  _sj_window_changes_dispose (self);
  _sj_window_levels_dispose (self);
  _sj_window_samples_dispose (self);
  g_clear_object (&self->repl);
  g_clear_object (&self->outputs);
  g_clear_object (&self->code_store);
  g_clear_object (&self->settings);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (sj_window_parent_class)->dispose (object);
}

static void
sj_window_class_init (SjWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = sj_window_dispose;
  window_class->close_request = sj_window_close_request;

  g_type_ensure (SJ_TYPE_CONSOLE_PAGE);
  g_type_ensure (SJ_TYPE_DOWNLOADS_INDICATOR);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SjWindow, play_button);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, record_button);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, record_label);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, tempo_label);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, cycle_label);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, paned);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, editor_overlay);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, loading_spinner);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, panel);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, panel_switcher);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, panel_stack);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, console_page);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, reference_page);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, sounds_page);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, downloads_indicator);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, chat_panel);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, tool_logs_page);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, sessions_bin);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, settings_bin);

  _sj_window_panel_class_init (widget_class);
  _sj_window_agent_class_init (widget_class);
  _sj_window_levels_class_init (widget_class);
}

static void
load_code (SjWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *code = NULL;
  gboolean first_run = FALSE;

  code = sj_code_store_load (self->code_store, &first_run, &error);
  if (code == NULL)
    {
      g_autoptr(SjLogEntry) entry = NULL;
      g_autofree char *text = NULL;

      /* Never overwrite a file we could not read: the user's music may be in
       * it. Start with the demo and leave saving off for this session. */
      text = g_strdup_printf (_("Your saved code could not be read and was left untouched: %s"), error->message);
      entry = sj_log_entry_new (SJ_LOG_LEVEL_ERROR, text);
      sj_console_page_append (self->console_page, entry);
      g_signal_handlers_disconnect_by_data (self->code_store, self);
      g_clear_object (&self->code_store);
      code = g_strdup (sj_code_store_get_demo_code ());
    }

  sj_repl_load (self->repl, code);
}

static void
sj_window_init (SjWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->cancellable = g_cancellable_new ();
  self->settings = g_settings_new (APP_ID);

  g_action_map_add_action_entries (G_ACTION_MAP (self), win_entries, G_N_ELEMENTS (win_entries), self);

  self->repl = sj_repl_new ();
  gtk_overlay_set_child (self->editor_overlay, sj_repl_get_widget (self->repl));
  g_signal_connect_object (self->repl, "ready", G_CALLBACK (repl_ready_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->repl, "notify::ready", G_CALLBACK (update_transport), self, G_CONNECT_SWAPPED);
  /* Each state report of the page notifies cycle, and playing and cps
   * when they changed. */
  for (const char * const *property = (const char *[]) { "notify::playing", "notify::cps", "notify::cycle", NULL };
       *property != NULL; property++)
    g_signal_connect_object (self->repl, *property, G_CALLBACK (update_transport), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->repl, "log", G_CALLBACK (repl_log_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->repl, "eval-error", G_CALLBACK (repl_eval_error_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->repl, "nothing-to-play", G_CALLBACK (repl_nothing_to_play_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->repl, "code-changed", G_CALLBACK (repl_code_changed_cb), self, G_CONNECT_SWAPPED);

  /* .osc() and .midi(): the page's haps go to SjOutputs, its lines to the
   * Console; where they go is in Settings. midin() asks for the MIDI input,
   * whose control changes go back to the page. */
  self->outputs = sj_outputs_new_for_settings (self->settings);
  g_signal_connect_object (self->repl, "output", G_CALLBACK (sj_outputs_handle), self->outputs, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->outputs, "log", G_CALLBACK (outputs_log_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->repl, "midi-input", G_CALLBACK (sj_outputs_open_midi_input), self->outputs,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->repl, "notify::playing", G_CALLBACK (repl_playing_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->outputs, "midi-controls", G_CALLBACK (sj_repl_send_midi_controls), self->repl,
                           G_CONNECT_SWAPPED);
  g_settings_bind (self->settings, "master-limiter", self->repl, "limiter", G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "osc-host", self->outputs, "osc-host", G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "osc-port", self->outputs, "osc-port", G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "midi-backend", self->outputs, "midi-backend", G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "midi-destination", self->outputs, "midi-destination", G_SETTINGS_BIND_GET);

  g_signal_connect (self, "notify::application", G_CALLBACK (application_changed_cb), NULL);

  self->code_store = sj_code_store_new_default ();
  _sj_window_save_init (self);
  _sj_window_render_init (self);
  _sj_window_record_init (self);

  _sj_window_panel_init (self);
  _sj_window_levels_init (self);
  _sj_window_changes_init (self);
  _sj_window_agent_init (self);
  _sj_window_voice_init (self);
  _sj_window_live_init (self);
  _sj_window_open_init (self);
  _sj_window_outputs_init (self);
  _sj_window_play_in_init (self);
  restore_window_state (self);
  update_transport (self);
  load_code (self);

  /* The keyboard starts in the editor, where the music is: Ctrl+Enter plays
   * it, typing changes it (the page puts its editor's cursor in place as
   * soon as it has the focus). Left to itself, GTK would start on the first
   * button of the header bar that takes the focus. */
  gtk_window_set_focus (GTK_WINDOW (self), sj_repl_get_widget (self->repl));
}

SjWindow *
sj_window_new (GtkApplication *application)
{
  return g_object_new (SJ_TYPE_WINDOW, "application", application, NULL);
}

SjRepl *
_sj_window_get_repl (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  return self->repl;
}

SjConsolePage *
_sj_window_get_console_page (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  return self->console_page;
}

SjReferencePage *
_sj_window_get_reference_page (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  return self->reference_page;
}

SjSoundsPage *
_sj_window_get_sounds_page (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  return self->sounds_page;
}

SjCodeStore *
_sj_window_get_code_store (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  return self->code_store;
}
