/* sj-dry-run.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Dry-runs Strudel code before it reaches the page: evaluates it with
 * Strudel's own REPL in strudel-jam-dryrun (src/dryrun-helper/), queries a few
 * cycles and answers what would play, or why it would fail.
 *
 * The helper is a separate process because user code can loop forever and
 * JavaScriptCore cannot be interrupted from outside: a request that takes
 * longer than its timeout gets the helper killed and restarted, and the
 * request is answered {"ok":false,"phase":"timeout"}.  One helper is kept
 * warm; requests go to it strictly one at a time, in the order they came.
 *
 * The user's folders of samples (sj_dry_run_set_user_samples()) go to the
 * helper as a request of their own, before anything else a new helper is
 * sent and again whenever they change, so that their sounds resolve in the
 * dry-run as in the page.
 *
 * Failures of the code itself (syntax, compile, runtime, timeout, a crash)
 * are answers, JSON objects with "ok": false.  Only a request the client
 * refuses (cycles, timeout or size out of range), a helper that cannot start
 * and cancellation are GErrors.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sj-dry-run-private.h"
#include "sj-dry-run-process.h"

/* The helper loads and warms up Strudel in well under a second; a loaded
 * machine or a sanitizer build gets a generous margin. */
#define STARTUP_TIMEOUT_MS  15000
#define MAX_START_FAILURES  2

struct _SjDryRun
{
  GObject          parent_instance;

  char            *helper_path;
  GMainContext    *main_context;
  SjDryRunProcess *process;       /* the running helper, or NULL */
  GQueue           queue;         /* GTask, not sent yet */
  GTask           *in_flight;     /* sent, answer not read yet */
  GSource         *timeout;       /* of in_flight, or of the start-up */
  gint64           next_id;
  guint            n_starts;
  guint            start_failures;
  char            *user_samples;       /* the packs as JSON, or NULL */
  guint            user_samples_start; /* the helper (by n_starts) that has them */
};

G_DEFINE_FINAL_TYPE (SjDryRun, sj_dry_run, G_TYPE_OBJECT)

typedef struct
{
  gint64   id;
  char    *line;
  guint    timeout_ms;
  gint64   sent_us;      /* monotonic */
  gint64   sent_cpu_us;  /* the helper's processor time then, or -1 */
  GSource *cancel_source;
  gboolean discard;  /* cancelled while in flight: its answer is dropped */
} Request;

static void pump (SjDryRun *self);
static void start_helper (SjDryRun *self);

G_DEFINE_QUARK (sj-dry-run-error-quark, sj_dry_run_error)

static void
request_free (Request *request)
{
  if (request->cancel_source != NULL)
    {
      g_source_destroy (request->cancel_source);
      g_source_unref (request->cancel_source);
    }
  g_free (request->line);
  g_free (request);
}

static void
clear_timeout (SjDryRun *self)
{
  if (self->timeout != NULL)
    {
      g_source_destroy (self->timeout);
      g_clear_pointer (&self->timeout, g_source_unref);
    }
}

static void
set_timeout (SjDryRun    *self,
             guint        timeout_ms,
             GSourceFunc  callback)
{
  clear_timeout (self);
  self->timeout = g_timeout_source_new (timeout_ms);
  g_source_set_callback (self->timeout, callback, self, NULL);
  g_source_set_priority (self->timeout, G_PRIORITY_HIGH);
  g_source_attach (self->timeout, self->main_context);
}

/* Kills the helper (if any) and forgets it: nothing it still sends is read. */
static void
stop_helper (SjDryRun *self)
{
  g_autoptr(SjDryRunProcess) process = g_steal_pointer (&self->process);

  clear_timeout (self);
  if (process != NULL)
    {
      g_signal_handlers_disconnect_by_data (process, self);
      sj_dry_run_process_kill (process);
    }
}

static void
return_answer (GTask      *task,
               JsonObject *answer)
{
  Request *request = g_task_get_task_data (task);

  if (request->discard)
    return;
  json_object_remove_member (answer, "id");
  json_object_remove_member (answer, "restarting");
  g_task_return_pointer (task, json_object_ref (answer), (GDestroyNotify) json_object_unref);
}

static JsonObject *
failure (const char *phase,
         const char *message)
{
  JsonObject *answer = json_object_new ();

  json_object_set_boolean_member (answer, "ok", FALSE);
  json_object_set_string_member (answer, "phase", phase);
  json_object_set_string_member (answer, "message", message);
  return answer;
}

