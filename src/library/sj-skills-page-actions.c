/* sj-skills-page-actions.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the Skills page does besides showing: New Skill (a name and a title,
 * then the template, opened in the text editor), Remove (the musician's
 * skills only, confirmed), and opening a skill's folder or SKILL.md in the
 * apps the desktop chooses (Import and Export are in
 * sj-skills-page-transfer.c).
 *
 * Files are opened with the launcher of the GTK at hand, which goes
 * through the portal in a Flatpak.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sj-skills-page-private.h"

/* Opening in other apps --------------------------------------------------- */

GtkWindow *
_sj_skills_page_get_window (SjSkillsPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  return GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL;
}

typedef struct
{
  SjSkillsPage *page;
  char         *what;
} Launch;

static void
launch_free (Launch *launch)
{
  g_object_unref (launch->page);
  g_free (launch->what);
  g_free (launch);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Launch, launch_free)

static void
launched_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(Launch) launch = user_data;
  g_autoptr(GError) error = NULL;

#if GTK_CHECK_VERSION (4, 10, 0)
  gtk_file_launcher_launch_finish (GTK_FILE_LAUNCHER (object), result, &error);
  if (g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_DISMISSED))
    return;
#else
  gtk_show_uri_full_finish (GTK_WINDOW (object), result, &error);
#endif
  if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* TRANSLATORS: “SKILL.md” or a folder could not be opened: why */
      g_autofree char *text = g_strdup_printf (_("Could not open %s: %s"), launch->what, error->message);

      _sj_skills_page_show_error (launch->page, text);
    }
}

/* Opens @file in the app the desktop picks for it (a folder in the file
 * manager, SKILL.md in the text editor). The registry follows the user
 * skills on disk, so what is saved there shows here. */
static void
launch (SjSkillsPage *self,
        GFile        *file,
        const char   *what)
{
  GtkWindow *window = _sj_skills_page_get_window (self);
  Launch *data;

  if (self->launch_hook != NULL)
    {
      self->launch_hook (file, self->launch_hook_data);
      return;
    }

  data = g_new0 (Launch, 1);
  data->page = g_object_ref (self);
  data->what = g_strdup (what);
#if GTK_CHECK_VERSION (4, 10, 0)
  {
    g_autoptr(GtkFileLauncher) launcher = gtk_file_launcher_new (file);

    gtk_file_launcher_launch (launcher, window, self->cancellable, launched_cb, data);
  }
#else
  {
    g_autofree char *uri = g_file_get_uri (file);

    if (window == NULL)
      {
        launch_free (data);
        return;
      }
    gtk_show_uri_full (window, uri, GDK_CURRENT_TIME, self->cancellable, launched_cb, data);
  }
#endif
}

static void
open_markdown (SjSkillsPage *self,
               SjSkill      *skill)
{
  g_autoptr(GFile) markdown = g_file_get_child (sj_skill_get_folder (skill), "SKILL.md");

  launch (self, markdown, "SKILL.md");
}

static void
open_folder_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  SjSkillsPage *self = SJ_SKILLS_PAGE (widget);

  if (self->shown != NULL)
    launch (self, sj_skill_get_folder (self->shown), _("the skill’s folder"));
}

/* A bundled skill is edited as a copy of the musician's own. */
static void
edit_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  SjSkillsPage *self = SJ_SKILLS_PAGE (widget);
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSkill) skill = NULL;

  if (self->shown == NULL)
    return;
  skill = g_object_ref (self->shown);

  if (sj_skill_get_origin (skill) == SJ_SKILL_ORIGIN_BUNDLED)
    {
      SjSkill *copy = sj_skill_registry_install_folder (self->registry, sj_skill_get_folder (skill), FALSE, NULL,
                                                        &error);
      g_autofree char *text = NULL;

      if (copy == NULL)
        {
          text = g_strdup_printf (_("Could not copy “%s”: %s"), sj_skill_get_title (skill), error->message);
          _sj_skills_page_show_error (self, text);
          return;
        }
      g_set_object (&skill, copy);
      sj_skills_page_show_skill (self, sj_skill_get_name (copy));
      text = g_strdup_printf (_("“%s” is now yours to edit"), sj_skill_get_title (copy));
      _sj_skills_page_show_toast (self, text);
    }

  open_markdown (self, skill);
}

/* New Skill ------------------------------------------------------------- */

/**
 * _sj_skills_page_name_from_title:
 *
 * "Bossa Nova!" → "bossa-nova": what the name field offers for a title.
 */
char *
_sj_skills_page_name_from_title (const char *title)
{
  g_autofree char *ascii = g_str_to_ascii (title != NULL ? title : "", "C");
  GString *name = g_string_new (NULL);

  for (const char *c = ascii; *c != '\0' && name->len < 40; c++)
    {
      if (g_ascii_isalnum (*c))
        g_string_append_c (name, g_ascii_tolower (*c));
      else if (name->len > 0 && name->str[name->len - 1] != '-')
        g_string_append_c (name, '-');
    }
  while (name->len > 0 && name->str[name->len - 1] == '-')
    g_string_truncate (name, name->len - 1);

  return g_string_free (name, FALSE);
}

