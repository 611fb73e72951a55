/* test-dry-run.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The dry-run (SjDryRun, strudel-jam-dryrun and sj_dry_run_report) without a
 * display: every way code is rejected, with positions; endless code stopped
 * on time and the helper restarted; cancellation and the order of the
 * queue; input limits; what a dry-run records (tempo, samples, labels,
 * banks); unknown sounds with suggestions; the helper's own protocol.
 */

#include "config.h"

#include <math.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "sj-dry-run-private.h"
#include "sj-dry-run-process.h"
#include "sj-dry-run-report-private.h"
#include "sj-sound-library.h"
#include "sj-knowledge.h"
#include "sj-test-files.h"

/* The helper's limit (src/dryrun-helper/sj-dry-run-memory.h), four times
 * larger under AddressSanitizer, whose shadow memory is resident too. */
#if defined(__SANITIZE_ADDRESS__)
# define SJ_TEST_DRY_RUN_MAX_RSS_MIB 1024
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define SJ_TEST_DRY_RUN_MAX_RSS_MIB 1024
# endif
#endif
#ifdef SJ_TEST_DRY_RUN_MAX_RSS_MIB
# define SJ_TEST_UNDER_ASAN 1
#else
# define SJ_TEST_DRY_RUN_MAX_RSS_MIB 256
#endif

static SjDryRun *dry_run;
static SjKnowledge *knowledge;

/* A @timeout_ms of 0 is a generous one, not the app's 500 ms: what these
 * cases check is the answer, and a loaded CI machine took longer than
 * 500 ms over five layers. The timeout cases give theirs. */
static JsonObject *
run (const char *code,
     guint       cycles,
     guint       timeout_ms)
{
  g_autoptr(GError) error = NULL;
  JsonObject *answer = sj_dry_run_run_sync (dry_run, code, cycles, timeout_ms != 0 ? timeout_ms : 20000,
                                            SJ_DRY_RUN_FLAGS_NONE, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (answer);
  return answer;
}

static const char *
phase_of (JsonObject *answer)
{
  return json_object_get_string_member_with_default (answer, "phase", "");
}

static gboolean
array_has_string (JsonArray  *array,
                  const char *value)
{
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    if (g_strcmp0 (json_array_get_string_element (array, i), value) == 0)
      return TRUE;
  return FALSE;
}

static JsonObject *
find_named (JsonArray  *array,
            const char *name)
{
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *object = json_array_get_object_element (array, i);

      if (g_strcmp0 (json_object_get_string_member (object, "name"), name) == 0)
        return object;
    }
  return NULL;
}

static void
assert_position (JsonObject *object,
                 gint64      line,
                 gint64      column)
{
  g_assert_cmpint (json_object_get_int_member (object, "line"), ==, line);
  g_assert_cmpint (json_object_get_int_member (object, "column"), ==, column);
}

static void
test_ok (void)
{
  g_autoptr(JsonObject) answer = run ("note(\"c e g\").s(\"piano\")", 4, 0);

  g_assert_true (json_object_get_boolean_member (answer, "ok"));
  g_assert_cmpint (json_object_get_int_member (answer, "events"), ==, 12);
  g_assert_true (array_has_string (json_object_get_array_member (answer, "sounds"), "piano"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (answer, "sounds")), ==, 1);
  g_assert_false (json_object_has_member (answer, "haps"));
}

static void
test_haps (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = sj_dry_run_run_sync (dry_run, "note(\"c [e g]\")", 1, 0,
                                                      SJ_DRY_RUN_FLAGS_HAPS, NULL, &error);
  JsonArray *haps;

  g_assert_no_error (error);
  haps = json_object_get_array_member (answer, "haps");
  g_assert_cmpuint (json_array_get_length (haps), ==, 3);
  g_assert_cmpstr (json_array_get_string_element (haps, 0), ==, "[ 0/1 → 1/2 | note:c ]");
  g_assert_cmpstr (json_array_get_string_element (haps, 2), ==, "[ 3/4 → 1/1 | note:g ]");
}

static void
test_syntax (void)
{
  g_autoptr(JsonObject) answer = run ("note(\"c e\")\n  .fast(2))", 1, 0);

  g_assert_false (json_object_get_boolean_member (answer, "ok"));
  g_assert_cmpstr (phase_of (answer), ==, "syntax");
  assert_position (answer, 2, 11);
  g_assert_nonnull (strstr (json_object_get_string_member (answer, "message"), "Unexpected token"));
}

static void
test_compile_unknown_symbols (void)
{
  g_autoptr(JsonObject) answer = run ("note(\"c e\").fastt(2).roomy(.3)\n"
                                      "const lfo = sine.range(200, 800)\n"
                                      "foo(1)\n", 1, 0);
  g_autoptr(JsonObject) report = NULL;
  JsonArray *symbols;
  JsonObject *symbol;

  g_assert_cmpstr (phase_of (answer), ==, "compile");
  assert_position (answer, 1, 13);

  report = sj_dry_run_report (answer, knowledge);
  symbols = json_object_get_array_member (report, "unknownSymbols");
  g_assert_cmpuint (json_array_get_length (symbols), ==, 3);

  symbol = find_named (symbols, "fastt");
  g_assert_cmpstr (json_object_get_string_member (symbol, "kind"), ==, "method");
  assert_position (symbol, 1, 13);
  g_assert_true (array_has_string (json_object_get_array_member (symbol, "suggestions"), "fast"));

  symbol = find_named (symbols, "roomy");
  g_assert_cmpstr (json_object_get_string_member (symbol, "kind"), ==, "method");
  assert_position (symbol, 1, 22);
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (symbol, "suggestions"), 0), ==, "room");

  symbol = find_named (symbols, "foo");
  g_assert_cmpstr (json_object_get_string_member (symbol, "kind"), ==, "global");
  assert_position (symbol, 3, 1);

  /* The report is a copy: the raw answer has no suggestions. */
  symbol = find_named (json_object_get_array_member (answer, "unknownSymbols"), "fastt");
  g_assert_false (json_object_has_member (symbol, "suggestions"));
}

