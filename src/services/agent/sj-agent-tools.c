/* sj-agent-tools.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The tools the model may call: one table (tools[] below) of names,
 * handlers and flags, whose schemas are in data/agent/tools.json under the
 * same names. Adding a tool is its definition there, its entry here and
 * its handler (the music, knowledge and listening tools' in
 * sj-agent-tools-music.c, the skills' in sj-agent-tools-skills.c). Whatever the model sends (unknown names, arguments that are not
 * JSON, wrong types, megabytes of text), the answer is a structured result
 * it can read and act on; nothing it sends can crash the app or skip the
 * apply pipeline's checks. Calls always finish with an outcome, never with
 * an error: a canceled call is an outcome too, so the transcript stays
 * consistent.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-agent-tools-private.h"
#include "sj-bundled-data.h"
#include "sj-json.h"

#define TOOLS_RESOURCE "/io/github/strudeljam/StrudelJam/agent/tools.json"

G_DEFINE_FINAL_TYPE (SjAgentTools, sj_agent_tools, G_TYPE_OBJECT)

/* Runs one call whose arguments are a JSON object, and finishes @task
 * (transfer full) with @outcome (transfer full), at once or later. */
typedef void (*ToolHandler) (SjAgentTools  *self,
                             SjToolOutcome *outcome,
                             JsonNode      *arguments,
                             GTask         *task);

typedef struct
{
  const char       *name;   /* as in data/agent/tools.json */
  ToolHandler       run;
  SjAgentToolFlags  flags;
} ToolEntry;

/* In the order data/agent/tools.json lists them, which is the order the
 * model reads them in (checked when they are loaded). */
static const ToolEntry tools[] = {
  { "read_code",            _sj_agent_tools_run_read_code,         SJ_AGENT_TOOL_NONE },
  { "apply_strudel_change", _sj_agent_tools_run_apply,             SJ_AGENT_TOOL_CHANGES_MUSIC },
  { "strudel_knowledge",    _sj_agent_tools_run_strudel_knowledge, SJ_AGENT_TOOL_NONE },
  { "search_knowledge",     _sj_agent_tools_run_search_knowledge,  SJ_AGENT_TOOL_NONE },
  { "skills_list",          _sj_agent_tools_run_skills_list,     SJ_AGENT_TOOL_NONE },
  { "activate_skills",      _sj_agent_tools_run_activate_skills, SJ_AGENT_TOOL_ACTIVATES_SKILLS },
  { "listen",               _sj_agent_tools_run_listen,            SJ_AGENT_TOOL_NONE },
};


static const ToolEntry *
find_tool (const char *name)
{
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (tools); i++)
    if (g_str_equal (name, tools[i].name))
      return &tools[i];

  return NULL;
}

void
sj_tool_outcome_free (SjToolOutcome *outcome)
{
  if (outcome == NULL)
    return;

  g_free (outcome->name);
  g_free (outcome->call_id);
  g_free (outcome->arguments);
  g_clear_pointer (&outcome->result, json_object_unref);
  g_free (outcome->known_hash);
  g_strfreev (outcome->skills);
  g_free (outcome);
}

static SjToolOutcome *
outcome_new (const char *name,
             const char *call_id,
             const char *arguments)
{
  SjToolOutcome *outcome = g_new0 (SjToolOutcome, 1);

  outcome->name = g_strdup (name ? name : "");
  outcome->call_id = g_strdup (call_id ? call_id : "");
  outcome->arguments = g_strdup (arguments ? arguments : "");
  outcome->apply_cycle = NAN;
  outcome->started = g_get_real_time ();
  outcome->status = SJ_HISTORY_TOOL_SUCCEEDED;

  return outcome;
}

/**
 * sj_tool_outcome_new_refused:
 * @code: a machine-readable reason, e.g. "TOOL_BUDGET_EXHAUSTED"
 * @message: what the model should do about it
 *
 * A call the agent did not run at all: over a budget, unknown, or with
 * arguments that could not be read.
 */
