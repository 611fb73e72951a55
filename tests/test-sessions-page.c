/* test-sessions-page.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjSessionsPage under Xvfb, over a real SQLite history in a temporary
 * directory: the sessions listed newest first, renaming, deleting with an
 * Undo toast (the store deletes only once the toast is gone), exporting to
 * Markdown, the code timeline with its Revert buttons, and the signals the
 * window listens to.
 *
 * Every wait spins the main loop until what is waited for holds.
 */

#include "config.h"

#include <math.h>
#include <adwaita.h>
#include <glib/gstdio.h>

#include "sj-code-timeline-private.h"
#include "sj-relative-time.h"
#include "sj-resources.h"
#include "sj-session-item.h"
#include "sj-sessions-page-private.h"
#include "sj-test-widgets.h"

#define TIMEOUT_S 30

typedef struct
{
  char            *dir;
  SjHistoryStore  *store;
  GtkWindow       *window;
  AdwToastOverlay *overlay;
  SjSessionsPage  *page;
  gint64           ids[3];  /* First, Second, Third */
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

/* Widgets ----------------------------------------------------------------- */

typedef gboolean (*Match) (GtkWidget *widget, gconstpointer data);

static GtkWidget *
find_widget (GtkWidget     *root,
             Match          match,
             gconstpointer  data)
{
  if (match (root, data))
    return root;

  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, match, data);

      if (found != NULL)
        return found;
    }

  return NULL;
}

static gboolean
is_named (GtkWidget     *widget,
          gconstpointer  name)
{
  return g_str_equal (gtk_widget_get_name (widget), name);
}

static gboolean
is_label_with_text (GtkWidget     *widget,
                    gconstpointer  text)
{
  return GTK_IS_LABEL (widget) && g_str_equal (gtk_label_get_label (GTK_LABEL (widget)), text);
}

static gboolean
is_mapped_label_with_text (GtkWidget     *widget,
                           gconstpointer  text)
{
  return is_label_with_text (widget, text) && gtk_widget_get_mapped (widget);
}

static gboolean
is_button_with_label (GtkWidget     *widget,
                      gconstpointer  label)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0;
}

static gboolean
is_button_with_icon (GtkWidget     *widget,
                     gconstpointer  icon)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), icon) == 0;
}

static gboolean
is_of_type (GtkWidget     *widget,
            gconstpointer  type)
{
  return G_TYPE_CHECK_INSTANCE_TYPE (widget, GPOINTER_TO_SIZE (type));
}

/* The toast widget showing @title, if any. */
static GtkWidget *
find_toast (Fixture    *fixture,
            const char *title)
{
  GtkWidget *label = find_widget (GTK_WIDGET (fixture->overlay), is_mapped_label_with_text, title);

  if (label == NULL)
    return NULL;
  return gtk_widget_get_ancestor (label, g_type_from_name ("AdwToastWidget"));
}

static GtkListBox *
sessions_list (Fixture *fixture)
{
  return GTK_LIST_BOX (gtk_widget_get_template_child (GTK_WIDGET (fixture->page), SJ_TYPE_SESSIONS_PAGE,
                                                      "sessions_list"));
}

/* The Store --------------------------------------------------------------- */

static char *
store_title (Fixture *fixture,
             gint64   id)
{
  g_autoptr(GPtrArray) sessions = sj_history_store_list_sessions (fixture->store, NULL);

  for (guint i = 0; i < sessions->len; i++)
    {
      const SjHistorySession *session = g_ptr_array_index (sessions, i);

      if (session->id == id)
        return g_strdup (session->title);
    }

  return NULL;
}

static gboolean
store_has (Fixture *fixture,
           gint64   id)
{
  g_autofree char *title = store_title (fixture, id);

  return title != NULL;
}