/* Names the code declares, JavaScript's own methods and the page's
 * functions (webaudio, draw, the editor) are not unknown. */
static void
test_compile_known_names (void)
{
  g_autoptr(JsonObject) answer = run ("const scale2 = (p) => p.fast(2)\n"
                                      "let xs = [1, 2, 3].map(x => x * 2).join(' ')\n"
                                      "const t = Math.floor(2.5) + 'ab'.toUpperCase().length\n"
                                      "register('wobble', (x, pat) => pat.lpf(x))\n"
                                      "samples({ kick: ['k.wav'] }, 'https://example.org/')\n"
                                      "$: scale2(note(\"c e\")).wobble(800).s(\"sawtooth\").pianoroll()._scope()\n"
                                      "$: s(\"hh*4\").color('red').gain(slider(0.5, 0, 1))\n", 1, 0);

  g_assert_true (json_object_get_boolean_member (answer, "ok"));
  g_assert_cmpint (json_object_get_int_member (answer, "events"), ==, 8);
}

static void
test_compile_mini (void)
{
  g_autoptr(JsonObject) answer = run ("$: s(\"bd sd\")\n"
                                      "$: note(\"c [e g\").s(\"piano\")\n"
                                      "$: s(\"hh <oh\")\n", 1, 0);
  JsonArray *errors;
  JsonObject *error;

  g_assert_cmpstr (phase_of (answer), ==, "compile");
  errors = json_object_get_array_member (answer, "miniErrors");
  g_assert_cmpuint (json_array_get_length (errors), ==, 2);

  /* The closing quote, where krill expected "]": line 2, column 16. */
  error = json_array_get_object_element (errors, 0);
  assert_position (error, 2, 16);
  assert_position (answer, 2, 16);
  error = json_array_get_object_element (errors, 1);
  assert_position (error, 3, 13);
}

static void
test_runtime (void)
{
  g_autoptr(JsonObject) answer = run ("note(\"c\").fast(undefined.x)", 1, 0);
  g_autoptr(JsonObject) recursion = NULL;
  g_autoptr(JsonObject) never = NULL;

  g_autoptr(JsonObject) placed = run ("const x = undefined;\n$: note(\"c3\").s(\"sine\").gain(x.y)", 1, 0);

  g_assert_cmpstr (phase_of (answer), ==, "runtime");
  g_assert_cmpstr (json_object_get_string_member (answer, "error"), ==, "TypeError");

  /* The failing expression JavaScriptCore quotes is found in the user's
   * code: the position is the user's, not the transpiled code's. */
  g_assert_cmpstr (phase_of (placed), ==, "runtime");
  g_assert_cmpint (json_object_get_int_member (placed, "line"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (placed, "column"), ==, 30);

  /* Recursion without end overflows the stack, which JavaScriptCore turns
   * into a RangeError: an answer, not a crash. */
  recursion = run ("const f = (n) => f(n + 1) + 1\nf(0)", 1, 0);
  g_assert_cmpstr (phase_of (recursion), ==, "runtime");
  g_assert_cmpstr (json_object_get_string_member (recursion, "error"), ==, "RangeError");

  never = run ("await new Promise(() => {})\ns(\"bd\")", 1, 0);
  g_assert_cmpstr (phase_of (never), ==, "runtime");
  g_assert_nonnull (strstr (json_object_get_string_member (never, "message"), "never finished"));
}

static void
assert_timeout_then_recovers (const char *code)
{
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonObject) next = NULL;
  guint starts;
  gint64 start, elapsed_ms;

  /* A warm helper, so that the time measured is the request's. */
  g_clear_pointer (&answer, json_object_unref);
  answer = run ("s(\"bd\")", 1, 0);
  starts = _sj_dry_run_get_n_starts (dry_run);

  start = g_get_monotonic_time ();
  g_clear_pointer (&answer, json_object_unref);
  answer = run (code, 1, 300);
  elapsed_ms = (g_get_monotonic_time () - start) / 1000;

  g_assert_cmpstr (phase_of (answer), ==, "timeout");
  g_assert_cmpint (json_object_get_int_member (answer, "timeoutMs"), ==, 300);
  /* The code never ends: any answer proves the helper was stopped. The
   * bound is loose because a loaded CI machine may be slow to kill and
   * reap the helper; the deadline's own precision is bench material. */
  g_assert_cmpint (elapsed_ms, >=, 300);
  g_assert_cmpint (elapsed_ms, <, 3000);
  g_assert_cmpuint (_sj_dry_run_get_n_starts (dry_run), ==, starts + 1);

  next = run ("s(\"bd*2\")", 1, 0);
  g_assert_true (json_object_get_boolean_member (next, "ok"));
  g_assert_cmpint (json_object_get_int_member (next, "events"), ==, 2);
}

static gpointer
continue_later (gpointer data)
{
  /* The machine gives the helper a core again after 600 ms. */
  g_usleep (600 * 1000);
  kill (GPOINTER_TO_INT (data), SIGCONT);
  return NULL;
}

/* A machine too busy to give the helper a core for longer than the
 * timeout: the code itself is quick, so it is answered, not refused as an
 * endless loop (the timeout counts processor time). */
