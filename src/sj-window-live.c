/* sj-window-live.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The window's live-set controls (issue 32): a pending change counts down
 * ("Lands in N beats") in the editor's banner (the page's own, swap.mjs)
 * and on the chat answer that made it, from the page's clock; Cancel
 * Change (the banner's and the answer's Cancel, Ctrl+Shift+Backspace)
 * cancels it before its boundary, leaves the music and the code timeline
 * as they were and tells the agent; the composer's choice of where the
 * agent's change lands holds for its message; and Panic (the header
 * bar's button, Ctrl+Shift+P) stops the agent's answer, cancels the
 * pending change, brings back the last code that was heard sounding,
 * turns ducking off and says what it did.
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "sj-window-private.h"

/* Cancel Change's and Panic's answers, kept for tests. */
static void
say (SjWindow   *self,
     const char *text)
{
  g_free (self->live_status);
  self->live_status = g_strdup (text);
  _sj_window_show_toast (self, text, NULL, NULL);
}

/* The pending swap ------------------------------------------------------ */

/* The committed change's boundary sounds (or another change came since):
 * its answer says Applied, or Listening… for a change the app listens to
 * (Applied once it was heard sounding, sj-window-levels.c). */
static void
landed (SjWindow *self)
{
  double cycle = self->landing_cycle;

  self->landing_cycle = NAN;
  if (self->verifier != NULL && sj_change_verifier_is_checking (self->verifier, cycle))
    sj_chat_panel_swap_changed (self->chat_panel, "listening", cycle);
  else
    sj_chat_panel_swap_changed (self->chat_panel, "landed", cycle);
}

static void
swap_changed_cb (SjWindow   *self,
                 const char *state,
                 double      cycle)
{
  g_assert (SJ_IS_WINDOW (self));

  if (g_str_equal (state, "scheduled"))
    {
      self->pending_cycle = cycle;
      /* A new change: the page counts for it only; the one landing did. */
      if (!isnan (self->landing_cycle))
        landed (self);
      /* The answer Panic stopped had already handed its change to the page
       * (a change is not taken back once asked for): it goes too. */
      if (self->panic_stopped_turn)
        sj_repl_cancel_swap_async (self->repl, NULL, NULL, NULL);
      return;
    }

  if (self->pending_cycle == cycle)
    self->pending_cycle = NAN;

  /* Committed ahead of its boundary (the page's scheduler queries ahead):
   * it sounds when the countdown reaches 0, and cannot be canceled now. */
  if (g_str_equal (state, "applied") && self->countdown_cycle == cycle && self->countdown_beats > 0)
    {
      self->landing_cycle = cycle;
      sj_chat_panel_swap_changed (self->chat_panel, "landing", cycle);
    }

  /* A canceled change never played: the timeline forgets it, as if it had
   * never been sent (Undo goes back to what played before it). */
  if (g_str_equal (state, "canceled") && self->applier != NULL)
    sj_timeline_forget (sj_change_applier_get_timeline (self->applier), cycle);
}

static void
swap_countdown_cb (SjWindow *self,
                   double    cycle,
                   int       beats,
                   double    seconds)
{
  g_assert (SJ_IS_WINDOW (self));

  self->countdown_cycle = cycle;
  self->countdown_beats = beats;
  sj_chat_panel_swap_countdown (self->chat_panel, cycle, beats);
  if (beats == 0 && self->landing_cycle == cycle)
    landed (self);
}

/* The editor banner's Cancel asks for the window's action. */
static void
action_requested_cb (SjWindow   *self,
                     const char *name)
{
  g_assert (SJ_IS_WINDOW (self));

  g_action_group_activate_action (G_ACTION_GROUP (self), name, NULL);
}

/* Cancel Change ---------------------------------------------------------- */

typedef struct
{
  SjWindow *self;
  double    cycle;      /* the boundary of the change being canceled */
  double    at_cycle;   /* where the music was when the musician canceled */
} CancelData;

static void
cancel_data_free (CancelData *data)
{
  g_object_unref (data->self);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CancelData, cancel_data_free)

static void
tell_agent_canceled (SjWindow *self,
                     double    cycle,
                     double    at_cycle)
{
  g_autofree char *line = NULL;
  g_autofree char *note = NULL;

  if (self->agent == NULL)
    return;

  /* TRANSLATORS: a line of the app's own in the chat */
  line = g_strdup_printf (_("You canceled the change due at cycle %g: it never played, the music is unchanged."), cycle);
  note = g_strdup_printf ("The musician canceled the pending change at cycle %.2f, before its boundary "
                          "(cycle %g): it never played. The music and the code are as they were before it.",
                          at_cycle, cycle);
  /* The transcript only where there is one: a cancel starts no session. */
  sj_agent_add_note (self->agent, sj_agent_get_session_id (self->agent) != 0 ? line : NULL, note);
}

