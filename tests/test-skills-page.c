/* test-skills-page.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjSkillsPage under Xvfb, over the fixture skills (tests/data/skills/
 * bundled) and a user root in a temporary directory holding one broken
 * skill: the list with the broken skill and its error, searching, the
 * switch that disables a skill in the registry, the detail view rendering
 * SKILL.md, importing a good .zip (a row more, a toast), a hostile one
 * (the error shown, nothing added) and one of a name already taken (asks,
 * then replaces), New Skill through its dialog, editing a bundled skill
 * as a copy, exporting, removing, and an accessible name on every control
 * (GTK_A11Y=test keeps the properties without an accessibility bus).
 *
 * Launching other apps is replaced by a hook that records what would have
 * been opened. Every wait spins the main loop until what is waited for
 * holds.
 */

#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <archive.h>
#include <archive_entry.h>
#include <glib/gstdio.h>

#include "sj-markdown-view-private.h"
#include "sj-resources.h"
#include "sj-skill-row.h"
#include "sj-skills-page-private.h"
#include "sj-test-widgets.h"

#define FIXTURES SJ_TEST_DATA "/skills"
#define TIMEOUT_S 30

static const char good_json[] =
  "{\"name\": \"good\", \"title\": \"Good\", \"description\": \"A good skill.\", \"version\": \"1.0.0\","
  " \"tags\": [\"genre\"], \"triggers\": [\"good\"], \"priority\": 50}";
static const char good_markdown[] = "# Good\n\n## Rules\n\n- Be good.\n\n## Examples\n\nNone.\n";

typedef struct
{
  char            *dir;
  char            *user_root;
  SjSkillRegistry *registry;
  SjTestKeyWindow  keys;     /* the window, which takes real key presses */
  SjSkillsPage    *page;
  GPtrArray       *launched;  /* paths the page asked to open */
} Fixture;

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *)data = TRUE;
  return G_SOURCE_REMOVE;
}

#define SPIN_UNTIL(condition) G_STMT_START { \
    gboolean timed_out_ = FALSE; \
    guint timeout_id_ = g_timeout_add_seconds (TIMEOUT_S, timeout_cb, &timed_out_); \
    while (!(condition)) \
      { \
        if (timed_out_) \
          g_error ("Timed out waiting for %s", #condition); \
        g_main_context_iteration (NULL, TRUE); \
      } \
    g_source_remove (timeout_id_); \
  } G_STMT_END

/* Files and archives ------------------------------------------------------ */

static la_ssize_t
append_cb (struct archive *archive,
           void           *data,
           const void     *buffer,
           size_t          length)
{
  g_byte_array_append (data, buffer, length);
  return length;
}

/* A .zip of @paths and @contents, pairs ending with NULL. */
static GFile *
make_zip (Fixture    *fixture,
          const char *file_name,
          ...)
{
  g_autoptr(GByteArray) zip = g_byte_array_new ();
  g_autofree char *path = g_build_filename (fixture->dir, file_name, NULL);
  struct archive *archive = archive_write_new ();
  struct archive_entry *entry = archive_entry_new ();
  const char *name;
  va_list args;

  archive_write_set_format_zip (archive);
  archive_write_set_bytes_in_last_block (archive, 1);
  g_assert_cmpint (archive_write_open (archive, zip, NULL, append_cb, NULL), ==, ARCHIVE_OK);
  va_start (args, file_name);
  while ((name = va_arg (args, const char *)) != NULL)
    {
      const char *data = va_arg (args, const char *);

      archive_entry_clear (entry);
      archive_entry_set_pathname (entry, name);
      archive_entry_set_filetype (entry, AE_IFREG);
      archive_entry_set_perm (entry, 0644);
      archive_entry_set_size (entry, strlen (data));
      g_assert_cmpint (archive_write_header (archive, entry), ==, ARCHIVE_OK);
      archive_write_data (archive, data, strlen (data));
    }
  va_end (args);
  archive_write_close (archive);
  archive_entry_free (entry);
  archive_write_free (archive);

  g_assert_true (g_file_set_contents (path, (const char *)zip->data, zip->len, NULL));
  return g_file_new_for_path (path);
}