static void
finish_in_flight (SjDryRun   *self,
                  JsonObject *answer)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->in_flight);

  clear_timeout (self);
  if (task != NULL)
    return_answer (task, answer);
}

/* Every request still waiting fails: the helper cannot be started. */
static void
fail_queue (SjDryRun     *self,
            const GError *error)
{
  GTask *task;

  while ((task = g_queue_pop_head (&self->queue)) != NULL)
    {
      g_task_return_error (task, g_error_copy (error));
      g_object_unref (task);
    }
}

static gboolean
on_startup_timeout (gpointer data)
{
  SjDryRun *self = data;

  g_clear_pointer (&self->timeout, g_source_unref);
  g_warning ("strudel-jam-dryrun did not get ready within %d ms", STARTUP_TIMEOUT_MS);
  stop_helper (self);
  self->start_failures++;
  pump (self);
  return G_SOURCE_REMOVE;
}

static void
on_ready (SjDryRunProcess *process,
          SjDryRun        *self)
{
  self->start_failures = 0;
  clear_timeout (self);
  pump (self);
}

static void
on_answer (SjDryRunProcess *process,
           JsonObject      *answer,
           SjDryRun        *self)
{
  gboolean restarting = json_object_get_boolean_member_with_default (answer, "restarting", FALSE);
  Request *request;

  /* An answer to anything but the request in flight is stale: it cannot
   * happen with one request at a time, but costs nothing to check. */
  if (self->in_flight == NULL)
    return;
  request = g_task_get_task_data (self->in_flight);
  if (json_object_get_int_member_with_default (answer, "id", -1) != request->id)
    return;

  finish_in_flight (self, answer);
  /* Code past the helper's memory limit: the helper answered and is
   * ending; a new one is warmed for the next request. */
  if (json_object_get_boolean_member_with_default (answer, "outOfMemory", FALSE))
    {
      stop_helper (self);
      start_helper (self);
      pump (self);
      return;
    }
  /* The helper rebuilds its engine (the code changed the shared runtime)
   * and says "ready" again; the next request waits, with the start-up's
   * patience rather than its own timeout. */
  if (restarting)
    set_timeout (self, STARTUP_TIMEOUT_MS, on_startup_timeout);
  pump (self);
}

/* The helper exited or closed its output: whatever it was doing failed. */
static void
on_exited (SjDryRunProcess *process,
           const char      *why,
           SjDryRun        *self)
{
  gboolean was_ready = sj_dry_run_process_get_ready (process);

  stop_helper (self);

  if (self->in_flight != NULL)
    {
      g_autofree char *message = g_strdup_printf (_("The dry-run engine stopped while running this code (%s)."), why);
      g_autoptr(JsonObject) answer = failure ("runtime", message);

      json_object_set_boolean_member (answer, "crashed", TRUE);
      finish_in_flight (self, answer);
      /* Warm again for the next request. */
      start_helper (self);
    }
  else if (!was_ready)
    {
      g_warning ("strudel-jam-dryrun stopped before it was ready (%s)", why);
      self->start_failures++;
    }

  pump (self);
}

static void
start_helper (SjDryRun *self)
{
  g_autoptr(GError) error = NULL;

  g_assert (self->process == NULL);

  self->process = sj_dry_run_process_new (self->helper_path, &error);
  if (self->process == NULL)
    {
      g_autoptr(GError) helper_error = g_error_new (SJ_DRY_RUN_ERROR, SJ_DRY_RUN_ERROR_HELPER,
                                                    _("Cannot start the dry-run helper %s: %s"),
                                                    self->helper_path, error->message);

      fail_queue (self, helper_error);
      return;
    }

  self->n_starts++;
  g_signal_connect (self->process, "ready", G_CALLBACK (on_ready), self);
  g_signal_connect (self->process, "answer", G_CALLBACK (on_answer), self);
  g_signal_connect (self->process, "exited", G_CALLBACK (on_exited), self);
  set_timeout (self, STARTUP_TIMEOUT_MS, on_startup_timeout);
}

/* A timeout counts the processor time the code took, not the time it
 * waited for a core: on a machine busy with the music (or a CI run), a
 * pattern that needs 50 ms may take a second to answer, and refusing it
 * as an endless loop would refuse the musician's change for nothing. The
 * wait is still bounded, whatever the load: TIMEOUT_WALL_FACTOR times the
 * timeout, at most TIMEOUT_WALL_EXTRA_MS more than it (a helper stuck
 * without working is not waited for long), and the timeout alone when the
 * processor time cannot be read. */
