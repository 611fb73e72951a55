/* test-panel.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The side panel in the real window under Xvfb. At the panel's minimum and
 * default widths, in the light and dark styles, every page is rendered to
 * a PNG that must not be blank, and no label of the switcher is cut: each
 * has at least its natural width and none is ellipsized or wrapped. Every
 * page is reached by its shortcut typed as real key events (xdotool), the
 * switcher's groups remember their last page, and its buttons have
 * accessible names.
 */

#include "config.h"

#include <string.h>

#include "sj-agent.h"
#include "sj-skills-page-private.h"
#include "sj-test-app.h"
#include "sj-test-model-server.h"
#include "sj-test-widgets.h"
#include "sj-window-private.h"

#define WAIT_TIMEOUT_S 60

/* The panel's width at the first start (the panel-width setting). */
#define DEFAULT_PANEL_WIDTH 380

static SjTestKeyWindow keys;

static const struct {
  const char *page;
  const char *title;
  const char *keys;
} pages[] = {
  { "chat", "Chat", "ctrl+l" },
  { "reference", "Reference", "ctrl+shift+r" },
  { "sounds", "Sounds", "ctrl+shift+s" },
  { "skills", "Skills", "ctrl+shift+j" },
  { "sessions", "Sessions", "ctrl+shift+h" },
  { "tool-logs", "Logs", "ctrl+shift+l" },
  { "console", "Console", "ctrl+shift+c" },
  { "agent-settings", "Settings", "ctrl+comma" },
};

static int
panel_minimum_width (SjWindow *window)
{
  int minimum = 0;

  gtk_widget_measure (window->panel, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
  return minimum;
}

typedef struct
{
  SjWindow *window;
  int       width;
} PanelWidth;

static gboolean
panel_has_width (gpointer data)
{
  PanelWidth *check = data;

  return gtk_widget_get_width (check->window->panel) == check->width;
}

/* Moves the divider until the panel is @width wide, as dragging it would. */
static void
set_panel_width (SjWindow *window,
                 int       width)
{
  PanelWidth check = { window, width };

  for (guint attempt = 0; attempt < 5 && !panel_has_width (&check); attempt++)
    {
      int position = gtk_paned_get_position (window->paned);

      gtk_paned_set_position (window->paned, position + gtk_widget_get_width (window->panel) - width);
      sj_test_key_window_wait_frames (&keys, 3);
    }
  g_assert_cmpint (gtk_widget_get_width (window->panel), ==, width);
}

static void
assert_labels_uncut (GtkWidget  *root,
                     const char *where)
{
  g_autoptr(GPtrArray) labels = sj_test_find_all_by_type (root, GTK_TYPE_LABEL);
  guint checked = 0;

  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = labels->pdata[i];
      PangoLayout *layout;
      int natural = 0;

      if (!gtk_widget_get_mapped (label))
        continue;

      gtk_widget_measure (label, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
      layout = gtk_label_get_layout (GTK_LABEL (label));
      if (gtk_widget_get_width (label) < natural || pango_layout_is_ellipsized (layout) ||
          pango_layout_get_line_count (layout) != 1)
        g_error ("%s: the label “%s” is cut: %d of %d pixels, %sellipsized, %d lines", where,
                 gtk_label_get_text (GTK_LABEL (label)), gtk_widget_get_width (label), natural,
                 pango_layout_is_ellipsized (layout) ? "" : "not ", pango_layout_get_line_count (layout));
      checked++;
    }

  /* The four groups, and a group's pages. */
  g_assert_cmpuint (checked, >=, 4);
}

/* Saves the panel as @name and returns its mean luma (0 to 255), having
 * checked it is not blank. */
static double
screenshot (SjWindow   *window,
            const char *name)
{
  g_autoptr(GdkTexture) texture = sj_test_render_widget (window->panel);
  g_autofree char *path = NULL;
  guint colours;
  double luma;

  path = sj_test_save_png (texture, name);
  colours = sj_test_count_colours (texture, &luma);
  g_test_message ("%s: %d×%d, %u colours, mean luma %.0f", path, gdk_texture_get_width (texture),
                  gdk_texture_get_height (texture), colours, luma);
  /* Not blank: the switcher's icons and text make many colours. */
  g_assert_cmpuint (colours, >, 30);

  return luma;
}

static gboolean
style_is_dark (gpointer data)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ()) == GPOINTER_TO_INT (data);
}

