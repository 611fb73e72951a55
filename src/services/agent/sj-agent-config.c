/* sj-agent-config.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Keeps an SjAgent set up from the settings and the keyring: the provider
 * and model, reasoning, temperature and limits from GSettings, and the API
 * key from the Secret Service, looked up again whenever the endpoint
 * changes. When the agent cannot work (no key for OpenRouter, no keyring,
 * a locked one, a custom endpoint where nothing answers, no model chosen)
 * the reason is kept as the agent's configuration error: the musician's
 * next message is answered with it, and the Chat shows its first-start
 * status page with the ways forward.
 *
 * The problems are found in the order the musician would fix them: the
 * endpoint and its key first, then whether the endpoint answers, then the
 * model. A custom endpoint is asked for its models once per base URL (any
 * HTTP answer will do: only silence is a problem), with a short timeout;
 * OpenRouter is not asked, so starting offline is not a setup problem but
 * the banner's, when a message fails.
 *
 * A key stored or cleared anywhere (SjSecretsMonitor) sets the agent up
 * again.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-agent-config.h"
#include "sj-secrets.h"
#include "sj-secrets-monitor.h"

/* How long a custom endpoint has to answer before it counts as silent. */
#define PROBE_TIMEOUT_S 3

struct _SjAgentConfig
{
  GObject       parent_instance;

  SjAgent      *agent;
  GSettings    *settings;
  GCancellable *cancellable;
  GError       *problem;
  char         *reachable_url;  /* the custom base URL that answered last */
  guint         reload_id;
  gboolean      ready;
};

