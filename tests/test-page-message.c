/* test-page-message.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Messages from the page are validated before anything acts on them:
 * well-formed ones parse, anything else is a clear error, never a crash.
 */

#include "config.h"

#include "sj-page-message.h"

static SjPageMessage *
parse_ok (const char *json)
{
  g_autoptr(GError) error = NULL;
  SjPageMessage *message = sj_page_message_parse (json, -1, &error);

  g_assert_no_error (error);
  g_assert_nonnull (message);
  return message;
}

static void
assert_rejected (const char *json,
                 int         code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SjPageMessage) message = sj_page_message_parse (json, -1, &error);

  g_assert_null (message);
  g_assert_error (error, SJ_PAGE_MESSAGE_ERROR, code);
}

static void
test_valid_messages (void)
{
  g_autoptr(SjPageMessage) hello = parse_ok ("{\"type\":\"hello\",\"id\":3,\"version\":1}");
  g_autoptr(SjPageMessage) state = NULL;
  g_autoptr(SjPageMessage) log = NULL;
  g_autoptr(SjPageMessage) error = NULL;
  g_autoptr(SjPageMessage) code = NULL;
  g_autoptr(SjPageMessage) ready = NULL;

  g_assert_cmpint (hello->type, ==, SJ_PAGE_MESSAGE_HELLO);
  g_assert_cmpint (hello->id, ==, 3);

  state = parse_ok ("{\"type\":\"state\",\"playing\":true,\"cps\":0.5,\"cycle\":12.25,"
                    "\"horizon\":12.4,\"pending\":false,\"triggered\":40,\"late\":0,\"maxLateMs\":0}");
  g_assert_cmpint (state->type, ==, SJ_PAGE_MESSAGE_STATE);
  g_assert_cmpint (state->id, ==, -1);
  g_assert_true (state->state.playing);
  g_assert_cmpfloat (state->state.cps, ==, 0.5);
  g_assert_cmpfloat (state->state.cycle, ==, 12.25);
  g_assert_cmpfloat (state->state.horizon, ==, 12.4);
  g_assert_cmpint (state->state.triggered, ==, 40);

  log = parse_ok ("{\"type\":\"log\",\"level\":\"error\",\"message\":\"sound bd not found! Is it loaded?\"}");
  g_assert_cmpint (log->level, ==, SJ_LOG_LEVEL_ERROR);
  g_assert_cmpstr (log->text, ==, "sound bd not found! Is it loaded?");

  error = parse_ok ("{\"type\":\"eval-error\",\"message\":\"Unexpected token\",\"line\":2,\"column\":5}");
  g_assert_cmpint (error->type, ==, SJ_PAGE_MESSAGE_EVAL_ERROR);
  g_assert_cmpint (error->line, ==, 2);
  g_assert_cmpint (error->column, ==, 5);

  code = parse_ok ("{\"type\":\"code\",\"code\":\"s(\\\"bd\\\")\"}");
  g_assert_cmpstr (code->text, ==, "s(\"bd\")");

  ready = parse_ok ("{\"type\":\"ready\",\"version\":1,\"strudel\":{\"@strudel/core\":\"1.2.6\"}}");
  g_assert_cmpstr (json_object_get_string_member (ready->object, "@strudel/core"), ==, "1.2.6");
}

