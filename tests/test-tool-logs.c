/* test-tool-logs.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjToolLogRow and SjToolLogsPage under Xvfb, over a real history store:
 * rows only for stored calls, collapsed and without JSON views until
 * expanded, the pretty read-only JSON once expanded, secrets masked in
 * what is shown and what is copied, the summaries, the filters, calls
 * appended as the agent finishes them, and the empty state.
 */

#include "config.h"

#include <math.h>

#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "sj-resources.h"
#include "sj-test-files.h"
#include "sj-test-widgets.h"
#include "sj-tool-call-item.h"
#include "sj-tool-log-row-private.h"
#include "sj-tool-logs-page-private.h"

#define TIMEOUT_S 30
#define spin_until(done, data, what) sj_test_widgets_spin_until ((gboolean (*) (gpointer)) (done), (data), TIMEOUT_S, (what))
#define SECRET "sk-or-v1-abcdefghijklmnopqrstuvwxyz012345"

typedef struct
{
  char           *dir;
  SjHistoryStore *store;
  gint64          session;        /* with calls */
  gint64          empty_session;  /* a message, no calls */
  gint64          second_message;
  gint64          other_message;  /* of empty_session */
  gint64          ids[5];
} Fixture;

/* The calls of the session, in order: two messages, every status. */
enum {
  CALL_READ,
  CALL_SCHEDULED,
  CALL_REJECTED,
  CALL_KNOWLEDGE,
  CALL_CANCELED,
};

static gint64
record (Fixture             *fixture,
        gint64               message_id,
        const char          *name,
        const char          *arguments,
        const char          *result,
        SjHistoryToolStatus  status,
        gint64               duration_ms,
        double               apply_cycle)
{
  g_autoptr(GError) error = NULL;
  gint64 id;

  id = sj_history_store_record_tool_call (fixture->store, message_id, name, arguments, result, status,
                                          duration_ms, apply_cycle, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, >, 0);
  return id;
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  gint64 first;

  fixture->dir = g_dir_make_tmp ("sj-tool-logs-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (fixture->dir, "history.sqlite", NULL);
  fixture->store = sj_history_store_new (path, &error);
  g_assert_no_error (error);

  fixture->session = sj_history_store_create_session (fixture->store, "Jam", &error);
  g_assert_no_error (error);
  first = sj_history_store_append_message (fixture->store, fixture->session, SJ_HISTORY_ROLE_ASSISTANT,
                                           "Let me look.", "test-model", SJ_HISTORY_MESSAGE_COMPLETE, &error);
  g_assert_no_error (error);
  fixture->second_message = sj_history_store_append_message (fixture->store, fixture->session,
                                                             SJ_HISTORY_ROLE_ASSISTANT, "Done.", "test-model",
                                                             SJ_HISTORY_MESSAGE_COMPLETE, &error);
  g_assert_no_error (error);

  fixture->ids[CALL_READ] =
    record (fixture, first, "read_code", "{}",
            "{\"hash\":\"h1\",\"lineCount\":12,\"code\":\"s(\\\"bd sd\\\")\"}",
            SJ_HISTORY_TOOL_SUCCEEDED, 8, NAN);
  fixture->ids[CALL_SCHEDULED] =
    record (fixture, first, "apply_strudel_change", "{\"baseHash\":\"h1\",\"code\":\"s(\\\"bd*2\\\")\"}",
            "{\"status\":\"scheduled\",\"applyAt\":{\"cycle\":13}}",
            SJ_HISTORY_TOOL_SUCCEEDED, 120, 13);
  fixture->ids[CALL_REJECTED] =
    record (fixture, first, "apply_strudel_change", "{\"baseHash\":\"h1\",\"code\":\"s(\"}",
            "{\"status\":\"rejected\",\"phase\":\"dry_run\",\"code\":\"DRY_RUN_FAILED\"}",
            SJ_HISTORY_TOOL_FAILED, 2500, NAN);
  fixture->ids[CALL_KNOWLEDGE] =
    record (fixture, fixture->second_message, "strudel_knowledge", "{\"query\":\"lpf\"}",
            "{\"ok\":true,\"apiKey\":\"" SECRET "\",\"note\":\"lowpass\"}",
            SJ_HISTORY_TOOL_SUCCEEDED, 1, NAN);
  fixture->ids[CALL_CANCELED] =
    record (fixture, fixture->second_message, "search_knowledge", "{\"query\":\"swing\"}", NULL,
            SJ_HISTORY_TOOL_CANCELED, 40, NAN);

  fixture->empty_session = sj_history_store_create_session (fixture->store, "Quiet", &error);
  g_assert_no_error (error);
  fixture->other_message = sj_history_store_append_message (fixture->store, fixture->empty_session,
                                                            SJ_HISTORY_ROLE_ASSISTANT, "Hello.", "test-model",
                                                            SJ_HISTORY_MESSAGE_COMPLETE, &error);
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->store);
  sj_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
}

