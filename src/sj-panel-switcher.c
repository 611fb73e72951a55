/* sj-panel-switcher.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The side panel's switcher. Eight titles do not fit a view switcher at the
 * panel's width, and the HIG keeps a view switcher to five views at most, so
 * the pages come in four groups: a row of Chat, Library, History and
 * Settings, each an icon over its name as in a narrow AdwViewSwitcher, and
 * under it, for a group of several pages, a row of linked buttons naming
 * them (Reference, Sounds, Skills; Sessions, Logs, Console).
 *
 * The pages stay one flat AdwViewStack: showing a page by its name (the
 * win.show-* actions, the panel-page setting) works as before, and the
 * switcher only follows the stack's visible page, remembering the page last
 * shown in each group. Its labels never ellipsize, so its minimum width is
 * that of its labels and the panel cannot be made narrower than that. Every
 * button names its page's shortcut in its tooltip.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-panel-switcher.h"

typedef struct
{
  const char *name;
  const char *title;
  const char *icon_name;
  const char *description; /* the tooltip of a group of several pages */
  const char *pages[4];
} Group;

static const Group groups[] = {
  { "chat", N_("Chat"), "chat-message-new-symbolic", NULL, { "chat", NULL } },
  { "library", N_("Library"), "accessories-dictionary-symbolic", N_("Function reference, sounds and skills"),
    { "reference", "sounds", "skills", NULL } },
  { "history", N_("History"), "document-open-recent-symbolic", N_("Sessions, tool logs and the console"),
    { "sessions", "tool-logs", "console", NULL } },
  { "settings", N_("Settings"), "emblem-system-symbolic", NULL, { "agent-settings", NULL } },
};

#define N_GROUPS G_N_ELEMENTS (groups)

struct _SjPanelSwitcher
{
  GtkWidget           parent_instance;

  AdwViewStack       *stack;
  GtkSelectionModel  *pages;       /* the stack's, for its titles */
  GtkWidget          *group_buttons[N_GROUPS];
  GtkStack           *rows;                 /* a row of pages per group */
  GHashTable         *page_buttons;         /* page name → its button in a row */
  char               *last_pages[N_GROUPS];
  gboolean            syncing;
};

G_DEFINE_FINAL_TYPE (SjPanelSwitcher, sj_panel_switcher, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_STACK,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static int
group_of_page (const char *page)
{
  for (guint i = 0; i < N_GROUPS; i++)
    for (guint j = 0; groups[i].pages[j] != NULL; j++)
      if (g_strcmp0 (groups[i].pages[j], page) == 0)
        return (int)i;

  return -1;
}

static gboolean
group_is_single (guint group)
{
  return groups[group].pages[1] == NULL;
}

static const char *
page_title (SjPanelSwitcher *self,
            const char      *page)
{
  GtkWidget *child;

  if (self->stack == NULL || (child = adw_view_stack_get_child_by_name (self->stack, page)) == NULL)
    return NULL;

  return adw_view_stack_page_get_title (adw_view_stack_get_page (self->stack, child));
}

/* The label of the first accelerator of the action that shows @page:
 * win.show-<page>, or for the Chat, win.focus-composer. */
static char *
dup_shortcut_label (GtkWidget  *widget,
                    const char *page)
{
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkApplication *app = GTK_IS_WINDOW (root) ? gtk_window_get_application (GTK_WINDOW (root)) : NULL;
  g_autofree char *action = NULL;
  g_auto(GStrv) accels = NULL;
  GdkModifierType mods;
  guint key;

  if (app == NULL)
    return NULL;

  action = g_str_equal (page, "chat") ? g_strdup ("win.focus-composer") : g_strconcat ("win.show-", page, NULL);
  accels = gtk_application_get_accels_for_action (app, action);
  if (accels[0] == NULL || !gtk_accelerator_parse (accels[0], &key, &mods))
    return NULL;

  return gtk_accelerator_get_label (key, mods);
}

static char *
dup_tooltip (GtkWidget  *widget,
             const char *title,
             const char *page)
{
  g_autofree char *shortcut = dup_shortcut_label (widget, page);

  if (shortcut == NULL)
    return g_strdup (title);

  /* TRANSLATORS: a page of the side panel and its keyboard shortcut, as in
   * "Sounds (Shift+Ctrl+S)" */
  return g_strdup_printf (_("%s (%s)"), title, shortcut);
}

/* Titles come from the stack's pages and shortcuts from the application, so
 * both are set again whenever either may have changed. */
static void
update_labels (SjPanelSwitcher *self)
{
  g_assert (SJ_IS_PANEL_SWITCHER (self));

  for (guint i = 0; i < N_GROUPS; i++)
    {
      GtkWidget *button = self->group_buttons[i];
      g_autofree char *tooltip = NULL;

      if (group_is_single (i))
        tooltip = dup_tooltip (button, _(groups[i].title), groups[i].pages[0]);
      else
        tooltip = g_strdup (_(groups[i].description));
      gtk_widget_set_tooltip_text (button, tooltip);

      for (guint j = 0; !group_is_single (i) && groups[i].pages[j] != NULL; j++)
        {
          const char *page = groups[i].pages[j];
          const char *title = page_title (self, page);
          g_autofree char *page_tooltip = NULL;

          button = g_hash_table_lookup (self->page_buttons, page);
          if (title == NULL)
            continue;

          page_tooltip = dup_tooltip (button, title, page);
          gtk_button_set_label (GTK_BUTTON (button), title);
          gtk_widget_set_tooltip_text (button, page_tooltip);
          gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
        }
    }
}

/* Shows the buttons of the stack's visible page. */
static void
sync_to_stack (SjPanelSwitcher *self)
{
  const char *page;
  GtkWidget *button;
  int group;

  g_assert (SJ_IS_PANEL_SWITCHER (self));

  page = self->stack != NULL ? adw_view_stack_get_visible_child_name (self->stack) : NULL;
  if ((group = group_of_page (page)) < 0)
    return;

  self->syncing = TRUE;

  g_free (self->last_pages[group]);
  self->last_pages[group] = g_strdup (page);

  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->group_buttons[group]), TRUE);
  gtk_stack_set_visible_child_name (self->rows, groups[group].name);
  if ((button = g_hash_table_lookup (self->page_buttons, page)) != NULL)
    gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (button), TRUE);

  self->syncing = FALSE;
}

