/* sj-skills-page-transfer.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Skills in and out of the Skills page: Import (a .zip or a folder, from
 * the menu or dropped on the page, checked by SjSkillArchive before
 * anything is written; a skill of the musician's of the same name is
 * replaced only once they agree) and Export (a .zip of the skill's
 * folder, to share it).
 *
 * Files are chosen with GtkFileChooserNative, which goes through the
 * portal in a Flatpak, so a file anywhere can be read or written.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-skill-archive.h"
#include "sj-skills-page-private.h"

/* Import ---------------------------------------------------------------- */

static void import_with (SjSkillsPage *self,
                         GFile        *source,
                         gboolean      replace);

static void
replace_response_cb (SjSkillsPage     *self,
                     const char       *response,
                     AdwMessageDialog *dialog)
{
  GFile *source = g_object_get_data (G_OBJECT (dialog), "sj-source");

  if (g_strcmp0 (response, "replace") == 0)
    import_with (self, source, TRUE);
}

static void
confirm_replace (SjSkillsPage *self,
                 GFile        *source,
                 const char   *message)
{
  GtkWidget *dialog;

  dialog = adw_message_dialog_new (_sj_skills_page_get_window (self), _("Replace Your Skill?"), NULL);
  /* TRANSLATORS: the first sentence says which skill exists already */
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  _("%s. Replacing it deletes its files and keeps the imported ones."), message);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"),
                                    "replace", _("_Replace"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "replace", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "sj-source", g_object_ref (source), g_object_unref);
  g_signal_connect_object (dialog, "response", G_CALLBACK (replace_response_cb), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

typedef struct
{
  SjSkillsPage *page;
  GFile        *source;
} Import;

static void
import_free (Import *import)
{
  g_object_unref (import->page);
  g_object_unref (import->source);
  g_free (import);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Import, import_free)

static void
imported_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(Import) import = user_data;
  SjSkillsPage *self = import->page;
  g_autoptr(GError) error = NULL;
  g_autoptr(SjSkill) skill = NULL;
  g_autofree char *text = NULL;

  skill = sj_skill_archive_import_finish (SJ_SKILL_REGISTRY (object), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (g_error_matches (error, SJ_SKILL_ARCHIVE_ERROR, SJ_SKILL_ARCHIVE_ERROR_EXISTS))
    {
      confirm_replace (self, import->source, error->message);
      return;
    }
  if (skill == NULL)
    {
      _sj_skills_page_show_error (self, error->message);
      return;
    }

  if (sj_skill_get_overrides (skill))
    text = g_strdup_printf (_("Imported “%s”: it overrides the bundled skill"), sj_skill_get_title (skill));
  else
    text = g_strdup_printf (_("Imported “%s”"), sj_skill_get_title (skill));
  gtk_revealer_set_reveal_child (self->error_revealer, FALSE);
  _sj_skills_page_show_toast (self, text);
}

static void
import_with (SjSkillsPage *self,
             GFile        *source,
             gboolean      replace)
{
  Import *import;

  g_assert (SJ_IS_SKILLS_PAGE (self));

  if (self->registry == NULL)
    return;
  import = g_new0 (Import, 1);
  import->page = g_object_ref (self);
  import->source = g_object_ref (source);
  sj_skill_archive_import_async (self->registry, source, replace, self->cancellable, imported_cb, import);
}

/**
 * sj_skills_page_import:
 * @source: a .zip or a skill's folder
 *
 * Imports a skill, saying in a toast what was imported or, in the page's
 * message, why nothing was; asks before replacing a skill of the
 * musician's of the same name.
 */
void
sj_skills_page_import (SjSkillsPage *self,
                       GFile        *source)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));
  g_return_if_fail (G_IS_FILE (source));

  import_with (self, source, FALSE);
}

void
_sj_skills_page_close_chooser (SjSkillsPage *self)
{
  if (self->chooser == NULL)
    return;
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);
}

