/* sj-redact.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Secret redaction for everything the app writes down: the history, the
 * tool logs on screen and copied, exports and every log line.  API keys,
 * authorization headers and tokens are masked by shape, and the key in use
 * by value.
 */

#include "config.h"

#include <string.h>

#include "sj-redact.h"

#define REDACTED "[redacted]"

typedef struct
{
  const char *pattern;
  const char *replacement;
} Redaction;

/* Each replacement keeps what names the secret and masks the secret. The
 * masked text matches no pattern's secret part again (or maps to itself),
 * so redacting twice changes nothing: the store redacts whole columns on
 * every streamed flush. */
static const Redaction redactions[] = {
  /* An Authorization header or field: the whole value, whatever scheme. */
  { "(?i)(\\bauthorization[\"']?\\s*[:=]\\s*[\"']?)[^\"'\\r\\n]+", "\\1" REDACTED },
  /* "api_key": "…", api_key=…, OPENROUTER_API_KEY=… and the like. */
  { "(?i)([\"']?\\b[a-z0-9_-]*(?:api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|auth[_-]?token|"
    "client[_-]?secret|secret[_-]?key|secret|password|passwd|token)[\"']?\\s*[:=]\\s*[\"']?)"
    "(?!null\\b|true\\b|false\\b)[^\"'\\s,;&}]{4,}",
    "\\1" REDACTED },
  { "(?i)\\b(bearer\\s+)[a-z0-9._~+/=-]{8,}", "\\1" REDACTED },
  /* OpenAI, OpenRouter (sk-or-v1-…), Anthropic (sk-ant-…) keys. */
  { "\\bsk-[A-Za-z0-9_-]{16,}", REDACTED },
  { "\\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}", REDACTED },
  { "\\bAIza[0-9A-Za-z_-]{30,}", REDACTED },
  { "\\bxox[abprs]-[A-Za-z0-9-]{10,}", REDACTED },
  { "\\bhf_[A-Za-z0-9]{20,}", REDACTED },
};

static GRegex **
compiled_redactions (void)
{
  static gsize initialized;
  static GRegex **regexes;

  if (g_once_init_enter (&initialized))
    {
      GRegex **compiled = g_new0 (GRegex *, G_N_ELEMENTS (redactions));

      for (guint i = 0; i < G_N_ELEMENTS (redactions); i++)
        {
          g_autoptr(GError) error = NULL;

          compiled[i] = g_regex_new (redactions[i].pattern, G_REGEX_OPTIMIZE, 0, &error);
          g_assert_no_error (error);
        }

      regexes = compiled;
      g_once_init_leave (&initialized, 1);
    }

  return regexes;
}

/* Secrets known by value (the key from the keyring): masked wherever they
 * appear, whatever their shape; local servers accept any string as a key. */
static GMutex secrets_lock;
static GPtrArray *secrets;

#define MIN_SECRET_LENGTH 6

/**
 * sj_redact_add_secret:
 * @secret: (nullable): a value that must never be written anywhere
 *
 * From now on sj_redact() masks @secret. Too short a value (under
 * six characters) would mask ordinary words and is ignored.
 */
void
sj_redact_add_secret (const char *secret)
{
  if (secret == NULL || strlen (secret) < MIN_SECRET_LENGTH)
    return;

  g_mutex_lock (&secrets_lock);
  if (secrets == NULL)
    secrets = g_ptr_array_new_with_free_func (g_free);
  if (!g_ptr_array_find_with_equal_func (secrets, secret, g_str_equal, NULL))
    g_ptr_array_add (secrets, g_strdup (secret));
  g_mutex_unlock (&secrets_lock);
}

static char *
redact_known (char *text)
{
  g_mutex_lock (&secrets_lock);
  for (guint i = 0; secrets != NULL && i < secrets->len; i++)
    {
      const char *secret = g_ptr_array_index (secrets, i);

      if (strstr (text, secret) != NULL)
        {
          g_auto(GStrv) parts = g_strsplit (text, secret, -1);

          g_free (text);
          text = g_strjoinv (REDACTED, parts);
        }
    }
  g_mutex_unlock (&secrets_lock);

  return text;
}

