/* sj-change-verify.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Every landed change is heard before it counts (issue 29). When the apply
 * pipeline hands a change to the page (SjChangeApplier::landing), the
 * verifier listens to the SJ_CHANGE_VERIFY_CYCLES cycles after its boundary
 * in what the page measured (SjLevels) and in what the page reported
 * (SjLiveTarget::page-error). The change failed when
 *
 *  - the page reported an error of the playing music from the moment the
 *    change was handed over (a sample that could not be loaded or
 *    decoded, "[getTrigger] error: …"), or
 *  - the output is silent (under SJ_LEVELS_SILENT_DB) in both cycles where
 *    the previous code sounded, and the new code does not ask for silence
 *    (sj_change_verifier_asks_silence(): `silence`, `hush()`, a gain of 0,
 *    or every `$:` layer muted; a simple reading of the text, no more).
 *
 * A failed change is put back the way it came (the pipeline's replacement,
 * dry-run included, at the next boundary) when the mode is "revert" (the
 * `verify-landed-changes` setting), or kept with a warning when it is
 * "warn". The outcome goes to the chat (SjChangeVerifier::changed) and to
 * whoever waits for it (the agent's apply tool, sj_change_verifier_wait_async()).
 * Only the latest change is checked: a newer one replaces the check.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "sj-change-verify.h"

/* The check ends at the latest this long after the cycles it waits for. */
#define SLACK_SECONDS 3.0
#define MAX_CHECK_SECONDS 90.0
#define MAX_ERRORS 8
/* Errors the page reported this long before a change are the previous
 * code's, not the change's (a sound that failed before fails again). */
#define RECENT_ERRORS_US (30 * G_USEC_PER_SEC)

typedef struct
{
  gint64  time;
  char   *message;
} RecentError;

static void
recent_error_free (RecentError *error)
{
  g_free (error->message);
  g_free (error);
}

typedef struct
{
  char      *previous;
  char      *code;
  char      *hash;
  double     boundary;
  gboolean   previous_sounded;
  gboolean   asks_silence;
  gboolean   landed;
  guint      measured;
  gboolean   heard;
  GPtrArray *errors;
  GPtrArray *old_errors;   /* what the page said before: the previous code's */
  guint      timeout_id;
} Check;

struct _SjChangeVerifier
{
  GObject          parent_instance;

  SjChangeApplier *applier;
  SjLevels        *levels;
  char            *mode;
  Check           *check;
  GPtrArray       *waiters;        /* GTask, for the check's hash */
  GQueue           recent_errors;  /* RecentError, the newest first */
  char            *last_hash;      /* the last verdict */
  JsonObject      *last_verdict;
  GCancellable    *cancellable;
};

