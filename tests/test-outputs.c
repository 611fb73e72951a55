/* test-outputs.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * The outputs service without a display: the audio-clock mapping against a
 * clock that only advances by blocks, the OSC bundles that reach a stand-in
 * SuperDirt (a liblo server on a loopback port): address, fields and
 * timetags, the MIDI bytes of a hap, the output page message's checks,
 * that problems are said once in the Console, not once per hap, that OSC
 * goes to a destination other than Settings' only once allowed (asked
 * once, remembered in the settings), and that host names are looked up
 * off the main loop (a GResolver of the test's, slow on purpose).
 */

#include <math.h>

#include "sj-midi-events.h"
#include "sj-osc-sender.h"
#include "sj-output-clock.h"
#include "sj-outputs.h"
#include "sj-page-message.h"
#include "sj-test-osc.h"

/* A page message as data/web/src/outputs.mjs posts it, parsed as the app
 * parses it. */
static SjPageMessage *
output_message (const char *kind,
                double      time_s,
                double      clock_audio_s,
                double      clock_epoch_ms,
                const char *controls_json)
{
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;
  SjPageMessage *message;

  json = g_strdup_printf ("{\"type\":\"output\",\"kind\":\"%s\",\"time\":%.9f,"
                          "\"clock\":{\"audio\":%.9f,\"epochMs\":%.3f},\"controls\":%s}",
                          kind, time_s, clock_audio_s, clock_epoch_ms, controls_json);
  message = sj_page_message_parse (json, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (message->type, ==, SJ_PAGE_MESSAGE_OUTPUT);
  return message;
}

static void
collect_log_cb (SjOutputs  *outputs,
                SjLogEntry *entry,
                GPtrArray  *lines)
{
  g_ptr_array_add (lines, g_strdup (sj_log_entry_get_message (entry)));
}

static void
count_consent_cb (SjOutputs  *outputs,
                  const char *host,
                  guint       port,
                  GPtrArray  *asked)
{
  g_ptr_array_add (asked, g_strdup_printf ("%s:%u", host, port));
}

/* A resolver that answers after 300 ms on the main loop, and whose
 * blocking lookup takes 5 s: a lookup made on the main loop would show. */
#define TEST_TYPE_RESOLVER (test_resolver_get_type ())
G_DECLARE_FINAL_TYPE (TestResolver, test_resolver, TEST, RESOLVER, GResolver)

struct _TestResolver
{
  GResolver parent_instance;
  guint     answered;
};

G_DEFINE_FINAL_TYPE (TestResolver, test_resolver, G_TYPE_RESOLVER)

static gboolean
answer_lookup_cb (gpointer user_data)
{
  g_autoptr(GTask) task = user_data;
  const char *name = g_task_get_task_data (task);
  TestResolver *self = g_task_get_source_object (task);

  self->answered++;
  if (g_strcmp0 (name, "slow.test") == 0)
    g_task_return_pointer (task, g_list_append (NULL, g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4)),
                           (GDestroyNotify)g_resolver_free_addresses);
  else
    g_task_return_new_error (task, G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND, "No such host %s", name);
  return G_SOURCE_REMOVE;
}

static void
test_resolver_lookup_by_name_async (GResolver           *resolver,
                                    const char          *hostname,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GTask *task = g_task_new (resolver, cancellable, callback, user_data);

  g_task_set_task_data (task, g_strdup (hostname), g_free);
  g_timeout_add (300, answer_lookup_cb, task);
}

