/* sj-transcription-client.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * A client of an OpenAI-compatible transcription endpoint, the one the
 * musician chooses in Settings: a whisper.cpp or faster-whisper server on
 * this computer, or a cloud service. The utterance goes as a WAV in a
 * multipart POST to <url>/audio/transcriptions; the answer is {"text": …}.
 * The key travels only in the Authorization header and is never logged:
 * it is masked by value wherever the app writes text (sj_redact), wiped
 * from memory when the client goes, and refused to a plain http:// URL
 * on another computer unless the user allowed that address (SjKeyGuard).
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "sj-json.h"
#include "sj-key-guard.h"
#include "sj-redact.h"
#include "sj-transcription-client.h"
#include "sj-transcription-client-private.h"
#include "sj-voice-recognizer.h"
#include "sj-wav-header.h"

#define DEFAULT_TIMEOUT_S 30
/* A transcript is a few words: its answer is read with a cap and a total
 * deadline, never whole, so a broken or hostile service cannot grow our
 * memory or hold the microphone button for ever. */
#define MAX_REPLY_SIZE (1024 * 1024)
#define DEFAULT_DEADLINE_MS (60 * 1000)
#define READ_SIZE 16384

struct _SjTranscriptionClient
{
  GObject      parent_instance;

  char        *url;
  char        *model;
  char        *api_key;
  SoupSession *session;
  guint        deadline_ms;
};

/* One exchange: the message, the reply read so far, and its deadline. */
typedef struct
{
  SoupMessage  *msg;
  GInputStream *stream;
  GByteArray   *body;
  GCancellable *io_cancellable;
  GCancellable *caller_cancellable;
  gulong        caller_handler;
  guint         deadline_id;
  guint         deadline_ms;
  gboolean      past_deadline;
} Exchange;

G_DEFINE_FINAL_TYPE (SjTranscriptionClient, sj_transcription_client, G_TYPE_OBJECT)

static void
sj_transcription_client_finalize (GObject *object)
{
  SjTranscriptionClient *self = (SjTranscriptionClient *)object;

  g_free (self->url);
  g_free (self->model);
  /* Not left behind in freed memory. */
  if (self->api_key != NULL)
    explicit_bzero (self->api_key, strlen (self->api_key));
  g_free (self->api_key);
  g_clear_object (&self->session);

  G_OBJECT_CLASS (sj_transcription_client_parent_class)->finalize (object);
}

static void
sj_transcription_client_class_init (SjTranscriptionClientClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sj_transcription_client_finalize;
}

static void
sj_transcription_client_init (SjTranscriptionClient *self)
{
  self->session = soup_session_new_with_options ("user-agent", "StrudelJam/" PACKAGE_VERSION,
                                                 "timeout", DEFAULT_TIMEOUT_S,
                                                 NULL);
  self->deadline_ms = DEFAULT_DEADLINE_MS;
}

/**
 * sj_transcription_client_new:
 * @url: the base URL (".../v1"), or the whole ".../audio/transcriptions"
 * @model: (nullable): the model to ask for; "whisper-1" when %NULL or empty
 * @api_key: (nullable): the key, sent as a bearer token
 */
SjTranscriptionClient *
sj_transcription_client_new (const char *url,
                             const char *model,
                             const char *api_key)
{
  SjTranscriptionClient *self = g_object_new (SJ_TYPE_TRANSCRIPTION_CLIENT, NULL);
  g_autofree char *base = g_strdup (url);
  gsize len = strlen (base);

  while (len > 0 && base[len - 1] == '/')
    base[--len] = '\0';
  if (g_str_has_suffix (base, "/audio/transcriptions"))
    self->url = g_steal_pointer (&base);
  else
    self->url = g_strconcat (base, "/audio/transcriptions", NULL);

  self->model = g_strdup (model != NULL && *model != '\0' ? model : "whisper-1");
  self->api_key = api_key != NULL && *api_key != '\0' ? g_strdup (api_key) : NULL;
  /* Masked wherever the app writes text: the history, the tool logs, the log. */
  sj_redact_add_secret (self->api_key);

  return self;
}

const char *
sj_transcription_client_get_url (SjTranscriptionClient *self)
{
  g_assert (SJ_IS_TRANSCRIPTION_CLIENT (self));

  return self->url;
}

void
sj_transcription_client_set_timeout (SjTranscriptionClient *self,
                                     guint                  seconds)
{
  g_assert (SJ_IS_TRANSCRIPTION_CLIENT (self));

  g_object_set (self->session, "timeout", seconds, NULL);
}