G_DEFINE_FINAL_TYPE (SjChangeVerifier, sj_change_verifier, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
check_free (Check *check)
{
  if (check == NULL)
    return;

  g_clear_handle_id (&check->timeout_id, g_source_remove);
  g_free (check->previous);
  g_free (check->code);
  g_free (check->hash);
  g_ptr_array_unref (check->errors);
  g_ptr_array_unref (check->old_errors);
  g_free (check);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Check, check_free)

/**
 * sj_change_verifier_asks_silence:
 *
 * Whether @code means to be silent, read simply: nothing but comments,
 * `silence`, `hush()`, a gain, postgain or velocity of 0, or `$:` layers
 * that are all muted (`_$:`).
 */
gboolean
sj_change_verifier_asks_silence (const char *code)
{
  static GRegex *comments, *quiet, *layer, *muted;
  g_autofree char *text = NULL;
  g_autofree char *stripped = NULL;
  g_autoptr(GMatchInfo) match = NULL;
  guint layers = 0, muted_layers = 0;

  if (comments == NULL)
    {
      comments = g_regex_new ("//[^\\n]*|/\\*.*?\\*/", G_REGEX_DOTALL, 0, NULL);
      quiet = g_regex_new ("(^|[^\\w.])silence\\b|\\.hush\\s*\\(|\\b(gain|postgain|velocity)\\s*\\(\\s*[\"'`]?0(\\.0*)?[\"'`]?\\s*\\)",
                           0, 0, NULL);
      layer = g_regex_new ("^\\s*_?\\$\\s*:", G_REGEX_MULTILINE, 0, NULL);
      muted = g_regex_new ("^\\s*_\\$\\s*:", G_REGEX_MULTILINE, 0, NULL);
    }

  if (code == NULL)
    return TRUE;

  text = g_regex_replace_literal (comments, code, -1, 0, "", 0, NULL);
  stripped = g_strstrip (g_strdup (text));
  if (*stripped == '\0' || g_regex_match (quiet, stripped, 0, NULL))
    return TRUE;

  g_regex_match (layer, stripped, 0, &match);
  for (; g_match_info_matches (match); g_match_info_next (match, NULL))
    layers++;
  g_clear_pointer (&match, g_match_info_free);
  g_regex_match (muted, stripped, 0, &match);
  for (; g_match_info_matches (match); g_match_info_next (match, NULL))
    muted_layers++;

  return layers > 0 && layers == muted_layers;
}

static JsonObject *
verdict_new (const char *status,
             const char *message,
             double      cycle)
{
  JsonObject *verdict = json_object_new ();

  json_object_set_string_member (verdict, "status", status);
  json_object_set_string_member (verdict, "message", message);
  json_object_set_double_member (verdict, "cycle", cycle);

  return verdict;
}

/* Hands @verdict (transfer full) to the waiters and the chat; the check is over. */
static void
conclude (SjChangeVerifier *self,
          const char       *hash,
          double            cycle,
          JsonObject       *verdict)
{
  g_autoptr(GPtrArray) waiters = g_steal_pointer (&self->waiters);

  self->waiters = g_ptr_array_new_with_free_func (g_object_unref);
  g_free (self->last_hash);
  self->last_hash = g_strdup (hash);
  g_clear_pointer (&self->last_verdict, json_object_unref);
  self->last_verdict = verdict;

  for (guint i = 0; i < waiters->len; i++)
    {
      GTask *task = g_ptr_array_index (waiters, i);

      /* Its timeout and cancellation sources go with the task data. */
      g_task_return_pointer (task, json_object_ref (verdict), (GDestroyNotify) json_object_unref);
    }

  g_signal_emit (self, signals[CHANGED], 0, cycle,
                 json_object_get_string_member (verdict, "status"),
                 json_object_get_string_member (verdict, "message"));
}

typedef struct
{
  SjChangeVerifier *self;
  char             *hash;
  double            cycle;
  char             *why;
} Revert;

static void
revert_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Revert *revert = user_data;
  g_autoptr(SjChangeResult) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  JsonObject *verdict;

  answer = sj_change_applier_apply_finish (SJ_CHANGE_APPLIER (object), result, &error);
  if (answer != NULL && answer->status != SJ_CHANGE_STATUS_REJECTED)
    {
      message = g_strdup_printf ("reverted: %s", revert->why);
      verdict = verdict_new ("reverted", message, revert->cycle);
      json_object_set_double_member (verdict, "revertAtCycle", answer->apply_at_cycle);
    }
  else
    {
      message = g_strdup_printf ("kept: %s; putting the previous code back failed (%s)", revert->why,
                                 answer != NULL ? sj_change_result_get_message (answer) : error->message);
      verdict = verdict_new ("kept", message, revert->cycle);
    }

  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    conclude (revert->self, revert->hash, revert->cycle, verdict);
  else
    json_object_unref (verdict);

  g_object_unref (revert->self);
  g_free (revert->hash);
  g_free (revert->why);
  g_free (revert);
}

static void
decide (SjChangeVerifier *self)
{
  g_autoptr(Check) check = g_steal_pointer (&self->check);
  g_autofree char *why = NULL;
  gboolean silent_fail;

  silent_fail = check->measured > 0 && !check->heard && check->previous_sounded && !check->asks_silence;

  if (check->errors->len == 0 && !silent_fail)
    {
      const char *status = check->measured > 0 ? "heard" : "unverified";
      const char *message = check->measured == 0 ? "nothing was measured after the change landed"
                            : check->heard ? "the new code sounds"
                            : check->asks_silence ? "the new code is silent, as it asks"
                            : "the new code is silent, as the previous code was";

      conclude (self, check->hash, check->boundary, verdict_new (status, message, check->boundary));
      return;
    }

  if (silent_fail && check->errors->len > 0)
    why = g_strdup_printf ("the new code made no sound — %s", (char *) g_ptr_array_index (check->errors, 0));
  else if (silent_fail)
    why = g_strdup ("the new code made no sound where the previous code sounded");
  else
    why = g_strdup_printf ("the page reported an error from the new code — %s",
                           (char *) g_ptr_array_index (check->errors, 0));

  if (g_strcmp0 (self->mode, "revert") == 0 && check->previous != NULL)
    {
      Revert *revert = g_new0 (Revert, 1);

      revert->self = g_object_ref (self);
      revert->hash = g_strdup (check->hash);
      revert->cycle = check->boundary;
      revert->why = g_steal_pointer (&why);
      sj_change_applier_replace_async (self->applier, check->previous, "verify", self->cancellable,
                                       revert_cb, revert);
    }
  else
    {
      g_autofree char *message = g_strdup_printf ("kept (verify-landed-changes is warn): %s", why);

      conclude (self, check->hash, check->boundary, verdict_new ("kept", message, check->boundary));
    }
}

