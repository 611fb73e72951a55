/* sj-agent-context.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The conversation as the model sees it: the system prompt, then turns of
 * a user message (with its runtime envelope, and the code when the model
 * has not seen it yet), the assistant's answers and tool calls, and the
 * tools' results.
 *
 * Long jams outgrow any model's context, so older turns are condensed to
 * stay under a token budget, cheapest loss first: old tool outputs (the
 * model acted on them long ago), then old tool-call arguments and the code
 * copies in old envelopes, then whole old turns. The current turn is kept
 * whole as long as possible; the model needs it to finish. Every tool call
 * keeps a result, as the API requires, even when condensed.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-json.h"
#include "sj-agent-context.h"

typedef enum
{
  ITEM_USER,
  ITEM_ASSISTANT,
  ITEM_TOOL,
  ITEM_NOTE,
} ItemKind;

typedef struct
{
  ItemKind    kind;
  guint       turn;
  char       *text;        /* the user's words, the assistant's answer, a note */
  char       *envelope;    /* user */
  char       *code;        /* user: the code shown to the model, NULL once condensed */
  char       *code_hash;   /* user and tool: the hash of the code the item shows */
  char       *skills;      /* user: the <skills> block of the turn, NULL once condensed */
  JsonArray  *tool_calls;  /* assistant, in the API's shape */
  char       *call_id;     /* tool */
  JsonObject *result;      /* tool */
  gboolean    condensed;
  guint       tokens;
} Item;

struct _SjAgentContext
{
  char      *system_prompt;
  GPtrArray *items;
  guint      turn;
};

static void
item_free (gpointer data)
{
  Item *item = data;

  g_free (item->text);
  g_free (item->envelope);
  g_free (item->code);
  g_free (item->code_hash);
  g_free (item->skills);
  g_clear_pointer (&item->tool_calls, json_array_unref);
  g_free (item->call_id);
  g_clear_pointer (&item->result, json_object_unref);
  g_free (item);
}

static JsonObject *
item_to_message (const Item *item)
{
  JsonObject *message = json_object_new ();

  switch (item->kind)
    {
    case ITEM_USER:
      {
        g_autoptr(GString) content = g_string_new (item->envelope);

        if (item->code != NULL)
          g_string_append_printf (content, "\n<code hash=\"%s\">\n%s\n</code>", item->code_hash, item->code);
        if (item->skills != NULL && *item->skills != '\0')
          g_string_append_printf (content, "%s%s", content->len > 0 ? "\n" : "", item->skills);
        if (content->len > 0)
          g_string_append (content, "\n\n");
        g_string_append (content, item->text);

        json_object_set_string_member (message, "role", "user");
        json_object_set_string_member (message, "content", content->str);
      }
      break;

    case ITEM_ASSISTANT:
      json_object_set_string_member (message, "role", "assistant");
      json_object_set_string_member (message, "content", item->text);
      if (item->tool_calls != NULL && json_array_get_length (item->tool_calls) > 0)
        json_object_set_array_member (message, "tool_calls", json_array_ref (item->tool_calls));
      break;

    case ITEM_TOOL:
      {
        g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), item->result);
        g_autofree char *content = sj_json_to_string (node, FALSE);

        json_object_set_string_member (message, "role", "tool");
        json_object_set_string_member (message, "tool_call_id", item->call_id);
        json_object_set_string_member (message, "content", content);
      }
      break;

    case ITEM_NOTE:
    default:
      /* A user-role message rather than a late system message: several
       * local models' chat templates refuse system messages after the
       * first. */
      {
        g_autofree char *content = g_strdup_printf ("<app-note>%s</app-note>", item->text);

        json_object_set_string_member (message, "role", "user");
        json_object_set_string_member (message, "content", content);
      }
      break;
    }

  return message;
}

/* About four bytes a token for English, code and JSON alike: close enough
 * to keep a margin, and it needs no tokenizer. */
static void
item_measure (Item *item)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), item_to_message (item));
  g_autofree char *json = json_to_string (node, FALSE);

  json_object_unref (json_node_get_object (node));
  item->tokens = strlen (json) / 4 + 4;
}