/* Every page at the panel's minimum and default widths, light and dark. */
static void
test_fits (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  AdwStyleManager *style = adw_style_manager_get_default ();
  GtkWidget *switcher = GTK_WIDGET (window->panel_switcher);
  int minimum = panel_minimum_width (window);
  const struct {
    const char *name;
    int         width;
  } widths[] = { { "minimum", minimum }, { "default", DEFAULT_PANEL_WIDTH } };
  double luma[2] = { 0, 0 };

  g_test_message ("the panel's minimum width is %d pixels", minimum);
  g_assert_cmpint (minimum, <=, DEFAULT_PANEL_WIDTH);

  /* Dragging the divider all the way stops at the minimum. */
  gtk_paned_set_position (window->paned, gtk_widget_get_width (GTK_WIDGET (window->paned)));
  sj_test_key_window_wait_frames (&keys, 3);
  g_assert_cmpint (gtk_widget_get_width (window->panel), ==, minimum);

  for (guint dark = 0; dark < 2; dark++)
    {
      adw_style_manager_set_color_scheme (style, dark ? ADW_COLOR_SCHEME_FORCE_DARK : ADW_COLOR_SCHEME_FORCE_LIGHT);
      sj_test_spin_until (style_is_dark, GINT_TO_POINTER (dark), "the style to change");

      for (guint w = 0; w < G_N_ELEMENTS (widths); w++)
        {
          set_panel_width (window, widths[w].width);

          for (guint p = 0; p < G_N_ELEMENTS (pages); p++)
            {
              g_autofree char *name = g_strdup_printf ("panel-%s-%s-%s.png", widths[w].name,
                                                       dark ? "dark" : "light", pages[p].page);
              g_autofree char *where = g_strdup_printf ("%s at %d pixels", pages[p].page, widths[w].width);

              adw_view_stack_set_visible_child_name (window->panel_stack, pages[p].page);
              /* Buttons fade between states in 200 ms: let them settle. */
              sj_test_key_window_wait_frames (&keys, 20);
              /* The same minimum on every page: the panel never moves. */
              g_assert_cmpint (panel_minimum_width (window), ==, minimum);
              g_assert_cmpint (gtk_widget_get_width (window->panel), ==, widths[w].width);
              assert_labels_uncut (switcher, where);
              luma[dark] += screenshot (window, name);
            }
        }
    }

  /* The dark style is dark. */
  g_assert_cmpfloat (luma[1] + 60 * G_N_ELEMENTS (pages) * G_N_ELEMENTS (widths), <, luma[0]);

  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  set_panel_width (window, DEFAULT_PANEL_WIDTH);
}

/* Every page is one shortcut away, whatever has the keyboard. */
static void
test_shortcuts (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  GVariant *visible;

  /* From the code editor… */
  gtk_widget_grab_focus (sj_repl_get_widget (_sj_window_get_repl (window)));
  for (guint p = 0; p < G_N_ELEMENTS (pages); p++)
    {
      sj_test_key_window_press (&keys, (const char *[]) { pages[p].keys, NULL });
      g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->panel_stack), ==, pages[p].page);
      g_assert_true (gtk_widget_get_mapped (adw_view_stack_get_visible_child (window->panel_stack)));
    }

  /* …and from the panel, in reverse order. */
  for (guint p = G_N_ELEMENTS (pages); p > 0; p--)
    {
      sj_test_key_window_press (&keys, (const char *[]) { pages[p - 1].keys, NULL });
      g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->panel_stack), ==, pages[p - 1].page);
    }

  /* F9 hides the panel; a page's shortcut brings it back on that page. */
  sj_test_key_window_press (&keys, (const char *[]) { "F9", NULL });
  g_assert_false (gtk_widget_get_visible (window->panel));
  sj_test_key_window_press (&keys, (const char *[]) { "ctrl+shift+s", NULL });
  g_assert_true (gtk_widget_get_visible (window->panel));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->panel_stack), ==, "sounds");
  visible = g_action_group_get_action_state (G_ACTION_GROUP (window), "show-panel");
  g_assert_true (g_variant_get_boolean (visible));
  g_variant_unref (visible);
}