static gboolean
check_timeout_cb (gpointer user_data)
{
  SjChangeVerifier *self = user_data;

  self->check->timeout_id = 0;
  decide (self);

  return G_SOURCE_REMOVE;
}

/* Drops the check in progress: its waiters learn that it was not finished. */
static void
drop_check (SjChangeVerifier *self,
            const char       *message)
{
  g_autoptr(Check) check = g_steal_pointer (&self->check);

  if (check != NULL)
    conclude (self, check->hash, check->boundary, verdict_new ("unverified", message, check->boundary));
}

static gboolean
recently_sounded (SjLevels *levels)
{
  for (guint i = 0; i < SJ_CHANGE_VERIFY_CYCLES; i++)
    {
      const SjCycleLevels *latest = sj_levels_get_latest (levels);
      const SjCycleLevels *cycle = latest != NULL ? sj_levels_get_cycle (levels, latest->cycle - i) : NULL;

      if (cycle != NULL && !sj_levels_is_silent (cycle))
        return TRUE;
    }

  return FALSE;
}

static void
landing_cb (SjChangeVerifier *self,
            const char       *previous,
            const char       *code,
            const char       *hash,
            double            cycle,
            gboolean          applied,
            const char       *source,
            SjChangeApplier  *applier)
{
  SjTransport transport;
  double seconds;
  Check *check;

  g_assert (SJ_IS_CHANGE_VERIFIER (self));

  /* A revert is not checked again, and a newer change ends the check of
   * the one before. */
  drop_check (self, "a newer change replaced this one before it was heard");
  if (g_strcmp0 (source, "verify") == 0)
    return;

  sj_live_target_get_transport (sj_change_applier_get_target (applier), &transport);
  if (applied || !transport.playing)
    {
      conclude (self, hash, cycle, verdict_new ("unverified", "the music is stopped: nothing to listen to", cycle));
      return;
    }
  if (!sj_levels_is_measuring (self->levels))
    {
      conclude (self, hash, cycle, verdict_new ("unverified", "the app does not hear its output here", cycle));
      return;
    }

  check = g_new0 (Check, 1);
  check->previous = g_strdup (previous);
  check->code = g_strdup (code);
  check->hash = g_strdup (hash);
  check->boundary = cycle;
  check->previous_sounded = recently_sounded (self->levels);
  check->asks_silence = sj_change_verifier_asks_silence (code);
  check->errors = g_ptr_array_new_with_free_func (g_free);
  check->old_errors = g_ptr_array_new_with_free_func (g_free);
  for (GList *l = self->recent_errors.head; l != NULL; l = l->next)
    {
      RecentError *recent = l->data;

      if (g_get_monotonic_time () - recent->time < RECENT_ERRORS_US)
        g_ptr_array_add (check->old_errors, g_strdup (recent->message));
    }
  self->check = check;

  seconds = (MAX (0, cycle - transport.cycle) + SJ_CHANGE_VERIFY_CYCLES) / MAX (transport.cps, 0.01) + SLACK_SECONDS;
  check->timeout_id = g_timeout_add ((guint) (MIN (seconds, MAX_CHECK_SECONDS) * 1000), check_timeout_cb, self);
}

static void
swap_changed_cb (SjChangeVerifier *self,
                 const char       *state,
                 double            cycle)
{
  g_assert (SJ_IS_CHANGE_VERIFIER (self));

  if (self->check == NULL || self->check->boundary != cycle || self->check->landed)
    return;

  if (g_str_equal (state, "applied"))
    {
      self->check->landed = TRUE;
      g_signal_emit (self, signals[CHANGED], 0, cycle, "listening", "listening to the new code");
    }
  else if (g_str_equal (state, "canceled"))
    {
      g_autoptr(Check) check = g_steal_pointer (&self->check);
      g_autofree char *message = g_strdup_printf ("the musician canceled this change before its boundary "
                                                  "(cycle %g): it never played, and the music and the code "
                                                  "are as they were before it", cycle);

      conclude (self, check->hash, check->boundary, verdict_new ("canceled", message, check->boundary));
    }
  else if (g_str_equal (state, "superseded"))
    drop_check (self, "the change never played: it was replaced before its boundary");
}