static gboolean
page_lists (Fixture *fixture,
            gint64   id)
{
  GListModel *model = _sj_sessions_page_get_sessions (fixture->page);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(SjSessionItem) item = g_list_model_get_item (model, i);

      if (sj_session_item_get_id (item) == id)
        return TRUE;
    }

  return FALSE;
}

/* Fixture ----------------------------------------------------------------- */

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  const char *titles[] = { "First", "Second", "Third" };

  fixture->dir = g_dir_make_tmp ("sj-sessions-page-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (fixture->dir, "history.db", NULL);
  fixture->store = sj_history_store_new (path, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < G_N_ELEMENTS (titles); i++)
    {
      fixture->ids[i] = sj_history_store_create_session (fixture->store, titles[i], &error);
      g_assert_no_error (error);
      g_assert_cmpint (fixture->ids[i], >, 0);
    }

  fixture->page = SJ_SESSIONS_PAGE (sj_sessions_page_new (fixture->store));
  fixture->overlay = ADW_TOAST_OVERLAY (adw_toast_overlay_new ());
  adw_toast_overlay_set_child (fixture->overlay, GTK_WIDGET (fixture->page));
  sj_sessions_page_set_toast_overlay (fixture->page, fixture->overlay);

  fixture->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (fixture->window, 400, 700);
  gtk_window_set_child (fixture->window, GTK_WIDGET (fixture->overlay));
  gtk_window_present (fixture->window);
  SPIN_UNTIL (gtk_widget_get_mapped (GTK_WIDGET (fixture->page)));
}

static void
remove_all (const char *dir)
{
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  if (fixture->window != NULL)
    gtk_window_destroy (fixture->window);
  g_clear_object (&fixture->store);
  remove_all (fixture->dir);
  g_free (fixture->dir);
}

/* Tests ------------------------------------------------------------------- */

static void
test_list (Fixture       *fixture,
           gconstpointer  data)
{
  GListModel *model = _sj_sessions_page_get_sessions (fixture->page);
  const char *expected[] = { "Third", "Second", "First" };
  GtkListBoxRow *row;
  GtkWidget *mark;

  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(SjSessionItem) item = g_list_model_get_item (model, i);

      g_assert_cmpstr (sj_session_item_get_title (item), ==, expected[i]);
      row = gtk_list_box_get_row_at_index (sessions_list (fixture), i);
      g_assert_nonnull (row);
      g_assert_true (gtk_list_box_row_get_activatable (row));
      g_assert_nonnull (find_widget (GTK_WIDGET (row), is_label_with_text, expected[i]));
      g_assert_nonnull (find_widget (GTK_WIDGET (row), is_label_with_text, "Just now"));
      /* The menu button is reachable with the keyboard. */
      g_assert_true (gtk_widget_get_focusable (find_widget (GTK_WIDGET (row), is_of_type,
                                                            GSIZE_TO_POINTER (GTK_TYPE_TOGGLE_BUTTON))));
    }
  g_assert_null (gtk_list_box_get_row_at_index (sessions_list (fixture), 3));

  /* The current session is marked, and only it. */
  sj_sessions_page_set_current (fixture->page, fixture->ids[1]);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(SjSessionItem) item = g_list_model_get_item (model, i);

      row = gtk_list_box_get_row_at_index (sessions_list (fixture), i);
      mark = find_widget (GTK_WIDGET (row), is_of_type, GSIZE_TO_POINTER (GTK_TYPE_IMAGE));
      g_assert_cmpint (sj_session_item_get_current (item), ==, i == 1);
      g_assert_cmpint (gtk_widget_get_visible (mark), ==, i == 1);
    }

  /* A session updated last comes first after a reload. */
  sj_history_store_append_message (fixture->store, fixture->ids[0], SJ_HISTORY_ROLE_USER, "hi", NULL,
                                   SJ_HISTORY_MESSAGE_COMPLETE, NULL);
  sj_sessions_page_reload (fixture->page);
  {
    g_autoptr(SjSessionItem) first = g_list_model_get_item (model, 0);
    g_autoptr(SjSessionItem) second = g_list_model_get_item (model, 1);

    g_autoptr(SjSessionItem) third = g_list_model_get_item (model, 2);

    g_assert_cmpstr (sj_session_item_get_title (first), ==, "First");
    g_assert_cmpstr (sj_session_item_get_title (second), ==, "Third");
    g_assert_cmpstr (sj_session_item_get_title (third), ==, "Second");
    g_assert_false (sj_session_item_get_current (first));
    g_assert_true (sj_session_item_get_current (third));
  }
}

