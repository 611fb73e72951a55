/* test-voice.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Voice at the service level, with real parts: a private PulseAudio
 * (tests/with-pulse.sh) whose default source is the monitor of a null sink
 * that espeak-ng speaks jam commands into, the real GStreamer capture and
 * PocketSphinx; an OpenAI-compatible transcription endpoint played by a
 * loopback libsoup server. Without a sound server or espeak-ng, the audio
 * tests skip.
 */

#include "config.h"

#include <string.h>

#include <libsoup/soup.h>
#include <json-glib/json-glib.h>

#include "sj-test-voice.h"
#include "sj-transcription-client-private.h"
#include "sj-voice-session.h"

typedef struct
{
  SjVoiceSession *session;
  double          level;
  guint           n_levels;
  guint           n_partials;
  char           *last_partial;
  GError         *endpoint_error;
  gboolean        done;
  GAsyncResult   *result;
} Fixture;

static char *wav_dir;

static void
level_cb (SjVoiceSession *session,
          double          level,
          Fixture        *fixture)
{
  fixture->level = level;
  fixture->n_levels++;
}

static void
partial_cb (SjVoiceSession *session,
            const char     *text,
            Fixture        *fixture)
{
  fixture->n_partials++;
  g_free (fixture->last_partial);
  fixture->last_partial = g_strdup (text);
}

static void
endpoint_failed_cb (SjVoiceSession *session,
                    const GError   *error,
                    Fixture        *fixture)
{
  g_clear_error (&fixture->endpoint_error);
  fixture->endpoint_error = g_error_copy (error);
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->session = sj_voice_session_new ();
  g_signal_connect (fixture->session, "level", G_CALLBACK (level_cb), fixture);
  g_signal_connect (fixture->session, "partial", G_CALLBACK (partial_cb), fixture);
  g_signal_connect (fixture->session, "endpoint-failed", G_CALLBACK (endpoint_failed_cb), fixture);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->session);
  g_clear_object (&fixture->result);
  g_clear_pointer (&fixture->last_partial, g_free);
  g_clear_error (&fixture->endpoint_error);
}

static void
done_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Fixture *fixture = user_data;

  fixture->result = g_object_ref (result);
  fixture->done = TRUE;
}

static GAsyncResult *
wait_result (Fixture *fixture)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (!fixture->done)
    {
      g_main_context_iteration (NULL, TRUE);
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    }
  fixture->done = FALSE;

  return fixture->result;
}

static gboolean
start (Fixture  *fixture,
       GError  **error)
{
  gboolean ok;

  sj_voice_session_start_async (fixture->session, NULL, done_cb, fixture);
  ok = sj_voice_session_start_finish (fixture->session, wait_result (fixture), error);
  g_clear_object (&fixture->result);

  return ok;
}

static char *
say (Fixture     *fixture,
     const char  *wav,
     gint64      *latency_us,
     GError     **error)
{
  SjTestVoiceTiming timing = { 0 };
  char *text = sj_test_voice_say (fixture->session, wav, &timing, error);

  fixture->n_partials = timing.n_partials;
  if (latency_us != NULL)
    *latency_us = timing.release_to_text_us;

  return text;
}

static char *
wav_for (guint index)
{
  return sj_test_voice_render (sj_test_voice_commands[index], wav_dir, index);
}

/* The 30 commands: most come through word for word, the word error rate
 * stays low, partial words come while speaking, and the text comes within
 * a second of the end of speech. */