static void
page_error_cb (SjChangeVerifier *self,
               const char       *message)
{
  g_autofree char *line = NULL;
  RecentError *recent;

  g_assert (SJ_IS_CHANGE_VERIFIER (self));

  /* A line is enough to say what went wrong; the Console has it whole. */
  line = g_utf8_substring (message, 0, MIN (g_utf8_strlen (message, -1), 200));

  recent = g_new0 (RecentError, 1);
  recent->time = g_get_monotonic_time ();
  recent->message = g_strdup (line);
  g_queue_push_head (&self->recent_errors, recent);
  if (self->recent_errors.length > MAX_ERRORS)
    recent_error_free (g_queue_pop_tail (&self->recent_errors));

  if (self->check == NULL || self->check->errors->len >= MAX_ERRORS ||
      g_ptr_array_find_with_equal_func (self->check->old_errors, line, g_str_equal, NULL))
    return;

  g_ptr_array_add (self->check->errors, g_steal_pointer (&line));
}

static void
cycle_cb (SjChangeVerifier *self,
          double            cycle,
          SjLevels         *levels)
{
  const SjCycleLevels *figures;

  g_assert (SJ_IS_CHANGE_VERIFIER (self));

  if (self->check == NULL || cycle < self->check->boundary)
    return;

  figures = sj_levels_get_cycle (levels, cycle);
  if (cycle < self->check->boundary + SJ_CHANGE_VERIFY_CYCLES && figures != NULL)
    {
      self->check->measured++;
      /* The boundary's cycle may still ring with the previous code's tails
       * (a release, a reverb): there, only a sound that starts counts. */
      if (!sj_levels_is_silent (figures) && (cycle > self->check->boundary || figures->onsets > 0))
        self->check->heard = TRUE;
    }

  if (cycle >= self->check->boundary + SJ_CHANGE_VERIFY_CYCLES - 1)
    decide (self);
}

/* GObject ---------------------------------------------------------------- */

static void
sj_change_verifier_dispose (GObject *object)
{
  SjChangeVerifier *self = (SjChangeVerifier *)object;

  g_cancellable_cancel (self->cancellable);
  g_clear_pointer (&self->check, check_free);
  g_clear_object (&self->applier);
  g_clear_object (&self->levels);

  G_OBJECT_CLASS (sj_change_verifier_parent_class)->dispose (object);
}

static void
sj_change_verifier_finalize (GObject *object)
{
  SjChangeVerifier *self = (SjChangeVerifier *)object;

  g_clear_pointer (&self->waiters, g_ptr_array_unref);
  g_queue_clear_full (&self->recent_errors, (GDestroyNotify) recent_error_free);
  g_clear_object (&self->cancellable);
  g_free (self->mode);
  g_free (self->last_hash);
  g_clear_pointer (&self->last_verdict, json_object_unref);

  G_OBJECT_CLASS (sj_change_verifier_parent_class)->finalize (object);
}

static void
sj_change_verifier_class_init (SjChangeVerifierClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_change_verifier_dispose;
  object_class->finalize = sj_change_verifier_finalize;

  /**
   * SjChangeVerifier::changed:
   * @cycle: the boundary of the change
   * @state: "listening", then "heard", "reverted", "kept" or "unverified"
   * @message: what was heard, in words (English, as the model reads it)
   */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_DOUBLE, G_TYPE_STRING, G_TYPE_STRING);
}

static void
sj_change_verifier_init (SjChangeVerifier *self)
{
  self->mode = g_strdup ("revert");
  self->waiters = g_ptr_array_new_with_free_func (g_object_unref);
  self->cancellable = g_cancellable_new ();
}

