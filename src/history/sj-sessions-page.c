/* sj-sessions-page.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Sessions page of the side panel: the chat sessions of the history,
 * most recently updated first, and the code timeline of the current one.
 * Each session can be renamed in place, exported to Markdown or deleted.
 *
 * Switching sessions and reverting code are the window's business: the
 * page emits SjSessionsPage::session-activated,
 * SjSessionsPage::new-session-requested and
 * SjSessionsPage::revert-requested, and never touches the chat or the code
 * itself. The rows are built in
 * sj-sessions-page-rows.c; deleting and exporting live in
 * sj-sessions-page-actions.c.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-sessions-page-private.h"

G_DEFINE_FINAL_TYPE (SjSessionsPage, sj_sessions_page, GTK_TYPE_WIDGET)

enum {
  SESSION_ACTIVATED,
  NEW_SESSION_REQUESTED,
  REVERT_REQUESTED,
  SESSION_DELETED,
  RENDER_REQUESTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
session_row_activated_cb (SjSessionsPage *self,
                          GtkListBoxRow  *row,
                          GtkListBox     *list)
{
  gint64 id = GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (row), "sj-session-id"));

  g_assert (SJ_IS_SESSIONS_PAGE (self));

  g_signal_emit (self, signals[SESSION_ACTIVATED], 0, id);
}

static void
timeline_revert_requested_cb (SjSessionsPage *self,
                              const char     *code,
                              SjCodeTimeline *timeline)
{
  g_assert (SJ_IS_SESSIONS_PAGE (self));

  g_signal_emit (self, signals[REVERT_REQUESTED], 0, code);
}

/* sj-sessions-page-actions.c emits the signal once a deletion is final. */
void
_sj_sessions_page_emit_session_deleted (SjSessionsPage *self,
                                        gint64          session_id)
{
  g_assert (SJ_IS_SESSIONS_PAGE (self));

  g_signal_emit (self, signals[SESSION_DELETED], 0, session_id);
}

/* Actions ----------------------------------------------------------------- */

/* Render Jam to File… (issue 33): the window owns the renderer and the
 * tempo, so the page only asks for it. */
static void
render_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  g_signal_emit (widget, signals[RENDER_REQUESTED], 0, g_variant_get_int64 (param));
}

static void
new_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *param)
{
  g_signal_emit (widget, signals[NEW_SESSION_REQUESTED], 0);
}

static void
rename_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  _sj_sessions_page_start_rename (SJ_SESSIONS_PAGE (widget), g_variant_get_int64 (param));
}

/* GObject ----------------------------------------------------------------- */

static void
sj_sessions_page_dispose (GObject *object)
{
  SjSessionsPage *self = (SjSessionsPage *)object;
  GtkWidget *child;

  /* A deletion waiting for its toast is done now, not dropped: the user saw
   * the session go. */
  sj_sessions_page_finish_pending_delete (self);
  _sj_sessions_page_dispose_actions (self);

  gtk_widget_dispose_template (GTK_WIDGET (self), SJ_TYPE_SESSIONS_PAGE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  g_clear_object (&self->sessions);
  g_clear_object (&self->store);

  G_OBJECT_CLASS (sj_sessions_page_parent_class)->dispose (object);
}

static void
sj_sessions_page_class_init (SjSessionsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sj_sessions_page_dispose;

  g_type_ensure (SJ_TYPE_CODE_TIMELINE);

  /**
   * SjSessionsPage::session-activated:
   * @session_id: the session to switch to
   */
  signals[SESSION_ACTIVATED] =
    g_signal_new ("session-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT64);

  /**
   * SjSessionsPage::new-session-requested:
   */
  signals[NEW_SESSION_REQUESTED] =
    g_signal_new ("new-session-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /**
   * SjSessionsPage::revert-requested:
   * @code: the code of an earlier version, to apply as a whole
   */
  signals[REVERT_REQUESTED] =
    g_signal_new ("revert-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SjSessionsPage::session-deleted:
   * @session_id: the session now gone from the store
   *
   * Emitted once a deletion is final (its toast gone), so that the window
   * can leave a session that no longer exists.
   */
  signals[SESSION_DELETED] =
    g_signal_new ("session-deleted", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT64);

  /**
   * SjSessionsPage::render-requested:
   * @session_id: the session whose code changes to render to a file, as
   *   they happened (Render Jam to File…)
   */
  signals[RENDER_REQUESTED] =
    g_signal_new ("render-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT64);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/strudeljam/StrudelJam/ui/sj-sessions-page.ui");
  gtk_widget_class_bind_template_child (widget_class, SjSessionsPage, sessions_list);
  gtk_widget_class_bind_template_child (widget_class, SjSessionsPage, timeline);
  gtk_widget_class_bind_template_callback (widget_class, session_row_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, timeline_revert_requested_cb);

  gtk_widget_class_install_action (widget_class, "sessions.new", NULL, new_action);
  gtk_widget_class_install_action (widget_class, "sessions.rename", "x", rename_action);
  gtk_widget_class_install_action (widget_class, "sessions.render", "x", render_action);
  _sj_sessions_page_class_init_actions (widget_class);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sjsessionspage");
}

static void
sj_sessions_page_init (SjSessionsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->sessions = g_list_store_new (SJ_TYPE_SESSION_ITEM);
  gtk_list_box_bind_model (self->sessions_list, G_LIST_MODEL (self->sessions),
                           _sj_sessions_page_create_row_cb, self, NULL);
}

/**
 * sj_sessions_page_new:
 * @store: the history whose sessions the page lists
 */
GtkWidget *
sj_sessions_page_new (SjHistoryStore *store)
{
  SjSessionsPage *self;

  g_return_val_if_fail (SJ_IS_HISTORY_STORE (store), NULL);

  self = g_object_new (SJ_TYPE_SESSIONS_PAGE, NULL);
  self->store = g_object_ref (store);
  sj_sessions_page_reload (self);

  return GTK_WIDGET (self);
}

/* Returns: (transfer none): the listed sessions, as #SjSessionItem. */
GListModel *
_sj_sessions_page_get_sessions (SjSessionsPage *self)
{
  g_assert (SJ_IS_SESSIONS_PAGE (self));

  return G_LIST_MODEL (self->sessions);
}

gboolean
_sj_sessions_page_find (SjSessionsPage *self,
                        gint64          session_id,
                        guint          *position)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sessions));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SjSessionItem) item = g_list_model_get_item (G_LIST_MODEL (self->sessions), i);

      if (sj_session_item_get_id (item) == session_id)
        {
          *position = i;
          return TRUE;
        }
    }

  return FALSE;
}