static void
test_commands (Fixture       *fixture,
               gconstpointer  data)
{
  guint errors = 0;
  guint words = 0;
  guint exact = 0;
  guint with_partials = 0;
  gint64 total_latency = 0;
  gint64 worst_latency = 0;
  guint exact_confident = 0;

  if (!sj_test_voice_available ())
    {
      g_test_skip ("needs tests/with-pulse.sh, espeak-ng and paplay");
      return;
    }

  for (guint i = 0; i < SJ_TEST_VOICE_N_COMMANDS; i++)
    {
      g_autofree char *wav = wav_for (i);
      g_autoptr(GError) error = NULL;
      g_autofree char *text = NULL;
      g_autofree char *normal = NULL;
      gint64 latency = 0;
      guint n = 0;
      guint e;

      text = say (fixture, wav, &latency, &error);
      normal = sj_test_voice_normalize (text != NULL ? text : "");
      e = sj_test_voice_word_errors (sj_test_voice_commands[i], normal, &n);
      g_test_message ("\"%s\" → \"%s\" (%u errors, %.0f ms, %u partials)%s%s",
                      sj_test_voice_commands[i], normal, e, latency / 1000.0, fixture->n_partials,
                      error != NULL ? ": " : "", error != NULL ? error->message : "");
      if (text != NULL)
        {
          double confidence = sj_voice_session_get_confidence (fixture->session);

          /* Offline words are never quite certain. */
          g_assert_cmpfloat (confidence, >=, 0.0);
          g_assert_cmpfloat (confidence, <, 1.0);
          exact_confident += e == 0 && confidence >= 0.5;
        }
      errors += e;
      words += n;
      exact += e == 0;
      with_partials += fixture->n_partials > 0;
      total_latency += latency;
      worst_latency = MAX (worst_latency, latency);
    }

  g_test_message ("WER %.1f %% (%u/%u words), %u/%u exact, latency mean %.0f ms, worst %.0f ms",
                  100.0 * errors / words, errors, words, exact, SJ_TEST_VOICE_N_COMMANDS,
                  total_latency / 1000.0 / SJ_TEST_VOICE_N_COMMANDS, worst_latency / 1000.0);
  /* With the domain language model beside the grammar (issue 30) the
   * tuned commands lose a little for the sake of unheard phrasings:
   * 10.6 % at load 6, 16.3 % at load 10 (2026-11-29, 2 cores), where
   * the grammar alone was at 3–8 %; later the same day 20.2 % (20 of 30
   * word for word) then 9.6 % at load 6: PocketSphinx dithers. The bound
   * leaves room for that; PocketSphinx's English model alone is at ~90 %. */
  g_assert_cmpfloat (100.0 * errors / words, <, 25.0);
  g_assert_cmpuint (exact, >=, 18);
  /* Words heard right are mostly sure enough to be sent at once with the
   * default threshold (voice-confidence-threshold). */
  g_test_message ("%u of %u exact commands at confidence 0.5 or more", exact_confident, exact);
  g_assert_cmpuint (exact_confident * 10, >=, exact * 8);
  g_assert_cmpuint (with_partials, >=, 22);
  /* The latency is printed above, not asserted: speed is bench/voice's to
   * measure (side by side, on a quiet machine); a loaded CI machine or
   * AddressSanitizer doubles it without anything being wrong. */
}

/* The same 30 commands heard live by Moonshine (issue 30), the engine the
 * voice-engine setting chooses by default: the words, and its confidence
 * feeding the hold-for-editing path (voice-confidence-threshold): words
 * heard right are mostly sure enough to be sent at once, and wrong ones
 * are less sure than right ones. Skips, saying so, without Moonshine. */
static void
test_commands_moonshine (Fixture       *fixture,
                         gconstpointer  data)
{
  guint errors = 0, words = 0, exact = 0, exact_confident = 0, n_wrong = 0;
  double right_sum = 0, wrong_sum = 0;

  if (!sj_test_voice_available ())
    {
      g_test_skip ("needs tests/with-pulse.sh, espeak-ng and paplay");
      return;
    }
  if (g_getenv ("SJ_MOONSHINE_DIR") == NULL)
    {
      g_test_skip ("This build has no Moonshine (-Dmoonshine=disabled, or no npm)");
      return;
    }

  sj_voice_session_set_engine (fixture->session, SJ_VOICE_ENGINE_MOONSHINE);
  for (guint i = 0; i < SJ_TEST_VOICE_N_COMMANDS; i++)
    {
      g_autofree char *wav = wav_for (i);
      g_autoptr(GError) error = NULL;
      g_autofree char *text = NULL;
      g_autofree char *normal = NULL;
      gint64 latency = 0;
      double confidence = 0;
      guint n = 0;
      guint e;

      text = say (fixture, wav, &latency, &error);
      normal = sj_test_voice_normalize (text != NULL ? text : "");
      e = sj_test_voice_word_errors (sj_test_voice_commands[i], normal, &n);
      if (text != NULL)
        {
          confidence = sj_voice_session_get_confidence (fixture->session);
          g_assert_cmpfloat (confidence, >=, 0.0);
          g_assert_cmpfloat (confidence, <, 1.0);
        }
      g_test_message ("\"%s\" → \"%s\" (%u errors, %.0f ms, confidence %.2f)%s%s", sj_test_voice_commands[i], normal, e,
                      latency / 1000.0, confidence, error != NULL ? ": " : "", error != NULL ? error->message : "");
      errors += e;
      words += n;
      exact += e == 0;
      exact_confident += e == 0 && sj_voice_session_should_send (TRUE, confidence, 0.5);
      if (e == 0)
        right_sum += confidence;
      else
        {
          wrong_sum += confidence;
          n_wrong++;
        }
    }

  g_test_message ("Moonshine: WER %.1f %% (%u/%u words), %u/%u exact, %u of them sent at once at 0.5; "
                  "mean confidence %.2f right, %.2f wrong", 100.0 * errors / words, errors, words, exact,
                  SJ_TEST_VOICE_N_COMMANDS, exact_confident, right_sum / MAX (exact, 1), wrong_sum / MAX (n_wrong, 1));
  /* Replayed from the bench's saved audio: 27.9 % on these (PocketSphinx
   * with the grammar written from them: ~10 %); live takes at load 13
   * gave 23.1 % (17 word for word) and 34.6 % (13): the bounds leave room
   * for that. */
  g_assert_cmpfloat (100.0 * errors / words, <, 45.0);
  g_assert_cmpuint (exact, >=, 10);
  g_assert_cmpuint (exact_confident * 10, >=, exact * 6);
  if (n_wrong > 0 && exact > 0)
    g_assert_cmpfloat (wrong_sum / n_wrong, <, right_sum / exact);
}

