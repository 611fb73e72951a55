/* test-dry-run-fidelity.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The dry-run against the real page: every example of the bundled reference
 * (the reference tab's entries: a name not starting with "_" and a
 * description; the hardware examples upstream skips left out) is evaluated
 * by the page's own REPL in the real window, and dry-run for 4 cycles; both
 * list their haps as upstream's snapshot test prints them (hap.show(true),
 * sorted by part).  They must agree: same haps, or both reject the code.
 *
 * The whole comparison goes to dryrun-fidelity.json in SJ_TEST_OUTPUT_DIR.
 */

#include "config.h"

#include <string.h>

#include "sj-dry-run.h"
#include "sj-test-app.h"
#include "sj-window-private.h"

/* Upstream's examples test skips these (motion sensors, gamepad, MIDI). */
static const char * const hardware[] = {
  "absoluteOrientationGamma", "absoluteOrientationBeta", "absoluteOrientationAlpha",
  "orientationGamma", "orientationBeta", "orientationAlpha", "rotationGamma", "rotationBeta",
  "rotationAlpha", "gravityZ", "gravityY", "gravityX", "accelerationZ", "accelerationY",
  "accelerationX", "vibrate", "vibGamepadIndex", "vibGamepadId", "vibEnable", "vibWeak",
  "vibStrong", "vibDuration", "vibIntensity", "defaultmidimap", "midimaps", "bmod", NULL,
};

/* The test machine is offline: a sample map the code loads cannot be
 * fetched (the app says "The sample map https://… could not be loaded…" or
 * "… is not downloaded and the app is offline…"; superdough itself says
 * "error loading …"), and the page's evaluation fails on it. Such an
 * example is compared again with samples() shadowed inside the code (a
 * local const in the REPL's async wrapper, so the page's own function
 * stays untouched): the haps do not depend on the samples' audio. */
#define OFFLINE_PREFIX "const samples = () => Promise.resolve();\n"

typedef struct
{
  guint match;        /* same haps */
  guint offline;      /* same haps once the page skips loading samples */
  guint both_reject;  /* the page fails and the dry-run rejects */
  guint stateful;     /* both play it, the notes depend on what was queried before */
  GPtrArray *differ;  /* of char*: "name#i: …" */
} Tally;

/* The page names its inline widgets after the editor's random id
 * ("a1b2_widget__scope_0", in the analyze control of ._scope()); the
 * dry-run has no editor ("_widget__scope_0"). */
static char *
normalise (const char *hap)
{
  static GRegex *widget_id;

  if (widget_id == NULL)
    widget_id = g_regex_new ("[0-9a-z]+_widget_", G_REGEX_OPTIMIZE, 0, NULL);
  return g_regex_replace_literal (widget_id, hap, -1, 0, "_widget_", 0, NULL);
}

static gboolean
same_haps (JsonArray *page,
           JsonArray *dry,
           guint     *first_difference)
{
  guint n = MIN (json_array_get_length (page), json_array_get_length (dry));
  guint i;

  for (i = 0; i < n; i++)
    {
      g_autofree char *a = normalise (json_array_get_string_element (page, i));
      g_autofree char *b = normalise (json_array_get_string_element (dry, i));

      if (g_strcmp0 (a, b) != 0)
        break;
    }
  *first_difference = i;
  return i == n && json_array_get_length (page) == json_array_get_length (dry);
}

static JsonObject *
load_docs (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_file (parser, SJ_DOC_JSON, &error));
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static gboolean
wanted (JsonObject *doc)
{
  const char *name = json_object_get_string_member_with_default (doc, "name", NULL);
  const char *description = json_object_get_string_member_with_default (doc, "description", NULL);

  return name != NULL && name[0] != '_' && description != NULL && description[0] != '\0' &&
         !g_strv_contains (hardware, name) && json_object_has_member (doc, "examples");
}

static gboolean
loads_no_map (const char *message)
{
  return g_str_has_prefix (message, "error loading \"http") || g_str_has_prefix (message, "The sample map http");
}

