/* sj-phrase-recorder.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Record a Phrase: listens to the JACK MIDI input (SjOutputs) from the
 * moment it is asked until N cycles after the next cycle boundary, then
 * writes what was played as note("…") (sj-midi-phrase.c).
 *
 * The phrase starts on the next cycle boundary at least an eighth of a
 * cycle away. The cycle clock comes from the page (the cycle that sounds now and its
 * time, the tempo), read by the caller just before: cycle boundaries are
 * then times on the system clock, which JACK's note times are converted
 * to. The notes are kept from the start, so that one played a little
 * early for the first step still counts; the recording ends a moment
 * after the last cycle (JACK's period and the input's polling), and only
 * what started inside the phrase is written. The tempo is the one when
 * the recording starts.
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "sj-phrase-recorder.h"

/* How often the input is read meanwhile, and how long after the phrase's
 * end the last notes may take to arrive (a JACK period is a few ms). */
#define DRAIN_MS 100
#define TAIL_MS  150

/* A boundary closer than this (an eighth of a cycle) is too soon to play
 * on: the phrase starts on the one after. */
#define MIN_LEAD_CYCLES 0.125

struct _SjPhraseRecorder
{
  GObject    parent_instance;

  SjOutputs *outputs;
  GTask     *task;      /* the recording under way */
  GArray    *events;    /* SjMidiEvent */
  SjCycleClock clock;
  gint64     first_cycle;
  guint      n_cycles;
  gint64     end_us;
  guint      drain_id;
  gulong     cancelled_id;
};

G_DEFINE_FINAL_TYPE (SjPhraseRecorder, sj_phrase_recorder, G_TYPE_OBJECT)

G_DEFINE_QUARK (sj-phrase-recorder-error-quark, sj_phrase_recorder_error)

enum {
  STARTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Ends the recording under way: the task is the caller's to return. */
static GTask *
stop (SjPhraseRecorder *self)
{
  GTask *task = g_steal_pointer (&self->task);

  g_clear_handle_id (&self->drain_id, g_source_remove);
  if (task != NULL && self->cancelled_id != 0)
    g_cancellable_disconnect (g_task_get_cancellable (task), self->cancelled_id);
  self->cancelled_id = 0;
  sj_outputs_set_recording (self->outputs, FALSE);

  return task;
}

static gboolean
drain_cb (gpointer user_data)
{
  SjPhraseRecorder *self = user_data;
  g_autoptr(GTask) task = NULL;
  char *text;

  g_assert (SJ_IS_PHRASE_RECORDER (self));

  sj_outputs_take_notes (self->outputs, self->events);
  if (g_get_real_time () < self->end_us + TAIL_MS * 1000)
    return G_SOURCE_CONTINUE;

  self->drain_id = 0;
  task = stop (self);
  text = sj_midi_phrase_notate ((SjMidiEvent *)(gpointer)self->events->data, self->events->len,
                                &self->clock, self->first_cycle, self->n_cycles);
  g_array_set_size (self->events, 0);
  if (text == NULL)
    g_task_return_new_error (task, SJ_PHRASE_RECORDER_ERROR, SJ_PHRASE_RECORDER_ERROR_NOTHING_PLAYED,
                             _("No note was played on the MIDI input during the phrase"));
  else
    g_task_return_pointer (task, text, g_free);

  return G_SOURCE_REMOVE;
}

static gboolean
cancelled_idle_cb (gpointer user_data)
{
  g_autoptr(SjPhraseRecorder) self = user_data;
  g_autoptr(GTask) task = NULL;

  if (self->task == NULL || !g_cancellable_is_cancelled (g_task_get_cancellable (self->task)))
    return G_SOURCE_REMOVE;

  task = stop (self);
  g_array_set_size (self->events, 0);
  g_task_return_error_if_cancelled (task);

  return G_SOURCE_REMOVE;
}

/* May run in any thread: the task is ended from the main context. */
static void
cancelled_cb (GCancellable     *cancellable,
              SjPhraseRecorder *self)
{
  g_idle_add (cancelled_idle_cb, g_object_ref (self));
}

static void
sj_phrase_recorder_dispose (GObject *object)
{
  SjPhraseRecorder *self = SJ_PHRASE_RECORDER (object);
  g_autoptr(GTask) task = NULL;

  if (self->task != NULL)
    {
      task = stop (self);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "The recorder went away");
    }
  g_clear_object (&self->outputs);

  G_OBJECT_CLASS (sj_phrase_recorder_parent_class)->dispose (object);
}