/**
 * sj_transcription_client_encode_wav:
 * @samples: 16 kHz signed 16-bit mono samples
 *
 * Returns: (transfer full): the same as a WAV file
 */
GBytes *
sj_transcription_client_encode_wav (GBytes *samples)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (samples, &size);
  guint8 *wav;

  g_return_val_if_fail (size <= G_MAXUINT32 - SJ_WAV_HEADER_SIZE, NULL);
  wav = g_malloc (SJ_WAV_HEADER_SIZE + size);
  sj_wav_header_set (wav, SJ_VOICE_SAMPLE_RATE, 1, size);
  if (size > 0)
    memcpy (wav + SJ_WAV_HEADER_SIZE, data, size);

  return g_bytes_new_take (wav, SJ_WAV_HEADER_SIZE + size);
}

/* For the tests: the reply's total deadline. */
void
_sj_transcription_client_set_deadline_ms (SjTranscriptionClient *self,
                                          guint                  milliseconds)
{
  g_assert (SJ_IS_TRANSCRIPTION_CLIENT (self));

  self->deadline_ms = milliseconds;
}

static void
exchange_stop_watch (Exchange *ex)
{
  g_clear_handle_id (&ex->deadline_id, g_source_remove);
  if (ex->caller_handler != 0)
    g_cancellable_disconnect (ex->caller_cancellable, ex->caller_handler);
  ex->caller_handler = 0;
}

static void
exchange_free (Exchange *ex)
{
  exchange_stop_watch (ex);
  g_clear_object (&ex->msg);
  g_clear_object (&ex->stream);
  g_byte_array_unref (ex->body);
  g_clear_object (&ex->io_cancellable);
  g_clear_object (&ex->caller_cancellable);
  g_free (ex);
}

static gboolean
deadline_cb (gpointer user_data)
{
  Exchange *ex = user_data;

  ex->deadline_id = 0;
  ex->past_deadline = TRUE;
  g_cancellable_cancel (ex->io_cancellable);

  return G_SOURCE_REMOVE;
}

static void
caller_cancelled_cb (GCancellable *cancellable,
                     gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

static GError *
error_from_status (guint       status,
                   const char *url)
{
  if (status == SOUP_STATUS_UNAUTHORIZED || status == SOUP_STATUS_FORBIDDEN)
    return g_error_new (SJ_VOICE_ERROR, SJ_VOICE_ERROR_ENDPOINT_REFUSED,
                        _("The transcription service refused the key (HTTP %u)"), status);

  return g_error_new (SJ_VOICE_ERROR, SJ_VOICE_ERROR_ENDPOINT_FAILED,
                      _("The transcription service at %s answered HTTP %u"), url, status);
}

static char *
parse_text (GBytes  *body,
            GError **error)
{
  g_autoptr(JsonNode) root = sj_json_parse_bytes (body, NULL, NULL);
  JsonObject *object;
  const char *text;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    goto bad;

  object = json_node_get_object (root);
  if (!json_object_has_member (object, "text") ||
      json_node_get_value_type (json_object_get_member (object, "text")) != G_TYPE_STRING)
    goto bad;

  text = json_object_get_string_member (object, "text");
  return g_strstrip (g_strdup (text));

bad:
  g_set_error (error, SJ_VOICE_ERROR, SJ_VOICE_ERROR_ENDPOINT_FAILED,
               _("The transcription service did not answer with a transcript"));
  return NULL;
}

static void
return_failure (GTask  *task,
                GError *error)
{
  SjTranscriptionClient *self = g_task_get_source_object (task);
  Exchange *ex = g_task_get_task_data (task);

  exchange_stop_watch (ex);
  if (ex->past_deadline && !g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    g_task_return_new_error (task, SJ_VOICE_ERROR, SJ_VOICE_ERROR_ENDPOINT_FAILED,
                             _("The transcription service at %s took longer than %u seconds to answer"),
                             self->url, MAX ((ex->deadline_ms + 999) / 1000, 1));
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_task_return_error (task, g_error_copy (error));
  else
    g_task_return_new_error (task, SJ_VOICE_ERROR, SJ_VOICE_ERROR_ENDPOINT_UNREACHABLE,
                             _("The transcription service at %s cannot be reached (%s)"),
                             self->url, error->message);
}

static void
finish_reply (GTask *task)
{
  SjTranscriptionClient *self = g_task_get_source_object (task);
  Exchange *ex = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = NULL;
  guint status;
  char *text;

  exchange_stop_watch (ex);
  status = soup_message_get_status (ex->msg);
  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      g_task_return_error (task, error_from_status (status, self->url));
      return;
    }

  body = g_bytes_new (ex->body->data, ex->body->len);
  text = parse_text (body, &error);
  if (text == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, text, g_free);
}

static void read_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data);

