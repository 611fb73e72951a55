/* sj-application.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The application: one main window, app-wide actions and accelerators.
 *
 * It also owns what the app knows about Strudel, shared by every window and
 * kept when a window or its page restarts: one SjSoundsIndex and one
 * SjKnowledge built on it and on the bundled reference. The sounds index
 * starts from the sounds the page's prebake registers offline (the build's
 * synths and soundfonts, and the sound library's sample maps) with the
 * cache of the page's last snapshot over them, takes every snapshot the
 * page posts, and writes it back to the cache, so that lookups answer even
 * while the page is not running. The user's own folders of samples
 * (SjUserSamples, kept in the "sample-folders" setting) are the app's too.
 * Those are in sj-application-sounds.c; the help in sj-application-help.c.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <stdlib.h>
#include <unistd.h>

#include "sj-application-private.h"
#include "sj-drum-kit.h"
#include "sj-dry-run-cli.h"
#include "sj-knowledge.h"
#include "sj-knowledge-cli.h"
#include "sj-mcp-cli.h"
#include "sj-platform.h"
#include "sj-resources.h"
#include "sj-window.h"

G_DEFINE_FINAL_TYPE (SjApplication, sj_application, ADW_TYPE_APPLICATION)

/* The folder of the app's GStreamer plugins: STRUDEL_JAM_GST_PLUGIN_DIR when
 * set; the build tree's when this program was built there and runs from it
 * (build/src/strudel-jam, the tests, the benchmarks); the installed one
 * otherwise (the Flatpak's too: /app/lib/strudel-jam/gstreamer-1.0). */
static char *
gst_plugin_dir (void)
{
  const char *env = g_getenv ("STRUDEL_JAM_GST_PLUGIN_DIR");
  g_autofree char *exe = NULL;

  if (env != NULL && *env != '\0')
    return g_strdup (env);

  exe = g_file_read_link ("/proc/self/exe", NULL);
  if (exe != NULL && g_str_has_prefix (exe, SJ_BUILD_ROOT G_DIR_SEPARATOR_S) &&
      g_file_test (SJ_GST_PLUGIN_BUILD_DIR, G_FILE_TEST_IS_DIR))
    return g_strdup (SJ_GST_PLUGIN_BUILD_DIR);

  return g_strdup (SJ_GST_PLUGIN_DIR);
}

/* Puts the app's audio sink (src/audio-sink/sj-audio-sink.c, issue 35) first
 * on GST_PLUGIN_PATH, which the web process inherits; its rank makes
 * autoaudiosink choose it for WebKit's Web Audio output. WebKit's pipeline
 * runs on the system clock and the sink, slaved to it, jumps 20 ms every
 * ~110 s to catch up with the sound server's clock; the plugin is where that
 * is fixed (a system clock at the sound server's rate, see its top).
 * With STRUDEL_JAM_AUDIO_SINK=system the web process plays through the
 * system's sink as before (for A/B runs). */
static void
prepare_audio_sink_env (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  const char *old;

  if (g_strcmp0 (g_getenv ("STRUDEL_JAM_AUDIO_SINK"), "system") == 0)
    return;

  dir = gst_plugin_dir ();
  old = g_getenv ("GST_PLUGIN_PATH");
  if (old != NULL && *old != '\0')
    {
      g_auto(GStrv) parts = g_strsplit (old, G_SEARCHPATH_SEPARATOR_S, -1);

      if (g_strv_contains ((const char * const *) parts, dir))
        return;
      path = g_strjoin (G_SEARCHPATH_SEPARATOR_S, dir, old, NULL);
    }
  else
    {
      path = g_strdup (dir);
    }

  g_setenv ("GST_PLUGIN_PATH", path, TRUE);
}

/**
 * sj_application_prepare_env:
 *
 * Must run before anything starts WebKit. WebKit's GStreamer backend asks
 * the audio sink for its channel count; where the sink reports none (as
 * PipeWire and headless setups do), every note fails with "Channel count
 * cannot be 0" unless the maximum is set. A value the user set wins.
 *
 * It also puts the app's own audio sink on GStreamer's plugin path (see
 * prepare_audio_sink_env ()) and picks the GTK renderer on machines without
 * a GPU (see below).
 */
