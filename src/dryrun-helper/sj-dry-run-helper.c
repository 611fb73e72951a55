/* sj-dry-run-helper.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * strudel-jam-dryrun: dry-runs Strudel code in an isolated process.  The
 * app (SjDryRun) keeps one running and talks JSON lines with it:
 *
 *   stdout, once warm   {"ready":true,"ms":…}
 *   stdin               {"id":N,"code":"…","cycles":K,"haps":false}
 *   stdout              {"id":N,"ok":true,"events":…,"sounds":[…],…}
 *                       {"id":N,"ok":false,"phase":"syntax|compile|runtime",…}
 *
 *   stdin               {"id":N,"userSamples":[{"id":"…","map":{…}},…]}
 *   stdout              {"id":N,"ok":true,"userSounds":[…]}
 *
 * The second kind registers the user's folders of samples as the page does
 * (replacing the ones before); they are kept, and every engine made after
 * gets them too.
 * A line that is not a valid request gets {"id":…,"ok":false,"phase":"input"}.
 * When the code changed the shared runtime, its answer carries
 * "restarting":true: the engine is rebuilt, and {"ready":true} comes again
 * before the next request is read (the app waits for it, so that the
 * rebuild does not count against the next request's timeout).
 * Code that loops forever blocks this process; the app then kills it, which
 * is why it is a process of its own.  It also dies with its parent, so that
 * a stuck helper never outlives the app.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef __linux__
#include <signal.h>
#include <sys/prctl.h>
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sj-dry-run-engine.h"
#include "sj-dry-run-memory.h"
#include "sj-dryrun-resources.h"
#include "sj-json.h"

/* The app sends at most 1 MiB of code; escaped as JSON that is at most six
 * times as many bytes.  Longer lines are refused without being kept. */
#define MAX_LINE_BYTES (8 * 1024 * 1024)
#define MAX_CYCLES 8
/* As many folders as the app takes, and room to spare. */
#define MAX_USER_PACKS 64

/* The user's folders of samples, as JSON: every new engine registers them. */
static char *user_samples;

/* A few dry-runs before announcing readiness, so that the first real one
 * does not pay for JavaScriptCore's JIT warming up. */
static const char warm_up_code[] =
  "setcpm(120/4)\n"
  "$: s(\"bd*2, ~ sd, hh*8\").bank(\"RolandTR909\").gain(.8)\n"
  "$: note(\"<c2 eb2 f2 g2>*2\").s(\"sawtooth\").lpf(sine.range(300, 2000).slow(4))\n"
  "$: n(\"0 2 4 <6 7>\").scale(\"C:minor\").s(\"triangle\").off(1/8, x => x.add(n(7))).room(.3)\n"
  "_$: s(\"cp*4\")\n";

static void
write_line (const char *json)
{
  sj_dry_run_write_line (json);
}

static void
write_input_error (JsonNode   *id,
                   const char *message)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  if (id != NULL)
    json_builder_add_value (builder, json_node_copy (id));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "ok");
  json_builder_add_boolean_value (builder, FALSE);
  json_builder_set_member_name (builder, "phase");
  json_builder_add_string_value (builder, "input");
  json_builder_set_member_name (builder, "message");
  json_builder_add_string_value (builder, message);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, NULL);
  write_line (text);
}

/* Reads one line without its newline.  Returns FALSE at the end of input;
 * *too_long tells that the line was longer than MAX_LINE_BYTES (and was
 * skipped). */
static gboolean
read_line (GString  *line,
           gboolean *too_long)
{
  int c;

  g_string_truncate (line, 0);
  *too_long = FALSE;

  while ((c = getc_unlocked (stdin)) != EOF && c != '\n')
    {
      if (line->len < MAX_LINE_BYTES)
        g_string_append_c (line, (char) c);
      else
        *too_long = TRUE;
    }

  return c != EOF || line->len > 0;
}

static SjDryRunEngine *
new_engine (GBytes  *script,
            GError **error)
{
  g_autoptr(SjDryRunEngine) engine = sj_dry_run_engine_new (script, error);

  if (engine == NULL)
    return NULL;

  for (int i = 0; i < 3; i++)
    g_free (sj_dry_run_engine_run (engine, -1, warm_up_code, 4, i == 0));

  return g_steal_pointer (&engine);
}

static char *
set_user_samples (SjDryRunEngine *engine,
                  JsonNode       *id,
                  JsonNode       *packs)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *answer = NULL;

  if (!JSON_NODE_HOLDS_ARRAY (packs) || json_array_get_length (json_node_get_array (packs)) > MAX_USER_PACKS)
    {
      write_input_error (id, "\"userSamples\" must be an array of at most 64 packs.");
      return NULL;
    }

  json_generator_set_root (generator, packs);
  g_free (user_samples);
  user_samples = json_generator_to_data (generator, NULL);
  answer = sj_dry_run_engine_set_user_samples (engine, user_samples);
  /* Packs the bundle refused are not given to the next engines. */
  if (!g_str_has_prefix (answer, "{\"ok\":true"))
    g_clear_pointer (&user_samples, g_free);

  /* The answer is an object: the id goes in front of its members. */
  return g_strdup_printf ("{\"id\":%" G_GINT64_FORMAT ",%s", json_node_get_int (id), answer + 1);
}

