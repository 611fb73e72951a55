/* sj-test-target.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The music, in memory: stands in for the Strudel page where a test of
 * the services has no display (the page itself is tested under Xvfb). It
 * swaps code at once, at the next whole cycle, playing at 1 cps from
 * cycle 12. It can also hold a fetch until it is canceled, to stop the
 * agent in the middle of a tool call, and fail swaps as the page does
 * when it is gone or refuses the code, or when a sound of the code fails
 * to load (refusing the swap when asked to, as the page does).
 */

#include "config.h"

#include "sj-test-target.h"

struct _SjTestTarget
{
  GObject  parent_instance;

  char    *code;
  guint    n_swaps;
  guint    n_fetches;
  guint    hold_after;
  guint    n_held;
  char    *page_error;
  char    *evaluation_error;
  char    *failed_sound;
  char    *failed_reason;
};

static void live_target_iface_init (SjLiveTargetInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SjTestTarget, sj_test_target, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SJ_TYPE_LIVE_TARGET, live_target_iface_init))

static void
held_cancelled_cb (GCancellable *cancellable,
                   GTask        *task)
{
  SjTestTarget *self = g_task_get_source_object (task);

  self->n_held--;
  /* Returned from an idle: GCancellable forbids re-entry here. */
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Canceled");
}

static void
fetch_code_async (SjLiveTarget        *target,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  SjTestTarget *self = SJ_TEST_TARGET (target);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  self->n_fetches++;
  if (self->hold_after > 0 && self->n_fetches > self->hold_after && cancellable != NULL)
    {
      g_autoptr(GSource) source = g_cancellable_source_new (cancellable);

      g_source_set_callback (source, G_SOURCE_FUNC (held_cancelled_cb), g_object_ref (task), g_object_unref);
      g_source_attach (source, NULL);
      self->n_held++;
      return;
    }

  g_task_return_pointer (task, g_strdup (self->code), g_free);
}