static void
test_timeout_busy_machine (void)
{
  g_autoptr(JsonObject) warm = run ("s(\"bd\")", 1, 0);
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GThread) thread = NULL;
  GPid pid = _sj_dry_run_get_helper_pid (dry_run);
  guint starts = _sj_dry_run_get_n_starts (dry_run);
  gint64 start;

  g_assert_cmpint (pid, >, 0);
  g_assert_cmpint (kill (pid, SIGSTOP), ==, 0);
  thread = g_thread_new ("continue", continue_later, GINT_TO_POINTER (pid));
  start = g_get_monotonic_time ();
  answer = run ("s(\"bd sd\")", 1, 300);
  g_thread_join (g_steal_pointer (&thread));

  g_assert_cmpint (g_get_monotonic_time () - start, >=, 600 * 1000);
  g_assert_true (json_object_get_boolean_member (answer, "ok"));
  g_assert_cmpint (json_object_get_int_member (answer, "events"), ==, 2);
  g_assert_cmpuint (_sj_dry_run_get_n_starts (dry_run), ==, starts);
}

static void
test_timeout_loop (void)
{
  assert_timeout_then_recovers ("while (true) {}\ns(\"bd\")");
}

static void
test_timeout_recursion (void)
{
  /* Deep and exponential: 2^60 calls never finish. */
  assert_timeout_then_recovers ("const f = (n) => n > 0 ? f(n - 1) + f(n - 1) : 0\nf(60)\ns(\"bd\")");
}

static void
test_timeout_query (void)
{
  /* Evaluates at once; the query would make billions of events. */
  assert_timeout_then_recovers ("s(\"bd*1000000000\")");
}

typedef struct
{
  GPtrArray *order;
  guint      pending;
} Collect;

typedef struct
{
  Collect *collect;
  char    *label;
} Call;

static void
on_collected (GObject      *source,
              GAsyncResult *result,
              gpointer      data)
{
  Call *call = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = sj_dry_run_run_finish (SJ_DRY_RUN (source), result, &error);
  char *entry;

  if (answer == NULL)
    entry = g_strdup_printf ("%s:%s", call->label,
                             g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ? "cancelled" : error->message);
  else if (json_object_get_boolean_member (answer, "ok"))
    entry = g_strdup_printf ("%s:%" G_GINT64_FORMAT, call->label, json_object_get_int_member (answer, "events"));
  else
    entry = g_strdup_printf ("%s:%s", call->label, phase_of (answer));

  g_ptr_array_add (call->collect->order, entry);
  call->collect->pending--;
  g_free (call->label);
  g_free (call);
}

static void
submit (Collect      *collect,
        const char   *label,
        const char   *code,
        guint         timeout_ms,
        GCancellable *cancellable)
{
  Call *call = g_new0 (Call, 1);

  call->collect = collect;
  call->label = g_strdup (label);
  collect->pending++;
  sj_dry_run_run_async (dry_run, code, 1, timeout_ms, cancellable, on_collected, call);
}

static void
wait_for (Collect *collect)
{
  while (collect->pending > 0)
    g_main_context_iteration (NULL, TRUE);
}

static char *
joined (Collect *collect)
{
  g_ptr_array_add (collect->order, NULL);
  return g_strjoinv (" ", (char **) collect->order->pdata);
}

static void
test_queue_order (void)
{
  Collect collect = { g_ptr_array_new_with_free_func (g_free), 0 };
  g_autofree char *result = NULL;

  for (guint i = 1; i <= 10; i++)
    {
      g_autofree char *label = g_strdup_printf ("r%u", i);
      g_autofree char *code = g_strdup_printf ("s(\"bd*%u\")", i);

      submit (&collect, label, i == 5 ? "s(\"bd\").fast(" : code, 0, NULL);
    }
  wait_for (&collect);
  result = joined (&collect);
  g_assert_cmpstr (result, ==, "r1:1 r2:2 r3:3 r4:4 r5:syntax r6:6 r7:7 r8:8 r9:9 r10:10");
  g_ptr_array_unref (collect.order);
}

static int
compare_strings (const char **a,
                    const char **b)
{
  return g_strcmp0 (*a, *b);
}

static void
test_cancel (void)
{
  Collect collect = { g_ptr_array_new_with_free_func (g_free), 0 };
  g_autoptr(GCancellable) busy = g_cancellable_new ();
  g_autoptr(GCancellable) queued = g_cancellable_new ();
  g_autoptr(GCancellable) early = g_cancellable_new ();
  g_autofree char *result = NULL;
  gint64 start;

  g_cancellable_cancel (early);
  submit (&collect, "early", "s(\"bd\")", 0, early);

  /* In flight: answered "cancelled" at once; its answer (here a timeout)
   * is dropped and the queue goes on in order. */
  submit (&collect, "busy", "while (true) {}\ns(\"bd\")", 300, busy);
  submit (&collect, "queued", "s(\"bd*3\")", 0, queued);
  submit (&collect, "after", "s(\"bd*4\")", 0, NULL);

  start = g_get_monotonic_time ();
  g_cancellable_cancel (queued);
  g_cancellable_cancel (busy);
  while (collect.order->len < 3)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint ((g_get_monotonic_time () - start) / 1000, <, 100);

  /* The three cancelled ones come back at once, in any order; the next
   * request gets its own answer. */
  wait_for (&collect);
  g_assert_cmpuint (collect.order->len, ==, 4);
  g_assert_cmpstr (collect.order->pdata[3], ==, "after:4");
  g_ptr_array_set_size (collect.order, 3);
  g_ptr_array_sort (collect.order, (GCompareFunc) compare_strings);
  result = joined (&collect);
  g_assert_cmpstr (result, ==, "busy:cancelled early:cancelled queued:cancelled");
  g_ptr_array_unref (collect.order);
}

