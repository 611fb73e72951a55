/* sj-skills-page.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Skills page of the side panel's Library: the skills the agent can
 * draw on, bundled and the musician's own, searched by name, title,
 * description, tags and triggers, each with a switch that enables or
 * disables it; the skills that could not be loaded are listed under them
 * with the loader's words for what is wrong. A skill opens into its
 * SKILL.md, rendered by the chat's Markdown view with its templates and
 * patterns after it, and the buttons that
 * open its folder, edit it, export it or remove it
 * (sj-skills-page-actions.c, with New Skill and Import).
 *
 * The page follows the registry's "changed": when only the enabled set
 * changed it updates the switches in place (so that the switch the
 * keyboard is on stays), otherwise it lists the skills again.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-skill-row.h"
#include "sj-skills-page-private.h"

G_DEFINE_FINAL_TYPE (SjSkillsPage, sj_skills_page, GTK_TYPE_WIDGET)

/* The list ---------------------------------------------------------------- */

static void
clear_list (GtkListBox *list)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, child);
}

static GtkWidget *
error_row (const GError *error)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
  GtkWidget *label = gtk_label_new (error->message);

  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 8);
  gtk_widget_set_margin_bottom (box, 8);
  gtk_widget_set_valign (icon, GTK_ALIGN_START);
  gtk_widget_add_css_class (icon, "warning");
  gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Could not be loaded"), -1);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), label);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, error->message, -1);

  return row;
}

/* Nothing found, or nothing at all yet. */
static void
show_none (SjSkillsPage *self,
           gboolean      searched)
{
  adw_status_page_set_icon_name (self->none_status, searched ? "edit-find-symbolic" : "application-x-addon-symbolic");
  adw_status_page_set_title (self->none_status, searched ? _("No Skills Found") : _("No Skills Yet"));
  adw_status_page_set_description (self->none_status,
                                   searched ? _("Try another word, or create a skill of your own")
                                            : _("Create a skill with the + button, or import one"));
}

static GPtrArray *
registry_skills (SjSkillRegistry *registry)
{
  GPtrArray *skills = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (registry)); i++)
    g_ptr_array_add (skills, g_list_model_get_item (G_LIST_MODEL (registry), i));

  return skills;
}

/**
 * _sj_skills_page_rebuild:
 *
 * Lists the skills matching the search, and the broken ones when the
 * search is empty.
 */
void
_sj_skills_page_rebuild (SjSkillsPage *self)
{
  const char *query = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  g_autoptr(GPtrArray) results = NULL;
  GPtrArray *errors;
  gboolean show_errors;

  g_assert (SJ_IS_SKILLS_PAGE (self));

  clear_list (self->skills_list);
  clear_list (self->errors_list);
  g_clear_pointer (&self->listed, g_ptr_array_unref);
  if (self->registry == NULL)
    {
      gtk_stack_set_visible_child_name (self->results_stack, "none");
      show_none (self, FALSE);
      return;
    }

  self->listed = registry_skills (self->registry);
  results = sj_skill_registry_search (self->registry, query);
  for (guint i = 0; i < results->len; i++)
    gtk_list_box_append (self->skills_list, sj_skill_row_new (self->registry, g_ptr_array_index (results, i)));

  errors = sj_skill_registry_get_errors (self->registry);
  show_errors = errors->len > 0 && *query == '\0';
  for (guint i = 0; show_errors && i < errors->len; i++)
    gtk_list_box_append (self->errors_list, error_row (g_ptr_array_index (errors, i)));
  gtk_widget_set_visible (GTK_WIDGET (self->skills_list), results->len > 0);
  gtk_widget_set_visible (self->errors_box, show_errors);

  gtk_stack_set_visible_child_name (self->results_stack, results->len > 0 || show_errors ? "results" : "none");
  show_none (self, *query != '\0');
}

static gboolean
same_skills (SjSkillsPage *self)
{
  GListModel *model = G_LIST_MODEL (self->registry);

  if (self->listed == NULL || self->listed->len != g_list_model_get_n_items (model))
    return FALSE;
  for (guint i = 0; i < self->listed->len; i++)
    {
      g_autoptr(SjSkill) skill = g_list_model_get_item (model, i);

      if (skill != g_ptr_array_index (self->listed, i))
        return FALSE;
    }

  return TRUE;
}