void
sj_application_prepare_env (void)
{
  g_setenv ("WEBKIT_GST_MAX_NUMBER_OF_AUDIO_OUTPUT_CHANNELS", "2", FALSE);
  prepare_audio_sink_env ();

  /* Strudel allocates about 50 MiB a second; JavaScriptCore's generational
   * collector clears it in eden collections but runs full ones too rarely,
   * and the garbage they would clear piles up: a soak grew 413 -> 711 MiB
   * in 10 minutes. With every collection full, a soak beside it held flat
   * (358 -> 356 MiB over minutes 2-4, no late events) for about 2 % more
   * CPU (bench/audio --env-variant JSC_useGenerationalGC=true; bench/README.md,
   * "Playing for hours, part two"). A value the user set wins. */
  g_setenv ("JSC_useGenerationalGC", "false", FALSE);

  /* Without a GPU (no DRM render node), GTK's default GL renderer runs on
   * Mesa's software rasterizer, and bench/startup measured it as the largest
   * cost of starting: with the cairo renderer the app is ready in 0.97 s
   * instead of 1.35 s and holds 321 MiB instead of 391 MiB at ready (headless
   * Chromium: 1.12 s, 396 MiB). With a GPU, GTK's own choice stands. A
   * GSK_RENDERER the user set always wins. */
  if (g_getenv ("GSK_RENDERER") == NULL && !sj_platform_has_gpu ())
    g_setenv ("GSK_RENDERER", "cairo", TRUE);
}

/**
 * sj_application_setup_i18n:
 *
 * Takes the locale from the environment and binds the app's text domain to
 * the installed translations, or to `STRUDEL_JAM_LOCALEDIR` when it is set:
 * a build tree's `po/` (`meson devenv` sets it), so that a translation can
 * be tried without installing it and the translation tests use the
 * catalogs just built.
 */
void
sj_application_setup_i18n (void)
{
  const char *localedir = g_getenv ("STRUDEL_JAM_LOCALEDIR");

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, localedir != NULL && *localedir != '\0' ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}

/* A second launch raises the running jam instead of opening another window
 * that would play on top of it. */
static SjWindow *
present_window (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (sj_window_new (GTK_APPLICATION (app)));

  gtk_window_present (window);

  return SJ_WINDOW (window);
}

static void
sj_application_activate (GApplication *app)
{
  g_assert (SJ_IS_APPLICATION (app));

  present_window (app);
}

/* `strudel-jam FILE`, first or second launch: the code opens in the
 * running window. */
static void
sj_application_open (GApplication  *app,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  g_assert (SJ_IS_APPLICATION (app));

  sj_window_open_files (present_window (app), files, n_files);
}

static void
about_action (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  SjApplication *self = user_data;
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));
  static const char *developers[] = { "Strudel Jam developers", NULL };
  AdwAboutWindow *about;

  about = ADW_ABOUT_WINDOW (adw_about_window_new ());
  adw_about_window_set_application_name (about, _("Strudel Jam"));
  adw_about_window_set_application_icon (about, APP_ID);
  adw_about_window_set_version (about, PACKAGE_VERSION);
  adw_about_window_set_developer_name (about, _("Strudel Jam developers"));
  adw_about_window_set_developers (about, developers);
  adw_about_window_set_website (about, "https://github.com/strudeljam/strudel-jam");
  adw_about_window_set_issue_url (about, "https://github.com/strudeljam/strudel-jam/issues");
  adw_about_window_set_license_type (about, GTK_LICENSE_AGPL_3_0);
  adw_about_window_set_copyright (about, _("© 2026 Strudel Jam developers"));
  adw_about_window_set_comments (about,
                                 _("Live-code music with Strudel and an AI partner. "
                                   "The music never stops: changes are checked first and land on the next cycle."));
  /* Strudel is the heart of the app; credit it where users look. */
  adw_about_window_add_credit_section (about, _("Strudel"), (const char *[]) {
                                         "Felix Roos and the Strudel contributors https://strudel.cc",
                                         NULL });
  adw_about_window_add_legal_section (about, "Strudel",
                                      _("© Strudel contributors"),
                                      GTK_LICENSE_AGPL_3_0, NULL);
  if (window != NULL)
    gtk_window_set_transient_for (GTK_WINDOW (about), window);
  gtk_window_present (GTK_WINDOW (about));
}