G_DEFINE_FINAL_TYPE (SjAgentConfig, sj_agent_config, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/**
 * sj_agent_config_get_endpoint:
 *
 * The provider and base URL the key is kept under in the keyring, and the
 * URL requests go to: OpenRouter's, or the custom one.
 */
void
sj_agent_config_get_endpoint (GSettings  *settings,
                              char      **provider,
                              char      **base_url)
{
  *provider = g_settings_get_string (settings, "provider");
  if (g_str_equal (*provider, "custom"))
    *base_url = g_strstrip (g_settings_get_string (settings, "base-url"));
  else
    *base_url = g_strdup (sj_llm_client_get_openrouter_url ());
}

static void
set_problem (SjAgentConfig *self,
             GError        *problem)
{
  g_clear_error (&self->problem);
  self->problem = problem;
  self->ready = TRUE;

  if (problem != NULL)
    sj_agent_set_config_error (self->agent, problem);
  g_signal_emit (self, signals[CHANGED], 0);
}

static GError *
not_configured (const char *message)
{
  return g_error_new_literal (SJ_AGENT_ERROR, SJ_AGENT_ERROR_NOT_CONFIGURED, message);
}

static GError *
problem_error (SjAgentError  code,
               const char   *message)
{
  return g_error_new_literal (SJ_AGENT_ERROR, code, message);
}

/* The endpoint works: what is left is the model. */
static void
finish_setup (SjAgentConfig *self,
              SjLlmClient   *client,
              gboolean       openrouter)
{
  g_autofree char *model = g_strstrip (g_settings_get_string (self->settings, "model"));

  if (*model == '\0')
    {
      set_problem (self, problem_error (SJ_AGENT_ERROR_NO_MODEL, _("No model is chosen. Pick one in the agent’s settings.")));
      return;
    }

  sj_llm_client_set_stall_timeout (client, g_settings_get_uint (self->settings, "stall-timeout"));
  sj_llm_client_set_deadline (client, g_settings_get_uint (self->settings, "answer-deadline"));
  sj_agent_set_client (self->agent, client, openrouter);
  set_problem (self, NULL);
}

static void
probe_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(SjAgentConfig) self = user_data;
  SjLlmClient *client = SJ_LLM_CLIENT (object);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = NULL;
  g_autofree char *provider = NULL;
  g_autofree char *base_url = NULL;

  ids = sj_llm_client_list_models_finish (client, result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  sj_agent_config_get_endpoint (self->settings, &provider, &base_url);
  g_clear_pointer (&self->reachable_url, g_free);

  /* Any answer, even an error or no model list at all, is a server there. */
  if (g_error_matches (error, SJ_LLM_CLIENT_ERROR, SJ_LLM_CLIENT_ERROR_NETWORK))
    {
      g_autofree char *message = NULL;

      g_debug ("Nothing answers at %s: %s", base_url, error->message);
      message = g_strdup_printf (_("Nothing answers at %s. Start the model server there, or choose another endpoint in the agent’s settings."),
                                 base_url);
      set_problem (self, problem_error (SJ_AGENT_ERROR_UNREACHABLE, message));
      return;
    }

  self->reachable_url = g_steal_pointer (&base_url);
  /* The probe's timeout must not cut a long answer short. */
  sj_llm_client_set_timeout (client, 0);
  finish_setup (self, client, FALSE);
}

static void
lookup_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(SjAgentConfig) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  g_autofree char *provider = NULL;
  g_autofree char *base_url = NULL;
  g_autoptr(SjLlmClient) client = NULL;
  gboolean openrouter;

  key = sj_secrets_lookup_api_key_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  sj_agent_config_get_endpoint (self->settings, &provider, &base_url);
  openrouter = g_str_equal (provider, "openrouter");

  /* Local servers take requests without a key: only OpenRouter needs one,
   * so only there is a missing key or keyring a problem. */
  if (openrouter && error != NULL && g_error_matches (error, SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_LOCKED))
    {
      set_problem (self, problem_error (SJ_AGENT_ERROR_KEYRING_LOCKED, _("The keyring is locked, so the OpenRouter API key cannot be read. Unlock it, then try again.")));
      return;
    }
  if (openrouter && error != NULL)
    {
      set_problem (self, problem_error (SJ_AGENT_ERROR_NO_KEYRING, _("No keyring is available to keep the OpenRouter API key. Start GNOME Keyring (or another Secret Service), or use a local model such as Ollama, which needs no key.")));
      return;
    }
  if (openrouter && (key == NULL || *key == '\0'))
    {
      set_problem (self, problem_error (SJ_AGENT_ERROR_NO_API_KEY, _("No OpenRouter API key is stored. Add one in the Chat or the agent’s settings, or use a local model through a custom endpoint.")));
      return;
    }

  client = sj_llm_client_new (base_url, key);
  if (openrouter || g_strcmp0 (base_url, self->reachable_url) == 0)
    {
      finish_setup (self, client, openrouter);
      return;
    }

  sj_llm_client_set_timeout (client, PROBE_TIMEOUT_S);
  sj_llm_client_list_models_async (client, self->cancellable, probe_cb, g_object_ref (self));
}

static void
read_budget (SjAgentConfig *self)
{
  g_autofree char *kind = g_settings_get_string (self->settings, "agent-budget-kind");
  SjAgentBudgetKind budget = SJ_AGENT_BUDGET_NONE;

  if (g_str_equal (kind, "tokens"))
    budget = SJ_AGENT_BUDGET_TOKENS;
  else if (g_str_equal (kind, "money"))
    budget = SJ_AGENT_BUDGET_MONEY;

  sj_agent_set_budget (self->agent, budget,
                       g_settings_get_uint (self->settings, "agent-budget-tokens"),
                       g_settings_get_double (self->settings, "agent-budget-money"));
}

static gboolean
reload_cb (gpointer user_data)
{
  SjAgentConfig *self = user_data;
  g_autofree char *provider = NULL;
  g_autofree char *base_url = NULL;
  g_autofree char *model = NULL;
  g_autofree char *reasoning = NULL;

  self->reload_id = 0;

  sj_agent_set_limits (self->agent,
                       g_settings_get_uint (self->settings, "max-repair-attempts"),
                       g_settings_get_uint (self->settings, "tool-budget"));

  read_budget (self);

  model = g_strstrip (g_settings_get_string (self->settings, "model"));
  reasoning = g_settings_get_string (self->settings, "reasoning-mode");
  sj_agent_set_model (self->agent, model, reasoning, g_settings_get_double (self->settings, "temperature"));

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  sj_agent_config_get_endpoint (self->settings, &provider, &base_url);
  if (*base_url == '\0')
    {
      set_problem (self, not_configured (_("The custom endpoint has no base URL. Enter one in the agent’s settings.")));
      return G_SOURCE_REMOVE;
    }

  self->cancellable = g_cancellable_new ();
  sj_secrets_lookup_api_key_async (provider, base_url, self->cancellable, lookup_cb, g_object_ref (self));

  return G_SOURCE_REMOVE;
}

