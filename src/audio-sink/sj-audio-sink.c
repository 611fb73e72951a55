/* sj-audio-sink.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * sjaudiosink: the audio sink WebKit's Web Audio output plays through in
 * Strudel Jam's web process (issue 35). It is a GStreamer plugin of its
 * own, loaded by the web process only: the app puts its folder first on
 * GST_PLUGIN_PATH before WebKit starts (sj_application_prepare_env ()), and
 * its rank (PRIMARY + 100) makes autoaudiosink pick it before the system's
 * sinks. It is a bin around the system's pulsesink (PulseAudio, or
 * PipeWire's PulseAudio server), so the stream looks the same to the sound
 * server as before: the same pulsesink, configured the same way by WebKit,
 * with one more stream property ("strudel-jam.sink" = "sjaudiosink") that
 * says it came through here.
 *
 * Why it exists: WebKit's pipeline (webaudiosrc ! clocksync ! audioconvert
 * ! audioresample ! queue ! autoaudiosink) runs on the system clock, which
 * WebKit sets as the pipeline's clock, so the sink is slaved to it. The
 * sound server consumes samples at its own rate, which drifts from the
 * system clock (about 180 ppm against PulseAudio's null sink); with the
 * default slave method ("skew") audiobasesink lets the difference build up
 * to half its drift tolerance (20 ms) and then jumps by that much at once,
 * an audible 20 ms hole every ~110 s. No WebKit setting reaches the sink's
 * slave method or the pipeline's clock.
 *
 * What it does: when it goes to PAUSED it gives the pipeline a clock of its
 * own (gst_pipeline_use_clock () on the top-level pipeline), by default a
 * system clock that runs at pulsesink's rate (sj-follow-clock.c): the sink,
 * slaved to a clock that keeps pace with its own, never builds up the
 * 20 ms it would correct, while the time clocksync paces the page by moves
 * as smoothly as the system clock's. STRUDEL_JAM_AUDIO_SINK_CLOCK chooses:
 *   follow   (the default) that clock
 *   sink     pulsesink's own clock as the pipeline's: nothing slaved, but
 *            the page then paces itself by the sound server's clock as it
 *            is, in steps, and under load its notes were found late more
 *            often (bench/README.md)
 *   system   WebKit's system clock, left alone: the sink slaved to it and
 *            its skew corrected in 20 ms jumps, as without this plugin
 * STRUDEL_JAM_AUDIO_SINK=system in the app's environment keeps this plugin
 * out altogether (sj-application.c).
 *
 * On a clock at the sink's rate there is no drift left to correct, so the
 * sink moves its playout point only for a skew that lasts: its slave method
 * is "custom", decided by sj-skew-guard.c (a second past 40 ms). "skew",
 * pulsesink's own, turned a single underrun into seconds of silence by
 * chasing the sound server's time through it. Levers, for measuring with
 * bench/soak and bench/audio (bench/README.md):
 *   STRUDEL_JAM_AUDIO_SINK_SLAVE=skew|none  pulsesink's own slave method
 *            instead ("none" never moves the playout point; only on a
 *            clock at the sink's rate: on the system clock the drift would
 *            grow without end, so there it is always "skew")
 *   STRUDEL_JAM_AUDIO_BUFFER_MS=N           pulsesink's buffer, 20 to
 *            1000 ms, instead of WebKit's 100 ms
 * GST_DEBUG=sjaudiosink:4,sjfollowclock:4 logs the clocks, every 10 s the
 * drift of the system clock against the sink's, and the follow clock's rate.
 */

#include "config.h"

#include <gst/audio/audio.h>
#include <gst/gst.h>

#include "sj-follow-clock.h"
#include "sj-skew-guard.h"

GST_DEBUG_CATEGORY_STATIC (sj_audio_sink_debug);
#define GST_CAT_DEFAULT sj_audio_sink_debug

#define SJ_TYPE_AUDIO_SINK (sj_audio_sink_get_type ())
G_DECLARE_FINAL_TYPE (SjAudioSink, sj_audio_sink, SJ, AUDIO_SINK, GstBin)

/* How often the drift is logged, at GST_DEBUG=sjaudiosink:4. */
#define DRIFT_LOG_INTERVAL (10 * GST_SECOND)
/* How often the follow clock measures the sink's. */
#define FOLLOW_INTERVAL (GST_SECOND)

