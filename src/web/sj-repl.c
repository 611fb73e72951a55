/* sj-repl.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * SjRepl owns the contract with the Strudel page and is the only code in
 * Strudel Jam that talks to JavaScript. It creates the web view, serves the
 * bundled page, and keeps the bridge thin in both directions:
 *
 *  - The page posts JSON messages (ready, state, log, eval-error, sounds,
 *    code, swap) to a script message handler that lives in an isolated script
 *    world, so the user's evaluated code cannot reach it directly. Every
 *    message is validated by sj_page_message_parse() before it is acted on.
 *  - Commands go the other way with webkit_web_view_call_async_javascript_function()
 *    on window.sjBridge, each with a GCancellable and a timeout, so that a
 *    page stuck in a user's endless loop can never hang the app.
 *
 * What the page posts is handled in sj-repl-messages.c, the commands are
 * in sj-repl-commands.c and the web view is built in sj-repl-view.c; this
 * file holds the object: its properties and signals, loading the page and
 * what the rest of the app reads of it.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <stdlib.h>

#include "sj-audio-priority.h"
#include "sj-js-call.h"
#include "sj-platform.h"
#include "sj-repl-private.h"
#include "sj-web-assets.h"
#include "sj-web-resources.h"

G_DEFINE_FINAL_TYPE (SjRepl, sj_repl, G_TYPE_OBJECT)

static GParamSpec *properties[SJ_REPL_N_PROPS];
static guint signals[SJ_REPL_N_SIGNALS];

/* Commands run only once the page has said it is ready. */
void
_sj_repl_call (SjRepl              *self,
              const char          *body,
              GVariant            *arguments,
              guint                timeout_ms,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data,
              gpointer             source_tag)
{
  g_assert (SJ_IS_REPL (self));

  if (!self->ready)
    {
      g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

      g_task_set_source_tag (task, source_tag);
      if (arguments != NULL)
        g_variant_unref (g_variant_ref_sink (arguments));
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                               _("The Strudel page is not ready yet"));
      return;
    }

  sj_js_call_async (self->view, self, body, arguments, timeout_ms,
                    cancellable, callback, user_data, source_tag);
}

JsonNode *
_sj_repl_call_finish (SjRepl        *self,
                     GAsyncResult  *result,
                     gpointer       source_tag,
                     GError       **error)
{
  g_assert (SJ_IS_REPL (self));

  return sj_js_call_finish (self, result, source_tag, error);
}

SjAudioPriority *
_sj_repl_get_audio_priority (SjRepl *self)
{
  g_assert (SJ_IS_REPL (self));

  return self->audio_priority;
}

/* The signal and property arrays stay in this file; the other files of
 * SjRepl emit and notify through these two. */
void
_sj_repl_emit (SjRepl       *self,
               SjReplSignal  signal,
               ...)
{
  va_list args;

  g_assert (SJ_IS_REPL (self));

  va_start (args, signal);
  g_signal_emit_valist (self, signals[signal], 0, args);
  va_end (args);
}

void
_sj_repl_notify (SjRepl         *self,
                 SjReplProperty  property)
{
  g_assert (SJ_IS_REPL (self));

  g_object_notify_by_pspec (G_OBJECT (self), properties[property]);
}

/* GObject ---------------------------------------------------------------- */

static void
sj_repl_dispose (GObject *object)
{
  SjRepl *self = (SjRepl *)object;

  if (self->content_manager != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->content_manager, self);
      webkit_user_content_manager_unregister_script_message_handler (self->content_manager,
                                                                     SJ_REPL_BRIDGE_HANDLER, SJ_REPL_BRIDGE_WORLD);
    }
  if (self->view != NULL)
    g_signal_handlers_disconnect_by_data (self->view, self);

  g_clear_object (&self->view);
  g_clear_object (&self->content_manager);
  g_clear_object (&self->assets);
  g_clear_object (&self->audio_priority);

  G_OBJECT_CLASS (sj_repl_parent_class)->dispose (object);
}

static void
sj_repl_finalize (GObject *object)
{
  SjRepl *self = (SjRepl *)object;

  g_clear_pointer (&self->initial_code, g_free);
  g_clear_pointer (&self->code, g_free);
  g_clear_pointer (&self->sounds, json_object_unref);
  g_clear_pointer (&self->versions, json_object_unref);
  g_clear_pointer (&self->external_requests, g_ptr_array_unref);

  G_OBJECT_CLASS (sj_repl_parent_class)->finalize (object);
}

