/* sj-repl-commands.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The commands SjRepl sends to the page: each one calls a method of
 * window.sjBridge (data/web/src/app.mjs) and checks the shape of its answer.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-js-call.h"
#include "sj-repl-private.h"

void
sj_repl_fetch_code_async (SjRepl              *self,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  _sj_repl_call (self, "return window.sjBridge.getCode();", NULL, SJ_REPL_DEFAULT_TIMEOUT_MS,
                cancellable, callback, user_data, sj_repl_fetch_code_async);
}

char *
sj_repl_fetch_code_finish (SjRepl        *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_fetch_code_async, error);

  if (node == NULL || !sj_json_node_is (node, JSON_NODE_VALUE, "code", error) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;

  return json_node_dup_string (node);
}

/**
 * sj_repl_set_code_async:
 * @code: the editor's new text
 *
 * Replaces the editor's text with @code as one edit, which a single undo in
 * the editor takes back. Nothing is evaluated: the music changes only when
 * the user plays.
 */
void
sj_repl_set_code_async (SjRepl              *self,
                        const char          *code,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_return_if_fail (code != NULL);

  _sj_repl_call (self, "return window.sjBridge.setCode(code);",
                g_variant_new_parsed ("{'code': <%s>}", code), SJ_REPL_DEFAULT_TIMEOUT_MS,
                cancellable, callback, user_data, sj_repl_set_code_async);
}

gboolean
sj_repl_set_code_finish (SjRepl        *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_set_code_async, error);

  return node != NULL;
}

/**
 * sj_repl_evaluate_async:
 * @code: (nullable): code to put in the editor first, or %NULL to evaluate
 *   the editor's current text
 *
 * Evaluates like Ctrl+Enter in the editor and starts playback.
 */
void
sj_repl_evaluate_async (SjRepl              *self,
                        const char          *code,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  /* Function arguments may only be strings and numbers, so the two cases
   * are two bodies rather than a flag. */
  if (code != NULL)
    _sj_repl_call (self, "return await window.sjBridge.evaluate(code);",
                  g_variant_new_parsed ("{'code': <%s>}", code),
                  SJ_REPL_DEFAULT_TIMEOUT_MS, cancellable, callback, user_data, sj_repl_evaluate_async);
  else
    _sj_repl_call (self, "return await window.sjBridge.evaluate();", NULL,
                  SJ_REPL_DEFAULT_TIMEOUT_MS, cancellable, callback, user_data, sj_repl_evaluate_async);
}

/* Returns: (transfer full): `{ok, error: {message, line?, column?} | null, state}` */
JsonObject *
sj_repl_evaluate_finish (SjRepl        *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_evaluate_async, error);

  if (node == NULL || !sj_json_node_is (node, JSON_NODE_OBJECT, "an evaluation result", error))
    return NULL;

  return json_node_dup_object (node);
}

void
sj_repl_stop_async (SjRepl              *self,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  _sj_repl_call (self, "return window.sjBridge.stop();", NULL, SJ_REPL_DEFAULT_TIMEOUT_MS,
                cancellable, callback, user_data, sj_repl_stop_async);
}

gboolean
sj_repl_stop_finish (SjRepl        *self,
                     GAsyncResult  *result,
                     GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_stop_async, error);

  return node != NULL;
}

void
sj_repl_query_state_async (SjRepl              *self,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  _sj_repl_call (self, "return window.sjBridge.getState();", NULL, SJ_REPL_DEFAULT_TIMEOUT_MS,
                cancellable, callback, user_data, sj_repl_query_state_async);
}

/**
 * sj_repl_query_state_finish:
 * @state: (out caller-allocates): playing, cps, cycle and the scheduler's
 *   queried horizon (the end of the last span it asked the pattern for)
 */