static GList *
test_resolver_lookup_by_name_finish (GResolver     *resolver,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static GList *
test_resolver_lookup_by_name (GResolver     *resolver,
                              const char    *hostname,
                              GCancellable  *cancellable,
                              GError       **error)
{
  g_usleep (5 * G_USEC_PER_SEC);
  g_set_error (error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND, "Looked up on the caller's thread");
  return NULL;
}

static void
test_resolver_class_init (TestResolverClass *klass)
{
  GResolverClass *resolver_class = G_RESOLVER_CLASS (klass);

  resolver_class->lookup_by_name = test_resolver_lookup_by_name;
  resolver_class->lookup_by_name_async = test_resolver_lookup_by_name_async;
  resolver_class->lookup_by_name_finish = test_resolver_lookup_by_name_finish;
}

static void
test_resolver_init (TestResolver *self)
{
}

/* Clock ------------------------------------------------------------------- */

static void
test_clock_blocks (void)
{
  g_autoptr(SjOutputClock) clock = sj_output_clock_new ();
  /* A sound server that renders 1024 frames at 48 kHz at a time: the
   * page's currentTime lags by up to 21 ms at any reading. */
  const double block = 1024.0 / 48000.0;
  const double epoch_start_ms = 1.7e12;
  GRand *rand = g_rand_new_with_seed (21);
  gint64 mapped;

  for (int i = 0; i < 64; i++)
    {
      double t = 1.0 + i * 0.125 + g_rand_double_range (rand, 0, 0.1);
      double reported = floor (t / block) * block;

      sj_output_clock_add_pair (clock, reported, epoch_start_ms + t * 1000, (gint64)(t * 1e6));
    }

  g_assert_true (sj_output_clock_map (clock, 10.0, &mapped));
  /* Within half a millisecond of the truth, and never late by a block. */
  g_assert_cmpfloat (fabs ((double)mapped - (epoch_start_ms * 1000 + 10e6)), <, 500);
  g_rand_free (rand);
}

/* A sound server catching up after a stall renders blocks in a burst: a
 * pair read then has its audio clock ahead of the truth. One such pair
 * must not shift the timetags, as it did when the smallest offset won. */
static void
test_clock_burst (void)
{
  g_autoptr(SjOutputClock) clock = sj_output_clock_new ();
  const double block = 128.0 / 48000.0;
  const double epoch_start_ms = 1.7e12;
  gint64 mapped;

  for (int i = 0; i < 16; i++)
    {
      double t = 1.0 + i * 0.5;
      double reported = floor (t / block) * block;

      /* The seventh pair, 3 ms ahead. */
      if (i == 6)
        reported += 0.003;
      sj_output_clock_add_pair (clock, reported, epoch_start_ms + t * 1000, (gint64)(t * 1e6));
      g_assert_true (sj_output_clock_map (clock, 10.0, &mapped));
      g_assert_cmpfloat (fabs ((double)mapped - (epoch_start_ms * 1000 + 10e6)), <, 1000 * block * 1000);
    }

  /* Twenty seconds on, the burst is forgotten altogether, and the one new
   * pair is the estimate. */
  sj_output_clock_add_pair (clock, 40.0, epoch_start_ms + 40000, 40 * G_USEC_PER_SEC);
  g_assert_true (sj_output_clock_map (clock, 31.0, &mapped));
  g_assert_cmpint (mapped, ==, (gint64)(epoch_start_ms * 1000 + 31e6));
}

/* Under load most pairs are late: the good ones seen a few seconds ago
 * must keep the estimate, or it steps by milliseconds mid-performance as
 * they age out (which a five-second window did). */
static void
test_clock_holds_best (void)
{
  g_autoptr(SjOutputClock) clock = sj_output_clock_new ();
  const double epoch_start_ms = 1.7e12;
  gint64 mapped;

  for (int i = 0; i < 3; i++)
    sj_output_clock_add_pair (clock, 1.0 + i * 0.1, epoch_start_ms + (1.0 + i * 0.1) * 1000, (1 + i) * 100000);
  for (int i = 2; i < 16; i++)
    {
      /* Every later pair 2 ms late. */
      sj_output_clock_add_pair (clock, i, epoch_start_ms + i * 1000 + 2, i * G_USEC_PER_SEC);
      g_assert_true (sj_output_clock_map (clock, 20.0, &mapped));
      g_assert_cmpint (mapped, ==, (gint64)(epoch_start_ms * 1000 + 20e6));
    }
}

static void
test_clock_new_context (void)
{
  g_autoptr(SjOutputClock) clock = sj_output_clock_new ();
  gint64 mapped;

  g_assert_false (sj_output_clock_map (clock, 1.0, &mapped));
  sj_output_clock_add_pair (clock, 100.0, 1e12, 0);
  g_assert_true (sj_output_clock_map (clock, 101.0, &mapped));
  g_assert_cmpint (mapped, ==, (gint64)(1e15 + 1e6));

  /* A new AudioContext starts from zero, at another offset. */
  sj_output_clock_add_pair (clock, 0.5, 2e12, 1000);
  g_assert_true (sj_output_clock_map (clock, 1.5, &mapped));
  g_assert_cmpint (mapped, ==, (gint64)(2e15 + 1e6));
}

static void
test_timetag (void)
{
  gint64 times[] = { 0, 1, 999999, G_GINT64_CONSTANT (1764094800123456), G_GINT64_CONSTANT (1764094800999999) };

  for (guint i = 0; i < G_N_ELEMENTS (times); i++)
    {
      guint32 sec, frac;

      sj_osc_timetag_from_epoch (times[i], &sec, &frac);
      g_assert_cmpint (llabs (sj_osc_timetag_to_epoch (sec, frac) - times[i]), <=, 1);
    }
}

/* Page message ------------------------------------------------------------ */

static void
test_page_message (void)
{
  const char *bad[] = {
    "{\"type\":\"output\",\"kind\":\"http\",\"time\":1,\"clock\":{\"audio\":1,\"epochMs\":1},\"controls\":{}}",
    "{\"type\":\"output\",\"kind\":\"osc\",\"clock\":{\"audio\":1,\"epochMs\":1},\"controls\":{}}",
    "{\"type\":\"output\",\"kind\":\"osc\",\"time\":1,\"controls\":{}}",
    "{\"type\":\"output\",\"kind\":\"osc\",\"time\":1,\"clock\":{\"audio\":1,\"epochMs\":1},\"controls\":{\"s\":{}}}",
    "{\"type\":\"output\",\"kind\":\"osc\",\"time\":1,\"clock\":{\"audio\":1,\"epochMs\":1},\"controls\":[1]}",
    "{\"type\":\"output\",\"kind\":\"osc\",\"time\":-1,\"clock\":{\"audio\":1,\"epochMs\":1},\"controls\":{}}",
  };
  g_autoptr(GString) many = g_string_new ("{");
  g_autoptr(SjPageMessage) ok = NULL;
  g_autofree char *json = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SjPageMessage) message = sj_page_message_parse (bad[i], -1, &error);

      g_assert_null (message);
      g_assert_nonnull (error);
    }

  for (int i = 0; i <= SJ_PAGE_MESSAGE_MAX_CONTROLS; i++)
    g_string_append_printf (many, "%s\"c%d\":%d", i ? "," : "", i, i);
  g_string_append (many, "}");
  json = g_strdup_printf ("{\"type\":\"output\",\"kind\":\"osc\",\"time\":1,"
                          "\"clock\":{\"audio\":1,\"epochMs\":1},\"controls\":%s}", many->str);
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(SjPageMessage) message = sj_page_message_parse (json, -1, &error);

    g_assert_error (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE);
    g_assert_null (message);
  }

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(SjPageMessage) in = sj_page_message_parse ("{\"type\":\"midi-in\",\"port\":\"IAC Driver\"}", -1, &error);
    g_autoptr(SjPageMessage) bad_in = NULL;
    g_autofree char *long_port = g_strnfill (300, 'x');
    g_autofree char *long_json = g_strdup_printf ("{\"type\":\"midi-in\",\"port\":\"%s\"}", long_port);

    g_assert_no_error (error);
    g_assert_cmpint (in->type, ==, SJ_PAGE_MESSAGE_MIDI_IN);
    g_assert_cmpstr (in->text, ==, "IAC Driver");
    bad_in = sj_page_message_parse (long_json, -1, &error);
    g_assert_null (bad_in);
    g_assert_error (error, SJ_PAGE_MESSAGE_ERROR, SJ_PAGE_MESSAGE_ERROR_TOO_LARGE);
  }

  ok = output_message ("midi", 1.5, 1.0, 1e12, "{\"note\":60,\"s\":\"x\",\"on\":true}");
  g_assert_cmpstr (ok->text, ==, "midi");
  g_assert_nonnull (ok->object);
}

