/* sj-window-levels.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The window's side of what the app hears of its own output (issue 29):
 * the page's `levels` reports go to one SjLevels per window (the agent's
 * listen tool reads it), the header bar's level meter follows it (its
 * accessible name says the level in words, "Output level −12 dB,
 * clipping", and a Clip sign shows for two seconds after a full-scale
 * sample), and an SjChangeVerifier listens to every change the apply
 * pipeline lands, in the mode the "verify-landed-changes" setting says.
 * What it concludes goes to the chat (the answer that made the change
 * shows Listening…, then Applied, Reverted or a warning) and, for a
 * change that was put back or kept silent, to a toast.
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "sj-window-private.h"

/* The meter shows the peak from this floor to full scale. */
#define METER_FLOOR_DB (-60.0)

static void
update_meter (SjWindow *self)
{
  gboolean playing = sj_repl_get_state (self->repl)->playing;
  double peak = sj_levels_get_peak_db (self->levels);
  gboolean clipping = playing && sj_levels_get_clipping (self->levels);
  g_autofree char *label = NULL;

  g_assert (SJ_IS_WINDOW (self));

  gtk_widget_set_sensitive (self->level_box, playing);
  if (!playing || peak <= SJ_LEVELS_FLOOR_DB + 1)
    {
      if (gtk_level_bar_get_value (self->level_meter) != 0)
        gtk_level_bar_set_value (self->level_meter, 0);
      label = g_strdup (playing ? _("Output level: silent") : _("Output level: stopped"));
    }
  else
    {
      int db = (int) lround (MIN (peak, 0));
      /* A typographic minus, as the desktop writes negative figures. */
      g_autofree char *figure = g_strdup_printf ("%s%d", db < 0 ? "−" : "", ABS (db));

      /* In whole decibels, as the label says it: a report whose peak is
       * within the same decibel leaves the bar as it is, not redrawn. */
      double value = CLAMP ((db - METER_FLOOR_DB) / -METER_FLOOR_DB, 0, 1);

      if (gtk_level_bar_get_value (self->level_meter) != value)
        gtk_level_bar_set_value (self->level_meter, value);
      /* TRANSLATORS: the header bar's level meter, read by screen readers,
       * e.g. "Output level −12 dB" or "Output level −1 dB, clipping" */
      label = clipping ? g_strdup_printf (_("Output level %s dB, clipping"), figure)
                       : g_strdup_printf (_("Output level %s dB"), figure);
    }
  gtk_widget_set_visible (self->clip_label, clipping);

  if (g_strcmp0 (label, self->meter_label) != 0)
    {
      g_free (self->meter_label);
      self->meter_label = g_steal_pointer (&label);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->level_meter),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, self->meter_label, -1);
    }
}

static void
levels_cb (SjWindow            *self,
           const SjLevelReport *report)
{
  g_assert (SJ_IS_WINDOW (self));

  sj_levels_add_report (self->levels, report);
  update_meter (self);
}

static void
playing_cb (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  /* What was measured belongs to the music that stopped. */
  if (!sj_repl_get_state (self->repl)->playing)
    sj_levels_clear (self->levels);
  update_meter (self);
}

/* The Clip sign goes two seconds after the last full-scale sample, and
 * reports stop coming when the page is quiet: the meter looks again. */
static gboolean
meter_tick_cb (gpointer user_data)
{
  SjWindow *self = user_data;

  if (self->clip_label != NULL && gtk_widget_get_visible (self->clip_label))
    update_meter (self);

  return G_SOURCE_CONTINUE;
}

static void
verify_mode_cb (SjWindow *self)
{
  g_autofree char *mode = g_settings_get_string (self->settings, "verify-landed-changes");

  if (self->verifier != NULL)
    sj_change_verifier_set_mode (self->verifier, mode);
}

static void
verified_cb (SjWindow   *self,
             double      cycle,
             const char *state,
             const char *message)
{
  g_assert (SJ_IS_WINDOW (self));

  sj_chat_panel_change_verified (self->chat_panel, state, cycle, message);

  if (g_str_equal (state, "reverted"))
    _sj_window_show_toast (self, _("The change made no sound or failed to play: the previous code plays again"),
                           _("Console"), "win.show-console");
  else if (g_str_equal (state, "kept"))
    _sj_window_show_toast (self, _("The change made no sound or failed to play, and was kept"),
                           _("Console"), "win.show-console");
}

void
_sj_window_levels_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child (widget_class, SjWindow, level_box);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, level_meter);
  gtk_widget_class_bind_template_child (widget_class, SjWindow, clip_label);
}

void
_sj_window_levels_init (SjWindow *self)
{
  self->levels = sj_levels_new ();
  g_signal_connect_object (self->repl, "levels", G_CALLBACK (levels_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->repl, "notify::playing", G_CALLBACK (playing_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::verify-landed-changes", G_CALLBACK (verify_mode_cb), self,
                           G_CONNECT_SWAPPED);
  self->meter_tick_id = g_timeout_add_seconds (1, meter_tick_cb, self);
  gtk_level_bar_add_offset_value (self->level_meter, GTK_LEVEL_BAR_OFFSET_LOW, 0.8);
  gtk_level_bar_add_offset_value (self->level_meter, GTK_LEVEL_BAR_OFFSET_HIGH, 0.95);
  gtk_level_bar_add_offset_value (self->level_meter, GTK_LEVEL_BAR_OFFSET_FULL, 1.0);
  update_meter (self);
}

/* Called once the apply pipeline exists: its changes are listened to. */
void
_sj_window_levels_attach (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));
  g_return_if_fail (self->applier != NULL);

  if (self->verifier != NULL)
    return;

  self->verifier = sj_change_verifier_new (self->applier, self->levels);
  g_signal_connect_object (self->verifier, "changed", G_CALLBACK (verified_cb), self, G_CONNECT_SWAPPED);
  verify_mode_cb (self);
}

void
_sj_window_levels_dispose (SjWindow *self)
{
  g_clear_handle_id (&self->meter_tick_id, g_source_remove);
  g_clear_object (&self->verifier);
  g_clear_object (&self->levels);
  g_clear_pointer (&self->meter_label, g_free);
}

SjLevels *
_sj_window_get_levels (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  return self->levels;
}

SjChangeVerifier *
_sj_window_get_verifier (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  sj_window_get_applier (self);
  return self->verifier;
}
