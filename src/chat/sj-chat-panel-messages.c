/* sj-chat-panel-messages.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Chat page's conversation: the list of SjChatMessages, the list view
 * and its row factory, and the agent's signals that keep the messages up
 * to date while it streams (a message added, text, a finished tool call,
 * the end of an answer). A session is loaded from the store at once and
 * shown from its latest messages; earlier ones join the view as the
 * musician scrolls up to them. The composer, the actions, the banner and
 * the status page are sj-chat-panel.c's.
 */

#include "config.h"

#include "sj-chat-message.h"
#include "sj-chat-panel-private.h"
#include "sj-message-row.h"

/* GTK 4.8's list view keeps up to 200 rows alive around what it shows,
 * each a measured Markdown message: a long session opens with its latest
 * messages in the view, and earlier ones are added as the view nears its
 * top. The model holds them all; only the rows are spared. */
#define SHOWN_AT_FIRST  16
#define REVEAL_STEP     20
#define REVEAL_MARGIN   400.0

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
void
_sj_chat_panel_update_last_flags (SjChatPanel *self)
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
  _sj_chat_panel_update_last_flags (self);
  update_empty (self);
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
skills_used_cb (SjChatPanel *self,
                gint64       message_id)
{
  SjChatMessage *message = find_message (self, message_id);

  if (message != NULL)
    sj_chat_message_set_skills (message, sj_history_store_list_message_skills (sj_agent_get_store (self->agent),
                                                                               message_id, NULL));
}

/* What an answer cost, under it once it is finished. */
static void
set_usage (SjChatPanel   *self,
           SjChatMessage *message)
{
  g_autoptr(GError) error = NULL;
  SjUsage usage;

  if (sj_chat_message_get_role (message) != SJ_HISTORY_ROLE_ASSISTANT)
    return;

  if (!sj_history_store_get_message_usage (sj_agent_get_store (self->agent), sj_chat_message_get_id (message),
                                           &usage, &error))
    {
      g_warning ("Could not read what an answer cost: %s", error->message);
      return;
    }
  sj_chat_message_set_usage (message, &usage);
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
  set_usage (self, message);
  sj_chat_message_set_status (message, status, stored ? stored->ended : g_get_real_time ());
}

/* Drops the messages after (and with @from_user, including) the last user
 * message from the list, as the agent just did in the store. */
void
_sj_chat_panel_drop_last_turn (SjChatPanel *self,
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
  _sj_chat_panel_update_last_flags (self);
  update_empty (self);
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
      SjChatMessage *item;

      /* A "tool" message holds an MCP client's calls for the Logs page
       * (sj-window-mcp.c); the chat said so in a note when it began, and
       * its calls are not the agent's answer: not a row of the chat. */
      if (message->role == SJ_HISTORY_ROLE_TOOL)
        {
          while (calls != NULL && k < calls->len &&
                 ((SjHistoryToolCall *) g_ptr_array_index (calls, k))->message_id <= message->id)
            k++;
          continue;
        }
      item = sj_chat_message_new_from_history (message);

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
      if (message->role == SJ_HISTORY_ROLE_ASSISTANT)
        {
          sj_chat_message_set_skills (item, sj_history_store_list_message_skills (store, message->id, NULL));
          if (message->status != SJ_HISTORY_MESSAGE_STREAMING)
            set_usage (self, item);
        }
      /* Read back, nothing is pending any more: a change whose call did not
       * say how it landed (history from before changes were listened to, or
       * a verdict that never came) is not "Queued" or "Listening…" now. */
      if (sj_chat_message_get_swap (item) == SJ_CHAT_SWAP_QUEUED ||
          sj_chat_message_get_swap (item) == SJ_CHAT_SWAP_LANDING ||
          sj_chat_message_get_swap (item) == SJ_CHAT_SWAP_LISTENING)
        sj_chat_message_set_swap (item, SJ_CHAT_SWAP_SENT, sj_chat_message_get_swap_cycle (item));
      g_ptr_array_add (items, item);
    }

  /* The latest messages are shown first; earlier ones join the view as
   * the musician scrolls up to them (see reveal_earlier()). */
  gtk_slice_list_model_set_offset (self->slice, items->len > SHOWN_AT_FIRST ? items->len - SHOWN_AT_FIRST : 0);
  g_list_store_splice (self->messages, 0, g_list_model_get_n_items (G_LIST_MODEL (self->messages)),
                       items->pdata, items->len);
  _sj_chat_panel_update_last_flags (self);
  update_empty (self);
  sj_autoscroll_jump_to_latest (self->autoscroll);
}