/* Quitting --------------------------------------------------------------- */

static gpointer
quit_deadline_thread (gpointer data)
{
  guint deadline_ms = GPOINTER_TO_UINT (data);

  g_usleep ((gulong)deadline_ms * 1000);

  /* Something still waits (a disk, the page, a network peer): the musician
   * asked to quit, and the last save was already tried. */
  g_printerr ("Strudel Jam: quitting took more than %u ms; ending now\n", deadline_ms);
  _exit (0);

  return NULL;
}

/* From the moment the musician quits (Ctrl+Q, Quit, or closing the last
 * window), the process ends within the deadline whatever is pending: the
 * window saves the code with its own deadlines first. */
static void
arm_quit_deadline (SjApplication *self)
{
  if (self->quit_deadline_ms == 0 || self->quit_armed)
    return;

  self->quit_armed = TRUE;
  g_thread_unref (g_thread_new ("sj-quit-deadline", quit_deadline_thread, GUINT_TO_POINTER (self->quit_deadline_ms)));
}

static gboolean
window_close_request_cb (GtkWindow     *window,
                         SjApplication *self)
{
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (self));

  if (windows != NULL && windows->next == NULL && windows->data == window)
    arm_quit_deadline (self);

  return GDK_EVENT_PROPAGATE;
}

static void
sj_application_window_added (GtkApplication *app,
                             GtkWindow      *window)
{
  GTK_APPLICATION_CLASS (sj_application_parent_class)->window_added (app, window);

  g_signal_connect_object (window, "close-request", G_CALLBACK (window_close_request_cb), app, 0);
}

/**
 * sj_application_set_quit_deadline:
 * @deadline_ms: how long quitting may take, 0 for no limit
 *
 * Sets how long the process may take to end once the musician quits.
 * `strudel-jam` sets it; in-process tests leave it off.
 */
void
sj_application_set_quit_deadline (SjApplication *self,
                                  guint          deadline_ms)
{
  g_return_if_fail (SJ_IS_APPLICATION (self));

  self->quit_deadline_ms = deadline_ms;
}

static void
quit_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  SjApplication *self = user_data;
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (self));

  arm_quit_deadline (self);

  /* Close rather than quit outright so that each window saves its code. */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (GTK_WINDOW (l->data));
}

static void
help_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  _sj_application_show_help (user_data);
}

static const GActionEntry app_entries[] = {
  { "about", about_action },
  { "help", help_action },
  { "quit", quit_action },
};

static void
sj_application_startup (GApplication *app)
{
  SjApplication *self = SJ_APPLICATION (app);
  static const struct {
    const char *action;
    const char *accels[3];
  } accels[] = {
    { "app.quit", { "<Control>q", NULL } },
    { "app.help", { "F1", NULL } },
    { "win.play", { "<Control>Return", NULL } },
    { "win.stop", { "<Control>period", NULL } },
    { "win.show-panel", { "F9", NULL } },
    { "win.show-console", { "<Control><Shift>c", NULL } },
    { "win.show-reference", { "<Control><Shift>r", NULL } },
    { "win.show-sounds", { "<Control><Shift>s", NULL } },
    { "win.show-skills", { "<Control><Shift>j", NULL } },
    { "win.focus-editor", { "<Control>e", NULL } },
    { "win.undo-change", { "<Control><Alt>z", NULL } },
    { "win.focus-composer", { "<Control>l", NULL } },
    { "win.show-tool-logs", { "<Control><Shift>l", NULL } },
    { "win.show-sessions", { "<Control><Shift>h", NULL } },
    { "win.show-agent-settings", { "<Control>comma", NULL } },
    { "win.new-session", { "<Control><Shift>n", NULL } },
    /* Ctrl+Shift+. arrives as Ctrl+> on a US layout. */
    { "win.stop-agent", { "<Control><Shift>period", "<Control>greater", NULL } },
    { "win.regenerate", { "<Control><Shift>g", NULL } },
    { "win.edit-last-message", { "<Control><Shift>e", NULL } },
    { "win.voice-listen", { "<Control><Shift>space", NULL } },
    { "win.record-phrase", { "<Control><Alt>r", NULL } },
    { "win.learn-controller", { "<Control><Alt>k", NULL } },
    { "win.cancel-change", { "<Control><Shift>BackSpace", NULL } },
    { "win.panic", { "<Control><Shift>p", NULL } },
    { "win.render", { "<Control><Shift>x", NULL } },
    { "win.record", { "<Control><Alt>a", NULL } },
  };

  G_APPLICATION_CLASS (sj_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_entries, G_N_ELEMENTS (app_entries), app);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app), accels[i].action, accels[i].accels);

  _sj_application_load_sounds_cache (self);
}