SjChangeVerifier *
sj_change_verifier_new (SjChangeApplier *applier,
                        SjLevels        *levels)
{
  SjChangeVerifier *self;
  SjLiveTarget *target;

  g_return_val_if_fail (SJ_IS_CHANGE_APPLIER (applier), NULL);
  g_return_val_if_fail (SJ_IS_LEVELS (levels), NULL);

  self = g_object_new (SJ_TYPE_CHANGE_VERIFIER, NULL);
  self->applier = g_object_ref (applier);
  self->levels = g_object_ref (levels);
  target = sj_change_applier_get_target (applier);

  g_signal_connect_object (applier, "landing", G_CALLBACK (landing_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (levels, "cycle", G_CALLBACK (cycle_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (target, "swap-changed", G_CALLBACK (swap_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (target, "page-error", G_CALLBACK (page_error_cb), self, G_CONNECT_SWAPPED);

  return self;
}

const char *
sj_change_verifier_get_mode (SjChangeVerifier *self)
{
  g_assert (SJ_IS_CHANGE_VERIFIER (self));

  return self->mode;
}

/**
 * sj_change_verifier_set_mode:
 * @mode: "revert" (a change that failed is put back) or "warn" (it is
 *   kept, and the chat and the agent are told)
 */
void
sj_change_verifier_set_mode (SjChangeVerifier *self,
                             const char       *mode)
{
  g_assert (SJ_IS_CHANGE_VERIFIER (self));

  g_free (self->mode);
  self->mode = g_strdup (g_strcmp0 (mode, "warn") == 0 ? "warn" : "revert");
}

/* Whether the change that starts at @cycle is being listened to. */
gboolean
sj_change_verifier_is_checking (SjChangeVerifier *self,
                                double            cycle)
{
  g_assert (SJ_IS_CHANGE_VERIFIER (self));

  return self->check != NULL && self->check->boundary == cycle;
}

/* A waiter's timeout and the source that sees its cancellable, both
 * destroyed when it finishes one way or another. */
typedef struct
{
  GSource *timeout;
  GSource *cancel;
} Wait;

static void
wait_free (Wait *wait)
{
  if (wait->timeout != NULL)
    g_source_destroy (wait->timeout);
  if (wait->cancel != NULL)
    g_source_destroy (wait->cancel);
  g_clear_pointer (&wait->timeout, g_source_unref);
  g_clear_pointer (&wait->cancel, g_source_unref);
  g_free (wait);
}

static gboolean
wait_timeout_cb (gpointer user_data)
{
  GTask *task = user_data;
  SjChangeVerifier *self = g_task_get_source_object (task);
  double cycle = self->check != NULL ? self->check->boundary : 0;
  g_autoptr(GTask) owned = g_object_ref (task);

  if (g_ptr_array_remove (self->waiters, task))
    g_task_return_pointer (owned, verdict_new ("listening", "still listening: call listen in a moment to hear how it went",
                                               cycle),
                           (GDestroyNotify) json_object_unref);

  return G_SOURCE_REMOVE;
}

static gboolean
wait_canceled_cb (GCancellable *cancellable,
                  gpointer      user_data)
{
  GTask *task = user_data;
  SjChangeVerifier *self = g_task_get_source_object (task);
  g_autoptr(GTask) owned = g_object_ref (task);

  if (g_ptr_array_remove (self->waiters, task))
    g_task_return_new_error (owned, G_IO_ERROR, G_IO_ERROR_CANCELLED, "The wait was canceled");

  return G_SOURCE_REMOVE;
}

/**
 * sj_change_verifier_wait_async:
 * @hash: the hash of the change's code
 * @timeout_ms: how long to wait for the verdict
 *
 * Waits until the change with @hash was heard (or not). After
 * @timeout_ms, the verdict is "listening": the check goes on.
 */
void
sj_change_verifier_wait_async (SjChangeVerifier    *self,
                               const char          *hash,
                               guint                timeout_ms,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Wait *wait;

  g_assert (SJ_IS_CHANGE_VERIFIER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_change_verifier_wait_async);

  if (self->last_verdict != NULL && g_strcmp0 (self->last_hash, hash) == 0)
    {
      g_task_return_pointer (task, json_object_ref (self->last_verdict), (GDestroyNotify) json_object_unref);
      return;
    }

  if (self->check == NULL || g_strcmp0 (self->check->hash, hash) != 0)
    {
      g_task_return_pointer (task, verdict_new ("unverified", "this change is not being listened to", 0),
                             (GDestroyNotify) json_object_unref);
      return;
    }

  /* The sources hold no reference: the waiters array does, and the task
   * data (destroyed with the task) removes them. */
  wait = g_new0 (Wait, 1);
  wait->timeout = g_timeout_source_new (timeout_ms);
  g_source_set_callback (wait->timeout, wait_timeout_cb, task, NULL);
  g_source_attach (wait->timeout, g_main_context_get_thread_default ());
  if (cancellable != NULL)
    {
      wait->cancel = g_cancellable_source_new (cancellable);
      g_source_set_callback (wait->cancel, G_SOURCE_FUNC (wait_canceled_cb), task, NULL);
      g_source_attach (wait->cancel, g_main_context_get_thread_default ());
    }
  g_task_set_task_data (task, wait, (GDestroyNotify) wait_free);
  g_ptr_array_add (self->waiters, g_steal_pointer (&task));
}

/* Returns: (transfer full): `{status: "heard" | "reverted" | "kept" |
 * "unverified" | "listening", message, cycle, revertAtCycle?}` */
JsonObject *
sj_change_verifier_wait_finish (SjChangeVerifier  *self,
                                GAsyncResult      *result,
                                GError           **error)
{
  g_assert (SJ_IS_CHANGE_VERIFIER (self));
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
