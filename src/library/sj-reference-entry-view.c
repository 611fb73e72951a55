/* sj-reference-entry-view.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One function of the Strudel reference, as the Reference page shows it:
 * its name and synonyms, whether this app provides it, where it comes from,
 * its description, its parameters and its examples. Each example has Copy
 * and Insert buttons bound to the actions "reference.copy-example" and
 * "reference.insert-example" (with the example as their target), which the
 * page that holds this view provides.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-reference-entry-view.h"

struct _SjReferenceEntryView
{
  GtkWidget  parent_instance;

  GtkBox    *box;
};

G_DEFINE_FINAL_TYPE (SjReferenceEntryView, sj_reference_entry_view, GTK_TYPE_WIDGET)

/* "packages/core" is shown as "core". */
const char *
sj_reference_source_title (const char *source)
{
  const char *slash = strrchr (source, '/');

  return slash != NULL ? slash + 1 : source;
}

static GtkWidget *
add_label (GtkBox     *box,
           const char *text,
           const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  gtk_box_append (box, label);

  return label;
}

static void
add_heading (GtkBox     *box,
             const char *text)
{
  GtkWidget *label = add_label (box, text, "heading");

  gtk_label_set_selectable (GTK_LABEL (label), FALSE);
  gtk_widget_set_margin_top (label, 12);
}

static void
add_example (GtkBox     *box,
             const char *example,
             guint       number)
{
  GtkWidget *card = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *code;
  GtkWidget *insert = gtk_button_new_with_mnemonic (_("_Insert"));
  GtkWidget *copy = gtk_button_new_from_icon_name ("edit-copy-symbolic");
  g_autofree char *insert_label = g_strdup_printf (_("Insert example %u into the editor"), number);
  g_autofree char *copy_label = g_strdup_printf (_("Copy example %u"), number);

  gtk_widget_add_css_class (card, "card");
  gtk_widget_add_css_class (card, "sj-example");
  code = add_label (GTK_BOX (card), example, "monospace");
  gtk_label_set_wrap_mode (GTK_LABEL (code), PANGO_WRAP_CHAR);

  gtk_widget_set_halign (buttons, GTK_ALIGN_END);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (copy), "reference.copy-example");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (copy), "s", example);
  gtk_widget_set_tooltip_text (copy, _("Copy"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (copy), GTK_ACCESSIBLE_PROPERTY_LABEL, copy_label, -1);
  gtk_widget_add_css_class (copy, "flat");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (insert), "reference.insert-example");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (insert), "s", example);
  gtk_widget_set_tooltip_text (insert, _("Insert at the cursor without playing"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (insert), GTK_ACCESSIBLE_PROPERTY_LABEL, insert_label, -1);
  gtk_box_append (GTK_BOX (buttons), copy);
  gtk_box_append (GTK_BOX (buttons), insert);
  gtk_box_append (GTK_BOX (card), buttons);

  gtk_box_append (box, card);
}

static void
sj_reference_entry_view_dispose (GObject *object)
{
  SjReferenceEntryView *self = (SjReferenceEntryView *)object;

  if (self->box != NULL)
    {
      gtk_widget_unparent (GTK_WIDGET (self->box));
      self->box = NULL;
    }

  G_OBJECT_CLASS (sj_reference_entry_view_parent_class)->dispose (object);
}

static void
sj_reference_entry_view_class_init (SjReferenceEntryViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_reference_entry_view_dispose;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjreferenceentryview");
}

static void
sj_reference_entry_view_init (SjReferenceEntryView *self)
{
  self->box = GTK_BOX (gtk_box_new (GTK_ORIENTATION_VERTICAL, 6));
  gtk_widget_add_css_class (GTK_WIDGET (self->box), "sj-reference-detail");
  gtk_widget_set_parent (GTK_WIDGET (self->box), GTK_WIDGET (self));
}

/**
 * sj_reference_entry_view_set_entry:
 * @entry: (nullable): what to show, or %NULL for nothing
 */
void
sj_reference_entry_view_set_entry (SjReferenceEntryView   *self,
                                   const SjReferenceEntry *entry)
{
  GtkBox *box;
  GtkWidget *child;

  g_assert (SJ_IS_REFERENCE_ENTRY_VIEW (self));

  box = self->box;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (box))) != NULL)
    gtk_box_remove (box, child);

  if (entry == NULL)
    return;

  gtk_label_set_selectable (GTK_LABEL (add_label (box, entry->name, "title-2")), FALSE);

  if (entry->synonyms != NULL && entry->synonyms[0] != NULL)
    {
      g_autofree char *joined = g_strjoinv (", ", entry->synonyms);
      /* TRANSLATORS: the other names of a function, e.g. "Also: cutoff, ctf" */
      g_autofree char *text = g_strdup_printf (_("Also: %s"), joined);

      add_label (box, text, "dim-label");
    }

  if (!entry->callable)
    {
      GtkWidget *badge = add_label (box, _("Not available in this app"), "sj-badge");

      gtk_widget_set_halign (badge, GTK_ALIGN_START);
      gtk_widget_set_tooltip_text (badge, _("Strudel documents this function, but the bundled Strudel does not "
                                            "provide it (it may need another output, such as SuperDirt or MIDI)"));
    }

  if (entry->source != NULL)
    {
      /* TRANSLATORS: where a function comes from, e.g. "From @strudel/core" */
      g_autofree char *text = g_strdup_printf (_("From @strudel/%s"), sj_reference_source_title (entry->source));

      GtkWidget *label = add_label (box, text, "dim-label");

      gtk_widget_add_css_class (label, "caption");
    }

  if (entry->description != NULL && *entry->description != '\0')
    gtk_widget_set_margin_top (add_label (box, entry->description, NULL), 6);

  if (entry->params != NULL && entry->params->len > 0)
    {
      add_heading (box, _("Parameters"));
      for (guint i = 0; i < entry->params->len; i++)
        {
          const SjReferenceParam *param = g_ptr_array_index (entry->params, i);
          g_autofree char *name = g_markup_escape_text (param->name ? param->name : "", -1);
          g_autofree char *types = g_markup_escape_text (param->types ? param->types : "", -1);
          g_autofree char *markup = g_strdup_printf ("<tt><b>%s</b></tt>  <span alpha=\"60%%\">%s</span>", name, types);
          GtkWidget *label = add_label (box, NULL, "sj-param");

          gtk_label_set_markup (GTK_LABEL (label), markup);
          if (param->description != NULL && *param->description != '\0')
            gtk_widget_set_margin_start (add_label (box, param->description, NULL), 12);
        }
    }

  if (entry->examples != NULL && entry->examples[0] != NULL)
    {
      add_heading (box, g_dngettext (GETTEXT_PACKAGE, "Example", "Examples",
                                                  g_strv_length (entry->examples)));
      for (guint i = 0; entry->examples[i] != NULL; i++)
        add_example (box, entry->examples[i], i + 1);
    }
}
