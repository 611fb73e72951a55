/* sj-render-cli.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * `strudel-jam --render FILE|- [--cycles N] --output OUT.wav [--stems DIR]`
 * (issue 33): renders the code in FILE (or stdin) with no window and prints
 * a JSON summary on stdout (seconds, peak, RMS, the files), nothing else.
 *
 * `strudel-jam --render-session ID --output OUT.wav [--tail N]` renders a
 * session of the profile's history as it happened: each code change from
 * the cycle it landed at (sj-render-timeline.c), N cycles (default 8) after
 * the last one. A session that is not there, or has no code, is a request
 * error (2).
 *
 * A bad command line exits with 2 (usage on stderr). A render that cannot
 * be done prints {"status": "error", "error": {code, message}}: with 2 when
 * the request itself is wrong (the cycles, the length, no code, a path that
 * cannot be written), with 1 when it failed on the way (the pattern threw,
 * the disk filled up, no display).
 *
 * The render runs in a hidden WebKit page, which needs a display even
 * though nothing is shown: without one, run it under xvfb-run.
 */

#include "config.h"

#include <stdio.h>

#include <glib/gi18n.h>
#include <gtk/gtk.h>

#include "sj-code-file.h"
#include "sj-json.h"
#include "sj-knowledge-cli.h"
#include "sj-render-cli.h"
#include "sj-render-timeline.h"
#include "sj-renderer.h"

typedef struct
{
  GMainLoop  *loop;
  JsonObject *summary;
  GError     *error;
} Wait;

gboolean
sj_render_cli_wanted (const SjRenderCliOptions *options)
{
  return options->file != NULL || options->output != NULL || options->stems_dir != NULL ||
         options->session != NULL || options->tail != G_MININT;
}

void
sj_render_cli_clear (SjRenderCliOptions *options)
{
  g_clear_pointer (&options->file, g_free);
  g_clear_pointer (&options->output, g_free);
  g_clear_pointer (&options->stems_dir, g_free);
  g_clear_pointer (&options->session, g_free);
}

static int
usage_error (const char *message)
{
  g_printerr ("strudel-jam: %s\n", message);
  g_printerr ("%s\n", _("Usage: strudel-jam --render FILE|- [--cycles N] --output OUT.wav [--stems DIR]"));
  g_printerr ("%s\n", _("       strudel-jam --render-session ID --output OUT.wav [--tail N]"));
  return SJ_CLI_EXIT_USAGE;
}

static void
print_json (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);

  sj_json_print_pretty (node);
}

static int
print_error (const GError *error,
             int           status)
{
  g_autoptr(JsonObject) object = sj_render_error_json (error);

  print_json (object);
  return status;
}

static void
rendered_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Wait *wait = user_data;

  wait->summary = sj_renderer_render_finish (SJ_RENDERER (object), result, &wait->error);
  g_main_loop_quit (wait->loop);
}

static gboolean
is_request_error (const GError *error)
{
  return error->domain == SJ_RENDER_ERROR &&
         (error->code == SJ_RENDER_ERROR_CYCLES || error->code == SJ_RENDER_ERROR_TOO_LONG ||
          error->code == SJ_RENDER_ERROR_NO_CODE || error->code == SJ_RENDER_ERROR_OUTPUT ||
          error->code == SJ_RENDER_ERROR_SESSION || error->code == SJ_RENDER_ERROR_TOO_MANY_CHANGES);
}

/* --render-session ID: the session's timeline from the profile's history
 * (never created here: no history is no session). */
static gboolean
load_session (const SjRenderCliOptions  *cli,
              SjRenderOptions          **options,
              GError                   **error)
{
  g_autofree char *path = sj_history_store_default_path ();
  g_autoptr(SjHistoryStore) store = NULL;
  g_autoptr(SjRenderTimeline) timeline = NULL;
  gint64 id = 0;

  if (!g_ascii_string_to_signed (cli->session, 10, 1, G_MAXINT64, &id, NULL))
    {
      g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_SESSION,
                   /* TRANSLATORS: %s is what was given as a session's number */
                   _("“%s” is not a session number: sessions are numbered from 1"), cli->session);
      return FALSE;
    }
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_SESSION,
                   /* TRANSLATORS: %s is the history's file */
                   _("There is no history (%s): no session to render"), path);
      return FALSE;
    }
  if ((store = sj_history_store_new (path, error)) == NULL)
    return FALSE;
  timeline = sj_render_timeline_load (store, id, cli->tail != G_MININT ? cli->tail : SJ_RENDER_DEFAULT_CYCLES, error);
  if (timeline == NULL)
    return FALSE;

  sj_render_options_free (*options);
  *options = sj_render_timeline_to_options (timeline);

  return TRUE;
}