/* The pipeline's clock (STRUDEL_JAM_AUDIO_SINK_CLOCK). */
typedef enum {
  CLOCK_SYSTEM, /* WebKit's, left alone: the sink slaved to it */
  CLOCK_SINK,   /* pulsesink's own: nothing slaved */
  CLOCK_FOLLOW, /* a system clock at pulsesink's rate (sj-follow-clock.c) */
} ClockMode;

static const char * const clock_names[] = { "system", "sink", "follow" };
#define DEFAULT_CLOCK_MODE CLOCK_FOLLOW

/* When pulsesink moves its playout point (STRUDEL_JAM_AUDIO_SINK_SLAVE). */
typedef enum {
  SLAVE_GUARDED, /* custom: sj-skew-guard.c */
  SLAVE_SKEW,    /* pulsesink's default */
  SLAVE_NONE,    /* never */
} SlaveMode;

static const char * const slave_names[] = { "guarded", "skew", "none" };

/* WebKit's buffer (its autoaudiosink handler), and the bounds of the
 * STRUDEL_JAM_AUDIO_BUFFER_MS lever. */
#define DEFAULT_BUFFER_MS 100
#define MIN_BUFFER_MS 20
#define MAX_BUFFER_MS 1000

struct _SjAudioSink
{
  GstBin      parent_instance;

  GstElement *sink;
  ClockMode   clock_mode;
  SlaveMode   slave_mode;
  SjSkewGuard skew_guard;
  guint       buffer_ms;
  GstClock   *follow_clock;
  GstClockID  drift_timer;
  GstClockTime drift_system0;
  GstClockTime drift_sink0;
};

G_DEFINE_TYPE (SjAudioSink, sj_audio_sink, GST_TYPE_BIN)

enum {
  PROP_0,
  PROP_CLOCK,
  PROP_TS_OFFSET,
  PROP_CLIENT_NAME,
  PROP_STREAM_PROPERTIES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GstStaticPadTemplate sink_template =
  GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

/* The clocks ---------------------------------------------------------------*/

static GstPipeline *
find_pipeline (SjAudioSink *self)
{
  GstObject *top = NULL;
  GstObject *parent = gst_object_get_parent (GST_OBJECT (self));

  while (parent != NULL)
    {
      GstObject *next = gst_object_get_parent (parent);

      g_clear_object (&top);
      top = parent;
      parent = next;
    }

  if (top != NULL && !GST_IS_PIPELINE (top))
    g_clear_object (&top);

  return (GstPipeline *) top;
}

/* Makes the sink's own clock, or a system clock that follows its rate, the
 * pipeline's. */
static void
use_clock (SjAudioSink *self)
{
  g_autoptr(GstPipeline) pipeline = NULL;
  g_autoptr(GstClock) before = NULL;
  /* Not gst_element_provide_clock (): that answers only once the ring
   * buffer is acquired, after the pipeline has picked its clock. */
  GstClock *sink_clock = GST_AUDIO_BASE_SINK (self->sink)->provided_clock;
  GstClock *clock;

  g_assert (SJ_IS_AUDIO_SINK (self));

  pipeline = find_pipeline (self);
  if (pipeline == NULL || sink_clock == NULL)
    {
      GST_INFO_OBJECT (self, "no pipeline or no sink clock: the pipeline's clock stays");
      return;
    }

  if (self->clock_mode == CLOCK_FOLLOW)
    {
      if (self->follow_clock == NULL)
        self->follow_clock = sj_follow_clock_new (sink_clock, FOLLOW_INTERVAL);
      clock = self->follow_clock;
    }
  else
    clock = sink_clock;

  before = gst_pipeline_get_pipeline_clock (pipeline);
  GST_INFO_OBJECT (self, "pipeline %s: clock %s (%s) replaced by %s",
                   GST_OBJECT_NAME (pipeline),
                   before != NULL ? GST_OBJECT_NAME (before) : "none",
                   before != NULL ? G_OBJECT_TYPE_NAME (before) : "-",
                   GST_OBJECT_NAME (clock));
  gst_pipeline_use_clock (pipeline, clock);
}

/* Logs how fast the system clock runs against the sink's (in ppm). */
static gboolean
log_drift (GstClock     *clock,
           GstClockTime  time,
           GstClockID    id,
           gpointer      user_data)
{
  SjAudioSink *self = SJ_AUDIO_SINK (user_data);
  GstClock *sink_clock = GST_AUDIO_BASE_SINK (self->sink)->provided_clock;
  GstClockTime system_now = gst_clock_get_time (clock);
  /* Its own time: its calibration follows the pipeline's clock when it is
   * slaved (sj-follow-clock.c). */
  GstClockTime sink_now = gst_clock_get_internal_time (sink_clock);

  if (GST_CLOCK_TIME_IS_VALID (self->drift_system0) && sink_now > self->drift_sink0)
    {
      double ds = (double) (system_now - self->drift_system0);
      double dk = (double) (sink_now - self->drift_sink0);

      GST_INFO_OBJECT (self, "drift: system clock %+.1f ppm against the sink's over %.1f s",
                       (ds / dk - 1.0) * 1e6, ds / GST_SECOND);
    }
  else
    {
      self->drift_system0 = system_now;
      self->drift_sink0 = sink_now;
    }

  return TRUE;
}

static void
start_drift_log (SjAudioSink *self)
{
  g_autoptr(GstClock) system = NULL;

  if (gst_debug_category_get_threshold (sj_audio_sink_debug) < GST_LEVEL_INFO ||
      self->drift_timer != NULL)
    return;

  system = gst_system_clock_obtain ();
  self->drift_system0 = GST_CLOCK_TIME_NONE;
  self->drift_timer = gst_clock_new_periodic_id (system,
                                                 gst_clock_get_time (system) + 2 * GST_SECOND,
                                                 DRIFT_LOG_INTERVAL);
  gst_clock_id_wait_async (self->drift_timer, log_drift, gst_object_ref (self), gst_object_unref);
}

static void
stop_drift_log (SjAudioSink *self)
{
  if (self->drift_timer == NULL)
    return;

  gst_clock_id_unschedule (self->drift_timer);
  g_clear_pointer (&self->drift_timer, gst_clock_id_unref);
}

static void
stop_follow_clock (SjAudioSink *self)
{
  if (self->follow_clock == NULL)
    return;

  sj_follow_clock_stop (SJ_FOLLOW_CLOCK (self->follow_clock));
  g_clear_object (&self->follow_clock);
}

static ClockMode
parse_clock_mode (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (clock_names); i++)
    if (g_strcmp0 (name, clock_names[i]) == 0)
      return i;

