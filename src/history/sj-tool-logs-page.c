/* sj-tool-logs-page.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Tool Logs page: every tool call the agent finished in one session,
 * across its messages, oldest first, as SjToolLogRows. Two drop-downs
 * narrow the list to one tool or one status.
 *
 * The page reads the history store rather than listening to the agent:
 * only finished calls are stored, so the page never shows one that is
 * still running, and a session reopened later looks the same as it did
 * live. The window tells the page about each new call with
 * sj_tool_logs_page_add_call () as the agent finishes it.
 */

#include "config.h"

#include <adwaita.h>

#include "sj-tool-call-item.h"
#include "sj-tool-log-row.h"
#include "sj-tool-logs-page-private.h"

struct _SjToolLogsPage
{
  GtkWidget                 parent_instance;

  SjHistoryStore           *store;
  gint64                    session_id;
  GListStore               *calls;
  GtkCustomFilter          *filter;
  GtkFilterListModel       *filtered;

  /* Template widgets */
  GtkStack                 *stack;
  GtkDropDown              *tool_dropdown;
  GtkDropDown              *status_dropdown;
  GtkStack                 *results_stack;
  GtkListView              *list_view;
  GtkSignalListItemFactory *factory;
};

G_DEFINE_FINAL_TYPE (SjToolLogsPage, sj_tool_logs_page, GTK_TYPE_WIDGET)

static void
update_stack (SjToolLogsPage *self)
{
  gboolean any = g_list_model_get_n_items (G_LIST_MODEL (self->calls)) > 0;
  gboolean shown = g_list_model_get_n_items (G_LIST_MODEL (self->filtered)) > 0;

  gtk_stack_set_visible_child_name (self->stack, any ? "calls" : "empty");
  gtk_stack_set_visible_child_name (self->results_stack, shown ? "results" : "none");
}

static void
filtered_items_changed_cb (SjToolLogsPage *self)
{
  update_stack (self);
}

/* Filtering --------------------------------------------------------------- */

static gboolean
filter_call_cb (gpointer item,
                gpointer user_data)
{
  SjToolLogsPage *self = user_data;
  const SjHistoryToolCall *call = sj_tool_call_item_get_call (item);
  guint tool = gtk_drop_down_get_selected (self->tool_dropdown);
  guint status = gtk_drop_down_get_selected (self->status_dropdown);

  /* The first entry of each drop-down is "All". The tool names are the
   * entries themselves: they are the tools' names, never translated. */
  if (tool != 0 && tool != GTK_INVALID_LIST_POSITION)
    {
      GtkStringList *tools = GTK_STRING_LIST (gtk_drop_down_get_model (self->tool_dropdown));

      if (g_strcmp0 (call->name, gtk_string_list_get_string (tools, tool)) != 0)
        return FALSE;
    }

  if (status != 0 && status != GTK_INVALID_LIST_POSITION && call->status != (SjHistoryToolStatus)(status - 1))
    return FALSE;

  return TRUE;
}

static void
filter_changed_cb (SjToolLogsPage *self)
{
  g_assert (SJ_IS_TOOL_LOGS_PAGE (self));

  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

/* Rows -------------------------------------------------------------------- */

/* Rows are built for their call at bind time: a recycled list item gets a
 * new row, so no row ever shows a stale call. The expanded state is kept
 * on the item, so a row scrolled away and back stays as it was left. */
static void
bind_row_cb (GtkSignalListItemFactory *factory,
             GtkListItem              *list_item,
             gpointer                  user_data)
{
  SjToolCallItem *item = gtk_list_item_get_item (list_item);
  GtkWidget *row = sj_tool_log_row_new (sj_tool_call_item_get_call (item));
  GBinding *binding;

  if (sj_tool_call_item_get_origin (item) != NULL)
    sj_tool_log_row_set_origin (SJ_TOOL_LOG_ROW (row), sj_tool_call_item_get_origin (item));

  binding = g_object_bind_property (item, "expanded", row, "expanded",
                                    G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  g_object_set_data (G_OBJECT (row), "sj-tool-log-binding", binding);
  gtk_list_item_set_child (list_item, row);
}

static void
unbind_row_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *list_item,
               gpointer                  user_data)
{
  GtkWidget *row = gtk_list_item_get_child (list_item);
  GBinding *binding;

  if (row != NULL && (binding = g_object_get_data (G_OBJECT (row), "sj-tool-log-binding")) != NULL)
    g_binding_unbind (binding);
  gtk_list_item_set_child (list_item, NULL);
}

/* Enter on a row (or a click beside its expander) opens or closes it. */
static void
list_activate_cb (SjToolLogsPage *self,
                  guint           position,
                  GtkListView    *list_view)
{
  g_autoptr(SjToolCallItem) item = NULL;

  g_assert (SJ_IS_TOOL_LOGS_PAGE (self));

  item = g_list_model_get_item (G_LIST_MODEL (self->filtered), position);
  if (item != NULL)
    sj_tool_call_item_set_expanded (item, !sj_tool_call_item_get_expanded (item));
}

/* Loading ----------------------------------------------------------------- */

static gboolean
has_call (SjToolLogsPage *self,
          gint64          tool_call_id)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->calls));

  for (guint i = n; i > 0; i--)
    {
      g_autoptr(SjToolCallItem) item = g_list_model_get_item (G_LIST_MODEL (self->calls), i - 1);

      if (sj_tool_call_item_get_call (item)->id == tool_call_id)
        return TRUE;
    }

  return FALSE;
}