static char *
fetch_code_finish (SjLiveTarget  *target,
                   GAsyncResult  *result,
                   GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The fake page answers as the page does, in JSON, read as the page's is. */
static void
return_answer (GTask      *task,
               JsonObject *answer)
{
  GError *error = NULL;
  SjSwapResult *swap = sj_swap_result_new_from_json (answer, &error);

  json_object_unref (answer);
  if (swap == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, swap, (GDestroyNotify) sj_swap_result_free);
}

static void
schedule_swap_async (SjLiveTarget        *target,
                     const char          *code,
                     const SjSwapPolicy  *policy,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  SjTestTarget *self = SJ_TEST_TARGET (target);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  JsonObject *answer;

  if (self->page_error != NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", self->page_error);
      return;
    }

  answer = json_object_new ();
  if (self->evaluation_error != NULL)
    {
      json_object_set_string_member (answer, "status", "error");
      json_object_set_string_member (answer, "message", self->evaluation_error);
      return_answer (task, answer);
      return;
    }

  if (self->failed_sound != NULL)
    {
      /* What preload.mjs answers: the sound once, however many of its
       * files failed (listed twice here, as a careless page would). */
      JsonObject *sounds = json_object_new ();
      JsonArray *failed = json_array_new ();
      JsonArray *failures = json_array_new ();

      for (guint i = 0; i < 2; i++)
        {
          JsonObject *failure = json_object_new ();

          json_array_add_string_element (failed, self->failed_sound);
          json_object_set_string_member (failure, "name", self->failed_sound);
          json_object_set_string_member (failure, "reason", self->failed_reason);
          json_array_add_object_element (failures, failure);
        }
      json_object_set_array_member (sounds, "ready", json_array_new ());
      json_object_set_array_member (sounds, "loaded", json_array_new ());
      json_object_set_array_member (sounds, "failed", failed);
      json_object_set_array_member (sounds, "late", json_array_new ());
      json_object_set_array_member (sounds, "failures", failures);
      json_object_set_object_member (answer, "sounds", sounds);
      if (policy->refuse_unavailable)
        {
          json_object_set_string_member (answer, "status", "unavailable");
          json_object_set_string_member (answer, "message", "could not load");
          return_answer (task, answer);
          return;
        }
    }

  g_free (self->code);
  self->code = g_strdup (code);
  self->n_swaps++;

  json_object_set_string_member (answer, "status", "scheduled");
  json_object_set_double_member (answer, "applyAtCycle", 13);
  json_object_set_double_member (answer, "inSeconds", 0.5);
  json_object_set_double_member (answer, "cps", 1);
  return_answer (task, answer);
}

static SjSwapResult *
schedule_swap_finish (SjLiveTarget  *target,
                      GAsyncResult  *result,
                      GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
get_transport (SjLiveTarget *target,
               SjTransport  *transport)
{
  transport->playing = TRUE;
  transport->cps = 1;
  transport->cycle = 12.5;
}

static void
live_target_iface_init (SjLiveTargetInterface *iface)
{
  iface->fetch_code_async = fetch_code_async;
  iface->fetch_code_finish = fetch_code_finish;
  iface->schedule_swap_async = schedule_swap_async;
  iface->schedule_swap_finish = schedule_swap_finish;
  iface->get_transport = get_transport;
}

static void
sj_test_target_finalize (GObject *object)
{
  SjTestTarget *self = SJ_TEST_TARGET (object);

  g_free (self->code);
  g_free (self->page_error);
  g_free (self->evaluation_error);
  g_free (self->failed_sound);
  g_free (self->failed_reason);
  G_OBJECT_CLASS (sj_test_target_parent_class)->finalize (object);
}

static void
sj_test_target_class_init (SjTestTargetClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_test_target_finalize;
}

static void
sj_test_target_init (SjTestTarget *self)
{
}

SjTestTarget *
sj_test_target_new (const char *code)
{
  SjTestTarget *self = g_object_new (SJ_TYPE_TEST_TARGET, NULL);

  self->code = g_strdup (code);
  return self;
}

const char *
sj_test_target_get_code (SjTestTarget *self)
{
  return self->code;
}

/* The musician typing in the editor. */
void
sj_test_target_set_code (SjTestTarget *self,
                         const char   *code)
{
  g_free (self->code);
  self->code = g_strdup (code);
}

guint
sj_test_target_get_n_swaps (SjTestTarget *self)
{
  return self->n_swaps;
}

/* Fetches after the first @after ones wait until they are canceled. */
void
sj_test_target_hold_fetches (SjTestTarget *self,
                             guint         after)
{
  self->n_fetches = 0;
  self->hold_after = after;
}

/* How many fetches are held now: a test waits for one to be, to look at
 * the agent in the middle of a tool call. */
guint
sj_test_target_get_n_held (SjTestTarget *self)
{
  return self->n_held;
}

/**
 * sj_test_target_fail_swaps:
 * @page_error: (nullable): swaps fail with this error, as when the page
 *   is gone or restarting
 * @evaluation_error: (nullable): swaps are answered with this evaluation
 *   error, as when the page's own evaluation refuses the code
 *
 * Both %NULL: swaps succeed again.
 */
void
sj_test_target_fail_swaps (SjTestTarget *self,
                           const char   *page_error,
                           const char   *evaluation_error)
{
  g_free (self->page_error);
  g_free (self->evaluation_error);
  self->page_error = g_strdup (page_error);
  self->evaluation_error = g_strdup (evaluation_error);
}

/**
 * sj_test_target_fail_sound:
 * @sound: (nullable): every swap's sounds include this one failed, with
 *   @reason; %NULL: sounds load again
 *
 * A swap asked to refuse unavailable sounds is then refused, as the page
 * refuses it; any other lands, saying the sound failed.
 */
void
sj_test_target_fail_sound (SjTestTarget *self,
                           const char   *sound,
                           const char   *reason)
{
  g_free (self->failed_sound);
  g_free (self->failed_reason);
  self->failed_sound = g_strdup (sound);
  self->failed_reason = g_strdup (reason);
}
