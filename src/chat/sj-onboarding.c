/* sj-onboarding.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Chat's status page while no model is usable yet: on a first start,
 * and whenever SjAgentConfig says the agent cannot work (no OpenRouter
 * key, no keyring, a locked one, a custom endpoint where nothing answers,
 * no model chosen). Its title and description say exactly what is
 * missing, and the two ways forward are right there: an OpenRouter key
 * (sj-onboarding-ways.c: checked with OpenRouter, kept in the keyring) or
 * a model server on this computer (found on its usual port). Either way
 * ends at the model step: the models offered, the suggested one selected
 * (SjModelCatalog's rule, the same the Settings page's list comes from),
 * and Start Jamming, which writes the provider, base URL and model to
 * GSettings. The Settings page is bound to the same keys, so both always
 * agree; once SjAgentConfig finds the agent can work, the Chat panel puts
 * the composer in this page's place.
 *
 * The page never takes the keyboard from elsewhere: it moves the focus
 * between its own steps only while the focus is in it.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-llm-client.h"
#include "sj-onboarding-private.h"
#include "sj-accessible.h"

G_DEFINE_FINAL_TYPE (SjOnboarding, sj_onboarding, GTK_TYPE_WIDGET)

/* States ------------------------------------------------------------------ */

static const GError *
get_problem (SjOnboarding *self)
{
  if (self->config == NULL || !sj_agent_config_is_ready (self->config))
    return NULL;

  return sj_agent_config_get_problem (self->config);
}

static gboolean
problem_is (SjOnboarding *self,
            SjAgentError  code)
{
  return g_error_matches (get_problem (self), SJ_AGENT_ERROR, code);
}

/* Whether the keyboard is in this page, or nowhere (as when the button
 * that had it was just hidden): only then does the page move it. */
gboolean
_sj_onboarding_focus_is_here (SjOnboarding *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    return FALSE;

  return focus == NULL || gtk_widget_is_ancestor (focus, GTK_WIDGET (self));
}

void
_sj_onboarding_show_error (GtkLabel   *label,
                           const char *message)
{
  gtk_label_set_label (label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (label), message != NULL);
}

void
_sj_onboarding_set_busy (SjOnboarding *self,
                         gboolean      busy)
{
  self->busy = busy;
  _sj_onboarding_update_key_button (self);
  gtk_widget_set_sensitive (GTK_WIDGET (self->local_button), !busy);
}

static void
set_texts (SjOnboarding *self,
           const char   *title,
           const char   *description_markup)
{
  adw_status_page_set_title (self->status_page, title);
  adw_status_page_set_description (self->status_page, description_markup);
}

static void
show_step (SjOnboarding *self,
           const char   *name)
{
  gtk_stack_set_visible_child_name (self->steps, name);
}