static Item *
add_item (SjAgentContext *self,
          ItemKind        kind)
{
  Item *item = g_new0 (Item, 1);

  item->kind = kind;
  item->turn = self->turn;
  g_ptr_array_add (self->items, item);

  return item;
}

SjAgentContext *
sj_agent_context_new (const char *system_prompt)
{
  SjAgentContext *self = g_new0 (SjAgentContext, 1);

  self->system_prompt = g_strdup (system_prompt);
  self->items = g_ptr_array_new_with_free_func (item_free);

  return self;
}

void
sj_agent_context_free (SjAgentContext *self)
{
  if (self == NULL)
    return;

  g_free (self->system_prompt);
  g_ptr_array_unref (self->items);
  g_free (self);
}

/**
 * sj_agent_context_format_envelope:
 *
 * Returns: (transfer full): the compact `<runtime>` block of a user message
 */
char *
sj_agent_context_format_envelope (const SjAgentEnvelope *envelope)
{
  g_autoptr(JsonBuilder) builder = json_builder_new_immutable ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "activeCodeHash");
  json_builder_add_string_value (builder, envelope->code_hash ? envelope->code_hash : "");
  json_builder_set_member_name (builder, "playing");
  json_builder_add_boolean_value (builder, envelope->playing);
  json_builder_set_member_name (builder, "cps");
  json_builder_add_double_value (builder, round (envelope->cps * 1e4) / 1e4);
  json_builder_set_member_name (builder, "cycle");
  json_builder_add_double_value (builder, round (envelope->cycle * 100) / 100);
  json_builder_set_member_name (builder, "quantize");
  json_builder_add_string_value (builder, envelope->quantize ? envelope->quantize : "next_cycle");
  if (g_strcmp0 (envelope->quantize, "bars") == 0)
    {
      json_builder_set_member_name (builder, "bars");
      json_builder_add_int_value (builder, envelope->bars);
    }
  json_builder_set_member_name (builder, "repairsLeft");
  json_builder_add_int_value (builder, envelope->repairs_left);
  json_builder_set_member_name (builder, "toolCallsLeft");
  json_builder_add_int_value (builder, envelope->tool_calls_left);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json = json_to_string (root, FALSE);

  return g_strdup_printf ("<runtime>%s</runtime>", json);
}

/**
 * sj_agent_context_add_user:
 * @envelope: the `<runtime>` block
 * @code: (nullable): the active code, when the model has not seen it
 * @code_hash: (nullable): its hash
 * @skills: (nullable): the `<skills>` block of the skills this turn uses
 *
 * Starts a turn. The skills' rules are the turn's own: once the turn is
 * old they are condensed away with its envelope, as the next turn
 * carries the skills it uses.
 */
void
sj_agent_context_add_user (SjAgentContext *self,
                           const char     *text,
                           const char     *envelope,
                           const char     *code,
                           const char     *code_hash,
                           const char     *skills)
{
  Item *item;

  self->turn++;
  item = add_item (self, ITEM_USER);
  item->text = g_strdup (text ? text : "");
  item->envelope = g_strdup (envelope ? envelope : "");
  item->code = g_strdup (code);
  item->code_hash = g_strdup (code != NULL ? code_hash : NULL);
  item->skills = g_strdup (skills);
  item_measure (item);
}

/**
 * sj_agent_context_add_assistant:
 * @tool_calls: (nullable): `[{id, name, arguments}]` as the client assembled them
 */
void
sj_agent_context_add_assistant (SjAgentContext *self,
                                const char     *content,
                                JsonArray      *tool_calls)
{
  Item *item = add_item (self, ITEM_ASSISTANT);

  item->text = g_strdup (content ? content : "");
  if (tool_calls != NULL && json_array_get_length (tool_calls) > 0)
    {
      item->tool_calls = json_array_new ();
      for (guint i = 0; i < json_array_get_length (tool_calls); i++)
        {
          JsonObject *call = json_array_get_object_element (tool_calls, i);
          JsonObject *out = json_object_new ();
          JsonObject *function = json_object_new ();

          json_object_set_string_member (out, "id", json_object_get_string_member_with_default (call, "id", ""));
          json_object_set_string_member (out, "type", "function");
          json_object_set_string_member (function, "name", json_object_get_string_member_with_default (call, "name", ""));
          json_object_set_string_member (function, "arguments", json_object_get_string_member_with_default (call, "arguments", ""));
          json_object_set_object_member (out, "function", function);
          json_array_add_object_element (item->tool_calls, out);
        }
    }
  item_measure (item);
}