/* OSC --------------------------------------------------------------------- */

static void
test_osc_bundles (void)
{
  g_autoptr(SjTestOscReceiver) receiver = sj_test_osc_receiver_new ();
  g_autoptr(SjOutputs) outputs = sj_outputs_new ();
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *expected_line = NULL;
  /* The page's audio clock started 3 s ago by the system clock. */
  double epoch_ms = g_get_real_time () / 1000.0;
  double audio = 3.0;
  const char *sounds[] = { "bd", "sd", "bd", "sd" };

  g_autoptr(GPtrArray) asked = g_ptr_array_new_with_free_func (g_free);

  g_object_set (outputs, "osc-port", sj_test_osc_receiver_get_port (receiver), NULL);
  g_signal_connect (outputs, "log", G_CALLBACK (collect_log_cb), lines);
  g_signal_connect (outputs, "osc-consent-needed", G_CALLBACK (count_consent_cb), asked);

  for (guint i = 0; i < G_N_ELEMENTS (sounds); i++)
    {
      g_autofree char *controls = g_strdup_printf ("{\"cps\":0.5,\"cycle\":%g,\"delta\":1,\"s\":\"%s\",\"n\":%u,"
                                                   "\"orbit\":0,\"_id_\":1,\"bank\":\"RolandTR909\",\"loop\":true}",
                                                   i * 0.5, sounds[i], i);
      g_autoptr(SjPageMessage) message = output_message ("osc", audio + 0.1 + i * 1.0, audio, epoch_ms, controls);

      sj_outputs_handle (outputs, message->text, message->object);
    }

  for (guint i = 0; i < G_N_ELEMENTS (sounds); i++)
    {
      g_autoptr(SjTestOscMessage) got = sj_test_osc_receiver_pop (receiver, 5000);
      gint64 expected_us = (gint64)llround ((epoch_ms + (0.1 + i * 1.0) * 1000) * 1000);

      g_assert_nonnull (got);
      g_assert_cmpstr (got->path, ==, "/dirt/play");
      g_assert_true (got->bundled);
      /* Name, value pairs: numbers as floats, strings, booleans as T. */
      g_assert_cmpstr (got->types, ==, "sfsfsfsssfsfsfsssT");
      g_assert_cmpstr (json_object_get_string_member (got->fields, "s"), ==, sounds[i]);
      g_assert_cmpfloat (json_object_get_double_member (got->fields, "n"), ==, i);
      g_assert_cmpfloat (json_object_get_double_member (got->fields, "cps"), ==, 0.5);
      g_assert_cmpfloat (json_object_get_double_member (got->fields, "cycle"), ==, i * 0.5);
      g_assert_cmpfloat (json_object_get_double_member (got->fields, "delta"), ==, 1);
      g_assert_true (json_object_get_boolean_member (got->fields, "loop"));
      g_assert_cmpint (llabs (got->timetag_us - expected_us), <=, 2);
      /* Sent ahead of its time, for SuperDirt to schedule. */
      g_assert_cmpint (got->received_us, <, got->timetag_us);
    }

  expected_line = g_strdup_printf ("Sending OSC to 127.0.0.1:%u (SuperDirt must be running there)",
                                   sj_test_osc_receiver_get_port (receiver));
  g_assert_cmpuint (lines->len, ==, 1);
  g_assert_cmpstr (lines->pdata[0], ==, expected_line);
  /* Settings' own destination needs no question. */
  g_assert_cmpuint (asked->len, ==, 0);
}

