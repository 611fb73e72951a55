/* test-help.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The help in the real window (issue 31): F1 typed with xdotool under Xvfb
 * opens help:strudel-jam (the id gnome.yelp installs), Main Menu → Help is
 * there with its accessible name and opens the same, and a help that cannot
 * be opened says why in a toast.
 */

#include "config.h"

#include <string.h>

#include "sj-application-private.h"
#include "sj-test-app.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

#define WAIT_TIMEOUT_S 60

static SjTestKeyWindow keys;

/* What the app asked to open, and what the launcher answers. */
static GPtrArray *opened;
static gboolean launcher_fails;

static void
test_launcher (GtkWindow           *parent,
               const char          *uri,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (parent, NULL, callback, user_data);

  g_ptr_array_add (opened, g_strdup (uri));
  if (launcher_fails)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "No help viewer for this test");
  else
    g_task_return_boolean (task, TRUE);
}

static void
count_cb (GSimpleAction *action,
          GVariant      *parameter,
          guint         *count)
{
  (*count)++;
}

static gboolean
opened_one (gpointer data)
{
  return opened->len >= GPOINTER_TO_UINT (data);
}

/* F1, a real key press, activates app.help once, which opens the help's
 * URI beside the window. */
static void
test_f1 (void)
{
  GtkApplication *app = GTK_APPLICATION (g_application_get_default ());
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (app), "help");
  g_auto(GStrv) accels = gtk_application_get_accels_for_action (app, "app.help");
  guint count = 0;
  gulong handler;

  sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  g_assert_nonnull (action);
  g_assert_cmpstrv (accels, ((const char *[]) { "F1", NULL }));
  g_ptr_array_set_size (opened, 0);
  launcher_fails = FALSE;

  handler = g_signal_connect (action, "activate", G_CALLBACK (count_cb), &count);
  sj_test_key_window_press (&keys, (const char *[]) { "F1", NULL });
  g_signal_handler_disconnect (action, handler);
  sj_test_spin_until (opened_one, GUINT_TO_POINTER (1), "F1 to open the help");

  g_assert_cmpuint (count, ==, 1);
  g_assert_cmpuint (opened->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (opened, 0), ==, "help:strudel-jam");
  g_assert_cmpstr (SJ_HELP_URI, ==, "help:strudel-jam");
}

static gboolean
is_main_menu_button (GtkWidget *widget,
                     gpointer   data)
{
  return GTK_IS_MENU_BUTTON (widget) &&
         g_strcmp0 (gtk_menu_button_get_icon_name (GTK_MENU_BUTTON (widget)), "open-menu-symbolic") == 0;
}

static gboolean
is_help_item (GtkWidget *widget,
              gpointer   data)
{
  g_autofree char *text = NULL;

  if (!G_TYPE_CHECK_INSTANCE_TYPE (widget, g_type_from_name ("GtkModelButton")) || !gtk_widget_get_mapped (widget))
    return FALSE;
  g_object_get (widget, "text", &text, NULL);

  /* The label as shown: the mnemonic's underscore is gone. */
  return g_strcmp0 (text, "Help") == 0;
}

static GtkWidget *
find_label (GtkWidget  *root,
            const char *text)
{
  if (GTK_IS_LABEL (root) && g_str_equal (gtk_label_get_text (GTK_LABEL (root)), text))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_label (child, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
popover_shown (gpointer data)
{
  GtkPopover *popover = gtk_menu_button_get_popover (data);

  return popover != NULL && gtk_widget_get_mapped (GTK_WIDGET (popover));
}

static gboolean
popover_hidden (gpointer data)
{
  return !popover_shown (data);
}

/* Main Menu → Help: an item a screen reader names "Help", beside Keyboard
 * Shortcuts, that opens the same help. */
static void
test_main_menu (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  GtkWidget *menu_button = sj_test_find_widget (GTK_WIDGET (window), is_main_menu_button, NULL);
  GtkPopover *popover;
  GtkWidget *item;
  GtkWidget *label;

  g_assert_nonnull (menu_button);
  g_ptr_array_set_size (opened, 0);
  launcher_fails = FALSE;

  /* Without autohide the menu takes no X grab, which would keep the
   * keyboard from the window after it closes (no window manager here). */
  gtk_popover_set_autohide (gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu_button)), FALSE);
  gtk_menu_button_popup (GTK_MENU_BUTTON (menu_button));
  sj_test_spin_until (popover_shown, menu_button, "the main menu");
  popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu_button));
  sj_test_widgets_spin_until ((gboolean (*) (gpointer))gtk_widget_get_mapped, popover, WAIT_TIMEOUT_S, "the menu mapped");
  item = sj_test_find_widget (GTK_WIDGET (popover), is_help_item, NULL);
  g_assert_nonnull (item);

  /* Its accessible name: a label of its own, or the "Help" label it holds. */
  label = find_label (item, "Help");
  g_assert_nonnull (label);
  if (!gtk_test_accessible_has_property (GTK_ACCESSIBLE (item), GTK_ACCESSIBLE_PROPERTY_LABEL))
    {
      g_assert_true (gtk_test_accessible_has_relation (GTK_ACCESSIBLE (item), GTK_ACCESSIBLE_RELATION_LABELLED_BY));
      gtk_test_accessible_assert_relation (GTK_ACCESSIBLE (item), GTK_ACCESSIBLE_RELATION_LABELLED_BY, label, NULL);
    }
  g_assert_true (gtk_test_accessible_has_role (GTK_ACCESSIBLE (item), GTK_ACCESSIBLE_ROLE_MENU_ITEM));

  g_assert_true (gtk_widget_activate (item));
  sj_test_spin_until (opened_one, GUINT_TO_POINTER (1), "Main Menu → Help to open the help");
  g_assert_cmpstr (g_ptr_array_index (opened, 0), ==, "help:strudel-jam");

  /* The menu closed itself; the window takes the keyboard back (no window
   * manager under Xvfb gives it back). */
  sj_test_spin_until (popover_hidden, menu_button, "the main menu to close");
  gtk_popover_set_autohide (popover, TRUE);
  sj_test_key_window_attach (&keys, GTK_WINDOW (window), WAIT_TIMEOUT_S);
  sj_test_key_window_press (&keys, (const char *[]) { NULL });
}