static void
assert_invalid (const char *code,
                guint       cycles,
                guint       timeout_ms)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = sj_dry_run_run_sync (dry_run, code, cycles, timeout_ms, SJ_DRY_RUN_FLAGS_NONE,
                                                      NULL, &error);
  g_autoptr(JsonObject) report = NULL;

  g_assert_null (answer);
  g_assert_error (error, SJ_DRY_RUN_ERROR, SJ_DRY_RUN_ERROR_INVALID_INPUT);
  report = sj_dry_run_report_error (error);
  g_assert_cmpstr (phase_of (report), ==, "input");
  g_assert_false (json_object_get_boolean_member (report, "ok"));
}

static void
test_input (void)
{
  g_autofree char *huge = g_malloc (SJ_DRY_RUN_MAX_CODE_BYTES + 2);
  g_autoptr(GString) big = g_string_new ("// ");
  g_autoptr(JsonObject) answer = NULL;

  assert_invalid ("s(\"bd\")", 0, 0);
  assert_invalid ("s(\"bd\")", 9, 0);
  assert_invalid ("s(\"bd\")", 1, SJ_DRY_RUN_MAX_TIMEOUT_MS + 1);
  assert_invalid ("s(\"\xff\")", 1, 0);

  memset (huge, 'x', SJ_DRY_RUN_MAX_CODE_BYTES + 1);
  huge[SJ_DRY_RUN_MAX_CODE_BYTES + 1] = '\0';
  assert_invalid (huge, 1, 0);

  /* Just under the limit, with quotes and newlines to escape: it runs. */
  while (big->len < SJ_DRY_RUN_MAX_CODE_BYTES - 100)
    g_string_append (big, "\"quoted\" \\ text\n// ");
  g_string_append (big, "\ns(\"bd sd\")");
  answer = run (big->str, 1, 2000);
  g_assert_true (json_object_get_boolean_member (answer, "ok"));
  g_assert_cmpint (json_object_get_int_member (answer, "events"), ==, 2);
}

static void
test_tempo_and_samples (void)
{
  g_autoptr(JsonObject) answer = run ("setcps(0.7)\n"
                                      "setcpm(120)\n"
                                      "samples('github:tidalcycles/dirt-samples')\n"
                                      "samples({ kick: ['kick.wav'] }, 'https://example.org/')\n"
                                      "s(\"kick\")", 1, 0);
  g_autoptr(JsonObject) report = NULL;
  JsonArray *tempo;
  JsonArray *samples;

  g_assert_true (json_object_get_boolean_member (answer, "ok"));
  tempo = json_object_get_array_member (answer, "tempo");
  g_assert_cmpuint (json_array_get_length (tempo), ==, 2);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (json_array_get_object_element (tempo, 0), "cps"), 0.7, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (json_array_get_object_element (tempo, 1), "cps"), 2.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (answer, "cps"), 2.0, 1e-9);

  samples = json_object_get_array_member (answer, "samples");
  g_assert_cmpuint (json_array_get_length (samples), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (samples, 0), "source"), ==,
                   "github:tidalcycles/dirt-samples");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (samples, 1), "base"), ==,
                   "https://example.org/");

  /* A sound the code's own sample map registers is not unknown. */
  report = sj_dry_run_report (answer, knowledge);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (report, "unknownSounds")), ==, 0);

  /* Every dry-run starts from the default tempo. */
  g_clear_pointer (&answer, json_object_unref);
  answer = run ("s(\"bd\")", 1, 0);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (answer, "cps"), 0.5, 1e-9);
}

/* Where a sample map named by a string would be fetched from, as the page
 * resolves it (remote.mjs, superdough's rules). */