/**
 * sj_agent_context_add_tool_result:
 * @code_hash: (nullable): the hash of the code the result shows in full
 */
void
sj_agent_context_add_tool_result (SjAgentContext *self,
                                  const char     *call_id,
                                  JsonObject     *result,
                                  const char     *code_hash)
{
  Item *item = add_item (self, ITEM_TOOL);

  item->call_id = g_strdup (call_id ? call_id : "");
  item->result = json_object_ref (result);
  item->code_hash = g_strdup (code_hash);
  item_measure (item);
}

/**
 * sj_agent_context_add_note:
 *
 * Something the app itself tells the model within the current turn, such
 * as "the repair limit is reached: answer without tools".
 */
void
sj_agent_context_add_note (SjAgentContext *self,
                           const char     *text)
{
  Item *item = add_item (self, ITEM_NOTE);

  item->text = g_strdup (text);
  item_measure (item);
}

/**
 * sj_agent_context_rewind_to_last_user:
 * @drop_user: also remove the user message itself
 *
 * Forgets the last turn's answer, for Regenerate (and, with @drop_user,
 * for editing the last message).
 *
 * Returns: (transfer full) (nullable): the last user message's text
 */
char *
sj_agent_context_rewind_to_last_user (SjAgentContext *self,
                                      gboolean        drop_user)
{
  char *text;
  guint i;

  for (i = self->items->len; i > 0; i--)
    if (((Item *) g_ptr_array_index (self->items, i - 1))->kind == ITEM_USER)
      break;
  if (i == 0)
    return NULL;

  text = g_strdup (((Item *) g_ptr_array_index (self->items, i - 1))->text);
  if (drop_user)
    {
      g_ptr_array_set_size (self->items, i - 1);
      self->turn--;
    }
  else
    g_ptr_array_set_size (self->items, i);

  return text;
}

guint
sj_agent_context_estimate_tokens (SjAgentContext *self)
{
  guint total = strlen (self->system_prompt ? self->system_prompt : "") / 4 + 4;

  for (guint i = 0; i < self->items->len; i++)
    total += ((Item *) g_ptr_array_index (self->items, i))->tokens;

  return total;
}

static void
condense_tool (Item      *item,
               GPtrArray *dropped)
{
  const char *status = json_object_get_string_member_with_default (item->result, "status", NULL);
  JsonObject *result = json_object_new ();

  if (status != NULL)
    json_object_set_string_member (result, "status", status);
  else if (json_object_has_member (item->result, "ok"))
    json_object_set_boolean_member (result, "ok", json_object_get_boolean_member (item->result, "ok"));
  json_object_set_boolean_member (result, "condensed", TRUE);
  json_object_set_string_member (result, "note", "An older tool output, removed to save space.");

  g_clear_pointer (&item->result, json_object_unref);
  item->result = result;
  if (item->code_hash != NULL)
    g_ptr_array_add (dropped, g_steal_pointer (&item->code_hash));
  item->condensed = TRUE;
  item_measure (item);
}

static void
condense_assistant (Item *item)
{
  for (guint i = 0; item->tool_calls != NULL && i < json_array_get_length (item->tool_calls); i++)
    {
      JsonObject *function = json_object_get_object_member (json_array_get_object_element (item->tool_calls, i), "function");

      if (strlen (json_object_get_string_member (function, "arguments")) > 200)
        json_object_set_string_member (function, "arguments", "{\"condensed\":true}");
    }
  item->condensed = TRUE;
  item_measure (item);
}