static void
sj_phrase_recorder_finalize (GObject *object)
{
  SjPhraseRecorder *self = SJ_PHRASE_RECORDER (object);

  g_clear_pointer (&self->events, g_array_unref);

  G_OBJECT_CLASS (sj_phrase_recorder_parent_class)->finalize (object);
}

static void
sj_phrase_recorder_class_init (SjPhraseRecorderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_phrase_recorder_dispose;
  object_class->finalize = sj_phrase_recorder_finalize;

  /**
   * SjPhraseRecorder::started:
   * @first_cycle: the phrase's first cycle
   * @n_cycles: how many cycles it lasts
   * @start_us: when the first cycle sounds (system clock, µs)
   * @end_us: when the phrase ends
   *
   * The recording listens: what is played from @start_us to @end_us
   * becomes the phrase.
   */
  signals[STARTED] =
    g_signal_new ("started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 4, G_TYPE_INT64, G_TYPE_UINT, G_TYPE_INT64, G_TYPE_INT64);
}

static void
sj_phrase_recorder_init (SjPhraseRecorder *self)
{
  self->events = g_array_new (FALSE, FALSE, sizeof (SjMidiEvent));
}

SjPhraseRecorder *
sj_phrase_recorder_new (SjOutputs *outputs)
{
  SjPhraseRecorder *self;

  g_return_val_if_fail (SJ_IS_OUTPUTS (outputs), NULL);

  self = g_object_new (SJ_TYPE_PHRASE_RECORDER, NULL);
  self->outputs = g_object_ref (outputs);

  return self;
}

/* Whether a phrase is being recorded. */
gboolean
sj_phrase_recorder_get_busy (SjPhraseRecorder *self)
{
  g_assert (SJ_IS_PHRASE_RECORDER (self));

  return self->task != NULL;
}

/**
 * sj_phrase_recorder_record_async:
 * @source: (nullable): part of the name of the MIDI output to listen to,
 *   or empty for every hardware MIDI output
 * @clock: the page's cycle clock, read just now
 * @n_cycles: how long the phrase is (1 to %SJ_PHRASE_RECORDER_MAX_CYCLES)
 *
 * Records from the next cycle boundary for @n_cycles; ::started says
 * when. Fails at once when the MIDI input cannot listen (no JACK server:
 * %SJ_JACK_MIDI_ERROR_NO_SERVER) or a phrase is being recorded already.
 */
void
sj_phrase_recorder_record_async (SjPhraseRecorder    *self,
                                 const char          *source,
                                 const SjCycleClock  *clock,
                                 guint                n_cycles,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start_us;

  g_assert (SJ_IS_PHRASE_RECORDER (self));
  g_return_if_fail (clock != NULL && clock->cps > 0 && isfinite (clock->cycle));
  g_return_if_fail (n_cycles >= 1 && n_cycles <= SJ_PHRASE_RECORDER_MAX_CYCLES);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_phrase_recorder_record_async);

  if (self->task != NULL)
    {
      g_task_return_new_error (task, SJ_PHRASE_RECORDER_ERROR, SJ_PHRASE_RECORDER_ERROR_BUSY,
                               _("A phrase is being recorded already"));
      return;
    }
  if (!sj_outputs_listen_midi (self->outputs, source, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  self->clock = *clock;
  self->n_cycles = n_cycles;
  /* The next boundary, unless it comes too soon to play on. */
  self->first_cycle = (gint64)floor (sj_cycle_clock_cycle_at (clock, g_get_real_time ()) + MIN_LEAD_CYCLES) + 1;
  start_us = sj_cycle_clock_time_of (clock, self->first_cycle);
  self->end_us = sj_cycle_clock_time_of (clock, self->first_cycle + n_cycles);
  g_array_set_size (self->events, 0);
  sj_outputs_set_recording (self->outputs, TRUE);
  self->task = g_steal_pointer (&task);
  self->drain_id = g_timeout_add (DRAIN_MS, drain_cb, self);
  if (cancellable != NULL)
    self->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (cancelled_cb), self, NULL);

  g_signal_emit (self, signals[STARTED], 0, self->first_cycle, n_cycles, start_us, self->end_us);
}

/**
 * sj_phrase_recorder_record_finish:
 *
 * Returns: (transfer full): the phrase as note("…"), or %NULL with @error
 *   set (%SJ_PHRASE_RECORDER_ERROR_NOTHING_PLAYED when no note started in
 *   it)
 */
char *
sj_phrase_recorder_record_finish (SjPhraseRecorder  *self,
                                  GAsyncResult      *result,
                                  GError           **error)
{
  g_assert (SJ_IS_PHRASE_RECORDER (self));
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
