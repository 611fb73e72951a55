/* sj-mcp-cli.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * `strudel-jam --mcp` (issue 34): a Model Context Protocol server on
 * stdin and stdout for any MCP client (an editor, a desktop assistant),
 * which jams in the running window. The protocol is SjMcpServer; the
 * window is reached over the session bus (SjMcpDbusBackend), and started
 * by the first request that needs it when it is not running.
 *
 * Stdout carries the protocol and nothing else: the real stdout is kept
 * on a private descriptor, and fd 1 becomes stderr, so that no log line,
 * library or child process can write into the stream. Stdin is read in
 * chunks through SjMcpFramer, which never holds more than a line's
 * limit. When stdin closes, the answers still owed are written and the
 * process exits 0.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixinputstream.h>

#include "sj-knowledge-cli.h"
#include "sj-mcp-cli.h"
#include "sj-mcp-dbus-backend.h"
#include "sj-mcp-framer.h"
#include "sj-mcp-server.h"

#define READ_CHUNK (64 * 1024)
/* Answers still owed when stdin closes get this long. */
#define DRAIN_TIMEOUT_S 30

typedef struct
{
  GMainLoop    *loop;
  SjMcpServer  *server;
  SjMcpFramer  *framer;
  GInputStream *input;
  int           out_fd;
  gboolean      eof;
  gboolean      write_failed;
  guint         drain_id;
} Cli;

static void
write_line_cb (const char *line,
               gpointer    user_data)
{
  Cli *cli = user_data;
  g_autofree char *text = g_strconcat (line, "\n", NULL);
  gsize length = strlen (text);
  gsize written = 0;

  while (!cli->write_failed && written < length)
    {
      ssize_t n = write (cli->out_fd, text + written, length - written);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          /* The client is gone: nobody reads the answers. */
          g_printerr ("strudel-jam --mcp: cannot write to stdout: %s\n", g_strerror (errno));
          cli->write_failed = TRUE;
          g_main_loop_quit (cli->loop);
          return;
        }
      written += n;
    }
}

static void
line_cb (const char *line,
         gsize       length,
         gboolean    too_long,
         gpointer    user_data)
{
  Cli *cli = user_data;

  if (too_long)
    sj_mcp_server_handle_too_long (cli->server);
  else
    sj_mcp_server_handle_line (cli->server, line, length);
}

static void
maybe_quit (Cli *cli)
{
  if (cli->eof && sj_mcp_server_get_pending (cli->server) == 0)
    g_main_loop_quit (cli->loop);
}

static gboolean
drain_timeout_cb (gpointer user_data)
{
  Cli *cli = user_data;

  cli->drain_id = 0;
  g_printerr ("strudel-jam --mcp: stdin closed; %u answers still owed after %d s, exiting\n",
              sj_mcp_server_get_pending (cli->server), DRAIN_TIMEOUT_S);
  g_main_loop_quit (cli->loop);

  return G_SOURCE_REMOVE;
}

static void read_next (Cli *cli);

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Cli *cli = user_data;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      if (error != NULL)
        g_printerr ("strudel-jam --mcp: cannot read stdin: %s\n", error->message);
      sj_mcp_framer_finish (cli->framer, line_cb, cli);
      cli->eof = TRUE;
      cli->drain_id = g_timeout_add_seconds (DRAIN_TIMEOUT_S, drain_timeout_cb, cli);
      maybe_quit (cli);
      return;
    }

  sj_mcp_framer_push (cli->framer, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), line_cb, cli);
  if (!cli->write_failed)
    read_next (cli);
}

static void
read_next (Cli *cli)
{
  g_input_stream_read_bytes_async (cli->input, READ_CHUNK, G_PRIORITY_DEFAULT, NULL, read_cb, cli);
}

static void
pending_changed_cb (SjMcpServer *server,
                    Cli         *cli)
{
  maybe_quit (cli);
}

/* The command that starts the app: this very binary, with no options.
 * STRUDEL_JAM_MCP_LAUNCH replaces it (a test, or a wrapper). */
static GStrv
launch_argv (void)
{
  const char *launch = g_getenv ("STRUDEL_JAM_MCP_LAUNCH");
  g_autofree char *self_exe = NULL;
  GStrv argv = NULL;

  if (launch != NULL && *launch != '\0')
    {
      if (g_shell_parse_argv (launch, NULL, &argv, NULL))
        return argv;
      return NULL;
    }

  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  if (self_exe == NULL)
    return NULL;
  argv = g_new0 (char *, 2);
  argv[0] = g_steal_pointer (&self_exe);

  return argv;
}

/**
 * sj_mcp_cli_run:
 * @other_commands: whether another command-line mode was asked for too
 *
 * Returns: the exit status: 0 once stdin closes
 */
int
sj_mcp_cli_run (gboolean other_commands)
{
  g_autoptr(SjMcpDbusBackend) backend = NULL;
  g_autoptr(SjMcpFramer) framer = NULL;
  g_autoptr(SjMcpServer) server = NULL;
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_auto(GStrv) argv = NULL;
  g_autofree char *path = NULL;
  Cli cli = { 0 };

  if (other_commands)
    {
      g_printerr ("strudel-jam: --mcp cannot be combined with other options\n");
      return SJ_CLI_EXIT_USAGE;
    }

  /* Stdout is the protocol's alone (see above). */
  cli.out_fd = fcntl (STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (cli.out_fd < 0 || dup2 (STDERR_FILENO, STDOUT_FILENO) < 0)
    {
      g_printerr ("strudel-jam --mcp: cannot set up stdout: %s\n", g_strerror (errno));
      return SJ_CLI_EXIT_ERROR;
    }

  path = g_strconcat ("/", APP_ID, NULL);
  g_strdelimit (path, ".", '/');
  argv = launch_argv ();
  backend = sj_mcp_dbus_backend_new (NULL, APP_ID, path, (const char * const *)argv);

  loop = g_main_loop_new (NULL, FALSE);
  framer = sj_mcp_framer_new (SJ_MCP_MAX_LINE);
  server = sj_mcp_server_new (SJ_MCP_BACKEND (backend), write_line_cb, &cli);
  input = g_unix_input_stream_new (STDIN_FILENO, FALSE);
  cli.loop = loop;
  cli.server = server;
  cli.framer = framer;
  cli.input = input;
  g_signal_connect (server, "pending-changed", G_CALLBACK (pending_changed_cb), &cli);

  read_next (&cli);
  g_main_loop_run (loop);

  g_signal_handlers_disconnect_by_data (server, &cli);
  g_clear_handle_id (&cli.drain_id, g_source_remove);
  close (cli.out_fd);

  return SJ_CLI_EXIT_OK;
}
