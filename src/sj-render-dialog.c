/* sj-render-dialog.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Render to File (issue 33): how many cycles, whether to write a file per
 * `$:` layer too, then a file chooser (the portal in Flatpak), progress and
 * Cancel. The render happens in SjRenderer's hidden page: the music in the
 * window plays on. The stems go in a folder beside the chosen file, named
 * after it ("jam.wav" -> "jam-stems/").
 *
 * The dialog is small and built in code: a spin button, a check button, a
 * progress bar and a status line.
 *
 * Render Jam to File (issue 33 item 4, from the Sessions page) uses the same
 * dialog for a session of the history: the session's code changes, each at
 * the cycle it landed (sj-render-timeline.c), read from the history when
 * Render is chosen; the spin button is then the cycles after the last
 * change, and there are no stems.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sj-flac-encoder.h"
#include "sj-render-dialog-private.h"
#include "sj-render-timeline.h"

struct _SjRenderDialog
{
  AdwWindow       parent_instance;

  SjRenderer     *renderer;
  char           *code;
  double          cps;
  GCancellable   *cancellable;
  JsonObject     *summary;
  GtkNativeDialog *chooser;
  SjHistoryStore *store;        /* a jam's, with session */
  gint64          session;
  char           *file_name;

  GtkSpinButton  *cycles;
  GtkCheckButton *stems;
  GtkProgressBar *progress;
  GtkLabel       *status;
  GtkButton      *render_button;
  GtkButton      *cancel_button;
};

G_DEFINE_FINAL_TYPE (SjRenderDialog, sj_render_dialog, ADW_TYPE_WINDOW)

static void
set_busy (SjRenderDialog *self,
          gboolean        busy)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->render_button), !busy);
  gtk_widget_set_sensitive (GTK_WIDGET (self->cycles), !busy);
  gtk_widget_set_sensitive (GTK_WIDGET (self->stems), !busy);
  gtk_widget_set_visible (GTK_WIDGET (self->progress), busy);
  gtk_button_set_label (self->cancel_button, busy ? _("_Cancel") : _("_Close"));
}

static void
set_status (SjRenderDialog *self,
            const char     *text)
{
  gtk_label_set_text (self->status, text);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->status), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
}

static void
progress_cb (SjRenderDialog *self)
{
  gtk_progress_bar_set_fraction (self->progress, sj_renderer_get_progress (self->renderer));
}

static void
rendered_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(SjRenderDialog) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) summary = sj_renderer_render_finish (SJ_RENDERER (object), result, &error);
  g_autofree char *text = NULL;

  g_clear_object (&self->cancellable);
  set_busy (self, FALSE);

  if (summary == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        set_status (self, _("Cancelled: no file was written"));
      else
        {
          /* TRANSLATORS: %s says why the render failed */
          text = g_strdup_printf (_("Nothing was written: %s"), error->message);
          set_status (self, text);
        }
      return;
    }

  text = g_strdup_printf (ngettext ("Rendered %.1f seconds to %u file (peak %.1f dBFS)",
                                    "Rendered %.1f seconds to %u files (peak %.1f dBFS)",
                                    json_array_get_length (json_object_get_array_member (summary, "files"))),
                          json_object_get_double_member (summary, "seconds"),
                          json_array_get_length (json_object_get_array_member (summary, "files")),
                          json_object_get_double_member (summary, "peakDbfs"));
  set_status (self, text);
  g_clear_pointer (&self->summary, json_object_unref);
  self->summary = g_steal_pointer (&summary);
}

void
_sj_render_dialog_render_to (SjRenderDialog *self,
                             const char     *path)
{
  g_autoptr(SjRenderOptions) options = sj_render_options_new ();

  g_assert (SJ_IS_RENDER_DIALOG (self));
  g_return_if_fail (path != NULL);

  if (self->cancellable != NULL)
    return;

  if (self->store != NULL)
    {
      g_autoptr(SjRenderTimeline) timeline = NULL;
      g_autoptr(GError) error = NULL;

      timeline = sj_render_timeline_load (self->store, self->session,
                                          gtk_spin_button_get_value_as_int (self->cycles), &error);
      if (timeline == NULL)
        {
          /* TRANSLATORS: %s says why the render failed */
          g_autofree char *text = g_strdup_printf (_("Nothing was written: %s"), error->message);

          set_status (self, text);
          return;
        }
      g_clear_pointer (&options, sj_render_options_free);
      options = sj_render_timeline_to_options (timeline);
    }
  else
    {
      options->code = g_strdup (self->code);
      options->cycles = gtk_spin_button_get_value_as_int (self->cycles);
    }
  options->cps = self->cps > 0 ? self->cps : SJ_RENDER_DEFAULT_CPS;
  options->output = g_strdup (path);
  if (self->store == NULL && gtk_check_button_get_active (self->stems))
    {
      const char *dot = strrchr (path, '.');
      g_autofree char *base = dot != NULL && (g_ascii_strcasecmp (dot, ".wav") == 0 || g_ascii_strcasecmp (dot, ".flac") == 0)
                              ? g_strndup (path, dot - path) : g_strdup (path);

      options->stems_dir = g_strdup_printf ("%s-stems", base);
    }

  g_clear_pointer (&self->summary, json_object_unref);
  self->cancellable = g_cancellable_new ();
  set_busy (self, TRUE);
  gtk_progress_bar_set_fraction (self->progress, 0);
  set_status (self, _("Rendering… the music plays on"));
  sj_renderer_render_async (self->renderer, options, self->cancellable, rendered_cb, g_object_ref (self));
}

