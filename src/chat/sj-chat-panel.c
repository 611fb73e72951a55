/* sj-chat-panel.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Chat page of the side panel: the conversation with the agent, the
 * composer under it, and a banner for what stops the agent mid-session
 * (a refused key, rate limits, no network). While no model is usable yet
 * (SjAgentConfig has a problem) the first-start status page, SjOnboarding,
 * stands in their place; once the agent can work, the composer is back,
 * with the keyboard if it was on the status page.
 *
 * The conversation is a GtkListView over SjChatMessages, so a session of
 * thousands of messages costs only the rows on screen. The agent's signals
 * keep the messages up to date while it streams; rows follow the message
 * they are bound to. The view follows new output only while the musician
 * is at the bottom (SjAutoscroll).
 *
 * The panel follows its agent the way a text editor's window follows its
 * current page: a GSignalGroup holds the connections to the agent's
 * signals and a GBindingGroup its bindings, so giving the panel another
 * agent moves them all. The composer is Stop while the agent is busy,
 * Stop, Regenerate and Edit are enabled by it, and the conversation shown
 * is the agent's session.
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "sj-chat-message.h"
#include "sj-chat-panel-private.h"
#include "sj-message-row.h"
#include "sj-onboarding.h"

struct _SjChatPanel
{
  GtkWidget        parent_instance;

  SjAgent         *agent;
  SjAgentConfig   *config;
  GSignalGroup    *agent_signals;
  GBindingGroup   *agent_bindings;
  GSignalGroup    *config_signals;
  GListStore      *messages;
  GtkSliceListModel *slice;
  SjAutoscroll    *autoscroll;
  gboolean         editing;

  GtkStack        *main_stack;
  SjOnboarding    *onboarding;
  SjProblemBanner *banner;
  GtkStack        *stack;
  GtkScrolledWindow *scroller;
  GtkListView     *list_view;
  GtkWidget       *jump_button;
  GtkLabel        *status_label;
  SjComposer      *composer;
};

G_DEFINE_FINAL_TYPE (SjChatPanel, sj_chat_panel, GTK_TYPE_WIDGET)

/* GTK 4.8's list view keeps up to 200 rows alive around what it shows,
 * each a measured Markdown message: a long session opens with its latest
 * messages in the view, and earlier ones are added as the view nears its
 * top. The model holds them all; only the rows are spared. */
#define SHOWN_AT_FIRST  16
#define REVEAL_STEP     20
#define REVEAL_MARGIN   400.0

enum {
  APPLY_CODE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static SjChatMessage *
find_message (SjChatPanel *self,
              gint64       id)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));

  /* The message that changes is nearly always one of the last. */
  for (guint i = n; i > 0; i--)
    {
      g_autoptr(SjChatMessage) message = g_list_model_get_item (G_LIST_MODEL (self->messages), i - 1);

      if (sj_chat_message_get_id (message) == id)
        return message;
    }

  return NULL;
}

/* Only the last answer can be regenerated and the last message of the
 * musician edited, and neither while the agent is busy, when Stop is what
 * there is to do. Follows the list and SjAgent:busy. */
static void
update_last_flags (SjChatPanel *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));
  gboolean seen_user = FALSE;
  gboolean seen_answer = FALSE;
  gboolean busy = self->agent != NULL && sj_agent_is_busy (self->agent);

  for (guint i = n; i > 0; i--)
    {
      g_autoptr(SjChatMessage) message = g_list_model_get_item (G_LIST_MODEL (self->messages), i - 1);
      SjHistoryRole role = sj_chat_message_get_role (message);
      gboolean last = FALSE;

      if (role == SJ_HISTORY_ROLE_USER && !seen_user)
        last = seen_user = TRUE;
      else if (role == SJ_HISTORY_ROLE_ASSISTANT && !seen_answer && !seen_user)
        last = seen_answer = TRUE;
      sj_chat_message_set_is_last (message, last && !busy);
    }

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "chat.regenerate", !busy && seen_user);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "chat.edit-last", !busy && seen_user);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "chat.stop", busy);
}

