/* sj-outputs.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Where the haps of .osc() and .midi() patterns go (data/web/src/outputs.mjs
 * posts them, SjRepl::output hands them over): each one's audio-clock time
 * is mapped onto the system clock (SjOutputClock) and sent as a
 * timestamped OSC bundle to SuperDirt (SjOscSender) or as MIDI events
 * through JACK (SjJackMidi) or the ALSA sequencer (SjAlsaMidi).
 *
 * Nothing is opened until the code asks for it: the first .osc() hap
 * creates the socket, the first .midi() hap the MIDI client. Problems are
 * said once in the Console (the ::log signal), not once per hap: a missing
 * JACK server, a control out of range, liblo's errors. A change of
 * settings starts the reports afresh.
 *
 * OSC goes to Settings' host and port without a question; a hap whose
 * oschost or oscport names another destination ("host:port" as the code
 * writes it) is sent only once the user allowed that destination: the
 * first such hap emits ::osc-consent-needed, and it and the haps after it
 * are dropped (not queued: they would be late), with one Console line,
 * until sj_outputs_answer_osc() is called. Answers are remembered in the
 * "osc-destinations" setting when the outputs have settings.
 *
 * MIDI, out and in, is in sj-outputs-midi.c.
 */

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <math.h>

#include "sj-alsa-midi.h"
#include "sj-jack-midi.h"
#include "sj-midi-events.h"
#include "sj-osc-sender.h"
#include "sj-output-clock.h"
#include "sj-outputs-private.h"

/* At most this many distinct problems are told per settings. */
#define MAX_REPORTS 64

G_DEFINE_FINAL_TYPE (SjOutputs, sj_outputs, G_TYPE_OBJECT)

typedef enum {
  CONSENT_UNKNOWN,
  CONSENT_PENDING,
  CONSENT_ALLOWED,
  CONSENT_BLOCKED,
  CONSENT_BLOCKED_FOR_NOW,  /* not remembered */
} Consent;

#define OSC_DESTINATIONS_KEY "osc-destinations"

enum {
  PROP_0,
  PROP_SETTINGS,
  PROP_OSC_HOST,
  PROP_OSC_PORT,
  PROP_MIDI_BACKEND,
  PROP_MIDI_DESTINATION,
  N_PROPS
};