/* Spoken words go to the agent at once only when that was asked for and
 * the recogniser is sure of them; uncertain ones stay to be checked. */
static void
test_should_send (void)
{
  /* Asked, and sure: sent. */
  g_assert_true (sj_voice_session_should_send (TRUE, 0.9, 0.35));
  g_assert_true (sj_voice_session_should_send (TRUE, 0.35, 0.35));
  /* Asked, but uncertain: kept for editing. */
  g_assert_false (sj_voice_session_should_send (TRUE, 0.2, 0.35));
  g_assert_false (sj_voice_session_should_send (TRUE, 0.99, 1.0));
  /* Not asked: never sent, however sure. */
  g_assert_false (sj_voice_session_should_send (FALSE, 1.0, 0.0));
  g_assert_false (sj_voice_session_should_send (FALSE, 0.2, 0.35));
  /* A threshold of 0 sends everything that was asked for. */
  g_assert_true (sj_voice_session_should_send (TRUE, 0.0, 0.0));
}

/* A microphone that is not there fails to start, clearly. */
static void
test_no_microphone (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  if (!sj_test_voice_available ())
    {
      g_test_skip ("needs tests/with-pulse.sh");
      return;
    }

  sj_voice_session_set_device (fixture->session, "sj-no-such-microphone");
  g_assert_false (start (fixture, &error));
  g_assert_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_NO_MICROPHONE);
  g_assert_false (sj_voice_session_get_listening (fixture->session));
}

static void
suspend_microphone (gboolean suspend)
{
  g_autoptr(GError) error = NULL;
  const char *argv[] = { "pactl", "suspend-sink", g_getenv ("SJ_TEST_PULSE_MIC"), suspend ? "1" : "0", NULL };
  int status;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_spawn_check_wait_status (status, &error);
  g_assert_no_error (error);
}

/* A microphone held elsewhere opens but gives no sound: its sink is
 * suspended, as pasuspender does to every device (PulseAudio refuses to
 * suspend a monitor source by itself). Starting fails as busy after the
 * capture's watchdog, then works again once the device is back. */
static void
test_busy (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  gint64 started;

  if (!sj_test_voice_available ())
    {
      g_test_skip ("needs tests/with-pulse.sh");
      return;
    }

  suspend_microphone (TRUE);
  started = g_get_monotonic_time ();
  g_assert_false (start (fixture, &error));
  g_test_message ("busy after %.0f ms (the model loaded first)", (g_get_monotonic_time () - started) / 1000.0);
  suspend_microphone (FALSE);
  g_assert_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_BUSY);
  g_assert_nonnull (strstr (error->message, "another program"));
  g_assert_false (sj_voice_session_get_listening (fixture->session));

  /* Back: Try Again works, and hears the noise floor. */
  g_clear_error (&error);
  g_assert_true (start (fixture, &error));
  g_assert_no_error (error);
  g_assert_true (sj_voice_session_get_listening (fixture->session));
  sj_voice_session_cancel (fixture->session);
}