typedef struct
{
  const char *label;
} LabelMatch;

static gboolean
is_button_labelled (GtkWidget *widget,
                    gpointer   data)
{
  GtkWidget *child;

  if (!GTK_IS_TOGGLE_BUTTON (widget))
    return FALSE;

  child = gtk_button_get_child (GTK_BUTTON (widget));
  if (GTK_IS_LABEL (child))
    return g_strcmp0 (gtk_label_get_text (GTK_LABEL (child)), data) == 0;

  child = sj_test_find_by_type (widget, GTK_TYPE_LABEL);
  return child != NULL && g_strcmp0 (gtk_label_get_text (GTK_LABEL (child)), data) == 0;
}

static GtkWidget *
find_button (SjWindow   *window,
             const char *label)
{
  GtkWidget *button = sj_test_find_widget (GTK_WIDGET (window->panel_switcher), is_button_labelled, (gpointer)label);

  g_assert_nonnull (button);
  return button;
}

/* Clicking a group shows the page last shown in it; every button is
 * named for assistive technologies and names its shortcut. */
static void
test_switcher (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  const char *groups[] = { "Chat", "Library", "History", "Settings" };
  g_autofree char *tooltip = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (groups); i++)
    {
      GtkWidget *button = find_button (window, groups[i]);

      gtk_test_accessible_assert_property (button, GTK_ACCESSIBLE_PROPERTY_LABEL, groups[i]);
      g_assert_nonnull (gtk_widget_get_tooltip_text (button));
    }
  g_assert_cmpstr (gtk_widget_get_tooltip_text (find_button (window, "Chat")), ==, "Chat (Ctrl+L)");

  for (guint p = 1; p < G_N_ELEMENTS (pages) - 1; p++)
    {
      GtkWidget *button = find_button (window, pages[p].title);

      gtk_test_accessible_assert_property (button, GTK_ACCESSIBLE_PROPERTY_LABEL, pages[p].title);
    }
  tooltip = g_strdup (gtk_widget_get_tooltip_text (find_button (window, "Sounds")));
  g_assert_cmpstr (tooltip, ==, "Sounds (Shift+Ctrl+S)");

  /* Library remembers Sounds; History remembers the Console. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-sounds", NULL);
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-console", NULL);
  sj_test_click (find_button (window, "Chat"));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->panel_stack), ==, "chat");
  g_assert_false (gtk_widget_get_mapped (find_button (window, "Sounds")));
  g_assert_false (gtk_widget_get_mapped (find_button (window, "Console")));

  sj_test_click (find_button (window, "Library"));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->panel_stack), ==, "sounds");
  g_assert_true (gtk_widget_get_mapped (find_button (window, "Sounds")));
  g_assert_true (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (find_button (window, "Sounds"))));

  sj_test_click (find_button (window, "Reference"));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->panel_stack), ==, "reference");

  sj_test_click (find_button (window, "History"));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->panel_stack), ==, "console");
  g_assert_true (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (find_button (window, "History"))));
  g_assert_false (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (find_button (window, "Library"))));

  sj_test_click (find_button (window, "Settings"));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->panel_stack), ==, "agent-settings");

  /* win.show-skill opens one skill of the application's registry. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-skill", g_variant_new_string ("jazz"));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->panel_stack), ==, "skills");
  g_assert_nonnull (_sj_skills_page_get_shown (_sj_window_get_skills_page (window)));
  g_assert_cmpstr (sj_skill_get_name (_sj_skills_page_get_shown (_sj_window_get_skills_page (window))), ==, "jazz");
  g_assert_true (sj_skills_page_get_registry (_sj_window_get_skills_page (window)) ==
                 sj_application_get_skills (SJ_APPLICATION (gtk_window_get_application (GTK_WINDOW (window)))));
}

/* Every shortcut the shortcuts window lists ------------------------------- */