static void
test_remote_map_addresses (void)
{
  g_autoptr(JsonObject) answer = run ("samples('github:user/repo')\n"
                                      "samples('github:user/repo/dev/kits')\n"
                                      "samples('bubo:waveforms')\n"
                                      "samples('shabda:bass:4')\n"
                                      "samples('https://host.test/strudel.json')\n"
                                      "samples('not-a-url.json')\n"
                                      "s(\"bd\")", 1, 0);
  const char *expected[] = {
    "https://raw.githubusercontent.com/user/repo/main/strudel.json",
    "https://raw.githubusercontent.com/user/repo/dev/kits/strudel.json",
    "https://raw.githubusercontent.com/Bubobubobubobubo/dough-waveforms/main/strudel.json",
    "https://shabda.ndre.gr/bass:4.json?strudel=1",
    "https://host.test/strudel.json",
    NULL,
  };
  JsonArray *samples = json_object_get_array_member (answer, "samples");

  g_assert_cmpuint (json_array_get_length (samples), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (json_object_get_string_member_with_default (json_array_get_object_element (samples, i), "url", NULL),
                     ==, expected[i]);
}

/* The sounds of a sample map the code loads from the network are
 * "loading" until the map has been fetched, then known (or unknown). */
static void
test_remote_map_sounds (void)
{
  const char *code = "samples('github:user/repo')\ns(\"rbd r_sd nosuch\")";
  g_autoptr(JsonObject) answer = run (code, 1, 0);
  g_autoptr(JsonObject) report = NULL;
  g_autoptr(JsonObject) known = NULL;
  g_autoptr(SjKnowledge) remote_knowledge = NULL;
  g_autoptr(SjSoundCache) cache = NULL;
  g_autoptr(SjRemoteSamples) remote = NULL;
  g_autoptr(GFile) directory = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("sj-dry-run-remote-XXXXXX", NULL);
  g_autofree char *map_dir = g_build_filename (dir, "https", "raw.githubusercontent.com", "user", "repo", "main", NULL);
  g_autofree char *map_file = g_build_filename (map_dir, "strudel.json", NULL);
  g_autofree char *index = g_build_filename (dir, ".index", NULL);
  g_autofree char *layout = g_build_filename (dir, ".layout", NULL);
  g_autoptr(JsonNode) answer_node = NULL;
  const char *text;
  JsonArray *loading;
  JsonArray *unknown;

  /* No map fetched (and nothing to ask): every sound it may register. */
  report = sj_dry_run_report (answer, knowledge);
  g_assert_true (_sj_dry_run_report_is_playable (report));
  loading = json_object_get_array_member (report, "loadingSounds");
  g_assert_cmpuint (json_array_get_length (loading), ==, 3);
  g_assert_true (array_has_string (loading, "rbd"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (report, "unknownSounds")), ==, 0);

  /* The map fetched before (in the cache and its index): its sounds are
   * known, a name it does not have is unknown. */
  g_assert_cmpint (g_mkdir_with_parents (map_dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (map_file, "{\"_base\": \"https://raw.githubusercontent.com/user/repo/main/\","
                                      " \"rbd\": [\"bd.wav\"], \"r sd\": \"sd.wav\"}", -1, NULL));
  g_assert_true (g_file_set_contents (index, "https://raw.githubusercontent.com/user/repo/main/strudel.json\n", -1, NULL));
  /* The cache's own layout (<scheme>/<host>/<path>, issue 28), so that
   * nothing is taken for a folder of the first layout and dropped. */
  g_assert_true (g_file_set_contents (layout, "2\n", -1, NULL));
  directory = g_file_new_for_path (dir);
  cache = sj_sound_cache_new (sj_sound_library_get_default (), directory);
  remote = sj_remote_samples_new (cache, directory);
  remote_knowledge = sj_knowledge_new (sj_reference_index_get_bundled (), sj_knowledge_get_sounds (knowledge));
  sj_knowledge_set_remote_samples (remote_knowledge, remote);

  known = sj_dry_run_report (answer, remote_knowledge);
  g_assert_false (_sj_dry_run_report_is_playable (known));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (known, "loadingSounds")), ==, 0);
  unknown = json_object_get_array_member (known, "unknownSounds");
  g_assert_cmpuint (json_array_get_length (unknown), ==, 1);
  g_assert_nonnull (find_named (unknown, "nosuch"));

  /* The knowledge names such a sound, and how to have it, though the page
   * has not registered it. */
  answer_node = sj_knowledge_query (remote_knowledge, "sounds:rbd");
  text = json_object_get_string_member (json_node_get_object (answer_node), "answer");
  g_assert_nonnull (strstr (text, "“rbd” is a sound of the sample map "
                                  "https://raw.githubusercontent.com/user/repo/main/strudel.json"));
  g_assert_nonnull (strstr (text, "it is downloaded when first played"));
  g_assert_true (array_has_string (json_object_get_array_member (json_node_get_object (answer_node), "suggestions"),
                                   "rbd"));

  sj_test_remove_tree (dir);
  g_assert_no_error (error);
}

static void
test_labels (void)
{
  g_autoptr(JsonObject) answer = run ("$: s(\"bd*2\")\n"
                                      "_$: s(\"hh*8\")\n"
                                      "$: note(\"c e\").s(\"sawtooth\")\n", 1, 0);
  g_autoptr(JsonObject) solo = NULL;
  g_autoptr(JsonObject) hushed = NULL;
  JsonArray *sounds;

  g_assert_cmpint (json_object_get_int_member (answer, "events"), ==, 4);
  sounds = json_object_get_array_member (answer, "sounds");
  g_assert_cmpuint (json_array_get_length (sounds), ==, 2);
  g_assert_false (array_has_string (sounds, "hh"));

  solo = run ("$: s(\"bd*2\")\nS$: s(\"sd*3\")\n", 1, 0);
  g_assert_cmpint (json_object_get_int_member (solo, "events"), ==, 3);

  hushed = run ("$: s(\"bd*2\")\nhush()\n$: s(\"cp\")\nall(x => x.fast(2))", 1, 0);
  g_assert_cmpint (json_object_get_int_member (hushed, "events"), ==, 2);
  g_assert_true (array_has_string (json_object_get_array_member (hushed, "sounds"), "cp"));
}

static void
test_banks_and_unknown_sounds (void)
{
  g_autoptr(JsonObject) answer = run ("$: s(\"bd sd:2\").bank(\"RolandTR808\")\n"
                                      "$: s(\"kik\")\n"
                                      "$: note(\"c\")\n", 1, 0);
  g_autoptr(JsonObject) report = NULL;
  JsonArray *sounds;
  JsonArray *unknown;
  JsonObject *kik;

  sounds = json_object_get_array_member (answer, "sounds");
  g_assert_true (array_has_string (sounds, "rolandtr808_bd"));
  g_assert_true (array_has_string (sounds, "rolandtr808_sd"));
  /* No s: superdough plays its default, the triangle. */
  g_assert_true (array_has_string (sounds, "triangle"));

  report = sj_dry_run_report (answer, knowledge);
  g_assert_true (json_object_get_boolean_member (report, "ok"));
  g_assert_false (_sj_dry_run_report_is_playable (report));
  unknown = json_object_get_array_member (report, "unknownSounds");
  g_assert_cmpuint (json_array_get_length (unknown), ==, 1);
  kik = find_named (unknown, "kik");
  g_assert_nonnull (kik);
  g_assert_true (json_array_get_length (json_object_get_array_member (kik, "suggestions")) > 0);
}