/* Without the offline model, starting says so (no sound server needed:
 * the model is loaded first). */
static void
test_model_missing (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  sj_voice_session_set_model_dir (fixture->session, wav_dir);
  g_assert_false (start (fixture, &error));
  g_assert_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_MODEL_MISSING);
  g_assert_nonnull (strstr (error->message, wav_dir));
  g_assert_false (sj_voice_session_get_listening (fixture->session));
}

/* The loopback transcription endpoint. */
typedef struct
{
  SoupServer *server;
  char       *url;
  guint       status;      /* what it answers */
  const char *text;
  guint       requests;
  char       *model;
  char       *auth;
  gsize       wav_size;
  gsize       reply_size;  /* a JSON answer of this size, 0 for the transcript */
  gboolean    hold;        /* send the headers and a little, then nothing */
} Endpoint;

static void
endpoint_cb (SoupServer        *server,
             SoupServerMessage *msg,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  Endpoint *endpoint = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (body);
  g_autoptr(SoupMultipart) multipart = soup_multipart_new_from_message (headers, bytes);
  g_autofree char *json = NULL;

  endpoint->requests++;
  g_assert_cmpstr (path, ==, "/v1/audio/transcriptions");
  g_assert_cmpstr (soup_server_message_get_method (msg), ==, "POST");
  g_assert_nonnull (multipart);
  g_free (endpoint->auth);
  endpoint->auth = g_strdup (soup_message_headers_get_one (headers, "Authorization"));

  for (int i = 0; i < soup_multipart_get_length (multipart); i++)
    {
      SoupMessageHeaders *part_headers;
      GBytes *part;
      g_autoptr(GHashTable) params = NULL;
      char *disposition = NULL;

      g_assert_true (soup_multipart_get_part (multipart, i, &part_headers, &part));
      g_assert_true (soup_message_headers_get_content_disposition (part_headers, &disposition, &params));
      if (g_str_equal (g_hash_table_lookup (params, "name"), "file"))
        {
          const guint8 *wav = g_bytes_get_data (part, &endpoint->wav_size);

          g_assert_cmpuint (endpoint->wav_size, >, 44 + 16000);  /* more than half a second */
          g_assert_cmpmem (wav, 4, "RIFF", 4);
          g_assert_cmpmem (wav + 8, 4, "WAVE", 4);
          g_assert_cmpuint (wav[24] | wav[25] << 8, ==, 16000);
        }
      else if (g_str_equal (g_hash_table_lookup (params, "name"), "model"))
        {
          g_free (endpoint->model);
          endpoint->model = g_strndup (g_bytes_get_data (part, NULL), g_bytes_get_size (part));
        }
      g_free (disposition);
    }

  if (endpoint->hold)
    {
      SoupMessageBody *reply = soup_server_message_get_response_body (msg);

      soup_server_message_set_status (msg, endpoint->status, NULL);
      soup_message_headers_set_encoding (soup_server_message_get_response_headers (msg), SOUP_ENCODING_CHUNKED);
      soup_message_body_append (reply, SOUP_MEMORY_STATIC, "{\"text\": \"", 10);
      return;
    }
  if (endpoint->reply_size > 0)
    {
      json = g_malloc (endpoint->reply_size + 1);
      memset (json, ' ', endpoint->reply_size);
      memcpy (json, "{\"text\": \"hi\"}", 14);
      json[endpoint->reply_size] = '\0';
    }
  else
    json = g_strdup_printf ("{\"text\": \"%s\"}", endpoint->text != NULL ? endpoint->text : "");
  soup_server_message_set_status (msg, endpoint->status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, json, strlen (json));
}

