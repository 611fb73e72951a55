/* sj-chat-message.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One message of the conversation as the chat shows it: what the store
 * holds, kept up to date while it streams. The rows of the list are
 * recycled, so the message, not its row, is what changes: a row bound to
 * it follows the "appended" signal for the streamed text and property
 * notifications for the rest.
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "sj-chat-message.h"
#include "sj-json.h"
#include "sj-tool-call-item.h"

struct _SjChatMessage
{
  GObject                 parent_instance;

  gint64                  id;
  SjHistoryRole           role;
  GString                *content;
  GString                *reasoning;
  SjHistoryMessageStatus  status;
  gint64                  started;
  gint64                  ended;
  GListStore             *tool_calls;
  SjChatSwap              swap;
  double                  swap_cycle;
  int                     swap_beats;   /* the page's countdown to swap_cycle, -1 unknown */
  gboolean                is_last;
  GPtrArray              *skills;   /* of SjHistorySkillUse */
  char                   *usage_caption;  /* what the answer cost, NULL before it is known */
};

G_DEFINE_FINAL_TYPE (SjChatMessage, sj_chat_message, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_STATUS,
  PROP_SWAP,
  PROP_IS_LAST,
  PROP_HAS_REASONING,
  PROP_N_SKILLS,
  PROP_USAGE_CAPTION,
  N_PROPS
};

enum {
  APPENDED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
sj_chat_message_finalize (GObject *object)
{
  SjChatMessage *self = (SjChatMessage *)object;

  g_string_free (self->content, TRUE);
  g_string_free (self->reasoning, TRUE);
  g_clear_object (&self->tool_calls);
  g_clear_pointer (&self->skills, g_ptr_array_unref);
  g_clear_pointer (&self->usage_caption, g_free);

  G_OBJECT_CLASS (sj_chat_message_parent_class)->finalize (object);
}

static void
sj_chat_message_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  SjChatMessage *self = SJ_CHAT_MESSAGE (object);

  switch (prop_id)
    {
    case PROP_STATUS:
      g_value_set_int (value, self->status);
      break;
    case PROP_SWAP:
      g_value_set_int (value, self->swap);
      break;
    case PROP_IS_LAST:
      g_value_set_boolean (value, self->is_last);
      break;
    case PROP_HAS_REASONING:
      g_value_set_boolean (value, self->reasoning->len > 0);
      break;
    case PROP_N_SKILLS:
      g_value_set_uint (value, self->skills->len);
      break;

    case PROP_USAGE_CAPTION:
      g_value_set_string (value, self->usage_caption);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_chat_message_class_init (SjChatMessageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sj_chat_message_finalize;
  object_class->get_property = sj_chat_message_get_property;

  properties[PROP_STATUS] = g_param_spec_int ("status", NULL, NULL, 0, G_MAXINT, 0,
                                              G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SWAP] = g_param_spec_int ("swap", NULL, NULL, 0, G_MAXINT, 0,
                                            G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_IS_LAST] = g_param_spec_boolean ("is-last", NULL, NULL, FALSE,
                                                   G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_HAS_REASONING] = g_param_spec_boolean ("has-reasoning", NULL, NULL, FALSE,
                                                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_SKILLS] = g_param_spec_uint ("n-skills", NULL, NULL, 0, G_MAXUINT, 0,
                                                 G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_USAGE_CAPTION] = g_param_spec_string ("usage-caption", NULL, NULL, NULL,
                                                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SjChatMessage::appended:
   * @reasoning: whether the text is reasoning rather than the answer
   * @text: what arrived
   */
  signals[APPENDED] = g_signal_new ("appended", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                    0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_BOOLEAN, G_TYPE_STRING);
}

static void
sj_chat_message_init (SjChatMessage *self)
{
  self->content = g_string_new (NULL);
  self->reasoning = g_string_new (NULL);
  self->tool_calls = g_list_store_new (SJ_TYPE_TOOL_CALL_ITEM);
  self->swap_cycle = NAN;
  self->swap_beats = -1;
  self->skills = g_ptr_array_new_with_free_func ((GDestroyNotify) sj_history_skill_use_free);
}

SjChatMessage *
sj_chat_message_new_from_history (const SjHistoryMessage *message)
{
  SjChatMessage *self = g_object_new (SJ_TYPE_CHAT_MESSAGE, NULL);

  self->id = message->id;
  self->role = message->role;
  g_string_assign (self->content, message->content ? message->content : "");
  g_string_assign (self->reasoning, message->reasoning ? message->reasoning : "");
  self->status = message->status;
  self->started = message->started;
  self->ended = message->ended;

  return self;
}

gint64
sj_chat_message_get_id (SjChatMessage *self)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));
  return self->id;
}