enum {
  LOG,
  MIDI_CONTROLS,
  OSC_CONSENT_NEEDED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* Says @text in the Console once per @key. */
void
_sj_outputs_report (SjOutputs  *self,
                    const char *key,
                    SjLogLevel  level,
                    const char *text)
{
  g_autoptr(SjLogEntry) entry = NULL;

  if (g_hash_table_contains (self->reported, key) || g_hash_table_size (self->reported) >= MAX_REPORTS)
    return;

  g_hash_table_add (self->reported, g_strdup (key));
  entry = sj_log_entry_new (level, text);
  g_signal_emit (self, signals[LOG], 0, entry);
}

/* Control changes read from the MIDI input (sj-outputs-midi.c), as a JSON
 * array. */
void
_sj_outputs_emit_midi_controls (SjOutputs  *self,
                                const char *json)
{
  g_signal_emit (self, signals[MIDI_CONTROLS], 0, json);
}

/* The settings changed: everything opens again on the next hap, and its
 * problems are worth telling again. */
static void
reset (SjOutputs *self)
{
  g_clear_handle_id (&self->input_source, g_source_remove);
  g_clear_object (&self->osc);
  g_clear_object (&self->jack);
  g_clear_object (&self->alsa);
  self->midi_tried = FALSE;
  g_hash_table_remove_all (self->reported);
}

/* OSC ---------------------------------------------------------------------- */

/* The remembered answers, read again whenever the setting changes; the
 * questions still open are kept. */
static void
load_answers (SjOutputs *self)
{
  g_autoptr(GVariant) answers = NULL;
  GHashTableIter iter;
  gpointer value;
  GVariantIter entries;
  const char *key;
  gboolean allowed;

  g_hash_table_iter_init (&iter, self->consent);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (GPOINTER_TO_INT (value) == CONSENT_ALLOWED || GPOINTER_TO_INT (value) == CONSENT_BLOCKED)
      g_hash_table_iter_remove (&iter);

  if (self->settings == NULL)
    return;

  answers = g_settings_get_value (self->settings, OSC_DESTINATIONS_KEY);
  g_variant_iter_init (&entries, answers);
  while (g_variant_iter_next (&entries, "{&sb}", &key, &allowed))
    g_hash_table_insert (self->consent, g_strdup (key), GINT_TO_POINTER (allowed ? CONSENT_ALLOWED : CONSENT_BLOCKED));
}

/* Whether a hap may go to @host:@port; asks the first time. */
static gboolean
osc_allowed (SjOutputs  *self,
             const char *host,
             guint       port)
{
  g_autofree char *key = NULL;
  g_autofree char *text = NULL;
  g_autofree char *report_key = NULL;
  Consent consent;

  /* Settings' own destination is the user's choice already. */
  if (g_strcmp0 (host, sj_osc_sender_get_host (self->osc)) == 0 && port == sj_osc_sender_get_port (self->osc))
    return TRUE;

  key = g_strdup_printf ("%s:%u", host, port);
  consent = GPOINTER_TO_INT (g_hash_table_lookup (self->consent, key));
  switch (consent)
    {
    case CONSENT_ALLOWED:
      return TRUE;

    case CONSENT_UNKNOWN:
      g_hash_table_insert (self->consent, g_strdup (key), GINT_TO_POINTER (CONSENT_PENDING));
      text = g_strdup_printf (_("This code wants to send OSC to %s; nothing goes there until you answer"), key);
      report_key = g_strconcat ("osc-consent:", key, NULL);
      _sj_outputs_report (self, report_key, SJ_LOG_LEVEL_WARNING, text);
      g_signal_emit (self, signals[OSC_CONSENT_NEEDED], 0, host, port);
      return FALSE;

    case CONSENT_BLOCKED:
    case CONSENT_BLOCKED_FOR_NOW:
      text = g_strdup_printf (_("OSC to %s is blocked; its events are dropped"), key);
      report_key = g_strconcat ("osc-blocked:", key, NULL);
      _sj_outputs_report (self, report_key, SJ_LOG_LEVEL_WARNING, text);
      return FALSE;

    case CONSENT_PENDING:
    default:
      return FALSE;
    }
}

static void
send_osc (SjOutputs  *self,
          JsonObject *controls,
          gint64      epoch_us)
{
  g_autoptr(GError) error = NULL;
  const char *host;
  guint port;

  if (self->osc == NULL)
    {
      g_autofree char *text = NULL;

      self->osc = sj_osc_sender_new (self->osc_host, self->osc_port);
      /* UDP cannot tell whether SuperDirt listens, so say where it goes. */
      text = g_strdup_printf (_("Sending OSC to %s:%u (SuperDirt must be running there)"),
                              sj_osc_sender_get_host (self->osc), sj_osc_sender_get_port (self->osc));
      _sj_outputs_report (self, "osc-target", SJ_LOG_LEVEL_INFO, text);
    }

  sj_osc_sender_get_destination (self->osc, controls, &host, &port);
  if (!osc_allowed (self, host, port))
    return;

  if (!sj_osc_sender_send (self->osc, "/dirt/play", controls, epoch_us, &error))
    {
      g_autofree char *key = g_strconcat ("osc-error:", error->message, NULL);

      _sj_outputs_report (self, key, g_error_matches (error, SJ_OSC_SENDER_ERROR, SJ_OSC_SENDER_ERROR_PENDING)
                           ? SJ_LOG_LEVEL_INFO : SJ_LOG_LEVEL_ERROR,
              error->message);
    }
}

/**
 * sj_outputs_answer_osc:
 * @host: the destination's host, as ::osc-consent-needed gave it
 * @port: its port
 * @allow: whether OSC may go there
 * @remember: whether the answer is kept in the settings; otherwise a Block
 *   lasts until the outputs go (an Allow is always remembered)
 *
 * The user's answer to ::osc-consent-needed. Haps that came while the
 * question was open were dropped; the next ones are sent (or not).
 */
void
sj_outputs_answer_osc (SjOutputs  *self,
                       const char *host,
                       guint       port,
                       gboolean    allow,
                       gboolean    remember)
{
  g_autofree char *key = NULL;

  g_assert (SJ_IS_OUTPUTS (self));
  g_return_if_fail (host != NULL);

  key = g_strdup_printf ("%s:%u", host, port);
  remember = remember || allow;
  g_hash_table_insert (self->consent, g_strdup (key),
                       GINT_TO_POINTER (allow ? CONSENT_ALLOWED : remember ? CONSENT_BLOCKED : CONSENT_BLOCKED_FOR_NOW));

  if (remember && self->settings != NULL)
    {
      g_autoptr(GVariant) old = g_settings_get_value (self->settings, OSC_DESTINATIONS_KEY);
      g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a{sb}"));
      GVariantIter entries;
      const char *name;
      gboolean value;

      g_variant_iter_init (&entries, old);
      while (g_variant_iter_next (&entries, "{&sb}", &name, &value))
        if (g_strcmp0 (name, key) != 0)
          g_variant_builder_add (&builder, "{sb}", name, value);
      g_variant_builder_add (&builder, "{sb}", key, allow);
      g_settings_set_value (self->settings, OSC_DESTINATIONS_KEY, g_variant_builder_end (&builder));
    }
}

/**
 * sj_outputs_handle:
 * @kind: "osc" or "midi"
 * @message: an output page message, validated by sj_page_message_parse():
 *   time, clock {audio, epochMs} and controls
 *
 * Sends one hap at its time.
 */
void
sj_outputs_handle (SjOutputs  *self,
                   const char *kind,
                   JsonObject *message)
{
  JsonObject *clock;
  JsonObject *controls;
  gint64 epoch_us;

  g_assert (SJ_IS_OUTPUTS (self));
  g_return_if_fail (kind != NULL && message != NULL);

  clock = json_object_get_object_member (message, "clock");
  controls = json_object_get_object_member (message, "controls");
  if (clock == NULL || controls == NULL)
    return;

  sj_output_clock_add_pair (self->clock,
                            json_object_get_double_member_with_default (clock, "audio", 0),
                            json_object_get_double_member_with_default (clock, "epochMs", 0),
                            g_get_monotonic_time ());
  if (!sj_output_clock_map (self->clock, json_object_get_double_member_with_default (message, "time", 0), &epoch_us))
    {
      _sj_outputs_report (self, "clock", SJ_LOG_LEVEL_WARNING, _("An output event came before the audio clock started; dropped"));
      return;
    }

  if (self->trace_func != NULL)
    {
      double audio = json_object_get_double_member_with_default (clock, "audio", 0);
      double epoch_ms = json_object_get_double_member_with_default (clock, "epochMs", 0);
      double time_s = json_object_get_double_member_with_default (message, "time", 0);

      self->trace_func (kind, controls, epoch_us, (gint64)llround (epoch_ms * 1000 + (time_s - audio) * 1e6),
                        self->trace_data);
    }

  if (g_strcmp0 (kind, "osc") == 0)
    send_osc (self, controls, epoch_us);
  else if (g_strcmp0 (kind, "midi") == 0)
    _sj_outputs_send_midi (self, controls, epoch_us);
}

void
_sj_outputs_set_trace_func (SjOutputs          *self,
                            SjOutputsTraceFunc  func,
                            gpointer            user_data)
{
  g_assert (SJ_IS_OUTPUTS (self));

  self->trace_func = func;
  self->trace_data = user_data;
}

/* GObject ------------------------------------------------------------------ */

SjOutputs *
sj_outputs_new (void)
{
  return g_object_new (SJ_TYPE_OUTPUTS, NULL);
}

/**
 * sj_outputs_new_for_settings:
 * @settings: the application's settings, where the answers about OSC
 *   destinations are kept ("osc-destinations")
 */
SjOutputs *
sj_outputs_new_for_settings (GSettings *settings)
{
  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  return g_object_new (SJ_TYPE_OUTPUTS, "settings", settings, NULL);
}

static void
sj_outputs_constructed (GObject *object)
{
  SjOutputs *self = SJ_OUTPUTS (object);

  G_OBJECT_CLASS (sj_outputs_parent_class)->constructed (object);

  if (self->settings != NULL)
    g_signal_connect_object (self->settings, "changed::" OSC_DESTINATIONS_KEY, G_CALLBACK (load_answers), self,
                             G_CONNECT_SWAPPED);
  load_answers (self);
}

static void
sj_outputs_finalize (GObject *object)
{
  SjOutputs *self = SJ_OUTPUTS (object);

  reset (self);
  g_clear_pointer (&self->reported, g_hash_table_unref);
  g_clear_pointer (&self->consent, g_hash_table_unref);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->clock, sj_output_clock_free);
  g_clear_pointer (&self->osc_host, g_free);
  g_clear_pointer (&self->midi_backend, g_free);
  g_clear_pointer (&self->midi_destination, g_free);