static void
update_empty (SjChatPanel *self)
{
  gboolean empty = g_list_model_get_n_items (G_LIST_MODEL (self->messages)) == 0;

  gtk_stack_set_visible_child_name (self->stack, empty ? "empty" : "conversation");
}

static SjChatMessage *
message_from_store (SjChatPanel *self,
                    gint64       id)
{
  g_autoptr(SjHistoryMessage) stored = NULL;
  g_autoptr(GError) error = NULL;

  stored = sj_history_store_get_message (sj_agent_get_store (self->agent), id, &error);
  if (stored == NULL)
    {
      g_warning ("Could not read message %" G_GINT64_FORMAT ": %s", id, error->message);
      return NULL;
    }

  return sj_chat_message_new_from_history (stored);
}

static void
message_added_cb (SjChatPanel *self,
                  gint64       id,
                  int          role)
{
  g_autoptr(SjChatMessage) message = message_from_store (self, id);

  if (message == NULL)
    return;

  g_list_store_append (self->messages, message);
  update_last_flags (self);
  update_empty (self);
}

static void
agent_busy_cb (SjChatPanel *self,
               GParamSpec  *pspec,
               SjAgent     *agent)
{
  update_last_flags (self);
}

/* The conversation shown is the agent's: a session loaded, a new one
 * begun, or the one a first message created. */
static void
agent_session_cb (SjChatPanel *self,
                  GParamSpec  *pspec,
                  SjAgent     *agent)
{
  sj_chat_panel_load_session (self, sj_agent_get_session_id (agent));
}

static void
text_delta_cb (SjChatPanel *self,
               gint64       id,
               int          kind,
               const char  *text)
{
  SjChatMessage *message = find_message (self, id);

  gtk_widget_set_visible (GTK_WIDGET (self->status_label), FALSE);
  if (message != NULL)
    sj_chat_message_append (message, kind == SJ_AGENT_DELTA_REASONING, text);
}

static void
tool_finished_cb (SjChatPanel *self,
                  gint64       message_id,
                  gint64       tool_call_id)
{
  SjChatMessage *message = find_message (self, message_id);
  g_autoptr(GPtrArray) calls = NULL;

  if (message == NULL)
    return;

  calls = sj_history_store_list_tool_calls (sj_agent_get_store (self->agent), message_id, NULL);
  for (guint i = calls ? calls->len : 0; i > 0; i--)
    {
      SjHistoryToolCall *call = g_ptr_array_index (calls, i - 1);

      if (call->id == tool_call_id)
        {
          sj_chat_message_add_tool_call (message, call);
          break;
        }
    }
}

static void
message_finished_cb (SjChatPanel *self,
                     gint64       id,
                     int          status)
{
  SjChatMessage *message = find_message (self, id);
  g_autoptr(SjHistoryMessage) stored = NULL;

  gtk_widget_set_visible (GTK_WIDGET (self->status_label), FALSE);
  if (message == NULL)
    return;

  stored = sj_history_store_get_message (sj_agent_get_store (self->agent), id, NULL);
  sj_chat_message_set_status (message, status, stored ? stored->ended : g_get_real_time ());
}

static void
retrying_cb (SjChatPanel *self,
             guint        attempt,
             guint        delay_ms,
             const char  *reason)
{
  g_autofree char *text = g_strdup_printf (_("The model did not answer (%s). Trying again in %.0f s…"),
                                           reason, ceil (delay_ms / 1000.0));

  gtk_label_set_label (self->status_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->status_label), TRUE);
}

static void
show_problem (SjChatPanel  *self,
              const GError *error)
{
  SjProblem problem = SJ_PROBLEM_NONE;

  if (error == NULL)
    {
      sj_problem_banner_hide (self->banner);
      return;
    }

  if (g_error_matches (error, SJ_AGENT_ERROR, SJ_AGENT_ERROR_NO_KEYRING))
    problem = SJ_PROBLEM_NO_KEYRING;
  else if (error->domain == SJ_AGENT_ERROR &&
           (error->code == SJ_AGENT_ERROR_NO_API_KEY || error->code == SJ_AGENT_ERROR_NOT_CONFIGURED))
    problem = SJ_PROBLEM_NO_API_KEY;
  else
    problem = sj_problem_from_error (error);

  if (problem == SJ_PROBLEM_NONE)
    return;

  /* The banner says what is wrong in its own words; an agent problem's
   * message is the detail that says exactly what to do. */
  sj_problem_banner_show (self->banner, problem, error->domain == SJ_AGENT_ERROR ? error->message : NULL);
}