static guint
count_user_entries (Fixture *fixture)
{
  g_autoptr(GDir) dir = g_dir_open (fixture->user_root, 0, NULL);
  guint n = 0;

  while (dir != NULL && g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* Widgets ----------------------------------------------------------------- */

static guint
count_rows (Fixture *fixture)
{
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (_sj_skills_page_get_list (fixture->page)));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += SJ_IS_SKILL_ROW (child);

  return n;
}

static SjSkillRow *
find_row (Fixture    *fixture,
          const char *name)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (_sj_skills_page_get_list (fixture->page)));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (SJ_IS_SKILL_ROW (child) && g_str_equal (sj_skill_get_name (sj_skill_row_get_skill (SJ_SKILL_ROW (child))), name))
      return SJ_SKILL_ROW (child);

  return NULL;
}

static GtkWidget *
template_child (Fixture    *fixture,
                const char *name)
{
  return GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (fixture->page), SJ_TYPE_SKILLS_PAGE, name));
}

static const char *
visible_page (Fixture *fixture)
{
  return gtk_stack_get_visible_child_name (GTK_STACK (template_child (fixture, "stack")));
}

static gboolean
has_label_containing (GtkWidget  *root,
                      const char *text)
{
  if (GTK_IS_LABEL (root) && strstr (gtk_label_get_text (GTK_LABEL (root)), text) != NULL)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (has_label_containing (child, text))
      return TRUE;

  return FALSE;
}

/* The message dialog the page presented, if any. */
static AdwMessageDialog *
find_dialog (void)
{
  g_autoptr(GList) toplevels = gtk_window_list_toplevels ();

  for (GList *l = toplevels; l != NULL; l = l->next)
    if (ADW_IS_MESSAGE_DIALOG (l->data) && gtk_widget_get_visible (l->data))
      return l->data;

  return NULL;
}