static void
sj_application_shutdown (GApplication *app)
{
  SjApplication *self = SJ_APPLICATION (app);

  g_assert (SJ_IS_APPLICATION (self));

  /* A snapshot still waiting to be written goes to the cache now. */
  if (self->save_sounds_source != 0)
    _sj_application_save_sounds_cache (self);
  /* Downloads stop, and resume at the next start. */
  if (self->sound_downloads != NULL)
    sj_sound_downloads_suspend (self->sound_downloads);

  G_APPLICATION_CLASS (sj_application_parent_class)->shutdown (app);
}

static void
sj_application_finalize (GObject *object)
{
  SjApplication *self = (SjApplication *)object;

  g_clear_pointer (&self->cli.knowledge, g_free);
  g_clear_pointer (&self->cli.knowledge_json, g_free);
  g_clear_pointer (&self->cli.search, g_free);
  g_clear_pointer (&self->cli.category, g_free);
  g_clear_pointer (&self->cli.sounds, g_free);
  g_clear_pointer (&self->dry_run_cli.file, g_free);
  sj_render_cli_clear (&self->render_cli);
  g_clear_handle_id (&self->save_sounds_source, g_source_remove);
  g_clear_object (&self->knowledge);
  g_clear_object (&self->skills);
  g_clear_object (&self->sounds);
  g_clear_object (&self->remote_samples);
  g_clear_object (&self->sound_downloads);
  g_clear_object (&self->sound_cache);
  g_clear_object (&self->user_samples);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (sj_application_parent_class)->finalize (object);
}

/* `strudel-jam FILE…`: a file that cannot be opened is said on stderr
 * with a failure status, before any window (a script or a typo in a
 * terminal learns it there, not in a window it may not see). Options are
 * already parsed out of the arguments here; what remains is the files. */
static int
check_files (SjApplication *self)
{
  char **arguments = self->arguments != NULL ? *self->arguments : NULL;
  int status = -1;

  if (arguments == NULL || arguments[0] == NULL)
    return -1;

  for (guint i = 1; arguments[i] != NULL; i++)
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (arguments[i]);
      GFileType type;

      if (!g_file_is_native (file))
        continue;
      type = g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL);
      if (type == G_FILE_TYPE_UNKNOWN)
        {
          /* TRANSLATORS: on stderr; %s is a path given on the command line */
          g_printerr (_("strudel-jam: %s: no such file\n"), arguments[i]);
          status = EXIT_FAILURE;
        }
      else if (type == G_FILE_TYPE_DIRECTORY)
        {
          /* TRANSLATORS: on stderr; %s is a path given on the command line */
          g_printerr (_("strudel-jam: %s: a folder, not a file of Strudel code\n"), arguments[i]);
          status = EXIT_FAILURE;
        }
    }

  return status;
}

/* --version and the knowledge and dry-run options answer on stdout and
 * exit without a window (and without registering on the session bus). */