/* Whether the keyboard is in the panel or nowhere: only then may the
 * composer take it when the status page gives way. */
static gboolean
focus_is_here (SjChatPanel *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  return gtk_widget_get_mapped (GTK_WIDGET (self)) &&
         (focus == NULL || gtk_widget_is_ancestor (focus, GTK_WIDGET (self)));
}

/* Setup problems are the status page's; the banner is for what happens
 * once the agent works, and a working setup clears it. */
static void
config_changed_cb (SjChatPanel   *self,
                   SjAgentConfig *config)
{
  gboolean was_onboarding = g_strcmp0 (gtk_stack_get_visible_child_name (self->main_stack), "onboarding") == 0;
  gboolean onboarding = sj_onboarding_is_needed (self->onboarding);
  gboolean take_focus = was_onboarding && !onboarding && focus_is_here (self);

  if (!onboarding)
    sj_problem_banner_hide (self->banner);
  gtk_stack_set_visible_child_name (self->main_stack, onboarding ? "onboarding" : "chat");
  if (take_focus)
    sj_composer_focus (self->composer);
}

static void
send_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(SjChatPanel) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!sj_agent_send_finish (SJ_AGENT (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_problem (self, error);
  else if (error == NULL)
    sj_problem_banner_hide (self->banner);
}

static void drop_last_turn (SjChatPanel *self,
                            gboolean     from_user);

static void
composer_send_cb (SjChatPanel *self,
                  const char  *text)
{
  g_assert (SJ_IS_CHAT_PANEL (self));

  if (self->agent == NULL || sj_agent_is_busy (self->agent))
    return;

  /* The musician's own message always scrolls to the bottom. */
  sj_autoscroll_jump_to_latest (self->autoscroll);

  if (self->editing)
    {
      /* The edited message replaces the last one and its answer. */
      drop_last_turn (self, TRUE);
      sj_agent_resend_async (self->agent, text, NULL, send_done_cb, g_object_ref (self));
    }
  else
    sj_agent_send_async (self->agent, text, NULL, send_done_cb, g_object_ref (self));
  self->editing = FALSE;
}

static void
composer_stop_cb (SjChatPanel *self)
{
  if (self->agent != NULL)
    sj_agent_stop (self->agent);
}

static void
stop_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  composer_stop_cb (SJ_CHAT_PANEL (widget));
}

/* Drops the messages after (and with @from_user, including) the last user
 * message from the list, as the agent just did in the store. */
static void
drop_last_turn (SjChatPanel *self,
                gboolean     from_user)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));

  for (guint i = n; i > 0; i--)
    {
      g_autoptr(SjChatMessage) message = g_list_model_get_item (G_LIST_MODEL (self->messages), i - 1);

      if (sj_chat_message_get_role (message) == SJ_HISTORY_ROLE_USER)
        {
          guint first = from_user ? i - 1 : i;

          g_list_store_splice (self->messages, first, n - first, NULL, 0);
          break;
        }
    }
  update_last_flags (self);
  update_empty (self);
}

static void
regenerate_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  SjChatPanel *self = SJ_CHAT_PANEL (widget);

  if (self->agent == NULL || sj_agent_is_busy (self->agent))
    return;

  drop_last_turn (self, FALSE);
  sj_agent_regenerate_async (self->agent, NULL, send_done_cb, g_object_ref (self));
}

static void
edit_last_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  SjChatPanel *self = SJ_CHAT_PANEL (widget);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));

  for (guint i = n; i > 0; i--)
    {
      g_autoptr(SjChatMessage) message = g_list_model_get_item (G_LIST_MODEL (self->messages), i - 1);

      if (sj_chat_message_get_role (message) == SJ_HISTORY_ROLE_USER)
        {
          /* The old turn goes when the edited message is sent. */
          sj_composer_set_text (self->composer, sj_chat_message_get_content (message));
          self->editing = TRUE;
          return;
        }
    }
}

