/* sj-console-page.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Console page of the side panel: the REPL's log lines and evaluation
 * errors, newest last, with copy and clear. A GtkListView keeps long jams
 * cheap; the list stays pinned to the newest line unless the user scrolled
 * up to read something.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-console-page-private.h"

struct _SjConsolePage
{
  GtkWidget           parent_instance;

  GListStore         *store;

  GtkStack           *stack;
  GtkScrolledWindow  *scroller;
  GtkListView        *list_view;
  GtkSignalListItemFactory *factory;
  GtkLabel           *count_label;

  /* Pinned to the newest line: until the user scrolls up, and again once
   * they scroll back down. Kept apart from the adjustment, which reads 0
   * while the page is hidden (where most lines arrive). */
  gboolean            follow;
  double              last_value;
  guint               scroll_tick;
};

G_DEFINE_FINAL_TYPE (SjConsolePage, sj_console_page, GTK_TYPE_WIDGET)

static const char *level_classes[] = {
  NULL, "sj-log-highlight", "sj-log-warning", "sj-log-error",
};

static void
setup_row_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  user_data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "sj-log-message");
  gtk_list_item_set_child (item, label);
  gtk_list_item_set_activatable (item, FALSE);
}

static void
bind_row_cb (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             gpointer                  user_data)
{
  SjLogEntry *entry = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  g_autofree char *clock = g_date_time_format (sj_log_entry_get_time (entry), "%H:%M:%S");
  g_autofree char *escaped = g_markup_escape_text (sj_log_entry_get_message (entry), -1);
  g_autofree char *markup = g_strdup_printf ("<span alpha=\"60%%\">%s</span>  %s", clock, escaped);

  gtk_label_set_markup (GTK_LABEL (label), markup);

  for (guint i = 0; i < G_N_ELEMENTS (level_classes); i++)
    {
      if (level_classes[i] != NULL)
        gtk_widget_remove_css_class (label, level_classes[i]);
    }
  if (level_classes[sj_log_entry_get_level (entry)] != NULL)
    gtk_widget_add_css_class (label, level_classes[sj_log_entry_get_level (entry)]);
}

static void
update_count (SjConsolePage *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->store));
  g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u message", "%u messages", n), n);

  gtk_label_set_label (self->count_label, text);
  gtk_stack_set_visible_child_name (self->stack, n > 0 ? "messages" : "empty");
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "console.copy", n > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "console.clear", n > 0);
}

static void
copy_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  SjConsolePage *self = SJ_CONSOLE_PAGE (widget);
  g_autofree char *text = sj_console_page_dup_text (self);

  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text);
}

static void
clear_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *param)
{
  sj_console_page_clear (SJ_CONSOLE_PAGE (widget));
}

static void
sj_console_page_dispose (GObject *object)
{
  SjConsolePage *self = (SjConsolePage *)object;

  GtkWidget *child;

  if (self->scroll_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->scroll_tick);
  self->scroll_tick = 0;
  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_CONSOLE_PAGE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->store);

  G_OBJECT_CLASS (sj_console_page_parent_class)->dispose (object);
}

static void
sj_console_page_class_init (SjConsolePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_console_page_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-console-page.ui");
  gtk_widget_class_bind_template_child (widget_class, SjConsolePage, stack);
  gtk_widget_class_bind_template_child (widget_class, SjConsolePage, scroller);
  gtk_widget_class_bind_template_child (widget_class, SjConsolePage, list_view);
  gtk_widget_class_bind_template_child (widget_class, SjConsolePage, factory);
  gtk_widget_class_bind_template_child (widget_class, SjConsolePage, count_label);

  gtk_widget_class_install_action (widget_class, "console.copy", NULL, copy_action);
  gtk_widget_class_install_action (widget_class, "console.clear", NULL, clear_action);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjconsolepage");
}

static gboolean
is_at_bottom (SjConsolePage *self)
{
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->scroller);

  return gtk_adjustment_get_value (adj) + gtk_adjustment_get_page_size (adj)
         >= gtk_adjustment_get_upper (adj) - 24;
}

