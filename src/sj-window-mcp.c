/* sj-window-mcp.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The window's side of `strudel-jam --mcp` (issue 34): what an MCP client
 * asks over the app's private D-Bus interface (SjApplication exports it,
 * sj-application-mcp.c) runs here, through the same tool table as the
 * in-app agent (SjAgentTools) on the window's own change applier, so a
 * change is dry-run, lands on the next cycle through the same swap, shows
 * in the editor, and Cancel Change and Panic act on it as on the agent's.
 *
 * The musician stays in charge:
 *  - the "mcp-server-enabled" setting off, every call is refused with a
 *    message saying so;
 *  - the first call of a client that reads or changes anything (tools/call,
 *    resources/read; the lists are the same for everyone and are not
 *    asked about) asks in the window: Allow or Block, remembered by the
 *    client's name in the "mcp-clients" setting. GSettings rather than the
 *    history: it is a preference the musician can see and reset
 *    (gsettings, or Settings), and deleting history sessions must not
 *    silently trust or forget a client. Closing the dialog decides nothing:
 *    the calls waiting are refused and the next one asks again;
 *  - every call is recorded in the current chat session under a message of
 *    role "tool" whose content is the client's name, one per client and
 *    session, so the Logs page lists it as coming from that client.
 *
 * Each client gets its own SjAgentTools (the same applier, knowledge,
 * levels, verifier and skills as the agent's), so what one client read
 * does not count as read by the agent or by another client.
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "sj-agent.h"
#include "sj-agent-tools.h"
#include "sj-application.h"
#include "sj-bundled-data.h"
#include "sj-json.h"
#include "sj-knowledge-base.h"
#include "sj-mcp-backend.h"
#include "sj-window-private.h"

struct _SjWindowMcp
{
  GHashTable   *tools;      /* client -> SjAgentTools */
  GHashTable   *waiting;    /* client -> GPtrArray of McpCall, while asked */
  GHashTable   *dialogs;    /* client -> AdwMessageDialog */
  GHashTable   *messages;   /* client -> the "tool" message of the session it is in */
  gint64        session_id; /* of those messages */
  GCancellable *cancellable;
};

typedef struct
{
  SjWindow              *self;
  GDBusMethodInvocation *invocation;
  char                  *client;
  char                  *tool;       /* NULL for a resource */
  char                  *arguments;
  char                  *uri;
  gint64                 started;
} McpCall;