static void
import_response_cb (SjSkillsPage         *self,
                    int                   response,
                    GtkFileChooserNative *chooser)
{
  g_autoptr(GFile) file = NULL;

  g_assert (SJ_IS_SKILLS_PAGE (self));

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  if (chooser == self->chooser)
    g_clear_object (&self->chooser);
  if (file != NULL)
    sj_skills_page_import (self, file);
}

static void
import_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  SjSkillsPage *self = SJ_SKILLS_PAGE (widget);
  gboolean folder = g_str_equal (action_name, "skills.import-folder");

  _sj_skills_page_close_chooser (self);
  self->chooser = gtk_file_chooser_native_new (folder ? _("Import a Skill’s Folder") : _("Import a Skill"),
                                               _sj_skills_page_get_window (self),
                                               folder ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER
                                                      : GTK_FILE_CHOOSER_ACTION_OPEN,
                                               _("_Import"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  if (!folder)
    {
      g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

      gtk_file_filter_set_name (filter, _("Skill archives (.zip)"));
      gtk_file_filter_add_pattern (filter, "*.zip");
      gtk_file_filter_add_mime_type (filter, "application/zip");
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->chooser), filter);
    }
  g_signal_connect_object (self->chooser, "response", G_CALLBACK (import_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

/* A .zip or a folder dropped on the page is imported, as from the menu. */
static gboolean
drop_cb (SjSkillsPage  *self,
         const GValue  *value,
         double         x,
         double         y,
         GtkDropTarget *target)
{
  GSList *files;

  g_assert (SJ_IS_SKILLS_PAGE (self));

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST) || self->registry == NULL)
    return FALSE;
  files = g_value_get_boxed (value);
  for (GSList *l = files; l != NULL; l = l->next)
    sj_skills_page_import (self, l->data);

  return files != NULL;
}

/**
 * _sj_skills_page_init_transfer:
 *
 * Lets the page take files dropped on it.
 */
void
_sj_skills_page_init_transfer (SjSkillsPage *self)
{
  GtkDropTarget *target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

  g_signal_connect_object (target, "drop", G_CALLBACK (drop_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (target));
}

/* Export ---------------------------------------------------------------- */

static void
exported_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(SjSkillsPage) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!sj_skill_archive_export_finish (SJ_SKILL (object), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _sj_skills_page_show_error (self, error->message);
      return;
    }

  text = g_strdup_printf (_("Exported “%s”"), sj_skill_get_title (SJ_SKILL (object)));
  _sj_skills_page_show_toast (self, text);
}

/**
 * _sj_skills_page_export:
 * @target: the .zip to write
 *
 * Exports the skill shown, as the Export… button does once a file is
 * chosen.
 */
void
_sj_skills_page_export (SjSkillsPage *self,
                        GFile        *target)
{
  g_assert (SJ_IS_SKILLS_PAGE (self));

  if (self->shown != NULL)
    sj_skill_archive_export_async (self->shown, target, self->cancellable, exported_cb, g_object_ref (self));
}

static void
export_response_cb (SjSkillsPage         *self,
                    int                   response,
                    GtkFileChooserNative *chooser)
{
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  if (chooser == self->chooser)
    g_clear_object (&self->chooser);
  if (file != NULL)
    _sj_skills_page_export (self, file);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  SjSkillsPage *self = SJ_SKILLS_PAGE (widget);
  g_autofree char *name = NULL;

  if (self->shown == NULL)
    return;

  _sj_skills_page_close_chooser (self);
  self->chooser = gtk_file_chooser_native_new (_("Export the Skill"), _sj_skills_page_get_window (self),
                                               GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  name = g_strdup_printf ("%s.zip", sj_skill_get_name (self->shown));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->chooser), name);
  g_signal_connect_object (self->chooser, "response", G_CALLBACK (export_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

void
_sj_skills_page_class_init_transfer (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "skills.import-zip", NULL, import_action);
  gtk_widget_class_install_action (widget_class, "skills.import-folder", NULL, import_action);
  gtk_widget_class_install_action (widget_class, "skills.export", NULL, export_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "skills.import-zip", NULL);
}
