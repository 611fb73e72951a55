/* sj-repl-messages.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * What the page tells SjRepl. Every message the page posts to the bridge's
 * handler arrives here, is checked by sj_page_message_parse () and becomes
 * SjRepl's state, a property notification or a signal; the hello is
 * answered with the code and the settings the page starts with. The web
 * view's own reports on the page are here too: a request that would leave
 * the app is remembered, and a web process that ended is reloaded with the
 * last code the page reported.
 *
 * The signal and property arrays stay in sj-repl.c; this file emits
 * through _sj_repl_emit () and _sj_repl_notify ().
 */

#include "config.h"

#include <glib/gi18n.h>

#include "sj-repl-private.h"
#include "sj-web-assets.h"

/* Page messages ---------------------------------------------------------- */

void
_sj_repl_set_state (SjRepl            *self,
                    const SjReplState *state)
{
  gboolean playing_changed = self->state.playing != state->playing;
  gboolean cps_changed = self->state.cps != state->cps;

  self->state = *state;

  /* For benchmarks and soak tests: STRUDEL_JAM_STATS=1 prints each state
   * report, so that scheduler lateness can be read from outside. */
  if (self->print_stats)
    g_print ("sj-stats playing=%d cycle=%.3f cps=%.4f triggered=%" G_GINT64_FORMAT
             " late=%" G_GINT64_FORMAT " max_late_ms=%.1f\n",
             state->playing, state->cycle, state->cps, state->triggered, state->late, state->max_late_ms);

  if (playing_changed)
    _sj_repl_notify (self, SJ_REPL_PROP_PLAYING);
  if (cps_changed)
    _sj_repl_notify (self, SJ_REPL_PROP_CPS);
  _sj_repl_notify (self, SJ_REPL_PROP_CYCLE);
}

/* STRUDEL_JAM_LEVELS=alternate:S has the page turn the level analysis on
 * and off every S seconds of the wall clock (2 to 600, fractions allowed:
 * bench/levels makes a period one loop of the demo, so that both sides hear
 * the same music), so bench/levels weighs what it costs within one launch;
 * 0 otherwise. */
static double
levels_alternate_seconds (void)
{
  const char *value = g_getenv ("STRUDEL_JAM_LEVELS");
  const char *number;
  char *end = NULL;
  double seconds;

  if (value == NULL || !g_str_has_prefix (value, "alternate:"))
    return 0;
  number = value + strlen ("alternate:");
  seconds = g_ascii_strtod (number, &end);
  if (end == number || *end != '\0' || !(seconds >= 2 && seconds <= 600))
    return 0;
  return seconds;
}

/* As many beats as a pending change can be away (32 bars of 4 cycles):
 * the page cannot apply a language's plural rules itself, so it gets the
 * countdown's text for each count, with %d and %g left for it to fill. */
#define MAX_BEAT_FORMS 512

static JsonNode *
page_strings (void)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "cancel");
  json_builder_add_string_value (builder, _("Cancel"));
  json_builder_set_member_name (builder, "cancelName");
  json_builder_add_string_value (builder, _("Cancel the pending change"));
  json_builder_set_member_name (builder, "pending");
  json_builder_add_string_value (builder, _("Queued for cycle %g"));
  json_builder_set_member_name (builder, "landing");
  /* The same words as the chat's (sj-message-row.c). */
  json_builder_add_string_value (builder, _("Landing at cycle %g"));
  json_builder_set_member_name (builder, "landsIn");
  json_builder_begin_array (builder);
  for (int beats = 0; beats <= MAX_BEAT_FORMS; beats++)
    /* The same words as the chat's (sj-message-row.c). */
    json_builder_add_string_value (builder, g_dngettext (GETTEXT_PACKAGE, "Lands in %d beat (cycle %g)",
                                                         "Lands in %d beats (cycle %g)", beats));
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

