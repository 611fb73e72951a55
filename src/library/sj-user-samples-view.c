/* sj-user-samples-view.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The user's folders of samples, on the Sounds page under "User": "Add a
 * Folder of Samples…" (GtkFileChooserNative, which goes through the file
 * chooser portal in a Flatpak: GTK 4.8 has no GtkFileDialog), the folders
 * with their sounds and a Remove button each, and a message naming the
 * files that cannot be played and why. The sounds themselves are listed by
 * the page like any other, once the Strudel page has registered them.
 *
 * It shows what SjUserSamples holds and rebuilds its rows on every
 * SjUserSamples::changed; adding, reading again and removing are the
 * widget's actions "user-samples.add-folder", "user-samples.rescan-folder"
 * and "user-samples.remove-folder" (a folder id).
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sj-user-samples-view-private.h"

/* What the rows name at most, so that a folder of thousands stays readable. */
#define MAX_LISTED_SOUNDS   40
#define MAX_LISTED_PROBLEMS 50
#define MAX_MESSAGE_FILES   3

struct _SjUserSamplesView
{
  GtkWidget             parent_instance;

  SjUserSamples        *samples;
  GtkFileChooserNative *chooser;

  /* Template widgets */
  GtkWidget            *folder_scroller;
  GtkListBox           *folder_list;
  GtkLabel             *problems_label;
  GtkLabel             *error_label;
  GtkWidget            *add_button;
};

G_DEFINE_FINAL_TYPE (SjUserSamplesView, sj_user_samples_view, GTK_TYPE_WIDGET)

static void
show_error (SjUserSamplesView *self,
            const char        *message)
{
  gtk_label_set_text (self->error_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), message != NULL);
}

/* Rows --------------------------------------------------------------------- */

static GtkWidget *
detail_row (const char *title,
            const char *subtitle)
{
  GtkWidget *row = adw_action_row_new ();

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 0);
  adw_preferences_row_set_title_selectable (ADW_PREFERENCES_ROW (row), TRUE);
  return row;
}

/* "big_drums (4), café (2), …" of the sounds @keep picks. */
static char *
list_sounds (GPtrArray *sounds,
             gboolean (*keep) (const SjUserSound *sound))
{
  g_autoptr(GString) list = g_string_new (NULL);
  guint listed = 0, kept = 0;

  for (guint i = 0; sounds != NULL && i < sounds->len; i++)
    {
      const SjUserSound *sound = g_ptr_array_index (sounds, i);

      if (keep != NULL && !keep (sound))
        continue;
      kept++;
      if (listed >= MAX_LISTED_SOUNDS)
        continue;
      if (listed++ > 0)
        g_string_append (list, _(", "));
      /* TRANSLATORS: a sound and how many files it has: "kick (4)" */
      g_string_append_printf (list, _("%s (%u)"), sound->name, sound->files->len);
    }
  if (kept > listed)
    g_string_append (list, _(", …"));

  return kept > 0 ? g_string_free (g_steal_pointer (&list), FALSE) : NULL;
}

static gboolean
sound_replaces (const SjUserSound *sound)
{
  return sound->replaces;
}

static gboolean
sound_not_writable (const SjUserSound *sound)
{
  return !sound->writable;
}

static char *
describe_folder (SjUserFolder *folder)
{
  GPtrArray *sounds = sj_user_folder_get_sounds (folder);
  guint n_sounds = sounds != NULL ? sounds->len : 0;
  guint n_files = sj_user_folder_get_n_files (folder);
  guint n_problems = sj_user_folder_get_n_problems (folder);
  g_autofree char *counts = NULL;
  g_autofree char *sounds_text = NULL;
  g_autofree char *files_text = NULL;

  switch (sj_user_folder_get_state (folder))
    {
    case SJ_USER_FOLDER_SCANNING:
      return g_strdup (_("Reading the folder…"));
    case SJ_USER_FOLDER_FAILED:
      return g_strdup (sj_user_folder_get_error (folder)->message);
    case SJ_USER_FOLDER_READY:
    default:
      break;
    }

  sounds_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u sound", "%u sounds", n_sounds), n_sounds);
  files_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u file", "%u files", n_files), n_files);
  /* TRANSLATORS: "3 sounds, 12 files" */
  counts = g_strdup_printf (_("%s, %s"), sounds_text, files_text);
  if (n_problems == 0)
    return g_steal_pointer (&counts);
  /* TRANSLATORS: "3 sounds, 12 files" and how many files cannot be played */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s · %u cannot be played", "%s · %u cannot be played",
                                       n_problems), counts, n_problems);
}