/* Which files the code plays: the library is registered in the helper as
 * in the page, and every use it reports resolves to the same file with
 * SjSoundLibrary (superdough's getSampleInfo() in JavaScript, ours in C). */
static void
test_sample_uses (void)
{
  g_autoptr(JsonObject) answer = run ("$: s(\"bd:3 sd bd:11 bd:-2.5\").bank(\"TR909\")\n"
                                      "$: note(\"c4 d4 64.5\").s(\"piano\")\n"
                                      "$: s(\"sawtooth casio:1 gm_piano\")\n"
                                      "$: s(\"hh*16\").n(run(16).sub(4).div(2))\n"
                                      "$: note(\"<a0 c8>\").n(\"<3 7>\").s(\"piano\")\n", 2, 0);
  g_autoptr(JsonObject) many = run ("note(run(600).mul(0.1)).s(\"piano\")", 1, 0);
  SjSoundLibrary *library = sj_sound_library_get_default ();
  JsonArray *uses = json_object_get_array_member (answer, "sampleUses");
  guint tr909_bd = 0, pianos = 0, soundfonts = 0;

  g_assert_nonnull (uses);
  g_assert_false (json_object_has_member (answer, "sampleUsesTruncated"));
  for (guint i = 0; i < json_array_get_length (uses); i++)
    {
      JsonObject *use = json_array_get_object_element (uses, i);
      const char *sound = json_object_get_string_member (use, "sound");
      double midi = json_object_has_member (use, "midi") ? json_object_get_double_member (use, "midi") : NAN;
      SjLibraryFile file;

      g_assert_cmpstr (sound, !=, "sawtooth");
      if (g_str_equal (sound, "gm_piano"))
        {
          /* A soundfont note names its font's file, as the page loads it. */
          g_assert_cmpstr (json_object_get_string_member (use, "pack"), ==, "soundfonts");
          g_assert_nonnull (sj_sound_library_lookup_file (library, "soundfonts", json_object_get_string_member (use, "path")));
          soundfonts++;
          continue;
        }
      g_assert_true (sj_sound_library_resolve (library, sound, json_object_get_int_member (use, "n"), midi, &file));
      g_assert_cmpstr (file.pack, ==, json_object_get_string_member (use, "pack"));
      g_assert_cmpstr (file.path, ==, json_object_get_string_member (use, "path"));
      tr909_bd += g_str_equal (sound, "tr909_bd");
      pianos += g_str_equal (sound, "piano");
    }

  /* bd:3 and bd:11 are one file of four; bd:-2.5 rounds to -2, the third. */
  g_assert_cmpuint (tr909_bd, ==, 2);
  g_assert_cmpuint (pianos, ==, 5);
  g_assert_cmpuint (soundfonts, ==, 1);
  /* tr909_bd, tr909_sd, five piano notes, casio:1, gm_piano's font and hh's
   * five files. */
  g_assert_cmpuint (json_array_get_length (uses), ==, 2 + 1 + 5 + 1 + 1 + 5);

  /* Many distinct uses are capped, and say so. */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (many, "sampleUses")), ==, 512);
  g_assert_true (json_object_get_boolean_member (many, "sampleUsesTruncated"));
}

/* Code that changes the shared runtime (a pattern method, a global) does
 * not leak into the next dry-run: the helper rebuilds its engine, and the
 * next request waits for that rather than spending its own timeout on it. */
static void
test_isolation (void)
{
  g_autoptr(JsonObject) first = run ("Pattern.prototype.fast = function () { return silence }\n"
                                     "globalThis.leaked = 1\ns(\"bd\")", 1, 0);
  guint starts = _sj_dry_run_get_n_starts (dry_run);
  g_autoptr(JsonObject) second = run ("s(\"bd\").fast(4)", 1, 100);
  g_autoptr(JsonObject) third = run ("globalThis.leaked === undefined ? s(\"bd*2\") : s(\"bd\")", 1, 100);

  g_assert_true (json_object_get_boolean_member (first, "ok"));
  g_assert_false (json_object_has_member (first, "restarting"));
  g_assert_cmpint (json_object_get_int_member (second, "events"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (third, "events"), ==, 2);
  g_assert_cmpuint (_sj_dry_run_get_n_starts (dry_run), ==, starts);
}

/* The helper process of this test, found among our children. */
static GPid
find_helper_pid (void)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (proc != NULL && (name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *stat_path = g_build_filename ("/proc", name, "stat", NULL);
      g_autofree char *stat = NULL;
      g_auto(GStrv) fields = NULL;
      const char *end;

      if (!g_ascii_isdigit (name[0]) || !g_file_get_contents (stat_path, &stat, NULL, NULL))
        continue;
      /* pid (comm) state ppid …; comm may hold spaces, so split after ")". */
      if ((end = strrchr (stat, ')')) == NULL || strstr (stat, "(strudel-jam-dry") == NULL)
        continue;
      fields = g_strsplit (end + 2, " ", 3);
      if (fields[1] != NULL && atoi (fields[1]) == getpid ())
        return atoi (name);
    }
  return 0;
}

static gboolean
kill_helper_cb (gpointer data)
{
  GPid pid = find_helper_pid ();

  g_assert_cmpint (pid, >, 0);
  kill (pid, SIGKILL);
  return G_SOURCE_REMOVE;
}

/* A helper that dies in the middle of a dry-run: that request is answered
 * at once (not after its timeout), and the next one runs on a new helper. */
static void
test_helper_crash (void)
{
  g_autoptr(JsonObject) warm = run ("s(\"bd\")", 1, 0);
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonObject) next = NULL;
  guint starts = _sj_dry_run_get_n_starts (dry_run);
  gint64 start = g_get_monotonic_time ();

  g_timeout_add (200, kill_helper_cb, NULL);
  answer = run ("while (true) {}\ns(\"bd\")", 1, 10000);
  g_assert_cmpint ((g_get_monotonic_time () - start) / 1000, <, 2000);
  g_assert_cmpstr (phase_of (answer), ==, "runtime");
  g_assert_true (json_object_get_boolean_member (answer, "crashed"));
  g_assert_cmpuint (_sj_dry_run_get_n_starts (dry_run), ==, starts + 1);

  next = run ("s(\"bd*3\")", 1, 0);
  g_assert_cmpint (json_object_get_int_member (next, "events"), ==, 3);
}