/* The two ways, with the title and description of what is missing. */
static void
show_connect (SjOnboarding *self)
{
  const GError *problem = get_problem (self);
  g_autofree char *provider = NULL;
  g_autofree char *base_url = NULL;
  g_autofree char *description = NULL;
  int code = problem != NULL && problem->domain == SJ_AGENT_ERROR ? problem->code : -1;

  sj_agent_config_get_endpoint (self->settings, &provider, &base_url);

  switch (code)
    {
    case SJ_AGENT_ERROR_NO_KEYRING:
      set_texts (self, _("No Keyring"),
                 _("No keyring is available to keep an OpenRouter key. Start GNOME Keyring or another "
                   "Secret Service, then try again, or use a model server on this computer: it needs no key."));
      break;

    case SJ_AGENT_ERROR_KEYRING_LOCKED:
      set_texts (self, _("The Keyring Is Locked"),
                 _("The OpenRouter key cannot be read while the keyring is locked. Unlock it, then try "
                   "again, or use a model server on this computer."));
      break;

    case SJ_AGENT_ERROR_UNREACHABLE:
      description = g_markup_printf_escaped (_("Nothing answers at %s. Start the model server, then try "
                                               "again, or choose another way."), base_url);
      set_texts (self, _("The Model Server Does Not Answer"), description);
      break;

    case SJ_AGENT_ERROR_NOT_CONFIGURED:
      set_texts (self, _("Connect a Model"),
                 _("The custom endpoint has no address. Enter the URL of a model server on this computer, "
                   "or paste an OpenRouter key."));
      break;

    case SJ_AGENT_ERROR_NO_API_KEY:
    default:
      set_texts (self, _("Connect a Model"),
                 _("The agent needs a language model. Paste an OpenRouter API key, or use a model server "
                   "running on this computer."));
      break;
    }

  /* What is fixed outside the app (a keyring, a server) is tried again
   * with one button. */
  gtk_widget_set_visible (GTK_WIDGET (self->retry_button),
                          code == SJ_AGENT_ERROR_NO_KEYRING || code == SJ_AGENT_ERROR_KEYRING_LOCKED ||
                          code == SJ_AGENT_ERROR_UNREACHABLE);
  /* Without a keyring a key could not be kept. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->openrouter_group), code != SJ_AGENT_ERROR_NO_KEYRING);

  show_step (self, "connect");
  if (!self->detected)
    _sj_onboarding_detect (self);
}

/* The model step ---------------------------------------------------------- */

/**
 * _sj_onboarding_show_models:
 *
 * The model step for @provider at @base_url: the models of @catalog the
 * agent can work with, the suggested one selected.
 */
void
_sj_onboarding_show_models (SjOnboarding   *self,
                            const char     *provider,
                            const char     *base_url,
                            SjModelCatalog *catalog)
{
  gboolean hosted = g_str_equal (provider, "openrouter");
  g_auto(GStrv) ids = sj_model_catalog_list_for_agent (catalog);
  const char *suggested = sj_model_catalog_choose_default (catalog, hosted);
  g_autofree char *description = NULL;
  guint n = g_strv_length (ids);

  if (n == 0)
    {
      g_autofree char *message = NULL;

      if (hosted)
        message = g_strdup (_("OpenRouter offers no model that can use tools right now. Try again later."));
      else
        message = g_strdup_printf (_("The server at %s offers no model to chat with. Download one first, "
                                     "for example with “ollama pull qwen3”."), base_url);
      _sj_onboarding_show_error (hosted ? self->key_error : self->local_error, message);
      show_connect (self);
      return;
    }

  /* @base_url may be pending_base_url itself. */
  if (base_url != self->pending_base_url)
    {
      g_free (self->pending_base_url);
      self->pending_base_url = g_strdup (base_url);
    }
  g_free (self->pending_provider);
  self->pending_provider = g_strdup (provider);
  gtk_string_list_splice (self->models, 0, g_list_model_get_n_items (G_LIST_MODEL (self->models)),
                          (const char * const *)ids);
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (ids[i], suggested) == 0)
      adw_combo_row_set_selected (self->model_row, i);

  if (hosted)
    description = g_markup_printf_escaped (g_dngettext (GETTEXT_PACKAGE,
                                                        "OpenRouter offers %u model that can use tools.",
                                                        "OpenRouter offers %u models that can use tools.", n), n);
  else
    description = g_markup_printf_escaped (g_dngettext (GETTEXT_PACKAGE,
                                                        "The server at %s offers %u model.",
                                                        "The server at %s offers %u models.", n), base_url, n);
  if (n > 1)
    {
      /* TRANSLATORS: how many models there are, then this sentence. */
      g_autofree char *more = g_strdup_printf (_("%s The suggested one is selected; Settings can change it later."),
                                               description);

      g_free (description);
      description = g_steal_pointer (&more);
    }
  set_texts (self, _("Choose a Model"), description);

  self->choosing = TRUE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->start_button), TRUE);
  show_step (self, "model");
  if (_sj_onboarding_focus_is_here (self))
    gtk_widget_grab_focus (GTK_WIDGET (self->start_button));
}