static void
send_hap (SjOutputs  *outputs,
          const char *controls)
{
  g_autoptr(SjPageMessage) message = output_message ("osc", 2.0, 1.9, g_get_real_time () / 1000.0, controls);

  sj_outputs_handle (outputs, message->text, message->object);
}

static GSettings *
fresh_settings (void)
{
  GSettings *settings = g_settings_new ("io.github.strudeljam.StrudelJam");

  g_settings_reset (settings, "osc-destinations");
  return settings;
}

static void
test_osc_port_control (void)
{
  g_autoptr(SjTestOscReceiver) receiver = sj_test_osc_receiver_new ();
  g_autoptr(SjOutputs) outputs = sj_outputs_new ();
  g_autoptr(SjTestOscMessage) got = NULL;
  g_autoptr(GPtrArray) asked = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *controls = NULL;
  g_autofree char *destination = g_strdup_printf ("127.0.0.1:%u", sj_test_osc_receiver_get_port (receiver));

  /* The settings point elsewhere; oscport sends this hap to the receiver,
   * once allowed. */
  g_object_set (outputs, "osc-port", 9, NULL);
  g_signal_connect (outputs, "osc-consent-needed", G_CALLBACK (count_consent_cb), asked);
  controls = g_strdup_printf ("{\"s\":\"hh\",\"oscport\":%u}", sj_test_osc_receiver_get_port (receiver));
  send_hap (outputs, controls);
  g_assert_cmpuint (asked->len, ==, 1);
  g_assert_cmpstr (asked->pdata[0], ==, destination);
  sj_outputs_answer_osc (outputs, "127.0.0.1", sj_test_osc_receiver_get_port (receiver), TRUE, TRUE);
  send_hap (outputs, controls);

  got = sj_test_osc_receiver_pop (receiver, 5000);
  g_assert_nonnull (got);
  g_assert_cmpstr (json_object_get_string_member (got->fields, "s"), ==, "hh");
}