static void
apply_code_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  g_signal_emit (widget, signals[APPLY_CODE], 0, g_variant_get_string (parameter, NULL));
}

/* The slice always reaches the last message: new ones are shown at once. */
static void
messages_changed_cb (SjChatPanel *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));
  guint offset = MIN (gtk_slice_list_model_get_offset (self->slice), n);

  gtk_slice_list_model_set_offset (self->slice, offset);
  gtk_slice_list_model_set_size (self->slice, n - offset);
}

static void
reveal_earlier (SjChatPanel *self)
{
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (self->scroller);
  guint offset = gtk_slice_list_model_get_offset (self->slice);

  if (offset == 0 || gtk_adjustment_get_value (adjustment) > REVEAL_MARGIN)
    return;

  offset = offset > REVEAL_STEP ? offset - REVEAL_STEP : 0;
  gtk_slice_list_model_set_offset (self->slice, offset);
  gtk_slice_list_model_set_size (self->slice, g_list_model_get_n_items (G_LIST_MODEL (self->messages)) - offset);
}

static void
setup_row_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              SjChatPanel              *self)
{
  gtk_list_item_set_child (item, sj_message_row_new ());
  gtk_list_item_set_activatable (item, FALSE);
}

static void
bind_row_cb (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             SjChatPanel              *self)
{
  sj_message_row_bind (SJ_MESSAGE_ROW (gtk_list_item_get_child (item)),
                       SJ_CHAT_MESSAGE (gtk_list_item_get_item (item)));
}

static void
unbind_row_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               SjChatPanel              *self)
{
  sj_message_row_unbind (SJ_MESSAGE_ROW (gtk_list_item_get_child (item)));
}

/**
 * sj_chat_panel_load_session:
 *
 * Shows a stored session. Messages are read at once (a few milliseconds
 * for thousands); their rows are built only as they scroll into view.
 */
void
sj_chat_panel_load_session (SjChatPanel *self,
                            gint64       session_id)
{
  g_autoptr(GPtrArray) stored = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GPtrArray) items = NULL;
  SjHistoryStore *store;

  g_assert (SJ_IS_CHAT_PANEL (self));
  g_return_if_fail (self->agent != NULL);

  store = sj_agent_get_store (self->agent);
  stored = session_id != 0 ? sj_history_store_list_messages (store, session_id, NULL) : NULL;
  calls = session_id != 0 ? sj_history_store_list_session_tool_calls (store, session_id, NULL) : NULL;
  items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0, k = 0; stored != NULL && i < stored->len; i++)
    {
      SjHistoryMessage *message = g_ptr_array_index (stored, i);
      SjChatMessage *item = sj_chat_message_new_from_history (message);

      /* Both lists are in message order: one pass pairs them. */
      for (; calls != NULL && k < calls->len; k++)
        {
          SjHistoryToolCall *call = g_ptr_array_index (calls, k);

          if (call->message_id != message->id)
            break;
          sj_chat_message_add_tool_call (item, call);
        }
      while (calls != NULL && k < calls->len && ((SjHistoryToolCall *) g_ptr_array_index (calls, k))->message_id < message->id)
        k++;
      g_ptr_array_add (items, item);
    }

  /* The latest messages are shown first; earlier ones join the view as
   * the musician scrolls up to them (see reveal_earlier()). */
  gtk_slice_list_model_set_offset (self->slice, items->len > SHOWN_AT_FIRST ? items->len - SHOWN_AT_FIRST : 0);
  g_list_store_splice (self->messages, 0, g_list_model_get_n_items (G_LIST_MODEL (self->messages)),
                       items->pdata, items->len);
  update_last_flags (self);
  update_empty (self);
  sj_autoscroll_jump_to_latest (self->autoscroll);
}

/**
 * sj_chat_panel_swap_changed:
 *
 * What the page says about a quantized swap: the answer that queued it
 * shows when it landed, or that it never played.
 */