/* Returns: (transfer full) (nullable): the listed item of @session_id. */
SjSessionItem *
_sj_sessions_page_get_item (SjSessionsPage *self,
                            gint64          session_id)
{
  guint position;

  if (!_sj_sessions_page_find (self, session_id, &position))
    return NULL;

  return g_list_model_get_item (G_LIST_MODEL (self->sessions), position);
}

static void
reload_timeline (SjSessionsPage *self)
{
  g_autoptr(GPtrArray) snapshots = NULL;
  g_autoptr(GError) error = NULL;

  if (self->current > 0)
    {
      snapshots = sj_history_store_list_snapshots (self->store, self->current, &error);
      if (snapshots == NULL)
        g_warning ("Could not list the code history: %s", error->message);
    }

  sj_code_timeline_set_snapshots (self->timeline, snapshots);
}

/**
 * sj_sessions_page_reload:
 *
 * Lists the sessions and the current session's code timeline again, for
 * when the history changed: a message sent, code applied.
 */
void
sj_sessions_page_reload (SjSessionsPage *self)
{
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GError) error = NULL;

  g_assert (SJ_IS_SESSIONS_PAGE (self));

  sessions = sj_history_store_list_sessions (self->store, &error);
  if (sessions == NULL)
    {
      g_warning ("Could not list the sessions: %s", error->message);
      return;
    }

  items = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < sessions->len; i++)
    {
      const SjHistorySession *session = g_ptr_array_index (sessions, i);
      SjSessionItem *item;
      SjUsage usage;

      /* A session whose deletion waits for its toast stays hidden. */
      if (self->pending_item != NULL && session->id == sj_session_item_get_id (self->pending_item))
        continue;

      item = sj_session_item_new (session->id, session->title, session->updated);
      sj_session_item_set_current (item, session->id == self->current);
      if (sj_history_store_get_session_usage (self->store, session->id, &usage, NULL) && sj_usage_is_known (&usage))
        {
          g_autofree char *caption = sj_usage_format (&usage);

          sj_session_item_set_usage (item, caption);
        }
      g_ptr_array_add (items, item);
    }

  g_list_store_splice (self->sessions, 0, g_list_model_get_n_items (G_LIST_MODEL (self->sessions)),
                       items->pdata, items->len);
  reload_timeline (self);
}

/**
 * sj_sessions_page_set_current:
 * @session_id: the session the chat shows, 0 for none
 */
void
sj_sessions_page_set_current (SjSessionsPage *self,
                              gint64          session_id)
{
  guint n;

  g_assert (SJ_IS_SESSIONS_PAGE (self));

  self->current = session_id;

  n = g_list_model_get_n_items (G_LIST_MODEL (self->sessions));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SjSessionItem) item = g_list_model_get_item (G_LIST_MODEL (self->sessions), i);

      sj_session_item_set_current (item, sj_session_item_get_id (item) == session_id);
    }

  reload_timeline (self);
}

gint64
_sj_sessions_page_get_current (SjSessionsPage *self)
{
  g_assert (SJ_IS_SESSIONS_PAGE (self));

  return self->current;
}

/**
 * sj_sessions_page_rename_session:
 * @title: the new name; surrounding spaces are dropped, and an empty name
 *   is refused with %G_IO_ERROR_INVALID_ARGUMENT
 *
 * Renames the session in the store and its row.
 */
gboolean
sj_sessions_page_rename_session (SjSessionsPage  *self,
                                 gint64           session_id,
                                 const char      *title,
                                 GError         **error)
{
  g_autofree char *clean = g_strstrip (g_strdup (title != NULL ? title : ""));
  g_autoptr(SjSessionItem) item = NULL;

  g_assert (SJ_IS_SESSIONS_PAGE (self));

  if (*clean == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("A session needs a name"));
      return FALSE;
    }

  if (!sj_history_store_rename_session (self->store, session_id, clean, error))
    return FALSE;

  /* The row keeps its place: moving it to the top under the pointer would
   * be confusing. The next reload sorts it. */
  item = _sj_sessions_page_get_item (self, session_id);
  if (item != NULL)
    {
      sj_session_item_set_title (item, clean);
      sj_session_item_set_updated (item, g_get_real_time ());
    }

  return TRUE;
}