static GtkWidget *
find_status_page (GtkWidget  *root,
                  const char *title)
{
  g_autoptr(GPtrArray) pages = sj_test_find_all_by_type (root, ADW_TYPE_STATUS_PAGE);

  for (guint i = 0; i < pages->len; i++)
    if (g_strcmp0 (adw_status_page_get_title (pages->pdata[i]), title) == 0)
      return pages->pdata[i];
  return NULL;
}

static GtkWidget *
new_page (Fixture *fixture,
          gint64   session,
          GtkWidget **out_window)
{
  GtkWidget *page = _sj_tool_logs_page_new ();
  GtkWidget *window = gtk_window_new ();

  sj_tool_logs_page_set_store (SJ_TOOL_LOGS_PAGE (page), fixture->store);
  sj_tool_logs_page_set_session (SJ_TOOL_LOGS_PAGE (page), session);
  gtk_window_set_default_size (GTK_WINDOW (window), 600, 900);
  gtk_window_set_child (GTK_WINDOW (window), page);
  gtk_window_present (GTK_WINDOW (window));

  *out_window = window;
  return page;
}

typedef struct
{
  GtkWidget *root;
  guint      n;
} RowCount;

static gboolean
has_n_rows (gpointer data)
{
  RowCount *count = data;
  g_autoptr(GPtrArray) rows = sj_test_find_all_by_type (count->root, SJ_TYPE_TOOL_LOG_ROW);
  guint mapped = 0;

  for (guint i = 0; i < rows->len; i++)
    mapped += gtk_widget_get_mapped (rows->pdata[i]);
  return mapped == count->n && rows->len == count->n;
}

/* The rows shown, in order, once the list view has laid out @n of them. */
static GPtrArray *
wait_for_rows (GtkWidget *page,
               guint      n)
{
  RowCount count = { page, n };

  spin_until (has_n_rows, &count, "the rows");
  return sj_test_find_all_by_type (page, SJ_TYPE_TOOL_LOG_ROW);
}

static GtkWidget *
row_with_id (GPtrArray *rows,
             gint64     id)
{
  for (guint i = 0; i < rows->len; i++)
    if (_sj_tool_log_row_get_id (rows->pdata[i]) == id)
      return rows->pdata[i];
  g_assert_not_reached ();
}

static char *
view_text (GtkWidget *view)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

static void
assert_json_view (GtkWidget  *view,
                  const char *expected)
{
  GtkSourceBuffer *buffer = GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)));
  g_autofree char *text = view_text (view);

  g_assert_nonnull (gtk_source_buffer_get_language (buffer));
  g_assert_cmpstr (gtk_source_language_get_id (gtk_source_buffer_get_language (buffer)), ==, "json");
  g_assert_false (gtk_text_view_get_editable (GTK_TEXT_VIEW (view)));
  if (expected != NULL)
    g_assert_cmpstr (text, ==, expected);
}