void
sj_chat_panel_swap_changed (SjChatPanel *self,
                            const char  *state,
                            double       cycle)
{
  guint n;

  g_assert (SJ_IS_CHAT_PANEL (self));

  n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));
  for (guint i = n; i > 0; i--)
    {
      g_autoptr(SjChatMessage) message = g_list_model_get_item (G_LIST_MODEL (self->messages), i - 1);

      if (sj_chat_message_get_swap (message) != SJ_CHAT_SWAP_QUEUED ||
          sj_chat_message_get_swap_cycle (message) != cycle)
        continue;

      if (g_strcmp0 (state, "applied") == 0)
        sj_chat_message_set_swap (message, SJ_CHAT_SWAP_APPLIED, cycle);
      else if (g_strcmp0 (state, "superseded") == 0 || g_strcmp0 (state, "canceled") == 0)
        sj_chat_message_set_swap (message, SJ_CHAT_SWAP_DROPPED, cycle);
      break;
    }
}

/**
 * sj_chat_panel_set_agent:
 * @config: (nullable): the agent's setup, whose problems the banner shows
 *
 * The panel shows @agent's conversation from now on, and follows it: its
 * signals, its busy state and its session, in place of the agent before.
 */
void
sj_chat_panel_set_agent (SjChatPanel   *self,
                         SjAgent       *agent,
                         SjAgentConfig *config)
{
  g_assert (SJ_IS_CHAT_PANEL (self));
  g_assert (SJ_IS_AGENT (agent));
  g_assert (!config || SJ_IS_AGENT_CONFIG (config));

  g_set_object (&self->agent, agent);
  g_set_object (&self->config, config);
  g_signal_group_set_target (self->agent_signals, agent);
  g_binding_group_set_source (self->agent_bindings, agent);
  /* The status page follows the config first, so the panel asks it. */
  sj_onboarding_set_config (self->onboarding, config);
  g_signal_group_set_target (self->config_signals, config);

  config_changed_cb (self, config);
  sj_chat_panel_load_session (self, sj_agent_get_session_id (agent));
}

/* Puts the keyboard in the composer, or in the status page's next step
 * while it stands in the composer's place. */
void
sj_chat_panel_focus_composer (SjChatPanel *self)
{
  g_assert (SJ_IS_CHAT_PANEL (self));

  if (sj_onboarding_is_needed (self->onboarding))
    sj_onboarding_focus (self->onboarding);
  else
    sj_composer_focus (self->composer);
}

GListModel *
_sj_chat_panel_get_messages (SjChatPanel *self)
{
  g_assert (SJ_IS_CHAT_PANEL (self));
  return G_LIST_MODEL (self->messages);
}

SjComposer *
_sj_chat_panel_get_composer (SjChatPanel *self)
{
  g_assert (SJ_IS_CHAT_PANEL (self));
  return self->composer;
}

SjAutoscroll *
_sj_chat_panel_get_autoscroll (SjChatPanel *self)
{
  g_assert (SJ_IS_CHAT_PANEL (self));
  return self->autoscroll;
}

SjOnboarding *
_sj_chat_panel_get_onboarding (SjChatPanel *self)
{
  g_assert (SJ_IS_CHAT_PANEL (self));
  return self->onboarding;
}

SjProblemBanner *
_sj_chat_panel_get_banner (SjChatPanel *self)
{
  g_assert (SJ_IS_CHAT_PANEL (self));
  return self->banner;
}

GtkScrolledWindow *
_sj_chat_panel_get_scroller (SjChatPanel *self)
{
  g_assert (SJ_IS_CHAT_PANEL (self));
  return self->scroller;
}

static void
sj_chat_panel_dispose (GObject *object)
{
  SjChatPanel *self = (SjChatPanel *)object;

  /* Before the template: the composer is a target of the bindings. */
  g_clear_object (&self->agent_signals);
  g_clear_object (&self->agent_bindings);
  g_clear_object (&self->config_signals);
  g_clear_object (&self->autoscroll);
  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_CHAT_PANEL);
  g_clear_object (&self->slice);
  g_clear_object (&self->messages);
  g_clear_object (&self->agent);
  g_clear_object (&self->config);

  G_OBJECT_CLASS (sj_chat_panel_parent_class)->dispose (object);
}

