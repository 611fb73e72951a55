/* sj-model-catalog.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The models a provider offers (GET /models), what it says about their use
 * of tools, and the model a first start suggests. The Chat's first-start
 * status page and the Settings page's model menu both fetch models through
 * here, so the key, the check of the key and the choice are made the same
 * way in both.
 *
 * Fetching: the key given, or with SJ_MODEL_FETCH_STORED_KEY the one in
 * the keyring (the models are still asked for without one: OpenRouter
 * lists them to anyone, local servers need none). OpenRouter's model list
 * is public, so it cannot tell a refused key from a good one: with a key,
 * OpenRouter is first asked about the key itself (GET /key), and a refusal
 * there is the fetch's error. A local server is asked for its models only.
 *
 * The agent works through tools, so only models that can call them are
 * offered when the provider says which can (OpenRouter's
 * "supported_parameters"); local servers do not say, and then every model
 * but the embedding ones is offered.
 *
 * The default is chosen by a rule, in this order:
 *
 *  1. the first of a short list of capable, inexpensive models that call
 *     tools well that the provider offers: hosted_preferred for OpenRouter,
 *     by exact id; local_preferred for local servers, by family ("qwen3"
 *     matches "qwen3:8b" and "qwen/qwen3-8b");
 *  2. else the first model, in the provider's order, that the provider
 *     says can use tools;
 *  3. else the first model offered to the agent at all.
 *
 * The lists are a judgement of today's models; the fallbacks keep the rule
 * working when they go out of date.
 */

#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "sj-json.h"
#include "sj-llm-client.h"
#include "sj-model-catalog.h"
#include "sj-secrets.h"

/* Capable at writing code and calling tools, fast, and a fraction of the
 * price of the largest models; in order of preference. */
static const char * const hosted_preferred[] = {
  "google/gemini-2.5-flash",
  "openai/gpt-4.1-mini",
  "deepseek/deepseek-chat-v3.1",
  "qwen/qwen3-coder",
  "anthropic/claude-haiku-4.5",
  "mistralai/mistral-small-3.2-24b-instruct",
  NULL
};

/* Families that run on a laptop and call tools reliably. */
static const char * const local_preferred[] = {
  "qwen3",
  "gpt-oss",
  "qwen2.5-coder",
  "qwen2.5",
  "llama3.1",
  "llama3.2",
  "mistral-nemo",
  "mistral-small",
  NULL
};

struct _SjModelCatalog
{
  GObject     parent_instance;

  GStrv       ids;
  GHashTable *tools;        /* id → SjModelTools, for the models the provider said something about */
  gboolean    knows_tools;  /* the provider said it for at least one model */
};

G_DEFINE_FINAL_TYPE (SjModelCatalog, sj_model_catalog, G_TYPE_OBJECT)

static void
sj_model_catalog_finalize (GObject *object)
{
  SjModelCatalog *self = (SjModelCatalog *)object;

  g_clear_pointer (&self->ids, g_strfreev);
  g_clear_pointer (&self->tools, g_hash_table_unref);

  G_OBJECT_CLASS (sj_model_catalog_parent_class)->finalize (object);
}

static void
sj_model_catalog_class_init (SjModelCatalogClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_model_catalog_finalize;
}

static void
sj_model_catalog_init (SjModelCatalog *self)
{
  self->tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/* Parsing ----------------------------------------------------------------- */

static SjModelTools
parse_tools (JsonObject *model)
{
  JsonNode *node = json_object_get_member (model, "supported_parameters");
  JsonArray *parameters;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return SJ_MODEL_TOOLS_UNKNOWN;

  parameters = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (parameters); i++)
    {
      JsonNode *element = json_array_get_element (parameters, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING &&
          g_str_equal (json_node_get_string (element), "tools"))
        return SJ_MODEL_TOOLS_YES;
    }

  return SJ_MODEL_TOOLS_NO;
}

/**
 * sj_model_catalog_new_from_json:
 *
 * Reads an answer of GET /models: {"data": [{"id": …}, …]} (OpenAI,
 * OpenRouter, Ollama, llama.cpp, LM Studio) or a bare array of the same.
 *
 * Returns: (transfer full): the catalog, or %NULL with
 *   SJ_LLM_CLIENT_ERROR_PROTOCOL
 */
