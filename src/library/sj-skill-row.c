/* sj-skill-row.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A skill in the Skills page's list: its title, description, where it
 * comes from (bundled, or the musician's, perhaps overriding a bundled
 * one) and its tags, with a switch that enables or disables it in the
 * registry. Activating the row opens the skill; the switch is a stop of
 * its own for the keyboard, named "Enable <title>" for screen readers.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-skill-row.h"

struct _SjSkillRow
{
  GtkListBoxRow    parent_instance;

  SjSkillRegistry *registry;
  SjSkill         *skill;
  gboolean         syncing;

  GtkWidget       *title;
  GtkWidget       *toggle;
};

G_DEFINE_FINAL_TYPE (SjSkillRow, sj_skill_row, GTK_TYPE_LIST_BOX_ROW)

static void
toggle_active_cb (SjSkillRow *self,
                  GParamSpec *pspec,
                  GtkSwitch  *toggle)
{
  g_assert (SJ_IS_SKILL_ROW (self));

  if (self->syncing)
    return;
  sj_skill_registry_set_enabled (self->registry, sj_skill_get_name (self->skill), gtk_switch_get_active (toggle));
}

/**
 * sj_skill_row_sync:
 *
 * Shows whether the skill is enabled, as the registry says now.
 */
void
sj_skill_row_sync (SjSkillRow *self)
{
  gboolean enabled;

  g_assert (SJ_IS_SKILL_ROW (self));

  enabled = sj_skill_registry_is_enabled (self->registry, sj_skill_get_name (self->skill));
  self->syncing = TRUE;
  gtk_switch_set_active (GTK_SWITCH (self->toggle), enabled);
  self->syncing = FALSE;
  if (enabled)
    gtk_widget_remove_css_class (self->title, "dim-label");
  else
    gtk_widget_add_css_class (self->title, "dim-label");
}

/* "Bundled · genre, electronic", "Yours · overrides the bundled one". */
static char *
describe_origin (SjSkill *skill)
{
  const char * const *tags = sj_skill_get_tags (skill);
  g_autoptr(GString) text = g_string_new (NULL);

  if (sj_skill_get_origin (skill) == SJ_SKILL_ORIGIN_BUNDLED)
    g_string_append (text, _("Bundled"));
  else if (sj_skill_get_overrides (skill))
    g_string_append (text, _("Yours, overrides the bundled one"));
  else
    g_string_append (text, _("Yours"));

  if (tags != NULL && tags[0] != NULL)
    {
      g_autofree char *joined = g_strjoinv (", ", (char **)tags);

      g_string_append_printf (text, " · %s", joined);
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
sj_skill_row_dispose (GObject *object)
{
  SjSkillRow *self = (SjSkillRow *)object;

  g_clear_object (&self->registry);
  g_clear_object (&self->skill);

  G_OBJECT_CLASS (sj_skill_row_parent_class)->dispose (object);
}

static void
sj_skill_row_class_init (SjSkillRowClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sj_skill_row_dispose;
}

static void
sj_skill_row_init (SjSkillRow *self)
{
}

static GtkWidget *
make_label (const char *text,
            const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

/**
 * sj_skill_row_new:
 * @registry: the registry the switch changes
 * @skill: the skill the row shows
 */
GtkWidget *
sj_skill_row_new (SjSkillRegistry *registry,
                  SjSkill         *skill)
{
  SjSkillRow *self = g_object_new (SJ_TYPE_SKILL_ROW, NULL);
  g_autofree char *origin = describe_origin (skill);
  g_autofree char *enable = NULL;
  GtkWidget *box, *text, *description, *meta;

  g_return_val_if_fail (SJ_IS_SKILL_REGISTRY (registry), NULL);
  g_return_val_if_fail (SJ_IS_SKILL (skill), NULL);

  self->registry = g_object_ref (registry);
  self->skill = g_object_ref (skill);

  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 8);
  gtk_widget_set_margin_bottom (box, 8);

  text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  gtk_widget_set_hexpand (text, TRUE);
  self->title = make_label (sj_skill_get_title (skill), "heading");
  description = make_label (sj_skill_get_description (skill), NULL);
  gtk_label_set_lines (GTK_LABEL (description), 2);
  gtk_label_set_ellipsize (GTK_LABEL (description), PANGO_ELLIPSIZE_END);
  meta = make_label (origin, "caption");
  gtk_widget_add_css_class (meta, "dim-label");
  gtk_box_append (GTK_BOX (text), self->title);
  gtk_box_append (GTK_BOX (text), description);
  gtk_box_append (GTK_BOX (text), meta);
  gtk_box_append (GTK_BOX (box), text);

  self->toggle = gtk_switch_new ();
  gtk_widget_set_valign (self->toggle, GTK_ALIGN_CENTER);
  /* TRANSLATORS: the accessible name of a skill's switch, as in "Enable Techno" */
  enable = g_strdup_printf (_("Enable %s"), sj_skill_get_title (skill));
  gtk_widget_set_tooltip_text (self->toggle, enable);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->toggle), GTK_ACCESSIBLE_PROPERTY_LABEL, enable, -1);
  gtk_box_append (GTK_BOX (box), self->toggle);

  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (self), box);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, sj_skill_get_title (skill),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, sj_skill_get_description (skill),
                                  -1);

  sj_skill_row_sync (self);
  g_signal_connect_object (self->toggle, "notify::active", G_CALLBACK (toggle_active_cb), self, G_CONNECT_SWAPPED);

  return GTK_WIDGET (self);
}

SjSkill *
sj_skill_row_get_skill (SjSkillRow *self)
{
  g_assert (SJ_IS_SKILL_ROW (self));

  return self->skill;
}

GtkSwitch *
sj_skill_row_get_switch (SjSkillRow *self)
{
  g_assert (SJ_IS_SKILL_ROW (self));

  return GTK_SWITCH (self->toggle);
}