static SjSkillRow *
find_row (SjSkillsPage *self,
          const char   *name)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->skills_list));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (SJ_IS_SKILL_ROW (child) &&
          g_strcmp0 (sj_skill_get_name (sj_skill_row_get_skill (SJ_SKILL_ROW (child))), name) == 0)
        return SJ_SKILL_ROW (child);
    }

  return NULL;
}

/* The detail view ------------------------------------------------------- */

static char *
describe (SjSkillsPage *self,
          SjSkill      *skill)
{
  g_autoptr(GString) text = g_string_new (NULL);
  const char * const *tags = sj_skill_get_tags (skill);
  const char * const *triggers = sj_skill_get_triggers (skill);
  g_autofree char *path = g_file_get_path (sj_skill_get_folder (skill));

  if (sj_skill_get_origin (skill) == SJ_SKILL_ORIGIN_BUNDLED)
    g_string_append (text, _("Bundled with Strudel Jam"));
  else if (sj_skill_get_overrides (skill))
    g_string_append (text, _("Yours, overrides the bundled skill of the same name"));
  else
    g_string_append (text, _("Yours"));
  if (!sj_skill_registry_is_enabled (self->registry, sj_skill_get_name (skill)))
    g_string_append_printf (text, " · %s", _("Disabled"));
  g_string_append_c (text, '\n');
  /* TRANSLATORS: a skill's version, as in "Version 1.0.0" */
  g_string_append_printf (text, _("Version %s"), sj_skill_get_version (skill));
  if (tags != NULL && tags[0] != NULL)
    {
      g_autofree char *joined = g_strjoinv (", ", (char **)tags);

      g_string_append_c (text, '\n');
      g_string_append_printf (text, _("Tags: %s"), joined);
    }
  if (triggers != NULL && triggers[0] != NULL)
    {
      g_autofree char *joined = g_strjoinv (", ", (char **)triggers);

      g_string_append_c (text, '\n');
      /* TRANSLATORS: the words that make the agent use a skill */
      g_string_append_printf (text, _("Used when you say: %s"), joined);
    }
  if (path != NULL)
    g_string_append_printf (text, "\n%s", path);

  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* A fence longer than any run of backticks in @code, so that nothing in
 * it closes the block. */
static void
append_code (GString    *text,
             const char *code)
{
  guint longest = 0, run = 0;
  g_autofree char *fence = NULL;

  for (const char *c = code; *c != '\0'; c++)
    {
      run = *c == '`' ? run + 1 : 0;
      longest = MAX (longest, run);
    }
  fence = g_strnfill (MAX (3, longest + 1), '`');
  g_string_append_printf (text, "\n%sjavascript\n%s%s%s\n", fence, code,
                          g_str_has_suffix (code, "\n") ? "" : "\n", fence);
}

/* SKILL.md, then the skill's templates and patterns as examples of their
 * own, each with the Markdown view's Apply. */
static char *
skill_markdown (SjSkill *skill)
{
  GString *text = g_string_new (sj_skill_get_markdown (skill));
  GPtrArray *templates = sj_skill_get_templates (skill);
  GPtrArray *patterns = sj_skill_get_patterns (skill);

  if (templates != NULL && templates->len > 0)
    {
      g_string_append_printf (text, "\n\n## %s\n", _("Templates"));
      for (guint i = 0; i < templates->len; i++)
        {
          SjSkillSnippet *snippet = g_ptr_array_index (templates, i);

          g_string_append_printf (text, "\n### %s\n", snippet->name);
          append_code (text, snippet->code);
        }
    }
  if (patterns != NULL && patterns->len > 0)
    {
      g_string_append_printf (text, "\n\n## %s\n", _("Patterns"));
      for (guint i = 0; i < patterns->len; i++)
        {
          SjSkillSnippet *snippet = g_ptr_array_index (patterns, i);

          g_string_append_printf (text, "\n### %s\n", snippet->name);
          if (snippet->description != NULL && *snippet->description != '\0')
            g_string_append_printf (text, "\n%s\n", snippet->description);
          append_code (text, snippet->code);
        }
    }

  return g_string_free (text, FALSE);
}

static void
show_detail (SjSkillsPage *self,
             SjSkill      *skill)
{
  g_autofree char *meta = describe (self, skill);
  g_autofree char *markdown = skill_markdown (skill);
  gboolean mine = sj_skill_get_origin (skill) == SJ_SKILL_ORIGIN_USER;
  gboolean was_shown = g_strcmp0 (self->shown_name, sj_skill_get_name (skill)) == 0;

  g_set_object (&self->shown, skill);
  g_free (self->shown_name);
  self->shown_name = g_strdup (sj_skill_get_name (skill));

  gtk_label_set_label (self->detail_title, sj_skill_get_title (skill));
  gtk_label_set_label (self->detail_meta, meta);
  sj_markdown_view_set_text (self->markdown_view, markdown);
  /* A bundled skill is read-only: editing it makes a copy of the
   * musician's own first, which then overrides it. */
  gtk_button_set_label (self->edit_button, mine ? _("Edit SKILL.md") : _("Edit a Copy"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->edit_button),
                               mine ? _("Open SKILL.md in your text editor")
                                    : _("Bundled skills are read-only: make a copy of your own and edit it"));
  gtk_widget_set_visible (GTK_WIDGET (self->remove_button), mine);
  _sj_skills_page_update_actions (self);

  if (!was_shown || g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "detail") != 0)
    {
      gtk_stack_set_visible_child_name (self->stack, "detail");
      gtk_widget_grab_focus (GTK_WIDGET (self->back_button));
    }
}