static void
collect_entry_rows (GtkWidget *root,
                    GPtrArray *rows)
{
  if (ADW_IS_ENTRY_ROW (root))
    g_ptr_array_add (rows, root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    collect_entry_rows (child, rows);
}

static void
clear_toast (Fixture *fixture)
{
  g_clear_pointer (&fixture->page->last_toast, g_free);
}

/* Fixture ----------------------------------------------------------------- */

static void
launch_hook (GFile    *file,
             gpointer  user_data)
{
  g_ptr_array_add (user_data, g_file_get_path (file));
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *broken = NULL;
  g_autofree char *broken_json = NULL;

  fixture->dir = g_dir_make_tmp ("sj-skills-page-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->user_root = g_build_filename (fixture->dir, "user", NULL);
  broken = g_build_filename (fixture->user_root, "broken", NULL);
  broken_json = g_build_filename (broken, "skill.json", NULL);
  g_assert_cmpint (g_mkdir_with_parents (broken, 0755), ==, 0);
  g_assert_true (g_file_set_contents (broken_json, "{\"name\": \"broken\",", -1, NULL));

  fixture->registry = sj_skill_registry_new_for_roots (FIXTURES "/bundled", fixture->user_root, NULL);
  fixture->launched = g_ptr_array_new_with_free_func (g_free);
  fixture->page = g_object_ref_sink (g_object_new (SJ_TYPE_SKILLS_PAGE, NULL));
  _sj_skills_page_set_launch_hook (fixture->page, launch_hook, fixture->launched);
  sj_skills_page_set_registry (fixture->page, fixture->registry);

  sj_test_key_window_open (&fixture->keys, GTK_WIDGET (fixture->page), 420, 800, TIMEOUT_S);
  SPIN_UNTIL (gtk_widget_get_mapped (GTK_WIDGET (fixture->page)));
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  AdwMessageDialog *dialog;

  while ((dialog = find_dialog ()) != NULL)
    gtk_window_destroy (GTK_WINDOW (dialog));
  sj_test_key_window_close (&fixture->keys);
  g_clear_object (&fixture->page);
  g_clear_object (&fixture->registry);
  g_ptr_array_unref (fixture->launched);

  {
    g_autofree char *command = g_strdup_printf ("rm -rf '%s'", fixture->dir);
    g_assert_cmpint (system (command), ==, 0);
  }
  g_free (fixture->user_root);
  g_free (fixture->dir);
}

/* Tests ----------------------------------------------------------------- */

static void
save_screenshot (Fixture    *fixture,
                 const char *name)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;

  SPIN_UNTIL (!gtk_stack_get_transition_running (GTK_STACK (template_child (fixture, "stack"))));
  sj_test_wait_widget_frames (GTK_WIDGET (fixture->page), 3, TIMEOUT_S);
  texture = sj_test_render_widget (GTK_WIDGET (fixture->page));
  path = sj_test_save_png (texture, name);
  if (path != NULL)
    g_test_message ("%s", path);
}

static void
test_list (Fixture       *fixture,
           gconstpointer  data)
{
  SjSkillRow *jazz = find_row (fixture, "jazz");
  GtkWidget *errors_box = template_child (fixture, "errors_box");

  save_screenshot (fixture, "skills-page-list.png");

  g_assert_cmpuint (count_rows (fixture), ==, g_list_model_get_n_items (G_LIST_MODEL (fixture->registry)));
  g_assert_cmpuint (count_rows (fixture), ==, 6);
  g_assert_nonnull (jazz);
  g_assert_true (has_label_containing (GTK_WIDGET (jazz), "Jazz"));
  g_assert_true (has_label_containing (GTK_WIDGET (jazz), "Bundled"));
  g_assert_true (gtk_switch_get_active (sj_skill_row_get_switch (jazz)));

  /* The broken skill is listed with the loader's words. */
  g_assert_true (gtk_widget_get_visible (errors_box));
  g_assert_true (has_label_containing (errors_box, "broken"));
  g_assert_true (has_label_containing (errors_box, "SKILL.md") || has_label_containing (errors_box, "skill.json"));
}

static void
test_search (Fixture       *fixture,
             gconstpointer  data)
{
  GtkEditable *entry = GTK_EDITABLE (template_child (fixture, "search_entry"));
  GtkStack *results = GTK_STACK (template_child (fixture, "results_stack"));

  gtk_editable_set_text (entry, "jazz");
  SPIN_UNTIL (count_rows (fixture) == 1);
  g_assert_nonnull (find_row (fixture, "jazz"));
  g_assert_false (gtk_widget_get_visible (template_child (fixture, "errors_box")));

  gtk_editable_set_text (entry, "no such skill anywhere");
  SPIN_UNTIL (g_strcmp0 (gtk_stack_get_visible_child_name (results), "none") == 0);
  g_assert_cmpuint (count_rows (fixture), ==, 0);

  gtk_editable_set_text (entry, "");
  SPIN_UNTIL (count_rows (fixture) == 6);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (results), ==, "results");

  /* Enter opens the first skill found. */
  gtk_editable_set_text (entry, "dub");
  SPIN_UNTIL (count_rows (fixture) == 1);
  g_signal_emit_by_name (entry, "activate");
  g_assert_cmpstr (visible_page (fixture), ==, "detail");
  g_assert_cmpstr (sj_skill_get_name (_sj_skills_page_get_shown (fixture->page)), ==, "dub");
}

static void
test_switch (Fixture       *fixture,
             gconstpointer  data)
{
  SjSkillRow *jazz = find_row (fixture, "jazz");
  GtkSwitch *toggle = sj_skill_row_get_switch (jazz);
  g_autoptr(GPtrArray) matched = NULL;

  g_assert_true (sj_skill_registry_is_enabled (fixture->registry, "jazz"));
  gtk_widget_grab_focus (GTK_WIDGET (toggle));
  g_assert_true (gtk_widget_activate (GTK_WIDGET (toggle)));
  /* The switch slides before it changes. */
  SPIN_UNTIL (!gtk_switch_get_active (toggle));
  g_assert_false (sj_skill_registry_is_enabled (fixture->registry, "jazz"));
  matched = sj_skill_registry_match (fixture->registry, "some jazz please");
  for (guint i = 0; i < matched->len; i++)
    g_assert_cmpstr (sj_skill_get_name (g_ptr_array_index (matched, i)), !=, "jazz");

  /* The row stays (the keyboard stays on its switch) and follows the
   * registry both ways. */
  g_assert_true (find_row (fixture, "jazz") == jazz);
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (toggle)));
  sj_skill_registry_set_enabled (fixture->registry, "jazz", TRUE);
  g_assert_true (gtk_switch_get_active (toggle));
  g_assert_true (find_row (fixture, "jazz") == jazz);
}