/* What the agent cost in each session (issue 32): the sum of its answers'
 * usage under its title, with an accessible name; nothing for a session
 * where no answer said. */
static void
test_usage (Fixture       *fixture,
            gconstpointer  data)
{
  SjUsage first = { 1000, 200, -1, 0.0015 };
  SjUsage second = { 30, 4, 2, 0.0005 };
  g_autoptr(GError) error = NULL;
  GtkListBoxRow *row;
  GtkWidget *label;
  gint64 answers[2];

  for (guint i = 0; i < 2; i++)
    {
      answers[i] = sj_history_store_append_message (fixture->store, fixture->ids[0], SJ_HISTORY_ROLE_ASSISTANT, "ok",
                                                    "m", SJ_HISTORY_MESSAGE_COMPLETE, &error);
      g_assert_no_error (error);
    }
  g_assert_true (sj_history_store_set_message_usage (fixture->store, answers[0], &first, &error));
  g_assert_true (sj_history_store_set_message_usage (fixture->store, answers[1], &second, &error));
  sj_sessions_page_reload (fixture->page);

  /* "First" was updated last: it comes first. */
  row = gtk_list_box_get_row_at_index (sessions_list (fixture), 0);
  g_assert_nonnull (find_widget (GTK_WIDGET (row), is_label_with_text, "First"));
  label = find_widget (GTK_WIDGET (row), is_label_with_text, "1234 tokens · $0.0020");
  g_assert_nonnull (label);
  g_assert_true (gtk_widget_has_css_class (label, "dim-label"));
  g_assert_cmpstr (gtk_widget_get_name (label), ==, "session-usage");

  /* The others never had an answer with usage: no caption. */
  row = gtk_list_box_get_row_at_index (sessions_list (fixture), 1);
  g_assert_nonnull (row);
  g_assert_null (find_widget (GTK_WIDGET (row), is_named, "session-usage"));
}