SjModelCatalog *
sj_model_catalog_new_from_json (const char  *data,
                                gssize       len,
                                GError     **error)
{
  g_autoptr(JsonNode) root = sj_json_parse (data, len, NULL, NULL);
  g_autoptr(GStrvBuilder) ids = g_strv_builder_new ();
  g_autoptr(SjModelCatalog) self = NULL;
  JsonArray *list = NULL;

  if (root != NULL)
    {
      if (JSON_NODE_HOLDS_OBJECT (root))
        {
          JsonNode *node = json_object_get_member (json_node_get_object (root), "data");

          if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
            list = json_node_get_array (node);
        }
      else if (JSON_NODE_HOLDS_ARRAY (root))
        list = json_node_get_array (root);
    }

  if (list == NULL)
    {
      g_set_error_literal (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_PROTOCOL,
                           "The provider sent a malformed model list");
      return NULL;
    }

  self = g_object_new (SJ_TYPE_MODEL_CATALOG, NULL);
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonNode *node = json_array_get_element (list, i);
      JsonObject *model;
      JsonNode *id;
      SjModelTools tools;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      model = json_node_get_object (node);
      id = json_object_get_member (model, "id");
      if (id == NULL || !JSON_NODE_HOLDS_VALUE (id) || json_node_get_value_type (id) != G_TYPE_STRING)
        continue;

      g_strv_builder_add (ids, json_node_get_string (id));
      tools = parse_tools (model);
      if (tools != SJ_MODEL_TOOLS_UNKNOWN)
        {
          g_hash_table_replace (self->tools, g_strdup (json_node_get_string (id)), GINT_TO_POINTER (tools));
          self->knows_tools = TRUE;
        }
    }
  self->ids = g_strv_builder_end (ids);

  return g_steal_pointer (&self);
}

/* Queries ----------------------------------------------------------------- */

/* Returns: (transfer none): the model ids, in the provider's order */
const char * const *
sj_model_catalog_get_ids (SjModelCatalog *self)
{
  g_return_val_if_fail (SJ_IS_MODEL_CATALOG (self), NULL);

  return (const char * const *)self->ids;
}

SjModelTools
sj_model_catalog_get_tools (SjModelCatalog *self,
                            const char     *id)
{
  g_return_val_if_fail (SJ_IS_MODEL_CATALOG (self), SJ_MODEL_TOOLS_UNKNOWN);

  return GPOINTER_TO_INT (g_hash_table_lookup (self->tools, id));
}

static gboolean
is_for_agent (SjModelCatalog *self,
              const char     *id)
{
  g_autofree char *lower = NULL;

  if (self->knows_tools)
    return sj_model_catalog_get_tools (self, id) == SJ_MODEL_TOOLS_YES;

  /* Embedding models are listed with the others but cannot chat. */
  lower = g_ascii_strdown (id, -1);
  return strstr (lower, "embed") == NULL;
}

/**
 * sj_model_catalog_list_for_agent:
 *
 * Returns: (transfer full): the models the agent can work with, in the
 *   provider's order: those that call tools when the provider says which
 *   do, else all but embedding models
 */
char **
sj_model_catalog_list_for_agent (SjModelCatalog *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (SJ_IS_MODEL_CATALOG (self), NULL);

  for (guint i = 0; self->ids[i] != NULL; i++)
    if (is_for_agent (self, self->ids[i]))
      g_strv_builder_add (builder, self->ids[i]);

  return g_strv_builder_end (builder);
}

/* "qwen3" is the family of "qwen3", "qwen3:8b", "qwen3-coder:30b" and
 * LM Studio's "qwen/qwen3-8b", not of "qwen30". */
static gboolean
is_of_family (const char *id,
              const char *family)
{
  const char *slash = strrchr (id, '/');
  const char *name = slash != NULL ? slash + 1 : id;
  gsize len = strlen (family);

  if (g_ascii_strncasecmp (name, family, len) != 0)
    return FALSE;

  return name[len] == '\0' || name[len] == ':' || name[len] == '-' || name[len] == '_';
}

/**
 * sj_model_catalog_choose_default:
 * @hosted: %TRUE for OpenRouter, %FALSE for a local server
 *
 * The model a first start suggests, by the rule at the top of this file.
 *
 * Returns: (transfer none) (nullable): one of the models of
 *   sj_model_catalog_list_for_agent(), or %NULL when there is none
 */
const char *
sj_model_catalog_choose_default (SjModelCatalog *self,
                                 gboolean        hosted)
{
  const char * const *preferred = hosted ? hosted_preferred : local_preferred;

  g_return_val_if_fail (SJ_IS_MODEL_CATALOG (self), NULL);

  for (guint p = 0; preferred[p] != NULL; p++)
    for (guint i = 0; self->ids[i] != NULL; i++)
      if (is_for_agent (self, self->ids[i]) &&
          (hosted ? g_str_equal (self->ids[i], preferred[p]) : is_of_family (self->ids[i], preferred[p])))
        return self->ids[i];

  for (guint i = 0; self->ids[i] != NULL; i++)
    if (sj_model_catalog_get_tools (self, self->ids[i]) == SJ_MODEL_TOOLS_YES)
      return self->ids[i];

  for (guint i = 0; self->ids[i] != NULL; i++)
    if (is_for_agent (self, self->ids[i]))
      return self->ids[i];

  return NULL;
}