/* A destination other than Settings' is asked about once; nothing reaches
 * it before the answer; Allow sends, and is remembered by the next outputs
 * (a restart: new objects on the same settings). */
static void
test_osc_consent_allow (void)
{
  g_autoptr(SjTestOscReceiver) receiver = sj_test_osc_receiver_new ();
  g_autoptr(GSettings) settings = fresh_settings ();
  g_autoptr(SjOutputs) outputs = sj_outputs_new_for_settings (settings);
  g_autoptr(GPtrArray) asked = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SjTestOscMessage) none = NULL;
  g_autoptr(SjTestOscMessage) got = NULL;
  guint port = sj_test_osc_receiver_get_port (receiver);
  g_autofree char *controls = g_strdup_printf ("{\"s\":\"bd\",\"oschost\":\"127.0.0.1\",\"oscport\":%u}", port);
  g_autofree char *destination = g_strdup_printf ("127.0.0.1:%u", port);
  g_autofree char *waiting = g_strdup_printf ("This code wants to send OSC to %s; nothing goes there until you answer",
                                              destination);
  gboolean allowed = FALSE;

  g_object_set (outputs, "osc-port", 9, NULL);
  g_signal_connect (outputs, "osc-consent-needed", G_CALLBACK (count_consent_cb), asked);
  g_signal_connect (outputs, "log", G_CALLBACK (collect_log_cb), lines);

  for (int i = 0; i < 3; i++)
    send_hap (outputs, controls);
  g_assert_cmpuint (asked->len, ==, 1);
  g_assert_cmpstr (asked->pdata[0], ==, destination);
  g_assert_true (g_ptr_array_find_with_equal_func (lines, waiting, g_str_equal, NULL));
  none = sj_test_osc_receiver_pop (receiver, 300);
  g_assert_null (none);

  sj_outputs_answer_osc (outputs, "127.0.0.1", port, TRUE, TRUE);
  {
    g_autoptr(GVariant) answers = g_settings_get_value (settings, "osc-destinations");

    g_assert_true (g_variant_lookup (answers, destination, "b", &allowed));
  }
  g_assert_true (allowed);
  send_hap (outputs, controls);
  got = sj_test_osc_receiver_pop (receiver, 5000);
  g_assert_nonnull (got);
  g_assert_cmpstr (json_object_get_string_member (got->fields, "s"), ==, "bd");
  /* The haps of the wait were dropped, not queued. */
  g_clear_pointer (&none, sj_test_osc_message_free);
  none = sj_test_osc_receiver_pop (receiver, 200);
  g_assert_null (none);

  /* A restart remembers. */
  g_clear_object (&outputs);
  g_clear_object (&settings);
  g_ptr_array_set_size (asked, 0);
  settings = g_settings_new ("io.github.strudeljam.StrudelJam");
  outputs = sj_outputs_new_for_settings (settings);
  g_object_set (outputs, "osc-port", 9, NULL);
  g_signal_connect (outputs, "osc-consent-needed", G_CALLBACK (count_consent_cb), asked);
  send_hap (outputs, controls);
  g_clear_pointer (&got, sj_test_osc_message_free);
  got = sj_test_osc_receiver_pop (receiver, 5000);
  g_assert_nonnull (got);
  g_assert_cmpuint (asked->len, ==, 0);
}

