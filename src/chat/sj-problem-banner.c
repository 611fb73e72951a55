/* sj-problem-banner.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The banner above the agent's chat that says why the agent cannot answer
 * (no API key, no keyring, a refused key, no network, too many requests)
 * and offers the one action that fixes it. libadwaita 1.2 has no
 * AdwBanner, so this is a revealer around a label and a button, styled in
 * style.css after the banner of later libadwaita versions.
 *
 * The button only names an action ("win.show-agent-settings",
 * "agent.retry"): the window and the agent install those, so the banner
 * stays free of what fixing a problem involves.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-llm-client.h"
#include "sj-problem-banner-private.h"
#include "sj-secrets.h"

typedef struct
{
  const char *message;
  const char *button_label;
  const char *action_name;
} ProblemSpec;

/* Indexed by SjProblem; SJ_PROBLEM_NONE shows nothing. */
static const ProblemSpec problem_specs[] = {
  [SJ_PROBLEM_NONE] = { NULL, NULL, NULL },
  [SJ_PROBLEM_NO_API_KEY] = {
    N_("The agent needs an API key for the language model provider."),
    N_("Add Key"), "win.show-agent-settings",
  },
  [SJ_PROBLEM_NO_KEYRING] = {
    N_("No keyring is available to keep an API key. Start a Secret Service such as "
       "GNOME Keyring, or use a local model at a custom endpoint that needs no key."),
    N_("Use a Local Model"), "win.show-agent-settings",
  },
  [SJ_PROBLEM_UNAUTHORIZED] = {
    N_("The provider did not accept the API key."),
    N_("Replace Key"), "win.show-agent-settings",
  },
  [SJ_PROBLEM_OFFLINE] = {
    N_("The language model provider cannot be reached. Check the network connection and the base URL."),
    N_("Retry"), "agent.retry",
  },
  [SJ_PROBLEM_RATE_LIMITED] = {
    N_("The provider has received too many requests and asks to wait."),
    N_("Retry"), "agent.retry",
  },
};

struct _SjProblemBanner
{
  GtkWidget    parent_instance;

  SjProblem    problem;

  GtkRevealer *revealer;
  GtkLabel    *label;
  GtkButton   *button;
};

G_DEFINE_FINAL_TYPE (SjProblemBanner, sj_problem_banner, GTK_TYPE_WIDGET)

static void
sj_problem_banner_dispose (GObject *object)
{
  SjProblemBanner *self = (SjProblemBanner *)object;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  self->revealer = NULL;

  G_OBJECT_CLASS (sj_problem_banner_parent_class)->dispose (object);
}

static void
sj_problem_banner_class_init (SjProblemBannerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_problem_banner_dispose;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjproblembanner");
}

static void
sj_problem_banner_init (SjProblemBanner *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *label = gtk_label_new (NULL);
  GtkWidget *button = gtk_button_new ();

  self->problem = SJ_PROBLEM_NONE;

  gtk_widget_add_css_class (box, "sj-problem-banner");
  gtk_widget_add_css_class (box, "warning");

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_hexpand (label, TRUE);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "suggested-action");

  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), button);

  self->revealer = GTK_REVEALER (gtk_revealer_new ());
  gtk_revealer_set_transition_type (self->revealer, GTK_REVEALER_TRANSITION_TYPE_SLIDE_DOWN);
  gtk_revealer_set_child (self->revealer, box);
  gtk_widget_set_parent (GTK_WIDGET (self->revealer), GTK_WIDGET (self));

  self->label = GTK_LABEL (label);
  self->button = GTK_BUTTON (button);
}

GtkWidget *
_sj_problem_banner_new (void)
{
  return g_object_new (SJ_TYPE_PROBLEM_BANNER, NULL);
}

/**
 * sj_problem_banner_show:
 * @detail: (nullable): a sentence added after the problem's own, such as
 *   when to try again or the error the provider gave
 *
 * Shows @problem with the button that fixes it; SJ_PROBLEM_NONE hides the
 * banner.
 */
void
sj_problem_banner_show (SjProblemBanner *self,
                        SjProblem        problem,
                        const char      *detail)
{
  const ProblemSpec *spec;
  g_autofree char *text = NULL;

  g_assert (SJ_IS_PROBLEM_BANNER (self));
  g_return_if_fail (problem < G_N_ELEMENTS (problem_specs));

  if (problem == SJ_PROBLEM_NONE)
    {
      sj_problem_banner_hide (self);
      return;
    }

  spec = &problem_specs[problem];
  self->problem = problem;

  if (detail != NULL && *detail != '\0')
    /* TRANSLATORS: a problem of the agent, then more about it, e.g.
     * "The provider has received too many requests and asks to wait. Try again in 20 seconds." */
    text = g_strdup_printf (_("%s %s"), _(spec->message), detail);
  else
    text = g_strdup (_(spec->message));

  gtk_label_set_label (self->label, text);
  gtk_button_set_label (self->button, _(spec->button_label));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->button), spec->action_name);
  gtk_revealer_set_reveal_child (self->revealer, TRUE);
}

void
sj_problem_banner_hide (SjProblemBanner *self)
{
  g_assert (SJ_IS_PROBLEM_BANNER (self));

  self->problem = SJ_PROBLEM_NONE;
  gtk_revealer_set_reveal_child (self->revealer, FALSE);
}

/* Returns: the problem shown, or SJ_PROBLEM_NONE while hidden. */
SjProblem
_sj_problem_banner_get_problem (SjProblemBanner *self)
{
  g_assert (SJ_IS_PROBLEM_BANNER (self));

  return self->problem;
}

/**
 * sj_problem_from_error:
 * @error: (nullable): an error of SjLlmClient or SjSecrets
 *
 * Returns: the problem the banner should show for @error, or
 *   SJ_PROBLEM_NONE for errors the banner has no fix for (those are shown
 *   where they happened, in the chat).
 */
SjProblem
sj_problem_from_error (const GError *error)
{
  if (error == NULL)
    return SJ_PROBLEM_NONE;

  if (error->domain == SJ_LLM_CLIENT_ERROR)
    {
      switch (error->code)
        {
        case SJ_LLM_CLIENT_ERROR_UNAUTHORIZED:
          return SJ_PROBLEM_UNAUTHORIZED;
        case SJ_LLM_CLIENT_ERROR_RATE_LIMITED:
          return SJ_PROBLEM_RATE_LIMITED;
        case SJ_LLM_CLIENT_ERROR_NETWORK:
          return SJ_PROBLEM_OFFLINE;
        default:
          return SJ_PROBLEM_NONE;
        }
    }

  if (g_error_matches (error, SJ_SECRETS_ERROR, SJ_SECRETS_ERROR_NO_KEYRING))
    return SJ_PROBLEM_NO_KEYRING;

  return SJ_PROBLEM_NONE;
}