static void
cancel_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(CancelData) data = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;
  gboolean canceled = FALSE;

  g_assert (SJ_IS_WINDOW (data->self));

  if (!sj_repl_cancel_swap_finish (SJ_REPL (object), result, &canceled, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          title = g_strdup_printf (_("The change could not be canceled: %s"), error->message);
          _sj_window_show_toast (data->self, title, NULL, NULL);
        }
      return;
    }

  g_debug ("Cancel Change: %s", canceled ? "canceled" : "nothing pending");
  if (!canceled)
    {
      /* The page committed it while the cancel was on its way. */
      if (!isnan (data->self->landing_cycle))
        say (data->self, _("Too late to cancel: the change is landing"));
      else
        say (data->self, _("No change is pending"));
      return;
    }

  tell_agent_canceled (data->self, data->cycle, data->at_cycle);
  say (data->self, _("Change canceled: the code before it plays on"));
}

static void
cancel_change_action (GSimpleAction *action,
                      GVariant      *param,
                      gpointer      user_data)
{
  SjWindow *self = user_data;
  CancelData *data;

  g_assert (SJ_IS_WINDOW (self));

  /* Committed: it sounds within the beat, whatever is asked now. */
  if (isnan (self->pending_cycle) && !isnan (self->landing_cycle))
    {
      g_debug ("Cancel Change: too late, the change due at cycle %g is landing", self->landing_cycle);
      say (self, _("Too late to cancel: the change is landing"));
      return;
    }

  data = g_new0 (CancelData, 1);
  data->self = g_object_ref (self);
  data->cycle = self->pending_cycle;
  data->at_cycle = sj_repl_get_state (self->repl)->cycle;
  g_debug ("Cancel Change: the change due at cycle %g", data->cycle);
  sj_repl_cancel_swap_async (self->repl, self->cancellable, cancel_done_cb, data);
}

/* What was heard ---------------------------------------------------------- */

static void
heard_code_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(SjWindow) self = user_data;
  g_autofree char *code = sj_repl_code_at_cycle_finish (SJ_REPL (object), result, NULL);

  if (code == NULL)
    return;

  g_free (self->heard_code);
  self->heard_code = g_steal_pointer (&code);
}

/* After the level analysis took the report (sj-window-levels.c): the code
 * of the last cycle that sounded is asked of the page, once a cycle. */
static void
levels_cb (SjWindow *self)
{
  const SjCycleLevels *latest;

  g_assert (SJ_IS_WINDOW (self));

  latest = sj_levels_get_latest (self->levels);
  if (latest == NULL || sj_levels_is_silent (latest) || latest->cycle == self->heard_cycle)
    return;

  self->heard_cycle = latest->cycle;
  sj_repl_code_at_cycle_async (self->repl, latest->cycle, self->cancellable, heard_code_cb, g_object_ref (self));
}

/**
 * _sj_window_get_heard_code:
 *
 * Returns: (nullable): the code that played in the last cycle the app
 *   heard sounding, %NULL before any was
 */
const char *
_sj_window_get_heard_code (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));
  return self->heard_code;
}

/**
 * _sj_window_get_live_status:
 *
 * Returns: (nullable): what Cancel Change or Panic said last
 */
const char *
_sj_window_get_live_status (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));
  return self->live_status;
}

/**
 * _sj_window_is_landing:
 *
 * Returns: whether a change is committed and not heard yet (too late to
 *   cancel)
 */
gboolean
_sj_window_is_landing (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));
  return !isnan (self->landing_cycle);
}

/* Panic ------------------------------------------------------------------ */

typedef struct
{
  SjWindow  *self;
  GPtrArray *steps;       /* what was done, for the toast and the chat */
  GPtrArray *notes;       /* the same for the model, in English */
  double     cycle;       /* the pending change's boundary */
  char      *heard;       /* the code to bring back, or NULL */
  gboolean   evaluated;   /* it was played (else only put in the editor) */
} Panic;

static void
panic_free (Panic *panic)
{
  g_object_unref (panic->self);
  g_ptr_array_unref (panic->steps);
  g_ptr_array_unref (panic->notes);
  g_free (panic->heard);
  g_free (panic);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Panic, panic_free)

static void
panic_step (Panic      *panic,
            const char *step,
            const char *note)
{
  g_ptr_array_add (panic->steps, g_strdup (step));
  g_ptr_array_add (panic->notes, g_strdup (note));
}