static void
reload (SjToolLogsPage *self)
{
  g_autoptr(GPtrArray) messages = NULL;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GError) error = NULL;

  if (self->store != NULL && self->session_id > 0)
    messages = sj_history_store_list_messages (self->store, self->session_id, &error);
  if (error != NULL)
    g_warning ("Could not read the tool calls of session %" G_GINT64_FORMAT ": %s", self->session_id, error->message);

  for (guint m = 0; messages != NULL && m < messages->len; m++)
    {
      const SjHistoryMessage *message = g_ptr_array_index (messages, m);
      g_autoptr(GPtrArray) calls = NULL;

      calls = sj_history_store_list_tool_calls (self->store, message->id, &error);
      if (calls == NULL)
        {
          g_warning ("Could not read the tool calls of message %" G_GINT64_FORMAT ": %s", message->id, error->message);
          g_clear_error (&error);
          continue;
        }

      for (guint c = 0; c < calls->len; c++)
        {
          SjToolCallItem *item = sj_tool_call_item_new (g_ptr_array_index (calls, c));

          /* An MCP client's calls are under a "tool" message holding its
           * name (sj-window-mcp.c). */
          if (message->role == SJ_HISTORY_ROLE_TOOL)
            sj_tool_call_item_set_origin (item, message->content);
          g_ptr_array_add (items, item);
        }
    }

  /* One splice, so the list view rebuilds once. */
  g_list_store_splice (self->calls, 0, g_list_model_get_n_items (G_LIST_MODEL (self->calls)),
                       items->pdata, items->len);
  update_stack (self);
}

/* GObject ----------------------------------------------------------------- */

static void
sj_tool_logs_page_dispose (GObject *object)
{
  SjToolLogsPage *self = (SjToolLogsPage *)object;
  GtkWidget *child;

  /* The filter may outlive the page in a model someone still holds. */
  if (self->filter != NULL)
    gtk_custom_filter_set_filter_func (self->filter, NULL, NULL, NULL);

  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_TOOL_LOGS_PAGE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  g_clear_object (&self->filtered);
  g_clear_object (&self->filter);
  g_clear_object (&self->calls);
  g_clear_object (&self->store);

  G_OBJECT_CLASS (sj_tool_logs_page_parent_class)->dispose (object);
}