gboolean
sj_repl_query_state_finish (SjRepl        *self,
                            GAsyncResult  *result,
                            SjReplState   *state,
                            GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_query_state_async, error);

  if (node == NULL || !sj_json_node_is (node, JSON_NODE_OBJECT, "a state", error))
    return FALSE;

  return sj_repl_state_parse (json_node_get_object (node), state, error);
}

void
_sj_repl_query_haps_async (SjRepl              *self,
                          double               begin,
                          double               end,
                          guint                limit,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  _sj_repl_call (self, "return window.sjBridge.queryHaps(begin, end, limit);",
                g_variant_new_parsed ("{'begin': <%d>, 'end': <%d>, 'limit': <%u>}", begin, end, limit),
                SJ_REPL_DEFAULT_TIMEOUT_MS, cancellable, callback, user_data, _sj_repl_query_haps_async);
}

/* Returns: (transfer full): haps as `{show, whole, part, onset, value}` */
JsonArray *
_sj_repl_query_haps_finish (SjRepl        *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, _sj_repl_query_haps_async, error);

  if (node == NULL || !sj_json_node_is (node, JSON_NODE_ARRAY, "a list of events", error))
    return NULL;

  return json_node_dup_array (node);
}

void
_sj_repl_fetch_sounds_async (SjRepl              *self,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  _sj_repl_call (self, "return window.sjBridge.getSounds();", NULL, SJ_REPL_DEFAULT_TIMEOUT_MS,
                cancellable, callback, user_data, _sj_repl_fetch_sounds_async);
}

JsonObject *
_sj_repl_fetch_sounds_finish (SjRepl        *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, _sj_repl_fetch_sounds_async, error);
  JsonObject *sounds;

  if (node == NULL || !sj_json_node_is (node, JSON_NODE_OBJECT, "a sound snapshot", error))
    return NULL;

  sounds = json_node_get_object (node);
  if (!sj_sound_snapshot_validate (sounds, error))
    return NULL;

  return json_object_ref (sounds);
}

/**
 * sj_repl_insert_text_async:
 * @text: code to put at the editor's cursor, replacing its selection
 *
 * Inserts @text as one edit that a single undo in the editor takes back.
 * Nothing is evaluated: the music changes only when the user plays.
 */
void
sj_repl_insert_text_async (SjRepl              *self,
                           const char          *text,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_return_if_fail (text != NULL);

  _sj_repl_call (self, "return window.sjBridge.insertAtCursor(text);",
                g_variant_new_parsed ("{'text': <%s>}", text), SJ_REPL_DEFAULT_TIMEOUT_MS,
                cancellable, callback, user_data, sj_repl_insert_text_async);
}

gboolean
sj_repl_insert_text_finish (SjRepl        *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_insert_text_async, error);

  return node != NULL && sj_json_node_is (node, JSON_NODE_OBJECT, "an inserted range", error);
}

/**
 * sj_repl_preview_sound_async:
 * @name: a registered sound
 *
 * Plays one short note of @name (pitched for synths, soundfonts and
 * wavetables), like the sounds tab of the Strudel website. The pattern
 * that is playing, if any, is left alone.
 */
void
sj_repl_preview_sound_async (SjRepl              *self,
                             const char          *name,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_return_if_fail (name != NULL);

  _sj_repl_call (self, "return await window.sjBridge.previewSound(name);",
                g_variant_new_parsed ("{'name': <%s>}", name), SJ_REPL_DEFAULT_TIMEOUT_MS,
                cancellable, callback, user_data, sj_repl_preview_sound_async);
}

gboolean
sj_repl_preview_sound_finish (SjRepl        *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_preview_sound_async, error);

  return node != NULL && sj_json_node_is (node, JSON_NODE_OBJECT, "a preview result", error);
}