static gboolean
scroll_tick_cb (GtkWidget     *widget,
                GdkFrameClock *clock,
                gpointer       user_data)
{
  SjConsolePage *self = SJ_CONSOLE_PAGE (widget);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->store));

  self->scroll_tick = 0;
  if (n > 0 && self->follow)
    gtk_widget_activate_action (GTK_WIDGET (self->list_view), "list.scroll-to-item", "u", n - 1);

  return G_SOURCE_REMOVE;
}

/* On the next frame: asked for while the list is being allocated (when
 * it first gets its size), a scroll would be lost. */
static void
scroll_to_newest (SjConsolePage *self)
{
  if (self->scroll_tick == 0 && gtk_widget_get_mapped (GTK_WIDGET (self)))
    self->scroll_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), scroll_tick_cb, NULL, NULL);
}

/* Scrolling up leaves the newest line; scrolling back down to it follows
 * again. A layout never moves the list up (growing or getting a size
 * keeps the value or raises it), so only the user unpins it. */
static void
value_changed_cb (SjConsolePage *self,
                  GtkAdjustment *adj)
{
  double value = gtk_adjustment_get_value (adj);

  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      if (self->follow && value < self->last_value - 1)
        self->follow = FALSE;
      else if (!self->follow && is_at_bottom (self))
        self->follow = TRUE;
    }
  self->last_value = value;
}

/* The list grew or got its size (shown for the first time, or again). */
static void
adjustment_changed_cb (SjConsolePage *self,
                       GtkAdjustment *adj)
{
  if (self->follow && !is_at_bottom (self))
    scroll_to_newest (self);
}

static void
map_cb (SjConsolePage *self)
{
  if (self->follow)
    scroll_to_newest (self);
}

static void
sj_console_page_init (SjConsolePage *self)
{
  g_autoptr(GtkNoSelection) selection = NULL;
  GtkAdjustment *adj;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->store = g_list_store_new (SJ_TYPE_LOG_ENTRY);
  selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->store)));
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (selection));

  g_signal_connect (self->factory, "setup", G_CALLBACK (setup_row_cb), self);
  g_signal_connect (self->factory, "bind", G_CALLBACK (bind_row_cb), self);

  self->follow = TRUE;
  adj = gtk_scrolled_window_get_vadjustment (self->scroller);
  g_signal_connect_object (adj, "value-changed", G_CALLBACK (value_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (adj, "changed", G_CALLBACK (adjustment_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect (self, "map", G_CALLBACK (map_cb), NULL);

  update_count (self);
}

/**
 * sj_console_page_append:
 *
 * Adds @entry as the newest line, dropping the oldest beyond
 * %SJ_CONSOLE_MAX_ENTRIES.
 */
void
sj_console_page_append (SjConsolePage *self,
                        SjLogEntry    *entry)
{
  guint n;

  g_assert (SJ_IS_CONSOLE_PAGE (self));
  g_return_if_fail (SJ_IS_LOG_ENTRY (entry));

  g_list_store_append (self->store, entry);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->store));
  if (n > SJ_CONSOLE_MAX_ENTRIES)
    g_list_store_splice (self->store, 0, n - SJ_CONSOLE_MAX_ENTRIES, NULL, 0);

  update_count (self);

  if (self->follow)
    scroll_to_newest (self);
}

void
sj_console_page_clear (SjConsolePage *self)
{
  g_assert (SJ_IS_CONSOLE_PAGE (self));

  g_list_store_remove_all (self->store);
  update_count (self);
}

GListModel *
_sj_console_page_get_model (SjConsolePage *self)
{
  g_assert (SJ_IS_CONSOLE_PAGE (self));

  return G_LIST_MODEL (self->store);
}

/* Returns: (transfer full): every line, oldest first, as copied. */
char *
sj_console_page_dup_text (SjConsolePage *self)
{
  g_autoptr(GString) text = g_string_new (NULL);
  guint n;

  g_assert (SJ_IS_CONSOLE_PAGE (self));

  n = g_list_model_get_n_items (G_LIST_MODEL (self->store));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SjLogEntry) entry = g_list_model_get_item (G_LIST_MODEL (self->store), i);
      g_autofree char *line = sj_log_entry_format (entry);

      g_string_append (text, line);
      g_string_append_c (text, '\n');
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}