static void
mcp_call_free (McpCall *call)
{
  if (call == NULL)
    return;

  g_clear_object (&call->self);
  g_clear_object (&call->invocation);
  g_free (call->client);
  g_free (call->tool);
  g_free (call->arguments);
  g_free (call->uri);
  g_free (call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (McpCall, mcp_call_free)

static SjWindowMcp *
get_mcp (SjWindow *self)
{
  if (self->mcp == NULL)
    {
      self->mcp = g_new0 (SjWindowMcp, 1);
      self->mcp->tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
      self->mcp->waiting = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
      self->mcp->dialogs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      self->mcp->messages = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      self->mcp->cancellable = g_cancellable_new ();
    }

  return self->mcp;
}

static void
return_json (GDBusMethodInvocation *invocation,
             JsonObject            *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);
  g_autofree char *text = json_to_string (node, FALSE);

  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(s)", text));
}

static void
return_error (GDBusMethodInvocation *invocation,
              SjMcpError             code,
              const char            *message)
{
  g_dbus_method_invocation_return_error_literal (invocation, SJ_MCP_ERROR, code, message);
}

/* Logs ---------------------------------------------------------------------- */

/* The message the client's calls are recorded under, in the agent's current
 * session (started, with a line in the chat, when there is none). */
static gint64
client_message (SjWindow   *self,
                const char *client)
{
  SjWindowMcp *mcp = get_mcp (self);
  SjAgent *agent = sj_window_get_agent (self);
  g_autoptr(GError) error = NULL;
  gint64 session;
  gint64 id;

  if (agent == NULL || self->history == NULL)
    return 0;

  session = sj_agent_get_session_id (agent);
  if (session != mcp->session_id)
    {
      g_hash_table_remove_all (mcp->messages);
      mcp->session_id = session;
    }
  if ((id = GPOINTER_TO_SIZE (g_hash_table_lookup (mcp->messages, client))) != 0 && session != 0)
    return id;

  {
    /* TRANSLATORS: a line in the chat; %s is the name an MCP client gave
     * itself, e.g. "claude-code" */
    g_autofree char *line = g_strdup_printf (_("“%s” (MCP client) is using Strudel Jam’s tools; its calls are in Logs"),
                                             client);

    sj_agent_add_note (agent, line, NULL);
  }
  session = sj_agent_get_session_id (agent);
  if (session == 0)
    return 0;
  mcp->session_id = session;
  g_hash_table_remove_all (mcp->messages);

  id = sj_history_store_append_message (self->history, session, SJ_HISTORY_ROLE_TOOL, client, NULL,
                                        SJ_HISTORY_MESSAGE_COMPLETE, &error);
  if (id == 0)
    {
      g_warning ("Could not record the MCP client %s: %s", client, error->message);
      return 0;
    }
  g_hash_table_insert (mcp->messages, g_strdup (client), GSIZE_TO_POINTER ((gsize)id));

  return id;
}

static void
record_call (SjWindow      *self,
             const char    *client,
             SjToolOutcome *outcome,
             const char    *result)
{
  g_autoptr(GError) error = NULL;
  gint64 message_id = client_message (self, client);
  gint64 id;

  if (message_id == 0)
    return;

  id = sj_history_store_record_tool_call (self->history, message_id, outcome->name, outcome->arguments, result,
                                          outcome->status, outcome->duration_us / 1000, outcome->apply_cycle, &error);
  if (id == 0)
    {
      g_warning ("Could not record an MCP call: %s", error->message);
      return;
    }
  sj_tool_logs_page_add_call (self->tool_logs_page, id);
}

/* Running a call ------------------------------------------------------------- */

static SjAgentTools *
client_tools (SjWindow   *self,
              const char *client)
{
  SjWindowMcp *mcp = get_mcp (self);
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  SjAgentTools *tools = g_hash_table_lookup (mcp->tools, client);

  if (tools != NULL || !SJ_IS_APPLICATION (app))
    return tools;

  tools = sj_agent_tools_new (sj_window_get_applier (self),
                              sj_application_get_knowledge (SJ_APPLICATION (app)),
                              sj_knowledge_base_get_bundled ());
  sj_agent_tools_set_levels (tools, self->levels);
  sj_agent_tools_set_verifier (tools, self->verifier);
  sj_agent_tools_set_skills (tools, sj_application_get_skills (SJ_APPLICATION (app)));
  g_hash_table_insert (mcp->tools, g_strdup (client), tools);

  return tools;
}

static char *
reference_text (void)
{
  static const char * const notes[] = {
    "notation.md", "core_functions.md", "patterns.md", "effects.md", "samples.md", "synths.md",
    "best_practices.md",
  };
  GString *text = g_string_new (NULL);

  sj_bundled_data_register ();
  for (guint i = 0; i < G_N_ELEMENTS (notes); i++)
    {
      g_autofree char *path = g_strconcat ("/io/github/strudeljam/StrudelJam/knowledge/", notes[i], NULL);
      g_autoptr(GBytes) bytes = g_resources_lookup_data (path, 0, NULL);

      if (bytes == NULL)
        continue;
      if (text->len > 0)
        g_string_append (text, "\n\n");
      g_string_append_len (text, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
    }

  return g_string_free (text, FALSE);
}

static void
tool_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(McpCall) call = user_data;
  g_autoptr(SjToolOutcome) outcome = sj_agent_tools_call_finish (SJ_AGENT_TOOLS (object), result);
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), outcome->result);
  g_autofree char *text = json_to_string (node, FALSE);

  if (call->self->mcp != NULL && !call->self->closing)
    record_call (call->self, call->client, outcome, text);

  if (call->uri != NULL)
    {
      g_autoptr(JsonObject) answer = json_object_new ();
      JsonArray *contents = json_array_new ();
      JsonObject *item = json_object_new ();
      const char *code = sj_json_object_get_string (outcome->result, "code");

      if (code == NULL)
        {
          return_error (call->invocation, SJ_MCP_ERROR_INTERNAL, "Could not read the code from the page");
          return;
        }
      json_object_set_string_member (item, "uri", SJ_MCP_URI_CODE);
      json_object_set_string_member (item, "mimeType", "text/javascript");
      json_object_set_string_member (item, "text", code);
      json_array_add_object_element (contents, item);
      json_object_set_array_member (answer, "contents", contents);
      return_json (call->invocation, answer);
      return;
    }

  {
    g_autoptr(JsonObject) answer = sj_mcp_tool_result (outcome->result);

    return_json (call->invocation, answer);
  }
}