static void
current_models_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(SjOnboarding) self = user_data;
  g_autoptr(SjModelCatalog) catalog = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *provider = NULL;
  g_autofree char *base_url = NULL;

  catalog = sj_model_catalog_fetch_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  _sj_onboarding_set_busy (self, FALSE);
  sj_agent_config_get_endpoint (self->settings, &provider, &base_url);
  if (catalog == NULL)
    {
      gboolean hosted = g_str_equal (provider, "openrouter");
      g_autofree char *message = _sj_onboarding_describe_fetch_error (hosted, base_url, error);

      _sj_onboarding_show_error (hosted ? self->key_error : self->local_error, message);
      show_connect (self);
      return;
    }

  _sj_onboarding_show_models (self, provider, base_url, catalog);
}

/* The endpoint is set up but no model is chosen: its models, fetched with
 * the stored key. */
static void
fetch_current_models (SjOnboarding *self)
{
  g_autofree char *provider = NULL;
  g_autofree char *base_url = NULL;
  gboolean hosted;

  sj_agent_config_get_endpoint (self->settings, &provider, &base_url);
  hosted = g_str_equal (provider, "openrouter");

  _sj_onboarding_restart (&self->cancellable);
  _sj_onboarding_set_busy (self, TRUE);
  set_texts (self, _("Choose a Model"), _("Fetching the models…"));
  show_step (self, "loading");
  sj_model_catalog_fetch_async (provider, base_url, NULL, SJ_MODEL_FETCH_STORED_KEY,
                                hosted ? SJ_ONBOARDING_HOSTED_TIMEOUT_S : SJ_ONBOARDING_LOCAL_TIMEOUT_S,
                                self->cancellable, current_models_cb, g_object_ref (self));
}

static void
start_clicked_cb (SjOnboarding *self)
{
  GtkStringObject *item;
  g_autofree char *description = NULL;

  g_assert (SJ_IS_ONBOARDING (self));

  item = adw_combo_row_get_selected_item (self->model_row);
  if (!self->choosing || item == NULL)
    return;

  /* One main-loop turn: SjAgentConfig sets the agent up once for all
   * three. The Settings page follows, bound to the same keys. */
  g_settings_set_string (self->settings, "provider", self->pending_provider);
  if (g_str_equal (self->pending_provider, "custom"))
    g_settings_set_string (self->settings, "base-url", self->pending_base_url);
  g_settings_set_string (self->settings, "model", gtk_string_object_get_string (item));

  /* The same endpoint and model may have failed before (a server started
   * since): asked again in any case. */
  self->choosing = FALSE;
  description = g_markup_printf_escaped (_("Connecting to %s…"), gtk_string_object_get_string (item));
  set_texts (self, _("Starting"), description);
  show_step (self, "loading");
  sj_agent_config_reload (self->config);
}

static void
back_clicked_cb (SjOnboarding *self)
{
  g_assert (SJ_IS_ONBOARDING (self));

  self->choosing = FALSE;
  show_connect (self);
  if (_sj_onboarding_focus_is_here (self))
    sj_onboarding_focus (self);
}

static void
retry_clicked_cb (SjOnboarding *self)
{
  g_assert (SJ_IS_ONBOARDING (self));

  _sj_onboarding_detect (self);
  sj_agent_config_reload (self->config);
}

/* Following the config ---------------------------------------------------- */

/* Usable at last, or never set up: the page starts afresh next time. */
static void
reset (SjOnboarding *self)
{
  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->detect_cancellable);
  _sj_onboarding_set_busy (self, FALSE);
  _sj_onboarding_forget_key (self);
  self->choosing = FALSE;
  self->detected = FALSE;
  g_clear_object (&self->catalog);
  _sj_onboarding_show_error (self->key_error, NULL);
  _sj_onboarding_show_error (self->local_error, NULL);
  show_step (self, "connect");
}

static void
config_changed_cb (SjOnboarding *self)
{
  const GError *problem = get_problem (self);

  g_assert (SJ_IS_ONBOARDING (self));

  if (problem == NULL)
    {
      reset (self);
      return;
    }

  /* The musician's own step goes on: a key being checked, a model being
   * chosen. */
  if (self->busy || self->choosing)
    return;

  if (problem_is (self, SJ_AGENT_ERROR_NO_MODEL))
    fetch_current_models (self);
  else
    show_connect (self);
}