static void
test_rename (Fixture       *fixture,
             gconstpointer  data)
{
  gint64 id = fixture->ids[2];  /* "Third", the first row */
  GtkListBoxRow *row = gtk_list_box_get_row_at_index (sessions_list (fixture), 0);
  GtkWidget *entry = find_widget (GTK_WIDGET (row), is_of_type, GSIZE_TO_POINTER (GTK_TYPE_ENTRY));
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;

  /* The API refuses an empty name. */
  g_assert_false (sj_sessions_page_rename_session (fixture->page, id, "   ", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  title = store_title (fixture, id);
  g_assert_cmpstr (title, ==, "Third");
  g_clear_pointer (&title, g_free);

  /* The menu's Rename… opens the entry in the row with the old name. */
  g_assert_nonnull (entry);
  g_assert_false (gtk_widget_get_mapped (entry));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->page), "sessions.rename", "x", id));
  SPIN_UNTIL (gtk_widget_get_mapped (entry));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "Third");

  /* An empty name stays in the entry, marked, and changes nothing. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
  g_signal_emit_by_name (entry, "activate");
  g_assert_true (gtk_widget_has_css_class (entry, "error"));
  g_assert_true (gtk_widget_get_mapped (entry));
  title = store_title (fixture, id);
  g_assert_cmpstr (title, ==, "Third");
  g_clear_pointer (&title, g_free);

  /* Enter keeps a real name, trimmed, in the store and the row. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "  Acid jam ");
  g_signal_emit_by_name (entry, "activate");
  title = store_title (fixture, id);
  g_assert_cmpstr (title, ==, "Acid jam");
  g_assert_false (gtk_widget_has_css_class (entry, "error"));
  SPIN_UNTIL (find_widget (GTK_WIDGET (row), is_mapped_label_with_text, "Acid jam") != NULL);
  g_assert_false (gtk_widget_get_mapped (entry));
}

static gulong deleted_id;

static void
session_deleted_cb (SjSessionsPage *page,
                    gint64          session_id,
                    gpointer        user_data)
{
  deleted_id = session_id;
}

static void
test_delete_undo (Fixture       *fixture,
                  gconstpointer  data)
{
  gint64 id = fixture->ids[1];
  GtkWidget *toast;
  GtkWidget *undo;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->page), "sessions.delete", "x", id));

  /* The row goes at once, the store keeps the session for Undo. */
  g_assert_false (page_lists (fixture, id));
  g_assert_cmpuint (g_list_model_get_n_items (_sj_sessions_page_get_sessions (fixture->page)), ==, 2);
  g_assert_true (store_has (fixture, id));
  SPIN_UNTIL ((toast = find_toast (fixture, "Session deleted")) != NULL);
  g_assert_true (store_has (fixture, id));

  /* A reload meanwhile keeps it hidden. */
  sj_sessions_page_reload (fixture->page);
  g_assert_false (page_lists (fixture, id));

  undo = find_widget (toast, is_button_with_label, "_Undo");
  g_assert_nonnull (undo);
  g_assert_true (gtk_widget_activate (undo));
  SPIN_UNTIL (page_lists (fixture, id));
  SPIN_UNTIL (find_toast (fixture, "Session deleted") == NULL);

  /* Back in its place, and the store never lost it. */
  {
    g_autoptr(SjSessionItem) item = g_list_model_get_item (_sj_sessions_page_get_sessions (fixture->page), 1);

    g_assert_cmpint (sj_session_item_get_id (item), ==, id);
    g_assert_cmpstr (sj_session_item_get_title (item), ==, "Second");
  }
  g_assert_true (store_has (fixture, id));
  sj_sessions_page_finish_pending_delete (fixture->page);
  g_assert_true (store_has (fixture, id));
}

static void
test_delete_dismiss (Fixture       *fixture,
                     gconstpointer  data)
{
  gint64 id = fixture->ids[0];
  GtkWidget *toast;
  GtkWidget *close;

  deleted_id = 0;
  g_signal_connect (fixture->page, "session-deleted", G_CALLBACK (session_deleted_cb), NULL);

  sj_sessions_page_delete_session (fixture->page, id);
  SPIN_UNTIL ((toast = find_toast (fixture, "Session deleted")) != NULL);
  g_assert_true (store_has (fixture, id));
  g_assert_cmpint (deleted_id, ==, 0);

  /* Closing the toast makes the deletion final. */
  close = find_widget (toast, is_button_with_icon, "window-close-symbolic");
  g_assert_nonnull (close);
  g_assert_true (gtk_widget_activate (close));
  SPIN_UNTIL (!store_has (fixture, id));
  g_assert_cmpint (deleted_id, ==, id);
  g_assert_false (page_lists (fixture, id));
}

static void
test_delete_finish (Fixture       *fixture,
                    gconstpointer  data)
{
  /* finish_pending_delete() deletes at once. */
  sj_sessions_page_delete_session (fixture->page, fixture->ids[0]);
  SPIN_UNTIL (find_toast (fixture, "Session deleted") != NULL);
  g_assert_true (store_has (fixture, fixture->ids[0]));
  sj_sessions_page_finish_pending_delete (fixture->page);
  g_assert_false (store_has (fixture, fixture->ids[0]));

  /* A second deletion finishes the first. */
  sj_sessions_page_delete_session (fixture->page, fixture->ids[1]);
  sj_sessions_page_delete_session (fixture->page, fixture->ids[2]);
  g_assert_false (store_has (fixture, fixture->ids[1]));
  g_assert_true (store_has (fixture, fixture->ids[2]));

  /* So does the page going away: nothing is left half done. */
  gtk_window_destroy (fixture->window);
  fixture->window = NULL;
  g_assert_false (store_has (fixture, fixture->ids[2]));
}