static gboolean
is_tool (const char *name)
{
  g_autoptr(JsonArray) definitions = sj_agent_tools_get_definitions ();

  for (guint i = 0; i < json_array_get_length (definitions); i++)
    {
      JsonObject *function = sj_json_object_get_object (json_array_get_object_element (definitions, i), "function");

      if (function != NULL && g_strcmp0 (sj_json_object_get_string (function, "name"), name) == 0)
        return TRUE;
    }

  return FALSE;
}

static void
run_call (McpCall *owned)
{
  g_autoptr(McpCall) call = owned;
  SjWindow *self = call->self;
  SjAgentTools *tools;
  g_autofree char *call_id = NULL;
  const char *name;
  const char *arguments;

  if (call->uri != NULL && g_str_equal (call->uri, SJ_MCP_URI_REFERENCE))
    {
      g_autoptr(JsonObject) answer = json_object_new ();
      JsonArray *contents = json_array_new ();
      JsonObject *item = json_object_new ();
      g_autofree char *text = reference_text ();

      json_object_set_string_member (item, "uri", SJ_MCP_URI_REFERENCE);
      json_object_set_string_member (item, "mimeType", "text/markdown");
      json_object_set_string_member (item, "text", text);
      json_array_add_object_element (contents, item);
      json_object_set_array_member (answer, "contents", contents);
      return_json (call->invocation, answer);
      return;
    }
  if (call->uri != NULL && !g_str_equal (call->uri, SJ_MCP_URI_CODE))
    {
      g_autofree char *message = g_strdup_printf ("Resource not found: %.200s (the resources are "
                                                  SJ_MCP_URI_CODE " and " SJ_MCP_URI_REFERENCE ")", call->uri);

      return_error (call->invocation, SJ_MCP_ERROR_RESOURCE_NOT_FOUND, message);
      return;
    }

  if (call->tool != NULL && !is_tool (call->tool))
    {
      g_autofree char *message = g_strdup_printf ("Unknown tool: %.100s", call->tool);

      return_error (call->invocation, SJ_MCP_ERROR_INVALID_PARAMS, message);
      return;
    }

  tools = client_tools (self, call->client);
  if (tools == NULL)
    {
      return_error (call->invocation, SJ_MCP_ERROR_UNAVAILABLE, "The window is not ready yet; try again");
      return;
    }

  call_id = g_strdup_printf ("mcp-%" G_GINT64_FORMAT, g_get_real_time ());
  /* A resource read of the code is read_code's, logged as such. */
  name = call->uri != NULL ? "read_code" : call->tool;
  arguments = call->uri != NULL ? "{}" : call->arguments;
  sj_agent_tools_call_async (tools, name, call_id, arguments, get_mcp (self)->cancellable, tool_done_cb,
                             g_steal_pointer (&call));
}

/* Asking the musician -------------------------------------------------------- */

typedef enum
{
  CLIENT_UNKNOWN,
  CLIENT_ALLOWED,
  CLIENT_BLOCKED,
} ClientState;

static ClientState
client_state (SjWindow   *self,
              const char *client)
{
  g_autoptr(GVariant) clients = g_settings_get_value (self->settings, "mcp-clients");
  gboolean allowed;

  if (!g_variant_lookup (clients, client, "b", &allowed))
    return CLIENT_UNKNOWN;

  return allowed ? CLIENT_ALLOWED : CLIENT_BLOCKED;
}

