/* sj-repl-render.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The render commands of SjRepl (issue 33), for the hidden page SjRenderer
 * owns: renderCode, then the rendered files pulled in pieces with
 * renderChunk, and renderProgress while it works (data/web/src/render.mjs,
 * which says why the files come over in bounded base64 pieces rather than
 * as a browser download).
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-js-call.h"
#include "sj-repl-private.h"

/**
 * sj_repl_render_async:
 * @timeline: (nullable): a jam's changes (sj_render_timeline_to_json ()),
 *   rendered as one pattern instead of @code; @cycles is then the cycles
 *   after each play's last change
 * @cycles: how many cycles, from cycle 0
 * @cps: the tempo, unless the code sets its own
 * @mix: whether to render the whole pattern
 * @stems: whether to render each `$:` layer on its own too
 * @timeout_ms: how long the page may take
 *
 * Renders @code in this page. Only ever for a page that plays nothing:
 * upstream's render closes the page's AudioContext.
 */
void
sj_repl_render_async (SjRepl              *self,
                      const char          *code,
                      const char          *timeline,
                      guint                cycles,
                      double               cps,
                      guint                sample_rate,
                      double               max_seconds,
                      gboolean             mix,
                      gboolean             stems,
                      guint                timeout_ms,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  g_return_if_fail (code != NULL);

  /* Arguments may only be strings and numbers: the flags are 0 or 1. */
  _sj_repl_call (self,
                 "return await window.sjBridge.renderCode({code, timeline: timeline || null, cycles, cps,"
                 " sampleRate, maxSeconds, mix: mix === 1, stems: stems === 1});",
                 g_variant_new_parsed ("{'code': <%s>, 'timeline': <%s>, 'cycles': <%u>, 'cps': <%d>,"
                                       " 'sampleRate': <%u>, 'maxSeconds': <%d>, 'mix': <%u>, 'stems': <%u>}",
                                       code, timeline != NULL ? timeline : "", cycles, cps, sample_rate,
                                       max_seconds, (guint)!!mix, (guint)!!stems),
                 timeout_ms, cancellable, callback, user_data, sj_repl_render_async);
}

/* Returns: (transfer full): `{ok, error?, cps, seconds, files: [{name, layer, bytes}]}` */
JsonObject *
sj_repl_render_finish (SjRepl        *self,
                       GAsyncResult  *result,
                       GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_render_async, error);

  if (node == NULL || !sj_json_node_is (node, JSON_NODE_OBJECT, "a render result", error))
    return NULL;

  return json_node_dup_object (node);
}

void
sj_repl_render_chunk_async (SjRepl              *self,
                            guint                index,
                            guint64              offset,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  _sj_repl_call (self, "return window.sjBridge.renderChunk(index, offset);",
                 g_variant_new_parsed ("{'index': <%u>, 'offset': <%d>}", index, (double)offset),
                 SJ_REPL_DEFAULT_TIMEOUT_MS, cancellable, callback, user_data, sj_repl_render_chunk_async);
}

/* Returns: (transfer full): the piece's bytes, empty past the file's end */
GBytes *
sj_repl_render_chunk_finish (SjRepl        *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_render_chunk_async, error);
  const char *text;
  guchar *data;
  gsize size = 0;

  if (node == NULL || !sj_json_node_is (node, JSON_NODE_VALUE, "a piece of a file", error) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    {
      if (error != NULL && *error == NULL)
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                             _("The Strudel page answered with something other than a piece of a file"));
      return NULL;
    }

  text = json_node_get_string (node);
  if (*text == '\0')
    return g_bytes_new (NULL, 0);
  data = g_base64_decode (text, &size);

  return g_bytes_new_take (data, size);
}

void
sj_repl_render_progress_async (SjRepl              *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  _sj_repl_call (self, "return window.sjBridge.renderProgress();", NULL, SJ_REPL_DEFAULT_TIMEOUT_MS,
                 cancellable, callback, user_data, sj_repl_render_progress_async);
}

/* Returns: the part done, 0 to 1, or -1 with @error set */
double
sj_repl_render_progress_finish (SjRepl        *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_render_progress_async, error);

  if (node == NULL || !sj_json_node_is (node, JSON_NODE_OBJECT, "a render progress", error))
    return -1;

  return CLAMP (json_object_get_double_member_with_default (json_node_get_object (node), "fraction", 0), 0, 1);
}