/**
 * sj_redact_safe_cut:
 * @text: text that may go on with more text later (a streamed answer)
 * @len: its length in bytes
 * @cut: where the caller would like to cut it, at most @len
 *
 * For redacting a stream piece by piece: the largest cut at or before @cut
 * that no secret registered with sj_redact_add_secret() crosses, and after
 * which every possibly unfinished secret stays. The tail held back is at
 * least as long as the longest registered secret minus one byte, so a key
 * split across the stream's chunks is whole in the text redacted next.
 * The cut never falls inside a UTF-8 character.
 *
 * Returns: the cut, from 0 to @cut
 */
gsize
sj_redact_safe_cut (const char *text,
                    gsize       len,
                    gsize       cut)
{
  gsize longest = 0;
  gboolean moved;

  g_return_val_if_fail (text != NULL || len == 0, 0);

  cut = MIN (cut, len);

  g_mutex_lock (&secrets_lock);
  for (guint i = 0; secrets != NULL && i < secrets->len; i++)
    longest = MAX (longest, strlen (g_ptr_array_index (secrets, i)));

  if (longest > 1)
    cut = MIN (cut, len >= longest - 1 ? len - (longest - 1) : 0);

  do
    {
      moved = FALSE;
      while (cut > 0 && cut < len && ((guchar)text[cut] & 0xC0) == 0x80)
        cut--;

      /* A whole secret across the cut: cut before it instead. */
      for (guint i = 0; secrets != NULL && i < secrets->len && !moved; i++)
        {
          const char *secret = g_ptr_array_index (secrets, i);
          gsize secret_len = strlen (secret);

          for (gsize p = cut >= secret_len ? cut - secret_len + 1 : 0; p < cut; p++)
            if (p + secret_len <= len && memcmp (text + p, secret, secret_len) == 0)
              {
                cut = p;
                moved = TRUE;
                break;
              }
        }
    }
  while (moved);
  g_mutex_unlock (&secrets_lock);

  return cut;
}

/**
 * sj_redact:
 * @text: (nullable): UTF-8 text
 *
 * Masks API keys, tokens and credentials in @text, and every secret
 * registered with sj_redact_add_secret().
 *
 * Returns: (transfer full) (nullable): the text with its secrets masked
 */
char *
sj_redact (const char *text)
{
  GRegex **regexes;
  g_autofree char *result = NULL;

  if (text == NULL)
    return NULL;

  regexes = compiled_redactions ();
  result = redact_known (g_strdup (text));

  for (guint i = 0; i < G_N_ELEMENTS (redactions); i++)
    {
      g_autoptr(GError) error = NULL;
      char *replaced;

      replaced = g_regex_replace (regexes[i], result, -1, 0, redactions[i].replacement, 0, &error);
      if (replaced == NULL)
        {
          /* Only invalid UTF-8 gets here; never let unmasked text through. */
          g_debug ("Redaction failed: %s", error->message);
          return g_strdup (REDACTED);
        }

      g_free (result);
      result = replaced;
    }

  return g_steal_pointer (&result);
}

/**
 * sj_redact_log_writer:
 *
 * A #GLogWriterFunc that masks secrets in every message before GLib's
 * default writer prints it or hands it to the journal: a provider's error
 * that quotes the key, or a library logging a header, never reaches a log.
 */
GLogWriterOutput
sj_redact_log_writer (GLogLevelFlags   log_level,
                                 const GLogField *fields,
                                 gsize            n_fields,
                                 gpointer         user_data)
{
  g_autofree GLogField *copy = g_memdup2 (fields, n_fields * sizeof (GLogField));
  g_autofree char *redacted = NULL;

  for (gsize i = 0; i < n_fields; i++)
    if (g_str_equal (copy[i].key, "MESSAGE") && copy[i].value != NULL)
      {
        g_autofree char *text = copy[i].length < 0 ? g_strdup (copy[i].value)
                                                   : g_strndup (copy[i].value, copy[i].length);

        redacted = sj_redact (text);
        copy[i].value = redacted;
        copy[i].length = -1;
        break;
      }

  return g_log_writer_default (log_level, copy, n_fields, user_data);
}