/**
 * sj_repl_schedule_swap_async:
 * @code: the code to play next
 * @quantize: (nullable): where it starts: "next_beat" (a quarter of a cycle),
 *   "next_cycle" (the default), "next_bar" or "bars"
 * @bars: with "bars", how many bars after the next bar line
 * @bar_cycles: cycles in a bar, 0 for the default (4)
 * @auto_start: when nothing plays, whether to start playing @code
 * @refuse_unavailable: whether a sound of @code that fails to load refuses
 *   it (the answer's status is then "unavailable", and nothing changed)
 *
 * Evaluates @code the way the REPL does and makes it play from an exact
 * cycle boundary B, beyond everything the scheduler has already queried:
 * the next whole cycle, the next bar line (a multiple of @bar_cycles), or
 * @bars bars after that. Until B the playing pattern goes on; from B only
 * the new one plays, with no event lost or played twice, and a tempo set by
 * @code (setcps, setcpm) changes exactly at B. The editor shows @code at
 * once, marked as pending until B. A newer swap replaces a pending one, and
 * the user's own evaluation cancels it (see SjRepl::swap-changed).
 *
 * When nothing plays, @code is applied at once and played if @auto_start.
 */
void
sj_repl_schedule_swap_async (SjRepl              *self,
                             const char          *code,
                             const char          *quantize,
                             guint                bars,
                             guint                bar_cycles,
                             gboolean             auto_start,
                             gboolean             refuse_unavailable,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_return_if_fail (code != NULL);

  /* WebKit refuses booleans as function arguments: they go as 0 or 1. */
  _sj_repl_call (self,
                "return await window.sjBridge.scheduleSwap("
                "{code, quantize, bars, barCycles, autoStart: autoStart !== 0, "
                "refuseUnavailable: refuseUnavailable !== 0});",
                g_variant_new_parsed ("{'code': <%s>, 'quantize': <%s>, 'bars': <%u>, "
                                      "'barCycles': <%u>, 'autoStart': <%i>, 'refuseUnavailable': <%i>}",
                                      code, quantize ? quantize : "next_cycle", bars,
                                      bar_cycles > 0 ? bar_cycles : 4, auto_start ? 1 : 0,
                                      refuse_unavailable ? 1 : 0),
                SJ_REPL_DEFAULT_TIMEOUT_MS, cancellable, callback, user_data, sj_repl_schedule_swap_async);
}

/**
 * sj_repl_schedule_swap_finish:
 *
 * A @code that fails to evaluate is not an error here: it is a result with
 * status %SJ_SWAP_ERROR, and the music is left exactly as it was. @error is
 * only set when the page could not be asked (not ready, timeout, cancelled)
 * or answered something that is not a swap result (sj-swap-result.c says
 * what the page answers).
 *
 * Returns: (transfer full): the page's answer, read and checked
 */
SjSwapResult *
sj_repl_schedule_swap_finish (SjRepl        *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_schedule_swap_async, error);
  g_autoptr(GError) invalid = NULL;
  SjSwapResult *swap;

  if (node == NULL || !sj_json_node_is (node, JSON_NODE_OBJECT, "a swap result", error))
    return NULL;

  if ((swap = sj_swap_result_new_from_json (json_node_get_object (node), &invalid)) == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("The Strudel page answered with something other than a swap result: %s"), invalid->message);
      return NULL;
    }

  return swap;
}

/**
 * sj_repl_cancel_swap_async:
 *
 * Cancels the pending swap, if any: the playing code goes on and comes back
 * into the editor (unless the editor was edited since the swap showed its
 * code there).
 */
void
sj_repl_cancel_swap_async (SjRepl              *self,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  _sj_repl_call (self, "return await window.sjBridge.cancelSwap();", NULL, SJ_REPL_DEFAULT_TIMEOUT_MS,
                cancellable, callback, user_data, sj_repl_cancel_swap_async);
}

/**
 * sj_repl_cancel_swap_finish:
 * @canceled: (out) (optional): whether a swap was pending
 */