/**
 * _sj_skills_page_create:
 *
 * Creates a user skill from the template and shows it.
 *
 * Returns: (transfer none): the skill, or %NULL with an error
 */
SjSkill *
_sj_skills_page_create (SjSkillsPage  *self,
                        const char    *name,
                        const char    *title,
                        GError       **error)
{
  SjSkill *skill;

  g_assert (SJ_IS_SKILLS_PAGE (self));

  skill = sj_skill_registry_create (self->registry, name, title, error);
  if (skill != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Created “%s”: describe the style in its SKILL.md"), title);

      gtk_editable_set_text (GTK_EDITABLE (self->search_entry), "");
      sj_skills_page_show_skill (self, name);
      _sj_skills_page_show_toast (self, text);
    }

  return skill;
}

typedef struct
{
  AdwEntryRow *title;
  AdwEntryRow *name;
  gboolean     name_edited;
  gboolean     filling;
} NewSkill;

static void
new_validate (AdwMessageDialog *dialog)
{
  NewSkill *form = g_object_get_data (G_OBJECT (dialog), "sj-new-skill");
  const char *title = gtk_editable_get_text (GTK_EDITABLE (form->title));
  const char *name = gtk_editable_get_text (GTK_EDITABLE (form->name));
  /* What sj_skill_registry_create() takes: the template writes the title
   * into skill.json as it is. */
  gboolean valid = sj_skill_is_valid_name (name) && *title != '\0' && g_utf8_strlen (title, -1) <= 60 &&
                   strpbrk (title, "\"\\\n") == NULL;

  adw_message_dialog_set_response_enabled (dialog, "create", valid);
}

static void
new_title_changed_cb (AdwMessageDialog *dialog,
                      GtkEditable      *title)
{
  NewSkill *form = g_object_get_data (G_OBJECT (dialog), "sj-new-skill");

  if (!form->name_edited)
    {
      g_autofree char *name = _sj_skills_page_name_from_title (gtk_editable_get_text (title));

      form->filling = TRUE;
      gtk_editable_set_text (GTK_EDITABLE (form->name), name);
      form->filling = FALSE;
    }
  new_validate (dialog);
}

static void
new_name_changed_cb (AdwMessageDialog *dialog,
                     GtkEditable      *name)
{
  NewSkill *form = g_object_get_data (G_OBJECT (dialog), "sj-new-skill");

  if (!form->filling)
    form->name_edited = TRUE;
  new_validate (dialog);
}

static void
new_response_cb (SjSkillsPage     *self,
                 const char       *response,
                 AdwMessageDialog *dialog)
{
  NewSkill *form = g_object_get_data (G_OBJECT (dialog), "sj-new-skill");
  g_autoptr(GError) error = NULL;
  SjSkill *skill;

  if (g_strcmp0 (response, "create") != 0)
    return;

  skill = _sj_skills_page_create (self, gtk_editable_get_text (GTK_EDITABLE (form->name)),
                                  gtk_editable_get_text (GTK_EDITABLE (form->title)), &error);
  if (skill == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Could not create the skill: %s"), error->message);

      _sj_skills_page_show_error (self, text);
      return;
    }
  open_markdown (self, skill);
}

static AdwEntryRow *
add_entry_row (GtkListBox *list,
               const char *title)
{
  GtkWidget *row = adw_entry_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_list_box_append (list, row);
  return ADW_ENTRY_ROW (row);
}

static void
new_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *param)
{
  SjSkillsPage *self = SJ_SKILLS_PAGE (widget);
  GtkWidget *dialog;
  GtkWidget *list = gtk_list_box_new ();
  NewSkill *form = g_new0 (NewSkill, 1);

  if (self->registry == NULL)
    return;

  dialog = adw_message_dialog_new (_sj_skills_page_get_window (self), _("New Skill"),
                                   _("A skill teaches the agent a style or a technique. It starts from a "
                                     "template that you then edit in your text editor."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "create", _("C_reate"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "create", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "create");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");

  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  form->title = add_entry_row (GTK_LIST_BOX (list), _("Title"));
  form->name = add_entry_row (GTK_LIST_BOX (list), _("Name: lowercase letters, digits and dashes"));
  adw_entry_row_set_activates_default (form->title, TRUE);
  adw_entry_row_set_activates_default (form->name, TRUE);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), list);
  g_object_set_data_full (G_OBJECT (dialog), "sj-new-skill", form, g_free);

  g_signal_connect_swapped (form->title, "changed", G_CALLBACK (new_title_changed_cb), dialog);
  g_signal_connect_swapped (form->name, "changed", G_CALLBACK (new_name_changed_cb), dialog);
  g_signal_connect_object (dialog, "response", G_CALLBACK (new_response_cb), self, G_CONNECT_SWAPPED);
  new_validate (ADW_MESSAGE_DIALOG (dialog));
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_widget_grab_focus (GTK_WIDGET (form->title));
}