SjHistoryRole
sj_chat_message_get_role (SjChatMessage *self)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));
  return self->role;
}

const char *
sj_chat_message_get_content (SjChatMessage *self)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));
  return self->content->str;
}

const char *
sj_chat_message_get_reasoning (SjChatMessage *self)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));
  return self->reasoning->str;
}

SjHistoryMessageStatus
sj_chat_message_get_status (SjChatMessage *self)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));
  return self->status;
}

void
sj_chat_message_set_status (SjChatMessage          *self,
                            SjHistoryMessageStatus  status,
                            gint64                  ended)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));

  self->status = status;
  self->ended = ended;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS]);
}

gint64
sj_chat_message_get_started (SjChatMessage *self)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));
  return self->started;
}

gint64
sj_chat_message_get_ended (SjChatMessage *self)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));
  return self->ended;
}

/* Streamed text: kept here, and told to the row showing it, if any. */
void
sj_chat_message_append (SjChatMessage *self,
                        gboolean       reasoning,
                        const char    *text)
{
  gboolean had_reasoning;

  g_assert (SJ_IS_CHAT_MESSAGE (self));

  had_reasoning = self->reasoning->len > 0;
  g_string_append (reasoning ? self->reasoning : self->content, text);
  g_signal_emit (self, signals[APPENDED], 0, reasoning, text);
  if (!had_reasoning && self->reasoning->len > 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_REASONING]);
}

/* Returns: (transfer none): the message's finished tool calls, as SjToolCallItems */
GListModel *
sj_chat_message_get_tool_calls (SjChatMessage *self)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));
  return G_LIST_MODEL (self->tool_calls);
}

/* What the verification in an apply's result says: %SJ_CHAT_SWAP_NONE
 * when there is none. */
static SjChatSwap
verification_of (const char *result)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *verification;
  const char *status;

  if (result == NULL || (root = sj_json_parse (result, -1, NULL, NULL)) == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return SJ_CHAT_SWAP_NONE;
  if (!json_object_has_member (json_node_get_object (root), "verification") ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (json_node_get_object (root), "verification")))
    return SJ_CHAT_SWAP_NONE;

  verification = json_object_get_object_member (json_node_get_object (root), "verification");
  status = json_object_get_string_member_with_default (verification, "status", "");
  if (g_str_equal (status, "reverted"))
    return SJ_CHAT_SWAP_REVERTED;
  if (g_str_equal (status, "kept"))
    return SJ_CHAT_SWAP_WARNED;
  if (g_str_equal (status, "heard") || g_str_equal (status, "unverified"))
    return SJ_CHAT_SWAP_APPLIED;
  if (g_str_equal (status, "listening"))
    return SJ_CHAT_SWAP_LISTENING;
  if (g_str_equal (status, "canceled"))
    return SJ_CHAT_SWAP_CANCELED;
  return SJ_CHAT_SWAP_NONE;
}

/* A finished call; a successful apply also sets the swap marker. */
void
sj_chat_message_add_tool_call (SjChatMessage           *self,
                               const SjHistoryToolCall *call)
{
  g_autoptr(SjToolCallItem) item = sj_tool_call_item_new (call);

  g_assert (SJ_IS_CHAT_MESSAGE (self));

  g_list_store_append (self->tool_calls, item);
  /* Only a change that was applied has a cycle. */
  if (isnan (call->apply_cycle))
    return;

  /* An apply waits until its change was heard: the result says how that
   * went (sj-agent-tools.c, `verification`). */
  switch (verification_of (call->result))
    {
    case SJ_CHAT_SWAP_REVERTED:
      sj_chat_message_set_swap (self, SJ_CHAT_SWAP_REVERTED, call->apply_cycle);
      break;
    case SJ_CHAT_SWAP_WARNED:
      sj_chat_message_set_swap (self, SJ_CHAT_SWAP_WARNED, call->apply_cycle);
      break;
    case SJ_CHAT_SWAP_APPLIED:
      sj_chat_message_set_swap (self, SJ_CHAT_SWAP_APPLIED, call->apply_cycle);
      break;
    case SJ_CHAT_SWAP_LISTENING:
      sj_chat_message_set_swap (self, SJ_CHAT_SWAP_LISTENING, call->apply_cycle);
      break;
    case SJ_CHAT_SWAP_CANCELED:
      sj_chat_message_set_swap (self, SJ_CHAT_SWAP_CANCELED, call->apply_cycle);
      break;
    default:
      if (call->status == SJ_HISTORY_TOOL_SUCCEEDED)
        sj_chat_message_set_swap (self, SJ_CHAT_SWAP_QUEUED, call->apply_cycle);
      break;
    }
}

