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
 * "agent.retry", "win.show-voice-settings::key"): the window and the agent
 * install those, so the banner stays free of what fixing a problem
 * involves. The voice's problems come with a title, as the voice is used
 * while the eyes are on the music: the title says what happened at a
 * glance, the message how to go on.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-llm-client.h"
#include "sj-problem-banner-private.h"
#include "sj-secrets.h"
#include "sj-voice-error.h"

typedef struct
{
  const char *message;
  const char *button_label;
  const char *action_name;        /* detailed: may carry a target */
  const char *title;              /* nullable */
  const char *accessible_label;   /* nullable: the button's label */
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
  /* Voice: what was typed in the composer stays; these say what to do. */
  [SJ_PROBLEM_VOICE_NO_MICROPHONE] = {
    N_("No microphone can be opened. Connect one, or choose the input in the system's Sound settings, "
       "then try again."),
    N_("Try Again"), "win.voice-listen",
    N_("No Microphone"), N_("Try Listening Again"),
  },
  [SJ_PROBLEM_VOICE_BUSY] = {
    N_("The microphone gives no sound: another program may be using it, or it is suspended. Close that "
       "program, or resume the input in the system's Sound settings, then try again."),
    N_("Try Again"), "win.voice-listen",
    N_("Microphone Busy"), N_("Try Listening Again"),
  },
  [SJ_PROBLEM_VOICE_CAPTURE] = {
    N_("The microphone stopped working."),
    N_("Try Again"), "win.voice-listen",
    N_("Microphone Stopped"), N_("Try Listening Again"),
  },
  [SJ_PROBLEM_VOICE_MODEL_MISSING] = {
    N_("Offline speech recognition needs the PocketSphinx US English model: install the pocketsphinx-en-us "
       "package, or set a transcription service in the Voice settings."),
    N_("Voice Settings"), "win.show-voice-settings::endpoint",
    N_("Speech Model Missing"), N_("Open Voice Settings"),
  },
  [SJ_PROBLEM_VOICE_NOTHING_HEARD] = {
    N_("No words were recognised. Speak close to the microphone, then release the button."),
    N_("Try Again"), "win.voice-listen",
    N_("Nothing Heard"), N_("Try Listening Again"),
  },
  [SJ_PROBLEM_VOICE_ENDPOINT_UNREACHABLE] = {
    N_("The transcription service cannot be reached, so the offline recogniser was used. Start the service, "
       "or check its address in the Voice settings."),
    N_("Voice Settings"), "win.show-voice-settings::endpoint",
    N_("Transcription Service Unreachable"), N_("Open Voice Settings"),
  },
  [SJ_PROBLEM_VOICE_ENDPOINT_REFUSED] = {
    N_("The transcription service refused the key, so the offline recogniser was used. Enter a valid key "
       "in the Voice settings."),
    N_("Voice Settings"), "win.show-voice-settings::key",
    N_("Transcription Key Refused"), N_("Open Voice Settings"),
  },
  [SJ_PROBLEM_VOICE_ENDPOINT_FAILED] = {
    N_("The transcription service gave no transcript, so the offline recogniser was used. Check its address "
       "and model in the Voice settings."),
    N_("Voice Settings"), "win.show-voice-settings::endpoint",
    N_("No Transcript"), N_("Open Voice Settings"),
  },
};

struct _SjProblemBanner
{
  GtkWidget    parent_instance;

  SjProblem    problem;

  GtkRevealer *revealer;
  GtkLabel    *title;
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
  GtkWidget *text_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *title = gtk_label_new (NULL);
  GtkWidget *label = gtk_label_new (NULL);
  GtkWidget *button = gtk_button_new ();

  self->problem = SJ_PROBLEM_NONE;

  gtk_widget_add_css_class (box, "sj-problem-banner");
  gtk_widget_add_css_class (box, "warning");

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_hexpand (text_box, TRUE);

  gtk_label_set_wrap (GTK_LABEL (title), TRUE);
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_add_css_class (title, "heading");
  gtk_widget_set_visible (title, FALSE);