  return DEFAULT_CLOCK_MODE;
}

/* STRUDEL_JAM_AUDIO_SINK_SLAVE; on WebKit's system clock always "skew",
 * the only method there that corrects the drift. */
static SlaveMode
parse_slave_mode (const char *name,
                  ClockMode   clock_mode)
{
  if (clock_mode == CLOCK_SYSTEM)
    return SLAVE_SKEW;

  for (guint i = 0; i < G_N_ELEMENTS (slave_names); i++)
    if (g_strcmp0 (name, slave_names[i]) == 0)
      return i;

  return SLAVE_GUARDED;
}

/* pulsesink's custom slaving: it asks, on each buffer, whether to move the
 * playout point, and by how much (sj-skew-guard.c). Its streaming thread. */
static void
guarded_slaving_cb (GstAudioBaseSink              *sink,
                    GstClockTime                   etime,
                    GstClockTime                   itime,
                    GstClockTimeDiff              *requested_skew,
                    GstAudioBaseSinkDiscontReason  reason,
                    gpointer                       user_data)
{
  SjAudioSink *self = SJ_AUDIO_SINK (user_data);
  gboolean settled;

  if (reason == GST_AUDIO_BASE_SINK_DISCONT_REASON_ALIGNMENT)
    {
      sj_skew_guard_interrupt (&self->skew_guard);
      return;
    }
  if (reason != GST_AUDIO_BASE_SINK_DISCONT_REASON_NO_DISCONT || requested_skew == NULL)
    {
      sj_skew_guard_start (&self->skew_guard);
      return;
    }

  settled = self->skew_guard.settled;
  *requested_skew = sj_skew_guard_observe (&self->skew_guard, etime, itime);
  /* Worded as pulsesink's own, which bench/soak counts. */
  if (*requested_skew != 0 && settled)
    GST_WARNING_OBJECT (self, "correct clock skew %" GST_STIME_FORMAT ": past %" GST_TIME_FORMAT
                        " for %" GST_TIME_FORMAT, GST_STIME_ARGS (*requested_skew),
                        GST_TIME_ARGS (SJ_SKEW_GUARD_TOLERANCE), GST_TIME_ARGS (SJ_SKEW_GUARD_PERSIST));
  else if (*requested_skew != 0)
    GST_WARNING_OBJECT (self, "correct clock skew %" GST_STIME_FORMAT ": the stream starting",
                        GST_STIME_ARGS (*requested_skew));
}