/**
 * sj_render_cli_run:
 * @cycles: --cycles, or -1 when not given
 * @other_commands: whether the dry-run or knowledge options were given too
 *
 * Returns: the exit status
 */
int
sj_render_cli_run (SjApplication            *app,
                   const SjRenderCliOptions *cli,
                   int                       cycles,
                   gboolean                  other_commands)
{
  g_autoptr(SjRenderOptions) options = sj_render_options_new ();
  g_autoptr(SjRenderer) renderer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  Wait wait = { 0 };
  int status;

  if (cli->session != NULL)
    {
      if (cli->file != NULL)
        return usage_error (_("--render and --render-session cannot be combined."));
      if (other_commands)
        return usage_error (_("--render-session cannot be combined with --dry-run or the knowledge options."));
      if (cycles >= 0)
        return usage_error (_("--render-session takes --tail N (the cycles after the last change), not --cycles."));
      if (cli->stems_dir != NULL)
        return usage_error (_("--render-session renders one file: --stems goes with --render."));
      if (cli->output == NULL)
        return usage_error (_("--render-session needs --output FILE."));
      if (!load_session (cli, &options, &error))
        return print_error (error, is_request_error (error) ? SJ_CLI_EXIT_USAGE : SJ_CLI_EXIT_ERROR);
    }
  else
    {
      if (cli->file == NULL)
        return usage_error (_("--output and --stems go with --render, --tail with --render-session."));
      if (cli->tail != G_MININT)
        return usage_error (_("--tail goes with --render-session."));
      if (other_commands)
        return usage_error (_("--render cannot be combined with --dry-run or the knowledge options."));
      if (cli->output == NULL && cli->stems_dir == NULL)
        return usage_error (_("--render needs --output FILE, --stems DIR or both."));

      if ((options->code = sj_code_file_read_command_line (cli->file, &error)) == NULL)
        {
          g_autofree char *message = g_strdup_printf (_("Cannot read %s: %s"), cli->file, error->message);

          return usage_error (message);
        }
      if (cycles >= 0)
        options->cycles = cycles;
    }
  options->output = g_strdup (cli->output);
  options->stems_dir = g_strdup (cli->stems_dir);

  if (!sj_render_options_check (options, &error))
    return print_error (error, is_request_error (error) ? SJ_CLI_EXIT_USAGE : SJ_CLI_EXIT_ERROR);

  if (!gtk_init_check ())
    {
      g_set_error_literal (&error, SJ_RENDER_ERROR, SJ_RENDER_ERROR_PAGE,
                           _("Rendering needs a display, even with no window: without one, run it under xvfb-run"));
      return print_error (error, SJ_CLI_EXIT_ERROR);
    }

  /* The same sounds as the app's page: its cache (downloading only as the
   * "download-sounds" setting allows), remote samples and sample folders. */
  renderer = sj_renderer_new (sj_application_get_sound_cache (app),
                              sj_application_get_remote_samples (app),
                              sj_application_get_user_samples (app));
  loop = g_main_loop_new (NULL, FALSE);
  wait.loop = loop;
  sj_renderer_render_async (renderer, options, NULL, rendered_cb, &wait);
  g_main_loop_run (loop);

  if (wait.summary == NULL)
    {
      status = print_error (wait.error, is_request_error (wait.error) ? SJ_CLI_EXIT_USAGE : SJ_CLI_EXIT_ERROR);
      g_clear_error (&wait.error);
      return status;
    }

  print_json (wait.summary);
  g_clear_pointer (&wait.summary, json_object_unref);

  return SJ_CLI_EXIT_OK;
}
