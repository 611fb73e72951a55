/* sj-dry-run-process.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * One strudel-jam-dryrun process and its JSON-lines pipes.  It says when
 * the helper is ready, hands over every answer line as a JSON object and
 * says when the helper is gone (exited, crashed, or its output closed).
 * Once killed it emits nothing more: answers still in the pipe of a killed
 * helper are never seen, so a restarted helper cannot be confused with the
 * old one.  SjDryRun owns the policy (queue, timeouts, restarts).
 */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "sj-dry-run-process.h"
#include "sj-json.h"

struct _SjDryRunProcess
{
  GObject           parent_instance;

  GSubprocess      *process;
  GOutputStream    *input;
  GDataInputStream *output;
  GCancellable     *cancellable;
  GQueue            writes;   /* lines waiting for the one being written */
  gboolean          writing;
  gboolean          ready;
  gboolean          gone;  /* killed, or "exited" emitted */
};

G_DEFINE_FINAL_TYPE (SjDryRunProcess, sj_dry_run_process, G_TYPE_OBJECT)

enum {
  READY,
  ANSWER,
  EXITED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void read_next_line (SjDryRunProcess *self);

static void
sj_dry_run_process_dispose (GObject *object)
{
  SjDryRunProcess *self = (SjDryRunProcess *)object;

  sj_dry_run_process_kill (self);

  G_OBJECT_CLASS (sj_dry_run_process_parent_class)->dispose (object);
}

static void
sj_dry_run_process_finalize (GObject *object)
{
  SjDryRunProcess *self = (SjDryRunProcess *)object;

  g_clear_object (&self->process);
  g_clear_object (&self->input);
  g_clear_object (&self->output);
  g_clear_object (&self->cancellable);
  g_queue_clear_full (&self->writes, g_free);

  G_OBJECT_CLASS (sj_dry_run_process_parent_class)->finalize (object);
}

static void
sj_dry_run_process_class_init (SjDryRunProcessClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sj_dry_run_process_dispose;
  object_class->finalize = sj_dry_run_process_finalize;

  /**
   * SjDryRunProcess::ready:
   *
   * The helper has loaded Strudel and warmed up: requests may be sent.
   */
  signals[READY] = g_signal_new ("ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                 0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /**
   * SjDryRunProcess::answer:
   * @answer: (transfer none): one answer line
   */
  signals[ANSWER] = g_signal_new ("answer", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, JSON_TYPE_OBJECT);

  /**
   * SjDryRunProcess::exited:
   * @why: what ended it, for messages
   *
   * The helper is gone on its own (a crash, an exit, its output closed);
   * not emitted after sj_dry_run_process_kill().
   */
  signals[EXITED] = g_signal_new ("exited", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
sj_dry_run_process_init (SjDryRunProcess *self)
{
  self->cancellable = g_cancellable_new ();
}

static void
handle_line (SjDryRunProcess *self,
             const char      *line,
             gsize            length)
{
  g_autoptr(JsonNode) root = sj_json_parse (line, length, NULL, NULL);
  JsonObject *object;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_warning ("strudel-jam-dryrun sent a line that is not a JSON object: %.80s", line);
      return;
    }
  object = json_node_get_object (root);

  if (!self->ready)
    {
      if (json_object_get_boolean_member_with_default (object, "ready", FALSE))
        {
          self->ready = TRUE;
          g_signal_emit (self, signals[READY], 0);
        }
      return;
    }

  /* The helper rebuilds its engine after this answer and says "ready"
   * again when done: no request may go out before. */
  if (json_object_get_boolean_member_with_default (object, "restarting", FALSE))
    self->ready = FALSE;

  g_signal_emit (self, signals[ANSWER], 0, object);
}

static void
on_line_read (GObject      *source,
              GAsyncResult *result,
              gpointer      data)
{
  g_autoptr(SjDryRunProcess) self = data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  gsize length = 0;

  line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source), result, &length, &error);
  if (self->gone)
    return;

  if (line == NULL)
    {
      /* Emitted before "gone" is set, so that handlers can still ask
       * whether it had become ready. */
      g_subprocess_force_exit (self->process);
      g_signal_emit (self, signals[EXITED], 0, error != NULL ? error->message : _("it exited"));
      self->gone = TRUE;
      return;
    }

  handle_line (self, line, length);
  if (!self->gone)
    read_next_line (self);
}

static void
read_next_line (SjDryRunProcess *self)
{
  g_data_input_stream_read_line_async (self->output, G_PRIORITY_DEFAULT, self->cancellable,
                                       on_line_read, g_object_ref (self));
}

/**
 * sj_dry_run_process_new:
 *
 * Starts the helper; #SjDryRunProcess::ready follows once it is warm.
 */
SjDryRunProcess *
sj_dry_run_process_new (const char  *helper_path,
                        GError     **error)
{
  g_autoptr(SjDryRunProcess) self = g_object_new (SJ_TYPE_DRY_RUN_PROCESS, NULL);
  g_autoptr(GSubprocessLauncher) launcher = NULL;

  g_return_val_if_fail (helper_path != NULL, NULL);

  /* The helper's stderr stays ours: it only speaks when something is wrong. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  self->process = g_subprocess_launcher_spawn (launcher, error, helper_path, NULL);
  if (self->process == NULL)
    return NULL;

  self->input = g_object_ref (g_subprocess_get_stdin_pipe (self->process));
  self->output = g_data_input_stream_new (g_subprocess_get_stdout_pipe (self->process));
  read_next_line (self);

  return g_steal_pointer (&self);
}

gboolean
sj_dry_run_process_get_ready (SjDryRunProcess *self)
{
  g_return_val_if_fail (SJ_IS_DRY_RUN_PROCESS (self), FALSE);

  return self->ready && !self->gone;
}

static void write_next (SjDryRunProcess *self);

static void
on_written (GObject      *source,
            GAsyncResult *result,
            gpointer      data)
{
  g_autoptr(SjDryRunProcess) self = data;
  g_autoptr(GError) error = NULL;

  self->writing = FALSE;
  g_free (g_queue_pop_head (&self->writes));

  /* A helper that cannot take input is of no use: killing it makes its
   * output end, which reports it gone. */
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      if (!self->gone)
        g_subprocess_force_exit (self->process);
      return;
    }