static void
group_toggled_cb (SjPanelSwitcher *self,
                  GtkToggleButton *button)
{
  guint group = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "sj-group"));

  g_assert (SJ_IS_PANEL_SWITCHER (self));

  /* A click toggles two buttons of the group: act on the one turned on. */
  if (self->syncing || !gtk_toggle_button_get_active (button) || self->stack == NULL)
    return;

  adw_view_stack_set_visible_child_name (self->stack,
                                         self->last_pages[group] != NULL ? self->last_pages[group]
                                                                         : groups[group].pages[0]);
}

static void
page_toggled_cb (SjPanelSwitcher *self,
                 GtkToggleButton *button)
{
  g_assert (SJ_IS_PANEL_SWITCHER (self));

  if (self->syncing || !gtk_toggle_button_get_active (button) || self->stack == NULL)
    return;

  adw_view_stack_set_visible_child_name (self->stack, g_object_get_data (G_OBJECT (button), "sj-page"));
}

static GtkWidget *
create_group_button (SjPanelSwitcher *self,
                     guint            group,
                     GtkToggleButton *first)
{
  GtkWidget *button = gtk_toggle_button_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *label = gtk_label_new (_(groups[group].title));

  gtk_box_append (GTK_BOX (box), gtk_image_new_from_icon_name (groups[group].icon_name));
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_NONE);
  gtk_box_append (GTK_BOX (box), label);
  gtk_button_set_child (GTK_BUTTON (button), box);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_add_css_class (button, "sj-panel-group");
  gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (button), first);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _(groups[group].title), -1);

  g_object_set_data (G_OBJECT (button), "sj-group", GUINT_TO_POINTER (group));
  g_signal_connect_object (button, "toggled", G_CALLBACK (group_toggled_cb), self, G_CONNECT_SWAPPED);

  return button;
}

/* The linked row of a group's pages, titled once the stack is known; for
 * a group of one page, an empty row. */
static GtkWidget *
create_page_row (SjPanelSwitcher *self,
                 guint            group)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkToggleButton *first = NULL;

  if (group_is_single (group))
    return row;

  gtk_box_set_homogeneous (GTK_BOX (row), TRUE);
  gtk_widget_add_css_class (row, "linked");
  gtk_widget_set_margin_top (row, 6);

  for (guint j = 0; groups[group].pages[j] != NULL; j++)
    {
      GtkWidget *button = gtk_toggle_button_new_with_label (groups[group].pages[j]);

      gtk_label_set_ellipsize (GTK_LABEL (gtk_button_get_child (GTK_BUTTON (button))), PANGO_ELLIPSIZE_NONE);
      gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (button), first);
      if (first == NULL)
        first = GTK_TOGGLE_BUTTON (button);
      g_object_set_data (G_OBJECT (button), "sj-page", (gpointer)groups[group].pages[j]);
      g_signal_connect_object (button, "toggled", G_CALLBACK (page_toggled_cb), self, G_CONNECT_SWAPPED);
      g_hash_table_insert (self->page_buttons, (gpointer)groups[group].pages[j], button);
      gtk_box_append (GTK_BOX (row), button);
    }

  return row;
}

