/* sj-js-call.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Calls a function in the page with webkit_web_view_call_async_javascript_function()
 * and returns its result as JSON. Every call has a timeout and honours a
 * GCancellable even when the page never answers (a user's endless loop
 * blocks the page's only thread), so the UI can always move on.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-js-call.h"
#include "sj-json.h"

/* A command in flight: completed exactly once, by the page's answer, by the
 * timeout, or by the caller's cancellable, whichever comes first. */
typedef struct
{
  GTask        *task;
  GCancellable *inner;
  GCancellable *outer;
  gulong        outer_handler;
  guint         timeout_id;
  guint         cancel_idle_id;
} Call;

static void
call_clear (gpointer data)
{
  Call *call = data;

  g_clear_object (&call->task);
  g_clear_object (&call->inner);
  g_clear_object (&call->outer);
}

static void
call_complete (Call     *call,
               JsonNode *node,
               GError   *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&call->task);

  if (task == NULL)
    return;

  g_clear_handle_id (&call->timeout_id, g_source_remove);
  g_clear_handle_id (&call->cancel_idle_id, g_source_remove);
  if (call->outer_handler != 0)
    g_cancellable_disconnect (call->outer, call->outer_handler);
  call->outer_handler = 0;

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, node, (GDestroyNotify)json_node_unref);
}

static gboolean
call_timeout_cb (gpointer user_data)
{
  Call *call = user_data;

  call->timeout_id = 0;
  g_cancellable_cancel (call->inner);
  call_complete (call, NULL,
                 g_error_new_literal (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                                      _("The Strudel page did not answer in time")));

  return G_SOURCE_REMOVE;
}

static gboolean
call_cancelled_idle_cb (gpointer user_data)
{
  Call *call = user_data;

  call->cancel_idle_id = 0;
  call_complete (call, NULL,
                 g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Operation was cancelled")));

  return G_SOURCE_REMOVE;
}

/* Runs inside g_cancellable_cancel(), where disconnecting is not allowed:
 * completion happens from an idle instead. */
static void
call_outer_cancelled_cb (GCancellable *cancellable,
                         gpointer      user_data)
{
  Call *call = user_data;

  g_cancellable_cancel (call->inner);
  if (call->cancel_idle_id == 0)
    call->cancel_idle_id = g_idle_add_full (G_PRIORITY_DEFAULT,
                                            call_cancelled_idle_cb,
                                            g_rc_box_acquire (call),
                                            (GDestroyNotify)g_rc_box_release);
}

static void
call_finished_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Call *call = user_data;
  g_autoptr(JSCValue) value = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  JsonNode *node;

  value = webkit_web_view_call_async_javascript_function_finish (WEBKIT_WEB_VIEW (object), result, &error);

  if (value == NULL)
    {
      call_complete (call, NULL, g_steal_pointer (&error));
    }
  else if ((json = jsc_value_to_json (value, 0)) == NULL)
    {
      call_complete (call, json_node_new (JSON_NODE_NULL), NULL);
    }
  else if ((node = sj_json_parse (json, -1, NULL, &error)) == NULL)
    {
      call_complete (call, NULL, g_steal_pointer (&error));
    }
  else
    {
      call_complete (call, node, NULL);
    }

  g_rc_box_release_full (call, call_clear);
}

/**
 * sj_js_call_async:
 * @view: the web view whose main world runs @body
 * @source_object: the object the result belongs to
 * @body: the body of an async JavaScript function
 * @arguments: (nullable): an `a{sv}` of strings and numbers, available to
 *   @body as local variables (WebKit accepts no booleans there)
 *
 * Runs @body in the page. The result is the returned value as a #JsonNode.
 */
void
sj_js_call_async (WebKitWebView       *view,
                  gpointer             source_object,
                  const char          *body,
                  GVariant            *arguments,
                  guint                timeout_ms,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data,
                  gpointer             source_tag)
{
  g_autoptr(GTask) task = NULL;
  Call *call;

  g_return_if_fail (WEBKIT_IS_WEB_VIEW (view));

  task = g_task_new (source_object, cancellable, callback, user_data);
  g_task_set_source_tag (task, source_tag);

  if (arguments != NULL)
    g_variant_ref_sink (arguments);

  if (g_task_return_error_if_cancelled (task))
    {
      g_clear_pointer (&arguments, g_variant_unref);
      return;
    }

  call = g_rc_box_new0 (Call);
  call->task = g_steal_pointer (&task);
  call->inner = g_cancellable_new ();
  call->timeout_id = g_timeout_add (timeout_ms, call_timeout_cb, call);

  if (cancellable != NULL)
    {
      call->outer = g_object_ref (cancellable);
      call->outer_handler = g_cancellable_connect (cancellable,
                                                   G_CALLBACK (call_outer_cancelled_cb),
                                                   call, NULL);
    }

  webkit_web_view_call_async_javascript_function (view, body, -1, arguments,
                                                  NULL, NULL, call->inner,
                                                  call_finished_cb, call);
  g_clear_pointer (&arguments, g_variant_unref);
}

/* Returns: (transfer full): the function's result; JSON null for undefined. */
JsonNode *
sj_js_call_finish (gpointer       source_object,
                   GAsyncResult  *result,
                   gpointer       source_tag,
                   GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, source_object), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

gboolean
sj_json_node_is (JsonNode      *node,
                 JsonNodeType   type,
                 const char    *what,
                 GError       **error)
{
  if (node != NULL && JSON_NODE_TYPE (node) == type)
    return TRUE;

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("The Strudel page answered with something other than %s"), what);
  return FALSE;
}