/* Each listed accelerator; an entry such as "Tab <Shift>Tab" is two. */
static GPtrArray *
listed_accelerators (void)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/io/github/strudeljam/StrudelJam/gtk/help-overlay.ui");
  GPtrArray *listed = g_ptr_array_new_with_free_func (g_free);
  GSList *objects = gtk_builder_get_objects (builder);

  for (GSList *l = objects; l != NULL; l = l->next)
    if (GTK_IS_SHORTCUTS_SHORTCUT (l->data))
      {
        g_autofree char *accelerator = NULL;
        g_auto(GStrv) parts = NULL;

        g_object_get (l->data, "accelerator", &accelerator, NULL);
        parts = g_strsplit (accelerator, " ", -1);
        for (guint i = 0; parts[i] != NULL; i++)
          if (*parts[i] != '\0' && !g_ptr_array_find_with_equal_func (listed, parts[i], g_str_equal, NULL))
            g_ptr_array_add (listed, g_strdup (parts[i]));
      }
  g_slist_free (objects);

  return listed;
}

/* The xdotool name of @accelerator: "<Control><Shift>period" is
 * "ctrl+shift+period", as a US keyboard types it. */
static char *
xdotool_keys (const char *accelerator)
{
  GString *names = g_string_new (NULL);
  GdkModifierType mods;
  guint keyval;

  g_assert_true (gtk_accelerator_parse (accelerator, &keyval, &mods));
  if (mods & GDK_CONTROL_MASK)
    g_string_append (names, "ctrl+");
  if (mods & GDK_ALT_MASK)
    g_string_append (names, "alt+");
  if (mods & GDK_SHIFT_MASK)
    g_string_append (names, "shift+");
  g_string_append (names, gdk_keyval_name (keyval));

  return g_string_free (names, FALSE);
}

static void
count_cb (GSimpleAction *action,
          GVariant      *parameter,
          guint         *count)
{
  (*count)++;
}

/* Keys that act where the keyboard is rather than on a window action, and
 * the test that types them there. */
static const struct {
  const char *accelerator;
  const char *tested_in;
} context_keys[] = {
  { "Return", "test-composer (send), test-sounds-page (play), test-first-run" },
  { "<Shift>Return", "test-composer (a new line)" },
  { "Escape", "/panel/stop-agent here; test-chat (the message box); the reference's back" },
  { "Tab", "test-first-run (leaving the editor)" },
  { "<Shift>Tab", "test-first-run (back into the editor)" },
  { "F6", "/panel/every-shortcut here; test-first-run" },
  { "Down", "test-sounds-page (from the search to the list)" },
};

static gboolean
is_context_key (const char *accelerator)
{
  for (guint i = 0; i < G_N_ELEMENTS (context_keys); i++)
    if (g_str_equal (context_keys[i].accelerator, accelerator))
      return TRUE;
  return FALSE;
}

static gboolean
help_overlay_shown (gpointer data)
{
  GtkShortcutsWindow *overlay = gtk_application_window_get_help_overlay (data);

  return overlay != NULL && gtk_widget_get_visible (GTK_WIDGET (overlay));
}

/* Each accelerator of the shortcuts window, typed as real key presses,
 * activates its action once; the ones that act in place are tested where
 * they act (context_keys). */