SjToolOutcome *
sj_tool_outcome_new_refused (const char *name,
                             const char *call_id,
                             const char *arguments,
                             const char *code,
                             const char *message)
{
  SjToolOutcome *outcome = outcome_new (name, call_id, arguments);
  JsonObject *error = json_object_new ();

  outcome->status = SJ_HISTORY_TOOL_FAILED;
  outcome->result = json_object_new ();
  json_object_set_string_member (outcome->result, "status", "error");
  json_object_set_string_member (error, "code", code);
  json_object_set_string_member (error, "message", message);
  json_object_set_string_member (error, "tool", outcome->name);
  json_object_set_object_member (outcome->result, "error", error);

  return outcome;
}

/**
 * sj_tool_outcome_new_canceled:
 *
 * The musician stopped the agent before the call finished: the model is
 * told so (every tool call needs a result before the conversation can go
 * on), and the tool log shows it as canceled.
 */
SjToolOutcome *
sj_tool_outcome_new_canceled (const char *name,
                              const char *call_id,
                              const char *arguments)
{
  SjToolOutcome *outcome = outcome_new (name, call_id, arguments);

  outcome->status = SJ_HISTORY_TOOL_CANCELED;
  outcome->result = json_object_new ();
  json_object_set_string_member (outcome->result, "status", "canceled");
  json_object_set_string_member (outcome->result, "message",
                                 "The musician stopped the agent before this call finished; nothing was changed by it.");

  return outcome;
}

static void
sj_agent_tools_dispose (GObject *object)
{
  SjAgentTools *self = (SjAgentTools *)object;

  g_clear_object (&self->applier);
  g_clear_object (&self->knowledge);
  g_clear_object (&self->knowledge_base);
  g_clear_object (&self->skills);
  g_clear_object (&self->levels);
  g_clear_object (&self->verifier);

  G_OBJECT_CLASS (sj_agent_tools_parent_class)->dispose (object);
}

static void
sj_agent_tools_finalize (GObject *object)
{
  SjAgentTools *self = (SjAgentTools *)object;

  g_strfreev (self->pinned_skills);
  g_strfreev (self->activated_skills);

  G_OBJECT_CLASS (sj_agent_tools_parent_class)->finalize (object);
}

static void
sj_agent_tools_class_init (SjAgentToolsClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sj_agent_tools_dispose;
  G_OBJECT_CLASS (klass)->finalize = sj_agent_tools_finalize;
}

static void
sj_agent_tools_init (SjAgentTools *self)
{
}

SjAgentTools *
sj_agent_tools_new (SjChangeApplier *applier,
                    SjKnowledge     *knowledge,
                    SjKnowledgeBase *knowledge_base)
{
  SjAgentTools *self;

  g_return_val_if_fail (SJ_IS_CHANGE_APPLIER (applier), NULL);
  g_return_val_if_fail (SJ_IS_KNOWLEDGE (knowledge), NULL);
  g_return_val_if_fail (SJ_IS_KNOWLEDGE_BASE (knowledge_base), NULL);

  self = g_object_new (SJ_TYPE_AGENT_TOOLS, NULL);
  self->applier = g_object_ref (applier);
  self->knowledge = g_object_ref (knowledge);
  self->knowledge_base = g_object_ref (knowledge_base);

  return self;
}

SjChangeApplier *
sj_agent_tools_get_applier (SjAgentTools *self)
{
  g_assert (SJ_IS_AGENT_TOOLS (self));

  return self->applier;
}

/**
 * sj_agent_tools_set_skills:
 * @skills: (nullable): the registry the skill tools read
 */
void
sj_agent_tools_set_skills (SjAgentTools    *self,
                           SjSkillRegistry *skills)
{
  g_assert (SJ_IS_AGENT_TOOLS (self));

  g_set_object (&self->skills, skills);
}

/**
 * sj_agent_tools_set_levels:
 * @levels: (nullable): what the listen tool reads
 */