  write_next (self);
}

/* One write at a time: a GOutputStream refuses a second one while the first
 * is pending, and the helper can answer a request (and the next be sent)
 * before the first write's callback has run. */
static void
write_next (SjDryRunProcess *self)
{
  const char *line;

  if (self->writing || self->gone || (line = g_queue_peek_head (&self->writes)) == NULL)
    return;

  self->writing = TRUE;
  g_output_stream_write_all_async (self->input, line, strlen (line), G_PRIORITY_DEFAULT,
                                   self->cancellable, on_written, g_object_ref (self));
}

/**
 * sj_dry_run_process_send:
 * @line: one request, ending with a newline
 */
void
sj_dry_run_process_send (SjDryRunProcess *self,
                         const char      *line)
{
  g_return_if_fail (SJ_IS_DRY_RUN_PROCESS (self));
  g_return_if_fail (self->ready && !self->gone);

  /* The queue keeps its own copy: the request may be answered (a timeout)
   * and freed while a long line is still going out. */
  g_queue_push_tail (&self->writes, g_strdup (line));
  write_next (self);
}

/**
 * sj_dry_run_process_kill:
 *
 * Stops the helper at once (SIGKILL: it may be stuck in an endless loop);
 * no signal is emitted after this.
 */
void
sj_dry_run_process_kill (SjDryRunProcess *self)
{
  g_return_if_fail (SJ_IS_DRY_RUN_PROCESS (self));

  self->gone = TRUE;
  g_cancellable_cancel (self->cancellable);
  if (self->process != NULL)
    g_subprocess_force_exit (self->process);
}

/**
 * sj_dry_run_process_get_cpu_us:
 *
 * The processor time the helper has used so far (all its threads, user and
 * system), from /proc: what a timeout should count, since on a busy
 * machine the helper may wait for a core far longer than it works.
 *
 * Returns: microseconds, or -1 when it cannot be read (no /proc, gone)
 */
gint64
sj_dry_run_process_get_cpu_us (SjDryRunProcess *self)
{
  g_autofree char *path = NULL;
  g_autofree char *stat = NULL;
  g_auto(GStrv) fields = NULL;
  const char *identifier;
  const char *end;
  long ticks_per_s = sysconf (_SC_CLK_TCK);

  g_return_val_if_fail (SJ_IS_DRY_RUN_PROCESS (self), -1);

  if (self->gone || self->process == NULL || ticks_per_s <= 0 ||
      (identifier = g_subprocess_get_identifier (self->process)) == NULL)
    return -1;

  path = g_strdup_printf ("/proc/%s/stat", identifier);
  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return -1;

  /* "pid (name) state ppid …": the name may hold spaces and parentheses;
   * utime and stime are the 14th and 15th fields, the 12th and 13th after
   * the name. */
  end = strrchr (stat, ')');
  if (end == NULL)
    return -1;
  fields = g_strsplit (end + 1, " ", 16);
  if (g_strv_length (fields) < 15)
    return -1;

  return (g_ascii_strtoll (fields[12], NULL, 10) + g_ascii_strtoll (fields[13], NULL, 10)) *
         G_USEC_PER_SEC / ticks_per_s;
}

/* The helper's process id, 0 once it is gone. */
GPid
sj_dry_run_process_get_pid (SjDryRunProcess *self)
{
  const char *identifier;

  g_return_val_if_fail (SJ_IS_DRY_RUN_PROCESS (self), 0);

  if (self->gone || self->process == NULL || (identifier = g_subprocess_get_identifier (self->process)) == NULL)
    return 0;
  return (GPid)g_ascii_strtoll (identifier, NULL, 10);
}

/**
 * sj_dry_run_process_format_request:
 * @haps: whether the answer should list the events themselves
 *
 * Returns: (transfer full): the helper's request line for @code, with its
 *   newline: one JSON object, the code escaped
 */
char *
sj_dry_run_process_format_request (gint64      id,
                                   const char *code,
                                   guint       cycles,
                                   gboolean    haps)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_int_value (builder, id);
  json_builder_set_member_name (builder, "code");
  json_builder_add_string_value (builder, code);
  json_builder_set_member_name (builder, "cycles");
  json_builder_add_int_value (builder, cycles);
  json_builder_set_member_name (builder, "haps");
  json_builder_add_boolean_value (builder, haps);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json = json_generator_to_data (generator, NULL);
  return g_strconcat (json, "\n", NULL);
}