static void
test_every_shortcut (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  GtkApplication *app = GTK_APPLICATION (g_application_get_default ());
  g_autoptr(GPtrArray) listed = listed_accelerators ();
  guint typed = 0;

  g_assert_cmpuint (listed->len, >=, 20);
  for (guint i = 0; i < listed->len; i++)
    {
      const char *accelerator = g_ptr_array_index (listed, i);
      g_auto(GStrv) actions = gtk_application_get_actions_for_accel (app, accelerator);
      g_autofree char *keys_name = NULL;
      GActionMap *map;
      GAction *action;
      guint count = 0;
      gulong handler;

      if (actions[0] == NULL)
        {
          if (!is_context_key (accelerator))
            g_error ("%s is in the shortcuts window, but no action has it and no test types it", accelerator);
          continue;
        }

      /* Quitting would end the test; its accelerator is all there is to check. */
      if (g_str_equal (actions[0], "app.quit"))
        continue;
      /* The shortcuts window takes the keyboard: typed last, below. */
      if (g_str_equal (actions[0], "win.show-help-overlay"))
        continue;

      map = g_str_has_prefix (actions[0], "app.") ? G_ACTION_MAP (app) : G_ACTION_MAP (window);
      action = g_action_map_lookup_action (map, strchr (actions[0], '.') + 1);
      g_assert_nonnull (action);
      g_assert_true (G_IS_SIMPLE_ACTION (action));

      keys_name = xdotool_keys (accelerator);
      handler = g_signal_connect (action, "activate", G_CALLBACK (count_cb), &count);
      sj_test_key_window_press (&keys, (const char *[]) { keys_name, NULL });
      g_signal_handler_disconnect (action, handler);
      g_test_message ("%s (%s): %s, activated %u time(s)", accelerator, keys_name, actions[0], count);
      if (count != 1)
        g_error ("%s, typed as %s, activated %s %u times", accelerator, keys_name, actions[0], count);
      typed++;

      /* F9 hid the panel: show it again for the next keys. */
      if (!gtk_widget_get_visible (window->panel))
        sj_test_key_window_press (&keys, (const char *[]) { "F9", NULL });
    }
  g_assert_cmpuint (typed, >=, 16);

  /* F6 moves between the editor and the side panel. */
  gtk_widget_grab_focus (sj_repl_get_widget (_sj_window_get_repl (window)));
  sj_test_key_window_press (&keys, (const char *[]) { "F6", NULL });
  sj_test_spin_until ((gboolean (*) (gpointer))sj_test_has_focus_within, window->panel, "F6 to reach the panel");

  /* Ctrl+? shows the shortcuts window. */
  {
    /* GTK 4.8's shortcuts window warns about a label of its own ("reported
     * min width -3") as it lays out: warnings are not fatal while it shows. */
    GLogLevelFlags fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);

    /* No F12 barrier: the shortcuts window takes the keyboard. */
    sj_test_run_xdotool ((const char *[]) { "key", "ctrl+question", NULL });
    sj_test_spin_until (help_overlay_shown, window, "the shortcuts window");
    gtk_widget_set_visible (GTK_WIDGET (gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window))), FALSE);
    sj_test_key_window_wait_frames (&keys, 3);
    g_log_set_always_fatal (fatal);
  }
  sj_test_key_window_attach (&keys, GTK_WINDOW (window), WAIT_TIMEOUT_S);
  sj_test_key_window_press (&keys, (const char *[]) { NULL });
}

static gboolean
agent_busy (gpointer data)
{
  return sj_agent_is_busy (data);
}

static gboolean
agent_idle (gpointer data)
{
  return !sj_agent_is_busy (data);
}

static void
sent_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  GError **error = user_data;

  sj_agent_send_finish (SJ_AGENT (object), result, error);
}

/* A stalled answer stops from the keyboard with the code editor focused:
 * Escape, and Ctrl+Shift+. as a US keyboard sends it (Ctrl+>). */