#define TIMEOUT_WALL_FACTOR   8
#define TIMEOUT_WALL_EXTRA_MS 10000

static gboolean on_request_timeout (gpointer data);

static gboolean
request_has_time_left (SjDryRun *self,
                       Request  *request)
{
  gint64 cpu_us = sj_dry_run_process_get_cpu_us (self->process);
  gint64 wall_ms = MIN ((gint64)request->timeout_ms * TIMEOUT_WALL_FACTOR,
                        (gint64)request->timeout_ms + TIMEOUT_WALL_EXTRA_MS);
  gint64 wall_left_us = request->sent_us + wall_ms * 1000 - g_get_monotonic_time ();
  gint64 cpu_left_us;

  if (request->sent_cpu_us < 0 || cpu_us < 0 || wall_left_us <= 0)
    return FALSE;

  cpu_left_us = (gint64)request->timeout_ms * 1000 - (cpu_us - request->sent_cpu_us);
  if (cpu_left_us <= 0)
    return FALSE;

  /* Look again once the code could have used the rest of its time. */
  set_timeout (self, (guint)(MAX (MIN (cpu_left_us, wall_left_us), 10000) / 1000), on_request_timeout);
  return TRUE;
}

static gboolean
on_request_timeout (gpointer data)
{
  SjDryRun *self = data;
  Request *request = g_task_get_task_data (self->in_flight);
  g_autofree char *message = NULL;
  g_autoptr(JsonObject) answer = NULL;

  g_clear_pointer (&self->timeout, g_source_unref);
  if (request_has_time_left (self, request))
    return G_SOURCE_REMOVE;

  message = g_strdup_printf (_("The code did not finish within %u ms (an endless loop, or far too many events); "
                               "the dry-run was stopped."), request->timeout_ms);
  answer = failure ("timeout", message);
  json_object_set_int_member (answer, "timeoutMs", request->timeout_ms);

  stop_helper (self);
  finish_in_flight (self, answer);
  /* Warm again for the next request. */
  start_helper (self);
  pump (self);
  return G_SOURCE_REMOVE;
}

static void
send_request (SjDryRun *self,
              GTask    *task)
{
  Request *request = g_task_get_task_data (task);

  self->in_flight = task;
  request->sent_us = g_get_monotonic_time ();
  request->sent_cpu_us = sj_dry_run_process_get_cpu_us (self->process);
  set_timeout (self, request->timeout_ms, on_request_timeout);
  sj_dry_run_process_send (self->process, request->line);
}

/* The user's samples for the running helper, unless it has them: a
 * request of the app's own, answered to no one. */
static gboolean
send_user_samples (SjDryRun *self)
{
  g_autoptr(GTask) task = NULL;
  Request *request;

  if (self->user_samples == NULL || self->user_samples_start == self->n_starts)
    return FALSE;

  self->user_samples_start = self->n_starts;
  task = g_task_new (self, NULL, NULL, NULL);
  g_task_set_source_tag (task, send_user_samples);
  request = g_new0 (Request, 1);
  request->id = self->next_id++;
  request->timeout_ms = STARTUP_TIMEOUT_MS;
  request->line = g_strdup_printf ("{\"id\":%" G_GINT64_FORMAT ",\"userSamples\":%s}\n", request->id,
                                   self->user_samples);
  g_task_set_task_data (task, request, (GDestroyNotify) request_free);
  send_request (self, g_steal_pointer (&task));
  return TRUE;
}

/* Moves the queue along: starts the helper when needed, sends the next
 * request when the helper is idle. */
static void
pump (SjDryRun *self)
{
  if (self->in_flight != NULL)
    return;
  if (self->process != NULL && sj_dry_run_process_get_ready (self->process) && send_user_samples (self))
    return;
  if (g_queue_is_empty (&self->queue))
    return;

  if (self->process == NULL)
    {
      if (self->start_failures >= MAX_START_FAILURES)
        {
          g_autoptr(GError) error = g_error_new (SJ_DRY_RUN_ERROR, SJ_DRY_RUN_ERROR_HELPER,
                                                 _("The dry-run helper %s failed to start."), self->helper_path);

          self->start_failures = 0;
          fail_queue (self, error);
          return;
        }
      start_helper (self);
      return;
    }

  if (sj_dry_run_process_get_ready (self->process))
    send_request (self, g_queue_pop_head (&self->queue));
}