/* Fetching ---------------------------------------------------------------- */

typedef struct
{
  char        *provider;
  char        *base_url;
  char        *key;
  guint        timeout_s;
  SjLlmClient *client;
} Fetch;

static void
fetch_free (Fetch *fetch)
{
  g_free (fetch->provider);
  g_free (fetch->base_url);
  /* Not left behind in freed memory, as SjSecrets does with its copies. */
  if (fetch->key != NULL)
    explicit_bzero (fetch->key, strlen (fetch->key));
  g_free (fetch->key);
  g_clear_object (&fetch->client);
  g_free (fetch);
}

static void
list_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  SjModelCatalog *catalog;

  catalog = sj_llm_client_list_catalog_finish (SJ_LLM_CLIENT (object), result, &error);
  if (catalog == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, catalog, g_object_unref);
}

static void
list_models (GTask *task)
{
  Fetch *fetch = g_task_get_task_data (task);

  sj_llm_client_list_catalog_async (fetch->client, g_task_get_cancellable (task), list_cb, task);
}

static void
check_key_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  /* Only a refusal is the key's fault: anything else (an old deployment
   * without /key, a hiccup) is left to the model list to report. */
  if (!sj_llm_client_check_key_finish (SJ_LLM_CLIENT (object), result, &error) &&
      (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_UNAUTHORIZED) ||
       g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (error != NULL)
    g_debug ("The key could not be checked: %s", error->message);

  list_models (g_steal_pointer (&task));
}

static void
start_fetch (GTask *task)
{
  Fetch *fetch = g_task_get_task_data (task);
  gboolean has_key = fetch->key != NULL && *fetch->key != '\0';

  fetch->client = sj_llm_client_new (fetch->base_url, fetch->key);
  sj_llm_client_set_timeout (fetch->client, fetch->timeout_s);

  if (has_key && g_strcmp0 (fetch->provider, "openrouter") == 0)
    sj_llm_client_check_key_async (fetch->client, g_task_get_cancellable (task), check_key_cb, task);
  else
    list_models (task);
}

static void
lookup_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Fetch *fetch = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  fetch->key = sj_secrets_lookup_api_key_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  /* Without a key (or a keyring) the models are still asked for; a refused
   * request then says what is wrong. */
  if (error != NULL)
    g_debug ("Fetching the models without an API key: %s", error->message);

  start_fetch (g_steal_pointer (&task));
}

/**
 * sj_model_catalog_fetch_async:
 * @provider: "openrouter" or "custom": where the key is kept, and whether
 *   it is checked first
 * @base_url: the API root
 * @api_key: (nullable): the key to use
 * @flags: with SJ_MODEL_FETCH_STORED_KEY and no @api_key, the keyring's
 *   key for @provider at @base_url is used
 * @timeout_s: how long to wait for the provider, 0 for ever
 *
 * Fetches the provider's models (see the top of this file).
 */
void
sj_model_catalog_fetch_async (const char          *provider,
                              const char          *base_url,
                              const char          *api_key,
                              SjModelFetchFlags    flags,
                              guint                timeout_s,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Fetch *fetch;

  g_return_if_fail (provider != NULL);
  g_return_if_fail (base_url != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_model_catalog_fetch_async);

  fetch = g_new0 (Fetch, 1);
  fetch->provider = g_strdup (provider);
  fetch->base_url = g_strdup (base_url);
  fetch->key = g_strdup (api_key);
  fetch->timeout_s = timeout_s;
  g_task_set_task_data (task, fetch, (GDestroyNotify) fetch_free);

  if (api_key == NULL && (flags & SJ_MODEL_FETCH_STORED_KEY) != 0)
    sj_secrets_lookup_api_key_async (provider, base_url, cancellable, lookup_cb, g_steal_pointer (&task));
  else
    start_fetch (g_steal_pointer (&task));
}

/**
 * sj_model_catalog_fetch_finish:
 *
 * Returns: (transfer full): the catalog, or %NULL with an
 *   SJ_LLM_CLIENT_ERROR (SJ_LLM_CLIENT_ERROR_UNAUTHORIZED for a refused
 *   key, SJ_LLM_CLIENT_ERROR_NETWORK when nothing answers) or
 *   G_IO_ERROR_CANCELLED
 */
SjModelCatalog *
sj_model_catalog_fetch_finish (GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sj_model_catalog_fetch_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