/**
 * _sj_skills_page_show_list:
 *
 * Back from a skill to the list, with the keyboard on that skill's row.
 */
void
_sj_skills_page_show_list (SjSkillsPage *self)
{
  SjSkillRow *row = self->shown_name != NULL ? find_row (self, self->shown_name) : NULL;

  g_assert (SJ_IS_SKILLS_PAGE (self));

  g_clear_object (&self->shown);
  g_clear_pointer (&self->shown_name, g_free);
  _sj_skills_page_update_actions (self);
  gtk_stack_set_visible_child_name (self->stack, "list");
  if (row != NULL)
    gtk_widget_grab_focus (GTK_WIDGET (row));
}

/**
 * sj_skills_page_show_skill:
 * @name: a skill's name
 *
 * Opens the skill's detail view.
 *
 * Returns: whether there is such a skill
 */
gboolean
sj_skills_page_show_skill (SjSkillsPage *self,
                           const char   *name)
{
  SjSkill *skill;

  g_assert (SJ_IS_SKILLS_PAGE (self));

  if (self->registry == NULL || (skill = sj_skill_registry_lookup (self->registry, name)) == NULL)
    return FALSE;
  show_detail (self, skill);
  return TRUE;
}

static void
registry_changed_cb (SjSkillsPage    *self,
                     SjSkillRegistry *registry)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));

  if (same_skills (self))
    {
      for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->skills_list));
           child != NULL;
           child = gtk_widget_get_next_sibling (child))
        if (SJ_IS_SKILL_ROW (child))
          sj_skill_row_sync (SJ_SKILL_ROW (child));
    }
  else
    _sj_skills_page_rebuild (self);

  /* The skill shown may have been edited, removed or broken. */
  if (self->shown_name != NULL && !sj_skills_page_show_skill (self, self->shown_name))
    _sj_skills_page_show_list (self);
}

/* Callbacks ------------------------------------------------------------- */

static void
search_changed_cb (SjSkillsPage   *self,
                   GtkSearchEntry *entry)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));

  _sj_skills_page_rebuild (self);
}

/* Enter in the search opens the first skill found. */
static void
search_activate_cb (SjSkillsPage   *self,
                    GtkSearchEntry *entry)
{
  GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->skills_list, 0);

  g_assert (SJ_IS_SKILLS_PAGE (self));

  if (SJ_IS_SKILL_ROW (row))
    show_detail (self, sj_skill_row_get_skill (SJ_SKILL_ROW (row)));
}

static void
row_activated_cb (SjSkillsPage  *self,
                  GtkListBoxRow *row,
                  GtkListBox    *list)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));

  if (SJ_IS_SKILL_ROW (row))
    show_detail (self, sj_skill_row_get_skill (SJ_SKILL_ROW (row)));
}