static GtkWidget *
folder_row (SjUserFolder *folder)
{
  GtkWidget *row = adw_expander_row_new ();
  GtkWidget *remove = gtk_button_new_from_icon_name ("user-trash-symbolic");
  GtkWidget *rescan = gtk_button_new_from_icon_name ("view-refresh-symbolic");
  GPtrArray *sounds = sj_user_folder_get_sounds (folder);
  GPtrArray *problems = sj_user_folder_get_problems (folder);
  g_autofree char *subtitle = describe_folder (folder);
  g_autofree char *remove_label = NULL;
  g_autofree char *rescan_label = NULL;
  g_autofree char *listed = NULL;
  guint n_problems = sj_user_folder_get_n_problems (folder);

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), sj_user_folder_get_name (folder));
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), subtitle);
  gtk_widget_set_tooltip_text (row, sj_user_folder_get_uri (folder));

  /* An action added later comes first: Read Again, then the trash at the
   * end, next to the row's arrow. */
  gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (remove, "flat");
  gtk_widget_set_tooltip_text (remove, _("Remove Folder"));
  /* TRANSLATORS: the accessible name of a folder's Remove button */
  remove_label = g_strdup_printf (_("Remove “%s”"), sj_user_folder_get_name (folder));
  gtk_accessible_update_property (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_PROPERTY_LABEL, remove_label, -1);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (remove), "user-samples.remove-folder");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (remove), "s", sj_user_folder_get_id (folder));
  adw_expander_row_add_action (ADW_EXPANDER_ROW (row), remove);

  gtk_widget_set_valign (rescan, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (rescan, "flat");
  gtk_widget_set_tooltip_text (rescan, _("Read Folder Again"));
  /* TRANSLATORS: the accessible name of a folder's Read Again button */
  rescan_label = g_strdup_printf (_("Read “%s” again"), sj_user_folder_get_name (folder));
  gtk_accessible_update_property (GTK_ACCESSIBLE (rescan), GTK_ACCESSIBLE_PROPERTY_LABEL, rescan_label, -1);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (rescan), "user-samples.rescan-folder");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (rescan), "s", sj_user_folder_get_id (folder));
  adw_expander_row_add_action (ADW_EXPANDER_ROW (row), rescan);

  if ((listed = list_sounds (sounds, NULL)) != NULL)
    adw_expander_row_add_row (ADW_EXPANDER_ROW (row), detail_row (_("Sounds"), listed));
  g_clear_pointer (&listed, g_free);
  if ((listed = list_sounds (sounds, sound_replaces)) != NULL)
    {
      /* TRANSLATORS: %s lists sounds, e.g. "bd (2), sd (1)" */
      g_autofree char *text = g_strdup_printf (_("%s: these play your files instead of the built-in sounds of "
                                                 "the same names, as a later samples() call does in Strudel"),
                                               listed);

      adw_expander_row_add_row (ADW_EXPANDER_ROW (row), detail_row (_("Replaces Built-in Sounds"), text));
    }
  g_clear_pointer (&listed, g_free);
  if ((listed = list_sounds (sounds, sound_not_writable)) != NULL)
    {
      /* TRANSLATORS: %s lists sounds whose names have characters such as "%" or ":" */
      g_autofree char *text = g_strdup_printf (_("%s: mini-notation cannot write these names; "
                                                 "rename their folders with letters, digits, “-”, “_” or “.”"),
                                               listed);

      adw_expander_row_add_row (ADW_EXPANDER_ROW (row), detail_row (_("Names s(\"…\") Cannot Play"), text));
    }

  for (guint i = 0; problems != NULL && i < MIN (problems->len, MAX_LISTED_PROBLEMS); i++)
    {
      const SjUserSampleProblem *problem = g_ptr_array_index (problems, i);
      g_autofree char *why = sj_user_sample_problem_describe (problem);

      adw_expander_row_add_row (ADW_EXPANDER_ROW (row), detail_row (problem->path, why));
    }
  if (n_problems > MAX_LISTED_PROBLEMS)
    {
      /* TRANSLATORS: more files that cannot be played than are listed */
      g_autofree char *more = g_strdup_printf (_("and %u more that cannot be played"),
                                               n_problems - MAX_LISTED_PROBLEMS);

      adw_expander_row_add_row (ADW_EXPANDER_ROW (row), detail_row (more, NULL));
    }

  g_object_set_data_full (G_OBJECT (row), "sj-folder-id", g_strdup (sj_user_folder_get_id (folder)), g_free);
  return row;
}