/* Block: never sent, not asked again, and so after a restart. */
static void
test_osc_consent_block (void)
{
  g_autoptr(SjTestOscReceiver) receiver = sj_test_osc_receiver_new ();
  g_autoptr(GSettings) settings = fresh_settings ();
  g_autoptr(SjOutputs) outputs = sj_outputs_new_for_settings (settings);
  g_autoptr(GPtrArray) asked = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SjTestOscMessage) none = NULL;
  guint port = sj_test_osc_receiver_get_port (receiver);
  g_autofree char *controls = g_strdup_printf ("{\"s\":\"sd\",\"oscport\":%u}", port);
  g_autofree char *blocked = g_strdup_printf ("OSC to 127.0.0.1:%u is blocked; its events are dropped", port);

  g_object_set (outputs, "osc-port", 9, NULL);
  g_signal_connect (outputs, "osc-consent-needed", G_CALLBACK (count_consent_cb), asked);
  send_hap (outputs, controls);
  g_assert_cmpuint (asked->len, ==, 1);
  sj_outputs_answer_osc (outputs, "127.0.0.1", port, FALSE, TRUE);
  send_hap (outputs, controls);
  send_hap (outputs, controls);
  g_assert_cmpuint (asked->len, ==, 1);
  none = sj_test_osc_receiver_pop (receiver, 300);
  g_assert_null (none);

  g_clear_object (&outputs);
  g_clear_object (&settings);
  g_ptr_array_set_size (asked, 0);
  settings = g_settings_new ("io.github.strudeljam.StrudelJam");
  outputs = sj_outputs_new_for_settings (settings);
  g_object_set (outputs, "osc-port", 9, NULL);
  g_signal_connect (outputs, "osc-consent-needed", G_CALLBACK (count_consent_cb), asked);
  g_signal_connect (outputs, "log", G_CALLBACK (collect_log_cb), lines);
  send_hap (outputs, controls);
  g_assert_cmpuint (asked->len, ==, 0);
  g_assert_true (g_ptr_array_find_with_equal_func (lines, blocked, g_str_equal, NULL));
  none = sj_test_osc_receiver_pop (receiver, 300);
  g_assert_null (none);

  /* A Block for now (the dialog closed) is not remembered. */
  g_settings_reset (settings, "osc-destinations");
  send_hap (outputs, controls);
  g_assert_cmpuint (asked->len, ==, 1);
  sj_outputs_answer_osc (outputs, "127.0.0.1", port, FALSE, FALSE);
  {
    g_autoptr(GVariant) answers = g_settings_get_value (settings, "osc-destinations");

    g_assert_cmpuint (g_variant_n_children (answers), ==, 0);
  }
  send_hap (outputs, controls);
  none = sj_test_osc_receiver_pop (receiver, 300);
  g_assert_null (none);
}

static gboolean
tick_cb (gpointer user_data)
{
  (*(guint *)user_data)++;
  return G_SOURCE_CONTINUE;
}

/* Settings' host is a name: it is looked up in the background while the
 * main loop goes on, its haps dropped meanwhile; then they are sent. A
 * name that is not found is said, and nothing blocks either. */