/* Returns: the answer, or NULL when an input error was written. */
static char *
handle_request (SjDryRunEngine *engine,
                const char     *line,
                gsize           length)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *request;
  JsonNode *id;
  JsonNode *code;
  JsonNode *cycles;
  JsonNode *haps;
  gint64 n_cycles = 4;

  if ((root = sj_json_parse (line, length, NULL, &error)) == NULL)
    {
      g_autofree char *message = g_strdup_printf ("The request is not JSON: %s", error->message);

      write_input_error (NULL, message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      write_input_error (NULL, "The request must be a JSON object.");
      return NULL;
    }

  request = json_node_get_object (root);
  id = json_object_get_member (request, "id");
  code = json_object_get_member (request, "code");
  cycles = json_object_get_member (request, "cycles");
  haps = json_object_get_member (request, "haps");

  if (id == NULL || json_node_get_value_type (id) != G_TYPE_INT64)
    {
      write_input_error (id, "\"id\" must be an integer.");
      return NULL;
    }
  if (json_object_has_member (request, "userSamples"))
    return set_user_samples (engine, id, json_object_get_member (request, "userSamples"));
  if (code == NULL || json_node_get_value_type (code) != G_TYPE_STRING)
    {
      write_input_error (id, "\"code\" must be a string.");
      return NULL;
    }
  if (cycles != NULL)
    {
      if (json_node_get_value_type (cycles) != G_TYPE_INT64 ||
          json_node_get_int (cycles) < 1 || json_node_get_int (cycles) > MAX_CYCLES)
        {
          write_input_error (id, "\"cycles\" must be an integer from 1 to 8.");
          return NULL;
        }
      n_cycles = json_node_get_int (cycles);
    }
  if (haps != NULL && json_node_get_value_type (haps) != G_TYPE_BOOLEAN)
    {
      write_input_error (id, "\"haps\" must be true or false.");
      return NULL;
    }

  {
    char *answer;

    /* Past its memory limit, the run is answered and the process ends. */
    sj_dry_run_memory_watch_begin (json_node_get_int (id));
    answer = sj_dry_run_engine_run (engine, json_node_get_int (id), json_node_get_string (code), (int) n_cycles,
                                    haps != NULL && json_node_get_boolean (haps));
    sj_dry_run_memory_watch_end ();
    return answer;
  }
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GBytes) script = NULL;
  g_autoptr(SjDryRunEngine) engine = NULL;
  g_autoptr(GString) line = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *ready = NULL;
  struct rlimit no_core = { 0, 0 };
  gint64 start = g_get_monotonic_time ();
  gboolean too_long;

  /* A stuck helper must not outlive the app, and a killed one leaves no
   * core file behind. */
#ifdef __linux__
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (getppid () == 1)
    return 1;
#endif
  setrlimit (RLIMIT_CORE, &no_core);

  if (argc > 1)
    {
      g_printerr ("Usage: strudel-jam-dryrun\n"
                  "Dry-runs Strudel code: one JSON request per line on stdin, one answer per line on stdout.\n");
      return 2;
    }

  sj_dryrun_register_resource ();
  script = g_resources_lookup_data ("/io/github/strudeljam/StrudelJam/dryrun/dryrun.js",
                                    G_RESOURCE_LOOKUP_FLAGS_NONE, &error);
  if (script == NULL || (engine = new_engine (script, &error)) == NULL)
    {
      g_printerr ("strudel-jam-dryrun: %s\n", error->message);
      return 1;
    }

  ready = g_strdup_printf ("{\"ready\":true,\"ms\":%.1f}", (g_get_monotonic_time () - start) / 1000.0);
  sj_dry_run_memory_watch_start ();
  write_line (ready);

  while (read_line (line, &too_long))
    {
      if (too_long)
        {
          write_input_error (NULL, "The request is longer than 8 MiB.");
          continue;
        }
      if (line->len == 0)
        continue;

      g_autofree char *answer = handle_request (engine, line->str, line->len);
      gboolean dirty;

      if (answer == NULL)
        continue;

      /* Code that changed the shared runtime gets a fresh engine for the
       * next request; its answer says so (the answer is an object: the
       * flag goes before its closing brace). */
      if ((dirty = sj_dry_run_engine_is_dirty (engine)))
        {
          g_autofree char *flagged = g_strndup (answer, strlen (answer) - 1);

          g_free (answer);
          answer = g_strconcat (flagged, ",\"restarting\":true}", NULL);
        }
      write_line (answer);

      if (dirty)
        {
          g_clear_object (&engine);
          start = g_get_monotonic_time ();
          if ((engine = new_engine (script, &error)) == NULL)
            {
              g_printerr ("strudel-jam-dryrun: %s\n", error->message);
              return 1;
            }
          if (user_samples != NULL)
            g_free (sj_dry_run_engine_set_user_samples (engine, user_samples));
          g_free (ready);
          ready = g_strdup_printf ("{\"ready\":true,\"ms\":%.1f}", (g_get_monotonic_time () - start) / 1000.0);
          write_line (ready);
        }
    }

  return 0;
}