static void
test_detail (Fixture       *fixture,
             gconstpointer  data)
{
  SjSkillRow *jazz = find_row (fixture, "jazz");
  SjMarkdownView *view = _sj_skills_page_get_markdown_view (fixture->page);
  SjSkill *skill = sj_skill_row_get_skill (jazz);

  g_signal_emit_by_name (_sj_skills_page_get_list (fixture->page), "row-activated", jazz);
  g_assert_cmpstr (visible_page (fixture), ==, "detail");
  /* SKILL.md, then the templates and patterns, each with Apply. */
  g_assert_true (g_str_has_prefix (_sj_markdown_view_get_text (view), sj_skill_get_markdown (skill)));
  g_assert_nonnull (strstr (_sj_markdown_view_get_text (view), "## Templates\n\n### Jazz trio\n\n```javascript\n"));
  g_assert_nonnull (strstr (_sj_markdown_view_get_text (view), "## Patterns\n\n### ii-V-I\n\nA cadence.\n"));
  _sj_markdown_view_flush (view);
  g_assert_true (has_label_containing (GTK_WIDGET (view), "Rules"));
  g_assert_true (has_label_containing (GTK_WIDGET (view), "Swing hats"));

  /* An example's Apply is the window's win.apply-code, as in the chat. */
  {
    g_autoptr(GPtrArray) applied = g_ptr_array_new_with_free_func (g_free);
    GtkWidget *apply = sj_test_find_by_class (GTK_WIDGET (view), "sj-code-apply");

    sj_test_catch_win_action (GTK_WIDGET (gtk_widget_get_root (GTK_WIDGET (fixture->page))), "apply-code", applied);
    g_assert_nonnull (apply);
    g_assert_true (gtk_widget_activate (apply));
    SPIN_UNTIL (applied->len > 0);
    g_assert_true (g_str_has_prefix (applied->pdata[0], "// Offline"));
  }
  g_assert_true (has_label_containing (template_child (fixture, "detail_title"), "Jazz"));
  g_assert_true (has_label_containing (template_child (fixture, "detail_meta"), "Bundled"));
  save_screenshot (fixture, "skills-page-detail.png");

  /* A bundled skill cannot be removed, only edited as a copy. */
  g_assert_false (gtk_widget_get_visible (template_child (fixture, "remove_button")));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (template_child (fixture, "edit_button"))), ==, "Edit a Copy");

  /* Escape goes back, with the keyboard on the skill's row. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->page), "skills.back", NULL));
  g_assert_cmpstr (visible_page (fixture), ==, "list");
  g_assert_null (_sj_skills_page_get_shown (fixture->page));
}

static void
test_import (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(GFile) good = make_zip (fixture, "good.zip", "good/skill.json", good_json, "good/SKILL.md", good_markdown, NULL);
  g_autoptr(GFile) evil = make_zip (fixture, "evil.zip", "good/skill.json", good_json, "good/SKILL.md", good_markdown,
                                    "../../evil", "evil", NULL);
  guint n_entries = count_user_entries (fixture);
  AdwMessageDialog *dialog;

  /* A hostile archive: the error is shown, nothing is added. */
  sj_skills_page_import (fixture->page, evil);
  SPIN_UNTIL (_sj_skills_page_get_error (fixture->page) != NULL);
  g_assert_nonnull (strstr (_sj_skills_page_get_error (fixture->page), "outside its folder (../../evil)"));
  g_assert_nonnull (strstr (_sj_skills_page_get_error (fixture->page), "nothing was imported"));
  g_assert_cmpuint (count_rows (fixture), ==, 6);
  g_assert_cmpuint (count_user_entries (fixture), ==, n_entries);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->page), "skills.dismiss", NULL));
  g_assert_null (_sj_skills_page_get_error (fixture->page));

  /* A good one: a row more, and a toast. */
  sj_skills_page_import (fixture->page, good);
  SPIN_UNTIL (_sj_skills_page_get_last_toast (fixture->page) != NULL);
  g_assert_cmpstr (_sj_skills_page_get_last_toast (fixture->page), ==, "Imported “Good”");
  g_assert_cmpuint (count_rows (fixture), ==, 7);
  g_assert_nonnull (find_row (fixture, "good"));
  g_assert_true (has_label_containing (GTK_WIDGET (find_row (fixture, "good")), "Yours"));

  /* Again: the page asks before replacing the musician's skill. */
  clear_toast (fixture);
  sj_skills_page_import (fixture->page, good);
  SPIN_UNTIL ((dialog = find_dialog ()) != NULL);
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "You already have a skill named “good”"));
  adw_message_dialog_response (dialog, "replace");
  SPIN_UNTIL (_sj_skills_page_get_last_toast (fixture->page) != NULL);
  g_assert_cmpstr (_sj_skills_page_get_last_toast (fixture->page), ==, "Imported “Good”");
  g_assert_cmpuint (count_rows (fixture), ==, 7);

  /* Broken by an edit while shown: back to the list, which says why. */
  g_assert_true (sj_skills_page_show_skill (fixture->page, "good"));
  {
    g_autofree char *json = g_build_filename (fixture->user_root, "good", "skill.json", NULL);

    g_assert_true (g_file_set_contents (json, "{\"name\": \"good\", \"title\": ", -1, NULL));
  }
  sj_skill_registry_reload (fixture->registry);
  g_assert_cmpstr (visible_page (fixture), ==, "list");
  g_assert_cmpuint (count_rows (fixture), ==, 6);
  g_assert_true (has_label_containing (template_child (fixture, "errors_box"), "Skill “good”: skill.json"));
}

