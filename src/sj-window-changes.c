/* sj-window-changes.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The window's side of safe changes: one apply pipeline per window (its
 * page, the dry-run helper, the app's knowledge, the code timeline), its
 * defaults from the settings, and the Undo Change action.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-application.h"
#include "sj-repl-target.h"
#include "sj-window-private.h"

/* The Sessions page's code timeline follows every change, the agent's and
 * Undo included (after the agent's handler has recorded it). */
static void
timeline_changed_cb (SjWindow   *self,
                     SjTimeline *timeline)
{
  g_assert (SJ_IS_WINDOW (self));

  if (self->sessions_page != NULL)
    sj_sessions_page_reload (self->sessions_page);
}

void
_sj_window_changes_read_defaults (SjWindow *self)
{
  g_autofree char *quantize = g_settings_get_string (self->settings, "quantize");
  SjSwapPolicy policy = { SJ_QUANTIZE_NEXT_CYCLE, 1, 4, FALSE, 1 };

  if (g_str_equal (quantize, "next_beat"))
    policy.quantize = SJ_QUANTIZE_NEXT_BEAT;
  else if (g_str_equal (quantize, "next_bar"))
    policy.quantize = SJ_QUANTIZE_NEXT_BAR;
  else if (g_str_equal (quantize, "bars"))
    policy.quantize = SJ_QUANTIZE_BARS;
  policy.bars = g_settings_get_uint (self->settings, "quantize-bars");
  policy.bar_cycles = g_settings_get_uint (self->settings, "bar-cycles");

  sj_change_applier_set_defaults (sj_window_get_applier (self), &policy);
}

/**
 * sj_window_get_applier:
 *
 * The pipeline is built on first use: it needs the application's
 * knowledge, which the window does not have while it is being constructed.
 *
 * Returns: (transfer none): apply_strudel_change, read_code and undo for
 *   this window's music
 */
SjChangeApplier *
sj_window_get_applier (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  if (self->applier == NULL)
    {
      SjApplication *app = SJ_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));
      g_autoptr(SjReplTarget) target = sj_repl_target_new (self->repl);
      g_autoptr(SjTimeline) timeline = sj_timeline_new ();

      self->applier = sj_change_applier_new (SJ_LIVE_TARGET (target), self->dry_run,
                                             sj_application_get_knowledge (app), timeline);
      sj_change_applier_set_sound_cache (self->applier, sj_application_get_sound_cache (app));
      g_signal_connect_object (timeline, "changed", G_CALLBACK (timeline_changed_cb), self,
                               G_CONNECT_SWAPPED | G_CONNECT_AFTER);
      _sj_window_changes_read_defaults (self);
      g_signal_connect_object (self->settings, "changed", G_CALLBACK (_sj_window_changes_read_defaults), self,
                               G_CONNECT_SWAPPED);
      _sj_window_levels_attach (self);
    }

  return self->applier;
}

static void
undo_change_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autoptr(SjChangeResult) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;

  answer = sj_change_applier_undo_finish (SJ_CHANGE_APPLIER (object), result, &error);
  if (answer == NULL)
    return;

  switch (answer->status)
    {
    case SJ_CHANGE_STATUS_REJECTED:
      if (answer->rejection == SJ_CHANGE_REJECTION_NOTHING_TO_UNDO)
        title = g_strdup (_("Nothing to undo"));
      else
        title = g_strdup_printf (_("Cannot undo: %s"), sj_change_result_get_message (answer));
      break;

    case SJ_CHANGE_STATUS_SCHEDULED:
      /* Translators: the change lands when the music reaches that cycle. */
      title = g_strdup_printf (_("Undo lands at cycle %.0f"), answer->apply_at_cycle);
      break;

    case SJ_CHANGE_STATUS_APPLIED:
    default:
      title = g_strdup (_("Previous code restored"));
      break;
    }

  _sj_window_show_toast (self, title, NULL, NULL);
}

static void
undo_change_action (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       user_data)
{
  SjWindow *self = user_data;

  g_assert (SJ_IS_WINDOW (self));

  sj_change_applier_undo_async (sj_window_get_applier (self), self->cancellable,
                                undo_change_cb, g_object_ref (self));
}

/* A code block's Apply in the chat: the one route from the button to the
 * safe apply (the button activates this action itself). */
static void
apply_code_action (GSimpleAction *action,
                   GVariant      *param,
                   gpointer       user_data)
{
  SjWindow *self = user_data;

  g_assert (SJ_IS_WINDOW (self));

  _sj_window_apply_code (self, g_variant_get_string (param, NULL), _("Code block"));
}

static const GActionEntry change_entries[] = {
  { "apply-code", apply_code_action, "s" },
  { "undo-change", undo_change_action },
};

/* The helper process is started once the page is up, so that the first
 * change does not wait for it and start-up does not either. */
static void
repl_ready_cb (SjWindow *self)
{
  sj_dry_run_start (self->dry_run);
}

void
_sj_window_changes_init (SjWindow *self)
{
  self->dry_run = sj_dry_run_new ();

  g_action_map_add_action_entries (G_ACTION_MAP (self), change_entries, G_N_ELEMENTS (change_entries), self);
  g_signal_connect_object (self->repl, "ready", G_CALLBACK (repl_ready_cb), self, G_CONNECT_SWAPPED);
}

void
_sj_window_changes_dispose (SjWindow *self)
{
  g_clear_object (&self->applier);
  g_clear_object (&self->dry_run);
}

typedef struct
{
  SjWindow *self;
  char     *what;
} ApplyCode;

static void
apply_code_free (ApplyCode *apply)
{
  g_object_unref (apply->self);
  g_free (apply->what);
  g_free (apply);
}

static void
apply_code_done_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  ApplyCode *apply = user_data;
  g_autoptr(SjChangeResult) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;

  answer = sj_change_applier_apply_finish (SJ_CHANGE_APPLIER (object), result, &error);
  if (answer != NULL)
    {
      if (answer->status != SJ_CHANGE_STATUS_REJECTED)
        title = g_strdup_printf (_("%s: queued for cycle %.0f"), apply->what, answer->apply_at_cycle);
      else
        title = g_strdup_printf (_("%s: not applied, the music is unchanged. %s"), apply->what,
                                 sj_change_result_get_message (answer));
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    title = g_strdup_printf (_("%s: not applied (%s)"), apply->what, error->message);

  if (title != NULL)
    _sj_window_show_toast (apply->self, title, NULL, NULL);
  apply_code_free (apply);
}

/**
 * _sj_window_apply_code:
 * @what: what the toast calls it, e.g. "Code block" or "Revert"
 *
 * Puts @code in place of the editor's code the safe way: dry-run first,
 * then swapped in on the next boundary, as the agent's changes are.
 */
void
_sj_window_apply_code (SjWindow   *self,
                       const char *code,
                       const char *what)
{
  ApplyCode *apply = g_new0 (ApplyCode, 1);

  g_assert (SJ_IS_WINDOW (self));

  apply->self = g_object_ref (self);
  apply->what = g_strdup (what);
  sj_change_applier_replace_async (sj_window_get_applier (self), code, "user", self->cancellable,
                                   apply_code_done_cb, apply);
}
