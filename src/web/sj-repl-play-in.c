/* sj-repl-play-in.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What Record a Phrase and Learn (issue 32) ask of the page, through
 * window.sjBridge (data/web/src/app.mjs): the cycle clock (the cycle heard
 * now and the epoch time read with it, which maps JACK's note times to
 * cycles), the editor's cursor and its line, and replacing the selection
 * (with a first line for the code, if any) as one edit that a single undo
 * takes back. Kept apart from sj-repl-commands.c, the other commands.
 */

#include "config.h"

#include <math.h>

#include "sj-js-call.h"
#include "sj-repl-play-in.h"
#include "sj-repl-private.h"

/* The editor's text is bounded by the code store; this bounds what C
 * accepts from the page in one answer. */
#define MAX_TEXT (4 * 1024 * 1024)

static gboolean
invalid (GError     **error,
         const char  *what)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "The page answered without a valid %s", what);
  return FALSE;
}

static gboolean
get_double (JsonObject *object,
            const char *name,
            double     *out)
{
  JsonNode *node = json_object_get_member (object, name);
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type != G_TYPE_DOUBLE && type != G_TYPE_INT64)
    return FALSE;
  *out = json_node_get_double (node);
  return isfinite (*out);
}

static char *
dup_string (JsonObject *object,
            const char *name)
{
  JsonNode *node = json_object_get_member (object, name);
  const char *text;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  text = json_node_get_string (node);
  if (strlen (text) > MAX_TEXT || !g_utf8_validate (text, -1, NULL))
    return NULL;
  return g_strdup (text);
}

void
sj_repl_cursor_free (SjReplCursor *cursor)
{
  if (cursor == NULL)
    return;
  g_free (cursor->code);
  g_free (cursor->selected);
  g_free (cursor->before);
  g_free (cursor);
}

/**
 * sj_repl_read_cycle_clock_async:
 *
 * Reads the cycle heard now (the scheduler's latency and the audio
 * output's included) with the epoch time, and the tempo.
 */
void
sj_repl_read_cycle_clock_async (SjRepl              *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  _sj_repl_call (self, "return window.sjBridge.cycleClock();", NULL, SJ_REPL_DEFAULT_TIMEOUT_MS,
                cancellable, callback, user_data, sj_repl_read_cycle_clock_async);
}

/**
 * sj_repl_read_cycle_clock_finish:
 * @clock: (out caller-allocates): the cycle clock, meaningful when
 *   @playing
 * @playing: (out): whether the music plays
 */
gboolean
sj_repl_read_cycle_clock_finish (SjRepl        *self,
                                 GAsyncResult  *result,
                                 SjCycleClock  *clock,
                                 gboolean      *playing,
                                 GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_read_cycle_clock_async, error);
  JsonObject *object;
  JsonNode *member;
  double epoch_ms = 0;

  g_return_val_if_fail (clock != NULL && playing != NULL, FALSE);

  if (node == NULL || !sj_json_node_is (node, JSON_NODE_OBJECT, "a cycle clock", error))
    return FALSE;

  object = json_node_get_object (node);
  member = json_object_get_member (object, "playing");
  if (member == NULL || !JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_BOOLEAN ||
      !get_double (object, "cps", &clock->cps) || !get_double (object, "cycle", &clock->cycle) ||
      !get_double (object, "epochMs", &epoch_ms) || clock->cps <= 0 || epoch_ms <= 0)
    return invalid (error, "cycle clock");

  *playing = json_node_get_boolean (member);
  clock->time_us = (gint64)llround (epoch_ms * 1000);

  return TRUE;
}

void
sj_repl_read_cursor_async (SjRepl              *self,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  _sj_repl_call (self, "return window.sjBridge.cursorContext();", NULL, SJ_REPL_DEFAULT_TIMEOUT_MS,
                cancellable, callback, user_data, sj_repl_read_cursor_async);
}

/**
 * sj_repl_read_cursor_finish:
 *
 * Returns: (transfer full): the code, the selected text and the text of
 *   the cursor's line before it
 */
SjReplCursor *
sj_repl_read_cursor_finish (SjRepl        *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_read_cursor_async, error);
  g_autoptr(SjReplCursor) cursor = NULL;
  JsonObject *object;

  if (node == NULL || !sj_json_node_is (node, JSON_NODE_OBJECT, "a cursor", error))
    return NULL;

  object = json_node_get_object (node);
  cursor = g_new0 (SjReplCursor, 1);
  cursor->code = dup_string (object, "code");
  cursor->selected = dup_string (object, "selected");
  cursor->before = dup_string (object, "before");
  if (cursor->code == NULL || cursor->selected == NULL || cursor->before == NULL)
    {
      invalid (error, "cursor");
      return NULL;
    }

  return g_steal_pointer (&cursor);
}

/**
 * sj_repl_replace_selection_async:
 * @text: what replaces the selection (or goes at the cursor)
 * @header: (nullable): a first line to put before the code
 *
 * Both in one edit that a single undo in the editor takes back. Nothing is
 * evaluated: the music changes only when the user plays.
 */
void
sj_repl_replace_selection_async (SjRepl              *self,
                                 const char          *text,
                                 const char          *header,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_return_if_fail (text != NULL);

  _sj_repl_call (self, "return window.sjBridge.replaceSelection(text, header || null);",
                g_variant_new_parsed ("{'text': <%s>, 'header': <%s>}", text, header != NULL ? header : ""),
                SJ_REPL_DEFAULT_TIMEOUT_MS, cancellable, callback, user_data, sj_repl_replace_selection_async);
}

gboolean
sj_repl_replace_selection_finish (SjRepl        *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_replace_selection_async, error);

  return node != NULL && sj_json_node_is (node, JSON_NODE_OBJECT, "a replaced range", error);
}