AdwViewStack *
sj_panel_switcher_get_stack (SjPanelSwitcher *self)
{
  g_return_val_if_fail (SJ_IS_PANEL_SWITCHER (self), NULL);

  return self->stack;
}

void
sj_panel_switcher_set_stack (SjPanelSwitcher *self,
                             AdwViewStack    *stack)
{
  g_return_if_fail (SJ_IS_PANEL_SWITCHER (self));
  g_return_if_fail (stack == NULL || ADW_IS_VIEW_STACK (stack));

  if (self->stack == stack)
    return;

  if (self->stack != NULL)
    g_signal_handlers_disconnect_by_data (self->stack, self);
  if (self->pages != NULL)
    g_signal_handlers_disconnect_by_data (self->pages, self);
  g_clear_object (&self->pages);
  g_set_object (&self->stack, stack);

  if (stack != NULL)
    {
      self->pages = adw_view_stack_get_pages (stack);
      g_signal_connect_object (stack, "notify::visible-child-name", G_CALLBACK (sync_to_stack), self,
                               G_CONNECT_SWAPPED);
      /* Pages added after the stack was set (GtkBuilder may set it first). */
      g_signal_connect_object (self->pages, "items-changed", G_CALLBACK (update_labels), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (self->pages, "items-changed", G_CALLBACK (sync_to_stack), self, G_CONNECT_SWAPPED);
    }

  update_labels (self);
  sync_to_stack (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STACK]);
}

/* GObject ---------------------------------------------------------------- */

static void
sj_panel_switcher_map (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (sj_panel_switcher_parent_class)->map (widget);

  /* The shortcuts are the application's, known once the window is in it. */
  update_labels (SJ_PANEL_SWITCHER (widget));
}

static void
sj_panel_switcher_dispose (GObject *object)
{
  SjPanelSwitcher *self = (SjPanelSwitcher *)object;
  GtkWidget *child;

  sj_panel_switcher_set_stack (self, NULL);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_pointer (&self->page_buttons, g_hash_table_unref);
  for (guint i = 0; i < N_GROUPS; i++)
    g_clear_pointer (&self->last_pages[i], g_free);

  G_OBJECT_CLASS (sj_panel_switcher_parent_class)->dispose (object);
}

static void
sj_panel_switcher_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  SjPanelSwitcher *self = SJ_PANEL_SWITCHER (object);

  switch (prop_id)
    {
    case PROP_STACK:
      g_value_set_object (value, self->stack);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_panel_switcher_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  SjPanelSwitcher *self = SJ_PANEL_SWITCHER (object);

  switch (prop_id)
    {
    case PROP_STACK:
      sj_panel_switcher_set_stack (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_panel_switcher_class_init (SjPanelSwitcherClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_panel_switcher_dispose;
  object_class->get_property = sj_panel_switcher_get_property;
  object_class->set_property = sj_panel_switcher_set_property;
  widget_class->map = sj_panel_switcher_map;

  properties[PROP_STACK] =
    g_param_spec_object ("stack", NULL, NULL,
                         ADW_TYPE_VIEW_STACK,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjpanelswitcher");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
sj_panel_switcher_init (SjPanelSwitcher *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));
  GtkWidget *groups_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  GtkToggleButton *first = NULL;

  self->page_buttons = g_hash_table_new (g_str_hash, g_str_equal);

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Side panel pages"), -1);

  gtk_box_set_homogeneous (GTK_BOX (groups_box), TRUE);
  gtk_widget_set_parent (groups_box, GTK_WIDGET (self));

  /* Every row counts for the width, shown or not, so that the panel's
   * minimum width is the same on every page. */
  self->rows = GTK_STACK (gtk_stack_new ());
  gtk_stack_set_hhomogeneous (self->rows, TRUE);
  gtk_stack_set_vhomogeneous (self->rows, FALSE);
  gtk_widget_set_parent (GTK_WIDGET (self->rows), GTK_WIDGET (self));

  for (guint i = 0; i < N_GROUPS; i++)
    {
      self->group_buttons[i] = create_group_button (self, i, first);
      if (first == NULL)
        first = GTK_TOGGLE_BUTTON (self->group_buttons[i]);
      gtk_box_append (GTK_BOX (groups_box), self->group_buttons[i]);
      gtk_stack_add_named (self->rows, create_page_row (self, i), groups[i].name);
    }
}