static void
sj_repl_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  SjRepl *self = SJ_REPL (object);

  switch (prop_id)
    {
    case SJ_REPL_PROP_READY:
      g_value_set_boolean (value, self->ready);
      break;

    case SJ_REPL_PROP_PLAYING:
      g_value_set_boolean (value, self->state.playing);
      break;

    case SJ_REPL_PROP_CPS:
      g_value_set_double (value, self->state.cps);
      break;

    case SJ_REPL_PROP_CYCLE:
      g_value_set_double (value, self->state.cycle);
      break;

    case SJ_REPL_PROP_LIMITER:
      g_value_set_boolean (value, self->limiter);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_repl_set_property (GObject      *object,
                      guint         prop_id,
                      const GValue *value,
                      GParamSpec   *pspec)
{
  SjRepl *self = SJ_REPL (object);

  switch (prop_id)
    {
    case SJ_REPL_PROP_LIMITER:
      sj_repl_set_limiter (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/**
 * sj_repl_set_limiter:
 * @limiter: whether the master output goes through the safety limiter
 *
 * Sets the master safety limiter (the "master-limiter" setting): the page
 * gets it in its hello, and at once when it changes while the page runs.
 */
void
sj_repl_set_limiter (SjRepl   *self,
                     gboolean  limiter)
{
  g_assert (SJ_IS_REPL (self));

  limiter = !!limiter;
  if (self->limiter == (guint) limiter)
    return;
  self->limiter = limiter;
  if (self->ready)
    _sj_repl_send_limiter (self, limiter);
  g_object_notify_by_pspec (G_OBJECT (self), properties[SJ_REPL_PROP_LIMITER]);
}

gboolean
sj_repl_get_limiter (SjRepl *self)
{
  g_assert (SJ_IS_REPL (self));

  return self->limiter;
}

static void
sj_repl_class_init (SjReplClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_repl_dispose;
  object_class->finalize = sj_repl_finalize;
  object_class->get_property = sj_repl_get_property;
  object_class->set_property = sj_repl_set_property;

  properties[SJ_REPL_PROP_READY] =
    g_param_spec_boolean ("ready", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[SJ_REPL_PROP_PLAYING] =
    g_param_spec_boolean ("playing", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[SJ_REPL_PROP_CPS] =
    g_param_spec_double ("cps", NULL, NULL, 0, G_MAXDOUBLE, 0.5,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[SJ_REPL_PROP_CYCLE] =
    g_param_spec_double ("cycle", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /* The master safety limiter: on by default, as the setting is. */
  properties[SJ_REPL_PROP_LIMITER] =
    g_param_spec_boolean ("limiter", NULL, NULL, TRUE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, SJ_REPL_N_PROPS, properties);

  signals[SJ_REPL_SIGNAL_READY] =
    g_signal_new ("ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SJ_REPL_SIGNAL_LOG] =
    g_signal_new ("log", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, SJ_TYPE_LOG_ENTRY);
  signals[SJ_REPL_SIGNAL_EVAL_ERROR] =
    g_signal_new ("eval-error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_INT, G_TYPE_INT);
  /**
   * SjRepl::nothing-to-play:
   *
   * Play was asked for (Ctrl+Enter in the editor, or the Play button)
   * while the editor holds no code: upstream would throw "no code to
   * evaluate" into the page's console, where nobody sees it.
   */
  signals[SJ_REPL_SIGNAL_NOTHING_TO_PLAY] =
    g_signal_new ("nothing-to-play", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SJ_REPL_SIGNAL_SOUNDS_CHANGED] =
    g_signal_new ("sounds-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SJ_REPL_SIGNAL_CODE_CHANGED] =
    g_signal_new ("code-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * SjRepl::navigation-refused:
   * @uri: where the page tried to go
   *
   * The page tried to leave the REPL and was kept in place. A web link the
   * user clicked has been handed to their browser.
   */
  signals[SJ_REPL_SIGNAL_NAVIGATION_REFUSED] =
    g_signal_new ("navigation-refused", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * SjRepl::swap-changed:
   * @state: "scheduled", "applied", "superseded" or "canceled"
   * @cycle: the swap's boundary: the cycle at which its code starts (0 for
   *   a swap applied while stopped)
   *
   * A quantized swap (sj_repl_schedule_swap_async()) changed. "applied" is
   * emitted once the scheduler has reached the boundary and plays the new
   * code; "superseded" when a newer swap replaced it before that, and
   * "canceled" when the user's own evaluation or sj_repl_cancel_swap_async()
   * did. A superseded or canceled swap never played.
   */
  signals[SJ_REPL_SIGNAL_SWAP_CHANGED] =
    g_signal_new ("swap-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_DOUBLE);
  /**
   * SjRepl::swap-countdown:
   * @cycle: the pending swap's boundary
   * @beats: beats (a quarter of a cycle each) left until the boundary is
   *   heard, rounded up; 0 once it is
   * @seconds: the time left, by the page's audio clock
   *
   * The page's countdown of a pending swap changed (swap.mjs): emitted
   * when the swap is scheduled and at each beat until its boundary.
   */
  signals[SJ_REPL_SIGNAL_SWAP_COUNTDOWN] =
    g_signal_new ("swap-countdown", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_DOUBLE, G_TYPE_INT, G_TYPE_DOUBLE);
  /**
   * SjRepl::action-requested:
   * @name: "cancel-change"
   *
   * A control of the page (the pending change's Cancel in the editor)
   * asks the window to run its action of that name.
   */
  signals[SJ_REPL_SIGNAL_ACTION_REQUESTED] =
    g_signal_new ("action-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * SjRepl::output:
   * @kind: "osc" or "midi"
   * @message: the validated page message (sj-page-message.c): the hap's
   *   time on the audio clock, an (audio clock, epoch) pair and its controls
   *
   * A hap of a pattern with .osc() or .midi() is due (data/web/src/outputs.mjs);
   * SjOutputs sends it.
   */
  signals[SJ_REPL_SIGNAL_OUTPUT] =
    g_signal_new ("output", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, JSON_TYPE_OBJECT);
  /**
   * SjRepl::midi-input:
   * @port: the code's midin() argument: part of the name of the MIDI output
   *   to listen to, or empty
   *
   * The code asks for MIDI input; sj_repl_send_midi_controls() hands the
   * control changes back.
   */
  signals[SJ_REPL_SIGNAL_MIDI_INPUT] =
    g_signal_new ("midi-input", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * SjRepl::levels:
   * @report: (type gpointer): the validated #SjLevelReport, valid during
   *   the emission
   *
   * What the page measured of its output (data/web/src/levels.mjs), four
   * times a second while it sounds; SjLevels keeps it.
   */
  signals[SJ_REPL_SIGNAL_LEVELS] =
    g_signal_new ("levels", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
  signals[SJ_REPL_SIGNAL_EXTERNAL_REQUEST] =
    g_signal_new ("external-request", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  sj_web_register_resource ();
}

static void
sj_repl_init (SjRepl *self)
{
  self->state.cps = 0.5;
  self->limiter = TRUE;
  self->print_stats = g_strcmp0 (g_getenv ("STRUDEL_JAM_STATS"), "1") == 0;
  /* Strudel redraws its active-note highlighting on every animation frame.
   * Measured with bench/startup while playing the demo (no GPU): 73 % of a
   * core at 60 Hz, 60 % at 30 Hz, 55 % at 20 Hz (headless Chromium: 43 %).
   * 30 Hz still shows every note of 33 ms or longer; 20 Hz would start to
   * drop 32nd notes at fast tempos. STRUDEL_JAM_DRAW_FPS overrides it. */
  self->draw_fps = g_getenv ("STRUDEL_JAM_DRAW_FPS") ? CLAMP (atoi (g_getenv ("STRUDEL_JAM_DRAW_FPS")), 1, 60) : 30;
  self->external_requests = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->external_requests, NULL);

  self->assets = sj_web_assets_new (SJ_REPL_WEB_RESOURCE_PREFIX);
  self->content_manager = webkit_user_content_manager_new ();
  webkit_user_content_manager_register_script_message_handler_with_reply (self->content_manager,
                                                                          SJ_REPL_BRIDGE_HANDLER,
                                                                          SJ_REPL_BRIDGE_WORLD);
  g_signal_connect (self->content_manager, "script-message-with-reply-received::" SJ_REPL_BRIDGE_HANDLER,
                    G_CALLBACK (_sj_repl_script_message_cb), self);
  self->view = _sj_repl_view_new (self, self->assets, self->content_manager);

  self->audio_priority = sj_audio_priority_new (self);
  g_signal_connect (self->view, "resource-load-started", G_CALLBACK (_sj_repl_resource_load_started_cb), self);
  g_signal_connect (self->view, "web-process-terminated", G_CALLBACK (_sj_repl_web_process_terminated_cb), self);
}

SjRepl *
sj_repl_new (void)
{
  return g_object_new (SJ_TYPE_REPL, NULL);
}

GtkWidget *
sj_repl_get_widget (SjRepl *self)
{
  g_assert (SJ_IS_REPL (self));

  return GTK_WIDGET (self->view);
}

/**
 * sj_repl_load:
 * @initial_code: the code the editor starts with
 *
 * Loads the Strudel page. SjRepl::ready is emitted once the editor exists
 * and the prebake (modules and built-in sounds) has settled.
 */
void
sj_repl_load (SjRepl     *self,
              const char *initial_code)
{
  g_autofree char *code = g_strdup (initial_code);

  g_assert (SJ_IS_REPL (self));

  if (self->ready)
    {
      self->ready = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[SJ_REPL_PROP_READY]);
    }
  if (self->state.playing)
    {
      SjReplState stopped = self->state;

      stopped.playing = FALSE;
      _sj_repl_set_state (self, &stopped);
    }

  g_free (self->initial_code);
  self->initial_code = code ? g_steal_pointer (&code) : g_strdup ("");
  g_clear_pointer (&self->code, g_free);

  webkit_web_view_load_uri (self->view, SJ_WEB_PAGE_URI);
}

/**
 * sj_repl_restart:
 *
 * Ends the page's web process and loads the page again with the code the
 * editor last reported. This is the way out of a page that no longer
 * answers, for example because the user's code loops forever.
 */
void
sj_repl_restart (SjRepl *self)
{
  g_assert (SJ_IS_REPL (self));

  webkit_web_view_terminate_web_process (self->view);
}

gboolean
sj_repl_get_ready (SjRepl *self)
{
  g_assert (SJ_IS_REPL (self));

  return self->ready;
}

const SjReplState *
sj_repl_get_state (SjRepl *self)
{
  g_assert (SJ_IS_REPL (self));

  return &self->state;
}

/* The editor text as of the page's last report (debounced by the page). */
const char *
_sj_repl_get_code (SjRepl *self)
{
  g_assert (SJ_IS_REPL (self));

  return self->code;
}

/* Returns: (transfer none) (nullable): the last sound snapshot. */
JsonObject *
sj_repl_get_sounds (SjRepl *self)
{
  g_assert (SJ_IS_REPL (self));

  return self->sounds;
}

/* Returns: (transfer none) (nullable): the bundled Strudel package versions. */
JsonObject *
_sj_repl_get_versions (SjRepl *self)
{
  g_assert (SJ_IS_REPL (self));

  return self->versions;
}

/**
 * sj_repl_set_sound_cache:
 * @sound_cache: (nullable): what answers the page's sound requests
 *   (strudel-jam://sounds/<pack>/<path>): the app's cache of the sound
 *   library's files
 */
void
sj_repl_set_sound_cache (SjRepl       *self,
                         SjSoundCache *sound_cache)
{
  g_assert (SJ_IS_REPL (self));

  sj_web_assets_set_sound_cache (self->assets, sound_cache);
}

/**
 * sj_repl_set_remote_samples:
 * @remote_samples: (nullable): what answers the page's requests for the
 *   sample maps its code loads and their files (strudel-jam://remote/…)
 */
void
sj_repl_set_remote_samples (SjRepl          *self,
                            SjRemoteSamples *remote_samples)
{
  g_assert (SJ_IS_REPL (self));

  sj_web_assets_set_remote_samples (self->assets, remote_samples);
}

/* Returns: (transfer none): what serves the page's files */
SjWebAssets *
_sj_repl_get_assets (SjRepl *self)
{
  g_assert (SJ_IS_REPL (self));

  return self->assets;
}

/* Returns: the URIs outside our scheme that the page requested so far. */
const char * const *
_sj_repl_get_external_requests (SjRepl *self)
{
  g_assert (SJ_IS_REPL (self));

  return (const char * const *)self->external_requests->pdata;
}