static guint64 peak_rss_kib;

static gboolean
sample_rss_cb (gpointer data)
{
  GPid pid = find_helper_pid ();
  g_autofree char *path = NULL;
  g_autofree char *status = NULL;
  const char *rss;

  if (pid <= 0)
    return G_SOURCE_CONTINUE;
  path = g_strdup_printf ("/proc/%d/status", pid);
  if (g_file_get_contents (path, &status, NULL, NULL) && (rss = strstr (status, "VmRSS:")) != NULL)
    peak_rss_kib = MAX (peak_rss_kib, g_ascii_strtoull (rss + 6, NULL, 10));
  return G_SOURCE_CONTINUE;
}

/* Code that takes memory without end is stopped at the helper's limit with
 * an answer that says so (not after its timeout, and long before half a
 * gigabyte), and the next dry-run works on a new helper. */
static void
test_memory_limit (void)
{
  const char * const hungry[] = {
    "const a = new Array(6e7).fill(1)\ns(\"bd\")",
    "const a = new Array(6e7)\ns(\"bd\")",
  };
  g_autoptr(JsonObject) doubling = NULL;
  g_autoptr(JsonObject) after = NULL;

#ifdef SJ_TEST_UNDER_ASAN
  /* What is resident, and so where the limit falls, is AddressSanitizer's
   * here; the normal build tests the limit. */
  g_test_skip ("the memory limit is tested in the build without AddressSanitizer");
  return;
#endif

  for (guint i = 0; i < G_N_ELEMENTS (hungry); i++)
    {
      g_autoptr(JsonObject) warm = run ("s(\"bd\")", 1, 0);
      g_autoptr(JsonObject) answer = NULL;
      g_autoptr(JsonObject) next = NULL;
      guint starts = _sj_dry_run_get_n_starts (dry_run);
      guint sampler;

      peak_rss_kib = 0;
      sampler = g_timeout_add (2, sample_rss_cb, NULL);
      /* A timeout long enough for a loaded machine: the limit answers. */
      answer = run (hungry[i], 1, 30000);
      g_source_remove (sampler);

      g_assert_cmpstr (phase_of (answer), ==, "runtime");
      g_assert_true (json_object_get_boolean_member_with_default (answer, "outOfMemory", FALSE));
      g_assert_cmpstr (json_object_get_string_member (answer, "error"), ==, "OutOfMemory");
      g_assert_nonnull (strstr (json_object_get_string_member (answer, "message"), "256 MiB"));
      g_test_message ("hungry code %u: stopped at a peak RSS of %" G_GUINT64_FORMAT " KiB", i, peak_rss_kib);
      g_assert_cmpuint (peak_rss_kib, >, 0);
      g_assert_cmpuint (peak_rss_kib, <, (SJ_TEST_DRY_RUN_MAX_RSS_MIB + 32) * 1024);

      next = run ("s(\"bd*3\")", 1, 0);
      g_assert_cmpint (json_object_get_int_member (next, "events"), ==, 3);
      g_assert_cmpuint (_sj_dry_run_get_n_starts (dry_run), ==, starts + 1);
    }

  /* Strings doubled without end: JavaScriptCore's own RangeError. */
  doubling = run ("let x = \"ab\"\nfor (let i = 0; i < 40; i++) x = x + x\ns(\"bd\")", 1, 30000);
  g_assert_cmpstr (phase_of (doubling), ==, "runtime");
  g_assert_nonnull (strstr (json_object_get_string_member (doubling, "message"), "memory"));
  after = run ("s(\"bd*2\")", 1, 0);
  g_assert_cmpint (json_object_get_int_member (after, "events"), ==, 2);
}

static void
test_helper_missing (void)
{
  g_autoptr(SjDryRun) missing = sj_dry_run_new_for_helper ("/nonexistent/strudel-jam-dryrun");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = sj_dry_run_run_sync (missing, "s(\"bd\")", 1, 0, SJ_DRY_RUN_FLAGS_NONE, NULL, &error);

  g_assert_null (answer);
  g_assert_error (error, SJ_DRY_RUN_ERROR, SJ_DRY_RUN_ERROR_HELPER);
}

/* The helper itself, spoken to directly: bad lines get error lines and it
 * keeps serving. */
