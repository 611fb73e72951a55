/* test-audio-sink.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The app's own audio sink (issue 35, src/audio-sink/sj-audio-sink.c): the
 * real window playing into a private PulseAudio (with-pulse.sh). The web
 * process's stream carries sjaudiosink's mark ("strudel-jam.sink"), so it
 * went through the app's plugin and not the system's sink, and it still
 * looks like the app's stream to the recorder (application.name and the
 * WebKitWebProcess binary); what it plays arrives on the sink. With
 * STRUDEL_JAM_AUDIO_SINK=system the plugin's folder is kept off
 * GST_PLUGIN_PATH.
 */

#include "config.h"

#include "sj-application.h"
#include "sj-repl-private.h"
#include "sj-test-app.h"
#include "sj-window-private.h"

#define CODE "note(\"a4*8\").s(\"sine\").sustain(1).gain(.3)"

typedef struct
{
  char *block;    /* the web process's sink input in `pactl list sink-inputs` */
  guint attempts;
} SinkInput;

/* The block of `pactl list sink-inputs` whose binary is WebKitWebProcess. */
static char *
find_web_sink_input (void)
{
  g_autofree char *out = NULL;
  g_auto(GStrv) blocks = NULL;
  int status = 0;

  if (!g_spawn_command_line_sync ("pactl list sink-inputs", &out, NULL, &status, NULL) || status != 0)
    return NULL;

  blocks = g_strsplit (out, "Sink Input #", -1);
  for (guint i = 0; blocks[i] != NULL; i++)
    if (strstr (blocks[i], "application.process.binary = \"WebKitWebProcess\"") != NULL)
      return g_strdup (blocks[i]);

  return NULL;
}

static gboolean
poll_sink_input (gpointer data)
{
  SinkInput *input = data;

  input->attempts++;
  input->block = find_web_sink_input ();

  return input->block != NULL ? G_SOURCE_REMOVE : G_SOURCE_CONTINUE;
}

static gboolean
sink_input_found (gpointer data)
{
  return ((SinkInput *) data)->block != NULL;
}

static void
test_web_process_plays_through_it (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(JsonObject) outcome = NULL;
  g_autofree char *name_line = NULL;
  g_autofree char *clock_line = NULL;
  g_autofree char *slave_line = NULL;
  Progress progress = { repl, 1.0, 0 };
  SinkInput input = { NULL, 0 };
  SjTestRecording heard;

  if (g_getenv ("SJ_TEST_PULSE_SINK") == NULL)
    {
      g_test_skip ("no private PulseAudio (pulseaudio and pactl are needed)");
      return;
    }

  outcome = sj_test_evaluate (repl, CODE);
  g_assert_true (json_object_get_boolean_member (outcome, "ok"));
  sj_test_spin_until (sj_test_progressed, &progress, "playback to start");

  g_timeout_add (200, poll_sink_input, &input);
  sj_test_spin_until (sink_input_found, &input, "the web process's sink input");

  /* Through sjaudiosink, on the clock STRUDEL_JAM_AUDIO_SINK_CLOCK asks
   * for (by default a system clock at the sink's rate)... */
  g_assert_nonnull (strstr (input.block, "strudel-jam.sink = \"sjaudiosink\""));
  clock_line = g_strdup_printf ("strudel-jam.clock = \"%s\"",
                                g_getenv ("STRUDEL_JAM_AUDIO_SINK_CLOCK") != NULL
                                ? g_getenv ("STRUDEL_JAM_AUDIO_SINK_CLOCK") : "follow");
  g_assert_nonnull (strstr (input.block, clock_line));
  /* ...moving its playout point only for a skew that lasts
   * (sj-skew-guard.c), on WebKit's 100 ms of buffer. */
  slave_line = g_strdup_printf ("strudel-jam.slave = \"%s\"",
                                g_strcmp0 (g_getenv ("STRUDEL_JAM_AUDIO_SINK_CLOCK"), "system") == 0
                                ? "skew" : "guarded");
  g_assert_nonnull (strstr (input.block, slave_line));
  g_assert_nonnull (strstr (input.block, "strudel-jam.buffer-ms = \"100\""));
  /* ...and still the app's stream, as the recorder finds it. */
  name_line = g_strdup_printf ("application.name = \"%s\"", g_get_application_name ());
  g_test_message ("%s", input.block);
  g_assert_nonnull (strstr (input.block, name_line));

  /* What it plays arrives: an A at -10 dBFS, far above the null sink's
   * silence. */
  heard = sj_test_record_sink (2.0, 0.5);
  g_test_message ("heard %.1f s, rms %.1f dBFS, peak %.1f dBFS", heard.seconds, heard.rms_db, heard.peak_db);
  g_assert_cmpfloat (heard.rms_db, >, -30.0);
  g_assert_cmpuint (heard.full_scale, ==, 0);

  g_action_group_activate_action (G_ACTION_GROUP (window), "stop", NULL);
  sj_test_spin_until (sj_test_stopped, repl, "playback to stop");
  g_free (input.block);
}

/* The plugin's folder goes first on GST_PLUGIN_PATH, once, before what the
 * user had there; STRUDEL_JAM_AUDIO_SINK=system leaves the path alone. */
static void
test_plugin_path (void)
{
  g_autofree char *saved = g_strdup (g_getenv ("GST_PLUGIN_PATH"));
  g_autofree char *expected = g_strdup_printf ("%s" G_SEARCHPATH_SEPARATOR_S "/elsewhere", SJ_GST_PLUGIN_BUILD_DIR);

  g_setenv ("GST_PLUGIN_PATH", "/elsewhere", TRUE);
  sj_application_prepare_env ();
  /* The test runs from the build tree: the plugin just built. */
  g_assert_cmpstr (g_getenv ("GST_PLUGIN_PATH"), ==, expected);
  sj_application_prepare_env ();
  g_assert_cmpstr (g_getenv ("GST_PLUGIN_PATH"), ==, expected);
  g_assert_true (g_file_test (SJ_GST_PLUGIN_BUILD_DIR "/libgstsjaudiosink.so", G_FILE_TEST_EXISTS));

  g_unsetenv ("GST_PLUGIN_PATH");
  g_setenv ("STRUDEL_JAM_AUDIO_SINK", "system", TRUE);
  sj_application_prepare_env ();
  g_assert_null (g_getenv ("GST_PLUGIN_PATH"));
  g_unsetenv ("STRUDEL_JAM_AUDIO_SINK");

  if (saved != NULL)
    g_setenv ("GST_PLUGIN_PATH", saved, TRUE);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int ret;

  home = sj_test_app_init ();
  g_test_init (&argc, &argv, NULL);
  sj_test_app_start ();

  g_test_add_func ("/audio-sink/web-process-plays-through-it", test_web_process_plays_through_it);
  g_test_add_func ("/audio-sink/plugin-path", test_plugin_path);

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
