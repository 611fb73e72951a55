/* page-host.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The Strudel Jam side of benchmarks that drive the live page from a script
 * (bench/sounds): it opens the real window as the app does (SjApplication,
 * the page, its bridge, the sound cache behind strudel-jam://sounds/) and
 * then runs scripts in the page's main world, where window.sjBridge lives,
 * as bench/startup-hook.js does in Chromium. Unlike the tests, it keeps
 * the XDG directories it is started with, so that one launch can find the
 * sound cache an earlier one filled.
 *
 * It speaks JSON, one object a line. On stdin:
 *   {"id": N, "op": "js", "body": "<the body of an async function>"}
 *   {"id": N, "op": "quit"}
 * On stdout, first, once the page is ready:
 *   {"ready": true, "readyMs": …, "libraryLoadMs": …}
 * (readyMs from the window's creation to page-ready; libraryLoadMs is how
 * long SjSoundLibrary took to read the bundled library, once, at start),
 * then one answer per request, in the order they finish:
 *   {"id": N, "ok": true, "value": …} or {"id": N, "ok": false, "error": "…"}
 * End of input quits too. Logs go to stderr. Not installed, not a test.
 */

#include "config.h"

#include <stdio.h>
#include <webkit/webkit.h>

#include "sj-sound-library.h"
#include "sj-test-app.h"
#include "sj-window-private.h"

static gboolean done;
static WebKitWebView *view;

static void
emit (JsonNode *node)
{
  g_autofree char *line = json_to_string (node, FALSE);

  fputs (line, stdout);
  fputc ('\n', stdout);
  fflush (stdout);
}

static void
answer (gint64      id,
        JsonNode   *value,
        const char *error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) node = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_int_value (builder, id);
  json_builder_set_member_name (builder, "ok");
  json_builder_add_boolean_value (builder, error == NULL);
  if (error != NULL)
    {
      json_builder_set_member_name (builder, "error");
      json_builder_add_string_value (builder, error);
    }
  else
    {
      json_builder_set_member_name (builder, "value");
      json_builder_add_value (builder, value != NULL ? value : json_node_new (JSON_NODE_NULL));
    }
  json_builder_end_object (builder);
  node = json_builder_get_root (builder);
  emit (node);
}

static void
js_done_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  gint64 id = GPOINTER_TO_SIZE (user_data);
  g_autoptr(JSCValue) value = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  JsonNode *node = NULL;

  value = webkit_web_view_call_async_javascript_function_finish (WEBKIT_WEB_VIEW (object), result, &error);
  if (value == NULL)
    {
      answer (id, NULL, error->message);
      return;
    }
  /* undefined has no JSON: it is null. */
  json = jsc_value_is_undefined (value) ? NULL : jsc_value_to_json (value, 0);
  if (json != NULL && (node = json_from_string (json, &error)) == NULL)
    {
      answer (id, NULL, error->message);
      return;
    }
  answer (id, node, NULL);
}

static void
handle (const char *line)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *request;
  const char *op;
  gint64 id;

  if ((node = json_from_string (line, &error)) == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      answer (-1, NULL, error != NULL ? error->message : "a request is a JSON object");
      return;
    }
  request = json_node_get_object (node);
  id = json_object_get_int_member_with_default (request, "id", -1);
  op = json_object_get_string_member_with_default (request, "op", "");
  if (g_str_equal (op, "quit"))
    {
      done = TRUE;
      answer (id, NULL, NULL);
    }
  else if (g_str_equal (op, "js") && json_object_has_member (request, "body"))
    {
      const char *body = json_object_get_string_member (request, "body");

      /* Ids are small: they fit in a pointer on every platform. */
      webkit_web_view_call_async_javascript_function (view, body, -1, NULL, NULL, NULL, NULL,
                                                      js_done_cb, GSIZE_TO_POINTER ((gsize)id));
    }
  else
    {
      answer (id, NULL, "unknown request");
    }
}

static gboolean
stdin_cb (GIOChannel   *channel,
          GIOCondition  condition,
          gpointer      user_data)
{
  g_autofree char *line = NULL;
  g_autoptr(GError) error = NULL;
  GIOStatus status;

  status = g_io_channel_read_line (channel, &line, NULL, NULL, &error);
  if (status == G_IO_STATUS_NORMAL && line != NULL)
    {
      g_strchomp (line);
      if (*line != '\0')
        handle (line);
      return G_SOURCE_CONTINUE;
    }
  if (status == G_IO_STATUS_AGAIN)
    return G_SOURCE_CONTINUE;

  /* End of input, or an error reading it: the driver is gone. */
  done = TRUE;
  return G_SOURCE_REMOVE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GIOChannel) channel = NULL;
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) ready = NULL;
  SjWindow *window;
  gint64 start;

  /* Stdout is for answers: GLib's debug and info lines go to stderr. */
  g_log_writer_default_set_use_stderr (TRUE);

  /* What sj_test_app_init() does, but with the caller's XDG directories. */
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  sj_application_prepare_env ();
  sj_test_app_start ();

  start = g_get_monotonic_time ();
  window = sj_test_open_window ();
  view = WEBKIT_WEB_VIEW (sj_repl_get_widget (_sj_window_get_repl (window)));

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "ready");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "readyMs");
  json_builder_add_double_value (builder, (g_get_monotonic_time () - start) / 1000.0);
  json_builder_set_member_name (builder, "libraryLoadMs");
  json_builder_add_double_value (builder,
                                 sj_sound_library_get_load_time (sj_sound_library_get_default ()) / 1000.0);
  json_builder_end_object (builder);
  ready = json_builder_get_root (builder);
  emit (ready);

  channel = g_io_channel_unix_new (0);
  g_io_add_watch (channel, G_IO_IN | G_IO_HUP | G_IO_ERR, stdin_cb, NULL);
  while (!done)
    g_main_context_iteration (NULL, TRUE);

  sj_test_close_window (window);
  sj_test_app_stop ();

  return 0;
}