static void
test_stop_agent (void)
{
  g_autoptr(SjTestModelServer) server = sj_test_model_server_new ();
  g_autoptr(GSettings) settings = g_settings_new ("io.github.strudeljam.StrudelJam");
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  const char *stop_keys[] = { "Escape", "ctrl+shift+period" };
  SjAgent *agent;

  sj_test_model_server_set_models (server, "{\"data\":[{\"id\":\"test/model\"}]}");
  g_settings_set_string (settings, "provider", "custom");
  g_settings_set_string (settings, "base-url", sj_test_model_server_get_url (server));
  g_settings_set_string (settings, "model", "test/model");
  sj_test_spin_until (sj_test_agent_is_ready, window, "the agent to be set up");
  agent = sj_window_get_agent (window);

  for (guint i = 0; i < G_N_ELEMENTS (stop_keys); i++)
    {
      g_autoptr(GError) error = NULL;

      sj_test_model_server_reply_hold (server, "Thinking about it");
      sj_agent_send_async (agent, "make it groovier", NULL, sent_cb, &error);
      sj_test_spin_until (agent_busy, agent, "the agent to answer");
      gtk_widget_grab_focus (sj_repl_get_widget (_sj_window_get_repl (window)));
      sj_test_key_window_press (&keys, (const char *[]) { stop_keys[i], NULL });
      sj_test_spin_until (agent_idle, agent, "the key to stop the agent");
      g_test_message ("%s stopped the agent", stop_keys[i]);
      /* The key went no further: the editor still has the keyboard. */
      g_assert_true (gtk_widget_has_focus (sj_repl_get_widget (_sj_window_get_repl (window))) ||
                     sj_test_has_focus_within (sj_repl_get_widget (_sj_window_get_repl (window))));
    }

  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");
}

/* Every control named ------------------------------------------------------ */

/* The widgets a screen reader lands on and must name. */
static gboolean
is_control (GtkWidget *widget)
{
  GtkWidget *parent = gtk_widget_get_parent (widget);

  /* A menu button's own toggle is the menu button to a screen reader; a
   * spin button's and an entry row's text are their parent. */
  if (parent != NULL && (GTK_IS_MENU_BUTTON (parent) || GTK_IS_SPIN_BUTTON (parent) || GTK_IS_DROP_DOWN (parent)))
    return FALSE;
  if (GTK_IS_TEXT (widget) && parent != NULL && gtk_widget_get_ancestor (parent, GTK_TYPE_EDITABLE) != NULL)
    return FALSE;

  return GTK_IS_BUTTON (widget) || GTK_IS_MENU_BUTTON (widget) || GTK_IS_EXPANDER (widget) ||
         GTK_IS_SWITCH (widget) || GTK_IS_CHECK_BUTTON (widget) || GTK_IS_SCALE (widget) ||
         GTK_IS_DROP_DOWN (widget) || GTK_IS_SPIN_BUTTON (widget) || GTK_IS_EDITABLE (widget) ||
         (GTK_IS_LIST_BOX_ROW (widget) && gtk_list_box_row_get_activatable (GTK_LIST_BOX_ROW (widget)));
}

static gboolean
has_text_label (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget) && *gtk_label_get_text (GTK_LABEL (widget)) != '\0')
    return TRUE;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (has_text_label (child))
      return TRUE;

  return FALSE;
}

/* A label of its own, or labelled by a widget with text. GTK labels a
 * button by its child, which names nothing when the child is an icon:
 * such a button needs a label of its own. */
static gboolean
is_named (GtkWidget *widget)
{
  if (gtk_test_accessible_has_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL))
    return TRUE;
  if (!gtk_test_accessible_has_relation (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_RELATION_LABELLED_BY))
    return FALSE;
  if (GTK_IS_BUTTON (widget) || GTK_IS_MENU_BUTTON (widget) || GTK_IS_EXPANDER (widget))
    return has_text_label (widget);

  return TRUE;
}