/* Remove ---------------------------------------------------------------- */

static void
remove_response_cb (SjSkillsPage     *self,
                    const char       *response,
                    AdwMessageDialog *dialog)
{
  const char *name = g_object_get_data (G_OBJECT (dialog), "sj-name");
  const char *title = g_object_get_data (G_OBJECT (dialog), "sj-title");
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (g_strcmp0 (response, "remove") != 0)
    return;

  if (!sj_skill_registry_remove (self->registry, name, &error))
    {
      text = g_strdup_printf (_("Could not remove “%s”: %s"), title, error->message);
      _sj_skills_page_show_error (self, text);
      return;
    }

  text = g_strdup_printf (_("Removed “%s”"), title);
  _sj_skills_page_show_toast (self, text);
}

static void
remove_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  SjSkillsPage *self = SJ_SKILLS_PAGE (widget);
  GtkWidget *dialog;

  if (self->shown == NULL || sj_skill_get_origin (self->shown) != SJ_SKILL_ORIGIN_USER)
    return;

  /* TRANSLATORS: asks before deleting a skill, as in “Remove “Techno”?” */
  dialog = adw_message_dialog_new (_sj_skills_page_get_window (self), NULL, NULL);
  adw_message_dialog_format_heading (ADW_MESSAGE_DIALOG (dialog), _("Remove “%s”?"),
                                     sj_skill_get_title (self->shown));
  adw_message_dialog_set_body (ADW_MESSAGE_DIALOG (dialog),
                               sj_skill_get_overrides (self->shown)
                               ? _("Its folder and files are deleted, and the bundled skill it overrides is used "
                                   "again.")
                               : _("Its folder and files are deleted. Export it first to keep a copy."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "remove", _("_Remove"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "remove", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "sj-name", g_strdup (sj_skill_get_name (self->shown)), g_free);
  g_object_set_data_full (G_OBJECT (dialog), "sj-title", g_strdup (sj_skill_get_title (self->shown)), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (remove_response_cb), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* The rest -------------------------------------------------------------- */

static void
back_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  _sj_skills_page_show_list (SJ_SKILLS_PAGE (widget));
}

static void
dismiss_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  SjSkillsPage *self = SJ_SKILLS_PAGE (widget);

  gtk_revealer_set_reveal_child (self->error_revealer, FALSE);
}

static void
reload_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  SjSkillsPage *self = SJ_SKILLS_PAGE (widget);

  if (self->registry != NULL)
    sj_skill_registry_reload (self->registry);
}

/**
 * _sj_skills_page_update_actions:
 *
 * Enables what applies: a registry for the list's actions, a skill shown
 * for the detail's, one of the musician's own for Remove.
 */
void
_sj_skills_page_update_actions (SjSkillsPage *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean has_registry = self->registry != NULL;
  gboolean shown = self->shown != NULL;

  gtk_widget_action_set_enabled (widget, "skills.new", has_registry);
  gtk_widget_action_set_enabled (widget, "skills.import-zip", has_registry);
  gtk_widget_action_set_enabled (widget, "skills.import-folder", has_registry);
  gtk_widget_action_set_enabled (widget, "skills.reload", has_registry);
  gtk_widget_action_set_enabled (widget, "skills.open-folder", shown);
  gtk_widget_action_set_enabled (widget, "skills.edit", shown);
  gtk_widget_action_set_enabled (widget, "skills.export", shown);
  gtk_widget_action_set_enabled (widget, "skills.remove",
                                 shown && sj_skill_get_origin (self->shown) == SJ_SKILL_ORIGIN_USER);
}

void
_sj_skills_page_set_launch_hook (SjSkillsPage       *self,
                                 SjSkillsLaunchHook  hook,
                                 gpointer            user_data)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));

  self->launch_hook = hook;
  self->launch_hook_data = user_data;
}

void
_sj_skills_page_class_init_actions (GtkWidgetClass *widget_class)
{
  _sj_skills_page_class_init_transfer (widget_class);
  gtk_widget_class_install_action (widget_class, "skills.new", NULL, new_action);
  gtk_widget_class_install_action (widget_class, "skills.reload", NULL, reload_action);
  gtk_widget_class_install_action (widget_class, "skills.back", NULL, back_action);
  gtk_widget_class_install_action (widget_class, "skills.dismiss", NULL, dismiss_action);
  gtk_widget_class_install_action (widget_class, "skills.open-folder", NULL, open_folder_action);
  gtk_widget_class_install_action (widget_class, "skills.edit", NULL, edit_action);
  gtk_widget_class_install_action (widget_class, "skills.remove", NULL, remove_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "skills.back", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "skills.back", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_n, GDK_CONTROL_MASK, "skills.new", NULL);
}