static void
sj_tool_logs_page_class_init (SjToolLogsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_tool_logs_page_dispose;

  g_type_ensure (ADW_TYPE_STATUS_PAGE);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-tool-logs-page.ui");
  gtk_widget_class_bind_template_child (widget_class, SjToolLogsPage, stack);
  gtk_widget_class_bind_template_child (widget_class, SjToolLogsPage, tool_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SjToolLogsPage, status_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SjToolLogsPage, results_stack);
  gtk_widget_class_bind_template_child (widget_class, SjToolLogsPage, list_view);
  gtk_widget_class_bind_template_child (widget_class, SjToolLogsPage, factory);
  gtk_widget_class_bind_template_callback (widget_class, filter_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, list_activate_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjtoollogspage");
}

static void
sj_tool_logs_page_init (SjToolLogsPage *self)
{
  g_autoptr(GtkNoSelection) selection = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->calls = g_list_store_new (SJ_TYPE_TOOL_CALL_ITEM);
  self->filter = gtk_custom_filter_new (filter_call_cb, self, NULL);
  self->filtered = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->calls)),
                                              g_object_ref (GTK_FILTER (self->filter)));
  g_signal_connect_object (self->filtered, "items-changed", G_CALLBACK (filtered_items_changed_cb),
                           self, G_CONNECT_SWAPPED);

  selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->filtered)));
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (selection));

  g_signal_connect (self->factory, "bind", G_CALLBACK (bind_row_cb), self);
  g_signal_connect (self->factory, "unbind", G_CALLBACK (unbind_row_cb), self);

  update_stack (self);
}

GtkWidget *
_sj_tool_logs_page_new (void)
{
  return g_object_new (SJ_TYPE_TOOL_LOGS_PAGE, NULL);
}

/**
 * sj_tool_logs_page_set_store:
 *
 * Gives the page the history it reads the calls from. The list is read
 * again for the current session, if there is one.
 */
void
sj_tool_logs_page_set_store (SjToolLogsPage *self,
                             SjHistoryStore *store)
{
  g_assert (SJ_IS_TOOL_LOGS_PAGE (self));
  g_return_if_fail (store == NULL || SJ_IS_HISTORY_STORE (store));

  if (g_set_object (&self->store, store))
    reload (self);
}

/**
 * sj_tool_logs_page_set_session:
 * @session_id: the session whose calls to list, 0 for none
 *
 * Lists the calls of @session_id, read again from the store even when it
 * is the session already shown.
 */
void
sj_tool_logs_page_set_session (SjToolLogsPage *self,
                               gint64          session_id)
{
  g_assert (SJ_IS_TOOL_LOGS_PAGE (self));

  self->session_id = session_id;
  reload (self);
}

/**
 * sj_tool_logs_page_add_call:
 * @tool_call_id: a call just recorded in the store, in the current session
 *
 * Appends the call, as SjAgent::tool-finished reports it. A call already
 * listed, or not of the current session, is left out.
 */
void
sj_tool_logs_page_add_call (SjToolLogsPage *self,
                            gint64          tool_call_id)
{
  g_autoptr(GPtrArray) messages = NULL;
  g_autoptr(GError) error = NULL;

  g_assert (SJ_IS_TOOL_LOGS_PAGE (self));
  g_return_if_fail (self->store != NULL);

  if (self->session_id <= 0 || has_call (self, tool_call_id))
    return;

  messages = sj_history_store_list_messages (self->store, self->session_id, &error);
  if (messages == NULL)
    {
      g_warning ("Could not read tool call %" G_GINT64_FORMAT ": %s", tool_call_id, error->message);
      return;
    }

  /* The store has no lookup by id; a new call almost always belongs to
   * the last message, so the search starts there. */
  for (guint m = messages->len; m > 0; m--)
    {
      const SjHistoryMessage *message = g_ptr_array_index (messages, m - 1);
      g_autoptr(GPtrArray) calls = sj_history_store_list_tool_calls (self->store, message->id, NULL);

      for (guint c = 0; calls != NULL && c < calls->len; c++)
        {
          const SjHistoryToolCall *call = g_ptr_array_index (calls, c);

          if (call->id == tool_call_id)
            {
              g_autoptr(SjToolCallItem) item = sj_tool_call_item_new (call);

              if (message->role == SJ_HISTORY_ROLE_TOOL)
                sj_tool_call_item_set_origin (item, message->content);
              g_list_store_append (self->calls, item);
              update_stack (self);
              return;
            }
        }
    }

  g_debug ("Tool call %" G_GINT64_FORMAT " is not in session %" G_GINT64_FORMAT, tool_call_id, self->session_id);
}

/* Returns: (transfer none): the listed calls, as #SjToolCallItem, after
 * the filters. */
GListModel *
_sj_tool_logs_page_get_calls (SjToolLogsPage *self)
{
  g_assert (SJ_IS_TOOL_LOGS_PAGE (self));

  return G_LIST_MODEL (self->filtered);
}