static void
collect_unnamed (GtkWidget  *widget,
                 const char *where,
                 GString    *unnamed,
                 guint      *checked)
{
  if (!gtk_widget_get_mapped (widget))
    return;

  if (is_control (widget))
    {
      GtkWidget *icon = GTK_IS_BUTTON (widget) ? gtk_button_get_child (GTK_BUTTON (widget)) : NULL;

      /* An icon-only button says what it does on hover too. */
      if (GTK_IS_IMAGE (icon) && gtk_widget_get_tooltip_text (widget) == NULL &&
          gtk_widget_get_ancestor (widget, GTK_TYPE_WINDOW_CONTROLS) == NULL)
        g_string_append_printf (unnamed, "  %s: an icon-only %s (%s) in %s without a tooltip\n", where, G_OBJECT_TYPE_NAME (widget),
                                gtk_image_get_icon_name (GTK_IMAGE (icon)), G_OBJECT_TYPE_NAME (gtk_widget_get_parent (widget)));
      (*checked)++;
      if (!is_named (widget))
        {
          const char *tooltip = gtk_widget_get_tooltip_text (widget);
          GtkWidget *label = GTK_IS_BUTTON (widget) ? gtk_button_get_child (GTK_BUTTON (widget)) : NULL;

          GtkWidget *parent = gtk_widget_get_parent (widget);

          g_string_append_printf (unnamed, "  %s: %s in %s in %s (%s%s%s)\n", where, G_OBJECT_TYPE_NAME (widget),
                                  G_OBJECT_TYPE_NAME (parent),
                                  G_OBJECT_TYPE_NAME (gtk_widget_get_parent (parent)),
                                  tooltip != NULL ? tooltip : "",
                                  GTK_IS_LABEL (label) ? " label: " : "",
                                  GTK_IS_LABEL (label) ? gtk_label_get_text (GTK_LABEL (label)) : "");
        }
    }

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    collect_unnamed (child, where, unnamed, checked);
}

/* Every button, toggle, expander, entry and activatable row of the main
 * view and of every panel page has an accessible name, and icon-only
 * buttons keep their tooltips. */
static void
test_accessible_names (void)
{
  SjWindow *window = sj_test_open_key_window (&keys, WAIT_TIMEOUT_S);
  g_autoptr(SjTestModelServer) server = sj_test_model_server_new ();
  g_autoptr(GSettings) settings = g_settings_new ("io.github.strudeljam.StrudelJam");
  g_autoptr(GString) unnamed = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  guint checked = 0;

  /* Before a model is set up: the onboarding. */
  for (guint p = 0; p < G_N_ELEMENTS (pages); p++)
    {
      adw_view_stack_set_visible_child_name (window->panel_stack, pages[p].page);
      sj_test_key_window_wait_frames (&keys, 3);
      collect_unnamed (GTK_WIDGET (window), pages[p].page, unnamed, &checked);
    }

  /* With a model and a conversation: the composer, messages, tool logs,
   * a session. */
  sj_test_model_server_set_models (server, "{\"data\":[{\"id\":\"test/model\"}]}");
  g_settings_set_string (settings, "provider", "custom");
  g_settings_set_string (settings, "base-url", sj_test_model_server_get_url (server));
  g_settings_set_string (settings, "model", "test/model");
  sj_test_spin_until (sj_test_agent_is_ready, window, "the agent to be set up");
  sj_test_model_server_reply_tool_call (server, "Looking it up.", "k1", "strudel_knowledge", "{\"query\":\"lpf\"}");
  sj_test_model_server_reply_text (server, "Here is **an answer** with `code`.", 8);
  sj_agent_send_async (sj_window_get_agent (window), "what is lpf", NULL, sent_cb, &error);
  sj_test_spin_until (agent_busy, sj_window_get_agent (window), "the agent to answer");
  sj_test_spin_until (agent_idle, sj_window_get_agent (window), "the answer");
  g_assert_no_error (error);

  for (guint p = 0; p < G_N_ELEMENTS (pages); p++)
    {
      adw_view_stack_set_visible_child_name (window->panel_stack, pages[p].page);
      sj_test_key_window_wait_frames (&keys, 3);
      collect_unnamed (GTK_WIDGET (window), pages[p].page, unnamed, &checked);
    }

  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "base-url");
  g_settings_reset (settings, "model");

  g_test_message ("%u controls checked", checked);
  if (unnamed->len > 0)
    g_error ("Controls without an accessible name:\n%s", unnamed->str);
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

  g_test_add_func ("/panel/fits", test_fits);
  g_test_add_func ("/panel/shortcuts", test_shortcuts);
  g_test_add_func ("/panel/switcher", test_switcher);
  g_test_add_func ("/panel/stop-agent", test_stop_agent);
  g_test_add_func ("/panel/every-shortcut", test_every_shortcut);
  g_test_add_func ("/panel/accessible-names", test_accessible_names);

  ret = g_test_run ();

  if (sj_test_current_window () != NULL)
    sj_test_close_window (sj_test_current_window ());
  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
