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
 * is at the bottom (SjAutoscroll). All of that is in
 * sj-chat-panel-messages.c; this file has the page around it.
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
#include "sj-onboarding.h"

G_DEFINE_FINAL_TYPE (SjChatPanel, sj_chat_panel, GTK_TYPE_WIDGET)

static void
agent_busy_cb (SjChatPanel *self,
               GParamSpec  *pspec,
               SjAgent     *agent)
{
  _sj_chat_panel_update_last_flags (self);
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
      _sj_chat_panel_drop_last_turn (self, TRUE);
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

static void
regenerate_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  SjChatPanel *self = SJ_CHAT_PANEL (widget);

  if (self->agent == NULL || sj_agent_is_busy (self->agent))
    return;

  _sj_chat_panel_drop_last_turn (self, FALSE);
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

/* Pins a skill from its chip, or unpins it: the session's next messages
 * carry it, or no longer do. */
static void
pin_skill (SjChatPanel *self,
           const char  *name,
           gboolean     pinned)
{
  g_autoptr(GError) error = NULL;

  if (self->agent == NULL)
    return;
  if (!sj_agent_set_skill_pinned (self->agent, name, pinned, &error))
    g_warning ("Could not pin the skill “%s”: %s", name, error->message);
}

static void
pin_skill_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  pin_skill (SJ_CHAT_PANEL (widget), g_variant_get_string (parameter, NULL), TRUE);
}

static void
unpin_skill_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  pin_skill (SJ_CHAT_PANEL (widget), g_variant_get_string (parameter, NULL), FALSE);
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

/* Whether the status page that connects a model stands in the
 * composer's place. */
gboolean
sj_chat_panel_get_needs_setup (SjChatPanel *self)
{
  g_assert (SJ_IS_CHAT_PANEL (self));

  return sj_onboarding_is_needed (self->onboarding);
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

SjComposer *
_sj_chat_panel_get_composer (SjChatPanel *self)
{
  g_assert (SJ_IS_CHAT_PANEL (self));
  return self->composer;
}

/**
 * sj_chat_panel_get_composer:
 *
 * Returns: (transfer none): the composer, for the voice to write into
 */
SjComposer *
sj_chat_panel_get_composer (SjChatPanel *self)
{
  g_assert (SJ_IS_CHAT_PANEL (self));

  return self->composer;
}

/**
 * sj_chat_panel_show_voice_problem:
 * @error: (nullable): an %SJ_VOICE_ERROR, or %NULL to hide the banner
 *
 * Says above the composer why the voice failed and the way forward. The
 * composer's text is left as it is.
 */
void
sj_chat_panel_show_voice_problem (SjChatPanel  *self,
                                  const GError *error)
{
  SjProblem problem;

  g_assert (SJ_IS_CHAT_PANEL (self));

  problem = sj_problem_from_error (error);
  if (problem == SJ_PROBLEM_NONE)
    sj_problem_banner_hide (self->voice_banner);
  else
    sj_problem_banner_show (self->voice_banner, problem, NULL);
}

SjProblemBanner *
_sj_chat_panel_get_voice_banner (SjChatPanel *self)
{
  g_assert (SJ_IS_CHAT_PANEL (self));

  return self->voice_banner;
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


  g_type_ensure (SJ_TYPE_ONBOARDING);
  g_type_ensure (SJ_TYPE_PROBLEM_BANNER);
  g_type_ensure (SJ_TYPE_COMPOSER);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-chat-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, SjChatPanel, main_stack);
  gtk_widget_class_bind_template_child (widget_class, SjChatPanel, onboarding);
  gtk_widget_class_bind_template_child (widget_class, SjChatPanel, banner);
  gtk_widget_class_bind_template_child (widget_class, SjChatPanel, voice_banner);
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
  gtk_widget_class_install_action (widget_class, "chat.pin-skill", "s", pin_skill_action);
  gtk_widget_class_install_action (widget_class, "chat.unpin-skill", "s", unpin_skill_action);
}

static void
sj_chat_panel_init (SjChatPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->agent_signals = g_signal_group_new (SJ_TYPE_AGENT);
  g_signal_group_connect_object (self->agent_signals, "retrying", G_CALLBACK (retrying_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals, "notify::busy", G_CALLBACK (agent_busy_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals, "notify::session-id", G_CALLBACK (agent_session_cb), self, G_CONNECT_SWAPPED);
  /* Send is Stop while the agent works. */
  self->agent_bindings = g_binding_group_new ();
  g_binding_group_bind (self->agent_bindings, "busy", self->composer, "streaming", G_BINDING_SYNC_CREATE);
  self->config_signals = g_signal_group_new (SJ_TYPE_AGENT_CONFIG);
  g_signal_group_connect_object (self->config_signals, "changed", G_CALLBACK (config_changed_cb), self, G_CONNECT_SWAPPED);

  /* The conversation, and the agent's signals that keep it up to date. */
  _sj_chat_panel_init_messages (self);
}

GtkWidget *
_sj_chat_panel_new (void)
{
  return g_object_new (SJ_TYPE_CHAT_PANEL, NULL);
}