static char *
handle_message (SjRepl        *self,
                SjPageMessage *message)
{
  g_autoptr(SjLogEntry) entry = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) root = NULL;

  switch (message->type)
    {
    case SJ_PAGE_MESSAGE_HELLO:
      /* The page asks for the code to start with before it builds the editor. */
      builder = json_builder_new ();
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "code");
      json_builder_add_string_value (builder, self->initial_code ? self->initial_code : "");
      json_builder_set_member_name (builder, "drawFps");
      json_builder_add_int_value (builder, self->draw_fps);
      /* The master safety limiter (limiter.mjs), before any sound. */
      json_builder_set_member_name (builder, "limiter");
      json_builder_add_boolean_value (builder, self->limiter);
      /* The user's folders of samples (sj-repl-user-samples.c). */
      json_builder_set_member_name (builder, "userSamples");
      json_builder_add_value (builder, _sj_repl_user_samples_for_hello (self));
      /* The level analysis (levels.mjs); bench/levels turns it off for its
       * A/B run. */
      json_builder_set_member_name (builder, "levels");
      json_builder_add_boolean_value (builder, g_strcmp0 (g_getenv ("STRUDEL_JAM_LEVELS"), "0") != 0);
      json_builder_set_member_name (builder, "levelsAlternateSeconds");
      json_builder_add_double_value (builder, levels_alternate_seconds ());
      /* The page's own words (the pending change's banner), translated
       * here where the catalogs are. */
      json_builder_set_member_name (builder, "strings");
      json_builder_add_value (builder, page_strings ());
      json_builder_end_object (builder);
      root = json_builder_get_root (builder);
      return json_to_string (root, FALSE);

    case SJ_PAGE_MESSAGE_READY:
      g_clear_pointer (&self->versions, json_object_unref);
      self->versions = message->object ? json_object_ref (message->object) : NULL;
      if (self->code == NULL)
        self->code = g_strdup (self->initial_code);
      self->ready = TRUE;
      _sj_repl_notify (self, SJ_REPL_PROP_READY);
      _sj_repl_emit (self, SJ_REPL_SIGNAL_READY);
      break;

    case SJ_PAGE_MESSAGE_STATE:
      _sj_repl_set_state (self, &message->state);
      break;

    case SJ_PAGE_MESSAGE_LOG:
      entry = sj_log_entry_new (message->level, message->text);
      _sj_repl_emit (self, SJ_REPL_SIGNAL_LOG, entry);
      break;

    case SJ_PAGE_MESSAGE_EVAL_ERROR:
      _sj_repl_emit (self, SJ_REPL_SIGNAL_EVAL_ERROR, message->text, message->line, message->column);
      break;

    case SJ_PAGE_MESSAGE_NOTHING_TO_PLAY:
      _sj_repl_emit (self, SJ_REPL_SIGNAL_NOTHING_TO_PLAY);
      break;

    case SJ_PAGE_MESSAGE_SOUNDS:
      g_clear_pointer (&self->sounds, json_object_unref);
      self->sounds = json_object_ref (message->object);
      _sj_repl_emit (self, SJ_REPL_SIGNAL_SOUNDS_CHANGED);
      break;

    case SJ_PAGE_MESSAGE_CODE:
      if (g_strcmp0 (self->code, message->text) != 0)
        {
          g_free (self->code);
          self->code = g_strdup (message->text);
          _sj_repl_emit (self, SJ_REPL_SIGNAL_CODE_CHANGED, self->code);
        }
      break;

    case SJ_PAGE_MESSAGE_SWAP:
      _sj_repl_emit (self, SJ_REPL_SIGNAL_SWAP_CHANGED, message->text, message->cycle);
      break;

    case SJ_PAGE_MESSAGE_OUTPUT:
      _sj_repl_emit (self, SJ_REPL_SIGNAL_OUTPUT, message->text, message->object);
      break;

    case SJ_PAGE_MESSAGE_MIDI_IN:
      _sj_repl_emit (self, SJ_REPL_SIGNAL_MIDI_INPUT, message->text);
      break;

    case SJ_PAGE_MESSAGE_LEVELS:
      _sj_repl_emit (self, SJ_REPL_SIGNAL_LEVELS, message->levels);
      break;

    case SJ_PAGE_MESSAGE_COUNTDOWN:
      _sj_repl_emit (self, SJ_REPL_SIGNAL_SWAP_COUNTDOWN, message->cycle, message->beats, message->seconds);
      break;

    case SJ_PAGE_MESSAGE_ACTION:
      _sj_repl_emit (self, SJ_REPL_SIGNAL_ACTION_REQUESTED, message->text);
      break;

    default:
      g_assert_not_reached ();
    }

  return NULL;
}

gboolean
_sj_repl_script_message_cb (WebKitUserContentManager *manager,
                            JSCValue                 *value,
                            WebKitScriptMessageReply *reply,
                            gpointer                  user_data)
{
  SjRepl *self = user_data;
  g_autoptr(SjPageMessage) message = NULL;
  g_autoptr(JSCValue) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *reply_json = NULL;
  JSCContext *context = jsc_value_get_context (value);

  g_assert (SJ_IS_REPL (self));

  if (!jsc_value_is_string (value))
    g_message ("Ignoring a page message that is not a string");
  else if ((message = sj_page_message_parse ((text = jsc_value_to_string (value)), -1, &error)) == NULL)
    g_message ("Ignoring a page message: %s", error->message);
  else
    reply_json = handle_message (self, message);

  if (reply_json != NULL)
    answer = jsc_value_new_from_json (context, reply_json);
  else
    answer = jsc_value_new_null (context);

  webkit_script_message_reply_return_value (reply, answer);

  return TRUE;
}

/* Navigation and resources ------------------------------------------------ */

void
_sj_repl_resource_load_started_cb (WebKitWebView     *view,
                                   WebKitWebResource *resource,
                                   WebKitURIRequest  *request,
                                   gpointer           user_data)
{
  SjRepl *self = user_data;
  const char *uri = webkit_uri_request_get_uri (request);

  g_debug ("Resource load started: %s", uri);

  /* Remember every request that would leave the app (not our scheme, not an
   * in-memory data: or blob: URI): offline-first is checked with this. */
  if (sj_web_assets_is_own_uri (uri) || g_str_has_prefix (uri, "data:") ||
      g_str_has_prefix (uri, "blob:") || g_str_has_prefix (uri, "about:"))
    return;

  g_ptr_array_insert (self->external_requests, self->external_requests->len - 1, g_strdup (uri));
  _sj_repl_emit (self, SJ_REPL_SIGNAL_EXTERNAL_REQUEST, uri);
}

void
_sj_repl_web_process_terminated_cb (WebKitWebView                     *view,
                                    WebKitWebProcessTerminationReason  reason,
                                    gpointer                           user_data)
{
  SjRepl *self = user_data;
  g_autoptr(SjLogEntry) entry = NULL;

  g_assert (SJ_IS_REPL (self));

  /* The music stops with the process, but the code survives: reload the
   * page with the last code the page reported. */
  if (reason == WEBKIT_WEB_PROCESS_TERMINATED_BY_API)
    entry = sj_log_entry_new (SJ_LOG_LEVEL_WARNING, _("The Strudel page was restarted"));
  else
    entry = sj_log_entry_new (SJ_LOG_LEVEL_ERROR, _("The Strudel page stopped unexpectedly and was reloaded"));
  _sj_repl_emit (self, SJ_REPL_SIGNAL_LOG, entry);

  sj_repl_load (self, self->code ? self->code : self->initial_code);
}