static void
chooser_response_cb (SjRenderDialog *self,
                     int             response,
                     GtkNativeDialog *chooser)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  g_clear_object (&self->chooser);
  if (file == NULL || (path = g_file_get_path (file)) == NULL)
    return;

  /* A name with neither extension gets the chosen filter's (WAV by default). */
  if (!g_str_has_suffix (path, ".wav") && !g_str_has_suffix (path, ".WAV") && !sj_path_is_flac (path))
    {
      GtkFileFilter *filter = gtk_file_chooser_get_filter (GTK_FILE_CHOOSER (chooser));
      gboolean flac = filter != NULL && g_object_get_data (G_OBJECT (filter), "sj-flac") != NULL;
      char *named = g_strconcat (path, flac ? ".flac" : ".wav", NULL);

      g_free (path);
      path = named;
    }

  _sj_render_dialog_render_to (self, path);
}

/* The format is the file's extension: WAV or FLAC (SjWavWriter). */
static void
add_filter (GtkFileChooser *chooser,
            const char     *name,
            const char     *pattern,
            const char     *mime_type,
            gboolean        flac)
{
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, name);
  gtk_file_filter_add_pattern (filter, pattern);
  gtk_file_filter_add_mime_type (filter, mime_type);
  if (flac)
    g_object_set_data (G_OBJECT (filter), "sj-flac", GINT_TO_POINTER (1));
  gtk_file_chooser_add_filter (chooser, filter);
}

static void
render_clicked_cb (SjRenderDialog *self)
{
  GtkFileChooserNative *chooser;

  g_assert (SJ_IS_RENDER_DIALOG (self));

  chooser = gtk_file_chooser_native_new (_("Render to File"), GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE,
                                         _("_Render"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), self->file_name != NULL ? self->file_name : _("jam.wav"));
  add_filter (GTK_FILE_CHOOSER (chooser), _("WAV (16-bit)"), "*.wav", "audio/x-wav", FALSE);
  add_filter (GTK_FILE_CHOOSER (chooser), _("FLAC (lossless, smaller)"), "*.flac", "audio/flac", TRUE);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect_object (chooser, "response", G_CALLBACK (chooser_response_cb), self, G_CONNECT_SWAPPED);
  g_clear_object (&self->chooser);
  self->chooser = GTK_NATIVE_DIALOG (chooser);
  gtk_native_dialog_show (self->chooser);
}

static void
cancel_clicked_cb (SjRenderDialog *self)
{
  g_assert (SJ_IS_RENDER_DIALOG (self));

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  else
    gtk_window_close (GTK_WINDOW (self));
}

gboolean
_sj_render_dialog_is_busy (SjRenderDialog *self)
{
  return self->cancellable != NULL;
}

JsonObject *
_sj_render_dialog_get_summary (SjRenderDialog *self)
{
  return self->summary;
}

const char *
_sj_render_dialog_get_status (SjRenderDialog *self)
{
  return gtk_label_get_text (self->status);
}

GtkButton *
_sj_render_dialog_get_cancel_button (SjRenderDialog *self)
{
  return self->cancel_button;
}

SjRenderDialog *
sj_render_dialog_new (GtkWindow  *parent,
                      SjRenderer *renderer,
                      const char *code,
                      double      cps)
{
  SjRenderDialog *self;

  g_return_val_if_fail (SJ_IS_RENDERER (renderer), NULL);

  self = g_object_new (SJ_TYPE_RENDER_DIALOG,
                       "transient-for", parent,
                       "modal", TRUE,
                       "title", _("Render to File"),
                       "default-width", 420,
                       NULL);
  self->renderer = g_object_ref (renderer);
  self->code = g_strdup (code != NULL ? code : "");
  self->cps = cps;
  g_signal_connect_object (renderer, "notify::progress", G_CALLBACK (progress_cb), self, G_CONNECT_SWAPPED);

  return self;
}

/**
 * sj_render_dialog_new_for_session:
 * @store: the history holding @session_id
 * @title: (nullable): the session's title, for the file's name
 * @cps: the tempo until a code sets its own
 *
 * Render Jam to File: the session's code changes as they happened.
 */