double
sj_chat_message_get_swap_cycle (SjChatMessage *self)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));
  return self->swap_cycle;
}

SjChatSwap
sj_chat_message_get_swap (SjChatMessage *self)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));
  return self->swap;
}

void
sj_chat_message_set_swap (SjChatMessage *self,
                          SjChatSwap     swap,
                          double         cycle)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));

  if (swap != SJ_CHAT_SWAP_QUEUED || cycle != self->swap_cycle)
    self->swap_beats = -1;
  self->swap = swap;
  self->swap_cycle = cycle;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SWAP]);
}

/* Beats left until a queued change lands, as the page counts them; -1
 * when the page has not said. */
int
sj_chat_message_get_swap_beats (SjChatMessage *self)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));
  return self->swap_beats;
}

void
sj_chat_message_set_swap_beats (SjChatMessage *self,
                                int            beats)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));

  if (self->swap_beats == beats)
    return;
  self->swap_beats = beats;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SWAP]);
}

gboolean
sj_chat_message_get_is_last (SjChatMessage *self)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));
  return self->is_last;
}

/* The last message of its role in the session: it offers Regenerate (an
 * answer) or Edit (a user message). */
void
sj_chat_message_set_is_last (SjChatMessage *self,
                             gboolean       is_last)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));

  if (self->is_last == is_last)
    return;
  self->is_last = is_last;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IS_LAST]);
}

/**
 * sj_chat_format_cooked:
 *
 * Returns: (transfer full): "Cooked for 1 m 05 s" and the like
 */
char *
sj_chat_format_cooked (gint64 duration_us)
{
  gint64 seconds = MAX (duration_us, 0) / G_USEC_PER_SEC;

  /* Translators: how long the agent took to answer, in minutes and seconds. */
  /* (A G_GINT64_FORMAT inside _() would cut the msgid short for xgettext.) */
  return g_strdup_printf (_("Cooked for %d m %d s"), (int) (seconds / 60), (int) (seconds % 60));
}

/**
 * sj_chat_message_get_skills:
 *
 * Returns: (transfer none) (element-type SjHistorySkillUse): the skills
 *   the message's turn used, for its chips
 */
GPtrArray *
sj_chat_message_get_skills (SjChatMessage *self)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));

  return self->skills;
}

/**
 * sj_chat_message_set_skills:
 * @skills: (transfer full) (element-type SjHistorySkillUse) (nullable):
 *   the skills, as the store lists them
 */
void
sj_chat_message_set_skills (SjChatMessage *self,
                            GPtrArray     *skills)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));

  g_clear_pointer (&self->skills, g_ptr_array_unref);
  self->skills = skills != NULL ? skills : g_ptr_array_new_with_free_func ((GDestroyNotify) sj_history_skill_use_free);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_SKILLS]);
}

/**
 * sj_chat_message_set_usage:
 * @usage: (nullable): what the answer cost, as the history keeps it
 *
 * Sets the caption under an answer: its tokens and cost, or "tokens
 * unknown" when the provider gave none.
 */
void
sj_chat_message_set_usage (SjChatMessage *self,
                           const SjUsage *usage)
{
  g_autofree char *caption = NULL;

  g_assert (SJ_IS_CHAT_MESSAGE (self));

  if (usage != NULL)
    caption = sj_usage_format (usage);
  if (g_strcmp0 (caption, self->usage_caption) == 0)
    return;

  g_free (self->usage_caption);
  self->usage_caption = g_steal_pointer (&caption);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_USAGE_CAPTION]);
}

const char *
sj_chat_message_get_usage_caption (SjChatMessage *self)
{
  g_assert (SJ_IS_CHAT_MESSAGE (self));
  return self->usage_caption;
}