static int
sj_application_handle_local_options (GApplication *app,
                                     GVariantDict *options)
{
  SjApplication *self = SJ_APPLICATION (app);

  g_assert (SJ_IS_APPLICATION (self));

  self->options_parsed = TRUE;

  if (self->print_version)
    {
      g_print ("strudel-jam %s\n", PACKAGE_VERSION);
      return EXIT_SUCCESS;
    }

  /* --mcp (issue 34): a protocol server on stdin and stdout, which talks
   * to the primary instance over D-Bus instead of becoming one. */
  if (self->mcp)
    {
      const SjKnowledgeCliOptions *k = &self->cli;
      gboolean other = self->dry_run_cli.file != NULL || sj_render_cli_wanted (&self->render_cli) ||
                       sj_knowledge_cli_wanted (k) || k->sounds != NULL;

      return sj_mcp_cli_run (other);
    }

  /* --render (issue 33) shares --cycles with --dry-run. */
  if (sj_render_cli_wanted (&self->render_cli))
    {
      const SjKnowledgeCliOptions *k = &self->cli;
      gboolean other = self->dry_run_cli.file != NULL || sj_knowledge_cli_wanted (k) || k->sounds != NULL;

      return sj_render_cli_run (self, &self->render_cli, self->dry_run_cli.cycles, other);
    }

  /* --sounds goes with both; every other knowledge option is a command of
   * its own. */
  if (sj_dry_run_cli_wanted (&self->dry_run_cli))
    {
      const SjKnowledgeCliOptions *k = &self->cli;
      gboolean other = k->knowledge != NULL || k->knowledge_json != NULL || k->search != NULL ||
                       k->category != NULL || k->context >= 0 || k->max >= 0;

      return sj_dry_run_cli_run (&self->dry_run_cli, k->sounds, other);
    }

  if (!sj_knowledge_cli_wanted (&self->cli))
    return check_files (self);

  return sj_knowledge_cli_run (&self->cli);
}

/* GApplication exits with 1 when it cannot parse the options; for scripts
 * a bad command line is a usage error, status 2, like the knowledge
 * options' own checks.  Later failures (registration) keep their status. */
static gboolean
sj_application_local_command_line (GApplication   *app,
                                   char         ***arguments,
                                   int            *exit_status)
{
  SjApplication *self = SJ_APPLICATION (app);
  gboolean handled;

  g_assert (SJ_IS_APPLICATION (self));

  self->arguments = arguments;
  handled = G_APPLICATION_CLASS (sj_application_parent_class)->local_command_line (app, arguments, exit_status);
  self->arguments = NULL;
  if (handled && *exit_status == EXIT_FAILURE && !self->options_parsed)
    *exit_status = SJ_CLI_EXIT_USAGE;

  return handled;
}

static gboolean
sj_application_dbus_register (GApplication     *app,
                              GDBusConnection  *connection,
                              const char       *object_path,
                              GError          **error)
{
  SjApplication *self = SJ_APPLICATION (app);

  if (!G_APPLICATION_CLASS (sj_application_parent_class)->dbus_register (app, connection, object_path, error))
    return FALSE;

  return _sj_application_mcp_register (self, connection, object_path, error);
}

static void
sj_application_dbus_unregister (GApplication    *app,
                                GDBusConnection *connection,
                                const char      *object_path)
{
  _sj_application_mcp_unregister (SJ_APPLICATION (app));

  G_APPLICATION_CLASS (sj_application_parent_class)->dbus_unregister (app, connection, object_path);
}

static void
sj_application_class_init (SjApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);
  GtkApplicationClass *gtk_app_class = GTK_APPLICATION_CLASS (klass);

  object_class->finalize = sj_application_finalize;
  gtk_app_class->window_added = sj_application_window_added;

  app_class->handle_local_options = sj_application_handle_local_options;
  app_class->local_command_line = sj_application_local_command_line;
  app_class->activate = sj_application_activate;
  app_class->open = sj_application_open;
  app_class->startup = sj_application_startup;
  app_class->shutdown = sj_application_shutdown;
  app_class->dbus_register = sj_application_dbus_register;
  app_class->dbus_unregister = sj_application_dbus_unregister;

  sj_register_resource ();
}