static void
store_result_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  *(GAsyncResult **)user_data = g_object_ref (result);
}

static void
test_export (Fixture       *fixture,
             gconstpointer  data)
{
  gint64 id = fixture->ids[1];
  g_autofree char *path = g_build_filename (fixture->dir, "Second.md", NULL);
  g_autofree char *bad_path = g_build_filename (fixture->dir, "missing", "Second.md", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) bad_file = g_file_new_for_path (bad_path);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *contents = NULL;

  sj_history_store_append_message (fixture->store, id, SJ_HISTORY_ROLE_USER, "Make it **acid**", NULL,
                                   SJ_HISTORY_MESSAGE_COMPLETE, &error);
  g_assert_no_error (error);
  sj_history_store_record_snapshot (fixture->store, id, "note(\"c2 eb2\").s(\"sawtooth\")", 16,
                                    SJ_HISTORY_SOURCE_AGENT, 0, &error);
  g_assert_no_error (error);
  expected = sj_history_store_export_markdown (fixture->store, id, &error);
  g_assert_no_error (error);

  sj_sessions_page_export_to_file (fixture->page, id, file, NULL, store_result_cb, &result);
  SPIN_UNTIL (result != NULL);
  g_assert_true (sj_sessions_page_export_to_file_finish (fixture->page, result, &error));
  g_assert_no_error (error);
  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (contents, ==, expected);
  g_clear_object (&result);

  /* A file that cannot be written is an error, not a crash. */
  sj_sessions_page_export_to_file (fixture->page, id, bad_file, NULL, store_result_cb, &result);
  SPIN_UNTIL (result != NULL);
  g_assert_false (sj_sessions_page_export_to_file_finish (fixture->page, result, &error));
  g_assert_nonnull (error);
  g_unlink (path);
}

static char *reverted;

static void
revert_requested_cb (SjSessionsPage *page,
                     const char     *code,
                     gpointer        user_data)
{
  g_free (reverted);
  reverted = g_strdup (code);
}