/**
 * sj_onboarding_set_config:
 * @config: (nullable): the agent's setup, whose problems the page shows
 *
 * The page follows @config; its ways forward write to @config's settings.
 */
void
sj_onboarding_set_config (SjOnboarding  *self,
                          SjAgentConfig *config)
{
  g_assert (SJ_IS_ONBOARDING (self));
  g_assert (!config || SJ_IS_AGENT_CONFIG (config));

  reset (self);
  g_set_object (&self->config, config);
  g_clear_object (&self->settings);
  if (config != NULL)
    self->settings = g_object_ref (sj_agent_config_get_settings (config));
  g_signal_group_set_target (self->config_signals, config);

  if (self->settings != NULL)
    {
      g_autofree char *base_url = g_settings_get_string (self->settings, "base-url");

      self->setting_local = TRUE;
      gtk_editable_set_text (GTK_EDITABLE (self->local_row), base_url);
      self->setting_local = FALSE;
      self->local_edited = FALSE;
    }

  config_changed_cb (self);
}

/* Returns: whether the agent cannot work yet, and this page should show */
gboolean
sj_onboarding_is_needed (SjOnboarding *self)
{
  g_assert (SJ_IS_ONBOARDING (self));

  return get_problem (self) != NULL;
}

/* Puts the keyboard where the next step is. */
void
sj_onboarding_focus (SjOnboarding *self)
{
  const char *step;

  g_assert (SJ_IS_ONBOARDING (self));

  step = gtk_stack_get_visible_child_name (self->steps);
  if (g_strcmp0 (step, "model") == 0)
    gtk_widget_grab_focus (GTK_WIDGET (self->start_button));
  else if (gtk_widget_get_sensitive (GTK_WIDGET (self->openrouter_group)))
    gtk_widget_grab_focus (GTK_WIDGET (self->key_row));
  else
    gtk_widget_grab_focus (GTK_WIDGET (self->local_row));
}

/* GObject ----------------------------------------------------------------- */

static void
sj_onboarding_dispose (GObject *object)
{
  SjOnboarding *self = (SjOnboarding *)object;

  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->detect_cancellable);
  g_clear_object (&self->config_signals);
  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_ONBOARDING);
  _sj_onboarding_forget_key (self);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->detect_cancellable);
  g_clear_object (&self->catalog);
  g_clear_object (&self->models);
  g_clear_object (&self->settings);
  g_clear_object (&self->config);
  g_clear_pointer (&self->pending_provider, g_free);
  g_clear_pointer (&self->pending_base_url, g_free);

  G_OBJECT_CLASS (sj_onboarding_parent_class)->dispose (object);
}

static void
sj_onboarding_class_init (SjOnboardingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_onboarding_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-onboarding.ui");
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, status_page);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, steps);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, retry_button);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, openrouter_group);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, key_row);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, key_button);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, key_error);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, local_group);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, detect_button);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, local_row);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, local_button);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, local_status);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, local_error);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, model_row);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, start_button);
  gtk_widget_class_bind_template_child (widget_class, SjOnboarding, back_button);
  gtk_widget_class_bind_template_callback (widget_class, start_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, back_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, retry_clicked_cb);
  _sj_onboarding_ways_class_init (widget_class);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjonboarding");
}

static void
sj_onboarding_init (SjOnboarding *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  sj_accessible_name_peek_buttons (GTK_WIDGET (self->key_row));

  self->cancellable = g_cancellable_new ();
  self->detect_cancellable = g_cancellable_new ();
  self->models = gtk_string_list_new (NULL);
  adw_combo_row_set_model (self->model_row, G_LIST_MODEL (self->models));

  self->config_signals = g_signal_group_new (SJ_TYPE_AGENT_CONFIG);
  g_signal_group_connect_object (self->config_signals, "changed", G_CALLBACK (config_changed_cb),
                                 self, G_CONNECT_SWAPPED);
}