/**
 * sj_agent_config_reload:
 *
 * Reads the settings and the keyring again, soon: several changes in a
 * row (typing a base URL) make one lookup. A custom endpoint that was
 * silent is asked again.
 */
void
sj_agent_config_reload (SjAgentConfig *self)
{
  g_assert (SJ_IS_AGENT_CONFIG (self));

  /* At the default priority, not the idle one: while a window opens (or
   * anything animates) GTK's layout and drawing, above idle, can keep an
   * idle source waiting for seconds, and the Chat looked ready that long
   * before it said there is no keyring. */
  if (self->reload_id == 0)
    self->reload_id = g_idle_add_full (G_PRIORITY_DEFAULT, reload_cb, self, NULL);
}

static void
settings_changed_cb (SjAgentConfig *self,
                     const char    *key)
{
  static const char * const keys[] = { "provider", "base-url", "model", "reasoning-mode", "temperature",
                                       "max-repair-attempts", "tool-budget", "stall-timeout",
                                       "answer-deadline", NULL };

  /* The budget applies at once, to a turn under way too: no reload. */
  if (g_str_has_prefix (key, "agent-budget-"))
    read_budget (self);
  else if (g_strv_contains (keys, key))
    sj_agent_config_reload (self);
}

static void
sj_agent_config_dispose (GObject *object)
{
  SjAgentConfig *self = (SjAgentConfig *)object;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->reload_id, g_source_remove);
  g_clear_object (&self->settings);
  g_clear_object (&self->agent);
  g_clear_pointer (&self->reachable_url, g_free);

  G_OBJECT_CLASS (sj_agent_config_parent_class)->dispose (object);
}

static void
sj_agent_config_finalize (GObject *object)
{
  g_clear_error (&SJ_AGENT_CONFIG (object)->problem);

  G_OBJECT_CLASS (sj_agent_config_parent_class)->finalize (object);
}

static void
sj_agent_config_class_init (SjAgentConfigClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_agent_config_dispose;
  object_class->finalize = sj_agent_config_finalize;

  /**
   * SjAgentConfig::changed:
   *
   * The agent was set up again; sj_agent_config_get_problem() says
   * whether it can work.
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sj_agent_config_init (SjAgentConfig *self)
{
}

SjAgentConfig *
sj_agent_config_new (SjAgent   *agent,
                     GSettings *settings)
{
  SjAgentConfig *self;

  g_return_val_if_fail (SJ_IS_AGENT (agent), NULL);
  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  self = g_object_new (SJ_TYPE_AGENT_CONFIG, NULL);
  self->agent = g_object_ref (agent);
  self->settings = g_object_ref (settings);
  g_signal_connect_object (settings, "changed", G_CALLBACK (settings_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (sj_secrets_monitor_get_default (), "key-changed",
                           G_CALLBACK (sj_agent_config_reload), self, G_CONNECT_SWAPPED);
  sj_agent_config_reload (self);

  return self;
}

/* Whether the first lookup has finished. */
gboolean
sj_agent_config_is_ready (SjAgentConfig *self)
{
  g_assert (SJ_IS_AGENT_CONFIG (self));

  return self->ready;
}

/* Returns: (nullable): why the agent cannot work, %NULL when it can */
const GError *
sj_agent_config_get_problem (SjAgentConfig *self)
{
  g_assert (SJ_IS_AGENT_CONFIG (self));

  return self->problem;
}

/* Returns: (transfer none): the settings the agent is set up from */
GSettings *
sj_agent_config_get_settings (SjAgentConfig *self)
{
  g_assert (SJ_IS_AGENT_CONFIG (self));

  return self->settings;
}