static gboolean
on_request_cancelled (GCancellable *cancellable,
                      gpointer      data)
{
  GTask *task = data;
  SjDryRun *self = g_task_get_source_object (task);
  Request *request = g_task_get_task_data (task);

  g_clear_pointer (&request->cancel_source, g_source_unref);

  if (g_queue_remove (&self->queue, task))
    {
      g_task_return_error_if_cancelled (task);
      g_object_unref (task);
    }
  else if (self->in_flight == task && !request->discard)
    {
      /* Killing a busy helper would cost a restart; its answer (or its
       * timeout) arrives soon and is dropped, keeping the order intact. */
      g_task_return_error_if_cancelled (task);
      request->discard = TRUE;
    }

  return G_SOURCE_REMOVE;
}

static void
sj_dry_run_dispose (GObject *object)
{
  SjDryRun *self = (SjDryRun *)object;

  stop_helper (self);

  G_OBJECT_CLASS (sj_dry_run_parent_class)->dispose (object);
}

static void
sj_dry_run_finalize (GObject *object)
{
  SjDryRun *self = (SjDryRun *)object;

  g_free (self->helper_path);
  g_free (self->user_samples);
  g_main_context_unref (self->main_context);

  G_OBJECT_CLASS (sj_dry_run_parent_class)->finalize (object);
}

static void
sj_dry_run_class_init (SjDryRunClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_dry_run_dispose;
  object_class->finalize = sj_dry_run_finalize;
}

static void
sj_dry_run_init (SjDryRun *self)
{
  g_queue_init (&self->queue);
  self->main_context = g_main_context_ref_thread_default ();
  self->next_id = 1;
}

/**
 * sj_dry_run_new:
 *
 * Uses the helper named by $STRUDEL_JAM_DRYRUN_HELPER (uninstalled runs and
 * tests), else the installed LIBEXECDIR/strudel-jam-dryrun.
 */
SjDryRun *
sj_dry_run_new (void)
{
  const char *path = g_getenv (SJ_DRY_RUN_HELPER_ENV);

  if (path == NULL || *path == '\0')
    path = SJ_LIBEXECDIR G_DIR_SEPARATOR_S "strudel-jam-dryrun";
  return sj_dry_run_new_for_helper (path);
}

SjDryRun *
sj_dry_run_new_for_helper (const char *helper_path)
{
  SjDryRun *self;

  g_return_val_if_fail (helper_path != NULL, NULL);

  self = g_object_new (SJ_TYPE_DRY_RUN, NULL);
  self->helper_path = g_strdup (helper_path);
  return self;
}

const char *
_sj_dry_run_get_helper_path (SjDryRun *self)
{
  g_return_val_if_fail (SJ_IS_DRY_RUN (self), NULL);

  return self->helper_path;
}

/**
 * sj_dry_run_start:
 *
 * Starts the helper now rather than on the first request, so that the
 * first dry-run does not wait for Strudel to load.
 */
void
sj_dry_run_start (SjDryRun *self)
{
  g_return_if_fail (SJ_IS_DRY_RUN (self));

  if (self->process == NULL)
    start_helper (self);
}

/**
 * _sj_dry_run_get_n_starts:
 *
 * How many helper processes were started (a timeout or a crash restarts it).
 */
guint
_sj_dry_run_get_n_starts (SjDryRun *self)
{
  g_return_val_if_fail (SJ_IS_DRY_RUN (self), 0);

  return self->n_starts;
}

/**
 * _sj_dry_run_get_helper_pid:
 *
 * The running helper's process id, 0 when none runs: the tests stop it
 * for a while to play a machine too busy to give it a core.
 */
GPid
_sj_dry_run_get_helper_pid (SjDryRun *self)
{
  g_return_val_if_fail (SJ_IS_DRY_RUN (self), 0);

  return self->process != NULL ? sj_dry_run_process_get_pid (self->process) : 0;
}

/* The main context the helper's pipes and timeouts run in, which
 * sj_dry_run_run_sync() iterates. */
GMainContext *
_sj_dry_run_get_main_context (SjDryRun *self)
{
  g_return_val_if_fail (SJ_IS_DRY_RUN (self), NULL);

  return self->main_context;
}

/**
 * sj_dry_run_set_user_samples:
 * @packs: (nullable): the user's folders of samples, as
 *   sj_user_samples_dup_packs() gives them (a JSON array); %NULL for none
 *
 * The helper registers them as the page does, before the next dry-run.
 */