static void
endpoint_start (Endpoint *endpoint)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;

  endpoint->server = soup_server_new (NULL, NULL);
  endpoint->status = SOUP_STATUS_OK;
  soup_server_add_handler (endpoint->server, "/", endpoint_cb, endpoint, NULL);
  soup_server_listen_local (endpoint->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (endpoint->server);
  endpoint->url = g_strdup_printf ("http://127.0.0.1:%d/v1/", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
}

static void
endpoint_stop (Endpoint *endpoint)
{
  g_clear_object (&endpoint->server);
  g_clear_pointer (&endpoint->url, g_free);
  g_clear_pointer (&endpoint->model, g_free);
  g_clear_pointer (&endpoint->auth, g_free);
}

/* With an endpoint set, its transcript is the text; the multipart has the
 * WAV, the model, and the key as a bearer token. */
static void
test_endpoint (Fixture       *fixture,
               gconstpointer  data)
{
  Endpoint endpoint = { 0 };
  g_autofree char *wav = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  if (!sj_test_voice_available ())
    {
      g_test_skip ("needs tests/with-pulse.sh, espeak-ng and paplay");
      return;
    }

  endpoint_start (&endpoint);
  endpoint.text = "Add a cowbell, please.";
  sj_voice_session_set_endpoint (fixture->session, endpoint.url, "whisper-large", "sk-test-key");
  wav = wav_for (21);
  text = say (fixture, wav, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "Add a cowbell, please.");
  g_assert_cmpuint (endpoint.requests, ==, 1);
  g_assert_cmpstr (endpoint.model, ==, "whisper-large");
  g_assert_cmpstr (endpoint.auth, ==, "Bearer sk-test-key");
  g_assert_null (fixture->endpoint_error);
  endpoint_stop (&endpoint);
}

/* An endpoint that refuses the key, or is not there, says so, and the
 * offline text is used. */
static void
test_endpoint_fallback (Fixture       *fixture,
                        gconstpointer  data)
{
  Endpoint endpoint = { 0 };
  g_autofree char *wav = NULL;
  g_autofree char *dead_url = NULL;

  if (!sj_test_voice_available ())
    {
      g_test_skip ("needs tests/with-pulse.sh, espeak-ng and paplay");
      return;
    }

  endpoint_start (&endpoint);
  endpoint.status = SOUP_STATUS_UNAUTHORIZED;
  sj_voice_session_set_endpoint (fixture->session, endpoint.url, NULL, "sk-wrong-key");
  /* The fallback is what is tested here, not the recogniser: the offline
   * text must be there and be this command's (the recogniser dithers, and
   * "make it faster" is sometimes heard as "the kit faster", its last
   * word right in every run seen). */
  wav = wav_for (4);
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *text = say (fixture, wav, NULL, &error);

    g_assert_no_error (error);
    g_assert_nonnull (text);
    g_assert_true (g_str_has_suffix (text, "faster"));
    g_assert_error (fixture->endpoint_error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_ENDPOINT_REFUSED);
    g_assert_cmpstr (endpoint.model, ==, "whisper-1");
  }

  /* The same port, closed. */
  dead_url = g_strdup (endpoint.url);
  endpoint_stop (&endpoint);
  g_clear_error (&fixture->endpoint_error);
  sj_voice_session_set_endpoint (fixture->session, dead_url, NULL, NULL);
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *text = say (fixture, wav, NULL, &error);

    g_assert_no_error (error);
    g_assert_nonnull (text);
    g_assert_true (g_str_has_suffix (text, "faster"));
    g_assert_error (fixture->endpoint_error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_ENDPOINT_UNREACHABLE);
  }
}

static void
transcribed_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Fixture *fixture = user_data;

  fixture->result = g_object_ref (result);
  fixture->done = TRUE;
}

/* An answer that is not a transcript is a clear error, not text. */
static void
test_endpoint_bad_answer (Fixture       *fixture,
                          gconstpointer  data)
{
  Endpoint endpoint = { 0 };
  g_autoptr(SjTranscriptionClient) client = NULL;
  g_autoptr(GBytes) silence = g_bytes_new_take (g_malloc0 (32000), 32000);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  endpoint_start (&endpoint);
  endpoint.status = SOUP_STATUS_INTERNAL_SERVER_ERROR;
  client = sj_transcription_client_new (endpoint.url, NULL, NULL);
  g_assert_true (g_str_has_suffix (sj_transcription_client_get_url (client), "/v1/audio/transcriptions"));
  sj_transcription_client_transcribe_async (client, silence, NULL, transcribed_cb, fixture);
  text = sj_transcription_client_transcribe_finish (client, wait_result (fixture), &error);
  g_clear_object (&fixture->result);
  g_assert_null (text);
  g_assert_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_ENDPOINT_FAILED);
  g_assert_null (endpoint.auth);
  g_assert_cmpuint (endpoint.wav_size, ==, 44 + 32000);
  endpoint_stop (&endpoint);
}


/* The reply is read with a cap: a 2 MiB answer is refused, not read
 * whole; just under the cap is a transcript. */