static void
sj_chat_panel_class_init (SjChatPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_chat_panel_dispose;

  /**
   * SjChatPanel::apply-code:
   * @code: a code block's text
   *
   * The musician pressed Apply on a code block of an answer: the window
   * sends it through the safe, quantized apply.
   */
  signals[APPLY_CODE] = g_signal_new ("apply-code", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                      0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  g_type_ensure (SJ_TYPE_ONBOARDING);
  g_type_ensure (SJ_TYPE_PROBLEM_BANNER);
  g_type_ensure (SJ_TYPE_COMPOSER);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-chat-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, SjChatPanel, main_stack);
  gtk_widget_class_bind_template_child (widget_class, SjChatPanel, onboarding);
  gtk_widget_class_bind_template_child (widget_class, SjChatPanel, banner);
  gtk_widget_class_bind_template_child (widget_class, SjChatPanel, stack);
  gtk_widget_class_bind_template_child (widget_class, SjChatPanel, scroller);
  gtk_widget_class_bind_template_child (widget_class, SjChatPanel, list_view);
  gtk_widget_class_bind_template_child (widget_class, SjChatPanel, jump_button);
  gtk_widget_class_bind_template_child (widget_class, SjChatPanel, status_label);
  gtk_widget_class_bind_template_child (widget_class, SjChatPanel, composer);
  gtk_widget_class_bind_template_callback (widget_class, composer_send_cb);
  gtk_widget_class_bind_template_callback (widget_class, composer_stop_cb);

  gtk_widget_class_install_action (widget_class, "chat.stop", NULL, stop_action);
  gtk_widget_class_install_action (widget_class, "chat.regenerate", NULL, regenerate_action);
  gtk_widget_class_install_action (widget_class, "chat.edit-last", NULL, edit_last_action);
  gtk_widget_class_install_action (widget_class, "chat.apply-code", "s", apply_code_action);
}

static void
sj_chat_panel_init (SjChatPanel *self)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  g_autoptr(GtkNoSelection) selection = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->agent_signals = g_signal_group_new (SJ_TYPE_AGENT);
  g_signal_group_connect_object (self->agent_signals, "message-added", G_CALLBACK (message_added_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals, "text-delta", G_CALLBACK (text_delta_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals, "tool-finished", G_CALLBACK (tool_finished_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals, "message-finished", G_CALLBACK (message_finished_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals, "retrying", G_CALLBACK (retrying_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals, "notify::busy", G_CALLBACK (agent_busy_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals, "notify::session-id", G_CALLBACK (agent_session_cb), self, G_CONNECT_SWAPPED);
  /* Send is Stop while the agent works. */
  self->agent_bindings = g_binding_group_new ();
  g_binding_group_bind (self->agent_bindings, "busy", self->composer, "streaming", G_BINDING_SYNC_CREATE);
  self->config_signals = g_signal_group_new (SJ_TYPE_AGENT_CONFIG);
  g_signal_group_connect_object (self->config_signals, "changed", G_CALLBACK (config_changed_cb), self, G_CONNECT_SWAPPED);

  self->messages = g_list_store_new (SJ_TYPE_CHAT_MESSAGE);
  self->slice = gtk_slice_list_model_new (g_object_ref (G_LIST_MODEL (self->messages)), 0, 0);
  g_signal_connect_object (self->messages, "items-changed", G_CALLBACK (messages_changed_cb), self, G_CONNECT_SWAPPED);
  selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->slice)));
  g_signal_connect (factory, "setup", G_CALLBACK (setup_row_cb), self);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row_cb), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (unbind_row_cb), self);
  gtk_list_view_set_factory (self->list_view, factory);
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (selection));

  self->autoscroll = sj_autoscroll_new (self->scroller, self->jump_button);
  g_signal_connect_object (gtk_scrolled_window_get_vadjustment (self->scroller), "value-changed",
                           G_CALLBACK (reveal_earlier), self, G_CONNECT_SWAPPED);
  update_last_flags (self);
  update_empty (self);
}

GtkWidget *
_sj_chat_panel_new (void)
{
  return g_object_new (SJ_TYPE_CHAT_PANEL, NULL);
}