void
sj_dry_run_set_user_samples (SjDryRun *self,
                             JsonNode *packs)
{
  g_return_if_fail (SJ_IS_DRY_RUN (self));
  g_return_if_fail (packs == NULL || JSON_NODE_HOLDS_ARRAY (packs));

  g_clear_pointer (&self->user_samples, g_free);
  self->user_samples = packs != NULL ? json_to_string (packs, FALSE) : g_strdup ("[]");
  /* Every helper, the running one included, needs them now. */
  self->user_samples_start = 0;
  pump (self);
}

void
sj_dry_run_run_async (SjDryRun            *self,
                      const char          *code,
                      guint                cycles,
                      guint                timeout_ms,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  sj_dry_run_run_full_async (self, code, cycles, timeout_ms, SJ_DRY_RUN_FLAGS_NONE,
                             cancellable, callback, user_data);
}

/**
 * sj_dry_run_run_full_async:
 * @cycles: how many cycles to query, 1–8 (SJ_DRY_RUN_DEFAULT_CYCLES is 4)
 * @timeout_ms: the processor time the code may take (see
 *   request_has_time_left()): 0 for the default (500 ms), else at most 60 s
 *
 * Dry-runs @code.  The answer (sj_dry_run_run_finish()) is the helper's:
 * {"ok":true,"events","cycles","cps","sounds","tempo","samples","sampleUses",
 *  "sampleUsesTruncated"?,"haps"?,"ms"} (sampleUses: the distinct
 * {sound, n, midi?, pack, path} that the sample-map sounds play, at most 512)
 * or {"ok":false,"phase":"syntax|compile|runtime|timeout","message",…}.
 */
void
sj_dry_run_run_full_async (SjDryRun            *self,
                           const char          *code,
                           guint                cycles,
                           guint                timeout_ms,
                           SjDryRunFlags        flags,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Request *request;
  gsize length;

  g_return_if_fail (SJ_IS_DRY_RUN (self));
  g_return_if_fail (code != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_dry_run_run_full_async);

  if (timeout_ms == 0)
    timeout_ms = SJ_DRY_RUN_DEFAULT_TIMEOUT_MS;

  if (cycles < SJ_DRY_RUN_MIN_CYCLES || cycles > SJ_DRY_RUN_MAX_CYCLES)
    {
      g_task_return_new_error (task, SJ_DRY_RUN_ERROR, SJ_DRY_RUN_ERROR_INVALID_INPUT,
                               _("A dry-run queries 1 to 8 cycles, not %u."), cycles);
      return;
    }
  if (timeout_ms > SJ_DRY_RUN_MAX_TIMEOUT_MS)
    {
      g_task_return_new_error (task, SJ_DRY_RUN_ERROR, SJ_DRY_RUN_ERROR_INVALID_INPUT,
                               _("A dry-run timeout is at most 60 s, not %u ms."), timeout_ms);
      return;
    }
  if ((length = strlen (code)) > SJ_DRY_RUN_MAX_CODE_BYTES)
    {
      g_task_return_new_error (task, SJ_DRY_RUN_ERROR, SJ_DRY_RUN_ERROR_INVALID_INPUT,
                               _("The code is %zu bytes; a dry-run takes at most 1 MiB."), (size_t) length);
      return;
    }
  if (!g_utf8_validate (code, length, NULL))
    {
      g_task_return_new_error (task, SJ_DRY_RUN_ERROR, SJ_DRY_RUN_ERROR_INVALID_INPUT,
                               _("The code is not valid UTF-8."));
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    return;

  request = g_new0 (Request, 1);
  request->id = self->next_id++;
  request->timeout_ms = timeout_ms;
  request->line = sj_dry_run_process_format_request (request->id, code, cycles,
                                                     (flags & SJ_DRY_RUN_FLAGS_HAPS) != 0);
  g_task_set_task_data (task, request, (GDestroyNotify) request_free);

  if (cancellable != NULL)
    {
      request->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (request->cancel_source, G_SOURCE_FUNC (on_request_cancelled), task, NULL);
      g_source_attach (request->cancel_source, self->main_context);
    }

  /* A new request after failed starts tries again. */
  if (self->process == NULL)
    self->start_failures = 0;
  g_queue_push_tail (&self->queue, g_steal_pointer (&task));
  pump (self);
}

/**
 * sj_dry_run_run_finish:
 *
 * Returns: (transfer full): the answer, or %NULL with @error set
 */
JsonObject *
sj_dry_run_run_finish (SjDryRun      *self,
                       GAsyncResult  *result,
                       GError       **error)
{
  g_return_val_if_fail (SJ_IS_DRY_RUN (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