static GtkDropTarget *
find_drop_target (Fixture *fixture)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (fixture->page));

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (controller))
        return GTK_DROP_TARGET (controller);
    }

  return NULL;
}

/* A .zip dropped on the page is imported. */
static void
test_drop (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(GFile) good = make_zip (fixture, "dropped.zip", "skill.json", good_json, "SKILL.md", good_markdown, NULL);
  GtkDropTarget *target = find_drop_target (fixture);
  g_auto(GValue) value = G_VALUE_INIT;
  GSList files = { good, NULL };
  gboolean accepted = FALSE;

  g_assert_nonnull (target);
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_set_boxed (&value, &files);
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &accepted);
  g_assert_true (accepted);
  SPIN_UNTIL (_sj_skills_page_get_last_toast (fixture->page) != NULL);
  g_assert_cmpstr (_sj_skills_page_get_last_toast (fixture->page), ==, "Imported “Good”");
  g_assert_nonnull (find_row (fixture, "good"));
}

static void
test_new (Fixture       *fixture,
          gconstpointer  data)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  g_autofree char *markdown = g_build_filename (fixture->user_root, "bossa-nova", "SKILL.md", NULL);
  AdwMessageDialog *dialog;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->page), "skills.new", NULL));
  SPIN_UNTIL ((dialog = find_dialog ()) != NULL);
  collect_entry_rows (GTK_WIDGET (dialog), rows);
  g_assert_cmpuint (rows->len, ==, 2);
  g_assert_false (adw_message_dialog_get_response_enabled (dialog, "create"));

  /* The name follows the title until it is edited. */
  gtk_editable_set_text (GTK_EDITABLE (g_ptr_array_index (rows, 0)), "Bossa Nová!");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (g_ptr_array_index (rows, 1))), ==, "bossa-nova");
  g_assert_true (adw_message_dialog_get_response_enabled (dialog, "create"));
  gtk_editable_set_text (GTK_EDITABLE (g_ptr_array_index (rows, 1)), "Not A Name");
  g_assert_false (adw_message_dialog_get_response_enabled (dialog, "create"));
  gtk_editable_set_text (GTK_EDITABLE (g_ptr_array_index (rows, 1)), "bossa-nova");
  gtk_editable_set_text (GTK_EDITABLE (g_ptr_array_index (rows, 0)), "Bossa \"Nova\"");
  g_assert_false (adw_message_dialog_get_response_enabled (dialog, "create"));
  gtk_editable_set_text (GTK_EDITABLE (g_ptr_array_index (rows, 0)), "Bossa Nova");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (g_ptr_array_index (rows, 1))), ==, "bossa-nova");
  adw_message_dialog_response (dialog, "create");

  /* Created from the template, shown, and opened in the editor. */
  g_assert_nonnull (sj_skill_registry_lookup (fixture->registry, "bossa-nova"));
  g_assert_cmpstr (visible_page (fixture), ==, "detail");
  g_assert_cmpstr (sj_skill_get_name (_sj_skills_page_get_shown (fixture->page)), ==, "bossa-nova");
  g_assert_cmpuint (fixture->launched->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (fixture->launched, 0), ==, markdown);
  g_assert_true (gtk_widget_get_visible (template_child (fixture, "remove_button")));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (template_child (fixture, "edit_button"))), ==, "Edit SKILL.md");
  g_assert_cmpuint (count_rows (fixture), ==, 7);
}