static void
read_next (GTask *task)
{
  Exchange *ex = g_task_get_task_data (task);

  g_input_stream_read_bytes_async (ex->stream, READ_SIZE, G_PRIORITY_DEFAULT,
                                   ex->io_cancellable, read_cb, task);
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SjTranscriptionClient *self = g_task_get_source_object (task);
  Exchange *ex = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const guint8 *data;
  gsize len;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  if (bytes == NULL)
    {
      return_failure (task, error);
      return;
    }

  data = g_bytes_get_data (bytes, &len);
  if (len == 0)
    {
      finish_reply (task);
      return;
    }

  if (ex->body->len + len > MAX_REPLY_SIZE)
    {
      exchange_stop_watch (ex);
      g_task_return_new_error (task, SJ_VOICE_ERROR, SJ_VOICE_ERROR_ENDPOINT_FAILED,
                               _("The transcription service at %s answered with more than 1 MiB"),
                               self->url);
      return;
    }
  g_byte_array_append (ex->body, data, len);

  read_next (g_steal_pointer (&task));
}

static void
send_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Exchange *ex = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  ex->stream = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (ex->stream == NULL)
    {
      return_failure (task, error);
      return;
    }

  read_next (g_steal_pointer (&task));
}

/**
 * sj_transcription_client_transcribe_async:
 * @samples: 16 kHz signed 16-bit mono samples
 *
 * Sends the audio; fails with %SJ_VOICE_ERROR_ENDPOINT_UNREACHABLE,
 * %SJ_VOICE_ERROR_ENDPOINT_REFUSED or %SJ_VOICE_ERROR_ENDPOINT_FAILED.
 */
void
sj_transcription_client_transcribe_async (SjTranscriptionClient *self,
                                          GBytes                *samples,
                                          GCancellable          *cancellable,
                                          GAsyncReadyCallback    callback,
                                          gpointer               user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(SoupMultipart) multipart = NULL;
  g_autoptr(GBytes) wav = NULL;
  SoupMessage *msg;
  Exchange *ex;

  g_assert (SJ_IS_TRANSCRIPTION_CLIENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sj_transcription_client_transcribe_async);

  if (self->api_key != NULL)
    {
      g_autoptr(GError) error = NULL;

      if (!sj_key_guard_check (self->url, &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
    }

  wav = sj_transcription_client_encode_wav (samples);
  multipart = soup_multipart_new (SOUP_FORM_MIME_TYPE_MULTIPART);
  soup_multipart_append_form_file (multipart, "file", "speech.wav", "audio/wav", wav);
  soup_multipart_append_form_string (multipart, "model", self->model);
  soup_multipart_append_form_string (multipart, "response_format", "json");
  soup_multipart_append_form_string (multipart, "language", "en");

  msg = soup_message_new_from_multipart (self->url, multipart);
  if (msg == NULL)
    {
      g_task_return_new_error (task, SJ_VOICE_ERROR, SJ_VOICE_ERROR_ENDPOINT_UNREACHABLE,
                               _("The transcription address %s is not a valid URL"), self->url);
      return;
    }
  if (self->api_key != NULL)
    {
      g_autofree char *auth = g_strconcat ("Bearer ", self->api_key, NULL);

      soup_message_headers_replace (soup_message_get_request_headers (msg), "Authorization", auth);
    }

  ex = g_new0 (Exchange, 1);
  ex->msg = msg;
  ex->body = g_byte_array_new ();
  ex->io_cancellable = g_cancellable_new ();
  g_task_set_task_data (task, ex, (GDestroyNotify) exchange_free);
  if (cancellable != NULL)
    {
      ex->caller_cancellable = g_object_ref (cancellable);
      ex->caller_handler = g_cancellable_connect (cancellable, G_CALLBACK (caller_cancelled_cb),
                                                  g_object_ref (ex->io_cancellable), g_object_unref);
    }
  ex->deadline_ms = self->deadline_ms;
  if (ex->deadline_ms > 0)
    ex->deadline_id = g_timeout_add (ex->deadline_ms, deadline_cb, ex);

  soup_session_send_async (self->session, msg, G_PRIORITY_DEFAULT, ex->io_cancellable,
                           send_cb, g_object_ref (task));
}

char *
sj_transcription_client_transcribe_finish (SjTranscriptionClient  *self,
                                           GAsyncResult           *result,
                                           GError                **error)
{
  g_assert (SJ_IS_TRANSCRIPTION_CLIENT (self));

  return g_task_propagate_pointer (G_TASK (result), error);
}