static void
test_timeline (Fixture       *fixture,
               gconstpointer  data)
{
  const char *oldest = "\n  s(\"bd sd\")\n  .fast(2)\n";
  const char *middle = "note(\"c e g\")\n.s(\"piano\")";
  const char *newest = "s(\"hh*8\")";
  gint64 id = fixture->ids[0];
  SjCodeTimeline *timeline = SJ_CODE_TIMELINE (gtk_widget_get_template_child (GTK_WIDGET (fixture->page),
                                                                              SJ_TYPE_SESSIONS_PAGE, "timeline"));
  GtkListBox *list = GTK_LIST_BOX (find_widget (GTK_WIDGET (timeline), is_of_type,
                                                GSIZE_TO_POINTER (GTK_TYPE_LIST_BOX)));
  GtkWidget *rows[3];
  GtkWidget *revert;

  sj_history_store_record_snapshot (fixture->store, id, oldest, NAN, SJ_HISTORY_SOURCE_USER, 0, NULL);
  sj_history_store_record_snapshot (fixture->store, id, middle, 48, SJ_HISTORY_SOURCE_AGENT, 0, NULL);
  sj_history_store_record_snapshot (fixture->store, id, newest, 12.5, SJ_HISTORY_SOURCE_USER, 0, NULL);
  sj_history_store_record_snapshot (fixture->store, fixture->ids[1], "other", 1, SJ_HISTORY_SOURCE_USER, 0, NULL);

  g_assert_cmpuint (_sj_code_timeline_get_n_rows (timeline), ==, 0);
  sj_sessions_page_set_current (fixture->page, id);
  g_assert_cmpuint (_sj_code_timeline_get_n_rows (timeline), ==, 3);
  for (guint i = 0; i < 3; i++)
    rows[i] = GTK_WIDGET (gtk_list_box_get_row_at_index (list, i));

  /* Newest first, with who and where. */
  g_assert_nonnull (find_widget (rows[0], is_label_with_text, "by you"));
  g_assert_nonnull (find_widget (rows[0], is_label_with_text, "Just now · at cycle 12.5"));
  g_assert_nonnull (find_widget (rows[0], is_label_with_text, "s(\"hh*8\")"));
  g_assert_nonnull (find_widget (rows[1], is_label_with_text, "by the agent"));
  g_assert_nonnull (find_widget (rows[1], is_label_with_text, "Just now · at cycle 48"));
  g_assert_nonnull (find_widget (rows[1], is_label_with_text, "note(\"c e g\")"));
  g_assert_nonnull (find_widget (rows[2], is_label_with_text, "by you"));
  g_assert_nonnull (find_widget (rows[2], is_label_with_text, "Just now"));
  g_assert_nonnull (find_widget (rows[2], is_label_with_text, "s(\"bd sd\")"));

  /* The code playing now has nothing to revert to. */
  g_assert_null (find_widget (rows[0], is_of_type, GSIZE_TO_POINTER (GTK_TYPE_BUTTON)));

  g_signal_connect (fixture->page, "revert-requested", G_CALLBACK (revert_requested_cb), NULL);
  revert = find_widget (rows[2], is_button_with_label, "_Revert");
  g_assert_nonnull (revert);
  g_assert_true (gtk_widget_activate (revert));
  SPIN_UNTIL (reverted != NULL);
  g_assert_cmpstr (reverted, ==, oldest);
  g_clear_pointer (&reverted, g_free);

  revert = find_widget (rows[1], is_button_with_label, "_Revert");
  g_assert_true (gtk_widget_activate (revert));
  SPIN_UNTIL (reverted != NULL);
  g_assert_cmpstr (reverted, ==, middle);
  g_clear_pointer (&reverted, g_free);

  /* Another session has its own timeline; none has an empty one. */
  sj_sessions_page_set_current (fixture->page, fixture->ids[1]);
  g_assert_cmpuint (_sj_code_timeline_get_n_rows (timeline), ==, 1);
  sj_sessions_page_set_current (fixture->page, fixture->ids[2]);
  g_assert_cmpuint (_sj_code_timeline_get_n_rows (timeline), ==, 0);

  /* A change whose cycle is not known (an Undo before anything played
   * records -1) says when, not "at cycle -1". */
  sj_history_store_record_snapshot (fixture->store, fixture->ids[2], "undone", -1, SJ_HISTORY_SOURCE_USER, 0, NULL);
  sj_sessions_page_reload (fixture->page);
  g_assert_cmpuint (_sj_code_timeline_get_n_rows (timeline), ==, 1);
  rows[0] = GTK_WIDGET (gtk_list_box_get_row_at_index (list, 0));
  g_assert_nonnull (find_widget (rows[0], is_label_with_text, "Just now"));
}

static void
activated_cb (SjSessionsPage *page,
              gint64          session_id,
              gpointer        user_data)
{
  *(gint64 *)user_data = session_id;
}

static void
new_session_cb (SjSessionsPage *page,
                gpointer        user_data)
{
  (*(guint *)user_data)++;
}