SjRenderDialog *
sj_render_dialog_new_for_session (GtkWindow      *parent,
                                  SjRenderer     *renderer,
                                  SjHistoryStore *store,
                                  gint64          session_id,
                                  const char     *title,
                                  double          cps)
{
  SjRenderDialog *self;
  g_autoptr(GString) name = g_string_new (NULL);

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (store), NULL);

  self = sj_render_dialog_new (parent, renderer, NULL, cps);
  self->store = g_object_ref (store);
  self->session = session_id;
  gtk_window_set_title (GTK_WINDOW (self), _("Render Jam to File"));

  /* The spin button is the cycles after the last change; one file only. */
  gtk_spin_button_set_range (self->cycles, 0, SJ_RENDER_MAX_CYCLES);
  gtk_spin_button_set_value (self->cycles, SJ_RENDER_DEFAULT_CYCLES);
  gtk_label_set_text_with_mnemonic (GTK_LABEL (gtk_widget_get_prev_sibling (GTK_WIDGET (self->cycles))),
                                    _("C_ycles after the last change"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->cycles), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Cycles to render after the last change"), -1);
  gtk_widget_set_visible (GTK_WIDGET (self->stems), FALSE);
  set_status (self, _("The session's code as it happened, each change at the cycle it landed, to one 16-bit WAV or FLAC "
                      "file at 48 kHz; the music plays on while it renders."));

  for (const char *p = title != NULL ? title : ""; *p != '\0' && name->len < 60; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isalnum (c) || c == '-' || c == '_' || c == ' ')
        g_string_append_unichar (name, c);
    }
  g_strstrip (name->str);
  g_string_set_size (name, strlen (name->str));
  self->file_name = g_strdup_printf ("%s.wav", name->len > 0 ? name->str : _("jam"));

  return self;
}

static void
sj_render_dialog_dispose (GObject *object)
{
  SjRenderDialog *self = (SjRenderDialog *)object;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->chooser);

  G_OBJECT_CLASS (sj_render_dialog_parent_class)->dispose (object);
}

static void
sj_render_dialog_finalize (GObject *object)
{
  SjRenderDialog *self = (SjRenderDialog *)object;

  g_clear_object (&self->renderer);
  g_clear_object (&self->store);
  g_free (self->file_name);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->summary, json_object_unref);
  g_free (self->code);

  G_OBJECT_CLASS (sj_render_dialog_parent_class)->finalize (object);
}

static void
sj_render_dialog_class_init (SjRenderDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_render_dialog_dispose;
  object_class->finalize = sj_render_dialog_finalize;

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
sj_render_dialog_init (SjRenderDialog *self)
{
  GtkWidget *toolbar = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *label;
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);

  gtk_box_append (GTK_BOX (toolbar), adw_header_bar_new ());
  gtk_widget_set_margin_start (box, 18);
  gtk_widget_set_margin_end (box, 18);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 18);

  label = gtk_label_new_with_mnemonic (_("C_ycles"));
  gtk_widget_set_hexpand (label, TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  self->cycles = GTK_SPIN_BUTTON (gtk_spin_button_new_with_range (SJ_RENDER_MIN_CYCLES, SJ_RENDER_MAX_CYCLES, 1));
  gtk_spin_button_set_value (self->cycles, SJ_RENDER_DEFAULT_CYCLES);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), GTK_WIDGET (self->cycles));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->cycles), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Cycles to render"), -1);
  gtk_box_append (GTK_BOX (row), label);
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (self->cycles));
  gtk_box_append (GTK_BOX (box), row);

  self->stems = GTK_CHECK_BUTTON (gtk_check_button_new_with_mnemonic (_("Also one file per _layer ($:), in a folder beside it")));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->stems));

  self->progress = GTK_PROGRESS_BAR (gtk_progress_bar_new ());
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->progress), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Render progress"), -1);
  gtk_widget_set_visible (GTK_WIDGET (self->progress), FALSE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->progress));

  self->status = GTK_LABEL (gtk_label_new (_("A 16-bit WAV or FLAC file at 48 kHz, by the name's extension; the music plays on while it renders.")));
  gtk_label_set_wrap (self->status, TRUE);
  gtk_label_set_xalign (self->status, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->status), "dim-label");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->status));

  gtk_widget_set_halign (buttons, GTK_ALIGN_END);
  self->cancel_button = GTK_BUTTON (gtk_button_new_with_mnemonic (_("_Close")));
  self->render_button = GTK_BUTTON (gtk_button_new_with_mnemonic (_("_Render…")));
  gtk_widget_add_css_class (GTK_WIDGET (self->render_button), "suggested-action");
  g_signal_connect_object (self->cancel_button, "clicked", G_CALLBACK (cancel_clicked_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->render_button, "clicked", G_CALLBACK (render_clicked_cb), self, G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (buttons), GTK_WIDGET (self->cancel_button));
  gtk_box_append (GTK_BOX (buttons), GTK_WIDGET (self->render_button));
  gtk_box_append (GTK_BOX (box), buttons);

  gtk_box_append (GTK_BOX (toolbar), box);
  adw_window_set_content (ADW_WINDOW (self), toolbar);
  gtk_window_set_default_widget (GTK_WINDOW (self), GTK_WIDGET (self->render_button));
  /* Enter renders at once; the cycles are a Tab away (Alt+Y). */
  gtk_window_set_focus (GTK_WINDOW (self), GTK_WIDGET (self->render_button));
}