typedef struct
{
  SjWindow   *window;
  const char *prefix;
  const char *not_this;  /* an earlier toast that may still show */
} ToastSearch;

static gboolean
find_toast_label (GtkWidget   *root,
                  ToastSearch *search)
{
  if (GTK_IS_LABEL (root))
    {
      const char *text = gtk_label_get_text (GTK_LABEL (root));

      if (g_str_has_prefix (text, search->prefix) && (search->not_this == NULL || !g_str_equal (text, search->not_this)))
        {
          g_test_message ("toast: %s", text);
          return TRUE;
        }
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (find_toast_label (child, search))
      return TRUE;
  return FALSE;
}

static gboolean
toast_shown (gpointer data)
{
  ToastSearch *search = data;

  return find_toast_label (GTK_WIDGET (search->window->toast_overlay), search);
}

/* When the help cannot be opened (no help viewer), a toast says why rather
 * than nothing happening. */
static void
test_cannot_open (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  ToastSearch search = { window, "The help could not be opened: No help viewer for this test", NULL };

  g_ptr_array_set_size (opened, 0);
  launcher_fails = TRUE;
  g_test_expect_message ("StrudelJam", G_LOG_LEVEL_MESSAGE, "Could not open the help*");
  sj_test_key_window_press (&keys, (const char *[]) { "F1", NULL });
  sj_test_spin_until (toast_shown, &search, "the toast saying the help could not be opened");
  g_test_assert_expected_messages ();
  g_assert_cmpuint (opened->len, ==, 1);
  launcher_fails = FALSE;
}

/* The real launcher where nothing handles help: URIs (Yelp absent, as in a
 * bare build machine): GTK's error reaches the toast. */
static void
test_no_viewer (void)
{
  g_autoptr(GAppInfo) viewer = g_app_info_get_default_for_uri_scheme ("help");
  SjWindow *window;
  ToastSearch search = { NULL, "The help could not be opened: ",
                         "The help could not be opened: No help viewer for this test" };

  if (viewer != NULL)
    {
      g_test_skip ("a help viewer is installed here; opening it is not a test");
      return;
    }
  window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  search.window = window;
  _sj_application_set_uri_launcher (NULL);
  g_test_expect_message ("StrudelJam", G_LOG_LEVEL_MESSAGE, "Could not open the help*");
  sj_test_key_window_press (&keys, (const char *[]) { "F1", NULL });
  sj_test_spin_until (toast_shown, &search, "GTK's error in a toast");
  g_test_assert_expected_messages ();
  _sj_application_set_uri_launcher (test_launcher);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  /* Accessible properties are only kept with the test backend. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  g_setenv ("GDK_BACKEND", "x11", TRUE);
  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();
  opened = g_ptr_array_new_with_free_func (g_free);
  _sj_application_set_uri_launcher (test_launcher);

  g_test_add_func ("/help/f1", test_f1);
  g_test_add_func ("/help/main-menu", test_main_menu);
  g_test_add_func ("/help/cannot-open", test_cannot_open);
  g_test_add_func ("/help/no-viewer", test_no_viewer);

  ret = g_test_run ();

  if (sj_test_current_window () != NULL)
    sj_test_close_window (sj_test_current_window ());
  sj_test_app_stop ();
  sj_test_remove_tree (home);
  g_ptr_array_unref (opened);

  return ret;
}