/* Messages -------------------------------------------------------------- */

void
_sj_skills_page_show_toast (SjSkillsPage *self,
                            const char   *text)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));

  g_free (self->last_toast);
  self->last_toast = g_strdup (text);
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (text));
}

/* An error stays until dismissed: it may be long, and name what to fix. */
void
_sj_skills_page_show_error (SjSkillsPage *self,
                            const char   *text)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));

  gtk_label_set_label (self->error_label, text);
  gtk_revealer_set_reveal_child (self->error_revealer, TRUE);
}

/* Public ---------------------------------------------------------------- */

void
sj_skills_page_set_registry (SjSkillsPage    *self,
                             SjSkillRegistry *registry)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));
  g_return_if_fail (!registry || SJ_IS_SKILL_REGISTRY (registry));

  if (self->registry == registry)
    return;
  if (self->registry != NULL)
    g_signal_handlers_disconnect_by_data (self->registry, self);
  g_set_object (&self->registry, registry);
  if (registry != NULL)
    g_signal_connect_object (registry, "changed", G_CALLBACK (registry_changed_cb), self, G_CONNECT_SWAPPED);

  _sj_skills_page_rebuild (self);
  _sj_skills_page_show_list (self);
}

SjSkillRegistry *
sj_skills_page_get_registry (SjSkillsPage *self)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));

  return self->registry;
}

void
sj_skills_page_focus_search (SjSkillsPage *self)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "list") == 0)
    gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

GtkListBox *
_sj_skills_page_get_list (SjSkillsPage *self)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));

  return self->skills_list;
}

SjMarkdownView *
_sj_skills_page_get_markdown_view (SjSkillsPage *self)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));

  return self->markdown_view;
}

SjSkill *
_sj_skills_page_get_shown (SjSkillsPage *self)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));

  return self->shown;
}

/* The error shown, or %NULL when none is. */
const char *
_sj_skills_page_get_error (SjSkillsPage *self)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));

  return gtk_revealer_get_reveal_child (self->error_revealer) ? gtk_label_get_label (self->error_label) : NULL;
}

const char *
_sj_skills_page_get_last_toast (SjSkillsPage *self)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));

  return self->last_toast;
}

/* The object ------------------------------------------------------------ */

static void
sj_skills_page_dispose (GObject *object)
{
  SjSkillsPage *self = (SjSkillsPage *)object;

  g_cancellable_cancel (self->cancellable);
  if (self->registry != NULL)
    g_signal_handlers_disconnect_by_data (self->registry, self);
  _sj_skills_page_close_chooser (self);
  g_clear_object (&self->registry);
  g_clear_object (&self->shown);
  g_clear_pointer (&self->listed, g_ptr_array_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_SKILLS_PAGE);

  G_OBJECT_CLASS (sj_skills_page_parent_class)->dispose (object);
}

static void
sj_skills_page_finalize (GObject *object)
{
  SjSkillsPage *self = (SjSkillsPage *)object;

  g_clear_object (&self->cancellable);
  g_free (self->shown_name);
  g_free (self->last_toast);

  G_OBJECT_CLASS (sj_skills_page_parent_class)->finalize (object);
}

static void
sj_skills_page_class_init (SjSkillsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_skills_page_dispose;
  object_class->finalize = sj_skills_page_finalize;

  g_type_ensure (SJ_TYPE_MARKDOWN_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-skills-page.ui");
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, error_revealer);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, error_label);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, stack);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, search_entry);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, new_button);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, menu_button);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, results_stack);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, none_status);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, skills_list);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, errors_box);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, errors_list);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, back_button);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, detail_title);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, detail_meta);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, markdown_view);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, open_button);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, edit_button);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, export_button);
  gtk_widget_class_bind_template_child (widget_class, SjSkillsPage, remove_button);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, row_activated_cb);

  _sj_skills_page_class_init_actions (widget_class);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjskillspage");
}

static void
sj_skills_page_init (SjSkillsPage *self)
{
  self->cancellable = g_cancellable_new ();
  gtk_widget_init_template (GTK_WIDGET (self));
  _sj_skills_page_init_transfer (self);
  _sj_skills_page_rebuild (self);
  _sj_skills_page_update_actions (self);
}