/* Returns: (transfer full) (nullable): the id of the folder whose row has
 * the keyboard focus */
static char *
dup_focused_folder (SjUserSamplesView *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  for (; focus != NULL && focus != GTK_WIDGET (self->folder_list); focus = gtk_widget_get_parent (focus))
    if (g_object_get_data (G_OBJECT (focus), "sj-folder-id") != NULL)
      return g_strdup (g_object_get_data (G_OBJECT (focus), "sj-folder-id"));
  return NULL;
}

static void
rebuild (SjUserSamplesView *self)
{
  g_autoptr(GString) message = g_string_new (NULL);
  g_autofree char *focused = dup_focused_folder (self);
  GtkWidget *child;
  guint n = self->samples != NULL ? sj_user_samples_get_n_folders (self->samples) : 0;

  /* A row that has the focus is not taken away with it: the window would
   * keep a widget that is gone as its focus, and lose the next key. */
  if (focused != NULL)
    gtk_widget_grab_focus (self->add_button);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->folder_list))) != NULL)
    gtk_list_box_remove (self->folder_list, child);

  for (guint i = 0; i < n; i++)
    {
      SjUserFolder *folder = sj_user_samples_get_folder (self->samples, i);
      g_autofree char *problems = sj_user_folder_describe_problems (folder, MAX_MESSAGE_FILES);

      GtkWidget *row = folder_row (folder);

      gtk_list_box_append (self->folder_list, row);
      /* The keyboard stays on the folder it was on. */
      if (focused != NULL && g_str_equal (focused, sj_user_folder_get_id (folder)))
        gtk_widget_grab_focus (row);
      if (problems == NULL)
        continue;
      if (message->len > 0)
        g_string_append_c (message, '\n');
      /* TRANSLATORS: a folder's name and what cannot be played in it */
      g_string_append_printf (message, _("In “%s”, %s"), sj_user_folder_get_name (folder), problems);
    }

  gtk_widget_set_visible (self->folder_scroller, n > 0);
  gtk_label_set_text (self->problems_label, message->str);
  gtk_widget_set_visible (GTK_WIDGET (self->problems_label), message->len > 0);
}

/* Actions ------------------------------------------------------------------ */

static void
chooser_response_cb (SjUserSamplesView    *self,
                     int                   response,
                     GtkFileChooserNative *chooser)
{
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GError) error = NULL;

  g_assert (SJ_IS_USER_SAMPLES_VIEW (self));

  if (response == GTK_RESPONSE_ACCEPT)
    folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  if (chooser == self->chooser)
    g_clear_object (&self->chooser);

  if (folder == NULL || self->samples == NULL)
    return;
  show_error (self, NULL);
  if (sj_user_samples_add_folder (self->samples, folder, &error) == NULL)
    show_error (self, error->message);
}