static void
remember_client (SjWindow   *self,
                 const char *client,
                 gboolean    allowed)
{
  g_autoptr(GVariant) clients = g_settings_get_value (self->settings, "mcp-clients");
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a{sb}"));
  GVariantIter iter;
  const char *name;
  gboolean value;

  g_variant_iter_init (&iter, clients);
  while (g_variant_iter_next (&iter, "{&sb}", &name, &value))
    if (!g_str_equal (name, client))
      g_variant_builder_add (&builder, "{sb}", name, value);
  g_variant_builder_add (&builder, "{sb}", client, allowed);
  g_settings_set_value (self->settings, "mcp-clients", g_variant_builder_end (&builder));
}

static void
refuse_blocked (McpCall *call)
{
  g_autofree char *message = g_strdup_printf ("The musician blocked the MCP client “%s” in Strudel Jam: "
                                              "its calls are refused.", call->client);

  return_error (call->invocation, SJ_MCP_ERROR_REFUSED, message);
}

static void
dialog_response_cb (AdwMessageDialog *dialog,
                    const char       *response,
                    SjWindow         *self)
{
  SjWindowMcp *mcp = get_mcp (self);
  const char *client = g_object_get_data (G_OBJECT (dialog), "sj-mcp-client");
  g_autoptr(GPtrArray) calls = NULL;
  g_autofree char *name = g_strdup (client);

  g_assert (SJ_IS_WINDOW (self));

  if (g_str_equal (response, "allow") || g_str_equal (response, "block"))
    remember_client (self, name, g_str_equal (response, "allow"));

  g_hash_table_remove (mcp->dialogs, name);
  g_hash_table_steal_extended (mcp->waiting, name, NULL, (gpointer *)&calls);

  for (guint i = 0; calls != NULL && i < calls->len; i++)
    {
      McpCall *call = g_steal_pointer (&g_ptr_array_index (calls, i));

      if (g_str_equal (response, "allow"))
        run_call (call);
      else
        {
          if (g_str_equal (response, "block"))
            refuse_blocked (call);
          else
            return_error (call->invocation, SJ_MCP_ERROR_REFUSED,
                          "The musician closed Strudel Jam's question without allowing this MCP client; "
                          "the next call asks again.");
          mcp_call_free (call);
        }
    }
}