static void
test_rows (Fixture       *fixture,
           gconstpointer  data)
{
  GtkWidget *window;
  GtkWidget *page = new_page (fixture, fixture->session, &window);
  g_autoptr(GPtrArray) rows = wait_for_rows (page, G_N_ELEMENTS (fixture->ids));
  g_autoptr(GPtrArray) views = sj_test_find_all_by_type (page, GTK_SOURCE_TYPE_VIEW);
  static const char * const summaries[] = {
    [CALL_READ] = "read 12 lines",
    [CALL_SCHEDULED] = "scheduled for cycle 13",
    [CALL_REJECTED] = "rejected: DRY_RUN_FAILED",
    [CALL_KNOWLEDGE] = "“lpf”",
    [CALL_CANCELED] = "canceled before it finished",
  };
  static const char * const status_classes[] = {
    [CALL_READ] = "success",
    [CALL_SCHEDULED] = "success",
    [CALL_REJECTED] = "error",
    [CALL_KNOWLEDGE] = "success",
    [CALL_CANCELED] = "dim-label",
  };

  /* One row per stored call, oldest first, across both messages; all
   * collapsed, and no JSON view built for any of them. */
  g_assert_cmpuint (rows->len, ==, G_N_ELEMENTS (fixture->ids));
  g_assert_cmpuint (views->len, ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (_sj_tool_logs_page_get_calls (SJ_TOOL_LOGS_PAGE (page))), ==, 5);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = rows->pdata[i];
      GtkWidget *status = sj_test_find_by_class (row, "sj-tool-log-status");

      g_assert_cmpint (_sj_tool_log_row_get_id (SJ_TOOL_LOG_ROW (row)), ==, fixture->ids[i]);
      g_assert_false (sj_tool_log_row_get_expanded (SJ_TOOL_LOG_ROW (row)));
      g_assert_cmpstr (_sj_tool_log_row_get_summary (SJ_TOOL_LOG_ROW (row)), ==, summaries[i]);
      g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (sj_test_find_by_class (row, "sj-tool-log-summary"))), ==, summaries[i]);
      g_assert_true (GTK_IS_IMAGE (status));
      g_assert_true (gtk_widget_has_css_class (status, status_classes[i]));
    }
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (sj_test_find_by_class (rows->pdata[CALL_SCHEDULED], "sj-tool-log-duration"))), ==, "120 ms");
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (sj_test_find_by_class (rows->pdata[CALL_REJECTED], "sj-tool-log-duration"))), ==, "2.5 s");
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (sj_test_find_by_class (rows->pdata[CALL_READ], "sj-tool-log-name"))), ==, "read_code");
  gtk_test_accessible_assert_property (gtk_widget_get_first_child (rows->pdata[CALL_SCHEDULED]), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       "apply_strudel_change, Succeeded: scheduled for cycle 13");

  g_assert_nonnull (find_status_page (page, "No Tool Calls Yet"));
  g_assert_false (gtk_widget_get_mapped (find_status_page (page, "No Tool Calls Yet")));

  gtk_window_destroy (GTK_WINDOW (window));
}

typedef struct
{
  char     *text;
  gboolean  read;
} Clipboard;

static void
clipboard_read_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Clipboard *clipboard = user_data;
  g_autoptr(GError) error = NULL;

  clipboard->text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (object), result, &error);
  g_assert_no_error (error);
  clipboard->read = TRUE;
}

static gboolean
clipboard_was_read (gpointer data)
{
  return ((Clipboard *)data)->read;
}

/* What clicking @row's Copy button put on the clipboard. */
static char *
click_copy (GtkWidget *row)
{
  GdkClipboard *clipboard = gtk_widget_get_clipboard (row);
  Clipboard received = { 0 };
  GtkWidget *copy = sj_test_find_by_class (row, "sj-tool-log-copy");

  g_assert_nonnull (copy);
  gtk_test_accessible_assert_property (copy, GTK_ACCESSIBLE_PROPERTY_LABEL, "Copy input and output");
  gdk_clipboard_set_text (clipboard, "something else");
  g_signal_emit_by_name (copy, "clicked");
  gdk_clipboard_read_text_async (clipboard, NULL, clipboard_read_cb, &received);
  spin_until (clipboard_was_read, &received, "the clipboard");

  return received.text;
}

static gboolean
scheme_is (gpointer data)
{
  GtkSourceBuffer *buffer = ((gpointer *)data)[0];
  GtkSourceStyleScheme *scheme = gtk_source_buffer_get_style_scheme (buffer);

  return scheme != NULL && g_str_equal (gtk_source_style_scheme_get_id (scheme), ((gpointer *)data)[1]);
}