static void
test_endpoint_reply_cap (Fixture       *fixture,
                         gconstpointer  data)
{
  Endpoint endpoint = { 0 };
  g_autoptr(SjTranscriptionClient) client = NULL;
  g_autoptr(GBytes) silence = g_bytes_new_take (g_malloc0 (32000), 32000);

  endpoint_start (&endpoint);
  client = sj_transcription_client_new (endpoint.url, NULL, NULL);

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text = NULL;

      endpoint.reply_size = i == 0 ? 2 * 1024 * 1024 : 1024 * 1024 - 16;
      sj_transcription_client_transcribe_async (client, silence, NULL, transcribed_cb, fixture);
      text = sj_transcription_client_transcribe_finish (client, wait_result (fixture), &error);
      g_clear_object (&fixture->result);
      if (i == 0)
        {
          g_assert_null (text);
          g_assert_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_ENDPOINT_FAILED);
          g_assert_nonnull (strstr (error->message, "1 MiB"));
        }
      else
        {
          g_assert_no_error (error);
          g_assert_cmpstr (text, ==, "hi");
        }
    }
  endpoint_stop (&endpoint);
}

/* A service that starts answering and never finishes is given up at the
 * deadline, with a message that says so. */
static void
test_endpoint_deadline (Fixture       *fixture,
                        gconstpointer  data)
{
  Endpoint endpoint = { 0 };
  g_autoptr(SjTranscriptionClient) client = NULL;
  g_autoptr(GBytes) silence = g_bytes_new_take (g_malloc0 (32000), 32000);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gint64 start = g_get_monotonic_time ();

  endpoint_start (&endpoint);
  endpoint.hold = TRUE;
  client = sj_transcription_client_new (endpoint.url, NULL, NULL);
  _sj_transcription_client_set_deadline_ms (client, 300);
  sj_transcription_client_transcribe_async (client, silence, NULL, transcribed_cb, fixture);
  text = sj_transcription_client_transcribe_finish (client, wait_result (fixture), &error);
  g_clear_object (&fixture->result);
  g_assert_null (text);
  g_assert_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_ENDPOINT_FAILED);
  g_assert_nonnull (strstr (error->message, "took longer"));
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 300 * 1000);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  endpoint_stop (&endpoint);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  wav_dir = g_dir_make_tmp ("sj-voice-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/voice/should-send", test_should_send);
  g_test_add ("/voice/commands", Fixture, NULL, fixture_set_up, test_commands, fixture_tear_down);
  g_test_add ("/voice/commands-moonshine", Fixture, NULL, fixture_set_up, test_commands_moonshine, fixture_tear_down);
  g_test_add ("/voice/no-microphone", Fixture, NULL, fixture_set_up, test_no_microphone, fixture_tear_down);
  g_test_add ("/voice/busy", Fixture, NULL, fixture_set_up, test_busy, fixture_tear_down);
  g_test_add ("/voice/model-missing", Fixture, NULL, fixture_set_up, test_model_missing, fixture_tear_down);
  g_test_add ("/voice/endpoint", Fixture, NULL, fixture_set_up, test_endpoint, fixture_tear_down);
  g_test_add ("/voice/endpoint-reply-cap", Fixture, NULL, fixture_set_up, test_endpoint_reply_cap, fixture_tear_down);
  g_test_add ("/voice/endpoint-deadline", Fixture, NULL, fixture_set_up, test_endpoint_deadline, fixture_tear_down);
  g_test_add ("/voice/endpoint-fallback", Fixture, NULL, fixture_set_up, test_endpoint_fallback, fixture_tear_down);
  g_test_add ("/voice/endpoint-bad-answer", Fixture, NULL, fixture_set_up, test_endpoint_bad_answer,
              fixture_tear_down);

  ret = g_test_run ();

  {
    g_autoptr(GFile) dir = g_file_new_for_path (wav_dir);
    g_autoptr(GFileEnumerator) children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                                                    G_FILE_QUERY_INFO_NONE, NULL, NULL);
    GFileInfo *info;

    while (children != NULL && (info = g_file_enumerator_next_file (children, NULL, NULL)) != NULL)
      {
        g_autoptr(GFile) child = g_file_get_child (dir, g_file_info_get_name (info));

        g_file_delete (child, NULL, NULL);
        g_object_unref (info);
      }
    g_file_delete (dir, NULL, NULL);
  }
  g_free (wav_dir);

  return ret;
}