/* STRUDEL_JAM_AUDIO_BUFFER_MS, within bounds; WebKit's 100 ms otherwise. */
static guint
parse_buffer_ms (const char *text)
{
  guint64 ms = 0;

  if (text == NULL ||
      !g_ascii_string_to_unsigned (text, 10, MIN_BUFFER_MS, MAX_BUFFER_MS, &ms, NULL))
    return DEFAULT_BUFFER_MS;

  return (guint) ms;
}

/* The stream ----------------------------------------------------------------*/

/* Gives pulsesink @given (WebKit's, or the ones it already has when NULL)
 * with sjaudiosink's marks added, so that PulseAudio's clients (and the
 * tests) can tell the stream came through here, and on which clock. The
 * stream opens in READY_TO_PAUSED, after both callers. */
static void
set_stream_properties (SjAudioSink        *self,
                       const GstStructure *given)
{
  g_autoptr(GstStructure) props = NULL;
  g_autofree char *buffer_ms = g_strdup_printf ("%u", self->buffer_ms);

  if (given != NULL)
    props = gst_structure_copy (given);
  else
    g_object_get (self->sink, "stream-properties", &props, NULL);
  if (props == NULL)
    props = gst_structure_new_empty ("props");

  gst_structure_set (props,
                     "strudel-jam.sink", G_TYPE_STRING, "sjaudiosink",
                     "strudel-jam.clock", G_TYPE_STRING, clock_names[self->clock_mode],
                     "strudel-jam.slave", G_TYPE_STRING, slave_names[self->slave_mode],
                     /* pulsesink passes strings only. */
                     "strudel-jam.buffer-ms", G_TYPE_STRING, buffer_ms,
                     NULL);
  g_object_set (self->sink, "stream-properties", props, NULL);
}

/* GstElement ----------------------------------------------------------------*/

static GstStateChangeReturn
sj_audio_sink_change_state (GstElement     *element,
                            GstStateChange  transition)
{
  SjAudioSink *self = SJ_AUDIO_SINK (element);
  GstStateChangeReturn ret;

  /* Without pulsesink, autoaudiosink goes on to the next sink. */
  if (self->sink == NULL)
    return GST_STATE_CHANGE_FAILURE;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY)
    set_stream_properties (self, NULL);

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED && self->clock_mode != CLOCK_SYSTEM)
    use_clock (self);

  ret = GST_ELEMENT_CLASS (sj_audio_sink_parent_class)->change_state (element, transition);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING)
    {
      g_autoptr(GstClock) clock = gst_element_get_clock (element);

      GST_INFO_OBJECT (self, "playing on clock %s (%s), the sink's own: %s",
                       clock != NULL ? GST_OBJECT_NAME (clock) : "none",
                       clock != NULL ? G_OBJECT_TYPE_NAME (clock) : "-",
                       clock == GST_AUDIO_BASE_SINK (self->sink)->provided_clock ? "yes" : "no");
      start_drift_log (self);
    }
  else if (transition == GST_STATE_CHANGE_PLAYING_TO_PAUSED)
    stop_drift_log (self);
  else if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    stop_follow_clock (self);

  return ret;
}

/* GObject -------------------------------------------------------------------*/