  G_OBJECT_CLASS (sj_outputs_parent_class)->finalize (object);
}

static void
sj_outputs_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  SjOutputs *self = SJ_OUTPUTS (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      g_value_set_object (value, self->settings);
      break;
    case PROP_OSC_HOST:
      g_value_set_string (value, self->osc_host);
      break;
    case PROP_OSC_PORT:
      g_value_set_uint (value, self->osc_port);
      break;
    case PROP_MIDI_BACKEND:
      g_value_set_string (value, self->midi_backend);
      break;
    case PROP_MIDI_DESTINATION:
      g_value_set_string (value, self->midi_destination);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
set_string (SjOutputs  *self,
            char      **field,
            const char *value,
            guint       prop_id)
{
  if (g_strcmp0 (*field, value) == 0)
    return;

  g_free (*field);
  *field = g_strdup (value);
  reset (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop_id]);
}

static void
sj_outputs_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  SjOutputs *self = SJ_OUTPUTS (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      self->settings = g_value_dup_object (value);
      break;
    case PROP_OSC_HOST:
      set_string (self, &self->osc_host, g_value_get_string (value), prop_id);
      break;
    case PROP_OSC_PORT:
      if (self->osc_port != g_value_get_uint (value))
        {
          self->osc_port = g_value_get_uint (value);
          reset (self);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    case PROP_MIDI_BACKEND:
      set_string (self, &self->midi_backend, g_value_get_string (value), prop_id);
      break;
    case PROP_MIDI_DESTINATION:
      set_string (self, &self->midi_destination, g_value_get_string (value), prop_id);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_outputs_class_init (SjOutputsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = sj_outputs_constructed;
  object_class->finalize = sj_outputs_finalize;
  object_class->get_property = sj_outputs_get_property;
  object_class->set_property = sj_outputs_set_property;

  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  properties[PROP_OSC_HOST] =
    g_param_spec_string ("osc-host", NULL, NULL, SJ_OSC_DEFAULT_HOST,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_OSC_PORT] =
    g_param_spec_uint ("osc-port", NULL, NULL, 1, 65535, SJ_OSC_DEFAULT_PORT,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /* "auto" (JACK, else the ALSA sequencer), "jack" or "alsa". */
  properties[PROP_MIDI_BACKEND] =
    g_param_spec_string ("midi-backend", NULL, NULL, "auto",
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /* A port to connect to at once: part of a JACK port's name, or an ALSA
   * "client:port"; empty leaves it to a patchbay. */
  properties[PROP_MIDI_DESTINATION] =
    g_param_spec_string ("midi-destination", NULL, NULL, "",
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SjOutputs::log:
   * @entry: a Console line: where output goes, or what went wrong, once
   */
  signals[LOG] =
    g_signal_new ("log", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, SJ_TYPE_LOG_ENTRY);

  /**
   * SjOutputs::midi-controls:
   * @controls: a JSON array of [channel, control, value] triples, as they
   *   arrived at the MIDI input
   */
  signals[MIDI_CONTROLS] =
    g_signal_new ("midi-controls", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SjOutputs::osc-consent-needed:
   * @host: where the code wants to send OSC, as it wrote it
   * @port: the UDP port
   *
   * Emitted once per destination other than Settings' own; nothing goes
   * there until sj_outputs_answer_osc() is called.
   */
  signals[OSC_CONSENT_NEEDED] =
    g_signal_new ("osc-consent-needed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_UINT);
}

static void
sj_outputs_init (SjOutputs *self)
{
  self->osc_host = g_strdup (SJ_OSC_DEFAULT_HOST);
  self->osc_port = SJ_OSC_DEFAULT_PORT;
  self->midi_backend = g_strdup ("auto");
  self->midi_destination = g_strdup ("");
  self->clock = sj_output_clock_new ();
  self->reported = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->consent = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}