static void
panic_finish (Panic *owned)
{
  g_autoptr(Panic) panic = owned;
  SjWindow *self = panic->self;
  g_autofree char *list = NULL;
  g_autofree char *line = NULL;
  g_autofree char *note = NULL;

  /* Ducking off: the music at full level, whatever the voice does. A
   * page still loading has no music to duck yet. */
  self->voice_ducked = FALSE;
  if (sj_repl_get_ready (self->repl))
    {
      sj_repl_set_duck_async (self->repl, FALSE, NULL, NULL, NULL);
      panic_step (panic, _("turned ducking off"), "turned ducking off (the music is at full level)");
    }

  g_ptr_array_add (panic->steps, NULL);
  g_ptr_array_add (panic->notes, NULL);
  list = g_strjoinv ("; ", (char **) panic->steps->pdata);
  /* TRANSLATORS: Panic's report, e.g. "Panic: stopped the agent’s answer;
   * canceled the change due at cycle 12; turned ducking off" */
  line = g_strdup_printf (_("Panic: %s."), list);
  say (self, line);

  if (sj_window_get_agent (self) != NULL)
    {
      g_autofree char *notes = g_strjoinv ("; ", (char **) panic->notes->pdata);

      note = g_strdup_printf ("The musician pressed Panic: %s. Do not bring back what Panic undid "
                              "unless the musician asks.", notes);
      sj_agent_add_note (self->agent, line, note);
    }

  self->panicking = FALSE;
}

static void
panic_restored_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  Panic *panic = user_data;

  if (panic->evaluated)
    {
      g_autoptr(JsonObject) answer = sj_repl_evaluate_finish (SJ_REPL (object), result, &error);
    }
  else
    sj_repl_set_code_finish (SJ_REPL (object), result, &error);

  if (error != NULL)
    {
      g_autofree char *step = g_strdup_printf (_("could not bring back the last code heard (%s)"), error->message);

      panic_step (panic, step, "could not bring back the last code heard sounding");
    }
  else
    {
      panic_step (panic, _("brought back the last code heard sounding"),
                  "brought back the last code that was heard sounding (it is in the editor and plays)");
      if (panic->self->applier != NULL)
        sj_timeline_push (sj_change_applier_get_timeline (panic->self->applier), panic->heard,
                          sj_repl_get_state (panic->self->repl)->cycle, "user");
    }
  panic_finish (panic);
}

static void
panic_code_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  Panic *panic = user_data;
  SjWindow *self = panic->self;
  g_autofree char *current = sj_repl_fetch_code_finish (SJ_REPL (object), result, NULL);

  if (panic->heard == NULL)
    {
      panic_step (panic, _("kept the current code (none was heard sounding yet)"),
                  "kept the current code: none was heard sounding yet");
      panic_finish (panic);
      return;
    }

  if (g_strcmp0 (current, panic->heard) == 0)
    {
      panic_step (panic, _("kept the code, the last heard sounding"),
                  "kept the code: it is the last that was heard sounding");
      panic_finish (panic);
      return;
    }

  /* Playing, it plays at once; stopped, it waits in the editor. */
  panic->evaluated = sj_repl_get_state (self->repl)->playing;
  if (panic->evaluated)
    sj_repl_evaluate_async (self->repl, panic->heard, NULL, panic_restored_cb, panic);
  else
    sj_repl_set_code_async (self->repl, panic->heard, NULL, panic_restored_cb, panic);
}

static void
panic_canceled_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Panic *panic = user_data;
  gboolean canceled = FALSE;

  if (sj_repl_cancel_swap_finish (SJ_REPL (object), result, &canceled, NULL) && canceled)
    {
      g_autofree char *step = g_strdup_printf (_("canceled the change due at cycle %g"), panic->cycle);
      g_autofree char *note = g_strdup_printf ("canceled the pending change due at cycle %g (it never played)",
                                               panic->cycle);

      panic_step (panic, step, note);
    }

  sj_repl_fetch_code_async (SJ_REPL (object), NULL, panic_code_cb, panic);
}

static void
panic_action (GSimpleAction *action,
              GVariant      *param,
              gpointer       user_data)
{
  SjWindow *self = user_data;
  Panic *panic;

  g_assert (SJ_IS_WINDOW (self));

  /* One at a time: a second press while the first runs adds nothing. */
  if (self->panicking)
    return;
  self->panicking = TRUE;

  panic = g_new0 (Panic, 1);
  panic->self = g_object_ref (self);
  panic->steps = g_ptr_array_new_with_free_func (g_free);
  panic->notes = g_ptr_array_new_with_free_func (g_free);
  panic->cycle = self->pending_cycle;
  panic->heard = g_strdup (self->heard_code);

  /* An MCP client's call still at work (a change in its dry-run) is
   * stopped as the agent's answer is. */
  _sj_window_mcp_cancel_calls (self);

  if (self->agent != NULL && sj_agent_is_busy (self->agent))
    {
      sj_agent_stop (self->agent);
      self->panic_stopped_turn = TRUE;
      panic_step (panic, _("stopped the agent’s answer"), "stopped your answer");
    }

  if (!sj_repl_get_ready (self->repl))
    {
      g_clear_pointer (&panic->heard, g_free);
      panic_step (panic, _("the music is still loading, nothing played yet"),
                  "the music page was still loading: nothing played yet, nothing else to undo");
      panic_finish (panic);
      return;
    }

  sj_repl_cancel_swap_async (self->repl, NULL, panic_canceled_cb, panic);
}