static void
test_edit_copy_export_remove (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autofree char *markdown = g_build_filename (fixture->user_root, "jazz", "SKILL.md", NULL);
  g_autofree char *zip_path = g_build_filename (fixture->dir, "jazz.zip", NULL);
  g_autoptr(GFile) zip = g_file_new_for_path (zip_path);
  g_autofree char *contents = NULL;
  gsize length = 0;
  AdwMessageDialog *dialog;

  g_assert_true (sj_skills_page_show_skill (fixture->page, "jazz"));
  g_assert_false (gtk_widget_activate_action (GTK_WIDGET (fixture->page), "skills.remove", NULL) &&
                  find_dialog () != NULL);

  /* Editing a bundled skill makes it the musician's. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->page), "skills.edit", NULL));
  g_assert_cmpuint (fixture->launched->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (fixture->launched, 0), ==, markdown);
  g_assert_cmpint (sj_skill_get_origin (_sj_skills_page_get_shown (fixture->page)), ==, SJ_SKILL_ORIGIN_USER);
  g_assert_true (sj_skill_get_overrides (_sj_skills_page_get_shown (fixture->page)));
  g_assert_true (has_label_containing (template_child (fixture, "detail_meta"), "overrides the bundled skill"));

  /* Open Folder. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->page), "skills.open-folder", NULL));
  g_assert_cmpuint (fixture->launched->len, ==, 2);
  g_assert_true (g_str_has_suffix (g_ptr_array_index (fixture->launched, 1), "/user/jazz"));

  /* Export. */
  clear_toast (fixture);
  _sj_skills_page_export (fixture->page, zip);
  SPIN_UNTIL (_sj_skills_page_get_last_toast (fixture->page) != NULL);
  g_assert_cmpstr (_sj_skills_page_get_last_toast (fixture->page), ==, "Exported “Jazz”");
  g_assert_true (g_file_get_contents (zip_path, &contents, &length, NULL));
  g_assert_cmpuint (length, >, 100);
  g_assert_cmpmem (contents, 2, "PK", 2);

  /* Remove, confirmed: the bundled one is back. */
  clear_toast (fixture);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->page), "skills.remove", NULL));
  SPIN_UNTIL ((dialog = find_dialog ()) != NULL);
  adw_message_dialog_response (dialog, "remove");
  g_assert_cmpstr (_sj_skills_page_get_last_toast (fixture->page), ==, "Removed “Jazz”");
  g_assert_cmpint (sj_skill_get_origin (sj_skill_registry_lookup (fixture->registry, "jazz")), ==,
                   SJ_SKILL_ORIGIN_BUNDLED);
  g_assert_false (g_file_test (markdown, G_FILE_TEST_EXISTS));
}

#define PRESS(fixture, ...) sj_test_key_window_press (&(fixture)->keys, (const char *[]) { __VA_ARGS__, NULL })

/* The whole page from the keyboard, with real key presses: type a search,
 * Enter opens the skill, Escape comes back to its row, Tab reaches its
 * switch and Space turns it off, Ctrl+N asks for a new skill. */