static void
test_signals (Fixture       *fixture,
              gconstpointer  data)
{
  gint64 activated = 0;
  guint new_sessions = 0;
  GtkWidget *new_button = find_widget (GTK_WIDGET (fixture->page), is_button_with_icon, "list-add-symbolic");
  g_signal_connect (fixture->page, "session-activated", G_CALLBACK (activated_cb), &activated);
  g_signal_connect (fixture->page, "new-session-requested", G_CALLBACK (new_session_cb), &new_sessions);

  /* Activating the second row (Enter, a click) switches to "Second". */
  g_assert_true (gtk_widget_activate (GTK_WIDGET (gtk_list_box_get_row_at_index (sessions_list (fixture), 1))));
  SPIN_UNTIL (activated != 0);
  g_assert_cmpint (activated, ==, fixture->ids[1]);

  g_assert_nonnull (new_button);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (new_button), ==, "New Session");
  g_assert_true (gtk_widget_activate (new_button));
  SPIN_UNTIL (new_sessions == 1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->page), "sessions.new", NULL));
  g_assert_cmpuint (new_sessions, ==, 2);

  /* The icon-only buttons have names for screen readers. */
  g_assert_true (gtk_test_accessible_has_property (GTK_ACCESSIBLE (new_button), GTK_ACCESSIBLE_PROPERTY_LABEL));
  {
    GtkWidget *menu_button = find_widget (GTK_WIDGET (gtk_list_box_get_row_at_index (sessions_list (fixture), 1)),
                                          is_of_type, GSIZE_TO_POINTER (GTK_TYPE_MENU_BUTTON));

    g_assert_true (gtk_test_accessible_has_property (GTK_ACCESSIBLE (menu_button), GTK_ACCESSIBLE_PROPERTY_LABEL));
    g_assert_nonnull (gtk_widget_get_tooltip_text (menu_button));
  }
}

static void
test_relative_time (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_local (2026, 3, 18, 14, 30, 0);
  g_autoptr(GDateTime) yesterday = g_date_time_new_local (2026, 3, 17, 23, 0, 0);
  g_autoptr(GDateTime) older = g_date_time_new_local (2025, 12, 24, 9, 0, 0);
  gint64 now_us = g_date_time_to_unix (now) * G_USEC_PER_SEC;
  g_autofree char *just_now = sj_relative_time_format (now_us - 30 * G_USEC_PER_SEC, now);
  g_autofree char *minutes = sj_relative_time_format (now_us - 5 * G_TIME_SPAN_MINUTE, now);
  g_autofree char *hours = sj_relative_time_format (now_us - 3 * G_TIME_SPAN_HOUR, now);
  g_autofree char *day = sj_relative_time_format (g_date_time_to_unix (yesterday) * G_USEC_PER_SEC, now);
  g_autofree char *old = sj_relative_time_format (g_date_time_to_unix (older) * G_USEC_PER_SEC, now);

  g_assert_cmpstr (just_now, ==, "Just now");
  g_assert_cmpstr (minutes, ==, "5 min ago");
  g_assert_cmpstr (hours, ==, "3 h ago");
  g_assert_cmpstr (day, ==, "Yesterday");
  g_assert_cmpstr (old, ==, "Dec 24, 2025");
}

int
main (int   argc,
      char *argv[])
{
  /* No accessibility bus on the private session bus: GTK's test backend
   * keeps the accessible properties without one. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  /* The relative times are checked in English. */
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  sj_test_tolerate_gtk_snapshot_race ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  sj_register_resource ();

#define ADD(name, func) g_test_add ("/sessions-page/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("list", test_list);
  ADD ("usage", test_usage);
  ADD ("rename", test_rename);
  ADD ("delete-undo", test_delete_undo);
  ADD ("delete-dismiss", test_delete_dismiss);
  ADD ("delete-finish", test_delete_finish);
  ADD ("export", test_export);
  ADD ("timeline", test_timeline);
  ADD ("signals", test_signals);
#undef ADD
  g_test_add_func ("/sessions-page/relative-time", test_relative_time);

  return g_test_run ();
}