static void
sj_application_init (SjApplication *self)
{
  const GOptionEntry entries[] = {
    { "version", 0, 0, G_OPTION_ARG_NONE, &self->print_version,
      N_("Print the version and exit"), NULL },
    { "knowledge", 0, 0, G_OPTION_ARG_STRING, &self->cli.knowledge,
      N_("Look up Strudel functions and sounds and print the answer as JSON"), N_("QUERY") },
    { "knowledge-json", 0, 0, G_OPTION_ARG_STRING, &self->cli.knowledge_json,
      N_("Look up with the object form {q, domain, mode, limit}"), N_("JSON") },
    { "search-knowledge", 0, 0, G_OPTION_ARG_STRING, &self->cli.search,
      N_("Search the curated notes with a regular expression and print JSON"), N_("REGEX") },
    { "category", 0, 0, G_OPTION_ARG_STRING, &self->cli.category,
      N_("Search only one category of notes"), N_("CATEGORY") },
    { "context", 0, 0, G_OPTION_ARG_INT, &self->cli.context,
      N_("Lines of context around each match (default 3)"), N_("N") },
    { "max", 0, 0, G_OPTION_ARG_INT, &self->cli.max,
      N_("The most matches to print (default 10)"), N_("N") },
    { "sounds", 0, 0, G_OPTION_ARG_FILENAME, &self->cli.sounds,
      N_("Use this sound snapshot instead of the cached one"), N_("FILE") },
    { "dry-run", 0, 0, G_OPTION_ARG_FILENAME, &self->dry_run_cli.file,
      N_("Dry-run the Strudel code in FILE (- for stdin) and print the report as JSON"), N_("FILE") },
    { "cycles", 0, 0, G_OPTION_ARG_INT, &self->dry_run_cli.cycles,
      N_("Cycles to query in a dry-run, 1–8 (default 4), or to render, 1–1000 (default 8)"), N_("N") },
    { "render", 0, 0, G_OPTION_ARG_FILENAME, &self->render_cli.file,
      N_("Render the Strudel code in FILE (- for stdin) to sound files and print a summary as JSON"), N_("FILE") },
    { "output", 0, 0, G_OPTION_ARG_FILENAME, &self->render_cli.output,
      N_("The WAV or FLAC file to render to, by its extension (16-bit, 48 kHz, stereo)"), N_("OUT.wav") },
    { "stems", 0, 0, G_OPTION_ARG_FILENAME, &self->render_cli.stems_dir,
      N_("Also render each $: layer to its own WAV file in DIR"), N_("DIR") },
    { "render-session", 0, 0, G_OPTION_ARG_STRING, &self->render_cli.session,
      N_("Render a session of the history as it happened, each code change at its cycle, and print a summary as JSON"),
      N_("ID") },
    { "tail", 0, 0, G_OPTION_ARG_INT, &self->render_cli.tail,
      N_("Cycles to render after a session's last change, 0–1000 (default 8)"), N_("N") },
    { "mcp", 0, 0, G_OPTION_ARG_NONE, &self->mcp,
      N_("Serve the Model Context Protocol on stdin and stdout, jamming in the running window"), NULL },
    { NULL }
  };

  self->sounds = sj_sounds_index_new ();
  self->cli.context = -1;
  self->cli.max = -1;
  self->dry_run_cli.cycles = -1;
  self->render_cli.tail = G_MININT;
  g_application_add_main_option_entries (G_APPLICATION (self), entries);
  /* TRANSLATORS: what follows the options in "Usage: strudel-jam [OPTION…] [FILE…]" */
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[FILE…]"));
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("Live-code music with Strudel and an AI partner."));
  g_application_set_option_context_description (G_APPLICATION (self),
                                                _("A FILE of Strudel code opens in the editor of the running window,\n"
                                                  "without playing it; if the editor holds code that is not saved\n"
                                                  "in a file, you are asked first.\n"
                                                  "\n"
                                                  "The --knowledge, --search-knowledge and --dry-run options print\n"
                                                  "JSON and exit without a window.\n"
                                                  "\n"
                                                  "--render plays nothing and shows no window, but renders in a\n"
                                                  "hidden web page, which needs a display: without one, run it\n"
                                                  "under xvfb-run."));
}

SjApplication *
sj_application_new (void)
{
  return g_object_new (SJ_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/io/github/strudeljam/StrudelJam",
                       NULL);
}