  gtk_box_append (GTK_BOX (text_box), title);
  gtk_box_append (GTK_BOX (text_box), label);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "suggested-action");

  gtk_box_append (GTK_BOX (box), text_box);
  gtk_box_append (GTK_BOX (box), button);

  self->revealer = GTK_REVEALER (gtk_revealer_new ());
  gtk_revealer_set_transition_type (self->revealer, GTK_REVEALER_TRANSITION_TYPE_SLIDE_DOWN);
  gtk_revealer_set_child (self->revealer, box);
  gtk_widget_set_parent (GTK_WIDGET (self->revealer), GTK_WIDGET (self));

  self->title = GTK_LABEL (title);
  self->label = GTK_LABEL (label);
  self->button = GTK_BUTTON (button);
}

GtkWidget *
_sj_problem_banner_new (void)
{
  return g_object_new (SJ_TYPE_PROBLEM_BANNER, NULL);
}

/* The action and its target change together: GTK warns of an action whose
 * parameter does not fit the target, even for a moment between the two. */
static void
set_action (SjProblemBanner *self,
            const char      *detailed_name)
{
  g_autofree char *name = NULL;
  g_autoptr(GVariant) target = NULL;
  g_autoptr(GError) error = NULL;

  if (!g_action_parse_detailed_name (detailed_name, &name, &target, &error))
    g_error ("Bad action in the problem banner: %s", error->message);

  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->button), NULL);
  gtk_actionable_set_action_target_value (GTK_ACTIONABLE (self->button), target);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->button), name);
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

  gtk_label_set_label (self->title, spec->title != NULL ? _(spec->title) : NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->title), spec->title != NULL);
  gtk_label_set_label (self->label, text);
  gtk_button_set_label (self->button, _(spec->button_label));
  /* The button's name says what it does, its description why. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _(spec->accessible_label != NULL ? spec->accessible_label : spec->button_label),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text,
                                  -1);
  set_action (self, spec->action_name);
  gtk_revealer_set_reveal_child (self->revealer, TRUE);
}

void
sj_problem_banner_hide (SjProblemBanner *self)
{
  g_assert (SJ_IS_PROBLEM_BANNER (self));

  self->problem = SJ_PROBLEM_NONE;
  gtk_revealer_set_reveal_child (self->revealer, FALSE);
}

/* Returns: (nullable): the title shown, if any. */
const char *
_sj_problem_banner_get_title (SjProblemBanner *self)
{
  g_assert (SJ_IS_PROBLEM_BANNER (self));

  return gtk_widget_get_visible (GTK_WIDGET (self->title)) ? gtk_label_get_label (self->title) : NULL;
}

const char *
_sj_problem_banner_get_message (SjProblemBanner *self)
{
  g_assert (SJ_IS_PROBLEM_BANNER (self));

  return gtk_label_get_label (self->label);
}

GtkButton *
_sj_problem_banner_get_button (SjProblemBanner *self)
{
  g_assert (SJ_IS_PROBLEM_BANNER (self));

  return self->button;
}

gboolean
_sj_problem_banner_get_revealed (SjProblemBanner *self)
{
  g_assert (SJ_IS_PROBLEM_BANNER (self));

  return gtk_revealer_get_reveal_child (self->revealer);
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
 * @error: (nullable): an error of SjLlmClient, SjSecrets or the voice
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

  if (error->domain == SJ_VOICE_ERROR)
    {
      static const SjProblem voice_problems[] = {
        [SJ_VOICE_ERROR_NO_MICROPHONE] = SJ_PROBLEM_VOICE_NO_MICROPHONE,
        [SJ_VOICE_ERROR_BUSY] = SJ_PROBLEM_VOICE_BUSY,
        [SJ_VOICE_ERROR_CAPTURE] = SJ_PROBLEM_VOICE_CAPTURE,
        [SJ_VOICE_ERROR_MODEL_MISSING] = SJ_PROBLEM_VOICE_MODEL_MISSING,
        [SJ_VOICE_ERROR_NOTHING_HEARD] = SJ_PROBLEM_VOICE_NOTHING_HEARD,
        [SJ_VOICE_ERROR_ENDPOINT_UNREACHABLE] = SJ_PROBLEM_VOICE_ENDPOINT_UNREACHABLE,
        [SJ_VOICE_ERROR_ENDPOINT_REFUSED] = SJ_PROBLEM_VOICE_ENDPOINT_REFUSED,
        [SJ_VOICE_ERROR_ENDPOINT_FAILED] = SJ_PROBLEM_VOICE_ENDPOINT_FAILED,
      };

      if (error->code >= 0 && (gsize) error->code < G_N_ELEMENTS (voice_problems))
        return voice_problems[error->code];
    }

  return SJ_PROBLEM_NONE;
}