static void
test_osc_slow_lookup (void)
{
  g_autoptr(SjTestOscReceiver) receiver = sj_test_osc_receiver_new ();
  g_autoptr(TestResolver) resolver = g_object_new (TEST_TYPE_RESOLVER, NULL);
  g_autoptr(GResolver) previous = g_resolver_get_default ();
  g_autoptr(SjOutputs) outputs = sj_outputs_new ();
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SjTestOscMessage) none = NULL;
  g_autoptr(SjTestOscMessage) got = NULL;
  guint port = sj_test_osc_receiver_get_port (receiver);
  g_autofree char *looking = g_strdup_printf ("Looking up slow.test; OSC to slow.test:%u is dropped until it is found", port);
  g_autofree char *failed = NULL;
  g_autofree char *controls = NULL;
  guint ticks = 0;
  guint tick;
  gint64 start;

  g_resolver_set_default (G_RESOLVER (resolver));
  g_object_set (outputs, "osc-host", "slow.test", "osc-port", port, NULL);
  g_signal_connect (outputs, "log", G_CALLBACK (collect_log_cb), lines);
  tick = g_timeout_add (10, tick_cb, &ticks);

  start = g_get_monotonic_time ();
  send_hap (outputs, "{\"s\":\"bd\"}");
  send_hap (outputs, "{\"s\":\"bd\"}");
  g_assert_cmpint (g_get_monotonic_time () - start, <, G_USEC_PER_SEC);
  g_assert_true (g_ptr_array_find_with_equal_func (lines, looking, g_str_equal, NULL));
  none = sj_test_osc_receiver_pop (receiver, 100);
  g_assert_null (none);

  /* The main loop keeps turning while the name is looked up (once). */
  while (resolver->answered == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (ticks, >=, 10);
  g_assert_cmpuint (resolver->answered, ==, 1);

  send_hap (outputs, "{\"s\":\"cp\"}");
  got = sj_test_osc_receiver_pop (receiver, 5000);
  g_assert_nonnull (got);
  g_assert_cmpstr (json_object_get_string_member (got->fields, "s"), ==, "cp");

  /* A name that is not found. */
  g_object_set (outputs, "osc-host", "fail.test", NULL);
  start = g_get_monotonic_time ();
  send_hap (outputs, "{\"s\":\"bd\"}");
  g_assert_cmpint (g_get_monotonic_time () - start, <, G_USEC_PER_SEC);
  while (resolver->answered == 1)
    g_main_context_iteration (NULL, TRUE);
  send_hap (outputs, "{\"s\":\"bd\"}");
  failed = g_strdup_printf ("Cannot send OSC to fail.test:%u: No such host fail.test", port);
  g_assert_true (g_ptr_array_find_with_equal_func (lines, failed, g_str_equal, NULL));
  g_clear_pointer (&none, sj_test_osc_message_free);
  none = sj_test_osc_receiver_pop (receiver, 100);
  g_assert_null (none);

  g_source_remove (tick);
  g_resolver_set_default (previous);
}

/* MIDI -------------------------------------------------------------------- */

static GArray *
events_of (const char *controls_json,
           gint64      time_us,
           GError    **error)
{
  g_autoptr(JsonNode) node = json_from_string (controls_json, NULL);

  return sj_midi_events_from_controls (json_node_get_object (node), time_us, error);
}

static void
test_midi_events (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  SjMidiEvent *e;

  events = events_of ("{\"midichan\":2,\"note\":60,\"velocity\":0.5,\"duration\":0.24,\"ccn\":74,\"ccv\":1,"
                      "\"progNum\":5,\"midibend\":0,\"miditouch\":0.5,\"start\":true}", 1000000, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 7);
  e = (SjMidiEvent *)(gpointer)events->data;
  g_assert_cmpint (e[0].data[0], ==, 0xFA);
  g_assert_cmpint (e[0].size, ==, 1);
  g_assert_cmpint (e[1].data[0], ==, 0xC1);
  g_assert_cmpint (e[1].data[1], ==, 5);
  g_assert_cmpint (e[2].data[0], ==, 0xB1);
  g_assert_cmpint (e[2].data[1], ==, 74);
  g_assert_cmpint (e[2].data[2], ==, 127);
  g_assert_cmpint (e[3].data[0], ==, 0xE1);
  g_assert_cmpint (e[3].data[1] | (e[3].data[2] << 7), ==, 8192);
  g_assert_cmpint (e[4].data[0], ==, 0xD1);
  g_assert_cmpint (e[4].data[1], ==, 64);
  g_assert_cmpint (e[5].data[0], ==, 0x91);
  g_assert_cmpint (e[5].data[1], ==, 60);
  g_assert_cmpint (e[5].data[2], ==, 64);
  g_assert_cmpint (e[5].time_us, ==, 1000000);
  g_assert_cmpint (e[6].data[0], ==, 0x81);
  g_assert_cmpint (e[6].time_us, ==, 1240000);
  g_clear_pointer (&events, g_array_unref);

  events = events_of ("{\"midicmd\":\"clock\"}", 5, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 1);
  g_assert_cmpint (g_array_index (events, SjMidiEvent, 0).data[0], ==, 0xF8);
  g_clear_pointer (&events, g_array_unref);

  {
    const char *bad[] = { "{\"midichan\":17}", "{\"midichan\":1.5}", "{\"note\":128}", "{\"velocity\":2}",
                          "{\"ccn\":\"x\",\"ccv\":0.5}", "{\"midibend\":-3}", "{\"midicmd\":\"reset\"}" };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autoptr(GError) bad_error = NULL;
        g_autoptr(GArray) none = events_of (bad[i], 0, &bad_error);

        g_assert_null (none);
        g_assert_error (bad_error, SJ_MIDI_EVENTS_ERROR, SJ_MIDI_EVENTS_ERROR_INVALID);
      }
  }
}