static void
add_folder_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  SjUserSamplesView *self = SJ_USER_SAMPLES_VIEW (widget);
  GtkRoot *root = gtk_widget_get_root (widget);

  /* One chooser at a time: asking again replaces it. */
  if (self->chooser != NULL)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
      g_clear_object (&self->chooser);
    }

  self->chooser = gtk_file_chooser_native_new (_("Add a Folder of Samples"),
                                               GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                               GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                               _("_Add"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect_object (self->chooser, "response", G_CALLBACK (chooser_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
rescan_folder_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  SjUserSamplesView *self = SJ_USER_SAMPLES_VIEW (widget);

  if (self->samples != NULL)
    sj_user_samples_rescan_folder (self->samples, g_variant_get_string (param, NULL));
}

typedef struct
{
  SjUserSamplesView *self;
  char              *id;
} Removal;

static gboolean
remove_folder_cb (gpointer data)
{
  Removal *removal = data;
  SjUserSamplesView *self = removal->self;

  if (self->samples != NULL)
    sj_user_samples_remove_folder (self->samples, removal->id);
  show_error (self, NULL);

  g_object_unref (removal->self);
  g_free (removal->id);
  g_free (removal);
  return G_SOURCE_REMOVE;
}

/* The button that asked is in the row that goes: it is taken away once
 * the button has finished handling its click or key. */
static void
remove_folder_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  Removal *removal = g_new0 (Removal, 1);

  removal->self = g_object_ref (SJ_USER_SAMPLES_VIEW (widget));
  removal->id = g_variant_dup_string (param, NULL);
  g_idle_add (remove_folder_cb, removal);
}

/* GObject ------------------------------------------------------------------ */

static void
sj_user_samples_view_dispose (GObject *object)
{
  SjUserSamplesView *self = (SjUserSamplesView *)object;
  GtkWidget *child;

  if (self->chooser != NULL)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
      g_clear_object (&self->chooser);
    }
  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_USER_SAMPLES_VIEW);
  /* The template's box has no id, so dispose_template() leaves it. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->samples);

  G_OBJECT_CLASS (sj_user_samples_view_parent_class)->dispose (object);
}

static void
sj_user_samples_view_class_init (SjUserSamplesViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_user_samples_view_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/strudeljam/StrudelJam/ui/sj-user-samples-view.ui");
  gtk_widget_class_bind_template_child (widget_class, SjUserSamplesView, folder_scroller);
  gtk_widget_class_bind_template_child (widget_class, SjUserSamplesView, folder_list);
  gtk_widget_class_bind_template_child (widget_class, SjUserSamplesView, problems_label);
  gtk_widget_class_bind_template_child (widget_class, SjUserSamplesView, error_label);
  gtk_widget_class_bind_template_child (widget_class, SjUserSamplesView, add_button);

  gtk_widget_class_install_action (widget_class, "user-samples.add-folder", NULL, add_folder_action);
  gtk_widget_class_install_action (widget_class, "user-samples.remove-folder", "s", remove_folder_action);
  gtk_widget_class_install_action (widget_class, "user-samples.rescan-folder", "s", rescan_folder_action);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjusersamplesview");
}

static void
sj_user_samples_view_init (SjUserSamplesView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "user-samples.add-folder", FALSE);
}

/**
 * sj_user_samples_view_set_samples:
 *
 * Shows @samples' folders and adds to them; set once.
 */
void
sj_user_samples_view_set_samples (SjUserSamplesView *self,
                                  SjUserSamples     *samples)
{
  g_assert (SJ_IS_USER_SAMPLES_VIEW (self));
  g_return_if_fail (SJ_IS_USER_SAMPLES (samples));
  g_return_if_fail (self->samples == NULL);

  self->samples = g_object_ref (samples);
  g_signal_connect_object (samples, "changed", G_CALLBACK (rebuild), self, G_CONNECT_SWAPPED);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "user-samples.add-folder", TRUE);
  rebuild (self);
}

/* Returns: (transfer none) (nullable): the file chooser while it is open */
GtkFileChooserNative *
_sj_user_samples_view_get_chooser (SjUserSamplesView *self)
{
  g_assert (SJ_IS_USER_SAMPLES_VIEW (self));

  return self->chooser;
}

/* Returns: (transfer none): the message naming what cannot be played */
GtkLabel *
_sj_user_samples_view_get_problems_label (SjUserSamplesView *self)
{
  g_assert (SJ_IS_USER_SAMPLES_VIEW (self));

  return self->problems_label;
}

/* Returns: (transfer none): the folders' rows */
GtkListBox *
_sj_user_samples_view_get_folder_list (SjUserSamplesView *self)
{
  g_assert (SJ_IS_USER_SAMPLES_VIEW (self));

  return self->folder_list;
}