static void
test_sound_snapshot (void)
{
  g_autoptr(SjPageMessage) sounds = NULL;
  JsonObject *entry;

  sounds = parse_ok ("{\"type\":\"sounds\",\"sounds\":{"
                     "\"sawtooth\":{\"type\":\"synth\",\"prebake\":true},"
                     "\"gm_piano\":{\"type\":\"soundfont\",\"prebake\":true,\"count\":3},"
                     "\"bd\":{\"type\":\"sample\",\"tag\":\"drum-machines\",\"prebake\":true,\"count\":12}}}");
  g_assert_cmpuint (json_object_get_size (sounds->object), ==, 3);
  entry = json_object_get_object_member (sounds->object, "bd");
  g_assert_cmpstr (json_object_get_string_member (entry, "tag"), ==, "drum-machines");

  assert_rejected ("{\"type\":\"sounds\",\"sounds\":[]}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"sounds\",\"sounds\":{\"x\":{\"prebake\":true}}}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"sounds\",\"sounds\":{\"x\":{\"type\":\"synth\",\"prebake\":\"yes\"}}}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"sounds\",\"sounds\":{\"x\":{\"type\":\"sample\",\"prebake\":true,\"count\":-1}}}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"sounds\",\"sounds\":{\"x\":{\"type\":\"sample\",\"prebake\":true,\"count\":1.5}}}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"sounds\",\"sounds\":{\"\":{\"type\":\"synth\",\"prebake\":true}}}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"sounds\",\"sounds\":{\"x\":{\"type\":\"synth\",\"prebake\":true,\"tag\":7}}}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
}

/* Quantized swaps report what happened to them, with their boundary. */
static void
test_swap (void)
{
  g_autoptr(SjPageMessage) applied = parse_ok ("{\"type\":\"swap\",\"state\":\"applied\",\"cycle\":12,\"id\":4}");
  g_autoptr(SjPageMessage) canceled = parse_ok ("{\"type\":\"swap\",\"state\":\"canceled\",\"cycle\":3.5}");

  g_assert_cmpint (applied->type, ==, SJ_PAGE_MESSAGE_SWAP);
  g_assert_cmpstr (applied->text, ==, "applied");
  g_assert_cmpfloat (applied->cycle, ==, 12);
  g_assert_cmpstr (canceled->text, ==, "canceled");
  g_assert_cmpfloat (canceled->cycle, ==, 3.5);

  assert_rejected ("{\"type\":\"swap\",\"cycle\":1}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"swap\",\"state\":\"exploded\",\"cycle\":1}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"swap\",\"state\":\"applied\"}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"swap\",\"state\":\"applied\",\"cycle\":-1}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"swap\",\"state\":\"applied\",\"cycle\":\"4\"}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
}

/* The pending swap's countdown, and the page's controls asking for an
 * action (issue 32). */
static void
test_countdown (void)
{
  g_autoptr(SjPageMessage) tick = parse_ok ("{\"type\":\"countdown\",\"cycle\":12.25,\"id\":3,\"beats\":5,"
                                            "\"seconds\":1.2,\"beatsPerCycle\":4}");
  g_autoptr(SjPageMessage) cancel = parse_ok ("{\"type\":\"action\",\"name\":\"cancel-change\"}");

  g_assert_cmpint (tick->type, ==, SJ_PAGE_MESSAGE_COUNTDOWN);
  g_assert_cmpfloat (tick->cycle, ==, 12.25);
  g_assert_cmpint (tick->beats, ==, 5);
  g_assert_cmpfloat (tick->seconds, ==, 1.2);
  g_assert_cmpint (cancel->type, ==, SJ_PAGE_MESSAGE_ACTION);
  g_assert_cmpstr (cancel->text, ==, "cancel-change");

  assert_rejected ("{\"type\":\"countdown\",\"cycle\":1,\"beats\":1.5,\"seconds\":1}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"countdown\",\"cycle\":1,\"beats\":-1,\"seconds\":1}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"countdown\",\"cycle\":1,\"seconds\":1}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"action\",\"name\":\"quit\"}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"action\"}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
}

static void
test_malformed (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_null (sj_page_message_parse (NULL, -1, &error));
  g_assert_error (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_MALFORMED);

  assert_rejected ("", SJ_PAGE_MESSAGE_ERROR_MALFORMED);
  assert_rejected ("not json", SJ_PAGE_MESSAGE_ERROR_MALFORMED);
  assert_rejected ("{\"type\":\"log\",", SJ_PAGE_MESSAGE_ERROR_MALFORMED);
  assert_rejected ("[1,2,3]", SJ_PAGE_MESSAGE_ERROR_MALFORMED);
  assert_rejected ("\"ready\"", SJ_PAGE_MESSAGE_ERROR_MALFORMED);
  assert_rejected ("{}", SJ_PAGE_MESSAGE_ERROR_MALFORMED);
  assert_rejected ("{\"type\":42}", SJ_PAGE_MESSAGE_ERROR_MALFORMED);
  assert_rejected ("{\"type\":\"launch-missiles\"}", SJ_PAGE_MESSAGE_ERROR_UNKNOWN_TYPE);
  assert_rejected ("{\"type\":\"hello\",\"id\":-4}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"hello\",\"id\":\"7\"}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
}

static void
test_wrong_fields (void)
{
  assert_rejected ("{\"type\":\"state\"}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"state\",\"playing\":\"yes\",\"cps\":0.5,\"cycle\":0,\"horizon\":0}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"state\",\"playing\":true,\"cps\":0,\"cycle\":0,\"horizon\":0}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"state\",\"playing\":true,\"cps\":-1,\"cycle\":0,\"horizon\":0}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"state\",\"playing\":true,\"cps\":1e400,\"cycle\":0,\"horizon\":0}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"state\",\"playing\":true,\"cps\":0.5,\"cycle\":null,\"horizon\":0}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"log\"}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"log\",\"message\":{\"evil\":true}}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"eval-error\",\"message\":\"x\",\"line\":0}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"code\",\"code\":12}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"ready\",\"strudel\":\"1.0\"}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
}

static void
test_too_large (void)
{
  g_autoptr(GString) json = g_string_new ("{\"type\":\"log\",\"message\":\"");
  g_autoptr(GString) code = g_string_new ("{\"type\":\"code\",\"code\":\"");
  g_autofree char *huge = NULL;

  for (guint i = 0; i < SJ_PAGE_MESSAGE_MAX_LOG + 1; i++)
    g_string_append_c (json, 'a');
  g_string_append (json, "\"}");
  assert_rejected (json->str, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE);

  for (guint i = 0; i < SJ_PAGE_MESSAGE_MAX_CODE + 1; i++)
    g_string_append_c (code, 'x');
  g_string_append (code, "\"}");
  assert_rejected (code->str, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE);

  /* Oversized messages are refused before parsing. */
  huge = g_malloc (SJ_PAGE_MESSAGE_MAX_BYTES + 2);
  memset (huge, ' ', SJ_PAGE_MESSAGE_MAX_BYTES + 1);
  huge[SJ_PAGE_MESSAGE_MAX_BYTES + 1] = '\0';
  assert_rejected (huge, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE);
}

#define LEVELS_CYCLE "{\"cycle\":12,\"cps\":0.5,\"rmsDb\":-14.2,\"peakDb\":-3.1,\"clipped\":0," \
                     "\"low\":-30,\"mid\":-15,\"high\":-40.5,\"onsets\":4," \
                     "\"layers\":[{\"orbit\":1,\"rmsDb\":-14.2,\"peakDb\":-3.1,\"clipped\":0}]}"

/* The level analysis (levels.mjs): every figure checked and bounded. */
static void
test_levels (void)
{
  g_autoptr(SjPageMessage) levels = NULL;
  g_autoptr(GString) cycles = g_string_new ("{\"type\":\"levels\",\"now\":{\"rmsDb\":-20,\"peakDb\":-6,\"clipped\":0},"
                                            "\"cycles\":[");
  g_autoptr(GString) layers = g_string_new ("{\"type\":\"levels\",\"now\":{\"rmsDb\":-20,\"peakDb\":-6,\"clipped\":0},"
                                            "\"cycles\":[{\"cycle\":1,\"cps\":0.5,\"rmsDb\":-1,\"peakDb\":-1,"
                                            "\"clipped\":0,\"low\":-1,\"mid\":-1,\"high\":-1,\"onsets\":0,\"layers\":[");
  g_autoptr(GString) padded = NULL;

  levels = parse_ok ("{\"type\":\"levels\",\"now\":{\"rmsDb\":-20.5,\"peakDb\":-6,\"clipped\":3},"
                     "\"cycles\":[" LEVELS_CYCLE "]}");
  g_assert_cmpint (levels->type, ==, SJ_PAGE_MESSAGE_LEVELS);
  g_assert_cmpfloat (levels->levels->rms_db, ==, -20.5);
  g_assert_cmpuint (levels->levels->clipped, ==, 3);
  g_assert_cmpuint (levels->levels->n_cycles, ==, 1);
  g_assert_cmpfloat (levels->levels->cycles[0].cycle, ==, 12);
  g_assert_cmpfloat (levels->levels->cycles[0].high_db, ==, -40.5);
  g_assert_cmpuint (levels->levels->cycles[0].onsets, ==, 4);
  g_assert_cmpuint (levels->levels->cycles[0].n_layers, ==, 1);
  g_assert_cmpint (levels->levels->cycles[0].layers[0].orbit, ==, 1);

  /* Missing, mistyped, out of range, not whole. */
  assert_rejected ("{\"type\":\"levels\"}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"levels\",\"now\":[],\"cycles\":[]}", SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"levels\",\"now\":{\"rmsDb\":-20,\"peakDb\":-6,\"clipped\":0}}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"levels\",\"now\":{\"rmsDb\":\"loud\",\"peakDb\":-6,\"clipped\":0},\"cycles\":[]}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"levels\",\"now\":{\"rmsDb\":1e300,\"peakDb\":-6,\"clipped\":0},\"cycles\":[]}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"levels\",\"now\":{\"rmsDb\":-20,\"peakDb\":-6,\"clipped\":-1},\"cycles\":[]}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"levels\",\"now\":{\"rmsDb\":-20,\"peakDb\":-6,\"clipped\":0.5},\"cycles\":[]}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"levels\",\"now\":{\"rmsDb\":-20,\"peakDb\":-6,\"clipped\":0},\"cycles\":[7]}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"levels\",\"now\":{\"rmsDb\":-20,\"peakDb\":-6,\"clipped\":0},\"cycles\":"
                   "[{\"cycle\":1.5,\"cps\":0.5,\"rmsDb\":-1,\"peakDb\":-1,\"clipped\":0,\"low\":-1,\"mid\":-1,"
                   "\"high\":-1,\"onsets\":0,\"layers\":[]}]}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);
  assert_rejected ("{\"type\":\"levels\",\"now\":{\"rmsDb\":-20,\"peakDb\":-6,\"clipped\":0},\"cycles\":"
                   "[{\"cycle\":1,\"cps\":0,\"rmsDb\":-1,\"peakDb\":-1,\"clipped\":0,\"low\":-1,\"mid\":-1,"
                   "\"high\":-1,\"onsets\":0,\"layers\":[]}]}",
                   SJ_PAGE_MESSAGE_ERROR_INVALID_FIELD);

  /* More cycles or layers than a report holds. */
  for (guint i = 0; i <= SJ_LEVELS_MAX_CYCLES; i++)
    g_string_append_printf (cycles, "%s" LEVELS_CYCLE, i > 0 ? "," : "");
  g_string_append (cycles, "]}");
  assert_rejected (cycles->str, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE);
  for (guint i = 0; i <= SJ_LEVELS_MAX_LAYERS; i++)
    g_string_append_printf (layers, "%s{\"orbit\":%u,\"rmsDb\":-1,\"peakDb\":-1,\"clipped\":0}", i > 0 ? "," : "", i);
  g_string_append (layers, "]}]}");
  assert_rejected (layers->str, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE);

  /* A levels message is small: a large one is refused whatever it holds. */
  padded = g_string_new ("{\"type\":\"levels\",\"pad\":\"");
  for (guint i = 0; i < SJ_LEVELS_MAX_MESSAGE_BYTES; i++)
    g_string_append_c (padded, 'x');
  g_string_append (padded, "\",\"now\":{\"rmsDb\":-20,\"peakDb\":-6,\"clipped\":0},\"cycles\":[]}");
  assert_rejected (padded->str, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE);
}

static void
test_log_levels (void)
{
  g_assert_cmpint (sj_log_level_from_string ("error"), ==, SJ_LOG_LEVEL_ERROR);
  g_assert_cmpint (sj_log_level_from_string ("warning"), ==, SJ_LOG_LEVEL_WARNING);
  g_assert_cmpint (sj_log_level_from_string ("highlight"), ==, SJ_LOG_LEVEL_HIGHLIGHT);
  g_assert_cmpint (sj_log_level_from_string ("whatever"), ==, SJ_LOG_LEVEL_INFO);
  g_assert_cmpint (sj_log_level_from_string (NULL), ==, SJ_LOG_LEVEL_INFO);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/page-message/valid", test_valid_messages);
  g_test_add_func ("/page-message/sound-snapshot", test_sound_snapshot);
  g_test_add_func ("/page-message/swap", test_swap);
  g_test_add_func ("/page-message/countdown", test_countdown);
  g_test_add_func ("/page-message/malformed", test_malformed);
  g_test_add_func ("/page-message/wrong-fields", test_wrong_fields);
  g_test_add_func ("/page-message/too-large", test_too_large);
  g_test_add_func ("/page-message/log-levels", test_log_levels);
  g_test_add_func ("/page-message/levels", test_levels);

  return g_test_run ();
}