static void
test_midi_reported_once (void)
{
  g_autoptr(SjOutputs) outputs = sj_outputs_new ();
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  double epoch_ms = g_get_real_time () / 1000.0;

  /* No JACK server by that name, and no ALSA: one line for all haps. */
  g_setenv ("JACK_DEFAULT_SERVER", "sj-test-no-such-server", TRUE);
  g_object_set (outputs, "midi-backend", "jack", NULL);
  g_signal_connect (outputs, "log", G_CALLBACK (collect_log_cb), lines);

  for (int i = 0; i < 5; i++)
    {
      g_autoptr(SjPageMessage) bad = output_message ("midi", 2.0 + i, 1.0, epoch_ms, "{\"midichan\":20,\"note\":60}");
      g_autoptr(SjPageMessage) good = output_message ("midi", 2.0 + i, 1.0, epoch_ms, "{\"midichan\":1,\"note\":60}");

      sj_outputs_handle (outputs, bad->text, bad->object);
      sj_outputs_handle (outputs, good->text, good->object);
    }

  g_assert_cmpuint (lines->len, ==, 2);
  g_assert_cmpstr (lines->pdata[0], ==, "Dropped a .midi() event: midichan must be a number from 1 to 16, not 20");
  g_assert_true (g_str_has_prefix (lines->pdata[1], "MIDI is not sent: No JACK server is running"));

  /* MIDI input needs JACK: said once. */
  sj_outputs_open_midi_input (outputs, "IAC");
  sj_outputs_open_midi_input (outputs, "IAC");
  g_assert_cmpuint (lines->len, ==, 3);
  g_assert_true (g_str_has_prefix (lines->pdata[2], "MIDI input (midin) needs a JACK server"));

  /* A change of settings tells again. */
  g_object_set (outputs, "midi-backend", "auto", NULL);
  {
    g_autoptr(SjPageMessage) good = output_message ("midi", 9.0, 1.0, epoch_ms, "{\"note\":60}");

    sj_outputs_handle (outputs, good->text, good->object);
  }
  g_assert_cmpuint (lines->len, ==, 4);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/outputs/clock/blocks", test_clock_blocks);
  g_test_add_func ("/outputs/clock/new-context", test_clock_new_context);
  g_test_add_func ("/outputs/clock/burst", test_clock_burst);
  g_test_add_func ("/outputs/clock/holds-best", test_clock_holds_best);
  g_test_add_func ("/outputs/osc/timetag", test_timetag);
  g_test_add_func ("/outputs/page-message", test_page_message);
  g_test_add_func ("/outputs/osc/bundles", test_osc_bundles);
  g_test_add_func ("/outputs/osc/port-control", test_osc_port_control);
  g_test_add_func ("/outputs/osc/consent-allow", test_osc_consent_allow);
  g_test_add_func ("/outputs/osc/consent-block", test_osc_consent_block);
  g_test_add_func ("/outputs/osc/slow-lookup", test_osc_slow_lookup);
  g_test_add_func ("/outputs/midi/events", test_midi_events);
  g_test_add_func ("/outputs/midi/reported-once", test_midi_reported_once);

  return g_test_run ();
}