static void
sj_audio_sink_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  SjAudioSink *self = SJ_AUDIO_SINK (object);

  switch (prop_id)
    {
    case PROP_CLOCK:
      g_value_set_string (value, clock_names[self->clock_mode]);
      break;
    case PROP_TS_OFFSET:
    case PROP_CLIENT_NAME:
    case PROP_STREAM_PROPERTIES:
      if (self->sink != NULL)
        g_object_get_property (G_OBJECT (self->sink), pspec->name, value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_audio_sink_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  SjAudioSink *self = SJ_AUDIO_SINK (object);

  switch (prop_id)
    {
    case PROP_CLOCK:
      self->clock_mode = parse_clock_mode (g_value_get_string (value));
      /* The drift against WebKit's clock needs pulsesink's own correction. */
      if (self->clock_mode == CLOCK_SYSTEM && self->sink != NULL && self->slave_mode != SLAVE_SKEW)
        {
          self->slave_mode = SLAVE_SKEW;
          gst_util_set_object_arg (G_OBJECT (self->sink), "slave-method", "skew");
        }
      break;
    case PROP_TS_OFFSET:
    case PROP_CLIENT_NAME:
      if (self->sink != NULL)
        g_object_set_property (G_OBJECT (self->sink), pspec->name, value);
      break;
    case PROP_STREAM_PROPERTIES:
      if (self->sink != NULL)
        set_stream_properties (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sj_audio_sink_dispose (GObject *object)
{
  SjAudioSink *self = SJ_AUDIO_SINK (object);

  stop_drift_log (self);
  stop_follow_clock (self);
  self->sink = NULL; /* owned by the bin */

  G_OBJECT_CLASS (sj_audio_sink_parent_class)->dispose (object);
}

static void
sj_audio_sink_class_init (SjAudioSinkClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  object_class->get_property = sj_audio_sink_get_property;
  object_class->set_property = sj_audio_sink_set_property;
  object_class->dispose = sj_audio_sink_dispose;
  element_class->change_state = sj_audio_sink_change_state;

  properties[PROP_CLOCK] =
    g_param_spec_string ("clock", "Clock",
                         "The pipeline's clock: \"system\" (left alone), \"sink\" (the sound server's) "
                         "or \"follow\" (a system clock at the sound server's rate)",
                         clock_names[DEFAULT_CLOCK_MODE], G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /* pulsesink's, which autoaudiosink (ts-offset) and WebKit (client-name,
   * the UI process's application name, and stream-properties with
   * media.role) set on the sink autoaudiosink picked: the recorder finds the
   * app's stream by that application name (src/services/record/). */
  properties[PROP_TS_OFFSET] =
    g_param_spec_int64 ("ts-offset", "TS Offset", "Timestamp offset in nanoseconds (pulsesink's)",
                        G_MININT64, G_MAXINT64, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  properties[PROP_CLIENT_NAME] =
    g_param_spec_string ("client-name", "Client Name", "The PulseAudio client name (pulsesink's)",
                         NULL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  properties[PROP_STREAM_PROPERTIES] =
    g_param_spec_boxed ("stream-properties", "Stream properties",
                        "PulseAudio stream properties (pulsesink's, with this sink's marks added)",
                        GST_TYPE_STRUCTURE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
                                         "Strudel Jam audio sink", "Sink/Audio",
                                         "The system's PulseAudio sink, running the pipeline on its clock",
                                         "Strudel Jam");
}

static void
sj_audio_sink_init (SjAudioSink *self)
{
  g_autoptr(GstPad) target = NULL;
  GstPad *ghost;

  self->clock_mode = parse_clock_mode (g_getenv ("STRUDEL_JAM_AUDIO_SINK_CLOCK"));
  self->slave_mode = parse_slave_mode (g_getenv ("STRUDEL_JAM_AUDIO_SINK_SLAVE"), self->clock_mode);
  sj_skew_guard_start (&self->skew_guard);
  self->buffer_ms = parse_buffer_ms (g_getenv ("STRUDEL_JAM_AUDIO_BUFFER_MS"));

  self->sink = gst_element_factory_make ("pulsesink", NULL);
  if (self->sink == NULL)
    return;

  /* WebKit gives the sink autoaudiosink picks 100 ms of buffer when it is
   * an audio base sink (its autoaudiosink child-added handler); this bin is
   * not one, so it does the same to its pulsesink. */
  g_object_set (self->sink, "buffer-time", (gint64) self->buffer_ms * 1000, NULL);
  if (self->slave_mode == SLAVE_GUARDED)
    {
      /* The sink holds a pointer to the bin that owns it: no reference. */
      gst_audio_base_sink_set_custom_slaving_callback (GST_AUDIO_BASE_SINK (self->sink),
                                                       guarded_slaving_cb, self, NULL);
      gst_util_set_object_arg (G_OBJECT (self->sink), "slave-method", "custom");
    }
  else
    gst_util_set_object_arg (G_OBJECT (self->sink), "slave-method", slave_names[self->slave_mode]);

  gst_bin_add (GST_BIN (self), self->sink);
  target = gst_element_get_static_pad (self->sink, "sink");
  ghost = gst_ghost_pad_new ("sink", target);
  gst_element_add_pad (GST_ELEMENT (self), ghost);
  GST_OBJECT_FLAG_SET (self, GST_ELEMENT_FLAG_SINK);
}

/* The plugin ----------------------------------------------------------------*/

static gboolean
plugin_init (GstPlugin *plugin)
{
  GST_DEBUG_CATEGORY_INIT (sj_audio_sink_debug, "sjaudiosink", 0, "Strudel Jam audio sink");

  return gst_element_register (plugin, "sjaudiosink", GST_RANK_PRIMARY + 100, SJ_TYPE_AUDIO_SINK);
}

#define PACKAGE "strudel-jam"
GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, sjaudiosink,
                   "Strudel Jam's audio output for WebKit's Web Audio",
                   plugin_init, PACKAGE_VERSION, "GPL", PACKAGE,
                   "https://github.com/strudeljam/strudel-jam")