static void
compare_example (SjRepl     *repl,
                 SjDryRun   *dry_run,
                 const char *label,
                 const char *code,
                 Tally      *tally,
                 JsonArray  *report)
{
  g_autoptr(JsonObject) reset = NULL;
  g_autoptr(JsonObject) outcome = NULL;
  g_autoptr(JsonNode) shown = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *entry = json_object_new ();
  gboolean page_ok, dry_ok;
  gboolean offline = FALSE;
  guint first = 0;

  /* Each example starts from the default tempo, as each dry-run does. */
  reset = sj_test_evaluate (repl, "setcps(0.5)");
  outcome = sj_test_evaluate (repl, code);
  page_ok = json_object_get_boolean_member (outcome, "ok");
  if (!page_ok && loads_no_map (json_object_get_string_member (json_object_get_object_member (outcome, "error"), "message")))
    {
      g_autofree char *offline_code = g_strconcat (OFFLINE_PREFIX, code, NULL);

      g_clear_pointer (&outcome, json_object_unref);
      outcome = sj_test_evaluate (repl, offline_code);
      page_ok = json_object_get_boolean_member (outcome, "ok");
      offline = page_ok;
    }
  if (page_ok)
    {
      shown = sj_test_call_js (repl, "return sjBridge.queryShow(0, 4)");
      g_assert_true (JSON_NODE_HOLDS_ARRAY (shown));
    }

  answer = sj_dry_run_run_sync (dry_run, code, 4, 2000, SJ_DRY_RUN_FLAGS_HAPS, NULL, &error);
  g_assert_no_error (error);
  dry_ok = json_object_get_boolean_member (answer, "ok");

  json_object_set_string_member (entry, "example", label);
  if (page_ok && dry_ok && same_haps (json_node_get_array (shown), json_object_get_array_member (answer, "haps"), &first))
    {
      if (offline)
        tally->offline++;
      else
        tally->match++;
      json_object_set_string_member (entry, "result", offline ? "match-offline" : "match");
    }
  else if (!page_ok && !dry_ok)
    {
      JsonObject *error_info = json_object_get_object_member (outcome, "error");

      tally->both_reject++;
      json_object_set_string_member (entry, "result", "both-reject");
      json_object_set_string_member (entry, "page", error_info != NULL ? json_object_get_string_member (error_info, "message") : "");
      json_object_set_string_member (entry, "dryRun", json_object_get_string_member (answer, "message"));
    }
  else if (page_ok && dry_ok && strstr (code, "voicings(") != NULL)
    {
      /* @strudel/tonal's voice leading keeps the last voicing in a module
       * global (`let lastVoicing`, "has to be global until another
       * solution is found"): the page's notes depend on every query before
       * this one, the playing scheduler's included, so they cannot be
       * compared note for note. Both playing it is what is checked. */
      tally->stateful++;
      json_object_set_string_member (entry, "result", "stateful");
      g_test_message ("%s: voice leading depends on earlier queries (upstream's global lastVoicing); both play it", label);
    }
  else
    {
      g_autofree char *what = NULL;

      json_object_set_string_member (entry, "result", "differ");
      if (page_ok && dry_ok)
        {
          JsonArray *page = json_node_get_array (shown);
          JsonArray *dry = json_object_get_array_member (answer, "haps");

          what = g_strdup_printf ("%s: hap %u of %u/%u: page %s, dry-run %s", label, first,
                                  json_array_get_length (page), json_array_get_length (dry),
                                  first < json_array_get_length (page) ? json_array_get_string_element (page, first) : "(none)",
                                  first < json_array_get_length (dry) ? json_array_get_string_element (dry, first) : "(none)");
        }
      else if (page_ok)
        what = g_strdup_printf ("%s: the page plays it, the dry-run rejects it (%s: %s)", label,
                                json_object_get_string_member (answer, "phase"),
                                json_object_get_string_member (answer, "message"));
      else
        {
          JsonObject *error_info = json_object_get_object_member (outcome, "error");

          what = g_strdup_printf ("%s: the page fails (%s), the dry-run accepts it", label,
                                  error_info != NULL ? json_object_get_string_member (error_info, "message") : "?");
        }
      json_object_set_string_member (entry, "detail", what);
      g_ptr_array_add (tally->differ, g_steal_pointer (&what));
    }
  json_array_add_object_element (report, entry);
}

static void
write_report (JsonArray  *examples,
              Tally      *tally)
{
  const char *dir = g_getenv ("SJ_TEST_OUTPUT_DIR");
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonObject) root = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *path = NULL;

  json_object_set_int_member (root, "match", tally->match);
  json_object_set_int_member (root, "matchOffline", tally->offline);
  json_object_set_int_member (root, "bothReject", tally->both_reject);
  json_object_set_int_member (root, "differ", tally->differ->len);
  json_object_set_int_member (root, "stateful", tally->stateful);
  json_object_set_array_member (root, "examples", json_array_ref (examples));
  node = json_node_init_object (json_node_alloc (), root);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_root (generator, node);
  path = g_build_filename (dir != NULL ? dir : g_get_tmp_dir (), "dryrun-fidelity.json", NULL);
  g_assert_true (json_generator_to_file (generator, path, NULL));
  g_test_message ("Comparison written to %s", path);
}

static void
test_examples_match_the_page (void)
{
  SjWindow *window = sj_test_open_window ();
  SjRepl *repl = _sj_window_get_repl (window);
  g_autoptr(SjDryRun) dry_run = sj_dry_run_new ();
  g_autoptr(JsonObject) docs = load_docs ();
  g_autoptr(JsonArray) report = json_array_new ();
  JsonArray *entries = json_object_get_array_member (docs, "docs");
  Tally tally = { 0, 0, 0, 0, g_ptr_array_new_with_free_func (g_free) };
  guint compared = 0;

  for (guint i = 0; i < json_array_get_length (entries); i++)
    {
      JsonObject *doc = json_array_get_object_element (entries, i);
      JsonArray *examples;

      if (!wanted (doc))
        continue;
      examples = json_object_get_array_member (doc, "examples");
      for (guint e = 0; e < json_array_get_length (examples); e++)
        {
          g_autofree char *label = g_strdup_printf ("%s#%u", json_object_get_string_member (doc, "name"), e);

          compare_example (repl, dry_run, label, json_array_get_string_element (examples, e), &tally, report);
          compared++;
        }
    }

  write_report (report, &tally);
  for (guint i = 0; i < tally.differ->len; i++)
    g_test_message ("%s", (char *) tally.differ->pdata[i]);
  g_test_message ("%u examples: %u give the page's haps exactly (%u more once the offline page skips "
                  "loading sample maps), %u are rejected by both, %u voice-led ones both play, %u differ",
                  compared, tally.match, tally.offline, tally.both_reject, tally.stateful, tally.differ->len);
  /* Only the voicings examples may be stateful: a handful. */
  g_assert_cmpuint (tally.stateful, <=, 5);

  g_assert_cmpuint (compared, >, 400);
  g_assert_cmpuint (tally.differ->len, ==, 0);
  g_ptr_array_unref (tally.differ);
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

  g_test_add_func ("/dry-run-fidelity/examples-match-the-page", test_examples_match_the_page);

  ret = g_test_run ();

  sj_test_app_stop ();
  sj_test_remove_tree (home);

  return ret;
}