void
sj_agent_tools_set_levels (SjAgentTools *self,
                           SjLevels     *levels)
{
  g_assert (SJ_IS_AGENT_TOOLS (self));

  g_set_object (&self->levels, levels);
}

/**
 * sj_agent_tools_set_verifier:
 * @verifier: (nullable): what hears a landed change; with it,
 *   apply_strudel_change answers once the change was heard (or reverted)
 */
void
sj_agent_tools_set_verifier (SjAgentTools     *self,
                             SjChangeVerifier *verifier)
{
  g_assert (SJ_IS_AGENT_TOOLS (self));

  g_set_object (&self->verifier, verifier);
}

/**
 * sj_agent_tools_set_session_skills:
 *
 * What skills_list says is pinned and active: the agent keeps it in step
 * with the session.
 */
void
sj_agent_tools_set_session_skills (SjAgentTools       *self,
                                   const char * const *pinned,
                                   const char * const *activated)
{
  g_assert (SJ_IS_AGENT_TOOLS (self));

  g_strfreev (self->pinned_skills);
  g_strfreev (self->activated_skills);
  self->pinned_skills = g_strdupv ((GStrv) pinned);
  self->activated_skills = g_strdupv ((GStrv) activated);
}

/* The table and tools.json list the same tools in the same order. */
static void
check_definitions (JsonArray *definitions)
{
  guint n = json_array_get_length (definitions);

  if (n != G_N_ELEMENTS (tools))
    g_error ("tools.json defines %u tools, the table has %u", n, (guint) G_N_ELEMENTS (tools));

  for (guint i = 0; i < n; i++)
    {
      JsonObject *function = json_object_get_object_member (json_array_get_object_element (definitions, i), "function");
      const char *name = function ? json_object_get_string_member_with_default (function, "name", NULL) : NULL;

      if (g_strcmp0 (name, tools[i].name) != 0)
        g_error ("Tool %u is “%s” in tools.json, “%s” in the table", i, name ? name : "", tools[i].name);
    }
}

/**
 * sj_agent_tools_get_definitions:
 *
 * The tools' JSON schemas as the chat completions API takes them, from
 * the resource written for this app (data/agent/tools.json). They list
 * the table's tools in its order; a tool added to one and not the other
 * stops the app at its first request (and the tests before that).
 *
 * Returns: (transfer full): the "tools" array of a request
 */
JsonArray *
sj_agent_tools_get_definitions (void)
{
  static gsize initialized;
  static JsonNode *definitions;

  if (g_once_init_enter (&initialized))
    {
      g_autoptr(GBytes) bytes = NULL;

      sj_bundled_data_register ();
      bytes = g_resources_lookup_data (TOOLS_RESOURCE, 0, NULL);
      g_assert (bytes != NULL);
      if ((definitions = sj_json_parse_bytes (bytes, NULL, NULL)) == NULL)
        g_error ("The bundled tool definitions are not valid JSON");

      check_definitions (json_node_get_array (definitions));
      g_once_init_leave (&initialized, 1);
    }

  return json_array_ref (json_node_get_array (definitions));
}

/**
 * sj_agent_tools_get_flags:
 * @name: a tool's name, as the model called it
 *
 * What the tools table says about a tool, so that the agent loop never
 * compares names: whether a successful call changes the music.
 *
 * Returns: the tool's flags; %SJ_AGENT_TOOL_NONE for a name that is not a
 *   tool
 */
SjAgentToolFlags
sj_agent_tools_get_flags (const char *name)
{
  const ToolEntry *tool = find_tool (name);

  return tool != NULL ? tool->flags : SJ_AGENT_TOOL_NONE;
}

void
_sj_agent_tools_finish_outcome (GTask         *task,
                                SjToolOutcome *outcome)
{
  outcome->duration_us = g_get_real_time () - outcome->started;
  g_task_return_pointer (task, outcome, (GDestroyNotify) sj_tool_outcome_free);
}