static void
ask_musician (SjWindow *self,
              McpCall  *call)
{
  SjWindowMcp *mcp = get_mcp (self);
  GPtrArray *calls = g_hash_table_lookup (mcp->waiting, call->client);
  g_autofree char *heading = NULL;
  g_autofree char *body = NULL;
  AdwMessageDialog *dialog;

  if (calls == NULL)
    {
      calls = g_ptr_array_new_with_free_func ((GDestroyNotify)mcp_call_free);
      g_hash_table_insert (mcp->waiting, g_strdup (call->client), calls);
    }
  g_ptr_array_add (calls, call);

  if (g_hash_table_contains (mcp->dialogs, call->client))
    return;

  /* TRANSLATORS: %s is the name an MCP client (another app's AI agent)
   * gave itself, e.g. "claude-code" */
  heading = g_strdup_printf (_("Let “%s” Jam?"), call->client);
  body = g_strdup_printf (_("An app connected over the Model Context Protocol as “%s” asks to read and change the "
                            "music in this window. Its changes are checked and land on the next cycle; Cancel "
                            "Change and Panic work on them. Your answer is remembered."),
                          call->client);
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), heading, body));
  adw_message_dialog_add_responses (dialog,
                                    "block", _("_Block"),
                                    "allow", _("_Allow"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "block", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (dialog, "allow", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "allow");
  /* Closing it (Escape) decides nothing. */
  adw_message_dialog_set_close_response (dialog, "close");
  g_object_set_data_full (G_OBJECT (dialog), "sj-mcp-client", g_strdup (call->client), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (dialog_response_cb), self, 0);
  g_hash_table_insert (mcp->dialogs, g_strdup (call->client), dialog);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* The D-Bus method ----------------------------------------------------------- */

/**
 * sj_window_handle_mcp_call:
 * @invocation: a call of SJ_MCP_DBUS_INTERFACE, answered here (now or
 *   later)
 *
 * Runs an MCP client's request in this window.
 */
void
sj_window_handle_mcp_call (SjWindow              *self,
                           GDBusMethodInvocation *invocation)
{
  const char *method = g_dbus_method_invocation_get_method_name (invocation);
  GVariant *parameters = g_dbus_method_invocation_get_parameters (invocation);
  g_autoptr(McpCall) call = NULL;

  g_assert (SJ_IS_WINDOW (self));

  if (!g_settings_get_boolean (self->settings, "mcp-server-enabled"))
    {
      return_error (invocation, SJ_MCP_ERROR_REFUSED,
                    "The musician turned Strudel Jam's MCP server off (Settings, “Let other apps jam”).");
      return;
    }

  if (g_str_equal (method, "ListTools"))
    {
      g_autoptr(JsonArray) definitions = sj_agent_tools_get_definitions ();
      g_autoptr(JsonObject) answer = sj_mcp_tools_from_definitions (definitions);

      return_json (invocation, answer);
      return;
    }
  if (g_str_equal (method, "ListResources"))
    {
      g_autoptr(JsonObject) answer = sj_mcp_resources_list ();

      return_json (invocation, answer);
      return;
    }

  call = g_new0 (McpCall, 1);
  call->self = g_object_ref (self);
  call->invocation = g_object_ref (invocation);
  call->started = g_get_monotonic_time ();
  if (g_str_equal (method, "CallTool"))
    g_variant_get (parameters, "(sss)", &call->client, &call->tool, &call->arguments);
  else if (g_str_equal (method, "ReadResource"))
    g_variant_get (parameters, "(ss)", &call->client, &call->uri);
  else
    {
      return_error (invocation, SJ_MCP_ERROR_METHOD_NOT_FOUND, "No such method");
      return;
    }

  switch (client_state (self, call->client))
    {
    case CLIENT_ALLOWED:
      run_call (g_steal_pointer (&call));
      break;
    case CLIENT_BLOCKED:
      refuse_blocked (call);
      break;
    case CLIENT_UNKNOWN:
    default:
      ask_musician (self, g_steal_pointer (&call));
      break;
    }
}

/* For the tests: the question open for @client, or %NULL. */
AdwMessageDialog *
_sj_window_get_mcp_dialog (SjWindow   *self,
                           const char *client)
{
  g_assert (SJ_IS_WINDOW (self));

  return self->mcp != NULL ? g_hash_table_lookup (self->mcp->dialogs, client) : NULL;
}

/**
 * _sj_window_mcp_cancel_calls:
 *
 * Panic: every MCP call at work is canceled (its client gets the tool's
 * "canceled" result); the next calls run as before.
 */
void
_sj_window_mcp_cancel_calls (SjWindow *self)
{
  g_assert (SJ_IS_WINDOW (self));

  if (self->mcp == NULL)
    return;

  g_cancellable_cancel (self->mcp->cancellable);
  g_object_unref (self->mcp->cancellable);
  self->mcp->cancellable = g_cancellable_new ();
}

void
_sj_window_mcp_dispose (SjWindow *self)
{
  SjWindowMcp *mcp = self->mcp;
  GHashTableIter iter;
  gpointer dialog;

  if (mcp == NULL)
    return;

  self->mcp = NULL;
  g_cancellable_cancel (mcp->cancellable);
  g_hash_table_iter_init (&iter, mcp->dialogs);
  while (g_hash_table_iter_next (&iter, NULL, &dialog))
    gtk_window_destroy (GTK_WINDOW (dialog));
  /* The calls still waiting are answered: the window is gone. */
  g_hash_table_iter_init (&iter, mcp->waiting);
  {
    gpointer calls;

    while (g_hash_table_iter_next (&iter, NULL, &calls))
      for (guint i = 0; i < ((GPtrArray *)calls)->len; i++)
        return_error (((McpCall *)g_ptr_array_index ((GPtrArray *)calls, i))->invocation,
                      SJ_MCP_ERROR_UNAVAILABLE, "The Strudel Jam window closed");
  }
  g_hash_table_destroy (mcp->waiting);
  g_hash_table_destroy (mcp->dialogs);
  g_hash_table_destroy (mcp->messages);
  g_hash_table_destroy (mcp->tools);
  g_object_unref (mcp->cancellable);
  g_free (mcp);
}