gboolean
sj_repl_cancel_swap_finish (SjRepl        *self,
                            GAsyncResult  *result,
                            gboolean      *canceled,
                            GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_cancel_swap_async, error);

  if (node == NULL || !sj_json_node_is (node, JSON_NODE_OBJECT, "a cancel result", error))
    return FALSE;

  if (canceled != NULL)
    *canceled = json_object_get_boolean_member_with_default (json_node_get_object (node), "canceled", FALSE);

  return TRUE;
}

/**
 * sj_repl_code_at_cycle_async:
 * @cycle: a whole cycle of the current run of the music
 *
 * Asks the page which code played at @cycle (swap.mjs keeps which code
 * plays from which cycle on: the user's evaluations and the swaps).
 */
void
sj_repl_code_at_cycle_async (SjRepl              *self,
                             double               cycle,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  _sj_repl_call (self, "return window.sjBridge.codeAtCycle(cycle);",
                 g_variant_new_parsed ("{'cycle': <%d>}", cycle), SJ_REPL_DEFAULT_TIMEOUT_MS,
                 cancellable, callback, user_data, sj_repl_code_at_cycle_async);
}

/**
 * sj_repl_code_at_cycle_finish:
 *
 * Returns: (transfer full) (nullable): the code, or %NULL (with @error
 *   unset) when the page does not know
 */
char *
sj_repl_code_at_cycle_finish (SjRepl        *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_code_at_cycle_async, error);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;

  return json_node_dup_string (node);
}

static void
midi_controls_sent_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;

  node = _sj_repl_call_finish (SJ_REPL (object), result, sj_repl_send_midi_controls, &error);
  if (node == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED))
    g_debug ("MIDI controls not delivered: %s", error->message);
}

/**
 * sj_repl_send_midi_controls:
 * @controls_json: a JSON array of [channel, control, value] triples
 *
 * Hands control changes from the MIDI input to midin() in the page; the
 * latest value of each control wins there, so a lost batch is made good by
 * the next movement of the knob.
 */
void
sj_repl_send_midi_controls (SjRepl     *self,
                            const char *controls_json)
{
  g_assert (SJ_IS_REPL (self));

  _sj_repl_call (self, "return window.sjBridge.midiControls(JSON.parse(list));",
                g_variant_new_parsed ("{'list': <%s>}", controls_json), SJ_REPL_DEFAULT_TIMEOUT_MS,
                NULL, midi_controls_sent_cb, NULL, sj_repl_send_midi_controls);
}

/**
 * sj_repl_set_duck_async:
 * @duck: whether the music is lowered (while the microphone listens)
 *
 * Lowers the music's master gain, or brings it back, in a short glide.
 * Only the loudness changes: the scheduler and the swap timing are not
 * touched.
 */
void
sj_repl_set_duck_async (SjRepl              *self,
                        gboolean             duck,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  _sj_repl_call (self, duck ? "return window.sjBridge.setDuck(true);" : "return window.sjBridge.setDuck(false);",
                 NULL, SJ_REPL_DEFAULT_TIMEOUT_MS, cancellable, callback, user_data, sj_repl_set_duck_async);
}

gboolean
sj_repl_set_duck_finish (SjRepl        *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_autoptr(JsonNode) node = _sj_repl_call_finish (self, result, sj_repl_set_duck_async, error);

  return node != NULL;
}

static void
limiter_sent_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = _sj_repl_call_finish (SJ_REPL (object), result, _sj_repl_send_limiter, &error);

  if (node == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_warning ("The master limiter could not be set: %s", error->message);
}

/* The page takes the limiter at once, playing or not (limiter.mjs). */
void
_sj_repl_send_limiter (SjRepl   *self,
                       gboolean  limiter)
{
  g_assert (SJ_IS_REPL (self));

  _sj_repl_call (self, limiter ? "return window.sjBridge.setLimiter(true);" : "return window.sjBridge.setLimiter(false);",
                 NULL, SJ_REPL_DEFAULT_TIMEOUT_MS, NULL, limiter_sent_cb, NULL, _sj_repl_send_limiter);
}