/**
 * sj_chat_panel_swap_changed:
 *
 * What the page says about a quantized swap: the answer that queued it
 * shows when it landed, or that it never played. The window adds
 * "landing" (committed, too late to cancel), then "landed" (heard) or,
 * for a change the app listens to, "listening".
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

      SjChatSwap current = sj_chat_message_get_swap (message);
      gboolean ahead;

      if ((current != SJ_CHAT_SWAP_QUEUED && current != SJ_CHAT_SWAP_LANDING) ||
          sj_chat_message_get_swap_cycle (message) != cycle)
        continue;

      /* The page commits a change a little before its boundary sounds
       * (its scheduler queries ahead): until the countdown reaches 0 it
       * is landing ("landing", from the window, which also says "landed"
       * when it sounds), and can no longer be canceled. */
      ahead = current == SJ_CHAT_SWAP_QUEUED && sj_chat_message_get_swap_beats (message) > 0;
      if (g_strcmp0 (state, "landing") == 0)
        {
          if (ahead)
            sj_chat_message_set_swap (message, SJ_CHAT_SWAP_LANDING, cycle);
        }
      else if (g_strcmp0 (state, "landed") == 0 || g_strcmp0 (state, "listening") == 0)
        {
          if (current == SJ_CHAT_SWAP_LANDING)
            sj_chat_message_set_swap (message,
                                      g_str_equal (state, "landed") ? SJ_CHAT_SWAP_APPLIED : SJ_CHAT_SWAP_LISTENING,
                                      cycle);
        }
      else if (g_strcmp0 (state, "applied") == 0)
        {
          if (current == SJ_CHAT_SWAP_QUEUED)
            sj_chat_message_set_swap (message, ahead ? SJ_CHAT_SWAP_LANDING : SJ_CHAT_SWAP_APPLIED, cycle);
        }
      else if (g_strcmp0 (state, "canceled") == 0)
        sj_chat_message_set_swap (message, SJ_CHAT_SWAP_CANCELED, cycle);
      else if (g_strcmp0 (state, "superseded") == 0)
        sj_chat_message_set_swap (message, SJ_CHAT_SWAP_DROPPED, cycle);
      break;
    }
}

/**
 * sj_chat_panel_swap_countdown:
 * @cycle: the pending change's boundary
 * @beats: beats left until it lands, as the page counts them
 *
 * The answer whose change waits for @cycle counts down with the page's
 * clock ("Lands in 3 beats"). An answer still being written whose apply
 * waits for its change to be heard is that answer.
 */
void
sj_chat_panel_swap_countdown (SjChatPanel *self,
                              double       cycle,
                              int          beats)
{
  guint n;

  g_assert (SJ_IS_CHAT_PANEL (self));

  n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));
  for (guint i = n; i > 0; i--)
    {
      g_autoptr(SjChatMessage) message = g_list_model_get_item (G_LIST_MODEL (self->messages), i - 1);
      SjChatSwap current = sj_chat_message_get_swap (message);

      /* Committed: it says so until the window says it was heard. */
      if (current == SJ_CHAT_SWAP_LANDING && sj_chat_message_get_swap_cycle (message) == cycle)
        return;

      if (current == SJ_CHAT_SWAP_QUEUED && sj_chat_message_get_swap_cycle (message) == cycle)
        {
          sj_chat_message_set_swap_beats (message, beats);
          return;
        }

      if (i == n && sj_chat_message_get_role (message) == SJ_HISTORY_ROLE_ASSISTANT &&
          sj_chat_message_get_status (message) == SJ_HISTORY_MESSAGE_STREAMING &&
          current == SJ_CHAT_SWAP_NONE && beats > 0)
        {
          sj_chat_message_set_swap (message, SJ_CHAT_SWAP_QUEUED, cycle);
          sj_chat_message_set_swap_beats (message, beats);
          return;
        }
    }
}