static void
condense_user (Item      *item,
               GPtrArray *dropped)
{
  if (item->code_hash != NULL)
    g_ptr_array_add (dropped, g_steal_pointer (&item->code_hash));
  g_clear_pointer (&item->code, g_free);
  g_clear_pointer (&item->skills, g_free);
  g_free (item->envelope);
  item->envelope = g_strdup ("");
  item->condensed = TRUE;
  item_measure (item);
}

/* One pass of one kind over the items of turns before @before_turn (or of
 * the current turn, but for its last @keep items), oldest first, until
 * the budget holds. */
static gboolean
condense_pass (SjAgentContext *self,
               ItemKind        kind,
               guint           before_turn,
               guint           keep,
               guint           budget,
               GPtrArray      *dropped)
{
  guint limit = self->items->len > keep ? self->items->len - keep : 0;

  for (guint i = 0; i < limit; i++)
    {
      Item *item = g_ptr_array_index (self->items, i);

      if (sj_agent_context_estimate_tokens (self) <= budget)
        return TRUE;
      if (item->turn >= before_turn || item->kind != kind || item->condensed)
        continue;

      if (kind == ITEM_TOOL)
        condense_tool (item, dropped);
      else if (kind == ITEM_ASSISTANT)
        condense_assistant (item);
      else if (kind == ITEM_USER)
        condense_user (item, dropped);
    }

  return sj_agent_context_estimate_tokens (self) <= budget;
}

/**
 * sj_agent_context_condense:
 * @token_budget: the most the prompt may take, in estimated tokens
 *
 * Shrinks older turns until the prompt fits (or only the current turn is
 * left).
 *
 * Returns: (transfer full) (nullable): the hashes of code copies that were
 *   removed, so the agent can show the code again when the model no
 *   longer has it; %NULL when nothing was condensed
 */
GStrv
sj_agent_context_condense (SjAgentContext *self,
                           guint           token_budget)
{
  g_autoptr(GPtrArray) dropped = g_ptr_array_new_with_free_func (g_free);
  const ItemKind order[] = { ITEM_TOOL, ITEM_ASSISTANT, ITEM_USER };
  gboolean fits = sj_agent_context_estimate_tokens (self) <= token_budget;

  if (fits)
    return NULL;

  for (guint k = 0; k < G_N_ELEMENTS (order) && !fits; k++)
    fits = condense_pass (self, order[k], self->turn, 0, token_budget, dropped);

  /* Whole turns, oldest first. */
  while (!fits && self->items->len > 0 &&
         ((Item *) g_ptr_array_index (self->items, 0))->turn < self->turn)
    {
      guint oldest = ((Item *) g_ptr_array_index (self->items, 0))->turn;

      while (self->items->len > 0 && ((Item *) g_ptr_array_index (self->items, 0))->turn == oldest)
        {
          Item *item = g_ptr_array_index (self->items, 0);

          if (item->code_hash != NULL)
            g_ptr_array_add (dropped, g_steal_pointer (&item->code_hash));
          g_ptr_array_remove_index (self->items, 0);
        }
      fits = sj_agent_context_estimate_tokens (self) <= token_budget;
    }

  /* Last resort: the current turn's own older tool outputs, keeping the
   * latest round the model is working from. */
  if (!fits)
    condense_pass (self, ITEM_TOOL, self->turn + 1, 2, token_budget, dropped);

  g_ptr_array_add (dropped, NULL);
  return (GStrv) g_ptr_array_steal (dropped, NULL);
}

/**
 * sj_agent_context_build_messages:
 *
 * Returns: (transfer full): the "messages" array of the next request
 */
JsonArray *
sj_agent_context_build_messages (SjAgentContext *self)
{
  JsonArray *messages = json_array_new ();
  JsonObject *system = json_object_new ();

  json_object_set_string_member (system, "role", "system");
  json_object_set_string_member (system, "content", self->system_prompt ? self->system_prompt : "");
  json_array_add_object_element (messages, system);

  for (guint i = 0; i < self->items->len; i++)
    json_array_add_object_element (messages, item_to_message (g_ptr_array_index (self->items, i)));

  return messages;
}