/* "a, b, c and d": what the model is told when it names no tool of ours. */
static char *
list_tools (void)
{
  GString *names = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (tools); i++)
    {
      if (i > 0)
        g_string_append (names, i + 1 < G_N_ELEMENTS (tools) ? ", " : " and ");
      g_string_append (names, tools[i].name);
    }

  return g_string_free (names, FALSE);
}

static JsonNode *
parse_arguments (const char  *arguments,
                 char       **out_message)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  const char *text = arguments;

  /* Models send "" for a call without arguments. */
  while (text != NULL && g_ascii_isspace (*text))
    text++;
  if (text == NULL || *text == '\0')
    text = "{}";

  if (strlen (text) > SJ_AGENT_TOOLS_MAX_ARGUMENTS)
    {
      *out_message = g_strdup_printf ("The arguments are %zu bytes, more than the %d allowed.",
                                      strlen (text), SJ_AGENT_TOOLS_MAX_ARGUMENTS);
      return NULL;
    }

  if ((root = sj_json_parse (text, -1, NULL, &error)) == NULL)
    {
      if (g_error_matches (error, SJ_JSON_ERROR, SJ_JSON_ERROR_INPUT_TOO_DEEP))
        *out_message = g_strdup_printf ("INPUT_TOO_DEEP: the arguments nest more than %d levels deep. "
                                        "Send one flat JSON object that matches the tool's parameters.",
                                        SJ_JSON_DEFAULT_MAX_DEPTH);
      else
        *out_message = g_strdup_printf ("The arguments are not valid JSON (%s). Send one JSON object that matches the tool's parameters.",
                                        error->message);
      return NULL;
    }

  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      *out_message = g_strdup ("The arguments must be one JSON object that matches the tool's parameters.");
      return NULL;
    }

  return g_steal_pointer (&root);
}

/**
 * sj_agent_tools_call_async:
 * @name: the tool the model named
 * @call_id: the model's id for the call, echoed in the outcome
 * @arguments: the arguments exactly as streamed (a JSON text, maybe broken)
 *
 * Runs one tool call. The result is always an #SjToolOutcome.
 */
void
sj_agent_tools_call_async (SjAgentTools        *self,
                           const char          *name,
                           const char          *call_id,
                           const char          *arguments,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonNode) parsed = NULL;
  g_autofree char *problem = NULL;
  const ToolEntry *tool;

  g_assert (SJ_IS_AGENT_TOOLS (self));
  g_assert (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_agent_tools_call_async);
  /* The outcome says "canceled" itself; the task must not turn it into an error. */
  g_task_set_check_cancellable (task, FALSE);

  if (g_cancellable_is_cancelled (cancellable))
    {
      _sj_agent_tools_finish_outcome (task, sj_tool_outcome_new_canceled (name, call_id, arguments));
      return;
    }

  tool = find_tool (name);
  if (tool == NULL)
    {
      g_autofree char *names = list_tools ();
      g_autofree char *message = g_strdup_printf ("There is no tool “%s”. The tools are %s.", name ? name : "", names);

      _sj_agent_tools_finish_outcome (task, sj_tool_outcome_new_refused (name, call_id, arguments, "UNKNOWN_TOOL", message));
      return;
    }

  parsed = parse_arguments (arguments, &problem);
  if (parsed == NULL)
    {
      _sj_agent_tools_finish_outcome (task, sj_tool_outcome_new_refused (name, call_id, arguments, "INVALID_ARGUMENTS", problem));
      return;
    }

  tool->run (self, outcome_new (name, call_id, arguments), parsed, g_steal_pointer (&task));
}

/**
 * sj_agent_tools_call_finish:
 *
 * Returns: (transfer full): the outcome, never %NULL
 */
SjToolOutcome *
sj_agent_tools_call_finish (SjAgentTools *self,
                            GAsyncResult *result)
{
  g_assert (SJ_IS_AGENT_TOOLS (self));
  g_assert (g_task_is_valid (result, self));

  return g_task_propagate_pointer (G_TASK (result), NULL);
}