/**
 * _sj_window_is_panicking:
 *
 * Returns: whether Panic is still at work (it asks the page several things)
 */
gboolean
_sj_window_is_panicking (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));
  return self->panicking;
}

/* Where the agent's change lands, for one message ------------------------ */

static void
agent_busy_cb (SjWindow *self)
{
  SjAgent *agent = self->agent;
  SjSwapPolicy policy;
  const char *landing;
  SjComposer *composer;

  g_assert (SJ_IS_WINDOW (self));

  if (agent == NULL)
    return;

  if (!sj_agent_is_busy (agent))
    {
      self->panic_stopped_turn = FALSE;
      /* The turn is over: the Settings' choice again. */
      if (self->landing_override)
        _sj_window_changes_read_defaults (self);
      self->landing_override = FALSE;
      return;
    }

  composer = sj_chat_panel_get_composer (self->chat_panel);
  landing = sj_composer_get_landing (composer);
  if (landing == NULL)
    return;

  sj_change_applier_get_defaults (sj_window_get_applier (self), &policy);
  if (g_str_equal (landing, "next_beat"))
    policy.quantize = SJ_QUANTIZE_NEXT_BEAT;
  else if (g_str_equal (landing, "next_cycle"))
    policy.quantize = SJ_QUANTIZE_NEXT_CYCLE;
  else if (g_str_equal (landing, "next_bar"))
    policy.quantize = SJ_QUANTIZE_NEXT_BAR;
  else
    policy.quantize = SJ_QUANTIZE_BARS;
  sj_change_applier_set_defaults (sj_window_get_applier (self), &policy);
  self->landing_override = TRUE;
  /* One message's choice: the next one starts from Default. */
  sj_composer_set_landing (composer, NULL);
}

/* Keys wherever the keyboard is ----------------------------------------- */

/* Cancel Change and Panic act from the code editor too (the page takes
 * every key it is given): the window sees them first, in the capture
 * phase, as Stop's keys (sj-window-agent.c). */
static gboolean
live_shortcut_cb (GtkWidget *widget,
                  GVariant  *args,
                  gpointer   user_data)
{
  g_action_group_activate_action (G_ACTION_GROUP (widget), g_variant_get_string (args, NULL), NULL);
  return TRUE;
}

static void
add_live_shortcuts (SjWindow *self)
{
  GtkEventController *controller = gtk_shortcut_controller_new ();
  GtkShortcut *shortcut;

  gtk_event_controller_set_name (controller, "sj-live-controls");
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);

  shortcut = gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_BackSpace, GDK_CONTROL_MASK | GDK_SHIFT_MASK),
                               gtk_callback_action_new (live_shortcut_cb, NULL, NULL));
  gtk_shortcut_set_arguments (shortcut, g_variant_new_string ("cancel-change"));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller), shortcut);

  shortcut = gtk_shortcut_new (gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_p, GDK_CONTROL_MASK | GDK_SHIFT_MASK),
                                                            gtk_keyval_trigger_new (GDK_KEY_P, GDK_CONTROL_MASK | GDK_SHIFT_MASK)),
                               gtk_callback_action_new (live_shortcut_cb, NULL, NULL));
  gtk_shortcut_set_arguments (shortcut, g_variant_new_string ("panic"));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller), shortcut);

  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}

static const GActionEntry live_entries[] = {
  { "cancel-change", cancel_change_action },
  { "panic", panic_action },
};

void
_sj_window_live_init (SjWindow *self)
{
  self->pending_cycle = NAN;
  self->heard_cycle = NAN;
  self->landing_cycle = NAN;
  self->countdown_cycle = NAN;
  self->countdown_beats = -1;

  g_action_map_add_action_entries (G_ACTION_MAP (self), live_entries, G_N_ELEMENTS (live_entries), self);
  add_live_shortcuts (self);

  g_signal_connect_object (self->repl, "swap-changed", G_CALLBACK (swap_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->repl, "swap-countdown", G_CALLBACK (swap_countdown_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->repl, "action-requested", G_CALLBACK (action_requested_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->repl, "levels", G_CALLBACK (levels_cb), self,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_group_connect_swapped (self->agent_signals, "notify::busy", G_CALLBACK (agent_busy_cb), self);
}

void
_sj_window_live_dispose (SjWindow *self)
{
  g_clear_pointer (&self->heard_code, g_free);
  g_clear_pointer (&self->live_status, g_free);
}