static void
test_expand (Fixture       *fixture,
             gconstpointer  data)
{
  GtkWidget *window;
  GtkWidget *page = new_page (fixture, fixture->session, &window);
  g_autoptr(GPtrArray) rows = wait_for_rows (page, G_N_ELEMENTS (fixture->ids));
  GtkWidget *knowledge = row_with_id (rows, fixture->ids[CALL_KNOWLEDGE]);
  GtkWidget *scheduled = row_with_id (rows, fixture->ids[CALL_SCHEDULED]);
  GtkWidget *canceled = row_with_id (rows, fixture->ids[CALL_CANCELED]);
  GtkWidget *input;
  gpointer scheme[2];
  g_autoptr(GPtrArray) views = NULL;
  g_autoptr(SjToolCallItem) item = NULL;
  g_autofree char *output = NULL;
  g_autofree char *copied = NULL;

  /* The expander answers the keyboard's activation, as Enter or Space. */
  g_assert_true (GTK_IS_EXPANDER (gtk_widget_get_first_child (knowledge)));
  g_signal_emit_by_name (gtk_widget_get_first_child (knowledge), "activate");
  g_assert_true (sj_tool_log_row_get_expanded (SJ_TOOL_LOG_ROW (knowledge)));
  /* The page remembers it, for a row built again after scrolling. */
  item = g_list_model_get_item (_sj_tool_logs_page_get_calls (SJ_TOOL_LOGS_PAGE (page)), CALL_KNOWLEDGE);
  g_assert_true (sj_tool_call_item_get_expanded (item));

  views = sj_test_find_all_by_type (page, GTK_SOURCE_TYPE_VIEW);
  g_assert_cmpuint (views->len, ==, 2);
  assert_json_view (sj_test_find_by_class (knowledge, "sj-tool-log-input"), "{\n  \"query\" : \"lpf\"\n}");
  assert_json_view (sj_test_find_by_class (knowledge, "sj-tool-log-output"), NULL);
  output = view_text (sj_test_find_by_class (knowledge, "sj-tool-log-output"));
  g_assert_null (strstr (output, SECRET));
  g_assert_null (strstr (output, "abcdefghijklmnopqrstuvwxyz"));
  g_assert_nonnull (strstr (output, "[redacted]"));
  g_assert_nonnull (strstr (output, "\n  \"note\" : \"lowpass\""));

  copied = click_copy (knowledge);
  g_assert_null (strstr (copied, SECRET));
  g_assert_null (strstr (copied, "abcdefghijklmnopqrstuvwxyz"));
  g_assert_nonnull (strstr (copied, "[redacted]"));
  g_assert_nonnull (strstr (copied, "{\n  \"query\" : \"lpf\"\n}"));
  g_assert_nonnull (strstr (copied, "\"note\" : \"lowpass\""));
  g_clear_pointer (&copied, g_free);

  sj_tool_log_row_set_expanded (SJ_TOOL_LOG_ROW (scheduled), TRUE);
  assert_json_view (sj_test_find_by_class (scheduled, "sj-tool-log-input"),
                    "{\n  \"baseHash\" : \"h1\",\n  \"code\" : \"s(\\\"bd*2\\\")\"\n}");
  assert_json_view (sj_test_find_by_class (scheduled, "sj-tool-log-output"),
                    "{\n  \"status\" : \"scheduled\",\n  \"applyAt\" : {\n    \"cycle\" : 13\n  }\n}");
  copied = click_copy (scheduled);
  g_assert_nonnull (strstr (copied, "\"applyAt\" : {\n    \"cycle\" : 13\n  }"));
  g_clear_pointer (&copied, g_free);

  /* The colours follow the light or dark style. */
  scheme[0] = gtk_text_view_get_buffer (GTK_TEXT_VIEW (sj_test_find_by_class (scheduled, "sj-tool-log-output")));
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  scheme[1] = (gpointer)"Adwaita-dark";
  spin_until (scheme_is, scheme, "the dark scheme");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_LIGHT);
  scheme[1] = (gpointer)"Adwaita";
  spin_until (scheme_is, scheme, "the light scheme");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);

  /* A canceled call has no output to show, only its input. */
  sj_tool_log_row_set_expanded (SJ_TOOL_LOG_ROW (canceled), TRUE);
  assert_json_view (sj_test_find_by_class (canceled, "sj-tool-log-input"), "{\n  \"query\" : \"swing\"\n}");
  g_assert_null (sj_test_find_by_class (canceled, "sj-tool-log-output"));

  /* Collapsed, a row's views leave the tree; they are kept, not built
   * again, for the next time. The other rows never built theirs. */
  input = sj_test_find_by_class (knowledge, "sj-tool-log-input");
  sj_tool_log_row_set_expanded (SJ_TOOL_LOG_ROW (knowledge), FALSE);
  g_assert_false (sj_tool_call_item_get_expanded (item));
  g_assert_null (sj_test_find_by_class (knowledge, "sj-tool-log-input"));
  g_clear_pointer (&views, g_ptr_array_unref);
  views = sj_test_find_all_by_type (page, GTK_SOURCE_TYPE_VIEW);
  g_assert_cmpuint (views->len, ==, 3);
  g_assert_null (sj_test_find_by_class (row_with_id (rows, fixture->ids[CALL_READ]), "sj-tool-log-input"));
  sj_tool_log_row_set_expanded (SJ_TOOL_LOG_ROW (knowledge), TRUE);
  g_assert_true (sj_test_find_by_class (knowledge, "sj-tool-log-input") == input);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The row itself masks secrets, not only the store: secrets registered
 * after a call was written are only known when it is shown. */