static void
test_keyboard (Fixture       *fixture,
               gconstpointer  data)
{
  GtkWidget *search = template_child (fixture, "search_entry");
  SjSkillRow *row;
  AdwMessageDialog *dialog;

  sj_skills_page_focus_search (fixture->page);
  SPIN_UNTIL (gtk_widget_is_focus (gtk_root_get_focus (GTK_ROOT (fixture->keys.window))) &&
              gtk_widget_is_ancestor (gtk_root_get_focus (GTK_ROOT (fixture->keys.window)), search));
  PRESS (fixture, "j", "a", "z", "z");
  SPIN_UNTIL (count_rows (fixture) == 1);

  PRESS (fixture, "Return");
  g_assert_cmpstr (visible_page (fixture), ==, "detail");
  g_assert_cmpstr (sj_skill_get_name (_sj_skills_page_get_shown (fixture->page)), ==, "jazz");
  g_assert_true (gtk_widget_has_focus (template_child (fixture, "back_button")));

  PRESS (fixture, "Escape");
  g_assert_cmpstr (visible_page (fixture), ==, "list");
  row = find_row (fixture, "jazz");
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (row)));

  PRESS (fixture, "Tab");
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (sj_skill_row_get_switch (row))));
  PRESS (fixture, "space");
  SPIN_UNTIL (!sj_skill_registry_is_enabled (fixture->registry, "jazz"));

  /* The dialog takes the keyboard: no barrier key after this one. */
  sj_test_run_xdotool ((const char *[]) { "key", "ctrl+n", NULL });
  SPIN_UNTIL ((dialog = find_dialog ()) != NULL);
  adw_message_dialog_response (dialog, "cancel");
  g_assert_null (sj_skill_registry_lookup (fixture->registry, "new"));
}

/* Every control has a name for screen readers: its label, or an
 * accessible label. */
static void
check_names (GtkWidget *root,
             guint     *n_checked)
{
  if (GTK_IS_BUTTON (root) || GTK_IS_MENU_BUTTON (root) || GTK_IS_SWITCH (root) || GTK_IS_SEARCH_ENTRY (root))
    {
      gboolean labelled = GTK_IS_BUTTON (root) && gtk_button_get_label (GTK_BUTTON (root)) != NULL &&
                          gtk_button_get_icon_name (GTK_BUTTON (root)) == NULL;

      if (!labelled && !gtk_test_accessible_has_property (GTK_ACCESSIBLE (root), GTK_ACCESSIBLE_PROPERTY_LABEL))
        g_error ("A %s has no accessible name", G_OBJECT_TYPE_NAME (root));
      (*n_checked)++;
      /* A menu button's inner button is named by the menu button. */
      if (GTK_IS_MENU_BUTTON (root))
        return;
    }

  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    check_names (child, n_checked);
}

static void
test_accessible (Fixture       *fixture,
                 gconstpointer  data)
{
  SjSkillRow *jazz = find_row (fixture, "jazz");
  guint n_checked = 0;

  g_assert_null (gtk_test_accessible_check_property (GTK_ACCESSIBLE (sj_skill_row_get_switch (jazz)),
                                                     GTK_ACCESSIBLE_PROPERTY_LABEL, "Enable Jazz"));
  g_assert_null (gtk_test_accessible_check_property (GTK_ACCESSIBLE (jazz), GTK_ACCESSIBLE_PROPERTY_LABEL, "Jazz"));
  g_assert_null (gtk_test_accessible_check_property (GTK_ACCESSIBLE (template_child (fixture, "new_button")),
                                                     GTK_ACCESSIBLE_PROPERTY_LABEL, "New Skill"));
  g_assert_null (gtk_test_accessible_check_property (GTK_ACCESSIBLE (template_child (fixture, "menu_button")),
                                                     GTK_ACCESSIBLE_PROPERTY_LABEL, "Import a Skill"));

  check_names (GTK_WIDGET (fixture->page), &n_checked);
  /* search, new, import, dismiss, 6 switches, back, 4 detail buttons */
  g_assert_cmpuint (n_checked, >=, 15);

  /* The keyboard reaches the list from the search. */
  sj_skills_page_focus_search (fixture->page);
  g_assert_true (gtk_widget_is_focus (template_child (fixture, "search_entry")) ||
                 gtk_widget_has_focus (gtk_widget_get_focus_child (template_child (fixture, "search_entry"))));
}

int
main (int   argc,
      char *argv[])
{
  /* No accessibility bus on the private session bus: GTK's test backend
   * keeps the accessible properties without one. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  sj_test_tolerate_gtk_snapshot_race ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  sj_register_resource ();

#define ADD(name, func) g_test_add ("/skills-page/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("list", test_list);
  ADD ("search", test_search);
  ADD ("switch", test_switch);
  ADD ("detail", test_detail);
  ADD ("import", test_import);
  ADD ("drop", test_drop);
  ADD ("new", test_new);
  ADD ("edit-copy-export-remove", test_edit_copy_export_remove);
  ADD ("accessible", test_accessible);
  ADD ("keyboard", test_keyboard);
#undef ADD

  return g_test_run ();
}
