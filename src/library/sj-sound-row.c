/* sj-sound-row.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One sound of the Sounds page: its name, its kind, how it would play now
 * (an icon with a tooltip: built in, downloaded, downloads when first
 * played, the drum kit's voice, not available offline), a spinner while a
 * preview waits for its file, and the preview button. What the icon says
 * is also the accessible description of the row and of its button, so a
 * screen reader says it; a failed preview replaces the kind with why.
 *
 * The row only shows what it is told: SjSoundsPage knows the sounds, their
 * availability and the previews in progress, and rebinds its rows when any
 * of that changes.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-sound-row.h"

struct _SjSoundRow
{
  GtkWidget   parent_instance;

  char       *name;
  char       *detail;
  char       *state;
  char       *failure;

  /* Template widgets */
  GtkLabel   *name_label;
  GtkLabel   *detail_label;
  GtkImage   *state_image;
  GtkSpinner *spinner;
  GtkButton  *preview_button;
};

G_DEFINE_FINAL_TYPE (SjSoundRow, sj_sound_row, GTK_TYPE_WIDGET)

/* The accessible description: the state, and why a preview failed. */
static void
update_description (SjSoundRow *self)
{
  g_autofree char *description = NULL;

  if (self->state != NULL && self->failure != NULL)
    /* TRANSLATORS: a sound's state and why its preview failed, e.g.
     * "Not available offline. casio:0 is not downloaded and the app is offline" */
    description = g_strdup_printf (_("%s. %s"), self->state, self->failure);
  else
    description = g_strdup (self->state != NULL ? self->state : self->failure);

  if (description == NULL)
    {
      gtk_accessible_reset_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
      gtk_accessible_reset_property (GTK_ACCESSIBLE (self->preview_button), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
      return;
    }

  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->preview_button),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
}

static void
update_detail (SjSoundRow *self)
{
  gtk_label_set_label (self->detail_label, self->failure != NULL ? self->failure : self->detail);
  gtk_label_set_ellipsize (self->detail_label, self->failure != NULL ? PANGO_ELLIPSIZE_NONE : PANGO_ELLIPSIZE_END);
  gtk_label_set_wrap (self->detail_label, self->failure != NULL);
  if (self->failure != NULL)
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->detail_label), "dim-label");
      gtk_widget_add_css_class (GTK_WIDGET (self->detail_label), "error");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->detail_label), "error");
      gtk_widget_add_css_class (GTK_WIDGET (self->detail_label), "dim-label");
    }
}

static void
sj_sound_row_dispose (GObject *object)
{
  SjSoundRow *self = (SjSoundRow *)object;
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_SOUND_ROW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (sj_sound_row_parent_class)->dispose (object);
}

static void
sj_sound_row_finalize (GObject *object)
{
  SjSoundRow *self = (SjSoundRow *)object;

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->detail, g_free);
  g_clear_pointer (&self->state, g_free);
  g_clear_pointer (&self->failure, g_free);

  G_OBJECT_CLASS (sj_sound_row_parent_class)->finalize (object);
}

static void
sj_sound_row_class_init (SjSoundRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_sound_row_dispose;
  object_class->finalize = sj_sound_row_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-sound-row.ui");
  gtk_widget_class_bind_template_child (widget_class, SjSoundRow, name_label);
  gtk_widget_class_bind_template_child (widget_class, SjSoundRow, detail_label);
  gtk_widget_class_bind_template_child (widget_class, SjSoundRow, state_image);
  gtk_widget_class_bind_template_child (widget_class, SjSoundRow, spinner);
  gtk_widget_class_bind_template_child (widget_class, SjSoundRow, preview_button);

  gtk_widget_class_set_css_name (widget_class, "sjsoundrow");
}

static void
sj_sound_row_init (SjSoundRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * sj_sound_row_set_sound:
 * @name: the sound's name
 * @detail: its kind ("sample · 12 files")
 * @usage: how to write it, for the tooltip
 *
 * Shows another sound, with no state, no failure and no spinner.
 */
void
sj_sound_row_set_sound (SjSoundRow *self,
                        const char *name,
                        const char *detail,
                        const char *usage)
{
  g_autofree char *preview_label = NULL;

  g_assert (SJ_IS_SOUND_ROW (self));
  g_return_if_fail (name != NULL);

  g_free (self->name);
  self->name = g_strdup (name);
  g_free (self->detail);
  self->detail = g_strdup (detail);
  g_clear_pointer (&self->failure, g_free);

  /* TRANSLATORS: the accessible label of a sound's preview button, e.g. "Preview sawtooth" */
  preview_label = g_strdup_printf (_("Preview %s"), name);
  gtk_label_set_label (self->name_label, name);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), usage);
  /* The target goes first: an action name without its target would not
   * match the action's parameter type. */
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->preview_button), "s", name);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->preview_button), "sounds.preview");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->preview_button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  preview_label, -1);

  sj_sound_row_set_state (self, NULL, NULL);
  sj_sound_row_set_loading (self, FALSE);
  update_detail (self);
}

const char *
sj_sound_row_get_name (SjSoundRow *self)
{
  g_assert (SJ_IS_SOUND_ROW (self));

  return self->name;
}

/**
 * sj_sound_row_set_state:
 * @icon_name: (nullable): the icon of the state
 * @state: (nullable): what it means, for the tooltip and screen readers;
 *   %NULL when nothing is known
 */
void
sj_sound_row_set_state (SjSoundRow *self,
                        const char *icon_name,
                        const char *state)
{
  g_assert (SJ_IS_SOUND_ROW (self));

  if (g_strcmp0 (self->state, state) == 0 &&
      g_strcmp0 (gtk_image_get_icon_name (self->state_image), icon_name) == 0)
    return;

  g_free (self->state);
  self->state = g_strdup (state);
  gtk_image_set_from_icon_name (self->state_image, icon_name);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->state_image), state);
  if (state != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (self->state_image), GTK_ACCESSIBLE_PROPERTY_LABEL, state, -1);
  else
    gtk_accessible_reset_property (GTK_ACCESSIBLE (self->state_image), GTK_ACCESSIBLE_PROPERTY_LABEL);
  gtk_widget_set_visible (GTK_WIDGET (self->state_image),
                          icon_name != NULL && !gtk_widget_get_visible (GTK_WIDGET (self->spinner)));
  update_description (self);
}

/* The spinner stands in for the state's icon while a preview loads. */
void
sj_sound_row_set_loading (SjSoundRow *self,
                          gboolean    loading)
{
  g_assert (SJ_IS_SOUND_ROW (self));

  gtk_spinner_set_spinning (self->spinner, loading);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), loading);
  gtk_widget_set_visible (GTK_WIDGET (self->state_image),
                          !loading && gtk_image_get_icon_name (self->state_image) != NULL);
  if (loading)
    gtk_accessible_update_state (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_STATE_BUSY, TRUE, -1);
  else
    gtk_accessible_reset_state (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_STATE_BUSY);
}

/**
 * sj_sound_row_set_failure:
 * @failure: (nullable): why the last preview failed, or %NULL
 */
void
sj_sound_row_set_failure (SjSoundRow *self,
                          const char *failure)
{
  g_assert (SJ_IS_SOUND_ROW (self));

  if (g_strcmp0 (self->failure, failure) == 0)
    return;

  g_free (self->failure);
  self->failure = g_strdup (failure);
  update_detail (self);
  update_description (self);
}