static void
test_row_redacts (void)
{
  SjHistoryToolCall call = {
    .id = 7,
    .message_id = 1,
    .name = (char *)"strudel_knowledge",
    .arguments = (char *)"{\"query\":\"lpf\",\"token\":\"" SECRET "\"}",
    .result = (char *)"{\"ok\":true,\"headers\":{\"Authorization\":\"Bearer " SECRET "\"},\"apiKey\":\"" SECRET "\"}",
    .status = SJ_HISTORY_TOOL_SUCCEEDED,
    .duration_ms = 3,
    .apply_cycle = NAN,
  };
  GtkWidget *row = g_object_ref_sink (sj_tool_log_row_new (&call));
  g_autofree char *copy_text = NULL;
  g_autofree char *input = NULL;
  g_autofree char *output = NULL;

  g_assert_null (sj_test_find_by_class (row, "sj-tool-log-input"));
  sj_tool_log_row_set_expanded (SJ_TOOL_LOG_ROW (row), TRUE);
  input = view_text (sj_test_find_by_class (row, "sj-tool-log-input"));
  output = view_text (sj_test_find_by_class (row, "sj-tool-log-output"));
  copy_text = sj_tool_log_row_get_copy_text (SJ_TOOL_LOG_ROW (row));

  g_assert_null (strstr (input, "abcdefghijklmnopqrstuvwxyz"));
  g_assert_null (strstr (output, "abcdefghijklmnopqrstuvwxyz"));
  g_assert_null (strstr (copy_text, "abcdefghijklmnopqrstuvwxyz"));
  g_assert_nonnull (strstr (input, "[redacted]"));
  g_assert_nonnull (strstr (output, "[redacted]"));
  g_assert_nonnull (strstr (copy_text, "[redacted]"));
  g_assert_nonnull (strstr (input, "\"query\" : \"lpf\""));
  g_assert_cmpstr (_sj_tool_log_row_get_summary (SJ_TOOL_LOG_ROW (row)), ==, "“lpf”");

  g_object_unref (row);
}

typedef struct
{
  GtkWidget  *page;
  const char *title;
  gboolean    mapped;
} StatusShown;

static gboolean
status_page_is (gpointer data)
{
  StatusShown *shown = data;
  GtkWidget *status = find_status_page (shown->page, shown->title);

  return status != NULL && gtk_widget_get_mapped (status) == shown->mapped;
}