static void
test_protocol (void)
{
  g_autoptr(GSubprocess) helper = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  const char *input =
    "not json\n"
    "[1, 2]\n"
    "{\"code\": \"s(\\\"bd\\\")\"}\n"
    "{\"id\": 2, \"code\": 5}\n"
    "{\"id\": 3, \"code\": \"s(\\\"bd\\\")\", \"cycles\": 0}\n"
    "{\"id\": 4, \"code\": \"s(\\\"bd\\\")\", \"haps\": \"yes\"}\n"
    "\n"
    "{\"id\": 5, \"code\": \"s(\\\"bd sd\\\")\", \"cycles\": 2}\n";

  helper = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                             _sj_dry_run_get_helper_path (dry_run), NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (helper, input, NULL, &out, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_successful (helper));

  lines = g_strsplit (g_strstrip (out), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 8);
  g_assert_true (g_str_has_prefix (lines[0], "{\"ready\":true"));
  for (guint i = 1; i <= 6; i++)
    g_assert_nonnull (strstr (lines[i], "\"phase\":\"input\""));
  g_assert_true (g_str_has_prefix (lines[4], "{\"id\":2,"));
  g_assert_true (g_str_has_prefix (lines[7], "{\"id\":5,\"ok\":true,\"events\":4,"));
}

typedef struct
{
  guint    answers;
  gboolean ready;
  gboolean exited;
} ProcessSeen;

static void
process_ready_cb (SjDryRunProcess *process,
                  ProcessSeen     *seen)
{
  seen->ready = TRUE;
}

static void
process_answer_cb (SjDryRunProcess *process,
                   JsonObject      *answer,
                   ProcessSeen     *seen)
{
  g_assert_true (json_object_get_boolean_member (answer, "ok"));
  seen->answers++;
}

static void
process_exited_cb (SjDryRunProcess *process,
                   const char      *why,
                   ProcessSeen     *seen)
{
  seen->exited = TRUE;
}

/* Requests sent back to back, before the first write has finished: a
 * GOutputStream takes one write at a time, so the process queues them
 * (a second write at once failed with "Stream has outstanding operation"
 * and the helper was killed as unable to take input). */
static void
test_process_back_to_back (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjDryRunProcess) process = sj_dry_run_process_new (_sj_dry_run_get_helper_path (dry_run), &error);
  ProcessSeen seen = { 0 };

  g_assert_no_error (error);
  g_signal_connect (process, "ready", G_CALLBACK (process_ready_cb), &seen);
  g_signal_connect (process, "answer", G_CALLBACK (process_answer_cb), &seen);
  g_signal_connect (process, "exited", G_CALLBACK (process_exited_cb), &seen);
  while (!seen.ready && !seen.exited)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (seen.exited);

  for (guint i = 1; i <= 5; i++)
    {
      g_autofree char *line = g_strdup_printf ("{\"id\": %u, \"code\": \"s(\\\"bd\\\")\"}\n", i);

      sj_dry_run_process_send (process, line);
    }
  while (seen.answers < 5 && !seen.exited)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (seen.exited);
  g_assert_cmpuint (seen.answers, ==, 5);
  sj_dry_run_process_kill (process);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(SjSoundsIndex) sounds = sj_sounds_index_new ();
  g_autoptr(GFile) file = g_file_new_for_path (SJ_TEST_DATA "/sounds-small.json");
  g_autoptr(GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);

  g_assert_true (sj_sounds_index_load_file (sounds, file, &error));
  knowledge = sj_knowledge_new (sj_reference_index_get_bundled (), sounds);
  dry_run = sj_dry_run_new ();
  sj_dry_run_start (dry_run);

  g_test_add_func ("/dry-run/ok", test_ok);
  g_test_add_func ("/dry-run/haps", test_haps);
  g_test_add_func ("/dry-run/syntax", test_syntax);
  g_test_add_func ("/dry-run/compile/unknown-symbols", test_compile_unknown_symbols);
  g_test_add_func ("/dry-run/compile/known-names", test_compile_known_names);
  g_test_add_func ("/dry-run/compile/mini-notation", test_compile_mini);
  g_test_add_func ("/dry-run/runtime", test_runtime);
  g_test_add_func ("/dry-run/timeout/endless-loop", test_timeout_loop);
  g_test_add_func ("/dry-run/timeout/deep-recursion", test_timeout_recursion);
  g_test_add_func ("/dry-run/timeout/huge-query", test_timeout_query);
  g_test_add_func ("/dry-run/queue-order", test_queue_order);
  g_test_add_func ("/dry-run/cancel", test_cancel);
  g_test_add_func ("/dry-run/input-limits", test_input);
  g_test_add_func ("/dry-run/tempo-and-samples", test_tempo_and_samples);
  g_test_add_func ("/dry-run/remote-map-addresses", test_remote_map_addresses);
  g_test_add_func ("/dry-run/remote-map-sounds", test_remote_map_sounds);
  g_test_add_func ("/dry-run/labels", test_labels);
  g_test_add_func ("/dry-run/banks-and-unknown-sounds", test_banks_and_unknown_sounds);
  g_test_add_func ("/dry-run/sample-uses", test_sample_uses);
  g_test_add_func ("/dry-run/isolation", test_isolation);
  g_test_add_func ("/dry-run/helper-crash", test_helper_crash);
  g_test_add_func ("/dry-run/memory-limit", test_memory_limit);
  g_test_add_func ("/dry-run/helper-missing", test_helper_missing);
  g_test_add_func ("/dry-run/protocol", test_protocol);
  g_test_add_func ("/dry-run/process/back-to-back", test_process_back_to_back);
  g_test_add_func ("/dry-run/timeout/busy-machine", test_timeout_busy_machine);

  status = g_test_run ();

  g_clear_object (&dry_run);
  g_clear_object (&knowledge);
  return status;
}