/**
 * sj_chat_panel_change_verified:
 * @state: "listening", "heard", "unverified", "reverted" or "kept"
 *   (SjChangeVerifier::changed)
 *
 * What the app heard of a change that landed at @cycle: the answer that
 * made it shows Listening… while it plays its first cycles, and Applied
 * only once it was heard. An agent's apply waits for the verdict before
 * it finishes, so while it listens, the answer being written is the one.
 */
void
sj_chat_panel_change_verified (SjChatPanel *self,
                               const char  *state,
                               double       cycle,
                               const char  *message)
{
  SjChatSwap swap;
  guint n;

  g_assert (SJ_IS_CHAT_PANEL (self));

  if (g_strcmp0 (state, "listening") == 0)
    swap = SJ_CHAT_SWAP_LISTENING;
  else if (g_strcmp0 (state, "canceled") == 0)
    swap = SJ_CHAT_SWAP_CANCELED;
  else if (g_strcmp0 (state, "reverted") == 0)
    swap = SJ_CHAT_SWAP_REVERTED;
  else if (g_strcmp0 (state, "kept") == 0)
    swap = SJ_CHAT_SWAP_WARNED;
  else
    swap = SJ_CHAT_SWAP_APPLIED;

  n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));
  for (guint i = n; i > 0; i--)
    {
      g_autoptr(SjChatMessage) message_item = g_list_model_get_item (G_LIST_MODEL (self->messages), i - 1);
      SjChatSwap current = sj_chat_message_get_swap (message_item);

      if ((current == SJ_CHAT_SWAP_QUEUED || current == SJ_CHAT_SWAP_LANDING ||
           current == SJ_CHAT_SWAP_LISTENING) &&
          sj_chat_message_get_swap_cycle (message_item) == cycle)
        {
          /* Landing says so until its boundary sounds; the window then
           * says Listening… (sj_chat_panel_swap_changed()). */
          if (current == SJ_CHAT_SWAP_LANDING && swap == SJ_CHAT_SWAP_LISTENING)
            return;
          sj_chat_message_set_swap (message_item, swap, cycle);
          return;
        }

      /* The newest answer, still being written: its apply is listening. */
      if (i == n && sj_chat_message_get_role (message_item) == SJ_HISTORY_ROLE_ASSISTANT &&
          sj_chat_message_get_status (message_item) == SJ_HISTORY_MESSAGE_STREAMING &&
          current == SJ_CHAT_SWAP_NONE)
        {
          sj_chat_message_set_swap (message_item, swap, cycle);
          return;
        }
    }
}

GListModel *
_sj_chat_panel_get_messages (SjChatPanel *self)
{
  g_assert (SJ_IS_CHAT_PANEL (self));
  return G_LIST_MODEL (self->messages);
}

/* Called from the panel's init, once the template and the agent's signal
 * group are there: the list view over the messages, its row factory, and
 * the handlers that keep the messages in step with the agent. */
void
_sj_chat_panel_init_messages (SjChatPanel *self)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  g_autoptr(GtkNoSelection) selection = NULL;

  g_signal_group_connect_object (self->agent_signals, "message-added", G_CALLBACK (message_added_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals, "text-delta", G_CALLBACK (text_delta_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals, "tool-finished", G_CALLBACK (tool_finished_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals, "message-finished", G_CALLBACK (message_finished_cb), self, G_CONNECT_SWAPPED);
  g_signal_group_connect_object (self->agent_signals, "skills-used", G_CALLBACK (skills_used_cb), self, G_CONNECT_SWAPPED);

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
  _sj_chat_panel_update_last_flags (self);
  update_empty (self);
}