static void
test_filters (Fixture       *fixture,
              gconstpointer  data)
{
  GtkWidget *window;
  GtkWidget *page = new_page (fixture, fixture->session, &window);
  g_autoptr(GPtrArray) rows = wait_for_rows (page, G_N_ELEMENTS (fixture->ids));
  g_autoptr(GPtrArray) dropdowns = sj_test_find_all_by_type (page, GTK_TYPE_DROP_DOWN);
  GListModel *calls = _sj_tool_logs_page_get_calls (SJ_TOOL_LOGS_PAGE (page));
  GtkDropDown *tool, *status;
  StatusShown none = { page, "No Matching Tool Calls", TRUE };

  g_assert_cmpuint (dropdowns->len, ==, 2);
  tool = dropdowns->pdata[0];
  status = dropdowns->pdata[1];
  gtk_test_accessible_assert_property (tool, GTK_ACCESSIBLE_PROPERTY_LABEL, "Filter by tool");
  gtk_test_accessible_assert_property (status, GTK_ACCESSIBLE_PROPERTY_LABEL, "Filter by status");
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (tool)), ==, 8);
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (status)), ==, 4);

  /* apply_strudel_change */
  gtk_drop_down_set_selected (tool, 2);
  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = wait_for_rows (page, 2);
  g_assert_cmpint (_sj_tool_log_row_get_id (rows->pdata[0]), ==, fixture->ids[CALL_SCHEDULED]);
  g_assert_cmpint (_sj_tool_log_row_get_id (rows->pdata[1]), ==, fixture->ids[CALL_REJECTED]);

  /* … that failed */
  gtk_drop_down_set_selected (status, 2);
  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = wait_for_rows (page, 1);
  g_assert_cmpint (_sj_tool_log_row_get_id (rows->pdata[0]), ==, fixture->ids[CALL_REJECTED]);

  /* Any tool, canceled */
  gtk_drop_down_set_selected (tool, 0);
  gtk_drop_down_set_selected (status, 3);
  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = wait_for_rows (page, 1);
  g_assert_cmpint (_sj_tool_log_row_get_id (rows->pdata[0]), ==, fixture->ids[CALL_CANCELED]);

  /* Any tool, succeeded */
  gtk_drop_down_set_selected (status, 1);
  g_assert_cmpuint (g_list_model_get_n_items (calls), ==, 3);
  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = wait_for_rows (page, 3);

  /* read_code that failed: none, and the page says so. */
  gtk_drop_down_set_selected (tool, 1);
  gtk_drop_down_set_selected (status, 2);
  g_assert_cmpuint (g_list_model_get_n_items (calls), ==, 0);
  spin_until (status_page_is, &none, "the no-match state");

  gtk_drop_down_set_selected (tool, 0);
  gtk_drop_down_set_selected (status, 0);
  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = wait_for_rows (page, G_N_ELEMENTS (fixture->ids));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_add_call (Fixture       *fixture,
               gconstpointer  data)
{
  GtkWidget *window;
  GtkWidget *page = new_page (fixture, fixture->session, &window);
  g_autoptr(GPtrArray) rows = wait_for_rows (page, G_N_ELEMENTS (fixture->ids));
  GListModel *calls = _sj_tool_logs_page_get_calls (SJ_TOOL_LOGS_PAGE (page));
  g_autoptr(SjToolCallItem) last = NULL;
  gint64 id, elsewhere;

  id = record (fixture, fixture->second_message, "read_code", "{\"query\":\"bd\"}",
               "{\"hash\":\"h2\",\"lineCount\":3,\"query\":\"bd\",\"matches\":[{\"startLine\":1,\"endLine\":1,\"text\":\"s(\\\"bd\\\")\"}]}",
               SJ_HISTORY_TOOL_SUCCEEDED, 5, NAN);
  sj_tool_logs_page_add_call (SJ_TOOL_LOGS_PAGE (page), id);
  g_assert_cmpuint (g_list_model_get_n_items (calls), ==, 6);
  last = g_list_model_get_item (calls, 5);
  g_assert_cmpint (sj_tool_call_item_get_call (last)->id, ==, id);

  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = wait_for_rows (page, 6);
  g_assert_cmpint (_sj_tool_log_row_get_id (rows->pdata[5]), ==, id);
  g_assert_cmpstr (_sj_tool_log_row_get_summary (rows->pdata[5]), ==, "1 match for “bd”");
  g_assert_false (sj_tool_log_row_get_expanded (rows->pdata[5]));

  /* Told twice, or about another session's call: nothing new. */
  sj_tool_logs_page_add_call (SJ_TOOL_LOGS_PAGE (page), id);
  g_assert_cmpuint (g_list_model_get_n_items (calls), ==, 6);
  elsewhere = record (fixture, fixture->other_message, "read_code", "{}", "{\"lineCount\":1}",
                      SJ_HISTORY_TOOL_SUCCEEDED, 5, NAN);
  sj_tool_logs_page_add_call (SJ_TOOL_LOGS_PAGE (page), elsewhere);
  g_assert_cmpuint (g_list_model_get_n_items (calls), ==, 6);

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_empty (Fixture       *fixture,
            gconstpointer  data)
{
  GtkWidget *window;
  GtkWidget *page = new_page (fixture, fixture->empty_session, &window);
  StatusShown empty = { page, "No Tool Calls Yet", TRUE };
  g_autoptr(GPtrArray) rows = NULL;
  gint64 id;

  spin_until (status_page_is, &empty, "the empty state");
  g_assert_cmpuint (g_list_model_get_n_items (_sj_tool_logs_page_get_calls (SJ_TOOL_LOGS_PAGE (page))), ==, 0);
  rows = sj_test_find_all_by_type (page, SJ_TYPE_TOOL_LOG_ROW);
  g_assert_cmpuint (rows->len, ==, 0);

  /* The first call of the session replaces the empty state. */
  id = record (fixture, fixture->other_message, "read_code", "{}", "{\"lineCount\":1}",
               SJ_HISTORY_TOOL_SUCCEEDED, 5, NAN);
  sj_tool_logs_page_add_call (SJ_TOOL_LOGS_PAGE (page), id);
  empty.mapped = FALSE;
  spin_until (status_page_is, &empty, "the empty state to go");
  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = wait_for_rows (page, 1);
  g_assert_cmpstr (_sj_tool_log_row_get_summary (rows->pdata[0]), ==, "read 1 line");

  /* Switching sessions reloads. */
  sj_tool_logs_page_set_session (SJ_TOOL_LOGS_PAGE (page), fixture->session);
  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = wait_for_rows (page, G_N_ELEMENTS (fixture->ids));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The skill tools are logged like the others, with their own summaries. */
static void
test_skill_tools (Fixture       *fixture,
                  gconstpointer  data)
{
  GtkWidget *window;
  GtkWidget *page = new_page (fixture, fixture->empty_session, &window);
  g_autoptr(GPtrArray) rows = NULL;
  gint64 ids[3];

  ids[0] = record (fixture, fixture->other_message, "skills_list", "{}",
                   "{\"status\":\"ok\",\"skills\":[{\"name\":\"jazz\"},{\"name\":\"dub\"},{\"name\":\"house\"}]}",
                   SJ_HISTORY_TOOL_SUCCEEDED, 1, NAN);
  ids[1] = record (fixture, fixture->other_message, "activate_skills", "{\"names\":[\"jaz\"]}",
                   "{\"status\":\"error\",\"error\":{\"code\":\"UNKNOWN_SKILL\",\"message\":\"No.\"}}",
                   SJ_HISTORY_TOOL_FAILED, 1, NAN);
  ids[2] = record (fixture, fixture->other_message, "activate_skills", "{\"names\":[\"jazz\",\"dub\"]}",
                   "{\"status\":\"ok\",\"skills\":[{\"name\":\"jazz\",\"title\":\"Jazz\"},{\"name\":\"dub\",\"title\":\"Dub\"}]}",
                   SJ_HISTORY_TOOL_SUCCEEDED, 1, NAN);
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    sj_tool_logs_page_add_call (SJ_TOOL_LOGS_PAGE (page), ids[i]);

  rows = wait_for_rows (page, 3);
  g_assert_cmpstr (_sj_tool_log_row_get_summary (rows->pdata[0]), ==, "3 skills");
  g_assert_cmpstr (_sj_tool_log_row_get_summary (rows->pdata[1]), ==, "failed: UNKNOWN_SKILL");
  g_assert_cmpstr (_sj_tool_log_row_get_summary (rows->pdata[2]), ==, "Jazz, Dub");

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  /* No accessibility bus on the private session bus: GTK's test backend
   * keeps the accessible properties without one. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  sj_test_tolerate_gtk_snapshot_race ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  sj_register_resource ();

  g_test_add ("/tool-logs/rows", Fixture, NULL, fixture_set_up, test_rows, fixture_tear_down);
  g_test_add ("/tool-logs/expand-and-copy", Fixture, NULL, fixture_set_up, test_expand, fixture_tear_down);
  g_test_add_func ("/tool-logs/row-redacts", test_row_redacts);
  g_test_add ("/tool-logs/filters", Fixture, NULL, fixture_set_up, test_filters, fixture_tear_down);
  g_test_add ("/tool-logs/add-call", Fixture, NULL, fixture_set_up, test_add_call, fixture_tear_down);
  g_test_add ("/tool-logs/empty", Fixture, NULL, fixture_set_up, test_empty, fixture_tear_down);
  g_test_add ("/tool-logs/skill-tools", Fixture, NULL, fixture_set_up, test_skill_tools, fixture_tear_down);

  return g_test_run ();
}
